#include "kernlearn/dense_eigen.hpp"

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
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

void check_lapack_size(Index n) {
  if (n > std::numeric_limits<int>::max() / std::max<Index>(2 * n + 1, 1))
    throw std::invalid_argument("matrix too large for 32-bit LAPACK");
}

void check_info(int info, const char* routine) {
  if (info != 0) throw std::runtime_error(std::string(routine) + " failed, info = " + std::to_string(info));
}

void with_lapack(Eigen::MatrixXd& A, double lower, Index max_count, SyevdFn syevd, Eigen::VectorXd& values,
                 Eigen::MatrixXd& vectors) {
  check_lapack_size(A.rows());
  int n = static_cast<int>(A.rows()), lda = n, info = 0, lwork = -1, liwork = -1, iwork_query = 0;
  char jobz = 'V', uplo = 'L';
  Eigen::VectorXd w(n);
  double work_query = 0.0;
  syevd(&jobz, &uplo, &n, A.data(), &lda, w.data(), &work_query, &lwork, &iwork_query, &liwork, &info);
  check_info(info, "dsyevd workspace query");
  lwork = static_cast<int>(work_query);
  liwork = iwork_query;
  std::vector<double> work(static_cast<std::size_t>(lwork));
  std::vector<int> iwork(static_cast<std::size_t>(liwork));
  syevd(&jobz, &uplo, &n, A.data(), &lda, w.data(), work.data(), &lwork, iwork.data(), &liwork, &info);
  check_info(info, "dsyevd");
  select_top(w, A, lower, max_count, values, vectors);  // A now holds the eigenvectors
}

// Householder reduction of Af (lower triangle) to the tridiagonal (d, e), in single precision.
void reduce_to_tridiagonal(Eigen::MatrixXf& Af, const MixedPrecisionLapack& lapack, Eigen::VectorXf& d,
                           Eigen::VectorXf& e, std::vector<float>& tau) {
  int n = static_cast<int>(Af.rows()), lda = n, lwork = -1, info = 0;
  char uplo = 'L';
  d.resize(n);
  e.setZero(std::max(n - 1, 1));
  tau.assign(static_cast<std::size_t>(std::max(n - 1, 1)), 0.0f);
  float query = 0.0f;
  lapack.ssytrd(&uplo, &n, Af.data(), &lda, d.data(), e.data(), tau.data(), &query, &lwork, &info);
  check_info(info, "ssytrd workspace query");
  lwork = std::max(1, static_cast<int>(query));
  std::vector<float> work(static_cast<std::size_t>(lwork));
  lapack.ssytrd(&uplo, &n, Af.data(), &lda, d.data(), e.data(), tau.data(), work.data(), &lwork, &info);
  check_info(info, "ssytrd");
}

// Every eigenpair of the tridiagonal (d, e) by divide and conquer: d becomes the ascending
// eigenvalues, Z the vectors. MRRR (dstemr) for only the wanted ones was slower: 4.6 s against
// 1.5 s for 2,256 of 6,414 pairs of the Adult-like problem, which has tight clusters.
void tridiagonal_pairs(Eigen::VectorXf& d, Eigen::VectorXf& e, const MixedPrecisionLapack& lapack,
                       Eigen::MatrixXf& Z) {
  int n = static_cast<int>(d.size()), ldz = n, lwork = -1, liwork = -1, iwork_query = 0, info = 0;
  char compz = 'I';
  float work_query = 0.0f;
  Z.resize(n, n);
  lapack.sstedc(&compz, &n, d.data(), e.data(), Z.data(), &ldz, &work_query, &lwork, &iwork_query, &liwork, &info);
  check_info(info, "sstedc workspace query");
  lwork = std::max(1, static_cast<int>(work_query));
  liwork = std::max(1, iwork_query);
  std::vector<float> work(static_cast<std::size_t>(lwork));
  std::vector<int> iwork(static_cast<std::size_t>(liwork));
  lapack.sstedc(&compz, &n, d.data(), e.data(), Z.data(), &ldz, work.data(), &lwork, iwork.data(), &liwork, &info);
  check_info(info, "sstedc");
}

// C = op(A)' op(B) or A B by BLAS (the core's Eigen is built for baseline x86-64 and one thread).
void gemm(const MixedPrecisionLapack& lapack, bool transpose_a, const Eigen::MatrixXd& A, const Eigen::MatrixXd& B,
          Eigen::MatrixXd& C) {
  char ta = transpose_a ? 'T' : 'N', tb = 'N';
  int m = static_cast<int>(transpose_a ? A.cols() : A.rows()), n = static_cast<int>(B.cols());
  int k = static_cast<int>(B.rows()), lda = static_cast<int>(std::max<Index>(1, A.rows()));
  int ldb = static_cast<int>(std::max<Index>(1, B.rows())), ldc = std::max(1, m);
  double one = 1.0, zero = 0.0;
  C.resize(m, n);
  if (m == 0 || n == 0) return;
  lapack.dgemm(&ta, &tb, &m, &n, &k, &one, const_cast<double*>(A.data()), &lda, const_cast<double*>(B.data()), &ldb,
               &zero, C.data(), &ldc);
}

