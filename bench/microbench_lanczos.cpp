// Google Benchmark microbenchmarks of the eigensolver's parts: the sparse mat-vec (1 and 2
// threads), one Gram-Schmidt step against a basis of 100 columns (what a Lanczos step pays on
// top of its mat-vec; 1 and 2 threads), and a whole solve, reporting mat-vecs and restarts.
// Build with -DKERNLEARN_BENCH=ON; see bench/README.md.
#include <benchmark/benchmark.h>
#include <random>

#include "kernlearn/linalg/gram_schmidt.hpp"
#include "kernlearn/linalg/lanczos.hpp"
#include "kernlearn/linalg/operator.hpp"
#include "kernlearn/neighbors/graph.hpp"
#include "kernlearn/neighbors/knn.hpp"

namespace {

using kernlearn::Csr;
using kernlearn::Index;

// The normalised Laplacian of the mutual 10-NN graph of n Gaussian points in 10 dimensions.
const Csr& laplacian_of(Index n) {
  static Csr cached;
  if (cached.n != n) {
    std::mt19937_64 rng(0);
    std::normal_distribution<double> normal;
    kernlearn::RowMatrixXd X(n, 10);
    for (Index i = 0; i < X.size(); ++i) X.data()[i] = normal(rng);
    const auto nb = kernlearn::knn(X, 10, kernlearn::Metric::euclidean, kernlearn::KnnAlgorithm::automatic, 2);
    const Csr G = kernlearn::knn_graph(nb, kernlearn::GraphMode::mutual, kernlearn::EdgeWeight::binary, 1.0);
    cached = kernlearn::laplacian(G, kernlearn::LaplacianKind::normalized);
  }
  return cached;
}

void BM_spmv(benchmark::State& state) {  // args: n, threads, columns
  const Index n = state.range(0);
  const Csr& L = laplacian_of(n);
  kernlearn::ThreadTeam team(static_cast<int>(state.range(1)));
  const kernlearn::CsrOperator A(n, L.indptr.data(), L.indices.data(), L.data.data(), team);
  const Index b = state.range(2);
  Eigen::MatrixXd x = Eigen::MatrixXd::Ones(n, b), y(n, b);
  for (auto _ : state) {
    A.apply(x, y);
    benchmark::DoNotOptimize(y.data());
  }
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(L.data.size() * 16 * b));
}
// A single vector, and the block of 50 a warm start multiplies.
BENCHMARK(BM_spmv)->Args({10000, 1, 1})->Args({100000, 1, 1})->Args({100000, 2, 1})->Args({10000, 2, 50});

// One Gram-Schmidt step against a basis of 64 or 100 columns as Lanczos does it: project, then subtract
// (fusing the second pass's projection), on a thread team of 1 or 2.
void BM_gram_schmidt_sweep(benchmark::State& state) {
  const Index n = state.range(0), cols = state.range(2);
  kernlearn::ThreadTeam team(static_cast<int>(state.range(1)));
  kernlearn::BasisProducts gs(n, team);
  Eigen::MatrixXd V = Eigen::MatrixXd::Random(n, cols);
  Eigen::VectorXd w = Eigen::VectorXd::Random(n), h(cols), h2(cols);
  for (auto _ : state) {
    gs.project(V.data(), n, cols, w.data(), h.data());
    gs.subtract_then_project(V.data(), n, cols, h.data(), w.data(), h2.data());
    benchmark::DoNotOptimize(w.data());
  }
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(2 * n * cols * 8));
}
BENCHMARK(BM_gram_schmidt_sweep)
    ->Args({10000, 1, 64})
    ->Args({10000, 2, 64})
    ->Args({10000, 2, 100})
    ->Args({100000, 2, 100});

// The thick restart's rotation Y = V S of an n x 80 basis onto the 57 Ritz vectors it keeps (the
// shape of a top-50 solve), on a thread team of 1 or 2.
void BM_basis_rotation(benchmark::State& state) {
  const Index n = state.range(0), m = 80, keep = 57;
  kernlearn::ThreadTeam team(static_cast<int>(state.range(1)));
  kernlearn::BasisProducts gs(n, team);
  const Eigen::MatrixXd V = Eigen::MatrixXd::Random(n, m), S = Eigen::MatrixXd::Random(m, keep);
  Eigen::MatrixXd Y(n, keep);
  for (auto _ : state) {
    gs.rotate(V.data(), n, m, S.data(), m, keep, Y.data(), n);
    benchmark::DoNotOptimize(Y.data());
  }
  state.counters["GFlops"] =
      benchmark::Counter(static_cast<double>(2 * n * m * keep) * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_basis_rotation)->Args({10000, 1})->Args({10000, 2})->Args({100000, 2});

// A full solve of the 20 largest eigenpairs of 2I - L (the smallest of L), reporting mat-vecs
// and restarts: time per restart cycle = time / restarts.
void BM_lanczos_solve(benchmark::State& state) {
  const Index n = state.range(0);
  const Csr& L = laplacian_of(n);
  Csr M = L;
  for (Index i = 0; i < n; ++i)
    for (Index p = M.indptr[i]; p < M.indptr[i + 1]; ++p) M.data[p] = (M.indices[p] == i ? 2.0 : 0.0) - L.data[p];
  kernlearn::ThreadTeam team(1);
  const kernlearn::CsrOperator A(n, M.indptr.data(), M.indices.data(), M.data.data(), team);
  kernlearn::LanczosOptions opt;
  opt.k = 20;
  opt.tol = 1e-10;
  const Eigen::MatrixXd start = Eigen::MatrixXd::Ones(n, 1);
  kernlearn::LanczosResult result;
  for (auto _ : state) result = kernlearn::lanczos(A, start, opt, team);
  state.counters["matvecs"] = static_cast<double>(result.n_matvec);
  state.counters["restarts"] = static_cast<double>(result.n_restart);
}
BENCHMARK(BM_lanczos_solve)->Arg(10000)->Unit(benchmark::kMillisecond);

}  // namespace
