#include "kernlearn/dense_eigen.hpp"

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace kernlearn {

namespace {

// Ascending eigenvalues w and their vectors Z (columns): keep the largest, above `lower`.
void select_top(const Eigen::Ref<const Eigen::VectorXd>& w, const Eigen::Ref<const Eigen::MatrixXd>& Z,
                double lower, Index max_count, Eigen::VectorXd& values, Eigen::MatrixXd& vectors) {
  const Index n = w.size(), cap = max_count > 0 ? std::min(max_count, n) : n;
  Index count = 0;
  while (count < cap && w(n - 1 - count) > lower) ++count;
  values = w.tail(count).reverse();
  vectors = Z.rightCols(count).rowwise().reverse();
}

void with_lapack(Eigen::MatrixXd& A, double lower, Index max_count, SyevdFn syevd, Eigen::VectorXd& values,
                 Eigen::MatrixXd& vectors) {
  if (A.rows() > std::numeric_limits<int>::max() / std::max<Index>(2 * A.rows() + 1, 1))
    throw std::invalid_argument("matrix too large for 32-bit LAPACK");
  int n = static_cast<int>(A.rows()), lda = n, info = 0, lwork = -1, liwork = -1, iwork_query = 0;
  char jobz = 'V', uplo = 'L';
  Eigen::VectorXd w(n);
  double work_query = 0.0;
  syevd(&jobz, &uplo, &n, A.data(), &lda, w.data(), &work_query, &lwork, &iwork_query, &liwork, &info);
  if (info != 0) throw std::runtime_error("dsyevd workspace query failed, info = " + std::to_string(info));
  lwork = static_cast<int>(work_query);
  liwork = iwork_query;
  std::vector<double> work(static_cast<std::size_t>(lwork));
  std::vector<int> iwork(static_cast<std::size_t>(liwork));
  syevd(&jobz, &uplo, &n, A.data(), &lda, w.data(), work.data(), &lwork, iwork.data(), &liwork, &info);
  if (info != 0) throw std::runtime_error("dsyevd failed, info = " + std::to_string(info));
  select_top(w, A, lower, max_count, values, vectors);  // A now holds the eigenvectors
}

}  // namespace

void dense_eigenpairs_above(Eigen::MatrixXd& A, double lower, Index max_count, SyevdFn syevd,
                            Eigen::VectorXd& values, Eigen::MatrixXd& vectors) {
  if (syevd) return with_lapack(A, lower, max_count, syevd, values, vectors);
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(A);
  if (eig.info() != Eigen::Success) throw std::runtime_error("dense eigensolver failed");
  select_top(eig.eigenvalues(), eig.eigenvectors(), lower, max_count, values, vectors);
}

}  // namespace kernlearn
