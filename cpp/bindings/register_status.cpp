// Binding of core/status.hpp: the status every solver result carries.
#include "common.hpp"

namespace kernlearn::bindings {

void register_status(py::module_& m) {
  py::native_enum<SolverStatus>(m, "SolverStatus", "enum.Enum", "How an iterative solver ended.")
      .value("converged", SolverStatus::converged, "the stopping certificate met tol")
      .value("max_iter", SolverStatus::max_iter, "the iteration cap came first")
      .value("not_converged", SolverStatus::not_converged, "stopped early without the certificate")
      .value("interrupted", SolverStatus::interrupted, "the callback asked to stop")
      .finalize();
}

}  // namespace kernlearn::bindings
