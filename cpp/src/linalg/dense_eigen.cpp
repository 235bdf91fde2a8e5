#include "kernlearn/linalg/dense_eigen.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernlearn/core/solver_choice.hpp"
#include "kernlearn/core/symmetric_eigen.hpp"

namespace kernlearn {

namespace {

// Ascending eigenvalues w and their vectors Z (columns): keep the largest, above `lower`.
void select_top(const Eigen::Ref<const Eigen::VectorXd>& w, const Eigen::Ref<const Eigen::MatrixXd>& Z, double lower,
                Index max_count, Eigen::VectorXd& values, Eigen::MatrixXd& vectors) {
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

// max |a_ij| over the lower triangle of the column-major A; NaN when an entry there is NaN or
// infinite.
double lower_max_abs(const Eigen::MatrixXd& A) {
  double largest = 0.0;
  for (Index j = 0; j < A.cols(); ++j) {
    const double column = max_abs_entry(A.col(j).data() + j, A.rows() - j);
    if (std::isnan(column)) return column;
    largest = std::max(largest, column);
  }
  return largest;
}

// The power of two (safe_scale) that brings A's lower triangle into the range where LAPACK's
// Householder route neither overflows nor loses accuracy to underflow, applied to that
// triangle. (dsyevd scales so; dsytrd, which the route calls directly, does not.)
double scale_lower(Eigen::MatrixXd& A) {
  const double largest = lower_max_abs(A);
  if (std::isnan(largest)) throw std::invalid_argument("the matrix contains NaN or infinity");
  const double scale = safe_scale(largest);
  if (scale != 1.0)
    for (Index j = 0; j < A.cols(); ++j) A.col(j).tail(A.rows() - j) *= scale;
  return scale;
}

void check_info(int info, const char* routine) {
  if (info != 0) throw std::runtime_error(std::string(routine) + " failed, info = " + std::to_string(info));
}

// LAPACK reports workspace sizes in the matrix's precision: a float cannot hold 1 + 4n + n^2
// exactly from n = 4096 on, so round up with room to spare.
int workspace_size(double query) { return std::max(1, static_cast<int>(std::ceil(query * (1.0 + 1e-6))) + 1); }

void check_interrupt(const InterruptPoll& poll) {
  if (poll && poll()) throw Interrupted();
}

// xsytrd's panel width and the order below which it reduces unblocked (ILAENV's values for
// xSYTRD): the loop below is xsytrd's own, so the result is the same.
constexpr int kPanel = 32, kUnblocked = 32;

// Householder reduction of A (lower triangle) to the tridiagonal (d, e); A keeps the reflectors.
// With the panel routines, xsytrd's blocked loop runs here and polls between panels (one xsytrd
// call at n = 3000 takes seconds); without them, one xsytrd call.
template <class T>
void reduce_to_tridiagonal(Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>& A, const HouseholderRoutines<T>& lapack,
                           Eigen::Matrix<T, Eigen::Dynamic, 1>& d, Eigen::Matrix<T, Eigen::Dynamic, 1>& e,
                           std::vector<T>& tau, const InterruptPoll& poll) {
  int n = static_cast<int>(A.rows()), lda = std::max(n, 1), lwork = -1, info = 0;
  char uplo = 'L';
  d.resize(n);
  e.setZero(n);  // n - 1 entries, and the workspace entry dstemr wants
  tau.assign(static_cast<std::size_t>(std::max(n - 1, 1)), T(0));
  if (lapack.panels_available() && n > kUnblocked + kPanel) {
    char no_transpose = 'N';
    int nb = kPanel, ldw = n, i = 0;
    T minus_one = -1, one = 1;
    std::vector<T> work(static_cast<std::size_t>(n) * static_cast<std::size_t>(nb));
    const auto at = [&](int row, int col) { return A.data() + static_cast<std::ptrdiff_t>(col) * lda + row; };
    for (; i < n - kUnblocked; i += nb) {
      int rows = n - i, rest = n - i - nb;
      lapack.latrd(&uplo, &rows, &nb, at(i, i), &lda, e.data() + i, tau.data() + i, work.data(), &ldw);
      lapack.syr2k(&uplo, &no_transpose, &rest, &nb, &minus_one, at(i + nb, i), &lda, work.data() + nb, &ldw, &one,
                   at(i + nb, i + nb), &lda);
      for (int j = i; j < i + nb; ++j) {
        *at(j + 1, j) = e(j);
        d(j) = *at(j, j);
      }
      check_interrupt(poll);
    }
    int rows = n - i;
    lapack.sytd2(&uplo, &rows, at(i, i), &lda, d.data() + i, e.data() + i, tau.data() + i, &info);
    check_info(info, "xsytd2");
    return;
  }
  T query = 0;
  lapack.sytrd(&uplo, &n, A.data(), &lda, d.data(), e.data(), tau.data(), &query, &lwork, &info);
  check_info(info, "xsytrd workspace query");
  lwork = workspace_size(query);
  std::vector<T> work(static_cast<std::size_t>(lwork));
  lapack.sytrd(&uplo, &n, A.data(), &lda, d.data(), e.data(), tau.data(), work.data(), &lwork, &info);
  check_info(info, "xsytrd");
  check_interrupt(poll);
}

// Every eigenpair of the tridiagonal (d, e) by divide and conquer: d becomes the ascending
// eigenvalues, Z the vectors. (MRRR was slower for many pairs on tightly clustered spectra:
// bench/results/eigsh.md.)
template <class T>
void all_tridiagonal_pairs(Eigen::Matrix<T, Eigen::Dynamic, 1>& d, Eigen::Matrix<T, Eigen::Dynamic, 1>& e,
                           const HouseholderRoutines<T>& lapack, Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>& Z) {
  int n = static_cast<int>(d.size()), ldz = n, lwork = -1, liwork = -1, iwork_query = 0, info = 0;
  char compz = 'I';
  T work_query = 0;
  Z.resize(n, n);
  lapack.stedc(&compz, &n, d.data(), e.data(), Z.data(), &ldz, &work_query, &lwork, &iwork_query, &liwork, &info);
  check_info(info, "xstedc workspace query");
  lwork = workspace_size(work_query);
  liwork = std::max(1, iwork_query);
  std::vector<T> work(static_cast<std::size_t>(lwork));
  std::vector<int> iwork(static_cast<std::size_t>(liwork));
  lapack.stedc(&compz, &n, d.data(), e.data(), Z.data(), &ldz, work.data(), &lwork, iwork.data(), &liwork, &info);
  check_info(info, "xstedc");
}

// The top `count` pairs of the tridiagonal (d, e) by MRRR, ascending (d, e destroyed); false
// when MRRR fails (it may on extreme clusters), and the caller falls back to divide and conquer.
bool top_tridiagonal_pairs(Eigen::VectorXd& d, Eigen::VectorXd& e, Index count, const DenseLapack& lapack,
                           Eigen::VectorXd& w, Eigen::MatrixXd& Z) {
  int n = static_cast<int>(d.size()), il = n - static_cast<int>(count) + 1, iu = n, m = 0, ldz = n;
  int nzc = static_cast<int>(count), tryrac = 0, lwork = -1, liwork = -1, iwork_query = 0, info = 0;
  char jobz = 'V', range = 'I';
  double vl = 0.0, vu = 0.0, work_query = 0.0;
  w.resize(n);
  Z.resize(n, count);
  std::vector<int> isuppz(2 * static_cast<std::size_t>(count));
  lapack.dstemr(&jobz, &range, &n, d.data(), e.data(), &vl, &vu, &il, &iu, &m, w.data(), Z.data(), &ldz, &nzc,
                isuppz.data(), &tryrac, &work_query, &lwork, &iwork_query, &liwork, &info);
  check_info(info, "dstemr workspace query");
  lwork = workspace_size(work_query);
  liwork = std::max(1, iwork_query);
  std::vector<double> work(static_cast<std::size_t>(lwork));
  std::vector<int> iwork(static_cast<std::size_t>(liwork));
  lapack.dstemr(&jobz, &range, &n, d.data(), e.data(), &vl, &vu, &il, &iu, &m, w.data(), Z.data(), &ldz, &nzc,
                isuppz.data(), &tryrac, work.data(), &lwork, iwork.data(), &liwork, &info);
  if (info != 0) return false;
  w.conservativeResize(m);
  Z.conservativeResize(n, m);
  return true;
}

// V = Q V for the reflectors A and tau of reduce_to_tridiagonal, V the last `count` columns of
// the n-row Z (only those are touched). xormtr's workspace query leaves out the block-reflector
// room (65 x 64) that xormqr wants for its blocked path; below n of about 130 xormqr then falls
// back to the unblocked one, one reflector at a time; the room keeps it blocked
// (bench/results/eigsh.md).
constexpr int kBlockReflectorRoom = 65 * 64;
template <class T>
void back_transform(Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>& A, std::vector<T>& tau,
                    const HouseholderRoutines<T>& lapack, Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>& Z,
                    Index count, const InterruptPoll& poll) {
  // Columns are transformed independently: blocks of them, polling in between.
  constexpr Index kColumnBlock = 256;
  int rows = static_cast<int>(A.rows()), lda = std::max(rows, 1), info = 0, lwork = -1;
  if (count == 0) return;
  T* V = Z.data() + (Z.cols() - count) * Z.rows();
  char side = 'L', uplo = 'L', trans = 'N';
  int cols = static_cast<int>(std::min(count, kColumnBlock));
  T query = 0;
  lapack.ormtr(&side, &uplo, &trans, &rows, &cols, A.data(), &lda, tau.data(), V, &lda, &query, &lwork, &info);
  check_info(info, "xormtr workspace query");
  lwork = workspace_size(query) + kBlockReflectorRoom;
  std::vector<T> work(static_cast<std::size_t>(lwork));
  for (Index first = 0; first < count; first += kColumnBlock) {
    cols = static_cast<int>(std::min(count - first, kColumnBlock));
    lapack.ormtr(&side, &uplo, &trans, &rows, &cols, A.data(), &lda, tau.data(), V + first * Z.rows(), &lda,
                 work.data(), &lwork, &info);
    check_info(info, "xormtr");
    check_interrupt(poll);
  }
}

// Rayleigh-Ritz in double on the span of V (orthonormal only to single precision): the pencil
// H s = theta G s with H = V'AV and G = V'V, then the Ritz vectors V s, ascending.
void rayleigh_ritz(const LinearOperator& op, const Eigen::MatrixXd& V, const DenseLapack& lapack,
                   Eigen::VectorXd& theta, Eigen::MatrixXd& ritz) {
  int cols = static_cast<int>(V.cols()), itype = 1, lwork = -1, liwork = -1, iwork_query = 0, info = 0;
  char jobz = 'V', uplo = 'L';
  Eigen::MatrixXd AV(V.rows(), cols), H, G;
  op.apply(V, AV);
  gemm(lapack, true, false, V, AV, H);
  AV.resize(0, 0);
  {  // G = V'V, lower triangle only (all dsygvd reads): half a GEMM
    char lower = 'L', trans = 'T';
    int rows = static_cast<int>(V.rows()), lda = std::max(1, rows);
    double one = 1.0, zero = 0.0;
    G.setZero(cols, cols);
    lapack.dsyrk(&lower, &trans, &cols, &rows, &one, const_cast<double*>(V.data()), &lda, &zero, G.data(), &cols);
  }
  H = (0.5 * (H + H.transpose())).eval();
  double work_query = 0.0;
  theta.resize(cols);
  lapack.dsygvd(&itype, &jobz, &uplo, &cols, H.data(), &cols, G.data(), &cols, theta.data(), &work_query, &lwork,
                &iwork_query, &liwork, &info);
  check_info(info, "dsygvd workspace query");
  lwork = workspace_size(work_query);
  liwork = std::max(1, iwork_query);
  std::vector<double> work(static_cast<std::size_t>(lwork));
  std::vector<int> iwork(static_cast<std::size_t>(liwork));
  lapack.dsygvd(&itype, &jobz, &uplo, &cols, H.data(), &cols, G.data(), &cols, theta.data(), work.data(), &lwork,
                iwork.data(), &liwork, &info);
  check_info(info, "dsygvd");  // info > cols: G not positive definite, i.e. V lost its rank
  gemm(lapack, false, false, V, H, ritz);
}

// The number of eigenvalues of the tridiagonal (d, e) above x: n minus the negative pivots of
// the LDL' factorisation of T - x I (Sturm's count, as in LAPACK's bisection, O(n)).
Index count_above(const Eigen::VectorXd& d, const Eigen::VectorXd& e, double x) {
  const Index n = d.size();
  double pivmin = std::numeric_limits<double>::min();
  for (Index i = 0; i + 1 < n; ++i) pivmin = std::max(pivmin, e(i) * e(i) * std::numeric_limits<double>::min());
  Index negative = 0;
  double q = 1.0;
  for (Index i = 0; i < n; ++i) {
    q = d(i) - x - (i > 0 ? e(i - 1) * e(i - 1) / q : 0.0);
    if (std::abs(q) < pivmin) q = -pivmin;
    negative += q < 0.0;
  }
  return n - negative;
}

// The Householder route in double: Sturm's count gives the number p of wanted pairs; T's pairs
// by MRRR for p <= solver_choice::kMrrrFraction n, by divide and conquer otherwise; only p vectors transformed
// back.
void exact_route(Eigen::MatrixXd& A, double lower, Index max_count, const DenseLapack& lapack, Eigen::VectorXd& values,
                 Eigen::MatrixXd& vectors, const InterruptPoll& poll) {
  const Index n = A.rows();
  Eigen::VectorXd d, e, w;
  std::vector<double> tau;
  reduce_to_tridiagonal(A, lapack.exact, d, e, tau, poll);
  Index wanted = count_above(d, e, lower);
  if (max_count > 0) wanted = std::min(wanted, max_count);
  if (wanted == 0) {
    values.resize(0);
    vectors.resize(n, 0);
    return;
  }
  Eigen::MatrixXd Z;
  const bool few = static_cast<double>(wanted) <= solver_choice::kMrrrFraction * static_cast<double>(n);
  if (few) {
    Eigen::VectorXd d_mrrr = d, e_mrrr = e;  // MRRR destroys them; divide and conquer may need them
    if (top_tridiagonal_pairs(d_mrrr, e_mrrr, wanted, lapack, w, Z)) {
      check_interrupt(poll);
      back_transform(A, tau, lapack.exact, Z, Z.cols(), poll);
      select_top(w, Z, lower, max_count, values, vectors);
      return;
    }
  }
  all_tridiagonal_pairs(d, e, lapack.exact, Z);
  check_interrupt(poll);
  back_transform(A, tau, lapack.exact, Z, wanted, poll);
  select_top(d.tail(wanted), Z.rightCols(wanted), lower, max_count, values, vectors);
}

}  // namespace

void gemm(const DenseLapack& lapack, bool transpose_a, bool transpose_b, const Eigen::MatrixXd& A,
          const Eigen::MatrixXd& B, Eigen::MatrixXd& C) {
  if (!lapack.dgemm) {
    if (transpose_a && transpose_b)
      C.noalias() = A.transpose() * B.transpose();
    else if (transpose_a)
      C.noalias() = A.transpose() * B;
    else if (transpose_b)
      C.noalias() = A * B.transpose();
    else
      C.noalias() = A * B;
    return;
  }
  char ta = transpose_a ? 'T' : 'N', tb = transpose_b ? 'T' : 'N';
  int m = static_cast<int>(transpose_a ? A.cols() : A.rows()), n = static_cast<int>(transpose_b ? B.rows() : B.cols());
  int k = static_cast<int>(transpose_a ? A.rows() : A.cols()), lda = static_cast<int>(std::max<Index>(1, A.rows()));
  int ldb = static_cast<int>(std::max<Index>(1, B.rows())), ldc = std::max(1, m);
  double one = 1.0, zero = 0.0;
  C.resize(m, n);
  if (m == 0 || n == 0) return;
  lapack.dgemm(&ta, &tb, &m, &n, &k, &one, const_cast<double*>(A.data()), &lda, const_cast<double*>(B.data()), &ldb,
               &zero, C.data(), &ldc);
}

namespace {
bool mixed_in_range(Eigen::MatrixXd& A, const LinearOperator& op, double lower, Index max_count,
                    const DenseLapack& lapack, Eigen::VectorXd& values, Eigen::MatrixXd& vectors,
                    const InterruptPoll& poll);
}  // namespace

bool mixed_eigenpairs_above(Eigen::MatrixXd& A, const LinearOperator& op, double lower, Index max_count,
                            const DenseLapack& lapack, Eigen::VectorXd& values, Eigen::MatrixXd& vectors,
                            const InterruptPoll& poll) {
  check_lapack_size(A.rows());
  // In double, A and the operator are scaled as on the exact route; the single-precision copy is
  // scaled to |A|_max about 1 (float overflows at 3e38), and `lower` with each.
  const double scale = scale_lower(A);
  const ScaledOperator scaled_op(op, scale);
  const bool mixed =
      mixed_in_range(A, scale == 1.0 ? op : scaled_op, lower * scale, max_count, lapack, values, vectors, poll);
  if (scale != 1.0) values *= 1.0 / scale;
  return mixed;
}

namespace {

bool mixed_in_range(Eigen::MatrixXd& A, const LinearOperator& op, double lower, Index max_count,
                    const DenseLapack& lapack, Eigen::VectorXd& values, Eigen::MatrixXd& vectors,
                    const InterruptPoll& poll) {
  const Index n = A.rows();
  const double largest = lower_max_abs(A);
  const double single_scale = largest > 0.0 ? std::ldexp(1.0, -std::ilogb(largest)) : 1.0;
  lower *= single_scale;
  Eigen::MatrixXf Af = (single_scale * A).cast<float>();
  Eigen::VectorXf d, e;
  std::vector<float> tau;
  reduce_to_tridiagonal(Af, lapack.single, d, e, tau, poll);
  double norm = 0.0;  // Gershgorin bound on |T| = |A| (up to single-precision rounding)
  for (Index i = 0; i < n; ++i)
    norm = std::max<double>(norm, std::abs(d(i)) + std::abs(e(i)) + (i > 0 ? std::abs(e(i - 1)) : 0.0f));
  Eigen::MatrixXf Z;
  all_tridiagonal_pairs(d, e, lapack.single, Z);
  check_interrupt(poll);
  // Single-precision eigenvalues are off by about sqrt(n) eps_single |A| (1e-5 |A| at n = 10^4):
  // pairs down to 10x that below `lower` enter the Rayleigh-Ritz step. With a cap, the top
  // max_count and some below them.
  const float from = static_cast<float>(lower - 1e-4 * norm);
  Index keep = 0;
  while (keep < n && d(n - 1 - keep) > from) ++keep;
  if (max_count > 0) keep = std::min(keep, max_count + std::max<Index>(8, max_count / 10));
  if (static_cast<double>(keep) > solver_choice::kMixedMaxFraction * static_cast<double>(n)) {
    Z.resize(0, 0);
    Af.resize(0, 0);
    exact_route(A, lower / single_scale, max_count, lapack, values, vectors, poll);
    return false;
  }
  A.resize(0, 0);
  if (keep == 0) {
    values.resize(0);
    vectors.resize(n, 0);
    return true;
  }
  Eigen::MatrixXf Vf = Z.rightCols(keep);
  Z.resize(0, 0);
  back_transform(Af, tau, lapack.single, Vf, keep, poll);
  Af.resize(0, 0);
  Eigen::VectorXd theta;
  Eigen::MatrixXd ritz;
  {
    const Eigen::MatrixXd V = Vf.cast<double>();
    Vf.resize(0, 0);
    rayleigh_ritz(op, V, lapack, theta, ritz);
  }
  select_top(theta, ritz, lower / single_scale, max_count, values, vectors);
  return true;
}

}  // namespace

void dense_eigenpairs_above(Eigen::MatrixXd& A, double lower, Index max_count, const DenseLapack& lapack,
                            Eigen::VectorXd& values, Eigen::MatrixXd& vectors, const InterruptPoll& poll) {
  check_lapack_size(A.rows());
  const double scale = scale_lower(A);
  lower *= scale;
  if (lapack.exact_available()) {
    exact_route(A, lower, max_count, lapack, values, vectors, poll);
  } else {
    Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(A);
    if (eig.info() != Eigen::Success) throw std::runtime_error("dense eigensolver failed");
    select_top(eig.eigenvalues(), eig.eigenvectors(), lower, max_count, values, vectors);
  }
  if (scale != 1.0) values *= 1.0 / scale;
  if (!values.allFinite()) throw std::invalid_argument("the matrix's eigenvalues overflow double precision");
}

}  // namespace kernlearn
