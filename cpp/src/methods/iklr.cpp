#include "kernlearn/methods/iklr.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "kernlearn/methods/line_search.hpp"
#include "kernlearn/methods/logistic.hpp"

namespace kernlearn {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

using logistic::loss;
using logistic::tail_weight;

// What both solvers share: the kernel, the labels and K-, the polled mat-vec and its count, and
// the mean logistic loss at margins y o z.
class KernelRun {
 protected:
  KernelRun(const LinearOperator& K, const Eigen::Ref<const Eigen::VectorXd>& y, const NegativePart& negative,
            const InterruptPoll& poll)
      : K_(K), y_(y), neg_(negative), poll_(poll), n_(K.rows()) {}

  void multiply(const Eigen::VectorXd& x, Eigen::VectorXd& out) {
    // Polled at every mat-vec: a poll is a clock read between its (rate-limited) GIL takes.
    if (poll_ && poll_()) throw Interrupted();
    K_.apply(x, out);
    ++matvecs_;
  }

  // K- x = V diag(w) V' x + s x: O(n r), never an n x n matrix.
  Eigen::VectorXd negative_times(const Eigen::VectorXd& x) const {
    Eigen::VectorXd out = neg_.shift * x;
    if (neg_.V.cols() > 0) out.noalias() += neg_.V * (neg_.w.asDiagonal() * (neg_.V.transpose() * x));
    return out;
  }

  double mean_loss(const Eigen::VectorXd& z) const {
    double s = 0.0;
    for (Index i = 0; i < n_; ++i) s += loss(y_[i] * z[i]);
    return s / static_cast<double>(n_);
  }

  const LinearOperator& K_;
  const Eigen::Ref<const Eigen::VectorXd>& y_;
  const NegativePart& neg_;
  const InterruptPoll& poll_;
  Index n_;
  Index matvecs_ = 0;
};

class CcicpRun : KernelRun {
  using Base = KernelRun;
  using Base::K_;
  using Base::matvecs_;
  using Base::multiply;
  using Base::n_;
  using Base::negative_times;
  using Base::y_;

 public:
  CcicpRun(const LinearOperator& K, const Eigen::Ref<const Eigen::VectorXd>& y, const NegativePart& negative,
           const IklrOptions& options, const InterruptPoll& poll)
      : Base(K, y, negative, poll), opt_(options) {}

  IklrResult run(const Eigen::Ref<const Eigen::VectorXd>& alpha0, const Eigen::Ref<const VectorXi>& sgd_indices,
                 const Monitor<IklrIteration>& monitor) {
    IklrResult result;
    a_ = alpha0;
    eta_ = opt_.learning_rate;
    z_.resize(n_);
    multiply(a_, z_);
    result.initial_objective = objective();
    for (Index k = 0; k < opt_.max_outer; ++k) {
      const Index matvecs_before = matvecs_;
      const Index steps = inner(k, sgd_indices);
      IklrIteration record{objective(), steps, matvecs_ - matvecs_before, kNaN, eta_ / opt_.decay};
      if (!std::isfinite(record.objective) || !a_.allFinite()) {
        // The step schedule overflowed: hand back the last finite iterate, flagged.
        result.status = SolverStatus::not_converged;
        a_ = ak_;
        multiply(a_, z_);
        break;
      }
      result.history.push_back(record);
      if (monitor_stops(monitor, k, record)) {
        result.status = SolverStatus::interrupted;
        break;
      }
    }
    result.alpha = a_;
    result.gradient_norm = kNaN;
    result.reference_gradient_norm = kNaN;
    return result;
  }

 private:
  // F(a) of eq. (6): the K- parts cancel, (lambda/2) a'(K+ - K-) a = (lambda/2) a'K a. The convex
  // variant keeps (lambda/2) a'K+ a.
  double objective() const {
    double quad = a_.dot(z_);
    if (!opt_.concave) quad += a_.dot(negative_times(a_));
    return this->mean_loss(z_) + 0.5 * opt_.lambda * quad;
  }

