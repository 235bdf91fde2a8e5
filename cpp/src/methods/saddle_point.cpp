#include "kernlearn/methods/saddle_point.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>

#include "kernlearn/core/solver_choice.hpp"
#include "kernlearn/core/symmetric_eigen.hpp"
#include "kernlearn/linalg/chebyshev_filter.hpp"
#include "kernlearn/linalg/lanczos.hpp"
#include "kernlearn/linalg/operator.hpp"

namespace kernlearn {

namespace {

// The positive part of A's spectrum that K is built from, and what K is.
struct Kernel {
  Eigen::VectorXd sigma;   // positive eigenvalues of A used, decreasing
  Eigen::MatrixXd V;       // their eigenvectors
  Eigen::VectorXd lambda;  // eigenvalues of K
  double phi = 0.0;        // max_K tr(A K) (B form) or max_K tr(A K) - (G/p) tr K^p (G form)
  double trace_AK = 0.0;
  double trace_Kp = 0.0;
  Index matvecs = 0;
  SpectrumCertificate certificate;  // of the eigensolve that gave sigma and V
  // Every eigenpair of A, decreasing (only where a Newton step may be taken from this point).
  Eigen::VectorXd all_values;
  Eigen::MatrixXd all_vectors;
};

// The last few curvature pairs (s, y) of L-BFGS (Nocedal & Wright, Algorithm 7.4) for minimising
// f = -J: s = step, y = change of f's gradient. apply(g) returns H g, H the inverse-Hessian model.
class LbfgsMemory {
 public:
  explicit LbfgsMemory(std::size_t size) : size_(size) {}
  bool empty() const { return s_.empty(); }
  void clear() {
    s_.clear();
    y_.clear();
  }
  void add(const Eigen::VectorXd& s, const Eigen::VectorXd& y) {
    if (!(s.dot(y) > 1e-12 * s.norm() * y.norm())) return;  // no positive curvature: skip the pair
    if (s_.size() == size_) {
      s_.erase(s_.begin());
      y_.erase(y_.begin());
    }
    s_.push_back(s);
    y_.push_back(y);
  }
  Eigen::VectorXd apply(const Eigen::VectorXd& g) const {
    Eigen::VectorXd q = g;
    const std::size_t k = s_.size();
    std::vector<double> a(k), rho(k);
    for (std::size_t i = k; i-- > 0;) {
      rho[i] = 1.0 / s_[i].dot(y_[i]);
      a[i] = rho[i] * s_[i].dot(q);
      q -= a[i] * y_[i];
    }
    if (k > 0) q *= s_.back().dot(y_.back()) / y_.back().squaredNorm();  // initial scaling
    for (std::size_t i = 0; i < k; ++i) q += s_[i] * (a[i] - rho[i] * y_[i].dot(q));
    return q;
  }

 private:
  std::size_t size_;
  std::vector<Eigen::VectorXd> s_, y_;
};

// The Hessian of -J for a free alpha on distance pairs, p = 2 (Newton steps): dg/dalpha + rho I
// at the K of a point whose whole spectrum A = Q diag(s) Q' is known. dg/dalpha is the
// generalised Jacobian of the projection onto the psd cone (Sun & Sun 2002; Zhao, Sun & Toh
// 2010): with s_1..s_r > 0,
//   d(A_+) = Q (W o Q' dA Q) Q',  W_kl = 1 (k, l <= r), s_l / (s_l - s_k) (k > r >= l), 0 else,
// applied to the n x r slab only: Y = Q' dA Q_r, Y_kl *= W_kl, S = Q Y - Q_r Y_rr / 2, and then
// d(A_+) = S Q_r' + Q_r S'. Two n x n x r products per Hessian product, against one n^3
// eigensolve per point. The B form's K = sqrt(B) A_+ / |A_+|_F adds the normalisation's
// rank-one term -g <A_+, dA> / |A_+|_F^2 (not negligible: bench/results/embedding.md); the G
// form's K = A_+ / G has none.
class NewtonHessian {
 public:
  NewtonHessian(const SaddleProblem& pb, const SpectralOptions& opt, Index n, const Kernel& K, const Eigen::VectorXd& g)
      : pb_(pb),
        opt_(opt),
        n_(n),
        r_(K.sigma.size()),
        K_(K),
        g_(g),
        top_(K.all_vectors.leftCols(r_).transpose()),
        weight_(n - r_, r_),
        scale_(K.lambda(0) / K.sigma(0)),
        rank_one_(opt.G ? 0.0 : 1.0 / K.sigma.squaredNorm()),
        Z_(r_, n),
        Y_(n, r_),
        slab_(r_, n),
        pair_coef_(pb.pairs.rows()),
        pair_value_(pb.pairs.rows()) {
    for (Index l = 0; l < r_; ++l)
      for (Index k = r_; k < n_; ++k) weight_(k - r_, l) = K.sigma(l) / (K.sigma(l) - K.all_values(k));
  }

  void apply(const Eigen::VectorXd& v, Eigen::VectorXd& out) const {
    const ConstraintRows& R = pb_.rows;
    const Eigen::MatrixXd& Q = K_.all_vectors;
    R.apply_transpose(v, pb_.pairs.rows(), pair_coef_);
    Z_.setZero();  // (dA Q_r)'
    for (Index q = 0; q < pb_.pairs.rows(); ++q) {
      const Index i = pb_.pairs(q, 0), j = pb_.pairs(q, 1);
      const double b = pair_coef_(q);
      if (b == 0.0) continue;
      Z_.col(i) += b * (top_.col(i) - top_.col(j));
      Z_.col(j) -= b * (top_.col(i) - top_.col(j));
    }
    if (pb_.center) Z_.colwise() -= Z_.rowwise().mean();  // H dA H Q_r, as H Q_r = Q_r
    gemm(opt_.dense_lapack, true, true, Q, Z_, Y_);
    const double trace_P_dA = K_.sigma.dot(Y_.topRows(r_).diagonal());
    Y_.topRows(r_) *= 0.5;  // S = Q Y - Q_r Y_rr / 2 is Q times Y with its top rows halved
    Y_.bottomRows(n_ - r_).array() *= weight_.array();
    gemm(opt_.dense_lapack, true, true, Y_, Q, slab_);
    for (Index q = 0; q < pb_.pairs.rows(); ++q) {  // tr(T_q d(A_+))
      const Index i = pb_.pairs(q, 0), j = pb_.pairs(q, 1);
      pair_value_(q) = 2.0 * (slab_.col(i) - slab_.col(j)).dot(top_.col(i) - top_.col(j));
    }
    R.apply(pair_value_, out);
    out = scale_ * out - (rank_one_ * trace_P_dA) * g_ + pb_.rho * v;
  }

