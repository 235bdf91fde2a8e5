// Bindings of knn.hpp and graph.hpp: the modes are enums (Python maps its strings onto them by
// name), kNN returns a Neighbors result, graphs and Laplacians CSR arrays. Arrays arrive validated
// and C-contiguous (float64, int64 indices) from kernlearn/graph.py; .noconvert() makes a wrong
// layout an error instead of a silent copy. Only memory safety is checked here.
#include <optional>

#include <pybind11/eigen.h>

#include "kernlearn/neighbors/graph.hpp"
#include "kernlearn/neighbors/knn.hpp"

#include "common.hpp"

namespace kernlearn::bindings {

using namespace pybind11::literals;

namespace {

// (data, indices, indptr), each handed to numpy without a copy.
py::tuple csr_to_python(Csr&& g) {
  return py::make_tuple(to_numpy(std::move(g.data)), to_numpy(std::move(g.indices)), to_numpy(std::move(g.indptr)));
}

}  // namespace

void register_neighbors(py::module_& m) {
  py::enum_<Metric>(m, "Metric", "The distance kNN ranks by.")
      .value("euclidean", Metric::euclidean)
      .value("cosine", Metric::cosine, "1 - cos(x, y)");
  py::enum_<KnnAlgorithm>(m, "KnnAlgorithm", "The kNN search.")
      .value("auto", KnnAlgorithm::automatic, "the faster of the two by choose_knn_algorithm's rule")
      .value("kd_tree", KnnAlgorithm::kd_tree, "euclidean only")
      .value("brute", KnnAlgorithm::brute);
  py::enum_<GraphMode>(m, "GraphMode", "Which kNN relations make an edge.")
      .value("symmetric", GraphMode::symmetric, "either point among the other's neighbours")
      .value("mutual", GraphMode::mutual, "both");
  py::enum_<EdgeWeight>(m, "EdgeWeight", "A kNN graph's edge weight.")
      .value("binary", EdgeWeight::binary, "1")
      .value("heat", EdgeWeight::heat, "exp(-d^2 / (2 sigma^2))")
      .value("distance", EdgeWeight::distance, "d");
  py::enum_<LaplacianKind>(m, "LaplacianKind", "The graph Laplacian's normalisation.")
      .value("normalized", LaplacianKind::normalized, "I - D^-1/2 S D^-1/2")
      .value("unnormalized", LaplacianKind::unnormalized, "D - S")
      .value("random_walk", LaplacianKind::random_walk, "I - D^-1 S");

  ResultClass<Neighbors>(m, "Neighbors", "Exact kNN of every point among the others (knn.hpp).")
      .field("indices", &Neighbors::indices, "n x k, ascending by (distance, index), self excluded")
      .field("distances", &Neighbors::distances, "n x k: euclidean, or cosine distance 1 - cos(x, y)");

  m.def(
      "knn",
      [](const Eigen::Ref<const RowMatrixXd>& X, Index n_neighbors, Metric metric, KnnAlgorithm algorithm,
         int n_threads) {
        return run_interruptible(
            [&] { return knn(X, n_neighbors, metric, algorithm, n_threads, python_interrupt_poll()); });
      },
      "X"_a.noconvert(), "n_neighbors"_a, py::kw_only(), "metric"_a, "algorithm"_a, "n_threads"_a = 1,
      "Exact kNN of every row among the others, as a Neighbors result.");

  m.def(
      "choose_knn_algorithm", [](Index n, Index d, Metric metric) { return choose_knn_algorithm(n, d, metric); }, "n"_a,
      "d"_a, "metric"_a, "The search algorithm auto runs.");

  m.def(
      "knn_graph",
      [](const Neighbors& neighbors, GraphMode mode, EdgeWeight weight, std::optional<double> sigma) {
        return csr_to_python(
            run_interruptible([&] { return knn_graph(neighbors, mode, weight, sigma, python_interrupt_poll()); }));
      },
      "neighbors"_a, "mode"_a, "weight"_a, "sigma"_a = py::none(),
      "Symmetric kNN graph of a knn() result as CSR arrays (data, indices, indptr); sigma: the heat "
      "weight's width.");

  m.def(
      "laplacian",
      [](const py::array_t<double, py::array::c_style>& data, const py::array_t<Index, py::array::c_style>& indices,
         const py::array_t<Index, py::array::c_style>& indptr, LaplacianKind kind) {
        if (indptr.ndim() != 1 || indptr.shape(0) < 1) throw std::invalid_argument("indptr must be 1-D, non-empty");
        Csr S = csr_from_python(indptr.shape(0) - 1, data, indices, indptr);
        return csr_to_python(run_interruptible([&] { return laplacian(S, kind, python_interrupt_poll()); }));
      },
      "data"_a.noconvert(), "indices"_a.noconvert(), "indptr"_a.noconvert(), "kind"_a,
      "Graph Laplacian of a symmetric n x n CSR matrix (n = len(indptr) - 1), as CSR arrays (data, indices, "
      "indptr).");
}

}  // namespace kernlearn::bindings
