// A numpy kernel matrix seen without a copy, for kernel_matvec (the solvers take Operators,
// operators.hpp).
#pragma once

#include "kernlearn/kernels/kernel_matrix.hpp"

#include "common.hpp"

namespace kernlearn::bindings {

// fn(data, n) for a square C-contiguous float32/float64 array, seen without a copy.
template <class Fn>
auto with_dense_kernel(const py::array& K, Fn&& fn) {
  if (K.ndim() != 2 || K.shape(0) != K.shape(1)) throw std::invalid_argument("K must be a square 2-D array");
  if (!(K.flags() & py::array::c_style)) throw std::invalid_argument("K must be C-contiguous");
  const Index n = K.shape(0);
  if (K.dtype().is(py::dtype::of<float>())) return fn(static_cast<const float*>(K.data()), n);
  if (K.dtype().is(py::dtype::of<double>())) return fn(static_cast<const double*>(K.data()), n);
  throw std::invalid_argument("K must be float32 or float64");
}

}  // namespace kernlearn::bindings
