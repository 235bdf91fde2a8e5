#include "kernlearn/linalg/gram_schmidt.hpp"

#include <algorithm>
#include <vector>

#include <Eigen/Core>

#include "kernlearn/core/simd.hpp"
#include "kernlearn/core/solver_choice.hpp"

#ifdef KERNLEARN_X86_DISPATCH
#include <immintrin.h>
#endif

namespace kernlearn {

namespace {

using ColumnMap = Eigen::Map<const Eigen::MatrixXd, 0, Eigen::OuterStride<>>;

void project_portable(const double* V, Index ld, Index n, Index cols, const double* w, double* h) {
  Eigen::Map<Eigen::VectorXd>(h, cols).noalias() =
      ColumnMap(V, n, cols, Eigen::OuterStride<>(ld)).transpose() * Eigen::Map<const Eigen::VectorXd>(w, n);
}

void subtract_portable(const double* V, Index ld, Index n, Index cols, const double* h, double* w) {
  Eigen::Map<Eigen::VectorXd>(w, n).noalias() -=
      ColumnMap(V, n, cols, Eigen::OuterStride<>(ld)) * Eigen::Map<const Eigen::VectorXd>(h, cols);
}

void rotate_portable(const double* V, Index ldv, Index n, Index m, const double* S, Index lds, Index p, double* Y,
                     Index ldy) {
  Eigen::Map<Eigen::MatrixXd, 0, Eigen::OuterStride<>>(Y, n, p, Eigen::OuterStride<>(ldy)).noalias() =
      ColumnMap(V, n, m, Eigen::OuterStride<>(ldv)) * ColumnMap(S, m, p, Eigen::OuterStride<>(lds));
}

#ifdef KERNLEARN_X86_DISPATCH
// One strip of R x 8 rows: w -= V h with R accumulators, then each column's products with the new
// w added to its 8 lanes. Four registers of w per strip (R = 4): a quarter of the lane loads
// and stores per FMA of one (figures in bench/results/eigsh.md).
template <int R>
__attribute__((target("avx512f"))) inline void subtract_then_project_strip_avx512(const double* V, Index ld, Index cols,
                                                                                  const double* h, double* w,
                                                                                  double* lanes) {
  __m512d acc[R];
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r) acc[r] = _mm512_loadu_pd(w + 8 * r);
  for (Index c = 0; c < cols; ++c) {
    const __m512d coefficient = _mm512_set1_pd(h[c]);
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) acc[r] = _mm512_fnmadd_pd(coefficient, _mm512_loadu_pd(V + c * ld + 8 * r), acc[r]);
  }
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r) _mm512_storeu_pd(w + 8 * r, acc[r]);
  for (Index c = 0; c < cols; ++c) {
    __m512d sum = _mm512_loadu_pd(lanes + 8 * c);
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) sum = _mm512_fmadd_pd(_mm512_loadu_pd(V + c * ld + 8 * r), acc[r], sum);
    _mm512_storeu_pd(lanes + 8 * c, sum);
  }
}

__attribute__((target("avx512f"))) void subtract_then_project_avx512(const double* V, Index ld, Index n, Index cols,
                                                                     const double* h, double* w, double* h2,
                                                                     double* lanes) {
  for (Index c = 0; c < cols; ++c) _mm512_storeu_pd(lanes + 8 * c, _mm512_setzero_pd());
  Index i = 0;
  for (; i + 32 <= n; i += 32) subtract_then_project_strip_avx512<4>(V + i, ld, cols, h, w + i, lanes);
  for (; i + 8 <= n; i += 8) subtract_then_project_strip_avx512<1>(V + i, ld, cols, h, w + i, lanes);
  for (Index c = 0; c < cols; ++c) {
    const double* l = lanes + 8 * c;
    h2[c] = ((l[0] + l[1]) + (l[2] + l[3])) + ((l[4] + l[5]) + (l[6] + l[7]));
  }
  if (i < n) {  // leftover rows: finish them the portable way and add their share of h2
    for (Index r = i; r < n; ++r)
      for (Index c = 0; c < cols; ++c) w[r] -= h[c] * V[c * ld + r];
    for (Index c = 0; c < cols; ++c)
      for (Index r = i; r < n; ++r) h2[c] += V[c * ld + r] * w[r];
  }
}