 private:
  const SaddleProblem& pb_;
  const SpectralOptions& opt_;
  Index n_, r_;
  const Kernel& K_;
  const Eigen::VectorXd& g_;
  const Eigen::MatrixXd top_;  // Q_r', and the slabs below r x n: each point's row contiguous
  Eigen::MatrixXd weight_;     // W_kl, k > r >= l
  double scale_, rank_one_;    // K = scale A_+
  mutable Eigen::MatrixXd Z_, Y_, slab_;
  mutable Eigen::VectorXd pair_coef_, pair_value_;
};

// Newton steps only from points of rank at most this fraction of n (see newton_rank), and only
// while their line search accepts steps of at least kMinNewtonStep.
constexpr double kMinNewtonStep = 1.0 / 16.0;

class SaddlePointSolver {
 public:
  SaddlePointSolver(const SaddleProblem& pb, const SpectralOptions& opt, ThreadTeam& team, const InterruptPoll& poll,
                    const Eigen::MatrixXd& basis)
      : pb_(pb),
        opt_(opt),
        team_(team),
        poll_(poll),
        n_(pb.sparse.n),
        acc_(pb.pairs, pb.pattern, pb.sparse),
        data_(static_cast<std::size_t>(acc_.nnz())),
        sparse_op_(n_, acc_.indptr().data(), acc_.indices().data(), data_.data(), team),
        structured_op_(sparse_op_, pb.lowrank, pb.lowrank_coef, pb.shift, pb.center),
        structured_(pb.lowrank.cols() > 0 || pb.shift != 0.0 || pb.center),
        rng_(opt.seed),
        basis_(basis) {
    use_dense_ = opt.eigen_solver == SpectralSolver::dense || opt.eigen_solver == SpectralSolver::mixed;
    gram_bound_ = constraint_gram_bound();
    second_order_ = opt.newton && opt.accelerate && pb.set == DualSet::free && pb.pattern == PairPattern::distance &&
                    !opt.step && opt.p == 2.0 && !opt.rank && basis.cols() == 0 && !mixed_precision();
    if (basis_.cols() > 0) {  // U_b' M U_b, once: U_b' S U_b + (U_b' U) diag(c) (U_b' U)' + shift U_b' U_b
      Eigen::MatrixXd SU(n_, basis_.cols());
      const Csr& S = pb.sparse;
      CsrOperator(n_, S.indptr.data(), S.indices.data(), S.data.data(), team).apply(basis_, SU);
      projected_base_ = basis_.transpose() * SU;
      if (pb.lowrank.cols() > 0) {
        const Eigen::MatrixXd UU = basis_.transpose() * pb.lowrank;
        projected_base_ += UU * pb.lowrank_coef.asDiagonal() * UU.transpose();
      }
      if (pb.shift != 0.0) projected_base_ += pb.shift * (basis_.transpose() * basis_);
      basis_rows_ = basis_;
    }
  }

  // saddle_hessian_product's work (see saddle_point.hpp).
  Eigen::VectorXd hessian_product(const Eigen::VectorXd& v) {
    if (!second_order_)
      throw std::invalid_argument(
          "Hessian products need newton, a free alpha, distance pairs, p = 2, no rank cap, no basis, no mixed "
          "precision");
    if (v.size() != pb_.rows.rows()) throw std::invalid_argument("v needs one value per constraint");
    use_dense_ = true;  // the whole spectrum, whatever the options say
    const Kernel K = kernel_at(pb_.alpha0, nullptr);
    if (K.sigma.size() == 0) throw std::invalid_argument("A(alpha0) has no positive part (K = 0)");
    Eigen::VectorXd g(pb_.rows.rows()), out(pb_.rows.rows());
    constraint_values(K, g);
    NewtonHessian(pb_, opt_, n_, K, g).apply(v, out);
    return out;
  }

  // Projected gradient ascent on J, accelerated (Nesterov / FISTA with the function restart of
  // O'Donoghue & Candes 2015) unless opt.accelerate is off: the gradient is taken at y, the
  // extrapolation of the last two iterates. Every evaluated point gives a lower bound J and a
  // feasible K with an upper bound P, so the certificate is the best of each. A free alpha
  // (equality constraints, square loss) takes L-BFGS or Newton steps instead (quasi_newton_step).
  SaddleResult run(const Monitor<SaddleIteration>& monitor) {
    Eigen::VectorXd alpha = pb_.alpha0;
    if (pb_.set == DualSet::fixed) return solve_at_fixed_alpha(alpha, kernel_at(alpha, nullptr));
    project(alpha);
    Ascent a(alpha, kernel_at(alpha, nullptr), pb_.rows.rows());
    SaddleResult out;
    for (Index it = 0;; ++it) {
      const double dual = evaluate_bounds(a, a.y, a.Ky, a.g);
      if (it == 0) a.dual_alpha = dual;
      const SaddleIteration record = certificate(a);
      out.history.push_back(record);
      if (gap_closed(record)) {
        out.status = SolverStatus::converged;
        break;
      }
      if (it >= opt_.max_iter) break;  // status stays max_iter
      if (monitor_stops(monitor, it, record)) {
        out.status = SolverStatus::interrupted;
        break;
      }
      out.n_iter = it + 1;
      a.grad = pb_.target - a.g - pb_.rho * a.y;
      if (quasi_newton())
        quasi_newton_step(a, it, dual);
      else
        accelerated_gradient_step(a, dual);
    }
    return finish(std::move(out), a.best_alpha, a.best_K, a.best_g);
  }

 private:
  // The state of the ascent: the iterate alpha, the point y the gradient is taken at (the
  // extrapolation of the last two iterates), and the best lower and upper bounds met so far.
  struct Ascent {
    Ascent(const Eigen::VectorXd& start, Kernel K, Index m)
        : alpha(start), y(start), best_alpha(start), g(m), grad(m), trial(m), best_g(m), g_trial(m), Ky(std::move(K)) {}
    Eigen::VectorXd alpha, y, best_alpha, g, grad, trial, best_g, g_trial;
    Kernel Ky, best_K;
    double best_dual = -std::numeric_limits<double>::infinity();
    double best_primal = std::numeric_limits<double>::infinity();
    double dual_alpha = -std::numeric_limits<double>::infinity(), momentum = 1.0;
    LbfgsMemory memory{10};
    Eigen::VectorXd previous_point, previous_grad;
  };

