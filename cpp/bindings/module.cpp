// The extension module kernlearn._core: one register_<concept> call per binding file.
#include "common.hpp"

PYBIND11_MODULE(_core, m) {
  m.doc() = "kernlearn's C++ core. Use the Python wrappers (kernlearn.graph, ...), which validate input.";
  kernlearn::bindings::register_graph(m);
  kernlearn::bindings::register_eigensolver(m);
  kernlearn::bindings::register_constraints(m);
  kernlearn::bindings::register_npkl(m);
  kernlearn::bindings::register_embedding(m);
  kernlearn::bindings::register_kernels(m);
  kernlearn::bindings::register_hsic(m);
  kernlearn::bindings::register_sice(m);
}
