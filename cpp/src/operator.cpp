#include "kernlearn/operator.hpp"

#include "kernlearn/parallel.hpp"

namespace kernlearn {

void CsrOperator::apply(const Eigen::Ref<const Eigen::MatrixXd>& X, Eigen::Ref<Eigen::MatrixXd> Y) const {
  const Index b = X.cols();
  // Below ~20k rows a thread start costs more than it saves.
  const int threads = n_ >= 20000 ? n_threads_ : 1;
  parallel_for(static_cast<std::size_t>(n_), threads, 4096, [&](std::size_t begin, std::size_t end) {
    for (auto i = static_cast<Index>(begin); i < static_cast<Index>(end); ++i) {
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

}  // namespace kernlearn
