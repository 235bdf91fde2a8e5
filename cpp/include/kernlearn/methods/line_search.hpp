// The Armijo backtracking that IKLR's two Newton solvers (iklr.cpp, iklr_nystrom.cpp) share.
#pragma once

#include <cmath>
#include <limits>

namespace kernlearn {

struct ArmijoStep {
  double step = 0.0;   // the accepted step length
  double value = 0.0;  // F at it
  bool accepted = false;
};

// From step 1, halving up to 60 times: the first step s with a finite F(s) = value_at(s) <=
// f + 1e-4 s slope + 16 eps |f| (the slack admits F's rounding floor near the optimum). Not
// accepted: no such step (the rounding floor of F, or a non-finite value).
template <class ValueAt>
ArmijoStep armijo_backtrack(double f, double slope, ValueAt&& value_at) {
  const double slack = 16.0 * std::numeric_limits<double>::epsilon() * std::abs(f);
  double step = 1.0;
  for (int halving = 0; halving < 60; ++halving) {
    const double value = value_at(step);
    if (std::isfinite(value) && value <= f + 1e-4 * step * slope + slack) return {step, value, true};
    step *= 0.5;
  }
  return {};
}

}  // namespace kernlearn
