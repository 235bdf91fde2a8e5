#include "kernlearn/kernels/kernel_matrix.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include "kernlearn/core/simd.hpp"
#include "kernlearn/core/symmetric_eigen.hpp"
#include "kernlearn/core/vector_ops.hpp"
#include "kernlearn/kernels/kernel_operator.hpp"
#include "kernlearn/kernels/kernel_rows.hpp"

#ifdef KERNLEARN_X86_DISPATCH
#include <immintrin.h>
#endif

namespace kernlearn {

namespace {

constexpr Index kRowBlock = 32;  // rows of out per parallel_for chunk

// DenseKernel::apply: blocks of 2 up to this many columns by one SIMD pass per row of K (each entry
// read once, every column at a time), wider ones by Eigen's GEMM, which packs K first and wins
// once the arithmetic dominates. Figures: bench/results/kernel_operator.md, "Stored kernel".
constexpr Index kRowDotsMaxCols = 8;

double dot_plain(const float* a, const double* x, Index n) {
  double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  Index j = 0;
  for (; j + 4 <= n; j += 4) {
    s0 += static_cast<double>(a[j]) * x[j];
    s1 += static_cast<double>(a[j + 1]) * x[j + 1];
    s2 += static_cast<double>(a[j + 2]) * x[j + 2];
    s3 += static_cast<double>(a[j + 3]) * x[j + 3];
  }
  for (; j < n; ++j) s0 += static_cast<double>(a[j]) * x[j];
  return (s0 + s1) + (s2 + s3);
}

#ifdef KERNLEARN_X86_DISPATCH
__attribute__((target("avx2,fma"))) double hsum_avx2(__m256d v) {
  const __m128d lo = _mm256_castpd256_pd128(v), hi = _mm256_extractf128_pd(v, 1);
  const __m128d s = _mm_add_pd(lo, hi);
  return _mm_cvtsd_f64(_mm_add_sd(s, _mm_unpackhi_pd(s, s)));
}

// Float row times double vector: each 8 floats widen to two 4-double registers; four
// accumulators hide the FMA latency.
__attribute__((target("avx2,fma"))) double dot_avx2(const float* a, const double* x, Index n) {
  __m256d s0 = _mm256_setzero_pd(), s1 = _mm256_setzero_pd(), s2 = _mm256_setzero_pd(), s3 = _mm256_setzero_pd();
  Index j = 0;
  for (; j + 16 <= n; j += 16) {
    const __m256 a0 = _mm256_loadu_ps(a + j), a1 = _mm256_loadu_ps(a + j + 8);
    s0 = _mm256_fmadd_pd(_mm256_cvtps_pd(_mm256_castps256_ps128(a0)), _mm256_loadu_pd(x + j), s0);
    s1 = _mm256_fmadd_pd(_mm256_cvtps_pd(_mm256_extractf128_ps(a0, 1)), _mm256_loadu_pd(x + j + 4), s1);
    s2 = _mm256_fmadd_pd(_mm256_cvtps_pd(_mm256_castps256_ps128(a1)), _mm256_loadu_pd(x + j + 8), s2);
    s3 = _mm256_fmadd_pd(_mm256_cvtps_pd(_mm256_extractf128_ps(a1, 1)), _mm256_loadu_pd(x + j + 12), s3);
  }
  double s = hsum_avx2(_mm256_add_pd(_mm256_add_pd(s0, s1), _mm256_add_pd(s2, s3)));
  for (; j < n; ++j) s += static_cast<double>(a[j]) * x[j];
  return s;
}
#endif

double row_dot(const float* a, const double* x, Index n, bool avx2) {
#ifdef KERNLEARN_X86_DISPATCH
  if (avx2) return dot_avx2(a, x, n);
#endif
  (void)avx2;
  return dot_plain(a, x, n);
}

double row_dot(const double* a, const double* x, Index n, bool) { return dot(a, x, n); }

}  // namespace

template <class Scalar>
void pairwise_kernel(const MatrixRef& X, const MatrixRef& Y, const PairwiseKernel& kernel, Scalar* out, int n_threads,
                     const InterruptPoll& poll) {
  if (X.cols() != Y.cols()) throw std::invalid_argument("pairwise_kernel: X and Y need the same number of features");
  check_pairwise_kernel(kernel, X, "X");
  check_pairwise_kernel(kernel, Y, "Y");
  const Index n = X.rows(), m = Y.rows(), d = X.cols(), ld = padded(m);
  const RowMatrixXd panel = feature_panel<double>(Y, Eigen::RowVectorXd());
  parallel_for(
      static_cast<std::size_t>(n), n_threads, kRowBlock,
      [&](std::size_t begin, std::size_t end) {
        std::vector<double> row(static_cast<std::size_t>(ld));
        Eigen::RowVectorXd x(d);
        for (std::size_t i = begin; i < end; ++i) {
          x = X.row(static_cast<Index>(i));
          kernel_row(kernel, 0.0, x.data(), panel.data(), ld, m, d, row.data());
          Scalar* dst = out + i * static_cast<std::size_t>(m);
          for (Index j = 0; j < m; ++j) dst[j] = static_cast<Scalar>(row[static_cast<std::size_t>(j)]);
        }
      },
      poll);
}

namespace {

// Rows [begin, end) of the affine-invariant kernel; D is the matrix size when known at compile time
// (the 9 x 9 covariance descriptors: fixed-size Eigen types run the eigensolver without heap
// allocation, faster: bench/results/iklr.md), Eigen::Dynamic otherwise, where M is an
// Eigen::MatrixXd so that the eigensolver is the one compiled once (core/symmetric_eigen.hpp).
template <int D>
void affine_invariant_rows(const double* W, const double* T, Index n_t, Index d, double gamma, bool same, double* out,
                           std::size_t begin, std::size_t end) {
  using Map = Eigen::Map<const Eigen::Matrix<double, D, D, Eigen::RowMajor>>;
  using Matrix = std::conditional_t<D == Eigen::Dynamic, Eigen::MatrixXd, Eigen::Matrix<double, D, D, Eigen::RowMajor>>;
  const std::size_t dd = static_cast<std::size_t>(d * d), row_len = static_cast<std::size_t>(n_t);
  Eigen::SelfAdjointEigenSolver<Matrix> solver(d);
  Matrix M(d, d);
  for (std::size_t i = begin; i < end; ++i) {
    const Map Wi(W + i * dd, d, d);
    for (std::size_t j = same ? i : 0; j < row_len; ++j) {
      M.noalias() = Wi * Map(T + j * dd, d, d) * Wi;
      solver.compute(M, Eigen::EigenvaluesOnly);
      double d2 = 0.0;
      for (Index k = 0; k < d; ++k) {
        // Rounding can leave a tiny non-positive eigenvalue of an ill-conditioned pair: the
        // distance is then huge and the kernel 0, not NaN.
        const double l = std::log(std::max(solver.eigenvalues()[k], std::numeric_limits<double>::min()));
        d2 += l * l;
      }
      out[i * row_len + j] = std::exp(-gamma * d2);
    }
  }
}

}  // namespace

void affine_invariant_kernel(const double* W, Index n_w, const double* T, Index n_t, Index d, double gamma, bool same,
                             double* out, int n_threads, const InterruptPoll& poll) {
  if (n_w < 0 || n_t < 0 || d < 1)
    throw std::invalid_argument("affine_invariant_kernel: W and T must be (n, d, d), d >= 1");
  if (same && n_w != n_t) throw std::invalid_argument("affine_invariant_kernel: same=True needs as many W as T");
  if (!(gamma >= 0.0 && std::isfinite(gamma)))
    throw std::invalid_argument("affine_invariant_kernel: gamma must be finite and >= 0");
  const std::size_t dd = static_cast<std::size_t>(d * d);
  for (std::size_t e = 0; e < static_cast<std::size_t>(n_w) * dd; ++e)
    if (!std::isfinite(W[e])) throw std::invalid_argument("affine_invariant_kernel: W must be finite");
  for (std::size_t e = 0; e < static_cast<std::size_t>(n_t) * dd; ++e)
    if (!std::isfinite(T[e])) throw std::invalid_argument("affine_invariant_kernel: T must be finite");
  parallel_for(
      static_cast<std::size_t>(n_w), n_threads, 4,
      [&](std::size_t begin, std::size_t end) {
        if (d == 9)
          affine_invariant_rows<9>(W, T, n_t, d, gamma, same, out, begin, end);
        else
          affine_invariant_rows<Eigen::Dynamic>(W, T, n_t, d, gamma, same, out, begin, end);
      },
      poll);
  const std::size_t row_len = static_cast<std::size_t>(n_t);
  if (same)
    for (std::size_t i = 0; i < row_len; ++i)
      for (std::size_t j = 0; j < i; ++j) out[i * row_len + j] = out[j * row_len + i];
  for (std::size_t e = 0; e < static_cast<std::size_t>(n_w) * row_len; ++e)
    if (!std::isfinite(out[e]))
      throw std::invalid_argument(
          "affine_invariant_kernel: W and T are beyond double precision's range together; rescale them "
          "(kernlearn.kernels.affine_invariant_kernel does)");
}

template <class Scalar>
void DenseKernel<Scalar>::multiply(const double* x, double* y) const {
  const bool avx2 = active_simd() != Simd::none;
  const Index n = n_;
  // Rows in blocks of kRowBlock, claimed dynamically (thread_team.hpp).
  team_.for_each((n + kRowBlock - 1) / kRowBlock, [&](int, Index b) {
    const Index first = b * kRowBlock, last = std::min(n, first + kRowBlock);
    for (Index i = first; i < last; ++i) y[i] = row_dot(row(i), x, n, avx2);
  });
}

template <class Scalar>
void DenseKernel<Scalar>::apply(const Eigen::Ref<const Eigen::MatrixXd>& X, Eigen::Ref<Eigen::MatrixXd> Y) const {
  const Index blocks = std::max<Index>(1, std::min<Index>(8 * team_.size(), n_ / 256));
  if constexpr (std::is_same_v<Scalar, double>) {
    if (X.cols() > kRowDotsMaxCols) {  // a wide block: Eigen's GEMM on row blocks of the team
      const Eigen::Map<const RowMatrixXd> K(data_, n_, n_);
      team_.for_each(blocks, [&](int, Index b) {
        const Index first = n_ * b / blocks, last = n_ * (b + 1) / blocks;
        Y.middleRows(first, last - first).noalias() = K.middleRows(first, last - first) * X;
      });
      return;
    }
  }
  if (X.cols() > 1) {             // a narrow block (or float K): one pass over K, each entry for every column
    const Eigen::MatrixXd V = X;  // column-major: contiguous columns
    RowMatrixXd out = RowMatrixXd::Zero(n_, X.cols());
    team_.for_each(blocks, [&](int, Index b) {
      for (Index i = n_ * b / blocks; i < n_ * (b + 1) / blocks; ++i)
        row_dots(row(i), n_, V.data(), n_, V.cols(), out.data() + i * V.cols());
    });
    Y = out;
    return;
  }
  Eigen::VectorXd x(n_), y(n_);
  for (Index c = 0; c < X.cols(); ++c) {
    x = X.col(c);
    multiply(x.data(), y.data());
    Y.col(c) = y;
  }
}

template <class Scalar>
void DenseKernel<Scalar>::column(Index j, Eigen::Ref<Eigen::VectorXd> out) const {
  const Scalar* r = row(j);
  for (Index i = 0; i < n_; ++i) out[i] = static_cast<double>(r[i]);
}

template <class Scalar>
Eigen::VectorXd DenseKernel<Scalar>::diagonal() const {
  Eigen::VectorXd out(n_);
  for (Index i = 0; i < n_; ++i) out[i] = static_cast<double>(row(i)[i]);
  return out;
}

template <class Scalar>
double DenseKernel<Scalar>::max_abs() const {
  if (!all_finite()) return std::numeric_limits<double>::quiet_NaN();
  double largest = 0.0;
  for (Index i = 0; i < n_; ++i)
    for (Index j = 0; j < n_; ++j) largest = std::max(largest, std::abs(static_cast<double>(row(i)[j])));
  return largest;
}

template <class Scalar>
bool DenseKernel<Scalar>::all_finite() const {
  for (Index i = 0; i < n_; ++i) {
    const Scalar* r = row(i);
    for (Index j = 0; j < n_; ++j)
      if (!std::isfinite(r[j])) return false;
  }
  return true;
}

template void pairwise_kernel<float>(const MatrixRef&, const MatrixRef&, const PairwiseKernel&, float*, int,
                                     const InterruptPoll&);
template void pairwise_kernel<double>(const MatrixRef&, const MatrixRef&, const PairwiseKernel&, double*, int,
                                      const InterruptPoll&);
template class DenseKernel<float>;
template class DenseKernel<double>;

}  // namespace kernlearn
