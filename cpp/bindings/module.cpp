// The extension module kernlearn._core: one submodule per layer of the C++ library, each filled
// by the register functions of its binding files (boost-histogram's module.cpp is the model).
#include "common.hpp"
#include "operators.hpp"

PYBIND11_MODULE(_core, m) {
  namespace kb = kernlearn::bindings;
  kb::remember_python_main_thread();
  m.doc() = "kernlearn's C++ core, one submodule per layer. Use the Python wrappers, which validate input.";
  auto core = m.def_submodule("core", "Shared by every layer: the solver status and the thread cap.");
  kb::register_status(core);
  kb::register_threads(core);
  auto linalg = m.def_submodule("linalg", "Operators, thick-restart Lanczos and dense eigensolvers.");
  auto neighbors = m.def_submodule("neighbors", "Exact kNN, kNN graphs and Laplacians.");
  auto kernels = m.def_submodule("kernels", "Kernel matrices, kernel operators and HSIC blocks.");
  // Types before the functions whose signatures name them: the kernels' enums and options, then
  // the Operator class (linalg) with its kernel factory, then the solvers.
  kb::register_kernels(kernels);
  kb::register_operators(linalg, kernels);
  kb::register_linalg(linalg);
  kb::register_neighbors(neighbors);
  auto methods = m.def_submodule("methods", "The learning methods' solvers.");
  kb::register_constraints(methods);
  kb::register_npkl(methods);
  kb::register_embedding(methods);
  kb::register_iklr(methods);
  kb::register_kdac(methods);
  kb::register_sice(methods);
  kb::register_affinity(methods);
}
