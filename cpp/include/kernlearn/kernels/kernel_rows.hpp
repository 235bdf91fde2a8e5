// The inner loops of every pairwise kernel of the library, on SIMD registers: one row of
// k(x, Y) + c at a time, and that row's share of a product (y += k V, and the mirrored W += k v').
//
// One function computes the entries for the dense matrices (pairwise_kernel), the on-the-fly
// operator (kernel_operator.hpp) and the tasks of a Dask cluster (they call pairwise_kernel), so a
// kernel entry is the same double in all three: a product differs between them only in the order
// of its sums. The squared (RBF) or absolute (TL1) differences are summed feature by feature, in
// order, each with one fused multiply-add, which makes k(x_i, x_j) == k(x_j, x_i) bitwise.
//
// exp is ours (a degree-13 Taylor polynomial after Cody-Waite reduction by ln 2, within 2 ulp of
// the correctly rounded value; results below the smallest normal number are 0), identical on
// AVX-512 and AVX2. Without either (an x86-64 CPU older than 2013, another architecture or
// KERNLEARN_SIMD=none) the entries use the C library's exp and separate multiplies and adds, and
// agree with the SIMD ones to rounding.
#pragma once

#include <cstddef>

#include "kernlearn/core/types.hpp"

namespace kernlearn {

enum class PairwiseKind { tl1, rbf };

// tl1: max(tau - ||x - y||_1, 0), the truncated l1-distance kernel (Huang et al., TNNLS 2018;
//      indefinite in general).
// rbf: exp(-gamma ||x - y||^2).
struct PairwiseKernel {
  PairwiseKind kind = PairwiseKind::rbf;
  double tau = 1.0;
  double gamma = 1.0;
};

// Rows of a panel: the kernel routines below read and write whole chunks of kPanelChunk entries,
// so a panel of m points has room for padded(m) of them (the columns past m hold copies of a real
// point, and the entries computed for them are never used).
constexpr Index kPanelChunk = 64;
constexpr Index padded(Index m) { return (m + kPanelChunk - 1) / kPanelChunk * kPanelChunk; }

// out[j] = k(x, y_j) + constant for j in [0, padded(m)), where Yt is a feature-major panel:
// feature f of point j at Yt[f * ld + j] (ld >= the panel's padded width). x has d entries.
// Scalar float computes in single precision throughout (the float32 tiles of the operator).
template <class Scalar>
void kernel_row(const PairwiseKernel& kernel, double constant, const Scalar* x, const Scalar* Yt, Index ld, Index m,
                Index d, Scalar* out);

// The products of one kernel row k (m entries) with b-column row-major blocks: y (b) += sum_j
// k_j V[j, :] and, when W is not null, W[j, :] += k_j v for j in [0, m) (the mirrored tile of a
// symmetric kernel). V and W have leading dimension b; sums are accumulated in double.
template <class Scalar>
void row_products(const Scalar* k, Index m, const double* V, Index b, double* y, const double* v, double* W);

// y[c] += sum_j k_j Vt[c * ld + j] for c in [0, b): a row of m entries against b columns stored
// column-major with leading dimension ld (the stored kernel's narrow blocks: each entry of the row
// loaded once for all columns). Sums in double.
template <class Scalar>
void row_dots(const Scalar* k, Index m, const double* Vt, Index ld, Index b, double* y);

// exp(x) for n values x <= 0 (the routine of kernel_row; exposed for its tests).
void exp_nonpositive(const double* x, double* out, Index n);

}  // namespace kernlearn
