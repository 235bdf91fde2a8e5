// The one definition of the distance kNN ranks by. Every search calls this exact function so that
// the kd-tree and the brute force agree bitwise (no -ffast-math: summation order is fixed).
#pragma once

#include <cmath>
#include <stdexcept>
#include <string>

#include "kernlearn/core/types.hpp"

namespace kernlearn {

// The one summation order: term j into running sum j mod 4, the four combined pairwise at the
// end. Four independent chains where one would wait on each addition's latency (the brute
// force's exact distances at d = 123 were bound by it). A kd-tree box's bound sums its terms in
// the same order, and each of its terms is no larger than the point's (rounding is monotone), so
// the bound never exceeds the distance of a point in the box and no tie is pruned.
template <class Term>
inline double ordered_sum(Index d, const Term& term) {
  double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
  Index j = 0;
  for (; j + 4 <= d; j += 4) {
    s0 += term(j);
    s1 += term(j + 1);
    s2 += term(j + 2);
    s3 += term(j + 3);
  }
  for (; j < d; ++j) s0 += term(j);
  return (s0 + s1) + (s2 + s3);
}

inline double squared_distance(const double* a, const double* b, Index d) {
  return ordered_sum(d, [&](Index j) {
    const double diff = a[j] - b[j];
    return diff * diff;
  });
}

// Data whose largest magnitude lies in [2^-200, 2^200] has squared distances far from overflow
// (4 d 2^400 < 2^1023 for any d) and keeps differences down to 2^-511 clear of underflow; it is
// searched as given. Data outside is searched as X 2^-e, e = safe_exponent(max |x|), which puts
// the largest entry in [2^199, 2^200): exact (a power of two), and the top of the range leaves the
// most room below for small differences (1e170 next to O(1) data keeps both exact). Distances
// are scaled back by 2^e.
inline constexpr double kSafeMin = 0x1p-200, kSafeMax = 0x1p200;
inline int safe_exponent(double largest) {
  if (largest == 0.0 || (largest >= kSafeMin && largest <= kSafeMax)) return 0;
  return std::ilogb(largest) - 199;
}

// The exponents safe_exponent returns for some finite double: ilogb spans [-1074, 1023]. A block
// search given any other (10^9, say) would scale every entry to 0 or infinity and return
// arbitrary neighbours, so the blocked searches refuse it.
inline constexpr int kMinScaleExponent = -1074 - 199, kMaxScaleExponent = 1023 - 199;
inline void check_scale_exponent(int scale_exponent) {
  if (scale_exponent < kMinScaleExponent || scale_exponent > kMaxScaleExponent)
    throw std::invalid_argument("scale_exponent must be in [" + std::to_string(kMinScaleExponent) + ", " +
                                std::to_string(kMaxScaleExponent) + "] (the values knn_scale_exponent returns), got " +
                                std::to_string(scale_exponent));
}

// Named apart from vector_ops.hpp's SIMD dot, which sums in another order.
inline double ranking_dot(const double* a, const double* b, Index d) {
  return ordered_sum(d, [&](Index j) { return a[j] * b[j]; });
}

}  // namespace kernlearn