// Y = V S by register tiles of R x 8 rows and C columns: per basis column j, R loads of V and C
// broadcasts of S feed R * C FMAs. With R = 4, C = 6 (24 of the 32 registers accumulate) that is
// 10 loads per 24 FMAs, where an 8 x 4 tile needed 5 per 4 and ran at half the FMA peak. The
// 32 x m strip of V (256 m bytes) stays in L1 across the column tiles for bases up to about 150
// columns, so V streams from memory once; wider bases re-read the strip from L2.
template <int R, int C>
__attribute__((target("avx512f"))) inline void rotate_tile_avx512(const double* V, Index ldv, Index m, const double* S,
                                                                  Index lds, double* Y, Index ldy) {
  __m512d acc[R][C];
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 8
    for (int c = 0; c < C; ++c) acc[r][c] = _mm512_setzero_pd();
  for (Index j = 0; j < m; ++j) {
    __m512d v[R];
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) v[r] = _mm512_loadu_pd(V + j * ldv + 8 * r);
#pragma GCC unroll 8
    for (int c = 0; c < C; ++c) {
      const __m512d s = _mm512_set1_pd(S[c * lds + j]);
#pragma GCC unroll 8
      for (int r = 0; r < R; ++r) acc[r][c] = _mm512_fmadd_pd(v[r], s, acc[r][c]);
    }
  }
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 8
    for (int c = 0; c < C; ++c) _mm512_storeu_pd(Y + c * ldy + 8 * r, acc[r][c]);
}

// One strip of R x 8 rows, all p columns: six at a time, then the remainder in one tile.
template <int R>
__attribute__((target("avx512f"))) inline void rotate_strip_avx512(const double* V, Index ldv, Index m, const double* S,
                                                                   Index lds, Index p, double* Y, Index ldy) {
  Index c = 0;
  for (; c + 6 <= p; c += 6) rotate_tile_avx512<R, 6>(V, ldv, m, S + c * lds, lds, Y + c * ldy, ldy);
  S += c * lds;
  Y += c * ldy;
  switch (p - c) {
    case 5:
      return rotate_tile_avx512<R, 5>(V, ldv, m, S, lds, Y, ldy);
    case 4:
      return rotate_tile_avx512<R, 4>(V, ldv, m, S, lds, Y, ldy);
    case 3:
      return rotate_tile_avx512<R, 3>(V, ldv, m, S, lds, Y, ldy);
    case 2:
      return rotate_tile_avx512<R, 2>(V, ldv, m, S, lds, Y, ldy);
    case 1:
      return rotate_tile_avx512<R, 1>(V, ldv, m, S, lds, Y, ldy);
    default:
      return;
  }
}

__attribute__((target("avx512f"))) void rotate_avx512(const double* V, Index ldv, Index n, Index m, const double* S,
                                                      Index lds, Index p, double* Y, Index ldy) {
  Index i = 0;
  for (; i + 32 <= n; i += 32) rotate_strip_avx512<4>(V + i, ldv, m, S, lds, p, Y + i, ldy);
  for (; i + 8 <= n; i += 8) rotate_strip_avx512<1>(V + i, ldv, m, S, lds, p, Y + i, ldy);
  if (i < n) rotate_portable(V + i, ldv, n - i, m, S, lds, p, Y + i, ldy);
}

template <int C>
__attribute__((target("avx2,fma"))) inline void rotate_tile_avx2(const double* V, Index ldv, Index m, const double* S,
                                                                 Index lds, double* Y, Index ldy) {
  __m256d acc[C];
#pragma GCC unroll 8
  for (int c = 0; c < C; ++c) acc[c] = _mm256_setzero_pd();
  for (Index j = 0; j < m; ++j) {
    const __m256d v = _mm256_loadu_pd(V + j * ldv);
#pragma GCC unroll 8
    for (int c = 0; c < C; ++c) acc[c] = _mm256_fmadd_pd(v, _mm256_set1_pd(S[c * lds + j]), acc[c]);
  }
#pragma GCC unroll 8
  for (int c = 0; c < C; ++c) _mm256_storeu_pd(Y + c * ldy, acc[c]);
}

