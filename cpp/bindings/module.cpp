// The extension module kernlearn._core: one submodule per layer of the C++ library, each filled
// by the register functions of its binding files (boost-histogram's module.cpp is the model).
#include "common.hpp"

PYBIND11_MODULE(_core, m) {
  namespace kb = kernlearn::bindings;
  m.doc() = "kernlearn's C++ core, one submodule per layer. Use the Python wrappers, which validate input.";
  auto core = m.def_submodule("core", "Shared by every layer: the solver status and the thread cap.");
  kb::register_status(core);
  kb::register_threads(core);
  auto linalg = m.def_submodule("linalg", "Thick-restart Lanczos and dense eigensolvers.");
  kb::register_linalg(linalg);
  auto neighbors = m.def_submodule("neighbors", "Exact kNN, kNN graphs and Laplacians.");
  kb::register_neighbors(neighbors);
  auto kernels = m.def_submodule("kernels", "Kernel matrices, kernel products and HSIC blocks.");
  kb::register_kernels(kernels);
  auto methods = m.def_submodule("methods", "The learning methods' solvers.");
  kb::register_constraints(methods);
  kb::register_npkl(methods);
  kb::register_embedding(methods);
  kb::register_iklr(methods);
  kb::register_kdac(methods);
  kb::register_sice(methods);
}
