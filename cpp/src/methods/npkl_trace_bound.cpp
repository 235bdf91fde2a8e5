#include "kernlearn/methods/npkl_trace_bound.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <stdexcept>
#include <utility>
#include <vector>

#include "kernlearn/core/solver_choice.hpp"
#include "kernlearn/core/symmetric_eigen.hpp"
#include "kernlearn/linalg/dense_eigen.hpp"
#include "kernlearn/linalg/lanczos.hpp"
#include "kernlearn/linalg/operator.hpp"
#include "kernlearn/methods/constraints.hpp"

namespace kernlearn {

namespace {

// The restricted problem's gradient steps per iteration at most (it then goes on from where it
// stopped: each outer iteration still decreases f).
constexpr Index kMaxRestrictedSteps = 20000;
// E's eigenvalues at most this fraction of B count as zero weight (the capped-simplex projection
// leaves exact zeros; this is the rounding of Q diag(d) Q').
constexpr double kZeroWeight = 1e-13;

// K = V diag(lambda) V' with the pair values it was evaluated at.
struct Factor {
  Eigen::VectorXd lambda;
  Eigen::MatrixXd V;
  Eigen::VectorXd g;  // g_p = tr(t_p T_p K) = 2 t_p K_ij
};

class TraceBoundSolver {
 public:
  TraceBoundSolver(const Csr& L, const Eigen::Ref<const RowMatrixXi>& pairs,
                   const Eigen::Ref<const Eigen::VectorXd>& labels, const NpklOptions& opt, ThreadTeam& team,
                   const InterruptPoll& poll)
      : opt_(opt.spectral),
        loss_(opt.loss),
        C_(opt.C),
        B_(opt.spectral.B),
        n_(L.n),
        m_(pairs.rows()),
        pairs_(pairs),
        t_(labels),
        team_(team),
        poll_(poll),
        laplacian_(L.n, L.indptr.data(), L.indices.data(), L.data.data(), team),
        negative_(negated(L)),
        acc_(pairs, PairPattern::entry, negative_),
        data_(static_cast<std::size_t>(acc_.nnz())),
        op_(n_, acc_.indptr().data(), acc_.indices().data(), data_.data(), team),
        rng_(opt.spectral.seed),
        U_(n_, 0),
        E_(0, 0),
        Lb_(0, 0),
        Ui_(m_, 0),
        Uj_(m_, 0),
        mu_(1.0 / opt.C),
        step_(loss_ == NpklLoss::hinge ? mu_ : 1.0 / opt.C) {
    const bool automatic = opt_.eigen_solver == SpectralSolver::automatic;
    use_dense_ = opt_.eigen_solver == SpectralSolver::dense || opt_.eigen_solver == SpectralSolver::mixed ||
                 (automatic && n_ < solver_choice::kMinFilteredSize);
  }

