#include "kernlearn/linalg/operator.hpp"

#include "kernlearn/core/solver_choice.hpp"

namespace kernlearn {

namespace {

// fn(first row, row count) over the team's share of [0, n).
template <class Fn>
void split_rows(ThreadTeam& team, Index n, Fn&& fn) {
  if (n < solver_choice::kTeamMinRows || team.size() == 1) return fn(Index{0}, n);
  team.run([&](int member) {
    const Index first = n * member / team.size(), last = n * (member + 1) / team.size();
    fn(first, last - first);
  });
}
}  // namespace

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
