#include "kernlearn/methods/iklr.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

namespace kernlearn {

namespace {

// log(1 + exp(-m)) without overflow for either sign of the margin m.
double logistic_loss(double m) { return m > 0 ? std::log1p(std::exp(-m)) : -m + std::log1p(std::exp(m)); }

// 1 / (1 + exp(m)), the weight beta of eq. (11) at margin m = y_i (K a)_i.
double tail_weight(double m) {
  if (m >= 0) {
    const double e = std::exp(-m);
    return e / (1.0 + e);
  }
  return 1.0 / (1.0 + std::exp(m));
}

template <class Scalar>
class CcicpRun {
 public:
  CcicpRun(const DenseKernel<Scalar>& K, const Eigen::Ref<const Eigen::VectorXd>& y, const NegativePart& negative,
           const IklrOptions& options, ThreadTeam& team, const InterruptPoll& poll)
      : K_(K), y_(y), neg_(negative), opt_(options), poll_(poll), team_(team), n_(K.rows()) {}

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
      IklrIteration record{objective(), steps, matvecs_ - matvecs_before};
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
    return result;
  }

 private:
  void multiply(const Eigen::VectorXd& x, Eigen::VectorXd& out) {
    // Polled at every mat-vec: a poll is a clock read between its (rate-limited) GIL takes.
    if (poll_ && poll_()) throw Interrupted();
    K_.multiply(x.data(), out.data(), team_);
    ++matvecs_;
  }

  // K- x = V diag(w) V' x + s x: O(n r), never an n x n matrix.
  Eigen::VectorXd negative_times(const Eigen::VectorXd& x) const {
    Eigen::VectorXd out = neg_.shift * x;
    if (neg_.V.cols() > 0) out.noalias() += neg_.V * (neg_.w.asDiagonal() * (neg_.V.transpose() * x));
    return out;
  }

  double mean_loss() const {
    double s = 0.0;
    for (Index i = 0; i < n_; ++i) s += logistic_loss(y_[i] * z_[i]);
    return s / static_cast<double>(n_);
  }

  // F(a) of eq. (6): the K- parts cancel, (lambda/2) a'(K+ - K-) a = (lambda/2) a'K a. The convex
  // variant keeps (lambda/2) a'K+ a.
  double objective() const {
    double quad = a_.dot(z_);
    if (!opt_.concave) quad += a_.dot(negative_times(a_));
    return mean_loss() + 0.5 * opt_.lambda * quad;
  }

  // F_k(a) of eq. (9) with its constant: g(a) - h(a_k) - lambda (K- a_k)'(a - a_k), so that
  // F_k(a_k) = F(a_k).
  double subproblem(const Eigen::VectorXd& neg_a) const {
    double value = mean_loss() + 0.5 * opt_.lambda * (a_.dot(z_) + a_.dot(neg_a));
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
        const double weight = y_[i] * tail_weight(y_[i] * z_[i]);
        const Scalar* column = K_.row(i);  // K is symmetric: column i is row i
        for (Index j = 0; j < n_; ++j) g[j] -= weight * static_cast<double>(column[j]);
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

  const DenseKernel<Scalar>& K_;
  const Eigen::Ref<const Eigen::VectorXd>& y_;
  const NegativePart& neg_;
  const IklrOptions& opt_;
  const InterruptPoll& poll_;
  ThreadTeam& team_;
  Index n_;
  Index matvecs_ = 0;
  Eigen::VectorXd a_, z_, ak_, neg_ak_;
  double eta_ = 0.0;  // the step, decayed per inner step (restarted per outer step or not)
};

}  // namespace

template <class Scalar>
IklrResult ccicp(const DenseKernel<Scalar>& K, const Eigen::Ref<const Eigen::VectorXd>& y, const NegativePart& negative,
                 const Eigen::Ref<const Eigen::VectorXd>& alpha0, const IklrOptions& options,
                 const Eigen::Ref<const VectorXi>& sgd_indices, ThreadTeam& team, const Monitor<IklrIteration>& monitor,
                 const InterruptPoll& poll) {
  // Shapes and indices (they guard memory), finiteness and the options, by their Python names.
  const Index n = K.rows();
  if (n < 1) throw std::invalid_argument("ccicp: K must be at least 1 x 1");
  for (Index i = 0; i < n; ++i) {  // O(n^2) once, against O(n^2) per mat-vec of the run
    const Scalar* row = K.row(i);
    for (Index j = 0; j < n; ++j)
      if (!std::isfinite(row[j])) throw std::invalid_argument("ccicp: K must be finite");
  }
  if (y.size() != n || alpha0.size() != n) throw std::invalid_argument("ccicp: y and alpha0 need n entries");
  if (!y.allFinite() || !alpha0.allFinite() || !negative.V.allFinite() || !negative.w.allFinite() ||
      !std::isfinite(negative.shift))
    throw std::invalid_argument("ccicp: y, alpha0, V, w and shift must be finite");
  if (negative.shift < 0.0)
    throw std::invalid_argument("ccicp: shift must be >= 0 (K- = V diag(w) V' + shift I is PSD)");
  if (!(options.lambda > 0.0) || !std::isfinite(options.lambda))
    throw std::invalid_argument("ccicp: lambda_ must be a positive finite number");
  if (!(options.eps >= 0.0) || !std::isfinite(options.eps))
    throw std::invalid_argument("ccicp: eps must be finite and >= 0");
  if (options.max_outer < 0 || options.max_inner < 0)
    throw std::invalid_argument("ccicp: max_outer and max_inner must be >= 0");
  if (!(options.learning_rate > 0.0) || !std::isfinite(options.learning_rate))
    throw std::invalid_argument("ccicp: learning_rate must be a positive finite number");
  if (!(options.decay > 0.0 && options.decay <= 1.0)) throw std::invalid_argument("ccicp: decay must lie in (0, 1]");
  if (negative.V.cols() > 0 && negative.V.rows() != n)
    throw std::invalid_argument("ccicp: negative part V must be n x r");
  if (negative.w.size() != negative.V.cols())
    throw std::invalid_argument("ccicp: w must have one weight per column of V");
  if (options.inner == IklrInner::sgd && options.max_outer > 0 && options.max_inner > 0) {
    if (sgd_indices.size() / options.max_inner < options.max_outer)  // no overflow of the product
      throw std::invalid_argument("ccicp: sgd_indices needs max_outer * max_inner entries, got " +
                                  std::to_string(sgd_indices.size()));
    for (Index j = 0; j < sgd_indices.size(); ++j)
      if (sgd_indices[j] < 0 || sgd_indices[j] >= n)
        throw std::invalid_argument("ccicp: sgd_indices holds an index out of range [0, n)");
  }
  CcicpRun<Scalar> run(K, y, negative, options, team, poll);
  return run.run(alpha0, sgd_indices, monitor);
}

template IklrResult ccicp<float>(const DenseKernel<float>&, const Eigen::Ref<const Eigen::VectorXd>&,
                                 const NegativePart&, const Eigen::Ref<const Eigen::VectorXd>&, const IklrOptions&,
                                 const Eigen::Ref<const VectorXi>&, ThreadTeam&, const Monitor<IklrIteration>&,
                                 const InterruptPoll&);
template IklrResult ccicp<double>(const DenseKernel<double>&, const Eigen::Ref<const Eigen::VectorXd>&,
                                  const NegativePart&, const Eigen::Ref<const Eigen::VectorXd>&, const IklrOptions&,
                                  const Eigen::Ref<const VectorXi>&, ThreadTeam&, const Monitor<IklrIteration>&,
                                  const InterruptPoll&);

}  // namespace kernlearn