  // Fully corrective conditional gradient (npkl_trace_bound.hpp): per iteration the certificate
  // at the current K, then one linear-oracle eigensolve, the new atom, and the restricted solve.
  SaddleResult run(const Monitor<SaddleIteration>& monitor) {
    SaddleResult out;
    Eigen::VectorXd g(m_), alpha(m_), best_alpha(m_);
    Factor best;
    double best_primal = std::numeric_limits<double>::infinity();
    double best_dual = -std::numeric_limits<double>::infinity();
    Index steps = 0;
    for (Index it = 0;; ++it) {
      pair_values(E_, g);
      const double primal = trace_LK(E_) + loss(g);
      dual_point(g, alpha);
      Index matvecs = 0;
      const double top = top_eigenpair(alpha, matvecs);
      const double dual = dual_value(alpha, top_bound_);
      if (primal < best_primal) best_primal = primal, best = factor(g);
      if (dual > best_dual) {
        best_dual = dual, best_alpha = alpha;
        // lambda_max(A) at the best dual point, the one eigenvalue the lower bound reads.
        out.spectrum = SpectrumCertificate{SpectrumMethod::top, 0.0, top, top_bound_ - top, 1, top_converged_};
      }
      const SaddleIteration record{best_dual, best_primal,       best_primal - best_dual, static_cast<double>(steps),
                                   matvecs,   best.lambda.size()};
      out.history.push_back(record);
      if (certified_gap_closed(record, opt_.tol)) {
        out.status = SolverStatus::converged;
        break;
      }
      if (it >= opt_.max_iter) break;  // status stays max_iter
      if (monitor_stops(monitor, it, record)) {
        out.status = SolverStatus::interrupted;
        break;
      }
      out.n_iter = it + 1;
      // The smoothed problem's Frank-Wolfe gap B max(lambda_max, 0) - tr(A K) (the certificate's
      // whole gap for the smooth losses); the hinge's mu falls when the smoothing dominates.
      const double frank_wolfe = B_ * std::max(top, 0.0) - (alpha.dot(g) - trace_LK(E_));
      if (loss_ == NpklLoss::hinge && frank_wolfe < smoothing_gap(g, alpha)) mu_ *= 0.25;
      add_direction(top_vector_);
      steps = restricted_solve(0.1 * std::max(frank_wolfe, 0.0));
      compress();
    }
    out.alpha = best_alpha;
    out.constraint_values = best.g;
    out.eigenvalues = best.lambda;
    out.eigenvectors = best.V;
    out.used_dense = use_dense_;
    out.unconverged_eigensolves = unconverged_eigensolves_;
    return out;
  }

 private:
  static Csr negated(const Csr& L) {
    Csr out = L;
    for (double& v : out.data) v = -v;
    return out;
  }

  void check_interrupt() const {
    if (poll_ && poll_()) throw Interrupted();
  }

  // g_p = 2 t_p K_ij for K = U E U' in O(m r^2): K_ij = (U_i E) . U_j.
  void pair_values(const Eigen::MatrixXd& E, Eigen::VectorXd& g) const {
    if (E.cols() == 0) {
      g.setZero(m_);
      return;
    }
    const Eigen::MatrixXd W = Ui_ * E;
    g = 2.0 * t_.cwiseProduct(W.cwiseProduct(Uj_).rowwise().sum());
  }

  double trace_LK(const Eigen::MatrixXd& E) const { return E.cols() ? Lb_.cwiseProduct(E).sum() : 0.0; }

  // The true loss at g (npkl.hpp's P without tr(L K)), s = t_p K_ij = g_p / 2.
  double loss(const Eigen::VectorXd& g) const {
    const Eigen::ArrayXd slack = 1.0 - 0.5 * g.array();
    switch (loss_) {
      case NpklLoss::squared_hinge:
        return C_ * slack.cwiseMax(0.0).square().sum();
      case NpklLoss::square:
        return C_ * slack.square().sum();
      case NpklLoss::hinge:
        return 2.0 * C_ * slack.cwiseMax(0.0).sum();
      case NpklLoss::linear:
        break;
    }
    throw std::logic_error("npkl_trace_bound: the linear loss has a closed form");
  }

  // alpha(K) = -d loss / d g: the dual point of the (smoothed) loss at g.
  void dual_point(const Eigen::VectorXd& g, Eigen::VectorXd& alpha) const {
    const Eigen::ArrayXd slack = 1.0 - 0.5 * g.array();
    if (loss_ == NpklLoss::squared_hinge)
      alpha = C_ * slack.cwiseMax(0.0).matrix();
    else if (loss_ == NpklLoss::square)
      alpha = C_ * slack.matrix();
    else
      alpha = (2.0 * slack / mu_).cwiseMax(0.0).cwiseMin(C_).matrix();
  }

  // The loss the restricted problem minimises: the true one, the hinge smoothed with mu.
  double smoothed_loss(const Eigen::VectorXd& g, const Eigen::VectorXd& alpha) const {
    if (loss_ != NpklLoss::hinge) return loss(g);
    const Eigen::ArrayXd slack = 2.0 - g.array();
    return (alpha.array() * slack - 0.5 * mu_ * alpha.array().square()).sum();
  }

