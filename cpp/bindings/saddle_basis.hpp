// The fixed basis of Section 5.4 as the SimpleNPKL and embedding bindings take it.
#pragma once

#include <optional>

#include "common.hpp"

namespace kernlearn::bindings {

// The fixed basis of Section 5.4, n x r, arrives row-major from numpy; the core's projected
// products want it column-major, so it is copied here once, explicitly. None: no basis.
inline Eigen::MatrixXd basis_arg(const std::optional<MatrixRef>& basis) {
  if (!basis) return {};
  return Eigen::MatrixXd(*basis);
}

}  // namespace kernlearn::bindings
