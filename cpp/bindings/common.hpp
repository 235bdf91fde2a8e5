// Helpers shared by the binding files: interruption, error mapping, zero-copy outputs.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <memory>
#include <utility>
#include <vector>

#include "kernlearn/parallel.hpp"

namespace kernlearn::bindings {

namespace py = pybind11;

// Poll function for the core: called by the thread that called into C++ (Python's main thread
// when the user presses Ctrl-C), with the GIL released, so it takes the GIL to run the handlers.
// A raised KeyboardInterrupt stays set as the Python error and is re-raised by run_interruptible.
inline InterruptPoll python_interrupt_poll() {
  return [] {
    py::gil_scoped_acquire gil;
    return PyErr_CheckSignals() != 0;
  };
}

// Runs fn() without the GIL. Safe because fn touches only C++ data (Eigen maps of arrays the
// caller keeps alive), never a py::object. Returns fn's result after re-taking the GIL.
template <class Fn>
auto run_interruptible(Fn&& fn) -> decltype(fn()) {
  try {
    py::gil_scoped_release release;
    return fn();
  } catch (const Interrupted&) {
    throw py::error_already_set();  // the KeyboardInterrupt PyErr_CheckSignals set
  }
}

// Hands a std::vector to numpy without copying: the array owns the vector through a capsule.
template <class T>
py::array_t<T> to_numpy(std::vector<T>&& v) {
  auto* owned = new std::vector<T>(std::move(v));
  py::capsule free_when_done(owned, [](void* p) { delete static_cast<std::vector<T>*>(p); });
  return py::array_t<T>({static_cast<py::ssize_t>(owned->size())}, {sizeof(T)}, owned->data(),
                        free_when_done);
}

void register_graph(py::module_& m);
void register_eigensolver(py::module_& m);
void register_constraints(py::module_& m);
void register_npkl(py::module_& m);

}  // namespace kernlearn::bindings
