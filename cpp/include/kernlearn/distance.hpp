// The one definition of the distance kNN ranks by. Every search calls this exact function so that
// the kd-tree and the brute force agree bitwise (no -ffast-math: summation order is fixed).
#pragma once

#include "kernlearn/types.hpp"

namespace kernlearn {

// Four running sums (dimension j in sum j mod 4), combined pairwise at the end: one fixed order
// on every call, and four independent chains where one would wait on each addition's latency
// (the brute force's exact distances at d = 123 were bound by it).
inline double squared_distance(const double* a, const double* b, Index d) {
  double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
  Index j = 0;
  for (; j + 4 <= d; j += 4) {
    const double d0 = a[j] - b[j], d1 = a[j + 1] - b[j + 1], d2 = a[j + 2] - b[j + 2], d3 = a[j + 3] - b[j + 3];
    s0 += d0 * d0;
    s1 += d1 * d1;
    s2 += d2 * d2;
    s3 += d3 * d3;
  }
  for (; j < d; ++j) {
    const double diff = a[j] - b[j];
    s0 += diff * diff;
  }
  return (s0 + s1) + (s2 + s3);
}

inline double dot(const double* a, const double* b, Index d) {
  double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
  Index j = 0;
  for (; j + 4 <= d; j += 4) {
    s0 += a[j] * b[j];
    s1 += a[j + 1] * b[j + 1];
    s2 += a[j + 2] * b[j + 2];
    s3 += a[j + 3] * b[j + 3];
  }
  for (; j < d; ++j) s0 += a[j] * b[j];
  return (s0 + s1) + (s2 + s3);
}

}  // namespace kernlearn