// Rayleigh-Ritz in double on the span of V (orthonormal only to single precision): the pencil
// H s = theta G s with H = V'AV and G = V'V, then the Ritz vectors V s, ascending.
void rayleigh_ritz(const SymmetricOperator& op, const Eigen::MatrixXd& V, const MixedPrecisionLapack& lapack,
                   Eigen::VectorXd& theta, Eigen::MatrixXd& ritz) {
  int cols = static_cast<int>(V.cols()), itype = 1, lwork = -1, liwork = -1, iwork_query = 0, info = 0;
  char jobz = 'V', uplo = 'L';
  Eigen::MatrixXd AV(V.rows(), cols), H, G;
  op.apply(V, AV);
  gemm(lapack, true, V, AV, H);
  AV.resize(0, 0);
  gemm(lapack, true, V, V, G);
  H = (0.5 * (H + H.transpose())).eval();
  double work_query = 0.0;
  theta.resize(cols);
  lapack.dsygvd(&itype, &jobz, &uplo, &cols, H.data(), &cols, G.data(), &cols, theta.data(), &work_query, &lwork,
                &iwork_query, &liwork, &info);
  check_info(info, "dsygvd workspace query");
  lwork = std::max(1, static_cast<int>(work_query));
  liwork = std::max(1, iwork_query);
  std::vector<double> work(static_cast<std::size_t>(lwork));
  std::vector<int> iwork(static_cast<std::size_t>(liwork));
  lapack.dsygvd(&itype, &jobz, &uplo, &cols, H.data(), &cols, G.data(), &cols, theta.data(), work.data(), &lwork,
                iwork.data(), &liwork, &info);
  check_info(info, "dsygvd");  // info > cols: G not positive definite, i.e. V lost its rank
  gemm(lapack, false, V, H, ritz);
}

}  // namespace

void mixed_eigenpairs_above(Eigen::MatrixXf& Af, const SymmetricOperator& op, double lower, Index max_count,
                            const MixedPrecisionLapack& lapack, Eigen::VectorXd& values, Eigen::MatrixXd& vectors) {
  check_lapack_size(Af.rows());
  const Index n = Af.rows();
  Eigen::VectorXf d, e;
  std::vector<float> tau;
  reduce_to_tridiagonal(Af, lapack, d, e, tau);
  double norm = 0.0;  // Gershgorin bound on |T| = |A| (up to single-precision rounding)
  for (Index i = 0; i < n; ++i)
    norm = std::max<double>(norm, std::abs(d(i)) + (i + 1 < n ? std::abs(e(i)) : 0.0f) +
                                      (i > 0 ? std::abs(e(i - 1)) : 0.0f));
  Eigen::MatrixXf Z;
  tridiagonal_pairs(d, e, lapack, Z);
  // Single-precision eigenvalues are off by about sqrt(n) eps_single |A| (1e-5 |A| at n = 10^4):
  // pairs down to 10x that below `lower` enter the Rayleigh-Ritz step. With a cap, the top
  // max_count and some below them.
  const float from = static_cast<float>(lower - 1e-4 * norm);
  Index keep = 0;
  while (keep < n && d(n - 1 - keep) > from) ++keep;
  if (max_count > 0) keep = std::min(keep, max_count + std::max<Index>(8, max_count / 10));
  Eigen::MatrixXf Vf = Z.rightCols(keep);
  Z.resize(0, 0);
  int rows = static_cast<int>(n), cols = static_cast<int>(keep), lda = rows, info = 0, lwork = -1;
  if (cols == 0) {
    values.resize(0);
    vectors.resize(n, 0);
    return;
  }
  // Back to A's basis: V = Q Z, in single precision (only the kept columns).
  char side = 'L', uplo = 'L', trans = 'N';
  float query = 0.0f;
  lapack.sormtr(&side, &uplo, &trans, &rows, &cols, Af.data(), &lda, tau.data(), Vf.data(), &rows, &query, &lwork,
                &info);
  check_info(info, "sormtr workspace query");
  lwork = std::max(1, static_cast<int>(query));
  std::vector<float> work(static_cast<std::size_t>(lwork));
  lapack.sormtr(&side, &uplo, &trans, &rows, &cols, Af.data(), &lda, tau.data(), Vf.data(), &rows, work.data(),
                &lwork, &info);
  check_info(info, "sormtr");
  Af.resize(0, 0);  // the caller's copy: free it before the double-precision step
  Eigen::VectorXd theta;
  Eigen::MatrixXd ritz;
  rayleigh_ritz(op, Vf.cast<double>(), lapack, theta, ritz);
  select_top(theta, ritz, lower, max_count, values, vectors);
}

void dense_eigenpairs_above(Eigen::MatrixXd& A, double lower, Index max_count, SyevdFn syevd,
                            Eigen::VectorXd& values, Eigen::MatrixXd& vectors) {
  if (syevd) return with_lapack(A, lower, max_count, syevd, values, vectors);
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(A);
  if (eig.info() != Eigen::Success) throw std::runtime_error("dense eigensolver failed");
  select_top(eig.eigenvalues(), eig.eigenvectors(), lower, max_count, values, vectors);
}

}  // namespace kernlearn