  // The hinge's P - P_mu + (J_mu - J) at K: sum_p (C - alpha_p) (2 - g_p)_+.
  double smoothing_gap(const Eigen::VectorXd& g, const Eigen::VectorXd& alpha) const {
    return ((C_ - alpha.array()) * (2.0 - g.array()).cwiseMax(0.0)).sum();
  }

  // J(alpha) = 2 sum alpha [- sum alpha^2 / C] - B max(lambda_max(A(alpha)), 0).
  double dual_value(const Eigen::VectorXd& alpha, double top) const {
    const double quadratic = loss_ == NpklLoss::hinge ? 0.0 : alpha.squaredNorm() / C_;
    return 2.0 * alpha.sum() - quadratic - B_ * std::max(top, 0.0);
  }

  // A(alpha)'s largest eigenvalue (returned) and eigenvector (top_vector_). The lower bound uses
  // top_bound_ = theta + residual: a Ritz value never exceeds lambda_max, so J takes the upper end
  // of its residual interval.
  double top_eigenpair(const Eigen::VectorXd& alpha, Index& matvecs) {
    check_interrupt();
    const Eigen::VectorXd coef = alpha.cwiseProduct(t_);
    acc_.assemble(coef.data(), data_.data());
    Eigen::VectorXd values;
    Eigen::MatrixXd vectors;
    if (use_dense_) {
      Eigen::MatrixXd D = Eigen::MatrixXd::Zero(n_, n_);
      const auto& indptr = acc_.indptr();
      const auto& indices = acc_.indices();
      for (Index i = 0; i < n_; ++i)
        for (Index q = indptr[i]; q < indptr[i + 1]; ++q) D(i, indices[q]) = data_[q];
      dense_eigenpairs_above(D, -std::numeric_limits<double>::infinity(), 1, opt_.dense_lapack, values, vectors, poll_);
      top_bound_ = values(0);
      top_converged_ = true;
    } else {
      LanczosOptions lo;
      lo.k = 1;
      lo.tol = opt_.eig_tol;
      lo.seed = opt_.seed + 1;  // not the start vector's stream
      Eigen::MatrixXd start(n_, 1);
      if (top_vector_.size() == n_) {
        start.col(0) = top_vector_;  // the last oracle's atom: A moved little
      } else {
        std::normal_distribution<double> normal;
        for (Index i = 0; i < n_; ++i) start(i, 0) = normal(rng_);
      }
      LanczosResult r = lanczos(op_, start, lo, team_, poll_);
      if (r.status == SolverStatus::max_iter) ++unconverged_eigensolves_;
      matvecs = r.n_matvec;
      values = std::move(r.values);
      vectors = std::move(r.vectors);
      top_bound_ = values(0) + r.residuals(0);
      top_converged_ = r.status == SolverStatus::converged;
    }
    top_vector_ = vectors.col(0);
    return values(0);
  }

  // Appends the part of v orthogonal to U (twice Gram-Schmidt) with E's new row and column zero.
  void add_direction(const Eigen::VectorXd& v) {
    Eigen::VectorXd w = v;
    for (int pass = 0; pass < 2 && U_.cols() > 0; ++pass) w -= U_ * (U_.transpose() * w);
    const double norm = w.norm();
    if (!(norm > 1e-10 * v.norm())) return;  // already in the span: the restricted solve goes on
    w /= norm;
    Eigen::MatrixXd Lw(n_, 1);
    laplacian_.apply(w, Lw);
    const Index r = U_.cols();
    U_.conservativeResize(Eigen::NoChange, r + 1);
    U_.col(r) = w;
    Lb_.conservativeResize(r + 1, r + 1);
    const Eigen::VectorXd cross = U_.leftCols(r).transpose() * Lw.col(0);
    Lb_.block(0, r, r, 1) = cross;
    Lb_.block(r, 0, 1, r) = cross.transpose();
    Lb_(r, r) = w.dot(Lw.col(0));
    E_.conservativeResize(r + 1, r + 1);
    E_.col(r).setZero();
    E_.row(r).setZero();
    Ui_.conservativeResize(Eigen::NoChange, r + 1);
    Uj_.conservativeResize(Eigen::NoChange, r + 1);
    for (Index p = 0; p < m_; ++p) {
      Ui_(p, r) = w(pairs_(p, 0));
      Uj_(p, r) = w(pairs_(p, 1));
    }
  }