  // F_k(a) of eq. (9) with its constant: g(a) - h(a_k) - lambda (K- a_k)'(a - a_k), so that
  // F_k(a_k) = F(a_k).
  double subproblem(const Eigen::VectorXd& neg_a) const {
    double value = this->mean_loss(z_) + 0.5 * opt_.lambda * (a_.dot(z_) + a_.dot(neg_a));
    if (opt_.concave) value -= 0.5 * opt_.lambda * ak_.dot(neg_ak_) + opt_.lambda * neg_ak_.dot(a_ - ak_);
    return value;
  }

  // lambda (K+ a - K- a_k) = lambda (K a + K- a - K- a_k): the regulariser's part of the gradient,
  // from K a, which the previous step left in z_.
  Eigen::VectorXd penalty_gradient(const Eigen::VectorXd& neg_a) const {
    Eigen::VectorXd g = opt_.lambda * (z_ + neg_a);
    if (opt_.concave) g -= opt_.lambda * neg_ak_;
    return g;
  }

  void start_outer() {
    ak_ = a_;
    neg_ak_ = opt_.concave ? negative_times(a_) : Eigen::VectorXd::Zero(n_);
  }

  // Descent on F_k (Algorithm 1, lines 6-13) until |F_k(t+1) - F_k(t)| <= eps. The logistic part
  // of the gradient is -(1/n) K (y o beta) for GD (one mat-vec) or one sample's -y_i beta_i K_i
  // for SGD (eq. 12, corrected); either way K a for the next margins and the stopping test costs
  // one more mat-vec.
  Index inner(Index k, const Eigen::Ref<const VectorXi>& indices) {
    start_outer();
    Eigen::VectorXd neg_a = negative_times(a_), weighted(n_), K_weighted(n_);
    double previous = subproblem(neg_a);
    if (opt_.restart_rate) eta_ = opt_.learning_rate;
    const double inv_n = 1.0 / static_cast<double>(n_);
    Index t = 0;
    while (t < opt_.max_inner) {
      Eigen::VectorXd g = penalty_gradient(neg_a);
      if (opt_.inner == IklrInner::gd) {
        for (Index i = 0; i < n_; ++i) weighted[i] = inv_n * y_[i] * tail_weight(y_[i] * z_[i]);
        multiply(weighted, K_weighted);
        g -= K_weighted;
      } else {
        const Index i = indices[k * opt_.max_inner + t];
        if (opt_.literal_sgd) g += opt_.lambda * neg_ak_;  // eq. (12) as printed: no -lambda K- a_k
        const double weight = y_[i] * tail_weight(y_[i] * z_[i]);
        column_.resize(n_);
        K_.column(i, column_);
        g -= weight * column_;
      }
      a_ -= eta_ * g;
      eta_ *= opt_.decay;
      ++t;
      multiply(a_, z_);
      neg_a = negative_times(a_);
      const double current = subproblem(neg_a);
      if (!std::isfinite(current) || std::abs(current - previous) <= opt_.eps) break;
      previous = current;
    }
    return t;
  }

  const IklrOptions& opt_;
  Eigen::VectorXd a_, z_, ak_, neg_ak_, column_;
  double eta_ = 0.0;  // the step, decayed per inner step (restarted per outer step or not)
};

// Inexact Newton on F(a) = (1/n) sum_i log(1 + exp(-y_i z_i)) + (lambda/2) (a'z + a'K- a), z = K a.
// With r = u + lambda a, u_i = -y_i beta_i / n and D = diag(beta_i (1 - beta_i)):
//   grad F = K r + lambda K- a,   Hessian H = K D K / n + lambda (K + K-).
class NewtonRun : KernelRun {
  using Base = KernelRun;
  using Base::matvecs_;
  using Base::multiply;
  using Base::n_;
  using Base::negative_times;
  using Base::y_;

 public:
  NewtonRun(const LinearOperator& K, const Eigen::Ref<const Eigen::VectorXd>& y, const NegativePart& negative,
            const IklrNewtonOptions& options, const InterruptPoll& poll)
      : Base(K, y, negative, poll), opt_(options), psd_(negative.V.cols() == 0 && negative.shift == 0.0) {}

