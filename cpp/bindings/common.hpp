// Helpers shared by the binding files: interruption, zero-copy outputs, LAPACK from scipy, CSR
// input; boundary.hpp has the option, result and monitor classes.
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <utility>
#include <vector>

// Enums are bound as Python enum.Enum types (py::native_enum): each py::enum_ cost 2-5 s of compile
// time, a quarter of the bindings' (bench/results/build_time.md).
#include <pybind11/native_enum.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include "kernlearn/core/parallel.hpp"
#include "kernlearn/linalg/dense_eigen.hpp"
#include "kernlearn/neighbors/graph.hpp"

#include "boundary.hpp"

namespace kernlearn::bindings {

namespace py = pybind11;

// Poll function for the core: called by the thread that called into C++ (Python's main thread
// when the user presses Ctrl-C), with the GIL released, so it takes the GIL to run the handlers.
// A raised KeyboardInterrupt stays set as the Python error and is re-raised by run_interruptible.
// The GIL is taken at most once per kPollInterval; between those a poll costs one clock read, so
// the core may poll as often as every mat-vec or block and still stop within a second.
// Python runs signal handlers only in the main thread (PyErr_CheckSignals does nothing in any
// other), so a call made from another thread never polls: taking the GIL there only waited on
// the process's other Python threads (a Dask worker's profiler wakes every 10 ms): beside a busy
// Python thread a Phi(W) task took 4.24 s against 3.16 s alone (bench/results/distributed.md).
// Ctrl-C still stops such a call's caller: _utils/_interruptible.py waits in the main thread.
// May be created with or without the GIL (the main thread's id is read once, at import).
inline std::atomic<unsigned long>& python_main_thread() {
  static std::atomic<unsigned long> ident{0};
  return ident;
}

// Called once by the module's init, with the GIL held.
inline void remember_python_main_thread() {
  python_main_thread() = py::module_::import("threading").attr("main_thread")().attr("ident").cast<unsigned long>();
}

inline InterruptPoll python_interrupt_poll() {
  using Clock = std::chrono::steady_clock;
  static constexpr auto kPollInterval = std::chrono::milliseconds(20);
  if (PyThread_get_thread_ident() != python_main_thread().load()) return [] { return false; };
  auto next = std::make_shared<Clock::time_point>(Clock::time_point::min());
  return [next] {
    const auto now = Clock::now();
    if (now < *next) return false;
    *next = now + kPollInterval;
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
  return py::array_t<T>({static_cast<py::ssize_t>(owned->size())}, {sizeof(T)}, owned->data(), free_when_done);
}

// A routine from the function tables scipy.linalg.cython_lapack / cython_blas export for exactly
// this use: the core gets LAPACK and BLAS without the wheel shipping them.
template <class Fn>
Fn scipy_routine(const char* module, const char* name) {
  py::dict table = py::module_::import(module).attr("__pyx_capi__");
  return reinterpret_cast<Fn>(table[name].cast<py::capsule>().get_pointer());
}

template <class Fn>
Fn scipy_lapack(const char* name) {
  return scipy_routine<Fn>("scipy.linalg.cython_lapack", name);
}

template <class Fn>
Fn scipy_blas(const char* name) {
  return scipy_routine<Fn>("scipy.linalg.cython_blas", name);
}

// Every routine the dense eigensolvers use (kernlearn/dense_eigen.hpp).
inline const DenseLapack& scipy_dense_lapack() {
  static const DenseLapack lapack = [] {
    DenseLapack l;
    l.exact = {scipy_lapack<SytrdFn<double>>("dsytrd"), scipy_lapack<StedcFn<double>>("dstedc"),
               scipy_lapack<OrmtrFn<double>>("dormtr"), scipy_lapack<LatrdFn<double>>("dlatrd"),
               scipy_blas<Syr2kFn<double>>("dsyr2k"),   scipy_lapack<Sytd2Fn<double>>("dsytd2")};
    l.dstemr = scipy_lapack<DstemrFn>("dstemr");
    l.single = {scipy_lapack<SytrdFn<float>>("ssytrd"), scipy_lapack<StedcFn<float>>("sstedc"),
                scipy_lapack<OrmtrFn<float>>("sormtr"), scipy_lapack<LatrdFn<float>>("slatrd"),
                scipy_blas<Syr2kFn<float>>("ssyr2k"),   scipy_lapack<Sytd2Fn<float>>("ssytd2")};
    l.dsygvd = scipy_lapack<DsygvdFn>("dsygvd");
    l.dgemm = scipy_blas<DgemmFn>("dgemm");
    l.dsyrk = scipy_blas<DsyrkFn>("dsyrk");
    return l;
  }();
  return lapack;
}

// A CSR matrix copied from numpy arrays, checked for consistent shapes and in-range indices.
inline Csr csr_from_python(Index n, const py::array_t<double, py::array::c_style>& data,
                           const py::array_t<Index, py::array::c_style>& indices,
                           const py::array_t<Index, py::array::c_style>& indptr) {
  if (n < 0) throw std::invalid_argument("n must be >= 0, got " + std::to_string(n));
  if (indptr.ndim() != 1 || indptr.shape(0) != n + 1) throw std::invalid_argument("indptr must have n + 1 entries");
  if (indices.ndim() != 1 || data.ndim() != 1 || indices.shape(0) != data.shape(0))
    throw std::invalid_argument("indices and data must be 1-D of equal length");
  Csr S;
  S.n = n;
  S.indptr.assign(indptr.data(), indptr.data() + indptr.shape(0));
  S.indices.assign(indices.data(), indices.data() + indices.shape(0));
  S.data.assign(data.data(), data.data() + data.shape(0));
  if (S.indptr.front() != 0 || S.indptr.back() != static_cast<Index>(S.indices.size()))
    throw std::invalid_argument("indptr is inconsistent with indices");
  for (Index i = 0; i < n; ++i)
    if (S.indptr[i] > S.indptr[i + 1]) throw std::invalid_argument("indptr must be non-decreasing");
  for (Index c : S.indices)
    if (c < 0 || c >= n) throw std::invalid_argument("indices out of range");
  return S;
}

// One per binding file; module.cpp calls each with its layer's submodule.
void register_linalg(py::module_& m);
void register_neighbors(py::module_& m);
void register_kernels(py::module_& m);
void register_constraints(py::module_& m);
void register_npkl(py::module_& m);
void register_embedding(py::module_& m);
void register_iklr(py::module_& m);
void register_kdac(py::module_& m);
void register_sice(py::module_& m);
void register_affinity(py::module_& m);

}  // namespace kernlearn::bindings
