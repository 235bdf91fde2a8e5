#include "kernlearn/chebyshev_filter.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <stdexcept>
#include <vector>

namespace kernlearn {

namespace {

// Below this size the filter cannot pay for its estimate of a.
constexpr Index kMinFilteredSize = 64;

// A's lowest eigenvalue is wanted only roughly: residual 1e-3 |A|.
constexpr double kBottomTolerance = 1e-3;

// a sits this part of (b - estimate) below the estimate (or a residual below, if more). An odd
// degree makes p negative below a, so an a above A's bottom cannot promote those pairs.
constexpr double kBottomMargin = 0.01;

// Below this (b - estimate) relative to their size, the filter has nothing to damp.
constexpr double kMinWidth = 1e-6;

}  // namespace

ChebyshevFilter::ChebyshevFilter(const SymmetricOperator& A, double lower, double upper, int degree)
    : A_(A), scale_(2.0 / (upper - lower)), centre_((upper + lower) / (upper - lower)), degree_(degree) {}

void ChebyshevFilter::apply(const Eigen::Ref<const Eigen::MatrixXd>& X, Eigen::Ref<Eigen::MatrixXd> Y) const {
  // T_0 = X, T_1 = S X, T_j = 2 S T_{j-1} - T_{j-2} with S = scale A - centre I.
  product_.resize(X.rows(), X.cols());
  A_.apply(X, product_);
  Eigen::MatrixXd current = scale_ * product_ - centre_ * X;
  previous_ = X;
  for (int j = 2; j <= degree_; ++j) {
    A_.apply(current, product_);
    previous_ = 2.0 * (scale_ * product_ - centre_ * current) - previous_;
    previous_.swap(current);
  }
  Y = current;
}

LanczosResult filtered_lanczos(const SymmetricOperator& A, const Eigen::MatrixXd& start, const LanczosOptions& options,
                               double level, int degree, Eigen::VectorXd& bottom, ThreadTeam& team,
                               const InterruptPoll& poll) {
  if (!options.largest || options.threshold_mode)
    throw std::invalid_argument("filtered_lanczos: the largest pairs by count only");
  const Index n = A.rows();
  // Degree 1 is an affine map of A: the same Krylov spaces, nothing gained.
  if (n < kMinFilteredSize || degree < 2) return lanczos(A, start, options, team, poll);

  LanczosOptions low_options;
  low_options.k = 1;
  low_options.largest = false;
  low_options.tol = kBottomTolerance;
  low_options.seed = options.seed + 1;
  Eigen::MatrixXd low_start(n, 1);
  if (bottom.size() == n) {
    low_start.col(0) = bottom;
  } else {
    std::mt19937_64 rng(options.seed + 2);
    std::normal_distribution<double> normal;
    for (Index i = 0; i < n; ++i) low_start(i, 0) = normal(rng);
  }
  const LanczosResult low = lanczos(A, low_start, low_options, team, poll);
  const double estimate = low.values(0);
  bottom = low.vectors.col(0);
  auto plain = [&](const Eigen::MatrixXd& from, Index spent) {
    LanczosResult r = lanczos(A, from, options, team, poll);
    r.n_matvec += spent;
    return r;
  };
  // Nothing (or next to nothing) below the level to damp.
  if (!(level - estimate > kMinWidth * std::max(std::abs(estimate), std::abs(level)))) return plain(start, low.n_matvec);
  const double lower = estimate - std::max(low.residuals(0), kBottomMargin * (level - estimate));

  const ChebyshevFilter filter(A, lower, level, degree);
  LanczosOptions filtered_options = options;
  if (options.max_matvec > 0) filtered_options.max_matvec = std::max<Index>(1, options.max_matvec / degree);
  const LanczosResult found = lanczos(filter, start, filtered_options, team, poll);

  // A's eigenvalues: the Rayleigh quotients; residuals against A.
  const Index m = found.vectors.cols();
  Eigen::MatrixXd AV(n, m);
  if (m > 0) A.apply(found.vectors, AV);
  Eigen::VectorXd quotient(m);
  for (Index c = 0; c < m; ++c) quotient(c) = found.vectors.col(c).dot(AV.col(c));
  std::vector<Index> order(static_cast<std::size_t>(m));
  std::iota(order.begin(), order.end(), Index{0});
  std::stable_sort(order.begin(), order.end(), [&](Index x, Index y) { return quotient(x) > quotient(y); });

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
  const Index spent = low.n_matvec + degree * found.n_matvec + m;
  result.n_matvec = spent;
  result.n_restart = found.n_restart;
  result.n_locked = found.n_locked;
  result.norm_estimate = std::max(std::abs(lower), m > 0 ? std::abs(result.values(0)) : 0.0);
  result.status = found.status;

  // Below b, p is not monotone: the order holds only when every pair found lies above b. The
  // tolerance held on p(A), relative to p(lambda_max), is checked against A. Otherwise plain
  // Lanczos finishes from the pairs found (its warm start locks those that have converged).
  const bool ordered = m == 0 || result.values(m - 1) > level;
  const bool accurate = m == 0 || result.residuals.maxCoeff() <= options.tol * result.norm_estimate;
  if (found.status == LanczosStatus::converged && ordered && accurate) return result;
  return plain(m > 0 ? result.vectors : start, spent);
}

}  // namespace kernlearn