  // f(E) = tr(Lb E) + smoothed loss, and (when asked) its gradient Lb - U' (sum alpha_p t_p T_p) U.
  double objective(const Eigen::MatrixXd& E, Eigen::MatrixXd* gradient) const {
    Eigen::VectorXd g(m_), alpha(m_);
    pair_values(E, g);
    dual_point(g, alpha);
    if (gradient) {
      const Eigen::VectorXd coef = alpha.cwiseProduct(t_);
      const Eigen::MatrixXd half = Ui_.transpose() * coef.asDiagonal() * Uj_;
      *gradient = Lb_ - half - half.transpose();
    }
    return trace_LK(E) + smoothed_loss(g, alpha);
  }

  // The projection onto {E psd, tr E <= B}: E's eigenvalues onto the capped simplex.
  Eigen::MatrixXd project(const Eigen::MatrixXd& X) const {
    const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(Eigen::MatrixXd(0.5 * (X + X.transpose())));
    Eigen::VectorXd d = eig.eigenvalues();
    project_capped_simplex(d, B_);
    return eig.eigenvectors() * d.asDiagonal() * eig.eigenvectors().transpose();
  }

  // The restricted problem's gap max over the feasible S of tr(G (E - S)) = tr(G E) + B max(-lambda_min(G), 0).
  double restricted_gap(const Eigen::MatrixXd& E, const Eigen::MatrixXd& G) const {
    const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(G, Eigen::EigenvaluesOnly);
    return G.cwiseProduct(E).sum() + B_ * std::max(-eig.eigenvalues()(0), 0.0);
  }

  // Accelerated projected gradient on E (FISTA with backtracking, restarted when the momentum
  // points uphill: O'Donoghue & Candes 2015) until the restricted gap is at most target. The step
  // grows after each step accepted at once. Returns the steps taken.
  Index restricted_solve(double target) {
    Eigen::MatrixXd X = E_, Y = E_, Z, previous, Gy, Gz;
    double theta = 1.0;
    Index k = 0;
    while (k < kMaxRestrictedSteps) {
      if (k % 64 == 0) check_interrupt();
      ++k;
      const double fy = objective(Y, &Gy);
      bool at_once = true;
      for (int tries = 0;; ++tries) {
        Z = project(Y - step_ * Gy);
        const double fz = objective(Z, &Gz);
        const Eigen::MatrixXd D = Z - Y;
        const double model = fy + Gy.cwiseProduct(D).sum() + D.squaredNorm() / (2.0 * step_);
        if (fz <= model + 1e-15 * std::abs(fy) || tries == 60) break;
        step_ *= 0.5;
        at_once = false;
      }
      if (at_once) step_ *= 1.25;
      const bool uphill = Gy.cwiseProduct(Z - X).sum() > 0.0;
      previous = std::move(X);
      X = Z;
      if (restricted_gap(Z, Gz) <= target) break;
      if (uphill) {
        theta = 1.0;
        Y = Z;
      } else {
        const double next = 0.5 * (1.0 + std::sqrt(1.0 + 4.0 * theta * theta));
        Y = Z + ((theta - 1.0) / next) * (Z - previous);
        theta = next;
      }
    }
    E_ = X;
    return k;
  }

