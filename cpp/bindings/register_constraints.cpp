// Bindings of constraints.hpp, and the CSR input every sparse argument of the methods takes.
// kernlearn/constraints.py validates the pairs (range, duplicates) and owns the output buffer
// that assemble_into() fills in place.
#include "kernlearn/methods/constraints.hpp"

#include "common.hpp"

namespace kernlearn::bindings {

namespace {

using IndexArray = py::array_t<Index, py::array::c_style>;
using DoubleArray = py::array_t<double, py::array::c_style>;

// A square sparse matrix as one argument: Csr(n=, indptr=, indices=, data=), int64 / float64
// C arrays (no conversion), copied and checked once (shapes, index ranges). If another layer
// bound the type already, this submodule names the same class.
void bind_csr(py::module_& m) {
  if (const auto* info = py::detail::get_type_info(typeid(Csr))) {
    m.attr("Csr") = py::handle(reinterpret_cast<PyObject*>(info->type));
    return;
  }
  py::class_<Csr>(m, "Csr", "A square CSR matrix (sorted column indices), copied from numpy arrays.")
      .def(py::init([](Index n, const IndexArray& indptr, const IndexArray& indices, const DoubleArray& data) {
             return csr_from_python(n, data, indices, indptr);
           }),
           py::arg("n"), py::arg("indptr").noconvert(), py::arg("indices").noconvert(), py::arg("data").noconvert())
      .def_readonly("n", &Csr::n, "rows and columns")
      .def_property_readonly(
          "nnz", [](const Csr& c) { return static_cast<Index>(c.indices.size()); }, "stored entries");
}

}  // namespace

void register_constraints(py::module_& m) {
  bind_csr(m);
  py::native_enum<PairPattern>(m, "PairPattern", "enum.Enum", "What a pair's constraint matrix T_ij is.")
      .value("entry", PairPattern::entry, "e_i e_j' + e_j e_i' (SimpleNPKL)")
      .value("distance", PairPattern::distance, "(e_i - e_j)(e_i - e_j)' (the embeddings)")
      .finalize();

  py::class_<ConstraintAccumulator>(m, "ConstraintAccumulator",
                                    "base + sum_p a_p T_p on a CSR pattern fixed once (constraints.hpp).")
      .def(py::init<const Eigen::Ref<const RowMatrixXi>&, PairPattern, const Csr&>(), py::arg("pairs").noconvert(),
           py::arg("pattern"), py::arg("base"))
      .def_property_readonly("indptr",
                             [](const ConstraintAccumulator& c) {
                               return py::array_t<Index>(static_cast<py::ssize_t>(c.indptr().size()),
                                                         c.indptr().data());
                             })
      .def_property_readonly("indices",
                             [](const ConstraintAccumulator& c) {
                               return py::array_t<Index>(static_cast<py::ssize_t>(c.indices().size()),
                                                         c.indices().data());
                             })
      .def(
          "assemble_into",
          [](const ConstraintAccumulator& c, const DoubleArray& alpha, DoubleArray out) {
            if (alpha.size() != c.n_pairs()) throw std::invalid_argument("alpha must have one value per pair");
            if (out.size() != c.nnz()) throw std::invalid_argument("out must have nnz entries");
            c.assemble(alpha.data(), out.mutable_data());
          },
          py::arg("alpha").noconvert(), py::arg("out").noconvert())
      .def(
          "inner",
          [](const ConstraintAccumulator& c, const MatrixRef& V, const Eigen::Ref<const Eigen::VectorXd>& lam,
             int n_threads) {
            py::array_t<double> out(c.n_pairs());
            double* dst = out.mutable_data();
            run_interruptible([&] {
              c.inner_rows(V, lam, dst, n_threads);
              return 0;
            });
            return out;
          },
          py::arg("V").noconvert(), py::arg("lam").noconvert(), py::kw_only(), py::arg("n_threads") = 1);
}

}  // namespace kernlearn::bindings
