#include "kernlearn/neighbors/knn_kernels.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>

#ifdef KERNLEARN_X86_DISPATCH
#include <immintrin.h>
#endif

namespace kernlearn {

namespace {

// The scalar seed loop: candidates from..n-1 into the lanes' running minima (value, where). The
// portable kernel from 0; the AVX-512 kernel for its tail.
void lane_minima_from(const float* b, const float* g, float s, Index from, Index n, float* value, Index* where) {
  for (Index j = from; j < n; ++j) {
    const float v = b[j] - s * g[j];
    const auto l = static_cast<int>(j % kSeedLanes);
    if (v < value[l]) {
      value[l] = v;
      where[l] = j;
    }
  }
}

#ifdef KERNLEARN_X86_DISPATCH
// Register tiles: R query rows x one panel (2 vectors wide). Per dimension, two panel loads and R
// broadcasts feed 2R FMAs; R = 8 (AVX-512: 16 accumulators of 32 registers) or 4 (AVX2: 8 of 16).
template <int R>
__attribute__((target("avx512f"))) inline void tile_avx512(const float* Q, Index d, const float* panel, float* G,
                                                           Index ldg) {
  __m512 acc[R][2];
  for (int r = 0; r < R; ++r) acc[r][0] = acc[r][1] = _mm512_setzero_ps();
  for (Index k = 0; k < d; ++k) {
    const __m512 b0 = _mm512_loadu_ps(panel + 32 * k), b1 = _mm512_loadu_ps(panel + 32 * k + 16);
    for (int r = 0; r < R; ++r) {
      const __m512 a = _mm512_set1_ps(Q[r * d + k]);
      acc[r][0] = _mm512_fmadd_ps(a, b0, acc[r][0]);
      acc[r][1] = _mm512_fmadd_ps(a, b1, acc[r][1]);
    }
  }
  for (int r = 0; r < R; ++r) {
    _mm512_storeu_ps(G + r * ldg, acc[r][0]);
    _mm512_storeu_ps(G + r * ldg + 16, acc[r][1]);
  }
}

__attribute__((target("avx512f"))) void dot_panel_avx512(const float* Q, Index nq, Index d, const float* panel,
                                                         float* G, Index ldg) {
  Index i = 0;
  for (; i + 8 <= nq; i += 8) tile_avx512<8>(Q + i * d, d, panel, G + i * ldg, ldg);
  for (; i < nq; ++i) tile_avx512<1>(Q + i * d, d, panel, G + i * ldg, ldg);
}

template <int R>
__attribute__((target("avx2,fma"))) inline void tile_avx2(const float* Q, Index d, const float* panel, float* G,
                                                          Index ldg) {
  __m256 acc[R][2];
  for (int r = 0; r < R; ++r) acc[r][0] = acc[r][1] = _mm256_setzero_ps();
  for (Index k = 0; k < d; ++k) {
    const __m256 b0 = _mm256_loadu_ps(panel + 16 * k), b1 = _mm256_loadu_ps(panel + 16 * k + 8);
    for (int r = 0; r < R; ++r) {
      const __m256 a = _mm256_broadcast_ss(Q + r * d + k);
      acc[r][0] = _mm256_fmadd_ps(a, b0, acc[r][0]);
      acc[r][1] = _mm256_fmadd_ps(a, b1, acc[r][1]);
    }
  }
  for (int r = 0; r < R; ++r) {
    _mm256_storeu_ps(G + r * ldg, acc[r][0]);
    _mm256_storeu_ps(G + r * ldg + 8, acc[r][1]);
  }
}

__attribute__((target("avx2,fma"))) void dot_panel_avx2(const float* Q, Index nq, Index d, const float* panel, float* G,
                                                        Index ldg) {
  Index i = 0;
  for (; i + 4 <= nq; i += 4) tile_avx2<4>(Q + i * d, d, panel, G + i * ldg, ldg);
  for (; i < nq; ++i) tile_avx2<1>(Q + i * d, d, panel, G + i * ldg, ldg);
}

__attribute__((target("avx512f"))) Index next_candidate_avx512(const float* b, const float* g, float s, float threshold,
                                                               Index from, Index n) {
  const __m512 vs = _mm512_set1_ps(s), vt = _mm512_set1_ps(threshold);
  Index j = from;
  for (; j + 16 <= n; j += 16) {
    const __m512 v = _mm512_fnmadd_ps(vs, _mm512_loadu_ps(g + j), _mm512_loadu_ps(b + j));
    const __mmask16 hit = _mm512_cmp_ps_mask(v, vt, _CMP_LE_OQ);
    if (hit != 0) return j + __builtin_ctz(static_cast<unsigned>(hit));
  }
  for (; j < n; ++j)
    if (b[j] - s * g[j] <= threshold) return j;
  return n;
}

__attribute__((target("avx2,fma"))) Index next_candidate_avx2(const float* b, const float* g, float s, float threshold,
                                                              Index from, Index n) {
  const __m256 vs = _mm256_set1_ps(s), vt = _mm256_set1_ps(threshold);
  Index j = from;
  for (; j + 8 <= n; j += 8) {
    const __m256 v = _mm256_fnmadd_ps(vs, _mm256_loadu_ps(g + j), _mm256_loadu_ps(b + j));
    const int hit = _mm256_movemask_ps(_mm256_cmp_ps(v, vt, _CMP_LE_OQ));
    if (hit != 0) return j + __builtin_ctz(static_cast<unsigned>(hit));
  }
  for (; j < n; ++j)
    if (b[j] - s * g[j] <= threshold) return j;
  return n;
}

__attribute__((target("avx512f"))) Index next_query_avx512(float b, const float* g, float s, const float* threshold,
                                                           Index from, Index n) {
  const __m512 vs = _mm512_set1_ps(s), vb = _mm512_set1_ps(b);
  Index j = from;
  for (; j + 16 <= n; j += 16) {
    const __m512 v = _mm512_fnmadd_ps(vs, _mm512_loadu_ps(g + j), vb);
    const __mmask16 hit = _mm512_cmp_ps_mask(v, _mm512_loadu_ps(threshold + j), _CMP_LE_OQ);
    if (hit != 0) return j + __builtin_ctz(static_cast<unsigned>(hit));
  }
  for (; j < n; ++j)
    if (b - s * g[j] <= threshold[j]) return j;
  return n;
}

__attribute__((target("avx2,fma"))) Index next_query_avx2(float b, const float* g, float s, const float* threshold,
                                                          Index from, Index n) {
  const __m256 vs = _mm256_set1_ps(s), vb = _mm256_set1_ps(b);
  Index j = from;
  for (; j + 8 <= n; j += 8) {
    const __m256 v = _mm256_fnmadd_ps(vs, _mm256_loadu_ps(g + j), vb);
    const int hit = _mm256_movemask_ps(_mm256_cmp_ps(v, _mm256_loadu_ps(threshold + j), _CMP_LE_OQ));
    if (hit != 0) return j + __builtin_ctz(static_cast<unsigned>(hit));
  }
  for (; j < n; ++j)
    if (b - s * g[j] <= threshold[j]) return j;
  return n;
}

__attribute__((target("avx512f"))) void lane_minima_avx512(const float* b, const float* g, float s, Index n,
                                                           Index* where) {
  static_assert(kSeedLanes == 16, "one AVX-512 register of lanes");
  const __m512 vs = _mm512_set1_ps(s);
  __m512 best = _mm512_set1_ps(std::numeric_limits<float>::infinity());
  __m512i at = _mm512_set1_epi32(-1);
  __m512i index = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  const __m512i step = _mm512_set1_epi32(16);
  Index j = 0;
  for (; j + 16 <= n; j += 16) {
    const __m512 v = _mm512_fnmadd_ps(vs, _mm512_loadu_ps(g + j), _mm512_loadu_ps(b + j));
    const __mmask16 better = _mm512_cmp_ps_mask(v, best, _CMP_LT_OQ);
    best = _mm512_mask_blend_ps(better, best, v);
    at = _mm512_mask_blend_epi32(better, at, index);
    index = _mm512_add_epi32(index, step);
  }
  alignas(64) std::int32_t lanes[16];
  float value[16];
  _mm512_storeu_ps(value, best);
  _mm512_store_si512(lanes, at);
  for (int l = 0; l < 16; ++l) where[l] = lanes[l];
  lane_minima_from(b, g, s, j, n, value, where);
}
#endif

}  // namespace

PackedRows::PackedRows(const RowMatrixXf& C, Index block)
    : C_(C), n_(C.rows()), d_(C.cols()), block_(block), panel_(0) {
  switch (active_simd()) {
    case Simd::avx512:
      panel_ = 32;
      break;
    case Simd::avx2:
      panel_ = 16;
      break;
    case Simd::none:
      return;
  }
  // Every block is padded to whole panels with zero rows (their products are 0, never read).
  const Index block_floats = (block_ + panel_ - 1) / panel_ * panel_ * d_;
  packed_.assign(static_cast<std::size_t>(n_blocks() * block_floats), 0.0f);
  for (Index r = 0; r < n_; ++r) {
    const Index within = r % block_;
    float* panel = packed_.data() + (r / block_) * block_floats + (within / panel_) * panel_ * d_;
    for (Index k = 0; k < d_; ++k) panel[k * panel_ + within % panel_] = C(r, k);
  }
}

Index PackedRows::rows_in_block(Index b) const { return std::min(block_, n_ - b * block_); }

void PackedRows::dot(const float* Q, Index nq, Index b, float* G, Index ldg) const {
  const Index nc = rows_in_block(b);
#ifdef KERNLEARN_X86_DISPATCH
  if (panel_ > 0) {
    const float* base = packed_.data() + b * ((block_ + panel_ - 1) / panel_ * panel_ * d_);
    for (Index p = 0; p * panel_ < nc; ++p) {
      const float* panel = base + p * panel_ * d_;
      if (panel_ == 32) {
        dot_panel_avx512(Q, nq, d_, panel, G + p * panel_, ldg);
      } else {
        dot_panel_avx2(Q, nq, d_, panel, G + p * panel_, ldg);
      }
    }
    return;
  }
#endif
  using ConstMap = Eigen::Map<const RowMatrixXf>;
  using Map = Eigen::Map<RowMatrixXf, 0, Eigen::OuterStride<>>;
  Map(G, nq, nc, Eigen::OuterStride<>(ldg)).noalias() = ConstMap(Q, nq, d_) * C_.middleRows(b * block_, nc).transpose();
}

Index next_candidate(const float* b, const float* g, float s, float threshold, Index from, Index n) {
#ifdef KERNLEARN_X86_DISPATCH
  switch (active_simd()) {
    case Simd::avx512:
      return next_candidate_avx512(b, g, s, threshold, from, n);
    case Simd::avx2:
      return next_candidate_avx2(b, g, s, threshold, from, n);
    case Simd::none:
      break;
  }
#endif
  for (Index j = from; j < n; ++j)
    if (b[j] - s * g[j] <= threshold) return j;
  return n;
}

void lane_minima(const float* b, const float* g, float s, Index n, Index* where) {
#ifdef KERNLEARN_X86_DISPATCH
  if (active_simd() == Simd::avx512) return lane_minima_avx512(b, g, s, n, where);
#endif
  // AVX2 and baseline x86-64: no kernel written.
  float value[kSeedLanes];
  std::fill(value, value + kSeedLanes, std::numeric_limits<float>::infinity());
  std::fill(where, where + kSeedLanes, Index{-1});
  lane_minima_from(b, g, s, 0, n, value, where);
}

Index next_query(float b, const float* g, float s, const float* threshold, Index from, Index n) {
#ifdef KERNLEARN_X86_DISPATCH
  switch (active_simd()) {
    case Simd::avx512:
      return next_query_avx512(b, g, s, threshold, from, n);
    case Simd::avx2:
      return next_query_avx2(b, g, s, threshold, from, n);
    case Simd::none:
      break;
  }
#endif
  for (Index j = from; j < n; ++j)
    if (b - s * g[j] <= threshold[j]) return j;
  return n;
}

}  // namespace kernlearn
