// Dense products with a column-major Lanczos basis, on the SIMD kernel family simd.hpp picks: the
// two matrix-vector products of classical Gram-Schmidt, and the basis rotation of a thick restart.
// They dominate Lanczos once the basis is wide (a hundred columns of a 10^4-row matrix outweigh a
// sparse mat-vec), and Eigen built for baseline x86-64 would run them with SSE2 only.
#pragma once

#include "kernlearn/types.hpp"

namespace kernlearn {

// h[c] = <V[:, c], w> for c < cols; V is n x cols, column-major with leading dimension ld.
void project(const double* V, Index ld, Index n, Index cols, const double* w, double* h);

// w -= V h.
void subtract_combination(const double* V, Index ld, Index n, Index cols, const double* h, double* w);

// w -= V h, then h2 = V' w (the new w), in one pass over V: each strip of rows is subtracted and
// then projected while it is in L1. It fuses the first subtraction of Gram-Schmidt with the
// projection of the second pass.
void subtract_then_project(const double* V, Index ld, Index n, Index cols, const double* h, double* w,
                           double* h2);

// Y = V S: V is n x m (leading dimension ldv), S is m x p (ldS), Y is n x p (ldy); Y must not
// overlap V.
void rotate_basis(const double* V, Index ldv, Index n, Index m, const double* S, Index lds, Index p,
                  double* Y, Index ldy);

}  // namespace kernlearn