  // A trial point of a line search: its kernel, J there, the step taken, and the mat-vecs of the
  // iteration so far (rejected trials included).
  struct Trial {
    Kernel K;
    double dual = 0.0, step = 0.0;
    Index spent = 0;
  };

  // A fixed alpha has the closed form (Proposition 1 / 2): the optimum is -phi, which P(K) must
  // equal.
  SaddleResult solve_at_fixed_alpha(const Eigen::VectorXd& alpha, const Kernel& K) const {
    SaddleResult out;
    Eigen::VectorXd g(pb_.rows.rows());
    constraint_values(K, g);
    const double primal = primal_value(alpha, K, g);
    out.history.push_back({-K.phi, primal, primal + K.phi, 0.0, K.matvecs, K.sigma.size()});
    out.status = SolverStatus::converged;
    return finish(std::move(out), alpha, K, g);
  }

  // A free alpha (equality constraints, square loss) makes J smooth and unconstrained: L-BFGS
  // replaces the accelerated gradient there (fewer eigensolves: bench/results/embedding.md).
  bool quasi_newton() const { return opt_.accelerate && pb_.set == DualSet::free && !opt_.step; }

  // J(point) and P at the K of point (values receives g(K)); keeps the best of each.
  double evaluate_bounds(Ascent& a, const Eigen::VectorXd& point, const Kernel& at, Eigen::VectorXd& values) const {
    constraint_values(at, values);
    const double dual = dual_value(point, at), primal = primal_value(point, at, values);
    if (dual > a.best_dual) a.best_dual = dual, a.best_alpha = point;
    if (primal < a.best_primal) a.best_primal = primal, a.best_K = at, a.best_g = values;
    return dual;
  }

  SaddleIteration certificate(const Ascent& a) const {
    const double gap = a.best_primal - a.best_dual;
    return {a.best_dual, a.best_primal, gap, last_step_, a.Ky.matvecs, a.Ky.sigma.size()};
  }

  bool gap_closed(const SaddleIteration& record) const { return certified_gap_closed(record, opt_.tol); }

  // L-BFGS on -J for a free alpha (J is smooth there: its gradient K(alpha) is Lipschitz), or a
  // Newton step where the point has its whole spectrum; then an Armijo line search (armijo_search).
  void quasi_newton_step(Ascent& a, Index it, double dual) {
    if (it > 0) a.memory.add(a.y - a.previous_point, a.previous_grad - a.grad);
    a.previous_point = a.y;
    a.previous_grad = a.grad;
    bool newton = newton_applies(a.Ky);
    Eigen::VectorXd direction = newton ? newton_direction(a.Ky, a.g, a.grad) : lbfgs_direction(a);
    Trial t = armijo_search(a, dual, newton, direction);
    if (newton) newton_step_ = t.step;
    last_step_ = t.step;
    a.y = a.alpha = a.trial;
    a.Ky = std::move(t.K);
    a.Ky.matvecs = t.spent;
  }

  bool newton_applies(const Kernel& K) const {
    return second_order_ && K.all_vectors.cols() > 0 && K.sigma.size() > 0 &&
           newton_rank(K.sigma.size(), solver_choice::kNewtonMaxRank);
  }

  // The L-BFGS direction, or the gradient step when the memory is empty or gives no ascent.
  Eigen::VectorXd lbfgs_direction(Ascent& a) const {
    Eigen::VectorXd d = a.memory.apply(a.grad);
    if (a.memory.empty() || !(a.grad.dot(d) > 0.0)) {
      a.memory.clear();
      d = default_step(a.Ky) * a.grad;
    }
    return d;
  }

  // Armijo backtracking line search from the unit step (Newton: from twice the last Newton step,
  // at most 1, since far from the solution the positive rank still grows and the unit step
  // overshoots). A Newton step that would be shorter than kMinNewtonStep falls back to L-BFGS, for
  // the rest of the solve: the model is poor there (tiny steps of a dozen eigensolves each;
  // figures: bench/results/embedding.md). Leaves the accepted point in a.trial.
  Trial armijo_search(Ascent& a, double dual, bool& newton, Eigen::VectorXd& direction) {
    Trial t;
    t.step = newton ? std::min(1.0, 2.0 * newton_step_) : 1.0;
    for (int tries = 0;; ++tries) {
      if (newton && t.step < kMinNewtonStep) {
        newton = second_order_ = false;
        direction = lbfgs_direction(a);
        t.step = 1.0;
        tries = 0;
      }
      a.trial = a.y + t.step * direction;
      t.K = kernel_at(a.trial, &a.Ky);
      t.spent += t.K.matvecs;
      t.dual = dual_value(a.trial, t.K);
      if (t.dual >= dual + 1e-4 * t.step * a.grad.dot(direction) || tries == 40) break;
      t.step *= 0.5;
    }
    return t;
  }

  // A projected gradient step with backtracking, then the momentum's extrapolation.
  void accelerated_gradient_step(Ascent& a, double dual) {
    Trial t = backtracking_search(a, dual);
    last_step_ = t.step;
    const double beta = momentum_weight(a, t.dual);
    if (beta > 0.0) {
      evaluate_bounds(a, a.trial, t.K, a.g_trial);
      a.y = a.trial + beta * (a.trial - a.alpha);
      project(a.y);
      a.Ky = kernel_at(a.y, &t.K);
      t.spent += a.Ky.matvecs;
    } else {
      a.y = a.trial;
      a.Ky = std::move(t.K);
    }
    a.Ky.matvecs = t.spent;
    a.alpha = a.trial;
    a.dual_alpha = t.dual;
  }

  // Step 1 / L_t (default_step); backtracking keeps the ascent guarantee of Proposition 6 where
  // the local constant is only an estimate. Leaves the accepted point in a.trial.
  Trial backtracking_search(Ascent& a, double dual) {
    Trial t;
    t.step = opt_.step ? *opt_.step : default_step(a.Ky);
    // The Lipschitz estimate bounds the curvature and is often far above it: an adaptive step
    // tries twice the last accepted step when that was accepted at once.
    if (opt_.accelerate && !opt_.step && accepted_at_once_) t.step = std::max(t.step, 2.0 * last_step_);
    for (int tries = 0;; ++tries) {
      a.trial = a.y + t.step * a.grad;
      project(a.trial);
      t.K = kernel_at(a.trial, &a.Ky);
      t.spent += t.K.matvecs;
      t.dual = dual_value(a.trial, t.K);
      if (opt_.step) break;
      const Eigen::VectorXd move = a.trial - a.y;
      const double bound = dual + a.grad.dot(move) - move.squaredNorm() / (2.0 * t.step);
      accepted_at_once_ = tries == 0;
      if (t.dual >= bound - 1e-12 * std::max(1.0, std::abs(dual)) || tries == 40) break;
      t.step *= 0.5;
    }
    return t;
  }

