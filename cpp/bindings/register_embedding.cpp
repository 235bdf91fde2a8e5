// Bindings of saddle_point.hpp's problem and solver (the general problem the embeddings
// configure; its options and results are bound in register_npkl.cpp) and of triplets.hpp
// (structure preserving embedding's separation oracle). kernlearn/embedding builds every array
// and checks it; this file only maps them.
#include "kernlearn/methods/saddle_point.hpp"
#include "kernlearn/methods/triplets.hpp"

#include "saddle_basis.hpp"

namespace kernlearn::bindings {

namespace {

using IndexArray = py::array_t<Index, py::array::c_style>;
using DoubleArray = py::array_t<double, py::array::c_style>;

void bind_problem(py::module_& m) {
  py::native_enum<DualSet>(m, "DualSet", "enum.Enum",
                           "The convex set of alpha, which fixes the loss (saddle_point.hpp).")
      .value("fixed", DualSet::fixed, "alpha stays at alpha0 (linear loss)")
      .value("free", DualSet::free, "equalities, square loss (rho > 0)")
      .value("nonnegative", DualSet::nonnegative, "squared hinge (rho > 0)")
      .value("box", DualSet::box, "[0, upper]: hinge")
      .value("capped_simplex", DualSet::capped_simplex, "alpha >= 0, sum alpha <= upper: one shared slack")
      .finalize();

  py::class_<ConstraintRows>(m, "ConstraintRows", "R in compressed rows: constraint c = sum_e data[e] T_indices[e].")
      .def(py::init([](const IndexArray& indptr, const IndexArray& indices, const DoubleArray& data) {
             if (indptr.ndim() != 1 || indices.ndim() != 1 || data.ndim() != 1 || indptr.size() < 1 ||
                 indices.size() != data.size())
               throw std::invalid_argument(
                   "ConstraintRows needs 1-D indptr (rows + 1), indices and data (equal length)");
             ConstraintRows R;
             R.indptr.assign(indptr.data(), indptr.data() + indptr.size());
             R.indices.assign(indices.data(), indices.data() + indices.size());
             R.data.assign(data.data(), data.data() + data.size());
             return R;
           }),
           py::arg("indptr").noconvert(), py::arg("indices").noconvert(), py::arg("data").noconvert())
      .def_property_readonly("n_rows", &ConstraintRows::rows, "constraints");

  OptionsClass<SaddleProblem>(m, "SaddleProblem",
                              "max_alpha -phi(A(alpha)) + w'alpha - (rho/2)|alpha|^2, A = M + sum_c alpha_c C_c, "
                              "M = S + U diag(c) U' + shift I (saddle_point.hpp).")
      .field("sparse", &SaddleProblem::sparse, "S, a Csr (sorted indices; may have no entries)")
      .field("lowrank", &SaddleProblem::lowrank, "U, n x r (r may be 0)")
      .field("lowrank_coef", &SaddleProblem::lowrank_coef, "c, r values")
      .field("shift", &SaddleProblem::shift, "the multiple of I in M")
      .field("center", &SaddleProblem::center, "replace A by H A H (K 1 = 0)")
      .field("pairs", &SaddleProblem::pairs, "m_pairs x 2 distinct unordered pairs")
      .field("pattern", &SaddleProblem::pattern, "a PairPattern")
      .field("rows", &SaddleProblem::rows, "R, a ConstraintRows")
      .field("target", &SaddleProblem::target, "w, one per constraint")
      .field("rho", &SaddleProblem::rho, "the quadratic term's weight")
      .field("dual_set", &SaddleProblem::set, "a DualSet")
      .field("upper", &SaddleProblem::upper, "u of the box / capped simplex")
      .field("alpha0", &SaddleProblem::alpha0, "the starting point (projected onto the set)");
}

SpectralOptions with_lapack(const SpectralOptions& options) {
  SpectralOptions opt = options;
  opt.dense_lapack = scipy_dense_lapack();
  return opt;
}

}  // namespace

void register_embedding(py::module_& m) {
  bind_problem(m);

  m.def(
      "saddle_point",
      [](const SaddleProblem& problem, const SpectralOptions& options, const std::optional<MatrixRef>& basis,
         const std::optional<py::function>& callback, int n_threads) {
        const SpectralOptions opt = with_lapack(options);
        const Eigen::MatrixXd U = basis_arg(basis);
        const auto monitor = python_monitor<SaddleIteration>(callback);
        ThreadTeam team(n_threads);
        return run_interruptible(
            [&] { return solve_saddle_point(problem, opt, team, monitor, python_interrupt_poll(), U); });
      },
      py::arg("problem"), py::arg("options"), py::kw_only(), py::arg("basis").noconvert() = py::none(),
      py::arg("callback") = py::none(), py::arg("n_threads") = 1,
      "The saddle-point iteration for A = M + sum_c alpha_c C_c (see saddle_point.hpp).");

  m.def(
      "saddle_hessian_product",
      [](const SaddleProblem& problem, const SpectralOptions& options, const Eigen::Ref<const Eigen::VectorXd>& v,
         int n_threads) {
        const SpectralOptions opt = with_lapack(options);
        const Eigen::VectorXd probe = v;  // the core's Hessian product takes a VectorXd
        ThreadTeam team(n_threads);
        return run_interruptible([&] { return saddle_hessian_product(problem, opt, probe, team); });
      },
      py::arg("problem"), py::arg("options"), py::arg("v").noconvert(), py::kw_only(), py::arg("n_threads") = 1,
      "Tests only: the Newton steps' Hessian of -J at problem.alpha0 applied to v (options.newton must be set).");

  m.def(
      "most_violated_triplets",
      [](const MatrixRef& Z, const Csr& graph, double margin, Index per_point, int n_threads) {
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
      py::arg("Z").noconvert(), py::arg("graph"), py::kw_only(), py::arg("margin"), py::arg("per_point"),
      py::arg("n_threads") = 1,
      "Per point, the most violated SPE triplets (i, j, k) above margin, and the largest violation overall.");
}

}  // namespace kernlearn::bindings
