#include "kernlearn/kernels/kernel_rows.hpp"

#include <algorithm>
#include <cmath>

#include "kernlearn/core/simd.hpp"

#ifdef KERNLEARN_X86_DISPATCH
#include <immintrin.h>
#endif

namespace kernlearn {

#ifdef KERNLEARN_X86_DISPATCH

// clang-format off
// GCC 12's plain forms of max, scalef, roundscale, cvtps_pd and the lane extractions start from an
// undefined register and trip -Wmaybe-uninitialized; their zero-masked forms with a full mask are
// the same instructions without it.
namespace isa_avx512 {
#define KL_TARGET __attribute__((target("avx512f,fma")))
constexpr __mmask8 kAll8 = 0xFF;
constexpr __mmask16 kAll16 = 0xFFFF;
using VD = __m512d;
using VF = __m512;
constexpr int WD = 8, WF = 16;
KL_TARGET inline VD ld_d(const double* p) { return _mm512_loadu_pd(p); }
KL_TARGET inline void st_d(double* p, VD a) { _mm512_storeu_pd(p, a); }
KL_TARGET inline VD set_d(double a) { return _mm512_set1_pd(a); }
KL_TARGET inline VD zero_d() { return _mm512_setzero_pd(); }
KL_TARGET inline VD add_d(VD a, VD b) { return _mm512_add_pd(a, b); }
KL_TARGET inline VD sub_d(VD a, VD b) { return _mm512_sub_pd(a, b); }
KL_TARGET inline VD mul_d(VD a, VD b) { return _mm512_mul_pd(a, b); }
KL_TARGET inline VD max_d(VD a, VD b) { return _mm512_maskz_max_pd(kAll8, a, b); }
KL_TARGET inline VD abs_d(VD a) { return _mm512_abs_pd(a); }
KL_TARGET inline VD fma_d(VD a, VD b, VD c) { return _mm512_fmadd_pd(a, b, c); }
KL_TARGET inline VD fnma_d(VD a, VD b, VD c) { return _mm512_fnmadd_pd(a, b, c); }
KL_TARGET inline VD round_d(VD a) {
  return _mm512_maskz_roundscale_pd(kAll8, a, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
}
KL_TARGET inline VD scale2_d(VD a, VD n) { return _mm512_maskz_scalef_pd(kAll8, a, n); }
KL_TARGET inline VD zero_below_d(VD a, VD x, VD t) {
  return _mm512_mask_blend_pd(_mm512_cmp_pd_mask(x, t, _CMP_LT_OQ), a, _mm512_setzero_pd());
}
KL_TARGET inline double hsum_d(VD a) {
  double lanes[8];
  _mm512_storeu_pd(lanes, a);
  return ((lanes[0] + lanes[1]) + (lanes[2] + lanes[3])) + ((lanes[4] + lanes[5]) + (lanes[6] + lanes[7]));
}
KL_TARGET inline __mmask8 mask_d(int lanes) { return static_cast<__mmask8>((1u << lanes) - 1u); }
KL_TARGET inline VD ldmask_d(const double* p, int lanes) {
  return lanes == WD ? _mm512_loadu_pd(p) : _mm512_maskz_loadu_pd(mask_d(lanes), p);
}
KL_TARGET inline void stmask_d(double* p, VD a, int lanes) {
  if (lanes == WD) _mm512_storeu_pd(p, a); else _mm512_mask_storeu_pd(p, mask_d(lanes), a);
}
KL_TARGET inline VD widen(const float* p) { return _mm512_maskz_cvtps_pd(kAll8, _mm256_loadu_ps(p)); }
KL_TARGET inline VF ld_f(const float* p) { return _mm512_loadu_ps(p); }
KL_TARGET inline void st_f(float* p, VF a) { _mm512_storeu_ps(p, a); }
KL_TARGET inline VF set_f(float a) { return _mm512_set1_ps(a); }
KL_TARGET inline VF zero_f() { return _mm512_setzero_ps(); }
KL_TARGET inline VF add_f(VF a, VF b) { return _mm512_add_ps(a, b); }
KL_TARGET inline VF sub_f(VF a, VF b) { return _mm512_sub_ps(a, b); }
KL_TARGET inline VF mul_f(VF a, VF b) { return _mm512_mul_ps(a, b); }
KL_TARGET inline VF max_f(VF a, VF b) { return _mm512_maskz_max_ps(kAll16, a, b); }
KL_TARGET inline VF abs_f(VF a) { return _mm512_abs_ps(a); }
KL_TARGET inline VF fma_f(VF a, VF b, VF c) { return _mm512_fmadd_ps(a, b, c); }
KL_TARGET inline VF fnma_f(VF a, VF b, VF c) { return _mm512_fnmadd_ps(a, b, c); }
KL_TARGET inline VF round_f(VF a) {
  return _mm512_maskz_roundscale_ps(kAll16, a, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
}
KL_TARGET inline VF scale2_f(VF a, VF n) { return _mm512_maskz_scalef_ps(kAll16, a, n); }
KL_TARGET inline VF zero_below_f(VF a, VF x, VF t) {
  return _mm512_mask_blend_ps(_mm512_cmp_ps_mask(x, t, _CMP_LT_OQ), a, _mm512_setzero_ps());
}
#include "kernel_rows_isa.inc"
#undef KL_TARGET
}  // namespace isa_avx512

namespace isa_avx2 {
#define KL_TARGET __attribute__((target("avx2,fma")))
using VD = __m256d;
using VF = __m256;
constexpr int WD = 4, WF = 8;
KL_TARGET inline VD ld_d(const double* p) { return _mm256_loadu_pd(p); }
KL_TARGET inline void st_d(double* p, VD a) { _mm256_storeu_pd(p, a); }
KL_TARGET inline VD set_d(double a) { return _mm256_set1_pd(a); }
KL_TARGET inline VD zero_d() { return _mm256_setzero_pd(); }
KL_TARGET inline VD add_d(VD a, VD b) { return _mm256_add_pd(a, b); }
KL_TARGET inline VD sub_d(VD a, VD b) { return _mm256_sub_pd(a, b); }
KL_TARGET inline VD mul_d(VD a, VD b) { return _mm256_mul_pd(a, b); }
KL_TARGET inline VD max_d(VD a, VD b) { return _mm256_max_pd(a, b); }
KL_TARGET inline VD abs_d(VD a) { return _mm256_andnot_pd(_mm256_set1_pd(-0.0), a); }
KL_TARGET inline VD fma_d(VD a, VD b, VD c) { return _mm256_fmadd_pd(a, b, c); }
KL_TARGET inline VD fnma_d(VD a, VD b, VD c) { return _mm256_fnmadd_pd(a, b, c); }
KL_TARGET inline VD round_d(VD a) { return _mm256_round_pd(a, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }
// a 2^n from the exponent bits of 2^n: exact, and n stays within [-1024, 1023] on every lane the
// caller keeps (zero_below_d drops the others).
KL_TARGET inline VD scale2_d(VD a, VD n) {
  const __m256i e = _mm256_slli_epi64(_mm256_add_epi64(_mm256_cvtepi32_epi64(_mm256_cvtpd_epi32(n)),
                                                       _mm256_set1_epi64x(1023)), 52);
  return _mm256_mul_pd(a, _mm256_castsi256_pd(e));
}
KL_TARGET inline VD zero_below_d(VD a, VD x, VD t) {
  return _mm256_blendv_pd(a, _mm256_setzero_pd(), _mm256_cmp_pd(x, t, _CMP_LT_OQ));
}
KL_TARGET inline double hsum_d(VD a) {
  const __m128d s = _mm_add_pd(_mm256_castpd256_pd128(a), _mm256_extractf128_pd(a, 1));
  return _mm_cvtsd_f64(_mm_add_sd(s, _mm_unpackhi_pd(s, s)));
}
KL_TARGET inline __m256i mask_d(int lanes) {
  return _mm256_set_epi64x(lanes > 3 ? -1 : 0, lanes > 2 ? -1 : 0, lanes > 1 ? -1 : 0, lanes > 0 ? -1 : 0);
}
KL_TARGET inline VD ldmask_d(const double* p, int lanes) {
  return lanes == WD ? _mm256_loadu_pd(p) : _mm256_maskload_pd(p, mask_d(lanes));
}
KL_TARGET inline void stmask_d(double* p, VD a, int lanes) {
  if (lanes == WD) _mm256_storeu_pd(p, a); else _mm256_maskstore_pd(p, mask_d(lanes), a);
}
KL_TARGET inline VD widen(const float* p) { return _mm256_cvtps_pd(_mm_loadu_ps(p)); }
KL_TARGET inline VF ld_f(const float* p) { return _mm256_loadu_ps(p); }
KL_TARGET inline void st_f(float* p, VF a) { _mm256_storeu_ps(p, a); }
KL_TARGET inline VF set_f(float a) { return _mm256_set1_ps(a); }
KL_TARGET inline VF zero_f() { return _mm256_setzero_ps(); }
KL_TARGET inline VF add_f(VF a, VF b) { return _mm256_add_ps(a, b); }
KL_TARGET inline VF sub_f(VF a, VF b) { return _mm256_sub_ps(a, b); }
KL_TARGET inline VF mul_f(VF a, VF b) { return _mm256_mul_ps(a, b); }
KL_TARGET inline VF max_f(VF a, VF b) { return _mm256_max_ps(a, b); }
KL_TARGET inline VF abs_f(VF a) { return _mm256_andnot_ps(_mm256_set1_ps(-0.0f), a); }
KL_TARGET inline VF fma_f(VF a, VF b, VF c) { return _mm256_fmadd_ps(a, b, c); }
KL_TARGET inline VF fnma_f(VF a, VF b, VF c) { return _mm256_fnmadd_ps(a, b, c); }
KL_TARGET inline VF round_f(VF a) { return _mm256_round_ps(a, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }
KL_TARGET inline VF scale2_f(VF a, VF n) {
  const __m256i e = _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23);
  return _mm256_mul_ps(a, _mm256_castsi256_ps(e));
}
KL_TARGET inline VF zero_below_f(VF a, VF x, VF t) {
  return _mm256_blendv_ps(a, _mm256_setzero_ps(), _mm256_cmp_ps(x, t, _CMP_LT_OQ));
}
#include "kernel_rows_isa.inc"
#undef KL_TARGET
}  // namespace isa_avx2
// clang-format on

#endif  // KERNLEARN_X86_DISPATCH

namespace isa_generic {

// Without SIMD: the C library's exp, plain multiplies and adds, entry by entry.
template <class Scalar>
void kernel_row(const PairwiseKernel& kernel, double constant, const Scalar* x, const Scalar* Yt, Index ld, Index m,
                Index d, Scalar* out) {
  const Index total = padded(m);
  std::fill(out, out + total, Scalar(0));
  for (Index f = 0; f < d; ++f) {
    const Scalar xf = x[f];
    const Scalar* y = Yt + f * ld;
    if (kernel.kind == PairwiseKind::rbf) {
      for (Index j = 0; j < total; ++j) {
        const Scalar t = xf - y[j];
        out[j] += t * t;
      }
    } else {
      for (Index j = 0; j < total; ++j) out[j] += std::abs(xf - y[j]);
    }
  }
  const Scalar c = static_cast<Scalar>(constant);
  if (kernel.kind == PairwiseKind::rbf) {
    const Scalar scale = static_cast<Scalar>(-kernel.gamma);
    for (Index j = 0; j < total; ++j) out[j] = std::exp(out[j] * scale) + c;
  } else {
    const Scalar tau = static_cast<Scalar>(kernel.tau);
    for (Index j = 0; j < total; ++j) out[j] = std::max(tau - out[j], Scalar(0)) + c;
  }
}

template <class Scalar>
void row_products(const Scalar* k, Index m, const double* V, Index b, double* y, const double* v, double* W) {
  for (Index j = 0; j < m; ++j) {
    const double kj = static_cast<double>(k[j]);
    const double* Vj = V + j * b;
    for (Index c = 0; c < b; ++c) y[c] += kj * Vj[c];
    if (W) {
      double* Wj = W + j * b;
      for (Index c = 0; c < b; ++c) Wj[c] += kj * v[c];
    }
  }
}

template <class Scalar>
void row_dots(const Scalar* k, Index m, const double* Vt, Index ld, Index b, double* y) {
  for (Index c = 0; c < b; ++c) {
    double total = 0.0;
    for (Index j = 0; j < m; ++j) total += static_cast<double>(k[j]) * Vt[c * ld + j];
    y[c] += total;
  }
}

}  // namespace isa_generic

template <class Scalar>
void kernel_row(const PairwiseKernel& kernel, double constant, const Scalar* x, const Scalar* Yt, Index ld, Index m,
                Index d, Scalar* out) {
#ifdef KERNLEARN_X86_DISPATCH
  switch (active_simd()) {
    case Simd::avx512:
      return isa_avx512::kernel_row(kernel, constant, x, Yt, ld, m, d, out);
    case Simd::avx2:
      return isa_avx2::kernel_row(kernel, constant, x, Yt, ld, m, d, out);
    case Simd::none:
      break;
  }
#endif
  isa_generic::kernel_row(kernel, constant, x, Yt, ld, m, d, out);
}

template <class Scalar>
void row_products(const Scalar* k, Index m, const double* V, Index b, double* y, const double* v, double* W) {
#ifdef KERNLEARN_X86_DISPATCH
  switch (active_simd()) {
    case Simd::avx512:
      return isa_avx512::row_products(k, m, V, b, y, v, W);
    case Simd::avx2:
      return isa_avx2::row_products(k, m, V, b, y, v, W);
    case Simd::none:
      break;
  }
#endif
  isa_generic::row_products(k, m, V, b, y, v, W);
}

template <class Scalar>
void row_dots(const Scalar* k, Index m, const double* Vt, Index ld, Index b, double* y) {
#ifdef KERNLEARN_X86_DISPATCH
  switch (active_simd()) {
    case Simd::avx512:
      return isa_avx512::row_dots(k, m, Vt, ld, b, y);
    case Simd::avx2:
      return isa_avx2::row_dots(k, m, Vt, ld, b, y);
    case Simd::none:
      break;
  }
#endif
  isa_generic::row_dots(k, m, Vt, ld, b, y);
}

void exp_nonpositive(const double* x, double* out, Index n) {
#ifdef KERNLEARN_X86_DISPATCH
  switch (active_simd()) {
    case Simd::avx512:
      return isa_avx512::exp_nonpositive(x, out, n);
    case Simd::avx2:
      return isa_avx2::exp_nonpositive(x, out, n);
    case Simd::none:
      break;
  }
#endif
  for (Index i = 0; i < n; ++i) out[i] = std::exp(x[i]);
}

template void kernel_row<float>(const PairwiseKernel&, double, const float*, const float*, Index, Index, Index, float*);
template void kernel_row<double>(const PairwiseKernel&, double, const double*, const double*, Index, Index, Index,
                                 double*);
template void row_products<float>(const float*, Index, const double*, Index, double*, const double*, double*);
template void row_products<double>(const double*, Index, const double*, Index, double*, const double*, double*);
template void row_dots<float>(const float*, Index, const double*, Index, Index, double*);
template void row_dots<double>(const double*, Index, const double*, Index, Index, double*);

}  // namespace kernlearn