  // Nesterov's weight of the extrapolation (FISTA's momentum sequence), 0 with a restart when J fell
  // (or without acceleration).
  double momentum_weight(Ascent& a, double next_dual) const {
    double beta = 0.0;
    if (opt_.accelerate && next_dual >= a.dual_alpha) {
      const double following = 0.5 * (1.0 + std::sqrt(1.0 + 4.0 * a.momentum * a.momentum));
      beta = (a.momentum - 1.0) / following;
      a.momentum = following;
    } else {
      a.momentum = 1.0;  // restart: the momentum made J fall
    }
    return beta;
  }

  // Newton steps are taken from points of rank r <= solver_choice::kNewtonMaxRank n: a Hessian product costs
  // about 4 n^2 r flops, an eigensolve about 9 n^3; from points of higher rank CG needs so many
  // products that Newton steps lose to L-BFGS (figures: bench/results/embedding.md).
  bool newton_rank(Index rank, double fraction) const {
    return static_cast<double>(rank) <= fraction * static_cast<double>(n_);
  }

  // The Newton direction of J at alpha (K = K(alpha), g = g(K), grad = J's gradient): x solving
  // (dg/dalpha + rho I) x = grad by conjugate gradients to a residual of eta |grad|, eta from
  // 0.1 down as |grad| falls (Eisenstat & Walker's choice 2). CG may spend about four
  // eigensolves' worth, 10 n / r products; when that runs out, the truncated direction is taken
  // and the rest of the solve is L-BFGS's.
  Eigen::VectorXd newton_direction(const Kernel& K, const Eigen::VectorXd& g, const Eigen::VectorXd& grad) {
    const Index m = g.size();
    const NewtonHessian hessian(pb_, opt_, n_, K, g);
    const double norm = grad.norm();
    if (!(first_gradient_norm_ > 0.0)) first_gradient_norm_ = norm;
    const double eta = 0.1 * std::min(1.0, std::sqrt(norm / first_gradient_norm_));
    Eigen::VectorXd x = Eigen::VectorXd::Zero(m), residual = grad, p = grad, Hp(m);
    double rr = residual.squaredNorm();
    const auto budget = static_cast<Index>(10.0 * static_cast<double>(n_) / static_cast<double>(K.sigma.size()));
    Index products = 0;
    for (; products < m && std::sqrt(rr) > eta * norm; ++products) {
      if (products == budget) {
        second_order_ = false;
        break;
      }
      check_interrupt();
      hessian.apply(p, Hp);
      const double curvature = p.dot(Hp);
      if (!(curvature > 0.0)) break;  // rounding: keep what has been built (or grad, below)
      const double a = rr / curvature;
      x += a * p;
      residual -= a * Hp;
      const double next = residual.squaredNorm();
      p = residual + (next / rr) * p;
      rr = next;
    }
    if (!(grad.dot(x) > 0.0)) return default_step(K) * grad;
    return x;
  }

  // A Gershgorin bound on the Gram matrix <C_c, C_c'> of the constraint matrices, which scales
  // the gradient's Lipschitz constant. Pair Gram: <T_q, T_q> = 2 (entry) or 4 (distance); two
  // distance pairs sharing one point have <T_q, T_q'> = 1; entry pairs are orthogonal.
  double constraint_gram_bound() const {
    const ConstraintRows& R = pb_.rows;
    const Index m_pairs = pb_.pairs.rows();
    Eigen::VectorXd column(m_pairs);  // sum_c |R_cq|
    column.setZero();
    for (std::size_t e = 0; e < R.indices.size(); ++e) column(R.indices[e]) += std::abs(R.data[e]);
    Eigen::VectorXd pair_row(m_pairs);  // sum_q' |<T_q, T_q'>| column(q')
    if (pb_.pattern == PairPattern::entry) {
      pair_row = 2.0 * column;
    } else {
      Eigen::VectorXd at_point = Eigen::VectorXd::Zero(n_);
      for (Index q = 0; q < m_pairs; ++q) {
        at_point(pb_.pairs(q, 0)) += column(q);
        at_point(pb_.pairs(q, 1)) += column(q);
      }
      for (Index q = 0; q < m_pairs; ++q)
        pair_row(q) = 2.0 * column(q) + at_point(pb_.pairs(q, 0)) + at_point(pb_.pairs(q, 1));
    }
    double bound = 0.0;
    for (Index c = 0; c < R.rows(); ++c) {
      double s = 0.0;
      for (Index e = R.indptr[c]; e < R.indptr[c + 1]; ++e) s += std::abs(R.data[e]) * pair_row(R.indices[e]);
      bound = std::max(bound, s);
    }
    return bound;
  }

  // 1 / L_t with L_t = gram / G_t + rho: K = A_+ / G_t locally (G_t the local scale of K), so the
  // map alpha -> g(K(alpha)) is Lipschitz with |R T|^2 / G_t. (SimpleNPKL: 2 / G_t + 2 / C; each
  // pair moves one entry of A, so Lemma 5's factor m does not apply.)
  double default_step(const Kernel& K) const {
    if (K.lambda.size() == 0)  // K = 0: J is locally the quadratic part
      return pb_.rho > 0 ? 1.0 / pb_.rho : pb_.upper / std::max(1.0, pb_.target.cwiseAbs().maxCoeff());
    const double G = (opt_.p - 1.0) * K.sigma.norm() / K.lambda.norm();
    return 1.0 / (gram_bound_ / G + pb_.rho);
  }

  void project(Eigen::VectorXd& alpha) const {
    switch (pb_.set) {
      case DualSet::nonnegative:
        alpha = alpha.cwiseMax(0.0);
        break;
      case DualSet::box:
        alpha = alpha.cwiseMax(0.0).cwiseMin(pb_.upper);
        break;
      case DualSet::capped_simplex:
        project_capped_simplex(alpha, pb_.upper);
        break;
      case DualSet::free:
      case DualSet::fixed:
        break;
    }
  }

  // g[c] = tr(C_c K) = sum_q R_cq tr(T_q K).
  void constraint_values(const Kernel& K, Eigen::VectorXd& g) const {
    g.setZero();
    if (K.lambda.size() == 0) return;
    Eigen::VectorXd d(pb_.pairs.rows());
    acc_.inner(K.V, K.lambda, d.data(), team_.size());
    pb_.rows.apply(d, g);
  }

