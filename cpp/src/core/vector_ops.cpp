#include "kernlearn/core/vector_ops.hpp"

#include <Eigen/Core>

#include "kernlearn/core/simd.hpp"

#ifdef KERNLEARN_X86_DISPATCH
#include <immintrin.h>
#endif

namespace kernlearn {

namespace {

using ConstVector = Eigen::Map<const Eigen::VectorXd>;

double dot_portable(const double* x, const double* y, Index n) { return ConstVector(x, n).dot(ConstVector(y, n)); }

void axpy_portable(double a, const double* x, double* y, Index n) {
  Eigen::Map<Eigen::VectorXd>(y, n) += a * ConstVector(x, n);
}

#ifdef KERNLEARN_X86_DISPATCH
// Four accumulators: the FMA latency, not the loads, bounds a single-accumulator dot product.
__attribute__((target("avx512f"))) double dot_avx512(const double* x, const double* y, Index n) {
  __m512d s0 = _mm512_setzero_pd(), s1 = _mm512_setzero_pd(), s2 = _mm512_setzero_pd(), s3 = _mm512_setzero_pd();
  Index i = 0;
  for (; i + 32 <= n; i += 32) {
    s0 = _mm512_fmadd_pd(_mm512_loadu_pd(x + i), _mm512_loadu_pd(y + i), s0);
    s1 = _mm512_fmadd_pd(_mm512_loadu_pd(x + i + 8), _mm512_loadu_pd(y + i + 8), s1);
    s2 = _mm512_fmadd_pd(_mm512_loadu_pd(x + i + 16), _mm512_loadu_pd(y + i + 16), s2);
    s3 = _mm512_fmadd_pd(_mm512_loadu_pd(x + i + 24), _mm512_loadu_pd(y + i + 24), s3);
  }
  for (; i + 8 <= n; i += 8) s0 = _mm512_fmadd_pd(_mm512_loadu_pd(x + i), _mm512_loadu_pd(y + i), s0);
  if (i < n) {
    const __mmask8 tail = static_cast<__mmask8>((1u << (n - i)) - 1u);
    s1 = _mm512_fmadd_pd(_mm512_maskz_loadu_pd(tail, x + i), _mm512_maskz_loadu_pd(tail, y + i), s1);
  }
  alignas(64) double lanes[8];  // (GCC 12 warns spuriously inside _mm512_reduce_add_pd)
  _mm512_store_pd(lanes, _mm512_add_pd(_mm512_add_pd(s0, s1), _mm512_add_pd(s2, s3)));
  return ((lanes[0] + lanes[1]) + (lanes[2] + lanes[3])) + ((lanes[4] + lanes[5]) + (lanes[6] + lanes[7]));
}

__attribute__((target("avx512f"))) void axpy_avx512(double a, const double* x, double* y, Index n) {
  const __m512d scale = _mm512_set1_pd(a);
  Index i = 0;
  for (; i + 8 <= n; i += 8)
    _mm512_storeu_pd(y + i, _mm512_fmadd_pd(scale, _mm512_loadu_pd(x + i), _mm512_loadu_pd(y + i)));
  if (i < n) {
    const __mmask8 tail = static_cast<__mmask8>((1u << (n - i)) - 1u);
    _mm512_mask_storeu_pd(
        y + i, tail, _mm512_fmadd_pd(scale, _mm512_maskz_loadu_pd(tail, x + i), _mm512_maskz_loadu_pd(tail, y + i)));
  }
}

__attribute__((target("avx2,fma"))) double dot_avx2(const double* x, const double* y, Index n) {
  __m256d s0 = _mm256_setzero_pd(), s1 = _mm256_setzero_pd(), s2 = _mm256_setzero_pd(), s3 = _mm256_setzero_pd();
  Index i = 0;
  for (; i + 16 <= n; i += 16) {
    s0 = _mm256_fmadd_pd(_mm256_loadu_pd(x + i), _mm256_loadu_pd(y + i), s0);
    s1 = _mm256_fmadd_pd(_mm256_loadu_pd(x + i + 4), _mm256_loadu_pd(y + i + 4), s1);
    s2 = _mm256_fmadd_pd(_mm256_loadu_pd(x + i + 8), _mm256_loadu_pd(y + i + 8), s2);
    s3 = _mm256_fmadd_pd(_mm256_loadu_pd(x + i + 12), _mm256_loadu_pd(y + i + 12), s3);
  }
  for (; i + 4 <= n; i += 4) s0 = _mm256_fmadd_pd(_mm256_loadu_pd(x + i), _mm256_loadu_pd(y + i), s0);
  const __m256d s = _mm256_add_pd(_mm256_add_pd(s0, s1), _mm256_add_pd(s2, s3));
  alignas(32) double lanes[4];
  _mm256_store_pd(lanes, s);
  double sum = (lanes[0] + lanes[1]) + (lanes[2] + lanes[3]);
  for (; i < n; ++i) sum += x[i] * y[i];
  return sum;
}

__attribute__((target("avx2,fma"))) void axpy_avx2(double a, const double* x, double* y, Index n) {
  const __m256d scale = _mm256_set1_pd(a);
  Index i = 0;
  for (; i + 4 <= n; i += 4)
    _mm256_storeu_pd(y + i, _mm256_fmadd_pd(scale, _mm256_loadu_pd(x + i), _mm256_loadu_pd(y + i)));
  for (; i < n; ++i) y[i] += a * x[i];
}
#endif

}  // namespace

double dot(const double* x, const double* y, Index n) {
#ifdef KERNLEARN_X86_DISPATCH
  switch (active_simd()) {
    case Simd::avx512:
      return dot_avx512(x, y, n);
    case Simd::avx2:
      return dot_avx2(x, y, n);
    case Simd::none:
      break;
  }
#endif
  return dot_portable(x, y, n);
}

void axpy(double a, const double* x, double* y, Index n) {
#ifdef KERNLEARN_X86_DISPATCH
  switch (active_simd()) {
    case Simd::avx512:
      return axpy_avx512(a, x, y, n);
    case Simd::avx2:
      return axpy_avx2(a, x, y, n);
    case Simd::none:
      break;
  }
#endif
  axpy_portable(a, x, y, n);
}

}  // namespace kernlearn
