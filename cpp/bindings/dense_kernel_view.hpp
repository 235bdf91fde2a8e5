// A numpy kernel matrix seen as the core's DenseKernel without a copy: shared by the kernels and
// IKLR bindings.
#pragma once

#include "kernlearn/kernels/kernel_matrix.hpp"

#include "common.hpp"

namespace kernlearn::bindings {

// A square C-contiguous float32/float64 array, seen without a copy.
template <class Fn>
auto with_dense_kernel(const py::array& K, Fn&& fn) {
  if (K.ndim() != 2 || K.shape(0) != K.shape(1)) throw std::invalid_argument("K must be a square 2-D array");
  if (!(K.flags() & py::array::c_style)) throw std::invalid_argument("K must be C-contiguous");
  const Index n = K.shape(0);
  if (K.dtype().is(py::dtype::of<float>())) return fn(DenseKernel<float>(static_cast<const float*>(K.data()), n));
  if (K.dtype().is(py::dtype::of<double>())) return fn(DenseKernel<double>(static_cast<const double*>(K.data()), n));
  throw std::invalid_argument("K must be float32 or float64");
}

}  // namespace kernlearn::bindings
