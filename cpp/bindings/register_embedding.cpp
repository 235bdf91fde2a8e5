// Bindings of saddle_point.hpp (the general problem the embeddings configure) and triplets.hpp
// (structure preserving embedding's separation oracle). kernlearn/embedding.py builds every
// array and checks it; this file only maps them.
#include <pybind11/stl.h>

#include "kernlearn/methods/triplets.hpp"

#include "saddle_common.hpp"

namespace kernlearn::bindings {

namespace {

DualSet dual_set_named(const std::string& name) {
  if (name == "fixed") return DualSet::fixed;
  if (name == "free") return DualSet::free;
  if (name == "nonnegative") return DualSet::nonnegative;
  if (name == "box") return DualSet::box;
  if (name == "capped_simplex") return DualSet::capped_simplex;
  throw std::invalid_argument("unknown dual set '" + name + "'");
}

std::vector<Index> index_vector(const py::array_t<Index, py::array::c_style>& a) {
  return {a.data(), a.data() + a.size()};
}

}  // namespace

void register_embedding(py::module_& m) {
  m.def(
      "saddle_point",
      [](Index n, const py::array_t<Index, py::array::c_style>& indptr,
         const py::array_t<Index, py::array::c_style>& indices, const py::array_t<double, py::array::c_style>& data,
         const Eigen::MatrixXd& lowrank, const Eigen::VectorXd& lowrank_coef, double shift, bool center,
         const RowMatrixXi& pairs, const std::string& pattern,
         const py::array_t<Index, py::array::c_style>& rows_indptr,
         const py::array_t<Index, py::array::c_style>& rows_indices,
         const py::array_t<double, py::array::c_style>& rows_data, const Eigen::VectorXd& target, double rho,
         const std::string& dual_set, double upper, const Eigen::VectorXd& alpha0, double p, bool penalty, double B,
         double G, Index rank, const std::string& eigen_solver, double dense_fraction, Index max_iter, double tol,
         double step, bool accelerate, double eig_tol, bool warm_start, std::uint64_t seed, int n_threads,
         const std::optional<py::function>& callback, const Eigen::MatrixXd& basis, bool newton,
         const std::optional<Eigen::VectorXd>& hessian_probe) -> py::object {
        SaddleProblem pb;
        pb.sparse = csr_from_python(n, data, indices, indptr);
        pb.lowrank = lowrank;
        pb.lowrank_coef = lowrank_coef;
        pb.shift = shift;
        pb.center = center;
        pb.pairs = pairs;
        if (pattern != "entry" && pattern != "distance")
          throw std::invalid_argument("pattern must be 'entry' or 'distance', got '" + pattern + "'");
        pb.pattern = pattern == "entry" ? PairPattern::entry : PairPattern::distance;
        pb.rows.indptr = index_vector(rows_indptr);
        pb.rows.indices = index_vector(rows_indices);
        pb.rows.data.assign(rows_data.data(), rows_data.data() + rows_data.size());
        pb.target = target;
        pb.rho = rho;
        pb.set = dual_set_named(dual_set);
        pb.upper = upper;
        pb.alpha0 = alpha0;
        SpectralOptions opt;
        set_spectral_options(opt, p, penalty, B, G, rank, eigen_solver, dense_fraction, max_iter, tol, step, accelerate,
                             eig_tol, warm_start, seed);
        opt.newton = newton;
        ThreadTeam team(n_threads);
        if (hessian_probe) {  // tests only: the Newton steps' Hessian at alpha0, applied to the probe
          py::dict out;
          out["hessian_product"] = saddle_hessian_product(pb, opt, *hessian_probe, team);
          return std::move(out);
        }
        const SaddleMonitor monitor = python_monitor(callback);
        SaddleResult r = run_interruptible(
            [&] { return solve_saddle_point(pb, opt, team, monitor, python_interrupt_poll(), basis); });
        return result_to_python(std::move(r));
      },
      py::arg("n"), py::arg("indptr").noconvert(), py::arg("indices").noconvert(), py::arg("data").noconvert(),
      py::arg("lowrank"), py::arg("lowrank_coef"), py::arg("shift"), py::arg("center"), py::arg("pairs"),
      py::arg("pattern"), py::arg("rows_indptr").noconvert(), py::arg("rows_indices").noconvert(),
      py::arg("rows_data").noconvert(), py::arg("target"), py::arg("rho"), py::arg("dual_set"), py::arg("upper"),
      py::arg("alpha0"), py::arg("p"), py::arg("penalty"), py::arg("B"), py::arg("G"), py::arg("rank"),
      py::arg("eigen_solver"), py::arg("dense_fraction"), py::arg("max_iter"), py::arg("tol"), py::arg("step"),
      py::arg("accelerate"), py::arg("eig_tol"), py::arg("warm_start"), py::arg("seed"), py::arg("n_threads"),
      py::arg("callback"), py::arg("basis"), py::arg("newton") = false, py::arg("hessian_probe") = std::nullopt,
      "The saddle-point iteration for A = M + sum_c alpha_c C_c (see saddle_point.hpp).");

  m.def(
      "most_violated_triplets",
      [](const MatrixRef& Z, Index n, const py::array_t<Index, py::array::c_style>& indptr,
         const py::array_t<Index, py::array::c_style>& indices, double margin, Index per_point, int n_threads) {
        const py::array_t<double, py::array::c_style> no_data(static_cast<py::ssize_t>(indices.size()));
        const Csr graph = csr_from_python(n, no_data, indices, indptr);
        TripletSearch found = run_interruptible(
            [&] { return most_violated_triplets(Z, graph, margin, per_point, n_threads, python_interrupt_poll()); });
        RowMatrixXi ijk(static_cast<Index>(found.triplets.size()), 3);
        Eigen::VectorXd violation(static_cast<Index>(found.triplets.size()));
        for (std::size_t t = 0; t < found.triplets.size(); ++t) {
          const Triplet& tr = found.triplets[t];
          ijk.row(static_cast<Index>(t)) << tr.i, tr.j, tr.k;
          violation(static_cast<Index>(t)) = tr.violation;
        }
        return py::make_tuple(ijk, violation, found.max_violation);
      },
      py::arg("Z").noconvert(), py::arg("n"), py::arg("indptr").noconvert(), py::arg("indices").noconvert(),
      py::arg("margin"), py::arg("per_point"), py::arg("n_threads"),
      "Per point, the most violated SPE triplets (i, j, k) above margin, and the largest violation overall.");
}

}  // namespace kernlearn::bindings
