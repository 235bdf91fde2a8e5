#include "kernlearn/knn.hpp"

#include <cmath>
#include <limits>
#include <mutex>
#include <utility>
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
  // Crossover measured (bench/bench_knn.py; n = 50,000 uniform points, k = 10, 2 threads): the
  // kd-tree takes 0.73x the brute force's time at d = 8, 0.99x at d = 9, 1.7x at d = 10. Real
  // data, of lower intrinsic dimension, favours the tree more, so d <= 8 is conservative. Tiny
  // sets go brute (no tree to build).
  if (n < 256) return KnnAlgorithm::brute;
  return d <= 8 ? KnnAlgorithm::kd_tree : KnnAlgorithm::brute;
}

namespace {

// Square blocks of the n x n inner-product matrix: 256 x 256 doubles (512 KiB) stay in L2.
constexpr Index kBlock = 256;

// Task t of the upper triangle of blocks, column by column: (I, J) with I <= J.
std::pair<Index, Index> upper_block_pair(Index t) {
  auto J = static_cast<Index>((std::sqrt(8.0 * static_cast<double>(t) + 1.0) - 1.0) / 2.0);
  while (J * (J + 1) / 2 > t) --J;  // guard against the square root rounding either way
  while ((J + 1) * (J + 2) / 2 <= t) ++J;
  return {t - J * (J + 1) / 2, J};
}

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
  const PackedRows blocks(Z, kBlock);
  const Index nb = blocks.n_blocks();

  std::vector<NeighborHeap> heaps;
  heaps.reserve(static_cast<std::size_t>(n));
  for (Index i = 0; i < n; ++i)
    heaps.emplace_back(out.distances.row(i).data(), out.indices.row(i).data(), k);

  // Offers candidates c0.. (columns of G) to queries r0.. (rows of G): the screen skips all but
  // the few that could enter a heap, which get the exact distance.
  auto offer = [&](Index r0, Index nr, Index c0, Index nc, const double* G, Index ldg) {
    const double* bc = b.data() + c0;
    for (Index i = 0; i < nr; ++i) {
      const Index qi = r0 + i;
      NeighborHeap& heap = heaps[static_cast<std::size_t>(qi)];
      const double* g = G + i * ldg;
      for (Index j = next_candidate(bc, g, s, heap.bound() - a(qi), 0, nc); j < nc;
           j = next_candidate(bc, g, s, heap.bound() - a(qi), j + 1, nc)) {
        const Index cj = c0 + j;
        if (cj == qi) continue;
        heap.push(euclidean ? squared_distance(X.row(qi).data(), X.row(cj).data(), d)
                            : 1.0 - dot(Z.row(qi).data(), Z.row(cj).data(), d),
                  cj);
      }
    }
  };

  // The distance is symmetric, so each block pair (I, J), I <= J, is multiplied once and offered
  // both ways: rows of I get J's points, rows of J get I's (through the transposed block). That
  // halves the GEMM work. A block's heaps are touched under its lock, one lock held at a time;
  // results do not depend on the order, since heaps keep the k smallest (distance, index) pairs.
  std::vector<std::mutex> locks(static_cast<std::size_t>(nb));
  constexpr Index ldg = kBlock + PackedRows::kPanel;  // the SIMD kernel writes whole panels
  parallel_for(static_cast<std::size_t>(nb * (nb + 1) / 2), n_threads, 1,
               [&](std::size_t task, std::size_t) {
    thread_local std::vector<double> G, Gt;
    G.resize(static_cast<std::size_t>(kBlock * ldg));
    Gt.resize(static_cast<std::size_t>(kBlock * ldg));
    const auto [I, J] = upper_block_pair(static_cast<Index>(task));
    const Index r0 = I * kBlock, nr = blocks.rows_in_block(I);
    const Index c0 = J * kBlock, nc = blocks.rows_in_block(J);
    blocks.dot(Z.row(r0).data(), nr, J, G.data(), ldg);
    {
      std::lock_guard<std::mutex> hold(locks[static_cast<std::size_t>(I)]);
      offer(r0, nr, c0, nc, G.data(), ldg);
    }
    if (I == J) return;
    Eigen::Map<RowMatrixXd, 0, Eigen::OuterStride<>>(Gt.data(), nc, nr, Eigen::OuterStride<>(ldg)) =
        Eigen::Map<RowMatrixXd, 0, Eigen::OuterStride<>>(G.data(), nr, nc, Eigen::OuterStride<>(ldg))
            .transpose();
    std::lock_guard<std::mutex> hold(locks[static_cast<std::size_t>(J)]);
    offer(c0, nc, r0, nr, Gt.data(), ldg);
  }, poll);

  parallel_for(static_cast<std::size_t>(n), n_threads, 4096, [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) {
      heaps[i].sort();
      auto row = out.distances.row(static_cast<Index>(i));
      if (euclidean) {
        row = row.cwiseSqrt();
      } else {
        row = row.cwiseMax(0.0).cwiseMin(2.0);  // rounding can leave 1 - cos just outside [0, 2]
      }
    }
  });
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
