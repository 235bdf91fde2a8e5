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

#ifdef KERNLEARN_X86_DISPATCH
#include <immintrin.h>
#endif

namespace kernlearn {

namespace {

constexpr Index kRowBlock = 32;  // rows of out per parallel_for chunk

// Row i of k(X, Y): the distances are accumulated feature by feature over Y's columns (Yt is Y
// transposed, so the inner loop runs over contiguous memory and vectorises).
template <class Scalar>
void kernel_row(const double* x, const RowMatrixXd& Yt, const PairwiseKernel& kernel, double* dist, Scalar* out) {
  const Index m = Yt.cols();
  std::fill(dist, dist + m, 0.0);
  for (Index f = 0; f < Yt.rows(); ++f) {
    const double xf = x[f];
    const double* yf = Yt.data() + f * m;
    if (kernel.kind == PairwiseKind::tl1) {
      for (Index j = 0; j < m; ++j) dist[j] += std::abs(xf - yf[j]);
    } else {
      for (Index j = 0; j < m; ++j) {
        const double d = xf - yf[j];
        dist[j] += d * d;
      }
    }
  }
  if (kernel.kind == PairwiseKind::tl1) {
    for (Index j = 0; j < m; ++j) out[j] = static_cast<Scalar>(std::max(kernel.tau - dist[j], 0.0));
  } else {
    for (Index j = 0; j < m; ++j) out[j] = static_cast<Scalar>(std::exp(-kernel.gamma * dist[j]));
  }
}

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
  if (!X.allFinite() || !Y.allFinite()) throw std::invalid_argument("pairwise_kernel: X and Y must be finite");
  // Both fields are checked whatever the kind: a garbage value is a caller's error either way.
  if (!(kernel.tau > 0.0 && std::isfinite(kernel.tau)))
    throw std::invalid_argument("pairwise_kernel: tau must be finite and > 0");
  if (!(kernel.gamma >= 0.0 && std::isfinite(kernel.gamma)))
    throw std::invalid_argument("pairwise_kernel: gamma must be finite and >= 0");
  const RowMatrixXd Yt = Y.transpose();
  const Index n = X.rows(), m = Y.rows();
  parallel_for(
      static_cast<std::size_t>(n), n_threads, kRowBlock,
      [&](std::size_t begin, std::size_t end) {
        std::vector<double> dist(static_cast<std::size_t>(m));
        for (std::size_t i = begin; i < end; ++i)
          kernel_row(X.row(static_cast<Index>(i)).data(), Yt, kernel, dist.data(),
                     out + i * static_cast<std::size_t>(m));
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
void DenseKernel<Scalar>::multiply(const double* x, double* y, ThreadTeam& team) const {
  const bool avx2 = active_simd() != Simd::none;
  const Index n = n_;
  // Rows in blocks of kRowBlock, claimed dynamically (thread_team.hpp).
  team.for_each((n + kRowBlock - 1) / kRowBlock, [&](int, Index b) {
    const Index first = b * kRowBlock, last = std::min(n, first + kRowBlock);
    for (Index i = first; i < last; ++i) y[i] = row_dot(row(i), x, n, avx2);
  });
}

template void pairwise_kernel<float>(const MatrixRef&, const MatrixRef&, const PairwiseKernel&, float*, int,
                                     const InterruptPoll&);
template void pairwise_kernel<double>(const MatrixRef&, const MatrixRef&, const PairwiseKernel&, double*, int,
                                      const InterruptPoll&);
template class DenseKernel<float>;
template class DenseKernel<double>;

}  // namespace kernlearn
