// Bindings of knn.hpp, knn_blocks.hpp and graph.hpp: the modes are enums (Python maps its strings
// onto them by name), kNN returns a Neighbors result, graphs and Laplacians CSR arrays. Partial
// results of a block search cross as (indices, keys) array pairs, which pickle: the distributed
// search (kernlearn/distributed) sends them between processes. Arrays arrive validated
// and C-contiguous (float64, int64 indices) from kernlearn/graph.py; .noconvert() makes a wrong
// layout an error instead of a silent copy. Only memory safety is checked here.
#include <optional>

#include <pybind11/eigen.h>

#include "kernlearn/neighbors/graph.hpp"
#include "kernlearn/neighbors/knn.hpp"
#include "kernlearn/neighbors/knn_blocks.hpp"

#include "common.hpp"

namespace kernlearn::bindings {

using namespace pybind11::literals;

namespace {

// (data, indices, indptr), each handed to numpy without a copy.
py::tuple csr_to_python(Csr&& g) {
  return py::make_tuple(to_numpy(std::move(g.data)), to_numpy(std::move(g.indices)), to_numpy(std::move(g.indptr)));
}

using IndexMatrixRef = Eigen::Ref<const RowMatrixXi>;

// (indices, keys), each handed to numpy without a copy.
py::tuple keys_to_python(NeighborKeys&& r) { return py::make_tuple(std::move(r.indices), std::move(r.keys)); }

}  // namespace

void register_neighbors(py::module_& m) {
  py::native_enum<Metric>(m, "Metric", "enum.Enum", "The distance kNN ranks by.")
      .value("euclidean", Metric::euclidean)
      .value("cosine", Metric::cosine, "1 - cos(x, y)")
      .finalize();
  py::native_enum<KnnAlgorithm>(m, "KnnAlgorithm", "enum.Enum", "The kNN search.")
      .value("auto", KnnAlgorithm::automatic, "the faster of the two by choose_knn_algorithm's rule")
      .value("kd_tree", KnnAlgorithm::kd_tree, "euclidean only")
      .value("brute", KnnAlgorithm::brute)
      .finalize();
  py::native_enum<GraphMode>(m, "GraphMode", "enum.Enum", "Which kNN relations make an edge.")
      .value("symmetric", GraphMode::symmetric, "either point among the other's neighbours")
      .value("mutual", GraphMode::mutual, "both")
      .finalize();
  py::native_enum<EdgeWeight>(m, "EdgeWeight", "enum.Enum", "A kNN graph's edge weight.")
      .value("binary", EdgeWeight::binary, "1")
      .value("heat", EdgeWeight::heat, "exp(-d^2 / (2 sigma^2))")
      .value("distance", EdgeWeight::distance, "d")
      .finalize();
  py::native_enum<LaplacianKind>(m, "LaplacianKind", "enum.Enum", "The graph Laplacian's normalisation.")
      .value("normalized", LaplacianKind::normalized, "I - D^-1/2 S D^-1/2")
      .value("unnormalized", LaplacianKind::unnormalized, "D - S")
      .value("random_walk", LaplacianKind::random_walk, "I - D^-1 S")
      .finalize();

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
      "knn_scale_exponent", [](double largest_magnitude) { return knn_scale_exponent(largest_magnitude); },
      "largest_magnitude"_a,
      "The exponent e such that the search runs on X 2^-e (0 unless max |x| lies outside [2^-200, 2^200]); "
      "every block of one search uses the whole data set's.");

  m.def(
      "knn_block",
      [](const MatrixRef& queries, const MatrixRef& data, Index n_neighbors, Index query_offset, Index data_offset,
         Metric metric, int scale_exponent, int n_threads) {
        return keys_to_python(run_interruptible([&] {
          return knn_block(queries, query_offset, data, data_offset, n_neighbors, metric, scale_exponent, n_threads,
                           python_interrupt_poll());
        }));
      },
      "queries"_a.noconvert(), "data"_a.noconvert(), "n_neighbors"_a, py::kw_only(), "query_offset"_a, "data_offset"_a,
      "metric"_a, "scale_exponent"_a = 0, "n_threads"_a = 1,
      "The k nearest data rows of each query row as (indices, keys): global indices (data_offset + row), "
      "ascending by (key, index), padded with (-1, inf); index ranges disjoint, or equal for a diagonal block "
      "(self excluded).");

  m.def(
      "knn_block_pair",
      [](const MatrixRef& queries, const MatrixRef& data, Index n_neighbors, Index query_offset, Index data_offset,
         Metric metric, int scale_exponent, int n_threads) {
        auto both = run_interruptible([&] {
          return knn_block_pair(queries, query_offset, data, data_offset, n_neighbors, metric, scale_exponent,
                                n_threads, python_interrupt_poll());
        });
        return py::make_tuple(keys_to_python(std::move(both.first)), keys_to_python(std::move(both.second)));
      },
      "queries"_a.noconvert(), "data"_a.noconvert(), "n_neighbors"_a, py::kw_only(), "query_offset"_a, "data_offset"_a,
      "metric"_a, "scale_exponent"_a = 0, "n_threads"_a = 1,
      "knn_block both ways for disjoint index ranges, from one pass over the distance tiles: ((indices, keys) of "
      "the queries among the data, (indices, keys) of the data among the queries).");

  m.def(
      "merge_neighbor_keys",
      [](const IndexMatrixRef& indices_a, const MatrixRef& keys_a, const IndexMatrixRef& indices_b,
         const MatrixRef& keys_b) {
        const NeighborKeys a{indices_a, keys_a}, b{indices_b, keys_b};
        return keys_to_python(run_interruptible([&] { return merge_neighbor_keys(a, b); }));
      },
      "indices_a"_a.noconvert(), "keys_a"_a.noconvert(), "indices_b"_a.noconvert(), "keys_b"_a.noconvert(),
      "The k best of two partial results of the same queries, as (indices, keys).");

  m.def(
      "neighbors_from_keys",
      [](const IndexMatrixRef& indices, const MatrixRef& keys, Metric metric, int scale_exponent) {
        NeighborKeys merged{indices, keys};
        return run_interruptible([&] { return neighbors_from_keys(std::move(merged), metric, scale_exponent); });
      },
      "indices"_a.noconvert(), "keys"_a.noconvert(), py::kw_only(), "metric"_a, "scale_exponent"_a = 0,
      "The Neighbors result of merged partial results (no padding left): keys become distances.");

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
