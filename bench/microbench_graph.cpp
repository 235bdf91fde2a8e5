// Google Benchmark microbenchmarks of the C++ core: the kNN search (single thread, so the numbers
// measure the algorithm, not the machine's core count), the kNN graph and the Laplacian assembly.
// Build with -DKERNLEARN_BENCH=ON; see bench/README.md.
#include <algorithm>
#include <benchmark/benchmark.h>
#include <random>
#include <thread>

#include "kernlearn/core/types.hpp"
#include "kernlearn/neighbors/graph.hpp"
#include "kernlearn/neighbors/knn.hpp"

namespace {

using kernlearn::Csr;
using kernlearn::EdgeWeight;
using kernlearn::GraphMode;
using kernlearn::Index;
using kernlearn::KnnAlgorithm;
using kernlearn::LaplacianKind;
using kernlearn::Metric;
using kernlearn::Neighbors;
using kernlearn::RowMatrixXd;

constexpr Index kNeighbors = 10;

// Uniform [0, 1) data, as in bench_knn.py; a fixed seed so every run times the same points.
RowMatrixXd uniform_data(Index n, Index d) {
  std::mt19937_64 rng(0);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  RowMatrixXd X(n, d);
  for (Index i = 0; i < X.size(); ++i) X.data()[i] = unit(rng);
  return X;
}

void BM_knn(benchmark::State& state, KnnAlgorithm algorithm) {
  const Index n = 10000, d = state.range(0);
  const RowMatrixXd X = uniform_data(n, d);
  for (auto _ : state) {
    Neighbors nb = kernlearn::knn(X, kNeighbors, Metric::euclidean, algorithm, 1);
    benchmark::DoNotOptimize(nb.indices.data());
  }
  state.SetItemsProcessed(state.iterations() * n);  // query points per second
}
BENCHMARK_CAPTURE(BM_knn, kd_tree, KnnAlgorithm::kd_tree)->Arg(4)->Arg(16)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_knn, brute, KnnAlgorithm::brute)->Arg(4)->Arg(16)->Unit(benchmark::kMillisecond);

// The fixture of the graph benchmarks: kNN lists and the binary symmetric graph of 100000
// uniform points in 4-D, built once on first use (the search is not what these benchmarks time).
const Neighbors& neighbors_100k() {
  static const Neighbors nb =
      kernlearn::knn(uniform_data(100000, 4), kNeighbors, Metric::euclidean, KnnAlgorithm::kd_tree,
                     static_cast<int>(std::max(1U, std::thread::hardware_concurrency())));
  return nb;
}

const Csr& graph_100k() {
  static const Csr S = kernlearn::knn_graph(neighbors_100k(), GraphMode::symmetric, EdgeWeight::binary, 0.0);
  return S;
}

void BM_knn_graph(benchmark::State& state, GraphMode mode) {
  const Neighbors& nb = neighbors_100k();
  for (auto _ : state) {
    Csr S = kernlearn::knn_graph(nb, mode, EdgeWeight::distance, 0.0);
    benchmark::DoNotOptimize(S.data.data());
  }
}
BENCHMARK_CAPTURE(BM_knn_graph, symmetric, GraphMode::symmetric)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_knn_graph, mutual, GraphMode::mutual)->Unit(benchmark::kMillisecond);

void BM_laplacian(benchmark::State& state, LaplacianKind kind) {
  const Csr& S = graph_100k();
  for (auto _ : state) {
    Csr L = kernlearn::laplacian(S, kind);
    benchmark::DoNotOptimize(L.data.data());
  }
}
BENCHMARK_CAPTURE(BM_laplacian, normalized, LaplacianKind::normalized)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_laplacian, unnormalized, LaplacianKind::unnormalized)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_laplacian, random_walk, LaplacianKind::random_walk)->Unit(benchmark::kMillisecond);

}  // namespace
