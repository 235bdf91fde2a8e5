#include "kernlearn/linalg/operator.hpp"

#include <algorithm>
#include <cmath>

#include "kernlearn/core/solver_choice.hpp"

namespace kernlearn {

namespace {

// fn(first row, row count) over blocks of [0, n) on the team: eight blocks per thread, so that a
// thread the OS preempts holds back an eighth of its share, not all of it (thread_team.hpp).
template <class Fn>
void split_rows(ThreadTeam& team, Index n, Fn&& fn) {
  if (n < solver_choice::kTeamMinRows || team.size() == 1) return fn(Index{0}, n);
  const Index blocks = std::min<Index>(8 * team.size(), n / 256);
  team.for_each(blocks, [&](int, Index b) {
    const Index first = n * b / blocks, last = n * (b + 1) / blocks;
    fn(first, last - first);
  });
}
}  // namespace

void apply_polled(const SymmetricOperator& A, const Eigen::Ref<const Eigen::MatrixXd>& X, Eigen::Ref<Eigen::MatrixXd> Y,
                  const InterruptPoll& poll) {
  constexpr Index kColumns = 32;
  for (Index first = 0; first < X.cols(); first += kColumns) {
    if (first > 0 && poll && poll()) throw Interrupted();
    const Index cols = std::min(kColumns, X.cols() - first);
    A.apply(X.middleCols(first, cols), Y.middleCols(first, cols));
  }
}

double max_abs_entry(const double* x, Index count) {
  double largest = 0.0, poison = 0.0;  // poison: 0 * x is NaN exactly when x is NaN or infinite
  for (Index i = 0; i < count; ++i) {
    largest = std::max(largest, std::abs(x[i]));
    poison += 0.0 * x[i];
  }
  return poison == 0.0 ? largest : std::numeric_limits<double>::quiet_NaN();
}

double safe_scale(double norm) {
  constexpr int kSafeExponent = 480;
  if (!(norm > 0.0) || !std::isfinite(norm)) return 1.0;
  const int exponent = std::ilogb(norm);
  if (exponent >= -kSafeExponent && exponent <= kSafeExponent) return 1.0;
  return std::ldexp(1.0, -exponent);
}

void CsrOperator::apply(const Eigen::Ref<const Eigen::MatrixXd>& X, Eigen::Ref<Eigen::MatrixXd> Y) const {
  const Index b = X.cols();
  // Column by column: a row of a column-major block spans b cache lines, and gathering whole rows
  // (Y.row(i) += a * X.row(j)) was slower (microbench_lanczos, BM_spmv; bench/results/eigsh.md).
  split_rows(team_, n_, [&](Index first, Index rows) {
    for (Index c = 0; c < b; ++c) {
      const double* x = X.col(c).data();
      for (Index i = first; i < first + rows; ++i) {
        double s = 0.0;
        for (Index p = indptr_[i]; p < indptr_[i + 1]; ++p) s += data_[p] * x[indices_[p]];
        Y(i, c) = s;
      }
    }
  });
}

void DenseOperator::apply(const Eigen::Ref<const Eigen::MatrixXd>& X, Eigen::Ref<Eigen::MatrixXd> Y) const {
  split_rows(team_, A_.rows(),
             [&](Index first, Index rows) { Y.middleRows(first, rows).noalias() = A_.middleRows(first, rows) * X; });
}

double DenseOperator::max_abs() const {
  double largest = 0.0;
  for (Index i = 0; i < A_.rows(); ++i) {
    const double row = max_abs_entry(A_.row(i).data(), A_.cols());
    if (std::isnan(row)) return row;
    largest = std::max(largest, row);
  }
  return largest;
}

void StructuredOperator::apply(const Eigen::Ref<const Eigen::MatrixXd>& X, Eigen::Ref<Eigen::MatrixXd> Y) const {
  Eigen::MatrixXd centred;
  const Eigen::MatrixXd* in = nullptr;
  if (center_) {
    centred = X.rowwise() - X.colwise().mean();
    in = &centred;
  }
  const Eigen::Ref<const Eigen::MatrixXd> Z = in ? Eigen::Ref<const Eigen::MatrixXd>(*in) : X;
  sparse_.apply(Z, Y);
  if (U_.cols() > 0) Y.noalias() += U_ * (c_.asDiagonal() * (U_.transpose() * Z));
  if (shift_ != 0.0) Y += shift_ * Z;
  if (center_) Y.rowwise() -= Y.colwise().mean();
}

}  // namespace kernlearn