  IklrResult run(const Eigen::Ref<const Eigen::VectorXd>& alpha0, const Monitor<IklrIteration>& monitor) {
    IklrResult result;
    const double inv_n = 1.0 / static_cast<double>(n_);
    Eigen::VectorXd g(n_), tmp(n_);
    // The tolerance scale ||grad F(0)|| = ||K y|| / (2n): independent of the start.
    multiply(y_ * (0.5 * inv_n), tmp);
    result.reference_gradient_norm = tmp.norm();
    const double scale = result.reference_gradient_norm > 0 ? result.reference_gradient_norm : 1.0;
    a_ = alpha0;
    z_.resize(n_);
    multiply(a_, z_);
    double f = objective(a_, z_);
    result.initial_objective = f;
    double gnorm = gradient(g);
    result.status = SolverStatus::max_iter;
    if (!std::isfinite(f) || !std::isfinite(gnorm)) result.status = SolverStatus::not_converged;
    double forcing_cap = psd_ ? 1e-3 : 0.1;
    for (Index k = 0; k < opt_.max_iter && result.status == SolverStatus::max_iter; ++k) {
      if (gnorm <= opt_.tol * scale) {
        result.status = SolverStatus::converged;
        break;
      }
      const Index matvecs_before = matvecs_;
      // Forcing term min(c, ||g|| / ||g(0)||): superlinear convergence near the optimum. The PSD
      // form starts at c = 1e-3: its p = -(r - S q / n) / lambda magnifies the CG error in q by
      // 1 / lambda, and c = 0.1 left alpha = 1e-4 short of the optimum after 100 steps
      // (bench/results/iklr_solver.md); for the Hessian form c = 0.1 sufficed. A damped step
      // (the line search cut the Newton step) means the direction was too inexact: c shrinks
      // 100-fold (down to 1e-12), which rescued a rank-2 kernel of norm 2e6 stuck at step 1e-3.
      const double forcing = std::min(forcing_cap, gnorm / scale);
      Eigen::VectorXd p(n_), Kp(n_);
      const Index cg = psd_ ? direction_psd(g, forcing, p, Kp) : direction_hessian(g, gnorm, forcing, p, Kp);
      double slope = g.dot(p);
      if (!(slope < 0.0)) {  // not a descent direction (CG broke down): steepest descent
        p = -g;
        multiply(p, Kp);
        slope = -gnorm * gnorm;
      }
      // Armijo backtracking; z moves with a at no mat-vec cost (K (a + s p) = z + s K p).
      const ArmijoStep search =
          armijo_backtrack(f, slope, [&](double s) { return objective(a_ + s * p, z_ + s * Kp); });
      if (!search.accepted) {
        result.status = SolverStatus::not_converged;
        break;
      }
      const double step = search.step, f_new = search.value;
      if (step < 1.0) forcing_cap = std::max(forcing_cap * 1e-2, 1e-12);
      a_ += step * p;
      z_ += step * Kp;
      f = f_new;
      gnorm = gradient(g);
      IklrIteration record{f, cg, matvecs_ - matvecs_before, gnorm, step};
      result.history.push_back(record);
      if (monitor_stops(monitor, k, record)) {
        result.status = SolverStatus::interrupted;
        break;
      }
    }
    if (result.status == SolverStatus::max_iter && gnorm <= opt_.tol * scale) result.status = SolverStatus::converged;
    result.alpha = a_;
    result.gradient_norm = gnorm;
    return result;
  }

 private:
  double objective(const Eigen::VectorXd& a, const Eigen::VectorXd& z) const {
    double quad = a.dot(z);
    if (!psd_) quad += a.dot(negative_times(a));
    return this->mean_loss(z) + 0.5 * opt_.lambda * quad;
  }

