#include "kernlearn/kernels/kernel_operator.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace kernlearn {

std::pair<Index, Index> round_robin_size(Index blocks) {
  // Players 0..N-1 with N even (a bye N-1 when blocks is odd): in round r the player N-1 meets r
  // (slot 0), and (r + s) mod (N-1) meets (r - s) mod (N-1) in slot s = 1 .. N/2 - 1.
  const Index N = blocks + (blocks % 2);
  if (N < 2) return {0, 0};
  return {N - 1, N / 2};
}

std::pair<Index, Index> round_robin_pair(Index blocks, Index round, Index slot) {
  const Index N = blocks + (blocks % 2), M = N - 1;
  const Index a = slot == 0 ? M : (round + slot) % M, b = slot == 0 ? round : (round - slot + M) % M;
  if (a >= blocks || b >= blocks) return {-1, -1};
  return {std::min(a, b), std::max(a, b)};
}

void check_pairwise_kernel(const PairwiseKernel& kernel, const MatrixRef& X, const char* x_name) {
  // Both fields are checked whatever the kind: a garbage value is a caller's error either way.
  if (!(kernel.tau > 0.0 && std::isfinite(kernel.tau))) throw std::invalid_argument("tau must be finite and > 0");
  if (!(kernel.gamma >= 0.0 && std::isfinite(kernel.gamma)))
    throw std::invalid_argument("gamma must be finite and >= 0");
  if (!X.allFinite()) throw std::invalid_argument(std::string(x_name) + " must be finite");
  if (X.size() > 0 && X.cwiseAbs().maxCoeff() > kMaxCoordinate)
    throw std::invalid_argument(std::string(x_name) +
                                "'s entries must be at most 1e150 in magnitude (squared distances must be finite)");
}

void check_single_precision_range(const MatrixRef& X) {
  if (X.size() == 0) return;
  // Squared distances summed in float must stay finite: |x - mean| <= sqrt(FLT_MAX / (4 d)).
  const Eigen::RowVectorXd mean = X.colwise().mean();
  const double largest = (X.rowwise() - mean).cwiseAbs().maxCoeff();
  const double limit =
      std::sqrt(static_cast<double>(std::numeric_limits<float>::max()) / (4.0 * static_cast<double>(X.cols())));
  if (!(largest <= limit))
    throw std::invalid_argument("X: float32 tiles need every entry of X minus its column mean within " +
                                std::to_string(limit) + " in magnitude (squared distances in single precision), got " +
                                std::to_string(largest) + "; use float64 tiles");
}

template <class Scalar>
Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> feature_panel(const MatrixRef& Y,
                                                                                     const Eigen::RowVectorXd& center) {
  const Index m = Y.rows(), d = Y.cols();
  Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> panel =
      Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>::Zero(d, padded(m));
  for (Index j = 0; j < m; ++j)
    for (Index f = 0; f < d; ++f) panel(f, j) = static_cast<Scalar>(Y(j, f) - (center.size() ? center[f] : 0.0));
  return panel;
}

template Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> feature_panel<float>(
    const MatrixRef&, const Eigen::RowVectorXd&);
template Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> feature_panel<double>(
    const MatrixRef&, const Eigen::RowVectorXd&);

KernelOperator::KernelOperator(const MatrixRef& X, const PairwiseKernel& kernel, double constant, bool single,
                               ThreadTeam& team, const InterruptPoll& poll)
    : X_(X), kernel_(kernel), constant_(constant), single_(single), team_(team), poll_(poll) {
  if (X.rows() < 1) throw std::invalid_argument("X must have at least one row");
  check_pairwise_kernel(kernel, X, "X");
  if (!std::isfinite(constant)) throw std::invalid_argument("the kernel's constant must be finite");
  ld_ = padded(X.rows());
  if (single_) {
    const Eigen::RowVectorXd mean = X.colwise().mean();
    check_single_precision_range(X);
    Xf_ = (X.rowwise() - mean).cast<float>();
    Xtf_ = feature_panel<float>(X, mean);
  } else {
    Xt_ = feature_panel<double>(X, Eigen::RowVectorXd());
  }
}

