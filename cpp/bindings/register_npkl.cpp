// Bindings of npkl.hpp. kernlearn/npkl.py validates everything (pairs, labels, parameters) and
// builds the Laplacian; this file only maps arrays and options.
#include <pybind11/stl.h>

#include "kernlearn/methods/npkl.hpp"

#include "saddle_common.hpp"

namespace kernlearn::bindings {

namespace {

NpklLoss loss_named(const std::string& name) {
  if (name == "linear") return NpklLoss::linear;
  if (name == "squared_hinge") return NpklLoss::squared_hinge;
  if (name == "hinge") return NpklLoss::hinge;
  if (name == "square") return NpklLoss::square;
  throw std::invalid_argument("unknown loss '" + name + "'");
}

}  // namespace

void register_npkl(py::module_& m) {
  // The size from which eigen_solver="auto" makes its dense solves mixed precision.
  m.attr("MIXED_PRECISION_MIN_N") = SpectralOptions{}.mixed_precision_from;
  m.def(
      "simple_npkl",
      [](Index n, const py::array_t<Index, py::array::c_style>& indptr,
         const py::array_t<Index, py::array::c_style>& indices, const py::array_t<double, py::array::c_style>& data,
         const RowMatrixXi& pairs, const Eigen::VectorXd& labels, const std::string& loss, double p, bool penalty,
         double B, double G, double C, Index rank, const std::string& eigen_solver, double dense_fraction,
         Index max_iter, double tol, double step, bool accelerate, double eig_tol, bool warm_start, std::uint64_t seed,
         int n_threads, const std::optional<py::function>& callback, const Eigen::MatrixXd& basis) {
        const Csr L = csr_from_python(n, data, indices, indptr);
        NpklOptions opt;
        opt.loss = loss_named(loss);
        opt.C = C;
        set_spectral_options(opt, p, penalty, B, G, rank, eigen_solver, dense_fraction, max_iter, tol, step, accelerate,
                             eig_tol, warm_start, seed);
        const SaddleMonitor monitor = python_monitor(callback);
        ThreadTeam team(n_threads);
        SaddleResult r = run_interruptible(
            [&] { return simple_npkl(L, pairs, labels, opt, team, monitor, python_interrupt_poll(), basis); });
        return result_to_python(std::move(r));
      },
      py::arg("n"), py::arg("indptr").noconvert(), py::arg("indices").noconvert(), py::arg("data").noconvert(),
      py::arg("pairs"), py::arg("labels"), py::arg("loss"), py::arg("p"), py::arg("penalty"), py::arg("B"),
      py::arg("G"), py::arg("C"), py::arg("rank"), py::arg("eigen_solver"), py::arg("dense_fraction"),
      py::arg("max_iter"), py::arg("tol"), py::arg("step"), py::arg("accelerate"), py::arg("eig_tol"),
      py::arg("warm_start"), py::arg("seed"), py::arg("n_threads"), py::arg("callback"), py::arg("basis"),
      "SimpleNPKL (linear loss in closed form; the other losses by Algorithm 1's saddle-point iteration).");
}

}  // namespace kernlearn::bindings
