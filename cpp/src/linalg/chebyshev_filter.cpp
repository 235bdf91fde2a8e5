#include "kernlearn/linalg/chebyshev_filter.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <stdexcept>
#include <vector>

#include "kernlearn/core/solver_choice.hpp"

namespace kernlearn {

namespace {

// The far end of the spectrum is wanted only roughly: residual 1e-2 |A|, about the 1% margin
// below, which is put beyond the Ritz value by at least the residual anyway (an eigenvalue lies
// within it). A tighter 1e-3 cost more products (bench/results/eigsh.md).
constexpr double kFarTolerance = 1e-2;

// a sits this part of |b - estimate| beyond the estimate (or a residual beyond, if more).
constexpr double kFarMargin = 0.01;

// Below this |b - estimate| relative to their size, the filter has nothing to damp.
constexpr double kMinWidth = 1e-6;

// The filtered run's tolerance, relative to the caller's: residuals on p(A) are relative to
// p(lambda_max), and a pair just above b, where p' is smallest, then missed tol against A and sent
// the solve to plain Lanczos; 0.1 tol avoids that fallback at no cost in products
// (bench/results/eigsh.md).
constexpr double kFilteredTolerance = 0.1;

// The interval's end sits this part of |b - a| short of b (see filtered_lanczos).
constexpr double kTransition = 0.05;

// The filtered run stops after kCapPerPair k + kCapExtra products with p(A), well above what the
// measured runs needed (bench/results/eigsh.md); one that needs more has met the equioscillation band.
constexpr Index kCapPerPair = 12;
constexpr Index kCapExtra = 200;

}  // namespace

ChebyshevFilter::ChebyshevFilter(const SymmetricOperator& A, double far, double level, int degree)
    : A_(A), scale_(2.0 / (level - far)), centre_((level + far) / (level - far)), degree_(degree) {}

void ChebyshevFilter::apply(const Eigen::Ref<const Eigen::MatrixXd>& X, Eigen::Ref<Eigen::MatrixXd> Y) const {
  // T_0 = X, T_1 = S X, T_j = 2 S T_{j-1} - T_{j-2} with S = scale A - centre I.
  // The three buffers are members: Lanczos calls this once a step, with the same shape.
  product_.resize(X.rows(), X.cols());
  A_.apply(X, product_);
  current_ = scale_ * product_ - centre_ * X;
  previous_ = X;
  for (int j = 2; j <= degree_; ++j) {
    A_.apply(current_, product_);
    previous_ = 2.0 * (scale_ * product_ - centre_ * current_) - previous_;
    previous_.swap(current_);
  }
  Y = current_;
}

LanczosResult filtered_lanczos(const SymmetricOperator& A, const Eigen::MatrixXd& start, const LanczosOptions& options,
                               Eigen::VectorXd& far_end, ThreadTeam& team, const InterruptPoll& poll) {
  if (!options.filter) throw std::invalid_argument("filtered_lanczos: options.filter is not set");
  const double level = options.filter->level;
  const int degree = options.filter->degree;
  const Index n = A.rows();
  // Degree 1 is an affine map of A: the same Krylov spaces, nothing gained.
  if (n < solver_choice::kMinFilteredSize || degree < 2) return lanczos(A, start, options, team, poll);
  const double sign = options.largest() ? 1.0 : -1.0;  // the wanted side of the level

  LanczosOptions far_options;
  far_options.k = 1;
  far_options.which = options.largest() ? LanczosWhich::smallest : LanczosWhich::largest;
  far_options.tol = kFarTolerance;
  far_options.seed = options.seed + 1;
  far_options.max_matvec = options.max_matvec;
  Eigen::MatrixXd far_start(n, 1);
  if (far_end.size() == n) {
    far_start.col(0) = far_end;
  } else {
    std::mt19937_64 rng(options.seed + 2);
    std::normal_distribution<double> normal;
    for (Index i = 0; i < n; ++i) far_start(i, 0) = normal(rng);
  }
  const LanczosResult far = lanczos(A, far_start, far_options, team, poll);
  const double estimate = far.values(0);
  far_end = far.vectors.col(0);
  // Plain Lanczos on what is left of the mat-vec budget (none: the default).
  auto plain = [&](const Eigen::MatrixXd& from, Index spent, Index restarts) {
    LanczosOptions rest = options;
    if (options.max_matvec) rest.max_matvec = std::max<Index>(1, *options.max_matvec - spent);
    LanczosResult r = lanczos(A, from, rest, team, poll);
    r.n_matvec += spent;
    r.n_restart += restarts;
    return r;
  };
  // Nothing (or next to nothing) on the unwanted side of the level to damp.
  const double width = sign * (level - estimate);
  if (!(width > kMinWidth * std::max(std::abs(estimate), std::abs(level)))) return plain(start, far.n_matvec, 0);
  const double a = estimate - sign * std::max(far.residuals(0), kFarMargin * width);

  // The polynomial's interval ends short of the level: the pairs just on the unwanted side of it
  // map above 1 too, in order, so that a k larger than the count beyond the level is served
  // from them instead of from the equioscillation band, where Lanczos crawls.
  const double edge = level - sign * kTransition * std::abs(level - a);
  const ChebyshevFilter filter(A, a, edge, degree);
  LanczosOptions filtered_options = options;
  filtered_options.which = LanczosWhich::largest;  // beyond the edge, on either side, p > 1
  filtered_options.tol = options.tol * kFilteredTolerance;
  // Threshold mode: Lanczos counts on p(A) beyond p(threshold). It treats p values within
  // tol_p |p(A)| of that as at it, which is tol_p |p(A)| / p'(threshold) in A's units: checked
  // below against the plain band, tol |A|.
  double x_threshold = 1.0;
  if (options.threshold) {
    x_threshold = (2.0 * *options.threshold - a - edge) / (edge - a);
    filtered_options.threshold = std::cosh(degree * std::acosh(x_threshold));
  }
  std::optional<Index> budget;  // none: Lanczos's default
  if (options.max_matvec) budget = std::max<Index>(1, (*options.max_matvec - far.n_matvec) / degree);
  // By count, or up to max_rank: capped (threshold mode with no max_rank: the count is unknown).
  const std::optional<Index> pairs = options.threshold ? options.max_rank : std::optional<Index>(options.k);
  if (pairs && *pairs > 0) {
    const Index cap = kCapPerPair * *pairs + kCapExtra;
    budget = budget ? std::min(*budget, cap) : cap;
  }
  filtered_options.max_matvec = budget;
  const LanczosResult found = lanczos(filter, start, filtered_options, team, poll);

  // A's eigenvalues: the Rayleigh quotients; residuals against A.
  const Index m = found.vectors.cols();
  Eigen::MatrixXd AV(n, m);
  if (m > 0) A.apply(found.vectors, AV);
  Eigen::VectorXd quotient(m);
  for (Index c = 0; c < m; ++c) quotient(c) = found.vectors.col(c).dot(AV.col(c));
  std::vector<Index> order(static_cast<std::size_t>(m));
  std::iota(order.begin(), order.end(), Index{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](Index x, Index y) { return sign * quotient(x) > sign * quotient(y); });

  LanczosResult result;
  result.values.resize(m);
  result.vectors.resize(n, m);
  result.residuals.resize(m);
  for (Index i = 0; i < m; ++i) {
    const Index c = order[static_cast<std::size_t>(i)];
    result.values(i) = quotient(c);
    result.vectors.col(i) = found.vectors.col(c);
    result.residuals(i) = (AV.col(c) - quotient(c) * found.vectors.col(c)).norm();
  }
  const Index spent = far.n_matvec + degree * found.n_matvec + m;
  result.n_matvec = spent;
  result.n_restart = found.n_restart;
  result.n_locked = found.n_locked;
  result.norm_estimate = std::max(std::abs(a), m > 0 ? std::abs(result.values(0)) : 0.0);
  result.status = found.status;
  result.max_rank_reached = found.max_rank_reached;
  result.filtered = true;

  // On the unwanted side of b, p is not monotone: the order holds only when every pair found
  // lies beyond b. The tolerance held on p(A), relative to |p(A)|, is checked against A.
  // Otherwise plain Lanczos finishes from the pairs found (its warm start locks those that
  // have converged).
  const bool ordered = m == 0 || sign * (result.values(m - 1) - edge) > 0.0;
  bool accurate = m == 0 || result.residuals.maxCoeff() <= options.tol * result.norm_estimate;
  const double band = options.tol * result.norm_estimate;  // plain Lanczos's, in A's units
  if (options.threshold) {
    // p'(threshold) = d sinh(d t) / sinh(t) (d^2 at t = 0) times dx/dlambda, t = acosh(x).
    const double t = std::acosh(x_threshold);
    const double slope =
        (t > 1e-8 ? degree * std::sinh(degree * t) / std::sinh(t) : double(degree) * degree) * 2.0 / std::abs(edge - a);
    accurate = accurate && filtered_options.tol * found.norm_estimate / slope <= band;
  }
  // Threshold mode: only the pairs beyond the threshold by more than the band, as plain Lanczos.
  auto trimmed = [&](LanczosResult r) {
    if (!options.threshold) return r;
    Index kept = 0;
    while (kept < r.values.size() && sign * (r.values(kept) - *options.threshold) > band) ++kept;
    r.values.conservativeResize(kept);
    r.vectors.conservativeResize(n, kept);
    r.residuals.conservativeResize(kept);
    return r;
  };
  // More pairs beyond the threshold than max_rank: the caller's signal, nothing to finish.
  if (found.max_rank_reached) return trimmed(std::move(result));
  if (found.status == SolverStatus::converged && ordered && accurate) return trimmed(std::move(result));
  if (options.max_matvec && spent >= *options.max_matvec) {  // no budget left: as found
    result.status = SolverStatus::max_iter;
    return trimmed(std::move(result));
  }
  return plain(m > 0 ? result.vectors : start, spent, found.n_restart);
}

LanczosResult solve_lanczos(const SymmetricOperator& A, const Eigen::MatrixXd& start, const LanczosOptions& options,
                            ThreadTeam& team, const InterruptPoll& poll) {
  if (!options.filter) return lanczos(A, start, options, team, poll);
  Eigen::VectorXd far_end;  // a random estimate of the far end
  return filtered_lanczos(A, start, options, far_end, team, poll);
}

}  // namespace kernlearn