template <class Scalar>
void KernelOperator::apply_tiles(const Scalar* points, Index stride, const Scalar* panel, const RowMatrixXd& V,
                                 RowMatrixXd& Y) const {
  const Index n = X_.rows(), d = X_.cols(), b = V.cols();
  const Index blocks = (n + kKernelTile - 1) / kKernelTile;
  std::vector<std::vector<Scalar>> rows(static_cast<std::size_t>(team_.size()),
                                        std::vector<Scalar>(static_cast<std::size_t>(padded(kKernelTile))));
  // Rows i0.. of block I against the columns of block J: y_i += k_i V_J and, for I != J, the
  // mirrored Y_J += k_i' v_i.
  const auto tile = [&](int member, Index I, Index J) {
    Scalar* k = rows[static_cast<std::size_t>(member)].data();
    const Index i0 = I * kKernelTile, j0 = J * kKernelTile;
    const Index ti = std::min(kKernelTile, n - i0), tj = std::min(kKernelTile, n - j0);
    double* mirror = I == J ? nullptr : Y.data() + j0 * b;
    for (Index i = i0; i < i0 + ti; ++i) {
      kernel_row(kernel_, constant_, points + i * stride, panel + j0, ld_, tj, d, k);
      row_products(k, tj, V.data() + j0 * b, b, Y.data() + i * b, V.data() + i * b, mirror);
    }
  };
  team_.for_each(blocks, [&](int member, Index I) { tile(member, I, I); }, poll_);
  // Round by round, in order: the tiles of a round touch disjoint rows of Y, and each row sums its
  // tiles in round order whatever the thread count.
  const auto [n_rounds, slots] = round_robin_size(blocks);
  for (Index r = 0; r < n_rounds; ++r)
    team_.for_each(
        slots,
        [&](int member, Index s) {
          const auto [I, J] = round_robin_pair(blocks, r, s);
          if (I >= 0) tile(member, I, J);
        },
        poll_);
}

void KernelOperator::apply(const Eigen::Ref<const Eigen::MatrixXd>& V, Eigen::Ref<Eigen::MatrixXd> Y) const {
  const Index n = X_.rows();
  if (V.rows() != n || Y.rows() != n || Y.cols() != V.cols())
    throw std::invalid_argument("KernelOperator: the block must have n = " + std::to_string(n) + " rows");
  const RowMatrixXd Vr = V;  // row-major: a kernel row multiplies whole rows of V
  RowMatrixXd Yr = RowMatrixXd::Zero(n, V.cols());
  if (single_)
    apply_tiles<float>(Xf_.data(), X_.cols(), Xtf_.data(), Vr, Yr);
  else
    apply_tiles<double>(X_.data(), X_.outerStride(), Xt_.data(), Vr, Yr);
  Y = Yr;
}

void KernelOperator::column(Index j, Eigen::Ref<Eigen::VectorXd> out) const {
  const Index n = X_.rows(), d = X_.cols();
  if (single_) {
    std::vector<float> row(static_cast<std::size_t>(ld_));
    kernel_row(kernel_, constant_, Xf_.data() + j * d, Xtf_.data(), ld_, n, d, row.data());
    for (Index i = 0; i < n; ++i) out[i] = static_cast<double>(row[static_cast<std::size_t>(i)]);
  } else {
    std::vector<double> row(static_cast<std::size_t>(ld_));
    const Eigen::RowVectorXd x = X_.row(j);
    kernel_row(kernel_, constant_, x.data(), Xt_.data(), ld_, n, d, row.data());
    for (Index i = 0; i < n; ++i) out[i] = row[static_cast<std::size_t>(i)];
  }
}

Eigen::VectorXd KernelOperator::diagonal() const {
  // k(x, x): exp(0) = 1 (RBF) or max(tau - 0, 0) = tau (TL1), plus the constant, in the tiles'
  // precision and order of operations.
  double value = 0.0;
  if (single_) {
    const float base = kernel_.kind == PairwiseKind::rbf ? 1.0f : std::max(static_cast<float>(kernel_.tau), 0.0f);
    value = static_cast<double>(base + static_cast<float>(constant_));
  } else {
    const double base = kernel_.kind == PairwiseKind::rbf ? 1.0 : std::max(kernel_.tau, 0.0);
    value = base + constant_;
  }
  return Eigen::VectorXd::Constant(X_.rows(), value);
}

}  // namespace kernlearn
