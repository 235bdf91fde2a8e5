#include "kernlearn/methods/iklr_nystrom.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include <Eigen/Cholesky>

#include "kernlearn/methods/line_search.hpp"
#include "kernlearn/methods/logistic.hpp"

namespace kernlearn {

namespace {

constexpr double kMaxFeature = 1e150;

// The features Phi = C T (C: n x M kernel columns at the centres, T: the M x r projection) with
// the constant column s appended, as products with a weight vector w = (beta, b): forward
// Phi_aug w = C (T beta) + s b (n values) and transposed Phi_aug' v = (T' C' v, s sum v) (r + 1
// values). Phi is never formed: that would cost an n M r product and a second n x r array, where
// each product here costs O(n M). Both run on the team by row blocks of C; the transposed
// product sums per-block partials in block order, and the blocks depend on n only, so the result
// does not depend on the thread count.
class Features {
 public:
  Features(const MatrixRef& C, const MatrixRef& T, double s, ThreadTeam& team, const InterruptPoll& poll)
      : C_(C), T_(T), s_(s), team_(team), poll_(poll), n_(C.rows()), m_(C.cols()), r_(T.cols()) {
    blocks_ = std::max<Index>(1, std::min<Index>(64, n_ / 2048));
    partial_.resize(m_, blocks_);
  }

  Index passes() const { return passes_; }

  void times(const Eigen::VectorXd& w, Eigen::VectorXd& out) {
    start_pass();
    out.resize(n_);
    const double offset = s_ * w[r_];
    const Eigen::VectorXd u = T_ * w.head(r_);
    team_.for_each(blocks_, [&](int, Index b) {
      const Index first = n_ * b / blocks_, last = n_ * (b + 1) / blocks_;
      out.segment(first, last - first).noalias() = C_.middleRows(first, last - first) * u;
      out.segment(first, last - first).array() += offset;
    });
  }

  void transpose_times(const Eigen::VectorXd& v, Eigen::VectorXd& out) {
    start_pass();
    team_.for_each(blocks_, [&](int, Index b) {
      const Index first = n_ * b / blocks_, last = n_ * (b + 1) / blocks_;
      partial_.col(b).noalias() = C_.middleRows(first, last - first).transpose() * v.segment(first, last - first);
    });
    Eigen::VectorXd sum = partial_.col(0);
    for (Index b = 1; b < blocks_; ++b) sum += partial_.col(b);
    out.resize(r_ + 1);
    out.head(r_).noalias() = T_.transpose() * sum;
    out[r_] = s_ * v.sum();
  }

 private:
  void start_pass() {
    if (poll_ && poll_()) throw Interrupted();
    ++passes_;
  }

  const MatrixRef& C_;
  const MatrixRef& T_;
  double s_;
  ThreadTeam& team_;
  const InterruptPoll& poll_;
  Index n_, m_, r_, blocks_ = 1, passes_ = 0;
  Eigen::MatrixXd partial_;
};

class NystromNewton {
 public:
  NystromNewton(const MatrixRef& C, const MatrixRef& T, const MatrixRef& Phi_centers,
                const Eigen::Ref<const Eigen::VectorXd>& y, const IklrNystromOptions& options, ThreadTeam& team,
                const InterruptPoll& poll)
      : features_(C, T, options.intercept, team, poll),
        centers_(Phi_centers),
        y_(y),
        opt_(options),
        team_(team),
        n_(C.rows()),
        p_(T.cols() + 1) {}

