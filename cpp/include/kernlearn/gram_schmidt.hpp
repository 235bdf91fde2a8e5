// The two matrix-vector products of classical Gram-Schmidt against a column-major basis, on the
// SIMD kernel family simd.hpp picks. They dominate a Lanczos step once the basis is wide (a few
// dozen columns of a 10^4-row matrix outweigh a sparse mat-vec), and Eigen built for baseline
// x86-64 would run them with SSE2 only.
#pragma once

#include "kernlearn/types.hpp"

namespace kernlearn {

// h[c] = <V[:, c], w> for c < cols; V is n x cols, column-major with leading dimension ld.
void project(const double* V, Index ld, Index n, Index cols, const double* w, double* h);

// w -= V h.
void subtract_combination(const double* V, Index ld, Index n, Index cols, const double* h, double* w);

}  // namespace kernlearn
