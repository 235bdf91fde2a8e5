#include "kernlearn/dense_eigen.hpp"

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace kernlearn {

namespace {

void with_lapack(Eigen::MatrixXd& A, double lower, Index max_count, SyevrFn syevr, Eigen::VectorXd& values,
                 Eigen::MatrixXd& vectors) {
  if (A.rows() > std::numeric_limits<int>::max() / std::max<Index>(A.rows(), 1))
    throw std::invalid_argument("matrix too large for 32-bit LAPACK");
  int n = static_cast<int>(A.rows()), lda = n, ldz = n, il = 1, iu = n, m = 0, info = 0;
  char jobz = 'V', range = 'V', uplo = 'L';
  double vl = lower, vu = std::numeric_limits<double>::infinity(), abstol = 0.0;
  if (max_count > 0 && max_count < n) {
    // The largest max_count by index; values at or below `lower` are dropped afterwards.
    range = 'I';
    il = n - static_cast<int>(max_count) + 1;
  }
  Eigen::VectorXd w(n);
  Eigen::MatrixXd z(n, range == 'I' ? iu - il + 1 : n);
  std::vector<int> isuppz(2 * static_cast<std::size_t>(n));
  double work_query = 0.0;
  int iwork_query = 0, lwork = -1, liwork = -1;
  syevr(&jobz, &range, &uplo, &n, A.data(), &lda, &vl, &vu, &il, &iu, &abstol, &m, w.data(), z.data(), &ldz,
        isuppz.data(), &work_query, &lwork, &iwork_query, &liwork, &info);
  if (info != 0) throw std::runtime_error("dsyevr workspace query failed, info = " + std::to_string(info));
  lwork = static_cast<int>(work_query);
  liwork = iwork_query;
  std::vector<double> work(static_cast<std::size_t>(lwork));
  std::vector<int> iwork(static_cast<std::size_t>(liwork));
  syevr(&jobz, &range, &uplo, &n, A.data(), &lda, &vl, &vu, &il, &iu, &abstol, &m, w.data(), z.data(), &ldz,
        isuppz.data(), work.data(), &lwork, iwork.data(), &liwork, &info);
  if (info != 0) throw std::runtime_error("dsyevr failed, info = " + std::to_string(info));
  Index count = 0;  // ascending from LAPACK: keep those above `lower`, largest first
  while (count < m && w(m - 1 - count) > lower) ++count;
  values = w.head(m).tail(count).reverse();
  vectors = z.leftCols(m).rightCols(count).rowwise().reverse();
}

}  // namespace

void dense_eigenpairs_above(Eigen::MatrixXd& A, double lower, Index max_count, SyevrFn syevr,
                            Eigen::VectorXd& values, Eigen::MatrixXd& vectors) {
  if (syevr) return with_lapack(A, lower, max_count, syevr, values, vectors);
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(A);
  if (eig.info() != Eigen::Success) throw std::runtime_error("dense eigensolver failed");
  const Index n = A.rows();
  Index count = 0;
  const Index cap = max_count > 0 ? std::min(max_count, n) : n;
  while (count < cap && eig.eigenvalues()(n - 1 - count) > lower) ++count;
  values = eig.eigenvalues().tail(count).reverse();
  vectors = eig.eigenvectors().rightCols(count).rowwise().reverse();
}

}  // namespace kernlearn
