// Bindings of npkl.hpp. kernlearn/npkl.py validates everything (pairs, labels, parameters) and
// builds the Laplacian; this file only maps arrays and options.
#include <pybind11/eigen.h>
#include <pybind11/functional.h>
#include <pybind11/stl.h>

#include "common.hpp"
#include "kernlearn/npkl.hpp"

namespace kernlearn::bindings {

namespace {

NpklLoss loss_named(const std::string& name) {
  if (name == "linear") return NpklLoss::linear;
  if (name == "squared_hinge") return NpklLoss::squared_hinge;
  if (name == "hinge") return NpklLoss::hinge;
  if (name == "square") return NpklLoss::square;
  throw std::invalid_argument("unknown loss '" + name + "'");
}

SpectralSolver solver_named(const std::string& name) {
  if (name == "lanczos") return SpectralSolver::lanczos;
  if (name == "dense") return SpectralSolver::dense;
  if (name == "auto") return SpectralSolver::automatic;
  throw std::invalid_argument("unknown eigen_solver '" + name + "'");
}

// scipy's LAPACK dsyevd, from the function table scipy.linalg.cython_lapack exports for exactly
// this use: the dense path gets LAPACK without the wheel shipping one.
SyevdFn scipy_dsyevd() {
  static const SyevdFn fn = [] {
    py::dict table = py::module_::import("scipy.linalg.cython_lapack").attr("__pyx_capi__");
    auto capsule = table["dsyevd"].cast<py::capsule>();
    return reinterpret_cast<SyevdFn>(capsule.get_pointer());
  }();
  return fn;
}

}  // namespace

void register_npkl(py::module_& m) {
  m.def(
      "simple_npkl",
      [](Index n, const py::array_t<Index, py::array::c_style>& indptr,
         const py::array_t<Index, py::array::c_style>& indices,
         const py::array_t<double, py::array::c_style>& data, const RowMatrixXi& pairs,
         const Eigen::VectorXd& labels, const std::string& loss, double p, bool penalty, double B,
         double G, double C, Index rank, const std::string& eigen_solver, double dense_fraction,
         Index max_iter, double tol, double step,
         double eig_tol, bool warm_start, std::uint64_t seed, int n_threads,
         const std::optional<py::function>& callback, const Eigen::MatrixXd& basis) {
        const Csr L = csr_from_python(n, data, indices, indptr);
        NpklOptions opt;
        opt.loss = loss_named(loss);
        opt.p = p;
        opt.penalty = penalty;
        opt.B = B;
        opt.G = G;
        opt.C = C;
        opt.rank = rank;
        opt.eigen_solver = solver_named(eigen_solver);
        opt.dense_fraction = dense_fraction;
        opt.syevd = scipy_dsyevd();
        opt.max_iter = max_iter;
        opt.tol = tol;
        opt.step = step;
        opt.eig_tol = eig_tol;
        opt.warm_start = warm_start;
        opt.seed = seed;
        // Between iterations: Ctrl-C, then the user's callback (with the GIL; it may stop the fit
        // by returning True).
        SaddleMonitor monitor = [&](Index it, const SaddleIteration& rec) {
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
        ThreadTeam team(n_threads);
        SaddleResult r = run_interruptible(
            [&] { return simple_npkl(L, pairs, labels, opt, team, monitor, python_interrupt_poll(), basis); });
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
        out["dual"] = to_numpy(std::move(dual));
        out["primal"] = to_numpy(std::move(primal));
        out["gap"] = to_numpy(std::move(gap));
        out["step"] = to_numpy(std::move(steps));
        out["matvecs"] = to_numpy(std::move(matvecs));
        out["rank"] = to_numpy(std::move(ranks));
        out["n_iter"] = r.n_iter;
        out["converged"] = r.converged;
        out["used_dense"] = r.used_dense;
        return out;
      },
      py::arg("n"), py::arg("indptr").noconvert(), py::arg("indices").noconvert(),
      py::arg("data").noconvert(), py::arg("pairs"), py::arg("labels"), py::arg("loss"), py::arg("p"),
      py::arg("penalty"), py::arg("B"), py::arg("G"), py::arg("C"), py::arg("rank"), py::arg("eigen_solver"),
      py::arg("dense_fraction"),
      py::arg("max_iter"), py::arg("tol"), py::arg("step"), py::arg("eig_tol"), py::arg("warm_start"),
      py::arg("seed"), py::arg("n_threads"), py::arg("callback"), py::arg("basis"),
      "SimpleNPKL (linear loss in closed form; the other losses by Algorithm 1's saddle-point iteration).");
}

}  // namespace kernlearn::bindings
