// Bindings of constraints.hpp. kernlearn/constraints.py validates the pairs (range, duplicates)
// and owns the output buffer that assemble() fills in place.
#include <pybind11/eigen.h>

#include "kernlearn/methods/constraints.hpp"

#include "common.hpp"

namespace kernlearn::bindings {

void register_constraints(py::module_& m) {
  py::class_<ConstraintAccumulator>(m, "ConstraintAccumulator")
      .def(py::init([](const RowMatrixXi& pairs, const std::string& pattern, Index n,
                       const py::array_t<double, py::array::c_style>& data,
                       const py::array_t<Index, py::array::c_style>& indices,
                       const py::array_t<Index, py::array::c_style>& indptr) {
             if (pattern != "entry" && pattern != "distance")
               throw std::invalid_argument("pattern must be 'entry' or 'distance', got '" + pattern + "'");
             const Csr base = csr_from_python(n, data, indices, indptr);
             const PairPattern kind = pattern == "entry" ? PairPattern::entry : PairPattern::distance;
             return ConstraintAccumulator(pairs, kind, base);
           }),
           py::arg("pairs"), py::arg("pattern"), py::arg("n"), py::arg("data").noconvert(),
           py::arg("indices").noconvert(), py::arg("indptr").noconvert())
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
          [](const ConstraintAccumulator& c, const py::array_t<double, py::array::c_style>& alpha,
             py::array_t<double, py::array::c_style> out) {
            if (alpha.size() != c.n_pairs()) throw std::invalid_argument("alpha must have one value per pair");
            if (out.size() != c.nnz()) throw std::invalid_argument("out must have nnz entries");
            c.assemble(alpha.data(), out.mutable_data());
          },
          py::arg("alpha").noconvert(), py::arg("out").noconvert())
      .def(
          "inner",
          [](const ConstraintAccumulator& c, const Eigen::Ref<const Eigen::MatrixXd>& V,
             const Eigen::Ref<const Eigen::VectorXd>& lam, int n_threads) {
            py::array_t<double> out(c.n_pairs());
            double* dst = out.mutable_data();
            run_interruptible([&] {
              c.inner(V, lam, dst, n_threads);
              return 0;
            });
            return out;
          },
          py::arg("V"), py::arg("lam"), py::arg("n_threads"));
}

}  // namespace kernlearn::bindings
