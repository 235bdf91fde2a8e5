#include "kernlearn/knn.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>

#include "kernlearn/distance.hpp"
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

  // Screening coordinates: centred (euclidean; shrinks the norms the error bound scales with) or
  // unit rows (cosine). The confirmation step always uses the original rows.
  RowMatrixXd Z;
  Eigen::VectorXd norm2(n);
  if (metric == Metric::euclidean) {
    const Eigen::RowVectorXd mean = X.colwise().mean();
    Z = X.rowwise() - mean;
    norm2 = Z.rowwise().squaredNorm();
  } else {
    Z = X;
    for (Index i = 0; i < n; ++i) {
      const double len = std::sqrt(dot(X.row(i).data(), X.row(i).data(), d));
      if (len > 0.0) Z.row(i) /= len;
    }
    norm2.setZero();
  }
  const double tol = screen_tolerance(d);

  const std::size_t n_blocks = static_cast<std::size_t>((n + kQueryBlock - 1) / kQueryBlock);
  parallel_for(n_blocks, n_threads, 1, [&](std::size_t blk, std::size_t) {
    const Index q0 = static_cast<Index>(blk) * kQueryBlock;
    const Index nq = std::min(kQueryBlock, n - q0);
    RowMatrixXd G(nq, kCandidateBlock);
    std::vector<NeighborHeap> heaps;
    heaps.reserve(static_cast<std::size_t>(nq));
    for (Index i = 0; i < nq; ++i)
      heaps.emplace_back(out.distances.row(q0 + i).data(), out.indices.row(q0 + i).data(), k);

    for (Index c0 = 0; c0 < n; c0 += kCandidateBlock) {
      const Index nc = std::min(kCandidateBlock, n - c0);
      auto Gb = G.leftCols(nc);
      Gb.noalias() = Z.middleRows(q0, nq) * Z.middleRows(c0, nc).transpose();
      for (Index i = 0; i < nq; ++i) {
        const Index qi = q0 + i;
        const double* xq = X.row(qi).data();
        NeighborHeap& heap = heaps[static_cast<std::size_t>(i)];
        const double* g = Gb.row(i).data();
        if (metric == Metric::euclidean) {
          const double nqi = norm2(qi);
          double bound = heap.bound();
          for (Index j = 0; j < nc; ++j) {
            const Index cj = c0 + j;
            const double scale = nqi + norm2(cj);
            if (scale - 2.0 * g[j] - tol * scale > bound || cj == qi) continue;
            heap.push(squared_distance(xq, X.row(cj).data(), d), cj);
            bound = heap.bound();
          }
        } else {
          const double* zq = Z.row(qi).data();
          double bound = heap.bound();
          for (Index j = 0; j < nc; ++j) {
            const Index cj = c0 + j;
            if (1.0 - g[j] - tol > bound || cj == qi) continue;
            heap.push(1.0 - dot(zq, Z.row(cj).data(), d), cj);
            bound = heap.bound();
          }
        }
      }
    }
    for (Index i = 0; i < nq; ++i) {
      heaps[static_cast<std::size_t>(i)].sort();
      auto row = out.distances.row(q0 + i);
      if (metric == Metric::euclidean) {
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