  double dual_value(const Eigen::VectorXd& alpha, const Kernel& K) const {
    return -K.phi + pb_.target.dot(alpha) - 0.5 * pb_.rho * alpha.squaredNorm();
  }

  // P(K) at the K of alpha. tr(M K) = tr(A K) - sum_c alpha_c g_c needs no mat-vec.
  double primal_value(const Eigen::VectorXd& alpha, const Kernel& K, const Eigen::VectorXd& g) const {
    const double trace_MK = K.trace_AK - alpha.dot(g);
    const Eigen::ArrayXd slack = (pb_.target - g).array();
    double loss = 0.0;
    switch (pb_.set) {
      case DualSet::free:
        loss = slack.square().sum() / (2.0 * pb_.rho);
        break;
      case DualSet::nonnegative:
        loss = slack.cwiseMax(0.0).square().sum() / (2.0 * pb_.rho);
        break;
      case DualSet::box:
        loss = pb_.upper * slack.cwiseMax(0.0).sum();
        break;
      case DualSet::capped_simplex:
        loss = pb_.upper * std::max(0.0, slack.size() ? slack.maxCoeff() : 0.0);
        break;
      case DualSet::fixed:
        loss = -alpha.dot(g);
        break;  // P = -tr(A K)
    }
    return -trace_MK + loss + (opt_.G ? *opt_.G / opt_.p * K.trace_Kp : 0.0);
  }

  // Ctrl-C between the steps of an iteration (the monitor polls only between iterations, and an
  // iteration may take many eigensolves): at every eigensolve, inside the dense one between its
  // LAPACK stages, and at every CG product.
  void check_interrupt() const {
    if (poll_ && poll_()) throw Interrupted();
  }

  // A(alpha) = M + sum_q (R' alpha)_q T_q, its positive spectrum, and K from it.
  Kernel kernel_at(const Eigen::VectorXd& alpha, const Kernel* previous) {
    check_interrupt();
    pb_.rows.apply_transpose(alpha, pb_.pairs.rows(), pair_coef_);
    acc_.assemble(pair_coef_.data(), data_.data());
    Kernel K;
    positive_spectrum(previous, K);
    closed_form(K);
    return K;
  }

  const LinearOperator& op() const {
    if (structured_) return structured_op_;
    return sparse_op_;
  }

  // Eigenvalues below this count as zero: rounding, and the exact zeros of untouched components.
  double zero_level() const {
    double norm = 0.0;  // Gershgorin bound on |A|
    const auto& indptr = acc_.indptr();
    for (Index i = 0; i < n_; ++i) {
      double row = 0.0;
      for (Index q = indptr[i]; q < indptr[i + 1]; ++q) row += std::abs(data_[q]);
      norm = std::max(norm, row);
    }
    for (Index c = 0; c < pb_.lowrank.cols(); ++c)
      norm += std::abs(pb_.lowrank_coef(c)) * pb_.lowrank.col(c).squaredNorm();
    norm += std::abs(pb_.shift);
    return std::max(opt_.eig_tol, 1e-12) * 10.0 * norm;
  }

  Index wanted_count() const {
    if (opt_.p == 1.0) return std::min<Index>(8, n_ - 1);  // the top eigenvalue and its copies
    return opt_.rank ? std::min(*opt_.rank, n_ - 1) : 0;
  }

  void positive_spectrum(const Kernel* previous, Kernel& K) {
    const double zero = zero_level();
    Eigen::VectorXd values;
    Eigen::MatrixXd vectors;
    bool whole = false;  // values / vectors hold the whole spectrum
    // Kept for a Newton step from this point (likely when the last point's rank allowed one).
    const bool want_whole =
        second_order_ && (!previous || newton_rank(previous->sigma.size(), solver_choice::kNewtonMaxRank + 0.05));
    SpectrumCertificate& cert = K.certificate;
    cert = SpectrumCertificate{};
    cert.level = zero;
    if (basis_.cols() > 0) {
      projected_spectrum(values, vectors);
      cert.method = SpectrumMethod::projected;
      cert.certified = true;
      whole = true;  // for the certificate only: U_b' A U_b is solved whole
    } else if (use_dense_) {
      whole = dense_spectrum(zero, want_whole, values, vectors);
      cert.method = SpectrumMethod::dense;
    } else {
      // Automatic choice: Lanczos in threshold mode, its kept block grown until no eigenvalue
      // beyond it is positive, while the positive rank stays below dense_fraction n (where it is
      // faster, measured); LAPACK for a solve that finds more (never above dense_max_n).
      const bool automatic = opt_.eigen_solver == SpectralSolver::automatic;
      const Index cap = automatic_cap();
      if (automatic && wanted_count() > cap) {
        require_dense_allowed(cap);
        use_dense_ = automatic_dense_ = true;
        whole = dense_spectrum(zero, want_whole, values, vectors);
        cert.method = SpectrumMethod::dense;
      } else if (!lanczos_spectrum(previous, zero, automatic ? cap : 0, K, values, vectors)) {
        require_dense_allowed(cap);
        use_dense_ = automatic_dense_ = true;
        whole = dense_spectrum(zero, want_whole, values, vectors);
        cert.method = SpectrumMethod::dense;
      }
    }
    Index count = 0;
    const Index cap = opt_.p == 1.0 ? values.size() : opt_.rank.value_or(values.size());
    while (count < std::min(cap, values.size()) && values(count) > zero) ++count;
    if (cert.method != SpectrumMethod::lanczos) {
      if (cert.method != SpectrumMethod::projected) cert.certified = true;  // dense: LAPACK's exact pairs
      if (whole && count < values.size()) cert.next = values(count);
    }
    cert.kept = count;
    if (opt_.p == 1.0 && count > 0) {  // the eigenspace of the largest eigenvalue
      Index top = 1;
      while (top < count && values(0) - values(top) <= zero) ++top;
      count = top;
    }
    K.sigma = values.head(count);
    K.V = vectors.leftCols(count);
    // Back to Lanczos once the rank the automatic switch went dense for has fallen well below the
    // cap: the first iterates of SimpleNPKL (alpha = C) can have a large positive rank and the
    // optimum a small one (bench/results/scale.md). A quarter of the cap keeps a rank that
    // hovers near the cap from switching at every iteration.
    if (automatic_dense_ && !second_order_) {
      const Index lanczos_cap = automatic_cap();
      if (4 * count <= lanczos_cap && wanted_count() <= lanczos_cap) use_dense_ = automatic_dense_ = false;
    }
    if (whole && cert.method != SpectrumMethod::projected) {
      K.all_values = std::move(values);
      K.all_vectors = std::move(vectors);
    }
  }

