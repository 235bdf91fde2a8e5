// Dot products and axpy on contiguous vectors, on the SIMD kernel family simd.hpp picks: the
// innermost loops of the SICE solver (coordinate descent and the Hessian products run them on
// columns of length m, the feature count, millions of times) and the rows of a dense kernel's
// mat-vec, where Eigen built for baseline x86-64 uses SSE2 only.
#pragma once

#include "kernlearn/core/types.hpp"

namespace kernlearn {

// <x, y> over n entries.
double dot(const double* x, const double* y, Index n);

// y += a x over n entries.
void axpy(double a, const double* x, double* y, Index n);

}  // namespace kernlearn