  // grad F at (a_, z_) into g; also sets r_ and the curvature weights d_. Returns ||g||.
  double gradient(Eigen::VectorXd& g) {
    const double inv_n = 1.0 / static_cast<double>(n_);
    r_.resize(n_);
    d_.resize(n_);
    for (Index i = 0; i < n_; ++i) {
      const double beta = tail_weight(y_[i] * z_[i]);
      r_[i] = -y_[i] * beta * inv_n + opt_.lambda * a_[i];
      d_[i] = beta * (1.0 - beta);
    }
    multiply(r_, g);
    if (!psd_) g += opt_.lambda * negative_times(a_);
    return g.norm();
  }

  // K- = 0: H = K (D K / n + lambda I) and g = K r, so p = -(D K / n + lambda I)^-1 r solves
  // H p = -g; by Woodbury p = -(r - S q / n) / lambda with S = D^1/2 and B q = S K r = S g,
  // B = lambda I + S K S / n. CG on B to relative residual `forcing`.
  Index direction_psd(const Eigen::VectorXd& g, double forcing, Eigen::VectorXd& p, Eigen::VectorXd& Kp) {
    const double inv_n = 1.0 / static_cast<double>(n_);
    const Eigen::VectorXd S = d_.cwiseSqrt();
    const Eigen::VectorXd rhs = S.cwiseProduct(g);
    Eigen::VectorXd q = Eigen::VectorXd::Zero(n_), res = rhs, dir = rhs, Kd(n_), Bd(n_);
    const double target = forcing * rhs.norm();
    double rr = res.squaredNorm();
    Index steps = 0;
    while (steps < opt_.max_cg && std::sqrt(rr) > target) {
      multiply(S.cwiseProduct(dir), Kd);
      Bd = opt_.lambda * dir + inv_n * S.cwiseProduct(Kd);
      const double curvature = dir.dot(Bd);
      if (!(curvature > 0.0)) break;
      const double step = rr / curvature;
      q += step * dir;
      res -= step * Bd;
      const double rr_new = res.squaredNorm();
      dir = res + (rr_new / rr) * dir;
      rr = rr_new;
      ++steps;
    }
    p = -(r_ - inv_n * S.cwiseProduct(q)) / opt_.lambda;
    multiply(p, Kp);
    return steps;
  }

  // K- != 0: CG on H p = -g (H positive definite: lambda K- >= lambda shift I); K p accumulates
  // from the K dir products the Hessian products already compute.
  Index direction_hessian(const Eigen::VectorXd& g, double gnorm, double forcing, Eigen::VectorXd& p,
                          Eigen::VectorXd& Kp) {
    const double inv_n = 1.0 / static_cast<double>(n_);
    p.setZero();
    Kp.setZero();
    Eigen::VectorXd res = -g, dir = res, Kd(n_), KDKd(n_), Hd(n_);
    const double target = forcing * gnorm;
    double rr = res.squaredNorm();
    Index steps = 0;
    while (steps < opt_.max_cg && std::sqrt(rr) > target) {
      multiply(dir, Kd);
      multiply(d_.cwiseProduct(Kd), KDKd);
      Hd = inv_n * KDKd + opt_.lambda * (Kd + negative_times(dir));
      const double curvature = dir.dot(Hd);
      if (!(curvature > 0.0)) break;
      const double step = rr / curvature;
      p += step * dir;
      Kp += step * Kd;
      res -= step * Hd;
      const double rr_new = res.squaredNorm();
      dir = res + (rr_new / rr) * dir;
      rr = rr_new;
      ++steps;
    }
    if (steps == 0) {  // no CG step: fall back to steepest descent (the caller's test)
      p = -g;
      multiply(p, Kp);
    }
    return steps;
  }