  IklrNystromResult run(const Eigen::Ref<const Eigen::VectorXd>& beta0, const Monitor<IklrIteration>& monitor) {
    IklrNystromResult result;
    const double inv_n = 1.0 / static_cast<double>(n_);
    Eigen::VectorXd g(p_);
    // tol's scale: ||grad F(0)|| = ||Phi_aug' y|| / (2n), independent of the start.
    features_.transpose_times(y_ * (0.5 * inv_n), g);
    result.reference_gradient_norm = g.norm();
    const double scale = result.reference_gradient_norm > 0 ? result.reference_gradient_norm : 1.0;
    w_.setZero(p_);
    w_.head(p_ - 1) = beta0;
    features_.times(w_, z_);
    double f = objective(w_, z_);
    result.initial_objective = f;
    double gnorm = gradient(g);
    result.status = std::isfinite(f) && std::isfinite(gnorm) ? SolverStatus::max_iter : SolverStatus::not_converged;
    // Forcing term min(c, ||g|| / ||g(0)||) for superlinear convergence; a damped step means the
    // direction was too inexact and c shrinks 100-fold (as in iklr.cpp's Newton).
    double forcing_cap = 0.1;
    for (Index k = 0; k < opt_.max_iter && result.status == SolverStatus::max_iter; ++k) {
      if (gnorm <= opt_.tol * scale) {
        result.status = SolverStatus::converged;
        break;
      }
      const Index passes_before = features_.passes();
      const double forcing = std::min(forcing_cap, gnorm / scale);
      Eigen::VectorXd step_dir(p_), Phi_step(n_);
      const Index cg = direction(g, gnorm, forcing, step_dir, Phi_step);
      double slope = g.dot(step_dir);
      if (!(slope < 0.0)) {  // not a descent direction (CG broke down): steepest descent
        step_dir = -g;
        slope = -gnorm * gnorm;
        features_.times(step_dir, Phi_step);
      }
      // Armijo backtracking; the margins move with w at no pass over Phi.
      const ArmijoStep search =
          armijo_backtrack(f, slope, [&](double s) { return objective(w_ + s * step_dir, z_ + s * Phi_step); });
      if (!search.accepted) {
        result.status = SolverStatus::not_converged;
        break;
      }
      const double step = search.step, f_new = search.value;
      if (step < 1.0) forcing_cap = std::max(forcing_cap * 1e-2, 1e-12);
      w_ += step * step_dir;
      z_ += step * Phi_step;
      f = f_new;
      gnorm = gradient(g);
      const IklrIteration record{f, cg, features_.passes() - passes_before, gnorm, step};
      result.history.push_back(record);
      if (monitor_stops(monitor, k, record)) {
        result.status = SolverStatus::interrupted;
        break;
      }
    }
    if (result.status == SolverStatus::max_iter && gnorm <= opt_.tol * scale) result.status = SolverStatus::converged;
    result.beta = w_.head(p_ - 1);
    result.intercept_weight = w_[p_ - 1];
    result.gradient_norm = gnorm;
    return result;
  }

 private:
  double objective(const Eigen::VectorXd& w, const Eigen::VectorXd& z) const {
    double s = 0.0;
    for (Index i = 0; i < n_; ++i) s += logistic::loss(y_[i] * z[i]);
    return s / static_cast<double>(n_) + 0.5 * opt_.lambda * w.squaredNorm();
  }

  // grad F at (w_, z_) into g, and the curvature weights d_. Returns ||g||.
  double gradient(Eigen::VectorXd& g) {
    const double inv_n = 1.0 / static_cast<double>(n_);
    Eigen::VectorXd u(n_);
    d_.resize(n_);
    for (Index i = 0; i < n_; ++i) {
      const double beta = logistic::tail_weight(y_[i] * z_[i]);
      u[i] = -y_[i] * beta * inv_n;
      d_[i] = beta * (1.0 - beta);
    }
    features_.transpose_times(u, g);
    g += opt_.lambda * w_;
    return g.norm();
  }

  // The preconditioner P = (1/M) Phi_Z,aug' D_Z Phi_Z,aug + lambda I at the current weights: the
  // curvature at the centres' margins (the labels do not enter beta (1 - beta)). The rank update
  // runs in up to 4 row blocks of the centres on the team (fixed by M, not by the thread count).
  Eigen::LLT<Eigen::MatrixXd> preconditioner() const {
    const Index M = centers_.rows(), r = p_ - 1;
    const double s = opt_.intercept;
    Eigen::VectorXd margins = centers_ * w_.head(r);
    margins.array() += s * w_[r];
    Eigen::MatrixXd weighted(M, p_);  // D_Z^1/2 Phi_Z,aug / sqrt(M)
    for (Index j = 0; j < M; ++j) {
      const double t = logistic::tail_weight(margins[j]);
      const double root = std::sqrt(t * (1.0 - t) / static_cast<double>(M));
      weighted.row(j).head(r) = root * centers_.row(j);
      weighted(j, r) = root * s;
    }
    const Index blocks = std::max<Index>(1, std::min<Index>(4, M / 128));
    std::vector<Eigen::MatrixXd> parts(static_cast<std::size_t>(blocks));
    team_.for_each(blocks, [&](int, Index b) {
      const Index first = M * b / blocks, last = M * (b + 1) / blocks;
      Eigen::MatrixXd& part = parts[static_cast<std::size_t>(b)];
      part.setZero(p_, p_);
      part.selfadjointView<Eigen::Lower>().rankUpdate(weighted.middleRows(first, last - first).transpose());
    });
    Eigen::MatrixXd P = Eigen::MatrixXd::Identity(p_, p_) * opt_.lambda;
    for (const Eigen::MatrixXd& part : parts) P.triangularView<Eigen::Lower>() += part;
    return Eigen::LLT<Eigen::MatrixXd>(P.selfadjointView<Eigen::Lower>());
  }