__attribute__((target("avx2,fma"))) void rotate_avx2(const double* V, Index ldv, Index n, Index m, const double* S,
                                                     Index lds, Index p, double* Y, Index ldy) {
  const Index full = n / 4 * 4;
  for (Index i = 0; i < full; i += 4) {
    Index c = 0;
    for (; c + 4 <= p; c += 4) rotate_tile_avx2<4>(V + i, ldv, m, S + c * lds, lds, Y + c * ldy + i, ldy);
    for (; c < p; ++c) rotate_tile_avx2<1>(V + i, ldv, m, S + c * lds, lds, Y + c * ldy + i, ldy);
  }
  if (full < n) rotate_portable(V + full, ldv, n - full, m, S, lds, p, Y + full, ldy);
}

// Sum of the 8 lanes, through memory: GCC 12's lane-extraction intrinsics trip
// -Wmaybe-uninitialized, and this runs once per four columns, off the hot loop.
__attribute__((target("avx512f"))) inline double lane_sum(__m512d v) {
  double lanes[8];
  _mm512_storeu_pd(lanes, v);
  return ((lanes[0] + lanes[1]) + (lanes[2] + lanes[3])) + ((lanes[4] + lanes[5]) + (lanes[6] + lanes[7]));
}

// Four columns per sweep of w: one load of w feeds four FMAs.
__attribute__((target("avx512f"))) void project_avx512(const double* V, Index ld, Index n, Index cols, const double* w,
                                                       double* h) {
  Index c = 0;
  for (; c + 4 <= cols; c += 4) {
    const double *v0 = V + c * ld, *v1 = v0 + ld, *v2 = v1 + ld, *v3 = v2 + ld;
    __m512d a0 = _mm512_setzero_pd(), a1 = a0, a2 = a0, a3 = a0;
    Index i = 0;
    for (; i + 8 <= n; i += 8) {
      const __m512d x = _mm512_loadu_pd(w + i);
      a0 = _mm512_fmadd_pd(_mm512_loadu_pd(v0 + i), x, a0);
      a1 = _mm512_fmadd_pd(_mm512_loadu_pd(v1 + i), x, a1);
      a2 = _mm512_fmadd_pd(_mm512_loadu_pd(v2 + i), x, a2);
      a3 = _mm512_fmadd_pd(_mm512_loadu_pd(v3 + i), x, a3);
    }
    double s0 = lane_sum(a0), s1 = lane_sum(a1), s2 = lane_sum(a2), s3 = lane_sum(a3);
    for (; i < n; ++i) {
      s0 += v0[i] * w[i];
      s1 += v1[i] * w[i];
      s2 += v2[i] * w[i];
      s3 += v3[i] * w[i];
    }
    h[c] = s0;
    h[c + 1] = s1;
    h[c + 2] = s2;
    h[c + 3] = s3;
  }
  project_portable(V + c * ld, ld, n, cols - c, w, h + c);
}

// R x 8 rows of w stay in registers while every column is subtracted from them, in column order
// (each entry sees the same chain of FMAs for any R). One strip of 8 rows read one cache line per
// column of a wide basis, and the strided walk ran 2.5x slower than R = 4 (300 columns of a
// 10^5-row basis: 44 against 17 ms, bench/results/npkl_sequence.md).
template <int R>
__attribute__((target("avx512f"))) inline void subtract_strip_avx512(const double* V, Index ld, Index cols,
                                                                     const double* h, double* w) {
  __m512d acc[R];
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r) acc[r] = _mm512_loadu_pd(w + 8 * r);
  for (Index c = 0; c < cols; ++c) {
    const __m512d coefficient = _mm512_set1_pd(h[c]);
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) acc[r] = _mm512_fnmadd_pd(coefficient, _mm512_loadu_pd(V + c * ld + 8 * r), acc[r]);
  }
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r) _mm512_storeu_pd(w + 8 * r, acc[r]);
}

__attribute__((target("avx512f"))) void subtract_avx512(const double* V, Index ld, Index n, Index cols, const double* h,
                                                        double* w) {
  Index i = 0;
  for (; i + 32 <= n; i += 32) subtract_strip_avx512<4>(V + i, ld, cols, h, w + i);
  for (; i + 8 <= n; i += 8) subtract_strip_avx512<1>(V + i, ld, cols, h, w + i);
  for (; i < n; ++i)
    for (Index c = 0; c < cols; ++c) w[i] -= h[c] * V[c * ld + i];
}