  // Returns whether values / vectors are the whole spectrum (kept for Newton steps).
  bool dense_spectrum(double zero, bool want_whole, Eigen::VectorXd& values, Eigen::MatrixXd& vectors) {
    Eigen::MatrixXd D = Eigen::MatrixXd::Zero(n_, n_);
    const auto& indptr = acc_.indptr();
    const auto& indices = acc_.indices();
    for (Index i = 0; i < n_; ++i)
      for (Index q = indptr[i]; q < indptr[i + 1]; ++q) D(i, indices[q]) = data_[q];
    if (pb_.lowrank.cols() > 0) D.noalias() += pb_.lowrank * pb_.lowrank_coef.asDiagonal() * pb_.lowrank.transpose();
    D.diagonal().array() += pb_.shift;
    if (pb_.center) {
      D.rowwise() -= D.colwise().mean();
      D.colwise() -= D.rowwise().mean();
    }
    // p = 1 needs the top eigenvalue and its copies: all pairs above the level, then trimmed.
    const Index cap = opt_.p == 1.0 ? 0 : opt_.rank.value_or(0);  // 0: every pair above the level
    if (mixed_precision()) {
      last_dense_mixed_ = mixed_eigenpairs_above(D, op(), zero, cap, opt_.dense_lapack, values, vectors, poll_);
      return false;
    }
    last_dense_mixed_ = false;
    // (The whole spectrum costs more: every vector is transformed back.)
    const double lower = want_whole ? -std::numeric_limits<double>::infinity() : zero;
    dense_eigenpairs_above(D, lower, cap, opt_.dense_lapack, values, vectors, poll_);
    return want_whole;
  }

  // The positive rank up to which the automatic choice keeps to Lanczos: dense_fraction n.
  Index automatic_cap() const {
    return std::max<Index>(1, static_cast<Index>(opt_.dense_fraction * static_cast<double>(n_)));
  }

  // The automatic choice needs more positive pairs than Lanczos may keep (cap): above
  // dense_max_n that is an error, not an n x n matrix.
  void require_dense_allowed(Index cap) const {
    if (n_ <= opt_.dense_max_n) return;
    throw std::invalid_argument("rank='auto' needs more than " + std::to_string(cap) +
                                " positive eigenpairs of A at n = " + std::to_string(n_) +
                                ": more than Lanczos may keep in memory, and a dense solve is not formed above n = " +
                                std::to_string(opt_.dense_max_n) +
                                ". Pass rank=<int> (the paper's truncation to the top pairs) or " +
                                "basis=<int> (Section 5.4)");
  }

  bool mixed_precision() const {
    if (!opt_.dense_lapack.mixed_available() || opt_.eigen_solver == SpectralSolver::dense) return false;
    return opt_.eigen_solver == SpectralSolver::mixed || n_ >= solver_choice::kMixedPrecisionMinN;
  }

  // Lanczos in threshold mode (every pair above `zero`) or for the wanted top pairs; with
  // max_rank > 0, gives up (returns false) once more than max_rank pairs lie above `zero`.
  bool lanczos_spectrum(const Kernel* previous, double zero, Index max_rank, Kernel& K, Eigen::VectorXd& values,
                        Eigen::MatrixXd& vectors) {
    LanczosOptions lo;
    lo.tol = opt_.eig_tol;
    lo.seed = opt_.seed + 1;  // not the start vector's stream (drawn below from opt_.seed)
    const Index wanted = wanted_count();
    if (wanted > 0) {
      lo.k = wanted;
    } else {
      lo.threshold = zero;
      if (max_rank > 0) lo.max_rank = max_rank;
      lo.k = std::min<Index>(n_ - 1, std::max<Index>(10, previous ? previous->sigma.size() + 5 : 10));
      if (max_rank > 0) lo.k = std::min(lo.k, max_rank);
    }
    Eigen::MatrixXd start;
    if (opt_.warm_start && previous && previous->V.cols() > 0) {
      // The block's Rayleigh-Ritz step costs one mat-vec per column and pays only when it
      // locks pairs (late iterations, small steps). After a block that locked nothing, the
      // next solve starts from the vectors' sum alone (free), and every third tries the block.
      const bool try_block = block_pays_ || ++solves_since_block_ >= 3;
      start = try_block ? previous->V : Eigen::MatrixXd(previous->V.rowwise().sum());
      if (try_block) solves_since_block_ = 0;
    } else {
      std::normal_distribution<double> normal;
      start.resize(n_, 1);
      for (Index i = 0; i < n_; ++i) start(i, 0) = normal(rng_);
    }
    // Not after a filtered solve that ended in plain Lanczos (far more pairs wanted than lie
    // above zero, beyond the filter's transition band): the next solve would do the same.
    // Nor after an iterate of low rank (solver_choice::kFilterMinRank): there the products cost
    // more than the orthogonalisation the filter saves.
    const bool low_rank = previous && previous->sigma.size() <= solver_choice::kFilterMinRank;
    const bool filtered = opt_.filter_degree > 0 && filter_pays_ && !low_rank;
    if (filtered) lo.filter = LanczosFilter{zero, opt_.filter_degree};
    LanczosResult r =
        filtered ? filtered_lanczos(op(), start, lo, far_end_, team_, poll_) : lanczos(op(), start, lo, team_, poll_);
    if (filtered) filter_pays_ = r.filtered;
    if (start.cols() > 1) block_pays_ = r.n_locked > 0;
    K.matvecs = r.n_matvec;
    if (r.max_rank_reached) return false;
    if (r.status == SolverStatus::max_iter) ++unconverged_eigensolves_;
    K.certificate.certified = r.status == SolverStatus::converged;
    K.certificate.next = r.beyond_value;  // the Ritz value below the level that ends the threshold solve
    K.certificate.residual = std::isnan(r.beyond_residual) ? 0.0 : r.beyond_residual;
    values = std::move(r.values);
    vectors = std::move(r.vectors);
    return true;
  }