  // E in its eigenbasis; zero-weight directions beyond kSpareDirections are dropped, keeping the
  // ones along which the restricted gradient descends most (the top of -G on that subspace).
  void compress() {
    const Index r = E_.cols();
    const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(Eigen::MatrixXd(0.5 * (E_ + E_.transpose())));
    const Eigen::VectorXd& d = eig.eigenvalues();  // increasing
    Index zeros = 0;
    while (zeros < r && d(zeros) <= kZeroWeight * B_) ++zeros;
    if (zeros <= kSpareDirections) return;
    Eigen::MatrixXd G;
    objective(E_, &G);
    const Eigen::MatrixXd Z = eig.eigenvectors().leftCols(zeros);
    const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> spare(Eigen::MatrixXd(-(Z.transpose() * G * Z)));
    const Index keep = r - zeros + kSpareDirections;
    Eigen::MatrixXd Q(r, keep);
    Q.leftCols(r - zeros) = eig.eigenvectors().rightCols(r - zeros);
    Q.rightCols(kSpareDirections) = Z * spare.eigenvectors().rightCols(kSpareDirections);
    Eigen::VectorXd weights = Eigen::VectorXd::Zero(keep);
    weights.head(r - zeros) = d.tail(r - zeros);
    U_ = U_ * Q;
    Ui_ = Ui_ * Q;
    Uj_ = Uj_ * Q;
    Lb_ = Q.transpose() * Lb_ * Q;
    E_ = weights.asDiagonal();
  }

  // K = U E U' as eigenvalues (> 0, decreasing) and orthonormal eigenvectors.
  Factor factor(const Eigen::VectorXd& g) const {
    Factor f;
    f.g = g;
    if (E_.cols() == 0) {
      f.V.resize(n_, 0);
      return f;
    }
    const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(Eigen::MatrixXd(0.5 * (E_ + E_.transpose())));
    const Eigen::VectorXd& d = eig.eigenvalues();
    Index count = 0;
    while (count < d.size() && d(d.size() - 1 - count) > kZeroWeight * B_) ++count;
    f.lambda = d.tail(count).reverse();
    f.V = U_ * eig.eigenvectors().rightCols(count).rowwise().reverse();
    return f;
  }

  const SpectralOptions& opt_;
  NpklLoss loss_;
  double C_, B_;
  Index n_, m_;
  const Eigen::Ref<const RowMatrixXi>& pairs_;
  const Eigen::Ref<const Eigen::VectorXd>& t_;
  ThreadTeam& team_;
  const InterruptPoll& poll_;
  CsrOperator laplacian_;
  Csr negative_;  // -L, the base of A
  ConstraintAccumulator acc_;
  std::vector<double> data_;  // A(alpha) on acc_'s pattern
  CsrOperator op_;
  std::mt19937_64 rng_;
  Eigen::MatrixXd U_, E_, Lb_;  // K = U E U', Lb = U' L U
  Eigen::MatrixXd Ui_, Uj_;     // U's rows at the pairs' first and second points (m x r)
  Eigen::VectorXd top_vector_;  // the last oracle's eigenvector
  double top_bound_ = 0.0;
  bool top_converged_ = false;  // the last top_eigenpair's solve converged
  double mu_, step_;
  bool use_dense_ = false;
  Index unconverged_eigensolves_ = 0;
};

}  // namespace

SaddleResult npkl_trace_bound(const Csr& L, const Eigen::Ref<const RowMatrixXi>& pairs,
                              const Eigen::Ref<const Eigen::VectorXd>& labels, const NpklOptions& options,
                              ThreadTeam& team, const Monitor<SaddleIteration>& monitor, const InterruptPoll& poll) {
  const Index n = L.n;
  if (n < 2) throw std::invalid_argument("need at least 2 points");
  if (L.indptr.size() != static_cast<std::size_t>(n) + 1)
    throw std::invalid_argument("the Laplacian must be a Csr with n + 1 indptr entries");
  for (double v : L.data)
    if (!std::isfinite(v)) throw std::invalid_argument("the Laplacian's data must be finite");
  for (Index p = 0; p < pairs.rows(); ++p)
    if (pairs(p, 0) < 0 || pairs(p, 0) >= n || pairs(p, 1) < 0 || pairs(p, 1) >= n || pairs(p, 0) == pairs(p, 1))
      throw std::invalid_argument("pairs must join two distinct points in [0, n)");
  if (options.spectral.G)
    throw std::invalid_argument("p = 1 needs the trace bound B (with the penalty G, K is 0 or unbounded)");
  return TraceBoundSolver(L, pairs, labels, options, team, poll).run(monitor);
}

}  // namespace kernlearn
