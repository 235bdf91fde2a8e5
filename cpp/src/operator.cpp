#include "kernlearn/operator.hpp"

namespace kernlearn {

namespace {
// Below this many rows a product is a few microseconds: not worth waking the team.
constexpr Index kTeamMinRows = 2048;

// fn(first row, row count) over the team's share of [0, n).
template <class Fn>
void split_rows(ThreadTeam& team, Index n, Fn&& fn) {
  if (n < kTeamMinRows || team.size() == 1) return fn(Index{0}, n);
  team.run([&](int member) {
    const Index first = n * member / team.size(), last = n * (member + 1) / team.size();
    fn(first, last - first);
  });
}
}  // namespace

void CsrOperator::apply(const Eigen::Ref<const Eigen::MatrixXd>& X, Eigen::Ref<Eigen::MatrixXd> Y) const {
  const Index b = X.cols();
  split_rows(team_, n_, [&](Index first, Index rows) {
    for (Index i = first; i < first + rows; ++i) {
      if (b == 1) {
        double s = 0.0;
        for (Index p = indptr_[i]; p < indptr_[i + 1]; ++p) s += data_[p] * X(indices_[p], 0);
        Y(i, 0) = s;
      } else {
        Y.row(i).setZero();
        for (Index p = indptr_[i]; p < indptr_[i + 1]; ++p) Y.row(i) += data_[p] * X.row(indices_[p]);
      }
    }
  });
}

void DenseOperator::apply(const Eigen::Ref<const Eigen::MatrixXd>& X, Eigen::Ref<Eigen::MatrixXd> Y) const {
  split_rows(team_, A_.rows(), [&](Index first, Index rows) {
    Y.middleRows(first, rows).noalias() = A_.middleRows(first, rows) * X;
  });
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
