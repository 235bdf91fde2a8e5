// Bindings of knn.hpp and graph.hpp. Arrays arrive validated and C-contiguous float64 from
// kernlearn/_validation.py; .noconvert() makes a wrong layout an error instead of a silent copy.
#include <pybind11/eigen.h>

#include "kernlearn/neighbors/graph.hpp"
#include "kernlearn/neighbors/knn.hpp"

#include "common.hpp"

namespace kernlearn::bindings {

namespace {

py::tuple csr_to_python(Csr&& g) {
  return py::make_tuple(to_numpy(std::move(g.data)), to_numpy(std::move(g.indices)), to_numpy(std::move(g.indptr)));
}

}  // namespace

void register_neighbors(py::module_& m) {
  m.def(
      "knn",
      [](const Eigen::Ref<const RowMatrixXd>& X, Index n_neighbors, const std::string& metric,
         const std::string& algorithm, int n_threads) {
        const Metric met = parse_metric(metric);
        const KnnAlgorithm alg = parse_knn_algorithm(algorithm);
        Neighbors nb =
            run_interruptible([&] { return knn(X, n_neighbors, met, alg, n_threads, python_interrupt_poll()); });
        return py::make_tuple(std::move(nb.indices), std::move(nb.distances));
      },
      py::arg("X").noconvert(), py::arg("n_neighbors"), py::arg("metric"), py::arg("algorithm"), py::arg("n_threads"),
      "Exact kNN of every row among the others: (indices, distances), each n x n_neighbors.");

  m.def(
      "choose_knn_algorithm",
      [](Index n, Index d, const std::string& metric) {
        return choose_knn_algorithm(n, d, parse_metric(metric)) == KnnAlgorithm::kd_tree ? "kd_tree" : "brute";
      },
      py::arg("n"), py::arg("d"), py::arg("metric"), "The search algorithm='auto' runs.");

  m.def(
      "knn_graph",
      [](const Eigen::Ref<const RowMatrixXi>& indices, const Eigen::Ref<const RowMatrixXd>& distances,
         const std::string& mode, const std::string& weight, double sigma) {
        if (indices.rows() != distances.rows() || indices.cols() != distances.cols())
          throw std::invalid_argument("indices and distances must have the same shape");
        const Index n = indices.rows();
        for (Index i = 0; i < indices.size(); ++i)
          if (indices.data()[i] < 0 || indices.data()[i] >= n) throw std::invalid_argument("indices out of range");
        Neighbors nb{indices, distances};
        const GraphMode gm = parse_graph_mode(mode);
        const EdgeWeight ew = parse_edge_weight(weight);
        return csr_to_python(run_interruptible([&] { return knn_graph(nb, gm, ew, sigma); }));
      },
      py::arg("indices").noconvert(), py::arg("distances").noconvert(), py::arg("mode"), py::arg("weight"),
      py::arg("sigma"), "Symmetric kNN graph as CSR arrays (data, indices, indptr).");

  m.def(
      "laplacian",
      [](Index n, const py::array_t<double, py::array::c_style>& data,
         const py::array_t<Index, py::array::c_style>& indices, const py::array_t<Index, py::array::c_style>& indptr,
         const std::string& kind) {
        const LaplacianKind lk = parse_laplacian_kind(kind);
        Csr S = csr_from_python(n, data, indices, indptr);
        return csr_to_python(run_interruptible([&] { return laplacian(S, lk); }));
      },
      py::arg("n"), py::arg("data").noconvert(), py::arg("indices").noconvert(), py::arg("indptr").noconvert(),
      py::arg("kind"), "Graph Laplacian of a symmetric CSR matrix, as CSR arrays (data, indices, indptr).");
}

}  // namespace kernlearn::bindings
