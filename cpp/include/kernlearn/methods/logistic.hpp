// The logistic loss and its weight at a margin, overflow-free for either sign: what IKLR's exact
// solvers (iklr.cpp) and its Nystrom model (iklr_nystrom.cpp) share.
#pragma once

#include <cmath>

namespace kernlearn::logistic {

// log(1 + exp(-m)).
inline double loss(double m) { return m > 0 ? std::log1p(std::exp(-m)) : -m + std::log1p(std::exp(m)); }

// 1 / (1 + exp(m)): the weight beta of IKLR's eq. (11) at margin m = y_i f_i, minus the loss's
// derivative; beta (1 - beta) is its curvature.
inline double tail_weight(double m) {
  if (m >= 0) {
    const double e = std::exp(-m);
    return e / (1.0 + e);
  }
  return 1.0 / (1.0 + std::exp(m));
}

}  // namespace kernlearn::logistic
