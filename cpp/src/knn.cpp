#include "kernlearn/knn.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>

#include "kernlearn/distance.hpp"
#include "kernlearn/knn_kernels.hpp"
#include "kernlearn/kdtree.hpp"
#include "kernlearn/neighbor_heap.hpp"

namespace kernlearn {

Metric parse_metric(const std::string& name) {
  if (name == "euclidean") return Metric::euclidean;
  if (name == "cosine") return Metric::cosine;
  throw std::invalid_argument("metric must be 'euclidean' or 'cosine', got '" + name + "'");
}

KnnAlgorithm parse_knn_algorithm(const std::string& name) {
  if (name == "auto") return KnnAlgorithm::automatic;
  if (name == "kd_tree") return KnnAlgorithm::kd_tree;
  if (name == "brute") return KnnAlgorithm::brute;
  throw std::invalid_argument("algorithm must be 'auto', 'kd_tree' or 'brute', got '" + name + "'");
}

KnnAlgorithm choose_knn_algorithm(Index n, Index d, Metric metric) {
  if (metric == Metric::cosine) return KnnAlgorithm::brute;
  // Crossover measured by bench/bench_knn.py: the kd-tree prunes well up to about 8 dimensions on
  // real and uniform data; beyond that its leaves are visited almost exhaustively and the GEMM
  // screen of the brute force wins. Tiny sets go brute (no tree to build).
  if (n < 256) return KnnAlgorithm::brute;
  return d <= 8 ? KnnAlgorithm::kd_tree : KnnAlgorithm::brute;
}

namespace {

constexpr Index kQueryBlock = 128;
constexpr Index kCandidateBlock = 512;

// The brute force screens with the GEMM identity |x - y|^2 = |x|^2 + |y|^2 - 2 x.y, which loses
// accuracy to cancellation, then confirms survivors with the direct distance (distance.hpp). The
// screen keeps every candidate whose GEMM value is within this bound of the direct one: forward
// error of a length-d dot product is <= d eps |x||y| (Higham, Thm 3.5), the norms and the
// centring add a few eps (|x|^2 + |y|^2); 4 d + 32 is a safe over-estimate.
double screen_tolerance(Index d) {
  return (4.0 * static_cast<double>(d) + 32.0) * std::numeric_limits<double>::epsilon();
}

}  // namespace

Neighbors knn_brute(const MatrixRef& X, Index k, Metric metric, int n_threads,
                    const InterruptPoll& poll) {
  const Index n = X.rows(), d = X.cols();
  Neighbors out{RowMatrixXi(n, k), RowMatrixXd(n, k)};

  // Screening coordinates Z: centred rows (euclidean; shrinks the norms the error bound scales
  // with) or unit rows (cosine). Exact distances always use the original rows.
  //   euclidean: reject j when |z_i|^2 + |z_j|^2 - 2 g_ij - tol (|z_i|^2 + |z_j|^2) > bound_i
  //   cosine:    reject j when 1 - g_ij - tol > bound_i
  // Both read: reject when b_j - s g_ij > bound_i - a_i, the form next_candidate scans.
  const double tol = screen_tolerance(d);
  const bool euclidean = metric == Metric::euclidean;
  RowMatrixXd Z = X;
  Eigen::VectorXd b = Eigen::VectorXd::Zero(n), a(n);
  if (euclidean) {
    Z.rowwise() -= X.colwise().mean();
    b = (1.0 - tol) * Z.rowwise().squaredNorm();
    a = b;
  } else {
    for (Index i = 0; i < n; ++i) {
      const double len = std::sqrt(dot(X.row(i).data(), X.row(i).data(), d));
      if (len > 0.0) Z.row(i) /= len;
    }
    a.setConstant(1.0 - tol);
  }
  const double s = euclidean ? 2.0 : 1.0;
  const PackedRows candidates(Z, kCandidateBlock);

  const std::size_t n_blocks = static_cast<std::size_t>((n + kQueryBlock - 1) / kQueryBlock);
  parallel_for(n_blocks, n_threads, 1, [&](std::size_t blk, std::size_t) {
    const Index q0 = static_cast<Index>(blk) * kQueryBlock;
    const Index nq = std::min(kQueryBlock, n - q0);
    // Room for whole panels: the SIMD kernel writes up to 7 columns past the last candidate.
    constexpr Index ldg = kCandidateBlock + PackedRows::kPanel;
    std::vector<double> G(static_cast<std::size_t>(nq * ldg));
    std::vector<NeighborHeap> heaps;
    heaps.reserve(static_cast<std::size_t>(nq));
    for (Index i = 0; i < nq; ++i)
      heaps.emplace_back(out.distances.row(q0 + i).data(), out.indices.row(q0 + i).data(), k);

    for (Index blk_c = 0; blk_c < candidates.n_blocks(); ++blk_c) {
      const Index c0 = blk_c * kCandidateBlock, nc = candidates.rows_in_block(blk_c);
      candidates.dot(Z.row(q0).data(), nq, blk_c, G.data(), ldg);
      for (Index i = 0; i < nq; ++i) {
        const Index qi = q0 + i;
        NeighborHeap& heap = heaps[static_cast<std::size_t>(i)];
        const double* g = G.data() + i * ldg;
        const double* bc = b.data() + c0;
        for (Index j = next_candidate(bc, g, s, heap.bound() - a(qi), 0, nc); j < nc;
             j = next_candidate(bc, g, s, heap.bound() - a(qi), j + 1, nc)) {
          const Index cj = c0 + j;
          if (cj == qi) continue;
          heap.push(euclidean ? squared_distance(X.row(qi).data(), X.row(cj).data(), d)
                              : 1.0 - dot(Z.row(qi).data(), Z.row(cj).data(), d),
                    cj);
        }
      }
    }
    for (Index i = 0; i < nq; ++i) {
      heaps[static_cast<std::size_t>(i)].sort();
      auto row = out.distances.row(q0 + i);
      if (euclidean) {
        row = row.cwiseSqrt();
      } else {
        row = row.cwiseMax(0.0).cwiseMin(2.0);  // rounding can leave 1 - cos just outside [0, 2]
      }
    }
  }, poll);
  return out;
}

Neighbors knn(const MatrixRef& X, Index k, Metric metric, KnnAlgorithm algorithm, int n_threads,
              const InterruptPoll& poll) {
  const Index n = X.rows();
  if (n < 2) throw std::invalid_argument("knn needs at least 2 points, got " + std::to_string(n));
  if (k < 1 || k >= n)
    throw std::invalid_argument("n_neighbors must satisfy 0 < n_neighbors < n_samples = " +
                                std::to_string(n) + ", got " + std::to_string(k));
  if (n_threads < 1) throw std::invalid_argument("n_threads must be >= 1");
  if (algorithm == KnnAlgorithm::automatic) algorithm = choose_knn_algorithm(n, X.cols(), metric);
  if (algorithm == KnnAlgorithm::kd_tree) {
    if (metric != Metric::euclidean)
      throw std::invalid_argument("algorithm='kd_tree' supports metric='euclidean' only");
    return KdTree(X).self_query(k, n_threads, poll);
  }
  return knn_brute(X, k, metric, n_threads, poll);
}

}  // namespace kernlearn
