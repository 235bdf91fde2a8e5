// Bindings of methods/affinity_propagation.hpp: S3ML's propagation, column by column.
// kernlearn/metric/_affinity.py builds P' and W0 from validated input and chooses eps and cut.
#include <optional>
#include <stdexcept>
#include <string>

#include "kernlearn/methods/affinity_propagation.hpp"

#include "common.hpp"

namespace kernlearn::bindings {

using namespace pybind11::literals;

using DoubleArray = py::array_t<double, py::array::c_style>;
using IndexArray = py::array_t<Index, py::array::c_style>;

namespace {

// csr_from_python with the argument's name in its message.
Csr named_csr(const char* name, Index n, const DoubleArray& data, const IndexArray& indices, const IndexArray& indptr) {
  try {
    return csr_from_python(n, data, indices, indptr);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(std::string("affinity_push: ") + name + " (" + std::to_string(n) + " x " +
                                std::to_string(n) + " CSR): " + e.what());
  }
}

}  // namespace

void register_affinity(py::module_& m) {
  m.def(
      "affinity_push",
      [](const DoubleArray& Pt_data, const IndexArray& Pt_indices, const IndexArray& Pt_indptr,
         const DoubleArray& W0_data, const IndexArray& W0_indices, const IndexArray& W0_indptr, double alpha,
         double eps, double cut, const std::optional<IndexArray>& pattern_indices,
         const std::optional<IndexArray>& pattern_indptr, int n_threads) {
        const Index n = Pt_indptr.ndim() == 1 ? Pt_indptr.shape(0) - 1 : -1;
        const Csr Pt = named_csr("P_transpose", n, Pt_data, Pt_indices, Pt_indptr);
        const Csr W0 = named_csr("W0", n, W0_data, W0_indices, W0_indptr);
        if (pattern_indices.has_value() != pattern_indptr.has_value())
          throw std::invalid_argument("affinity_push: give both pattern_indices and pattern_indptr, or neither");
        std::optional<Csr> pattern;
        if (pattern_indices) {
          const DoubleArray zeros(pattern_indices->shape(0));
          pattern = named_csr("pattern", n, zeros, *pattern_indices, *pattern_indptr);
        }
        const InterruptPoll poll = python_interrupt_poll();
        AffinityTriplets out = run_interruptible([&] {
          ThreadTeam team(n_threads);
          return affinity_push(Pt, W0, alpha, eps, cut, pattern ? &*pattern : nullptr, team, poll);
        });
        return py::make_tuple(to_numpy(std::move(out.rows)), to_numpy(std::move(out.cols)),
                              to_numpy(std::move(out.values)));
      },
      "Pt_data"_a.noconvert(), "Pt_indices"_a.noconvert(), "Pt_indptr"_a.noconvert(), "W0_data"_a.noconvert(),
      "W0_indices"_a.noconvert(), "W0_indptr"_a.noconvert(), py::kw_only(), "alpha"_a, "eps"_a, "cut"_a,
      "pattern_indices"_a = py::none(), "pattern_indptr"_a = py::none(), "n_threads"_a = 1,
      "S3ML's propagation W* = (1 - a)(I - aP)^-1 W0 column by column by residual pushes, each value within eps "
      "(affinity_propagation.hpp): P' (P row-stochastic) and the symmetric W0 as CSR arrays (float64 data, int64 "
      "indices and indptr). Without a pattern, the entries with |value| >= cut; with a symmetric pattern (CSR "
      "indices and indptr), the values at its positions. Returns (rows, cols, values).");
}

}  // namespace kernlearn::bindings