  // Preconditioned CG on H p = -g, H v = Phi_aug' D Phi_aug v / n + lambda v, to relative residual
  // `forcing`. Returns the CG steps; p = -g when none could be taken. Phi_p = Phi_aug p accumulates
  // from the products the Hessian already takes, so the line search needs no pass of its own.
  Index direction(const Eigen::VectorXd& g, double gnorm, double forcing, Eigen::VectorXd& p, Eigen::VectorXd& Phi_p) {
    const double inv_n = 1.0 / static_cast<double>(n_);
    const Eigen::LLT<Eigen::MatrixXd> P = preconditioner();
    p.setZero(p_);
    Phi_p.setZero(n_);
    Eigen::VectorXd res = -g, prec = P.solve(res), dir = prec, Phi_dir(n_), Hd(p_);
    const double target = forcing * gnorm;
    double rz = res.dot(prec);
    Index steps = 0;
    while (steps < opt_.max_cg && res.norm() > target) {
      features_.times(dir, Phi_dir);
      features_.transpose_times(Eigen::VectorXd(d_.cwiseProduct(Phi_dir) * inv_n), Hd);
      Hd += opt_.lambda * dir;
      const double curvature = dir.dot(Hd);
      if (!(curvature > 0.0) || !(rz > 0.0)) break;
      const double step = rz / curvature;
      p += step * dir;
      Phi_p += step * Phi_dir;
      res -= step * Hd;
      prec = P.solve(res);
      const double rz_new = res.dot(prec);
      dir = prec + (rz_new / rz) * dir;
      rz = rz_new;
      ++steps;
    }
    if (steps == 0) {
      p = -g;
      features_.times(p, Phi_p);
    }
    return steps;
  }

  Features features_;
  const MatrixRef& centers_;
  const Eigen::Ref<const Eigen::VectorXd>& y_;
  const IklrNystromOptions& opt_;
  ThreadTeam& team_;
  Index n_, p_;
  Eigen::VectorXd w_, z_, d_;
};

}  // namespace

IklrNystromResult iklr_nystrom_newton(const MatrixRef& C, const MatrixRef& T, const MatrixRef& Phi_centers,
                                      const Eigen::Ref<const Eigen::VectorXd>& y,
                                      const Eigen::Ref<const Eigen::VectorXd>& beta0, const IklrNystromOptions& options,
                                      ThreadTeam& team, const Monitor<IklrIteration>& monitor,
                                      const InterruptPoll& poll) {
  const std::string who = "iklr_nystrom_newton: ";
  const auto shape = [](const MatrixRef& A) {
    return "(" + std::to_string(A.rows()) + ", " + std::to_string(A.cols()) + ")";
  };
  const Index n = C.rows(), M = C.cols(), r = T.cols();
  if (n < 1 || M < 1) throw std::invalid_argument(who + "C must have at least one row and one column");
  if (T.rows() != M || r < 1)
    throw std::invalid_argument(who + "T must have C's " + std::to_string(M) +
                                " columns as rows and at least one column, got shape " + shape(T));
  if (Phi_centers.rows() < 1 || Phi_centers.cols() != r)
    throw std::invalid_argument(who + "Phi_centers must have at least one row and T's " + std::to_string(r) +
                                " columns, got shape " + shape(Phi_centers));
  if (y.size() != n) throw std::invalid_argument(who + "y needs one entry per row of C");
  if (beta0.size() != r) throw std::invalid_argument(who + "beta0 needs one entry per column of T");
  if (!C.allFinite() || !T.allFinite() || !Phi_centers.allFinite() || !y.allFinite() || !beta0.allFinite())
    throw std::invalid_argument(who + "C, T, Phi_centers, y and beta0 must be finite");
  // |Phi_ij| <= M max|C| max|T|: beyond 1e150 the squares in the Hessian and the norms overflow.
  const double feature_bound = static_cast<double>(M) * C.cwiseAbs().maxCoeff() * T.cwiseAbs().maxCoeff();
  if (!(feature_bound <= kMaxFeature) || !(Phi_centers.cwiseAbs().maxCoeff() <= kMaxFeature))
    throw std::invalid_argument(who + "C and T (or Phi_centers) give features of magnitude up to " +
                                std::to_string(feature_bound) +
                                ", beyond 1e150 where their squares overflow: rescale C");
  if (!(options.lambda > 0.0) || !std::isfinite(options.lambda))
    throw std::invalid_argument(who + "lambda_ must be a positive finite number");
  if (!(options.intercept >= 0.0) || !std::isfinite(options.intercept))
    throw std::invalid_argument(who + "intercept must be finite and >= 0");
  if (!(options.tol >= 0.0) || !std::isfinite(options.tol))
    throw std::invalid_argument(who + "tol must be finite and >= 0");
  if (options.max_iter < 0 || options.max_cg < 1)
    throw std::invalid_argument(who + "max_iter must be >= 0 and max_cg >= 1");
  NystromNewton run(C, T, Phi_centers, y, options, team, poll);
  return run.run(beta0, monitor);
}

}  // namespace kernlearn