  const IklrNewtonOptions& opt_;
  bool psd_;
  Eigen::VectorXd a_, z_, r_, d_;
};

// Shapes and finiteness of the shared inputs, by their Python names.
void check_inputs(const char* who, const LinearOperator& K, const Eigen::Ref<const Eigen::VectorXd>& y,
                  const NegativePart& negative, const Eigen::Ref<const Eigen::VectorXd>& alpha0) {
  const std::string name(who);
  const Index n = K.rows();
  if (n < 1) throw std::invalid_argument(name + ": K must be at least 1 x 1");
  require_symmetric(K, name + ": K");
  if (y.size() != n || alpha0.size() != n) throw std::invalid_argument(name + ": y and alpha0 need n entries");
  if (!y.allFinite() || !alpha0.allFinite() || !negative.V.allFinite() || !negative.w.allFinite() ||
      !std::isfinite(negative.shift))
    throw std::invalid_argument(name + ": y, alpha0, V, w and shift must be finite");
  if (negative.shift < 0.0)
    throw std::invalid_argument(name + ": shift must be >= 0 (K- = V diag(w) V' + shift I is PSD)");
  if (negative.V.cols() > 0 && negative.V.rows() != n)
    throw std::invalid_argument(name + ": negative part V must be n x r");
  if (negative.w.size() != negative.V.cols())
    throw std::invalid_argument(name + ": w must have one weight per column of V");
}

}  // namespace

IklrResult ccicp(const LinearOperator& K, const Eigen::Ref<const Eigen::VectorXd>& y, const NegativePart& negative,
                 const Eigen::Ref<const Eigen::VectorXd>& alpha0, const IklrOptions& options,
                 const Eigen::Ref<const VectorXi>& sgd_indices, const Monitor<IklrIteration>& monitor,
                 const InterruptPoll& poll) {
  // Shapes and indices (they guard memory), finiteness and the options, by their Python names.
  check_inputs("ccicp", K, y, negative, alpha0);
  const Index n = K.rows();
  if (!(options.lambda > 0.0) || !std::isfinite(options.lambda))
    throw std::invalid_argument("ccicp: lambda_ must be a positive finite number");
  if (!(options.eps >= 0.0) || !std::isfinite(options.eps))
    throw std::invalid_argument("ccicp: eps must be finite and >= 0");
  if (options.max_outer < 0 || options.max_inner < 0)
    throw std::invalid_argument("ccicp: max_outer and max_inner must be >= 0");
  if (!(options.learning_rate > 0.0) || !std::isfinite(options.learning_rate))
    throw std::invalid_argument("ccicp: learning_rate must be a positive finite number");
  if (!(options.decay > 0.0 && options.decay <= 1.0)) throw std::invalid_argument("ccicp: decay must lie in (0, 1]");
  if (options.inner == IklrInner::sgd && options.max_outer > 0 && options.max_inner > 0) {
    if (sgd_indices.size() / options.max_inner < options.max_outer)  // no overflow of the product
      throw std::invalid_argument("ccicp: sgd_indices needs max_outer * max_inner entries, got " +
                                  std::to_string(sgd_indices.size()));
    for (Index j = 0; j < sgd_indices.size(); ++j)
      if (sgd_indices[j] < 0 || sgd_indices[j] >= n)
        throw std::invalid_argument("ccicp: sgd_indices holds an index out of range [0, n)");
  }
  CcicpRun run(K, y, negative, options, poll);
  return run.run(alpha0, sgd_indices, monitor);
}

IklrResult iklr_newton(const LinearOperator& K, const Eigen::Ref<const Eigen::VectorXd>& y,
                       const NegativePart& negative, const Eigen::Ref<const Eigen::VectorXd>& alpha0,
                       const IklrNewtonOptions& options, const Monitor<IklrIteration>& monitor,
                       const InterruptPoll& poll) {
  check_inputs("iklr_newton", K, y, negative, alpha0);
  if (!(options.lambda > 0.0) || !std::isfinite(options.lambda))
    throw std::invalid_argument("iklr_newton: lambda_ must be a positive finite number");
  if (!(options.tol >= 0.0) || !std::isfinite(options.tol))
    throw std::invalid_argument("iklr_newton: tol must be finite and >= 0");
  if (options.max_iter < 0 || options.max_cg < 1)
    throw std::invalid_argument("iklr_newton: max_iter must be >= 0 and max_cg >= 1");
  NewtonRun run(K, y, negative, options, poll);
  return run.run(alpha0, monitor);
}

}  // namespace kernlearn