__attribute__((target("avx2,fma"))) void project_avx2(const double* V, Index ld, Index n, Index cols, const double* w,
                                                      double* h) {
  Index c = 0;
  for (; c + 4 <= cols; c += 4) {
    const double *v0 = V + c * ld, *v1 = v0 + ld, *v2 = v1 + ld, *v3 = v2 + ld;
    __m256d a0 = _mm256_setzero_pd(), a1 = a0, a2 = a0, a3 = a0;
    Index i = 0;
    for (; i + 4 <= n; i += 4) {
      const __m256d x = _mm256_loadu_pd(w + i);
      a0 = _mm256_fmadd_pd(_mm256_loadu_pd(v0 + i), x, a0);
      a1 = _mm256_fmadd_pd(_mm256_loadu_pd(v1 + i), x, a1);
      a2 = _mm256_fmadd_pd(_mm256_loadu_pd(v2 + i), x, a2);
      a3 = _mm256_fmadd_pd(_mm256_loadu_pd(v3 + i), x, a3);
    }
    // Horizontal sums: (a0 a1 a2 a3) -> one vector of the four totals.
    const __m256d s01 = _mm256_hadd_pd(a0, a1), s23 = _mm256_hadd_pd(a2, a3);
    const __m256d sums = _mm256_add_pd(_mm256_permute2f128_pd(s01, s23, 0x20), _mm256_permute2f128_pd(s01, s23, 0x31));
    double s[4];
    _mm256_storeu_pd(s, sums);
    for (; i < n; ++i) {
      s[0] += v0[i] * w[i];
      s[1] += v1[i] * w[i];
      s[2] += v2[i] * w[i];
      s[3] += v3[i] * w[i];
    }
    for (int r = 0; r < 4; ++r) h[c + r] = s[r];
  }
  project_portable(V + c * ld, ld, n, cols - c, w, h + c);
}

// Sixteen rows per strip for the same reason as subtract_avx512.
template <int R>
__attribute__((target("avx2,fma"))) inline void subtract_strip_avx2(const double* V, Index ld, Index cols,
                                                                    const double* h, double* w) {
  __m256d acc[R];
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r) acc[r] = _mm256_loadu_pd(w + 4 * r);
  for (Index c = 0; c < cols; ++c) {
    const __m256d coefficient = _mm256_set1_pd(h[c]);
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) acc[r] = _mm256_fnmadd_pd(coefficient, _mm256_loadu_pd(V + c * ld + 4 * r), acc[r]);
  }
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r) _mm256_storeu_pd(w + 4 * r, acc[r]);
}

__attribute__((target("avx2,fma"))) void subtract_avx2(const double* V, Index ld, Index n, Index cols, const double* h,
                                                       double* w) {
  Index i = 0;
  for (; i + 16 <= n; i += 16) subtract_strip_avx2<4>(V + i, ld, cols, h, w + i);
  for (; i + 8 <= n; i += 8) subtract_strip_avx2<2>(V + i, ld, cols, h, w + i);
  for (; i < n; ++i)
    for (Index c = 0; c < cols; ++c) w[i] -= h[c] * V[c * ld + i];
}
#endif

}  // namespace

void project(const double* V, Index ld, Index n, Index cols, const double* w, double* h) {
#ifdef KERNLEARN_X86_DISPATCH
  switch (active_simd()) {
    case Simd::avx512:
      return project_avx512(V, ld, n, cols, w, h);
    case Simd::avx2:
      return project_avx2(V, ld, n, cols, w, h);
    case Simd::none:
      break;
  }
#endif
  project_portable(V, ld, n, cols, w, h);
}

void subtract_combination(const double* V, Index ld, Index n, Index cols, const double* h, double* w) {
#ifdef KERNLEARN_X86_DISPATCH
  switch (active_simd()) {
    case Simd::avx512:
      return subtract_avx512(V, ld, n, cols, h, w);
    case Simd::avx2:
      return subtract_avx2(V, ld, n, cols, h, w);
    case Simd::none:
      break;
  }
#endif
  subtract_portable(V, ld, n, cols, h, w);
}

void subtract_then_project(const double* V, Index ld, Index n, Index cols, const double* h, double* w, double* h2) {
#ifdef KERNLEARN_X86_DISPATCH
  if (active_simd() == Simd::avx512) {
    thread_local std::vector<double> lanes;
    lanes.resize(static_cast<std::size_t>(8 * cols));
    return subtract_then_project_avx512(V, ld, n, cols, h, w, h2, lanes.data());
  }
#endif
  subtract_combination(V, ld, n, cols, h, w);
  project(V, ld, n, cols, w, h2);
}

