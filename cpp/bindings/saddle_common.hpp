// What the SimpleNPKL and embedding bindings share: the per-iteration monitor (Ctrl-C, then the
// user's callback) and the conversion of a SaddleResult to a dict.
#pragma once

#include <optional>
#include <string>

#include <pybind11/eigen.h>
#include <pybind11/functional.h>

#include "kernlearn/methods/saddle_point.hpp"

#include "common.hpp"

namespace kernlearn::bindings {

// "dense" is LAPACK in double at every n, "mixed" the mixed-precision dense path at every n;
// "auto" takes the core's default size from which its dense solves are mixed.
inline void set_spectral_solver(SpectralOptions& opt, const std::string& name) {
  if (name == "lanczos") {
    opt.eigen_solver = SpectralSolver::lanczos;
  } else if (name == "dense" || name == "mixed") {
    opt.eigen_solver = SpectralSolver::dense;
    opt.mixed_precision_from = name == "mixed" ? 1 : 0;
  } else if (name == "auto") {
    opt.eigen_solver = SpectralSolver::automatic;
  } else {
    throw std::invalid_argument("unknown eigen_solver '" + name + "'");
  }
}

// The solver options both bindings take, in the same order and with the same names.
inline void set_spectral_options(SpectralOptions& opt, double p, bool penalty, double B, double G, Index rank,
                                 const std::string& eigen_solver, double dense_fraction, Index max_iter, double tol,
                                 double step, bool accelerate, double eig_tol, bool warm_start, std::uint64_t seed) {
  opt.p = p;
  opt.penalty = penalty;
  opt.B = B;
  opt.G = G;
  opt.rank = rank;
  set_spectral_solver(opt, eigen_solver);
  opt.dense_fraction = dense_fraction;
  opt.dense_lapack = scipy_dense_lapack();
  opt.max_iter = max_iter;
  opt.tol = tol;
  opt.step = step;
  opt.accelerate = accelerate;  // and an adaptive step: off means Algorithm 1 with step 1 / L_t
  opt.adaptive_step = accelerate;
  opt.eig_tol = eig_tol;
  opt.warm_start = warm_start;
  opt.seed = seed;
}

// Runs between iterations with the GIL: Ctrl-C first, then the callback, which may stop the
// solver by returning True. The callback object outlives the solve (it is the caller's argument).
inline SaddleMonitor python_monitor(const std::optional<py::function>& callback) {
  return [&callback](Index it, const SaddleIteration& rec) {
    py::gil_scoped_acquire gil;
    if (PyErr_CheckSignals() != 0) throw Interrupted();
    if (!callback) return false;
    py::dict info;
    info["iteration"] = it;
    info["dual"] = rec.dual;
    info["primal"] = rec.primal;
    info["gap"] = rec.gap;
    info["matvecs"] = rec.matvecs;
    info["rank"] = rec.rank;
    return py::bool_((*callback)(info)).cast<bool>();
  };
}

inline py::dict result_to_python(SaddleResult&& r) {
  std::vector<double> dual, primal, gap, steps;
  std::vector<Index> matvecs, ranks;
  for (const auto& h : r.history) {
    dual.push_back(h.dual);
    primal.push_back(h.primal);
    gap.push_back(h.gap);
    steps.push_back(h.step);
    matvecs.push_back(h.matvecs);
    ranks.push_back(h.rank);
  }
  py::dict out;
  out["eigenvalues"] = std::move(r.eigenvalues);
  out["eigenvectors"] = std::move(r.eigenvectors);
  out["alpha"] = std::move(r.alpha);
  out["constraint_values"] = std::move(r.constraint_values);
  out["dual"] = to_numpy(std::move(dual));
  out["primal"] = to_numpy(std::move(primal));
  out["gap"] = to_numpy(std::move(gap));
  out["step"] = to_numpy(std::move(steps));
  out["matvecs"] = to_numpy(std::move(matvecs));
  out["rank"] = to_numpy(std::move(ranks));
  out["n_iter"] = r.n_iter;
  out["converged"] = r.converged;
  out["used_dense"] = r.used_dense;
  out["used_mixed_precision"] = r.used_mixed_precision;
  out["unconverged_eigensolves"] = r.unconverged_eigensolves;
  return out;
}

}  // namespace kernlearn::bindings
