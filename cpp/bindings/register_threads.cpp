// Binding of the process-wide thread cap (core/parallel.hpp), to Python and to threadpoolctl.
//
// threadpoolctl finds a library by the file name of a loaded shared object and then calls C
// functions in it through ctypes; kernlearn's controller (kernlearn/_utils/_threadpool.py) looks
// for this extension module and the two symbols below, exported with C linkage and default
// visibility (pybind11 hides everything else).
#include "common.hpp"

extern "C" {
// The most threads a kernlearn parallel section may use now (>= 1).
__attribute__((visibility("default"))) int kernlearn_get_num_threads() { return kernlearn::thread_cap(); }

// Caps every later section at num_threads (>= 1); a value below 1 is ignored (threadpoolctl never
// passes one, and the caller of a C ABI cannot catch a C++ exception).
__attribute__((visibility("default"))) void kernlearn_set_num_threads(int num_threads) {
  if (num_threads >= 1) kernlearn::set_thread_limit(num_threads);
}
}

namespace kernlearn::bindings {

void register_threads(py::module_& m) {
  m.def("thread_cap", &thread_cap,
        "The most threads a parallel section may use now: the usable cores, lowered by the process-wide "
        "limit (threadpoolctl's threadpool_limits sets it).");
  m.def("idle_cores", &idle_cores,
        "The usable cores minus the runnable tasks of other processes at this instant (Linux /proc), at least 1; "
        "all usable cores where that count does not describe them (a CPU subset, no /proc).");
  m.def(
      "set_thread_limit", [](int limit) { set_thread_limit(limit); }, py::arg("limit"),
      "Caps every later parallel section at limit threads (>= 1); 0 removes the cap.");
}

}  // namespace kernlearn::bindings