void rotate_basis(const double* V, Index ldv, Index n, Index m, const double* S, Index lds, Index p, double* Y,
                  Index ldy) {
#ifdef KERNLEARN_X86_DISPATCH
  switch (active_simd()) {
    case Simd::avx512:
      return rotate_avx512(V, ldv, n, m, S, lds, p, Y, ldy);
    case Simd::avx2:
      return rotate_avx2(V, ldv, n, m, S, lds, p, Y, ldy);
    case Simd::none:
      break;
  }
#endif
  rotate_portable(V, ldv, n, m, S, lds, p, Y, ldy);
}

}  // namespace kernlearn

namespace kernlearn {

namespace {
// Blocks of at least 512 rows (a column strip of 4 KB), at most 24.
constexpr Index kMinBlockRows = 512;
constexpr Index kMaxBlocks = 24;

// The block count for n rows: as many as fit, rounded down to a multiple of 12 where possible
// (equal shares for teams of 2, 3, 4 and 6 threads), else of 6 or 2. At n = 10^4 the old count,
// 19, gave two threads unequal shares.
Index block_count(Index n) {
  const Index fit = std::clamp<Index>(n / kMinBlockRows, 1, kMaxBlocks);
  for (Index multiple : {12, 6, 2})
    if (fit >= multiple) return fit / multiple * multiple;
  return fit;
}

double squared_norm(const double* w, Index rows) { return Eigen::Map<const Eigen::VectorXd>(w, rows).squaredNorm(); }
}  // namespace

BasisProducts::BasisProducts(Index n, ThreadTeam& team) : team_(team) {
  const Index blocks = block_count(n);
  starts_.resize(static_cast<std::size_t>(blocks + 1));
  // Block boundaries on multiples of 8 rows, so the SIMD kernels see whole strips.
  for (Index b = 0; b <= blocks; ++b)
    starts_[static_cast<std::size_t>(b)] = b == blocks ? n : std::min(n, (n * b / blocks) / 8 * 8);
  scalars_.resize(static_cast<std::size_t>(blocks));
}

template <class Fn>
void BasisProducts::for_blocks(Fn&& fn) {
  const Index blocks = static_cast<Index>(scalars_.size());
  auto block = [&](Index b) {
    const Index first = starts_[static_cast<std::size_t>(b)];
    fn(b, first, starts_[static_cast<std::size_t>(b + 1)] - first);
  };
  // Below the mat-vecs' threshold the sections are too short for a team (bench/results/threads.md).
  if (blocks == 1 || team_.size() == 1 || starts_.back() < solver_choice::kTeamMinRows) {
    for (Index b = 0; b < blocks; ++b) block(b);
    return;
  }
  // Each thread starts on its own contiguous run of blocks, as the operators split their rows
  // (operator.cpp): it then sweeps the rows of w and of the newest basis vector that its own
  // mat-vec share just wrote, from its own cache, which round robin would not
  // (bench/results/eigsh.md). Blocks left by a preempted thread go to the others.
  team_.for_each(blocks, [&](int, Index b) { block(b); });
}

void BasisProducts::reserve(Index cols) {
  if (cols <= stride_) return;
  stride_ = cols;
  partial_.resize(static_cast<std::size_t>(stride_) * scalars_.size());
}

void BasisProducts::reduce(Index len, double* out) const {
  std::fill(out, out + len, 0.0);
  for (std::size_t b = 0; b < scalars_.size(); ++b) {
    const double* part = partial_.data() + b * static_cast<std::size_t>(stride_);
    for (Index c = 0; c < len; ++c) out[c] += part[c];
  }
}

double BasisProducts::reduce_scalars() const {
  double total = 0.0;
  for (double s : scalars_) total += s;
  return total;
}

void BasisProducts::project(const double* V, Index ld, Index cols, const double* w, double* h) {
  reserve(cols);
  for_blocks([&](Index b, Index first, Index rows) {
    kernlearn::project(V + first, ld, rows, cols, w + first, partial_.data() + b * stride_);
  });
  reduce(cols, h);
}

double BasisProducts::subtract_pair_then_project(const double* x, double a, const double* y, double b, const double* V,
                                                 Index ld, Index cols, double* w, double* h) {
  reserve(cols);
  for_blocks([&](Index blk, Index first, Index rows) {
    for (Index i = first; i < first + rows; ++i) w[i] -= a * x[i] + b * y[i];
    scalars_[static_cast<std::size_t>(blk)] = squared_norm(w + first, rows);
    kernlearn::project(V + first, ld, rows, cols, w + first, partial_.data() + blk * stride_);
  });
  reduce(cols, h);
  return reduce_scalars();
}

double BasisProducts::subtract_then_project(const double* V, Index ld, Index cols, const double* h, double* w,
                                            double* h2) {
  reserve(cols);
  for_blocks([&](Index b, Index first, Index rows) {
    kernlearn::subtract_then_project(V + first, ld, rows, cols, h, w + first, partial_.data() + b * stride_);
    scalars_[static_cast<std::size_t>(b)] = squared_norm(w + first, rows);
  });
  reduce(cols, h2);
  return reduce_scalars();
}

double BasisProducts::subtract(const double* V, Index ld, Index cols, const double* h, double* w) {
  for_blocks([&](Index b, Index first, Index rows) {
    subtract_combination(V + first, ld, rows, cols, h, w + first);
    scalars_[static_cast<std::size_t>(b)] = squared_norm(w + first, rows);
  });
  return reduce_scalars();
}

double BasisProducts::subtract_columns(const double* V, Index ld, const std::vector<Index>& columns, const double* h,
                                       double* w) {
  // Runs of consecutive columns go through the SIMD kernel of subtract (w stays in registers
  // across a run): one column at a time, the Eigen axpy reloaded and stored w per column and took
  // a fifth of the time of SimpleNPKL's high-rank solves at n = 10^5, where the lost columns are
  // many and mostly adjacent (bench/results/npkl_sequence.md, 2026-12-07).
  for_blocks([&](Index b, Index first, Index rows) {
    std::size_t k = 0;
    while (k < columns.size()) {
      std::size_t end = k + 1;
      while (end < columns.size() && columns[end] == columns[end - 1] + 1) ++end;
      const Index c = columns[k];
      subtract_combination(V + c * ld + first, ld, rows, static_cast<Index>(end - k), h + c, w + first);
      k = end;
    }
    scalars_[static_cast<std::size_t>(b)] = Eigen::Map<const Eigen::VectorXd>(w + first, rows).squaredNorm();
  });
  return reduce_scalars();
}

double BasisProducts::dot(const double* x, const double* y) {
  for_blocks([&](Index b, Index first, Index rows) {
    scalars_[static_cast<std::size_t>(b)] =
        Eigen::Map<const Eigen::VectorXd>(x + first, rows).dot(Eigen::Map<const Eigen::VectorXd>(y + first, rows));
  });
  return reduce_scalars();
}

void BasisProducts::scale(const double* x, double a, double* y) {
  for_blocks([&](Index, Index first, Index rows) {
    Eigen::Map<Eigen::VectorXd>(y + first, rows) = a * Eigen::Map<const Eigen::VectorXd>(x + first, rows);
  });
}

void BasisProducts::rotate(const double* V, Index ldv, Index m, const double* S, Index lds, Index p, double* Y,
                           Index ldy) {
  for_blocks([&](Index, Index first, Index rows) { rotate_basis(V + first, ldv, rows, m, S, lds, p, Y + first, ldy); });
}

void BasisProducts::rotate(const double* V, Index ldv, Index m, const double* S, Index lds, Index p, double* Y,
                           Index ldy, const InterruptPoll& poll) {
  if (!poll) return rotate(V, ldv, m, S, lds, p, Y, ldy);
  // Panels of about 2^25 multiply-adds (milliseconds), on multiples of 8 rows as the blocks, so
  // the SIMD kernels see the same strips and each row the same arithmetic.
  constexpr Index kPanelWork = Index{1} << 25;
  // One panel per item, the calling thread polling between them.
  const Index n = starts_.back();
  const Index panel = std::max<Index>(8, kPanelWork / std::max<Index>(1, m * p) / 8 * 8);
  team_.for_each((n + panel - 1) / panel,
                 [&](int, Index item) {
                   const Index first = item * panel, rows = std::min(panel, n - first);
                   rotate_basis(V + first, ldv, rows, m, S, lds, p, Y + first, ldy);
                 },
                 poll);
}

}  // namespace kernlearn
