#include "kernlearn/chebyshev_filter.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <vector>

namespace kernlearn {

namespace {

// Below this size the filter cannot pay for its estimate of a.
constexpr Index kMinFilteredSize = 64;

// A's lowest eigenvalue is wanted only roughly: residual 1e-3 |A|.
constexpr double kBottomTolerance = 1e-3;

// a sits this part of (b - estimate) below the estimate (or a residual below, if more): a
// too-high a would let p exceed 1 at A's bottom, and that pair would pass for a wanted one.
constexpr double kBottomMargin = 0.01;

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
  const Index n = A.rows();
  if (n < kMinFilteredSize || degree < 1) return lanczos(A, start, options, team, poll);

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
  if (!(estimate < level)) {  // nothing below the level to filter out
    LanczosResult plain = lanczos(A, start, options, team, poll);
    plain.n_matvec += low.n_matvec;
    return plain;
  }
  const double lower = estimate - std::max(low.residuals(0), kBottomMargin * (level - estimate));

  const ChebyshevFilter filter(A, lower, level, degree);
  LanczosOptions filtered_options = options;
  if (options.threshold_mode) filtered_options.threshold = 1.0;  // p(b)
  if (options.max_matvec > 0) filtered_options.max_matvec = std::max<Index>(1, options.max_matvec / degree);
  LanczosResult found = lanczos(filter, start, filtered_options, team, poll);

  // A's eigenvalues: the Rayleigh quotients; residuals against A.
  const Index m = found.vectors.cols();
  Eigen::MatrixXd AV(n, m);
  if (m > 0) A.apply(found.vectors, AV);
  Eigen::VectorXd quotient(m);
  for (Index c = 0; c < m; ++c) quotient(c) = found.vectors.col(c).dot(AV.col(c));
  std::vector<Index> order(static_cast<std::size_t>(m));
  std::iota(order.begin(), order.end(), Index{0});
  std::stable_sort(order.begin(), order.end(), [&](Index x, Index y) { return quotient(x) > quotient(y); });
  Index kept = m;
  if (options.threshold_mode)
    kept = std::count_if(order.begin(), order.end(), [&](Index c) { return quotient(c) > options.threshold; });

  LanczosResult result;
  result.values.resize(kept);
  result.vectors.resize(n, kept);
  result.residuals.resize(kept);
  for (Index i = 0; i < kept; ++i) {
    const Index c = order[static_cast<std::size_t>(i)];
    result.values(i) = quotient(c);
    result.vectors.col(i) = found.vectors.col(c);
    result.residuals(i) = (AV.col(c) - quotient(c) * found.vectors.col(c)).norm();
  }
  result.n_matvec = low.n_matvec + degree * found.n_matvec + m;
  result.n_restart = found.n_restart;
  result.n_locked = found.n_locked;
  result.norm_estimate = std::max(std::abs(estimate), m > 0 ? std::abs(quotient(order[0])) : 0.0);
  result.status = found.status;
  return result;
}

}  // namespace kernlearn
