#include "kernlearn/knn_kernels.hpp"

#include <algorithm>
#include <cstdlib>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define KERNLEARN_X86_DISPATCH 1
#include <immintrin.h>
#endif

namespace kernlearn {

namespace {

#ifdef KERNLEARN_X86_DISPATCH
// 4 query rows x 8 candidate rows of accumulators in 8 ymm registers: per dimension, two loads
// of the packed panel and four broadcasts feed eight FMAs.
__attribute__((target("avx2,fma"))) void dot_panel_avx2(const double* Q, Index nq, Index d,
                                                         const double* panel, double* G, Index ldg) {
  Index i = 0;
  for (; i + 4 <= nq; i += 4) {
    const double* q0 = Q + i * d;
    const double* q1 = q0 + d;
    const double* q2 = q1 + d;
    const double* q3 = q2 + d;
    __m256d c00 = _mm256_setzero_pd(), c01 = c00, c10 = c00, c11 = c00, c20 = c00, c21 = c00,
            c30 = c00, c31 = c00;
    const double* p = panel;
    for (Index k = 0; k < d; ++k, p += 8) {
      const __m256d b0 = _mm256_loadu_pd(p), b1 = _mm256_loadu_pd(p + 4);
      __m256d a = _mm256_broadcast_sd(q0 + k);
      c00 = _mm256_fmadd_pd(a, b0, c00);
      c01 = _mm256_fmadd_pd(a, b1, c01);
      a = _mm256_broadcast_sd(q1 + k);
      c10 = _mm256_fmadd_pd(a, b0, c10);
      c11 = _mm256_fmadd_pd(a, b1, c11);
      a = _mm256_broadcast_sd(q2 + k);
      c20 = _mm256_fmadd_pd(a, b0, c20);
      c21 = _mm256_fmadd_pd(a, b1, c21);
      a = _mm256_broadcast_sd(q3 + k);
      c30 = _mm256_fmadd_pd(a, b0, c30);
      c31 = _mm256_fmadd_pd(a, b1, c31);
    }
    double* g = G + i * ldg;
    _mm256_storeu_pd(g, c00);
    _mm256_storeu_pd(g + 4, c01);
    _mm256_storeu_pd(g + ldg, c10);
    _mm256_storeu_pd(g + ldg + 4, c11);
    _mm256_storeu_pd(g + 2 * ldg, c20);
    _mm256_storeu_pd(g + 2 * ldg + 4, c21);
    _mm256_storeu_pd(g + 3 * ldg, c30);
    _mm256_storeu_pd(g + 3 * ldg + 4, c31);
  }
  for (; i < nq; ++i) {  // leftover query rows, one at a time
    const double* q = Q + i * d;
    __m256d c0 = _mm256_setzero_pd(), c1 = c0;
    const double* p = panel;
    for (Index k = 0; k < d; ++k, p += 8) {
      const __m256d a = _mm256_broadcast_sd(q + k);
      c0 = _mm256_fmadd_pd(a, _mm256_loadu_pd(p), c0);
      c1 = _mm256_fmadd_pd(a, _mm256_loadu_pd(p + 4), c1);
    }
    _mm256_storeu_pd(G + i * ldg, c0);
    _mm256_storeu_pd(G + i * ldg + 4, c1);
  }
}

__attribute__((target("avx2,fma"))) Index next_candidate_avx2(const double* b, const double* g,
                                                              double s, double threshold,
                                                              Index from, Index n) {
  const __m256d vs = _mm256_set1_pd(s), vt = _mm256_set1_pd(threshold);
  Index j = from;
  for (; j + 4 <= n; j += 4) {
    const __m256d v = _mm256_fnmadd_pd(vs, _mm256_loadu_pd(g + j), _mm256_loadu_pd(b + j));
    const int mask = _mm256_movemask_pd(_mm256_cmp_pd(v, vt, _CMP_LE_OQ));
    if (mask != 0) return j + __builtin_ctz(static_cast<unsigned>(mask));
  }
  for (; j < n; ++j)
    if (b[j] - s * g[j] <= threshold) return j;
  return n;
}

bool cpu_has_avx2_fma() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}
#endif

}  // namespace

bool PackedRows::simd_enabled() {
#ifdef KERNLEARN_X86_DISPATCH
  static const bool enabled = cpu_has_avx2_fma() && std::getenv("KERNLEARN_DISABLE_SIMD") == nullptr;
  return enabled;
#else
  return false;
#endif
}

PackedRows::PackedRows(const MatrixRef& C, Index block)
    : n_(C.rows()), d_(C.cols()), block_(block), C_(C) {
  if (!simd_enabled()) return;
  // Every block is padded to a whole number of panels with zero rows (their products are 0 and
  // the caller never reads them).
  const Index panels_per_block = (block_ + kPanel - 1) / kPanel;
  packed_.assign(static_cast<std::size_t>(n_blocks() * panels_per_block * kPanel * d_), 0.0);
  for (Index r = 0; r < n_; ++r) {
    const Index b = r / block_, within = r % block_;
    double* panel = packed_.data() + ((b * panels_per_block + within / kPanel) * kPanel * d_);
    for (Index k = 0; k < d_; ++k) panel[k * kPanel + within % kPanel] = C(r, k);
  }
}

Index PackedRows::rows_in_block(Index b) const { return std::min(block_, n_ - b * block_); }

void PackedRows::dot(const double* Q, Index nq, Index b, double* G, Index ldg) const {
  const Index nc = rows_in_block(b);
#ifdef KERNLEARN_X86_DISPATCH
  if (simd_enabled()) {
    const Index panels_per_block = (block_ + kPanel - 1) / kPanel;
    const double* base = packed_.data() + b * panels_per_block * kPanel * d_;
    for (Index p = 0; p * kPanel < nc; ++p)
      dot_panel_avx2(Q, nq, d_, base + p * kPanel * d_, G + p * kPanel, ldg);
    return;
  }
#endif
  using ConstMap = Eigen::Map<const RowMatrixXd>;
  using Map = Eigen::Map<RowMatrixXd, 0, Eigen::OuterStride<>>;
  Map(G, nq, nc, Eigen::OuterStride<>(ldg)).noalias() =
      ConstMap(Q, nq, d_) * C_.middleRows(b * block_, nc).transpose();
}

Index next_candidate(const double* b, const double* g, double s, double threshold, Index from,
                     Index n) {
#ifdef KERNLEARN_X86_DISPATCH
  if (PackedRows::simd_enabled()) return next_candidate_avx2(b, g, s, threshold, from, n);
#endif
  for (Index j = from; j < n; ++j)
    if (b[j] - s * g[j] <= threshold) return j;
  return n;
}

}  // namespace kernlearn
