// The one definition of the distance kNN ranks by. Every search calls this exact function so that
// the kd-tree and the brute force agree bitwise (no -ffast-math: summation order is fixed).
#pragma once

#include "kernlearn/types.hpp"

namespace kernlearn {

inline double squared_distance(const double* a, const double* b, Index d) {
  double s = 0.0;
  for (Index j = 0; j < d; ++j) {
    const double diff = a[j] - b[j];
    s += diff * diff;
  }
  return s;
}

inline double dot(const double* a, const double* b, Index d) {
  double s = 0.0;
  for (Index j = 0; j < d; ++j) s += a[j] * b[j];
  return s;
}

}  // namespace kernlearn