  // Section 5.4: the eigenpairs of U_b' A U_b (r x r), lifted back by U_b. Each pair adds
  // beta_q U_b' T_q U_b to the projected base; with u_i the i-th row of U_b, that is
  // beta (u_i u_j' + u_j u_i') for entry pairs and beta (u_i - u_j)(u_i - u_j)' for distance pairs,
  // summed as GEMMs over fixed chunks of pairs (in parallel, added in chunk order: the result does
  // not depend on the thread count).
  void projected_spectrum(Eigen::VectorXd& values, Eigen::MatrixXd& vectors) const {
    constexpr Index kChunk = 4096;
    const Index m = pb_.pairs.rows(), r = basis_.cols(), n_chunks = (m + kChunk - 1) / kChunk;
    std::vector<Eigen::MatrixXd> partial(static_cast<std::size_t>(n_chunks));
    const bool entry = pb_.pattern == PairPattern::entry;
    team_.for_each(n_chunks, [&](int, Index c) {
      const Index first = c * kChunk, rows = std::min(kChunk, m - first);
      Eigen::MatrixXd left(rows, r), right(rows, r);
      for (Index t = 0; t < rows; ++t) {
        const Index q = first + t;
        const auto ui = basis_rows_.row(pb_.pairs(q, 0)), uj = basis_rows_.row(pb_.pairs(q, 1));
        left.row(t) = entry ? Eigen::RowVectorXd(ui) : Eigen::RowVectorXd(ui - uj);
        right.row(t) = pair_coef_(q) * (entry ? Eigen::RowVectorXd(uj) : Eigen::RowVectorXd(ui - uj));
      }
      Eigen::MatrixXd block = left.transpose() * right;
      if (entry) block += block.transpose().eval();
      partial[static_cast<std::size_t>(c)] = std::move(block);
    });
    Eigen::MatrixXd M = projected_base_;
    for (const auto& block : partial) M += block;
    Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(M);
    if (eig.info() != Eigen::Success) throw std::runtime_error("eigensolver of U' A U failed");
    values = eig.eigenvalues().reverse();
    vectors = basis_ * eig.eigenvectors().rowwise().reverse();
  }

  void closed_form(Kernel& K) const {
    const Eigen::ArrayXd s = K.sigma.array();
    const double p = opt_.p;
    if (s.size() == 0) {  // A has no positive part: K = 0 is optimal (phi = 0)
      K.lambda.resize(0);
      return;
    }
    Eigen::ArrayXd lam;
    if (p == 1.0) {  // K = B times the average projector onto the top eigenspace
      lam = Eigen::ArrayXd::Constant(s.size(), opt_.B / static_cast<double>(s.size()));
      K.phi = opt_.B * s(0);
    } else {
      const double q = p / (p - 1.0);
      if (opt_.G) {  // Proposition 2, eq. (20): phi = sum s^q / (q G^(q-1)), summed as
        // s (s / G)^(q-1) so that s^q alone (s near 1e300) cannot overflow
        const Eigen::ArrayXd ratio = s / *opt_.G;
        lam = ratio.pow(1.0 / (p - 1.0));
        K.phi = (s * ratio.pow(q - 1.0)).sum() / q;
      } else {  // Proposition 1, eq. (14), in t = s / s_max: lambda does not depend on s's scale,
        // and sum s^q overflows for s near 1e300 (C = 1e300), which made every lambda 0.
        const double top = s.maxCoeff();
        const Eigen::ArrayXd t = s / top;
        const double sum_t = t.pow(q).sum();
        lam = std::pow(opt_.B / sum_t, 1.0 / p) * t.pow(1.0 / (p - 1.0));
        K.phi = std::pow(opt_.B, 1.0 / p) * top * std::pow(sum_t, 1.0 / q);
      }
    }
    K.lambda = lam.matrix();
    K.trace_AK = (s * lam).sum();
    K.trace_Kp = lam.pow(p).sum();
  }

  SaddleResult finish(SaddleResult out, const Eigen::VectorXd& alpha, const Kernel& K, const Eigen::VectorXd& g) const {
    out.alpha = alpha;
    out.constraint_values = g;
    out.eigenvalues = K.lambda;
    out.eigenvectors = K.V;  // lambda is increasing in sigma, so already in decreasing order
    out.used_dense = use_dense_;
    out.used_mixed_precision = use_dense_ && last_dense_mixed_;
    out.unconverged_eigensolves = unconverged_eigensolves_;
    out.spectrum = K.certificate;
    return out;
  }

  const SaddleProblem& pb_;
  const SpectralOptions& opt_;
  ThreadTeam& team_;
  const InterruptPoll& poll_;
  Index n_;
  ConstraintAccumulator acc_;
  std::vector<double> data_;
  CsrOperator sparse_op_;
  StructuredOperator structured_op_;
  bool structured_;
  std::mt19937_64 rng_;
  double gram_bound_ = 0.0;
  double last_step_ = 0.0;
  double newton_step_ = 0.5;          // the last Newton step accepted (the first tries 1)
  double first_gradient_norm_ = 0.0;  // |grad J| at the first Newton step (scales CG's tolerance)
  bool second_order_ = false;         // Newton steps (still) taken: dense points keep their whole spectrum
  bool last_dense_mixed_ = false;     // the last dense solve ran in mixed precision
  bool accepted_at_once_ = false;     // the last step passed the backtracking test on its first trial
  bool block_pays_ = true;            // the last warm block locked pairs
  bool use_dense_ = false;            // LAPACK for the next solve
  bool automatic_dense_ = false;      // ... because the automatic choice switched to it
  Index unconverged_eigensolves_ = 0;
  int solves_since_block_ = 0;
  Eigen::VectorXd far_end_;         // A's lowest eigenvector, for the filter's next estimate of it
  bool filter_pays_ = true;         // the last filtered solve returned the filtered pairs
  Eigen::MatrixXd basis_;           // Section 5.4's U_b (empty: the exact problem)
  Eigen::VectorXd pair_coef_;       // R' alpha of the matrix assembled last
  RowMatrixXd basis_rows_;          // U_b row-major, for the pairs' rows
  Eigen::MatrixXd projected_base_;  // U_b' S U_b
};

bool finite(double x) { return std::isfinite(x); }

constexpr double kBasisOrthonormalTol = 1e-6;

void check_saddle_problem(const SaddleProblem& pb, const Eigen::MatrixXd& basis) {
  const Index n = pb.sparse.n, m = pb.rows.rows();
  if (n < 2) throw std::invalid_argument("need at least 2 points");
  if (pb.sparse.indptr.size() != static_cast<std::size_t>(n) + 1)
    throw std::invalid_argument("sparse must be a Csr with n + 1 indptr entries");
  for (double v : pb.sparse.data)
    if (!finite(v)) throw std::invalid_argument("the sparse matrix's data must be finite");
  if (pb.pairs.cols() != 2 && pb.pairs.rows() > 0) throw std::invalid_argument("pairs must have 2 columns");
  if (!finite(pb.shift)) throw std::invalid_argument("shift must be finite");
  if (!pb.lowrank.allFinite() || !pb.lowrank_coef.allFinite())
    throw std::invalid_argument("lowrank and lowrank_coef must be finite");
  if (!pb.target.allFinite() || !pb.alpha0.allFinite()) throw std::invalid_argument("target and alpha0 must be finite");
  if (!finite(pb.rho) || pb.rho < 0.0) throw std::invalid_argument("rho must be a finite number >= 0");
  if (!finite(pb.upper)) throw std::invalid_argument("upper must be finite");
  for (double v : pb.rows.data)
    if (!finite(v)) throw std::invalid_argument("rows must hold finite values");
  if (!basis.allFinite()) throw std::invalid_argument("basis must be finite");
  if (m < 1 && pb.set != DualSet::fixed) throw std::invalid_argument("need at least one constraint");
  if (pb.target.size() != m || pb.alpha0.size() != m)
    throw std::invalid_argument("target and alpha0 need one value per constraint");
  if (pb.rows.indptr.empty() || pb.rows.indptr.front() != 0 ||
      pb.rows.indptr.back() != static_cast<Index>(pb.rows.indices.size()) ||
      pb.rows.data.size() != pb.rows.indices.size())
    throw std::invalid_argument("constraint rows are inconsistent");
  for (Index c = 0; c < m; ++c)
    if (pb.rows.indptr[c] > pb.rows.indptr[c + 1]) throw std::invalid_argument("rows: indptr must be non-decreasing");
  for (Index q : pb.rows.indices)
    if (q < 0 || q >= pb.pairs.rows()) throw std::invalid_argument("constraint rows name a pair out of range");
  if (pb.lowrank.cols() > 0 && (pb.lowrank.rows() != n || pb.lowrank_coef.size() != pb.lowrank.cols()))
    throw std::invalid_argument("the low-rank part must be n x r with r coefficients");
  if ((pb.set == DualSet::free || pb.set == DualSet::nonnegative) && !(pb.rho > 0.0))
    throw std::invalid_argument("a free or nonnegative alpha needs rho > 0");
  if ((pb.set == DualSet::box || pb.set == DualSet::capped_simplex) && !(pb.upper > 0.0))
    throw std::invalid_argument("a box or capped simplex needs upper > 0");
  if (basis.cols() > 0 && basis.rows() != n) throw std::invalid_argument("basis must have n rows");
  // The projected solver reads K = U S U' with U'U = I (its eigenvectors are U times those of S):
  // a non-orthonormal basis gave "eigenvectors" with V'V = 90 (issue 48). Laplacian eigenvectors
  // from Lanczos are orthonormal to ~1e-14; 1e-6 leaves room for any careful construction.
  if (basis.cols() > 0) {
    if (basis.cols() > n) throw std::invalid_argument("basis must have at most n columns");
    const Index r = basis.cols();
    const double defect = (basis.transpose() * basis - Eigen::MatrixXd::Identity(r, r)).cwiseAbs().maxCoeff();
    if (!(defect <= kBasisOrthonormalTol)) {
      char text[64];
      std::snprintf(text, sizeof text, "%.3g", defect);
      throw std::invalid_argument(std::string("basis must have orthonormal columns (U'U = I): max |U'U - I| = ") +
                                  text);
    }
  }
  // Centring is H U_b = U_b: the caller passes a basis orthogonal to the constant vector.
  if (basis.cols() > 0 && pb.center &&
      basis.colwise().sum().cwiseAbs().maxCoeff() > 1e-8 * std::sqrt(static_cast<double>(n)))
    throw std::invalid_argument("with centring, the basis must be orthogonal to the constant vector");
}

}  // namespace

void check_spectral_options(const SpectralOptions& o) {
  if (!(o.p >= 1.0) || !finite(o.p)) throw std::invalid_argument("p must be a finite number >= 1");
  if (o.G && !(*o.G > 0.0 && finite(*o.G))) throw std::invalid_argument("G must be a positive finite number or None");
  if (!o.G && !(o.B > 0.0 && o.B <= kMaxB)) throw std::invalid_argument("B must be a positive number <= 1e280");
  if (o.rank && *o.rank < 1) throw std::invalid_argument("rank must be >= 1 or None");
  if (!(o.dense_fraction >= 0.0 && o.dense_fraction <= 1.0))
    throw std::invalid_argument("dense_fraction must lie in [0, 1]");
  if (o.dense_max_n < 0) throw std::invalid_argument("dense_max_n must be >= 0");
  if (o.max_iter < 0) throw std::invalid_argument("max_iter must be >= 0");
  if (!(o.tol >= 0.0) || !finite(o.tol)) throw std::invalid_argument("tol must be a finite number >= 0");
  if (o.step && !(*o.step > 0.0 && *o.step <= kMaxStep))
    throw std::invalid_argument("step must be a positive number <= 1e250 or None");
  if (!(o.eig_tol >= 0.0 && o.eig_tol < 1.0)) throw std::invalid_argument("eig_tol must lie in [0, 1)");
  if (o.filter_degree < 0) throw std::invalid_argument("filter_degree must be >= 0");
}

// Held et al. 1974: the clipped point if it fits, else the face sum x = u (sort, find the threshold).
void project_capped_simplex(Eigen::VectorXd& x, double u) {
  const Eigen::VectorXd clipped = x.cwiseMax(0.0);
  if (clipped.sum() <= u) {
    x = clipped;
    return;
  }
  std::vector<double> v(x.data(), x.data() + x.size());
  std::sort(v.begin(), v.end(), std::greater<>());
  double cumulative = 0.0, theta = 0.0;
  for (std::size_t k = 0; k < v.size(); ++k) {
    cumulative += v[k];
    const double candidate = (cumulative - u) / static_cast<double>(k + 1);
    if (k + 1 == v.size() || v[k + 1] <= candidate) {
      theta = candidate;
      break;
    }
  }
  x = (x.array() - theta).cwiseMax(0.0).matrix();
}

SaddleResult solve_saddle_point(const SaddleProblem& pb, const SpectralOptions& options, ThreadTeam& team,
                                const Monitor<SaddleIteration>& monitor, const InterruptPoll& poll,
                                const Eigen::MatrixXd& basis) {
  check_saddle_problem(pb, basis);
  check_spectral_options(options);
  return SaddlePointSolver(pb, options, team, poll, basis).run(monitor);
}

Eigen::VectorXd saddle_hessian_product(const SaddleProblem& pb, const SpectralOptions& options,
                                       const Eigen::VectorXd& v, ThreadTeam& team) {
  check_saddle_problem(pb, {});
  check_spectral_options(options);
  const InterruptPoll never;
  return SaddlePointSolver(pb, options, team, never, {}).hessian_product(v);
}

}  // namespace kernlearn
