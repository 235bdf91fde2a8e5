#include "kernlearn/neighbors/knn.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <mutex>
#include <stdexcept>
#include <utility>

#include "kernlearn/core/solver_choice.hpp"
#include "kernlearn/neighbors/distance.hpp"
#include "kernlearn/neighbors/kdtree.hpp"
#include "kernlearn/neighbors/knn_kernels.hpp"
#include "kernlearn/neighbors/neighbor_heap.hpp"

namespace kernlearn {

KnnAlgorithm choose_knn_algorithm(Index n, Index d, Metric metric) {
  if (metric == Metric::cosine) return KnnAlgorithm::brute;
  if (n < solver_choice::kKdTreeMinN) return KnnAlgorithm::brute;
  return d <= solver_choice::kKdTreeMaxDim ? KnnAlgorithm::kd_tree : KnnAlgorithm::brute;
}

namespace {

// Square blocks of the n x n inner-product matrix: 256 x 256 floats (256 KiB) stay in L2.
constexpr Index kBlock = 256;

// Task t of the upper triangle of nb blocks: the diagonal (I, I) first, then I < J column by
// column. A diagonal task gives its queries a bound from their own block (seeded, below),
// usually before any off-diagonal task scans for them (always on one thread), where they would
// otherwise start from an empty heap.
std::pair<Index, Index> upper_block_pair(Index t, Index nb) {
  if (t < nb) return {t, t};
  t -= nb;  // strictly upper: J >= 1, and (I, J) is task J (J - 1) / 2 + I
  auto J = static_cast<Index>((std::sqrt(8.0 * static_cast<double>(t) + 1.0) + 1.0) / 2.0);
  while (J * (J - 1) / 2 > t) --J;  // guard against the square root rounding either way
  while ((J + 1) * J / 2 <= t) ++J;
  return {t - J * (J - 1) / 2, J};
}

// The screen evaluates |z_i|^2 + |z_j|^2 - 2 <z_i, z_j> in float32 and may only reject a
// candidate whose true squared distance certainly exceeds the bound. Rounding z to float32 and a
// length-d float32 dot product err by at most (d + 2) eps |z_i||z_j| (Higham, Thm 3.5), i.e.
// (d + 2) eps (|z_i|^2 + |z_j|^2) / 2 in the doubled product; the norms, the final subtraction
// and the float64 centring add a few eps (|z_i|^2 + |z_j|^2). We shrink the norms by
// 1 - (2 d + 32) eps, about twice what is needed; at d = 64 that keeps candidates within 2e-5 of
// the bound, which costs a handful of exact distances per query.
double screen_tolerance(Index d) {
  return (2.0 * static_cast<double>(d) + 32.0) * static_cast<double>(std::numeric_limits<float>::epsilon());
}

// Float32 rounding of x toward -inf / +inf, so a rounded screen stays conservative.
float round_down(double x) {
  const auto f = static_cast<float>(x);
  return static_cast<double>(f) > x ? std::nextafter(f, -std::numeric_limits<float>::infinity()) : f;
}
float round_up(double x) {
  if (x >= static_cast<double>(std::numeric_limits<float>::max())) return std::numeric_limits<float>::infinity();
  const auto f = static_cast<float>(x);
  return static_cast<double>(f) < x ? std::nextafter(f, std::numeric_limits<float>::infinity()) : f;
}

}  // namespace

Neighbors knn_brute(const MatrixRef& X, Index k, Metric metric, int n_threads, const InterruptPoll& poll) {
  const Index n = X.rows(), d = X.cols();
  Neighbors out{RowMatrixXi(n, k), RowMatrixXd(n, k)};

  // Screening coordinates Z: centred rows scaled by a power of two so that max |z| <= 1
  // (euclidean; centring shrinks the norms the error bound scales with, the scale keeps float32
  // in range), or unit rows (cosine). Exact distances always use the original rows.
  //   euclidean: reject j when c (|z_i|^2 + |z_j|^2)(1 - tol) - 2 c g_ij > c bound_i
  //   cosine:    reject j when 1 - tol - g_ij > bound_i
  // with c the squared scale. Both read b_j - s g_ij > t_i, the form next_candidate scans, where
  // t_i = c bound_i - a_i is rounded up and b_j rounded down (both conservative).
  const double tol = screen_tolerance(d);
  const bool euclidean = metric == Metric::euclidean;
  RowMatrixXd Z = X;
  double c = 1.0;
  Eigen::VectorXd a(n);
  std::vector<float> b(static_cast<std::size_t>(n), 0.0f);
  if (euclidean) {
    Z.rowwise() -= X.colwise().mean();
    const double largest = Z.cwiseAbs().maxCoeff();
    if (largest > 0.0) {
      const double scale = std::ldexp(1.0, -std::ilogb(largest) - 1);  // exact: a power of two
      Z *= scale;
      c = scale * scale;
    }
    // Float32 underflow near 1e-38 adds an absolute error the relative bound misses.
    const double underflow = 4.0 * static_cast<double>(d) * static_cast<double>(std::numeric_limits<float>::min());
    for (Index i = 0; i < n; ++i) {
      const double shrunk = (1.0 - tol) * Z.row(i).squaredNorm();
      b[i] = round_down(shrunk);
      a(i) = shrunk - underflow;
    }
  } else {
    for (Index i = 0; i < n; ++i) {
      const double len = std::sqrt(ranking_dot(X.row(i).data(), X.row(i).data(), d));
      if (len > 0.0) Z.row(i) /= len;
    }
    a.setConstant(1.0 - tol);
  }
  const float s = euclidean ? 2.0f : 1.0f;
  const RowMatrixXf Zf = Z.cast<float>();
  // Euclidean confirmations read the original rows, so the float64 screening copy can go now:
  // it would otherwise double the search's memory for its whole run. Cosine keeps its unit rows.
  if (euclidean) RowMatrixXd().swap(Z);
  const PackedRows blocks(Zf, kBlock);
  const Index nb = blocks.n_blocks();

  std::vector<NeighborHeap> heaps;
  heaps.reserve(static_cast<std::size_t>(n));
  for (Index i = 0; i < n; ++i) heaps.emplace_back(out.distances.row(i).data(), out.indices.row(i).data(), k);

  auto exact = [&](Index i, Index j) {
    return euclidean ? squared_distance(X.row(i).data(), X.row(j).data(), d)
                     : 1.0 - ranking_dot(Z.row(i).data(), Z.row(j).data(), d);
  };
  auto threshold = [&](Index i) { return round_up(c * heaps[i].bound() - a(i)); };

  // The distance is symmetric, so each block pair (I, J), I <= J, is multiplied once and offered
  // both ways: rows of G (queries of I) scan J's points, and columns of G (queries of J) scan I's
  // points, vectorised across the queries. That halves the GEMM work, and nothing is transposed.
  //
  // Threads share the heaps, so each side runs in three steps: copy the queries' thresholds
  // under the block's lock, scan and compute exact distances with no lock held (a copied
  // threshold can only be looser than the live one, so nothing is missed), then push the few
  // survivors under the lock. Results do not depend on the order: heaps keep the k smallest
  // (distance, index) pairs.
  std::vector<std::mutex> locks(static_cast<std::size_t>(nb));
  constexpr Index ldg = kBlock + PackedRows::kMaxPanel;  // SIMD kernels write whole panels
  struct Survivor {
    Index query, candidate;
    double distance;
  };
  parallel_for(
      static_cast<std::size_t>(nb * (nb + 1) / 2), n_threads, 1,
      [&](std::size_t task, std::size_t) {
        thread_local std::vector<float> G, t;
        thread_local std::vector<Survivor> found;
        thread_local std::vector<double> local_dist;
        thread_local std::vector<Index> local_idx;
        thread_local std::vector<Index> seeds;
        G.resize(static_cast<std::size_t>(kBlock * ldg));
        local_dist.resize(static_cast<std::size_t>(kBlock * k));
        local_idx.resize(static_cast<std::size_t>(kBlock * k));
        t.resize(static_cast<std::size_t>(kBlock));
        const auto [I, J] = upper_block_pair(static_cast<Index>(task), nb);
        const Index r0 = I * kBlock, nr = blocks.rows_in_block(I);
        const Index c0 = J * kBlock, nc = blocks.rows_in_block(J);
        blocks.dot(Zf.row(r0).data(), nr, J, G.data(), ldg);

        auto copy_thresholds = [&](Index first, Index count) {
          std::lock_guard<std::mutex> hold(locks[first / kBlock]);
          for (Index q = 0; q < count; ++q) t[q] = threshold(first + q);
        };
        auto push_found = [&](Index block) {
          std::lock_guard<std::mutex> hold(locks[block]);
          for (const Survivor& f : found) heaps[f.query].push(f.distance, f.candidate);
          found.clear();
        };

        // Survivors also tighten the copied thresholds as the scan goes: a query's bound can be no
        // worse than the k-th best distance found for it in this very task. Local heaps keep those.
        auto local_heap = [&](Index q) { return NeighborHeap(local_dist.data() + q * k, local_idx.data() + q * k, k); };
        auto tightened = [&](const NeighborHeap& heap, Index query, float copied) {
          return heap.full() ? std::min(copied, round_up(c * heap.bound() - a(query))) : copied;
        };

        // Seeds: scanning in index order from an empty heap, a query confirms every candidate that
        // beats its running k-th best, about k (1 + ln(nc / k)) of them. So on a query's first block (its own, the
        // diagonal tasks going first) the best screened candidate of each of 16 lanes (j mod 16) is found first, one
        // pass of vector minima, and those lanes' minima enter the heap (15 of them: the query's own lane is skipped):
        // it starts near its final bound, and the scan confirms about one more. That pays from k = 3 (k (1 + ln(256 /
        // k)) = 16 there, against 6.5 at k = 1); ordering the lanes to seed only the k best gained nothing. Later
        // blocks start from the copied bound, which seeds would rarely beat (seeding every block was slower;
        // bench/results/knn.md). Seeds are real candidates, skipped when the scan meets them again: results are
        // unchanged.
        const bool seeding = I == J && k >= 3 && k < kSeedLanes && nc >= 4 * kSeedLanes;
        auto seed = [&](NeighborHeap& heap, Index qi, const float* g) {
          Index where[kSeedLanes];
          lane_minima(b.data() + c0, g, s, nc, where);
          for (int l = 0; l < kSeedLanes; ++l) {
            if (where[l] < 0 || c0 + where[l] == qi) continue;
            seeds.push_back(where[l]);
            heap.push(exact(qi, c0 + where[l]), c0 + where[l]);
          }
        };
        auto is_seed = [&](Index j) { return std::find(seeds.begin(), seeds.end(), j) != seeds.end(); };

        copy_thresholds(r0, nr);
        for (Index i = 0; i < nr; ++i) {
          const Index qi = r0 + i;
          const float* g = G.data() + i * ldg;
          NeighborHeap heap = local_heap(0);
          seeds.clear();
          if (seeding && t[i] == std::numeric_limits<float>::infinity()) seed(heap, qi, g);
          for (Index j = next_candidate(b.data() + c0, g, s, tightened(heap, qi, t[i]), 0, nc); j < nc;
               j = next_candidate(b.data() + c0, g, s, tightened(heap, qi, t[i]), j + 1, nc))
            if (c0 + j != qi && !is_seed(j)) heap.push(exact(qi, c0 + j), c0 + j);
          for (Index q = 0; q < heap.size(); ++q) found.push_back({qi, local_idx[q], local_dist[q]});
        }
        push_found(I);
        if (I == J) return;  // a diagonal block's rows already saw every pair both ways

        copy_thresholds(c0, nc);
        std::vector<NeighborHeap> column_heaps;
        column_heaps.reserve(static_cast<std::size_t>(nc));
        for (Index j = 0; j < nc; ++j) column_heaps.push_back(local_heap(j));
        for (Index i = 0; i < nr; ++i) {
          const Index ci = r0 + i;
          const float* g = G.data() + i * ldg;
          for (Index j = next_query(b[ci], g, s, t.data(), 0, nc); j < nc;
               j = next_query(b[ci], g, s, t.data(), j + 1, nc)) {
            NeighborHeap& heap = column_heaps[j];
            heap.push(exact(c0 + j, ci), ci);
            t[j] = tightened(heap, c0 + j, t[j]);
          }
        }
        for (Index j = 0; j < nc; ++j)
          for (Index q = 0; q < column_heaps[j].size(); ++q)
            found.push_back({c0 + j, local_idx[j * k + q], local_dist[j * k + q]});
        push_found(J);
      },
      poll);

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
    throw std::invalid_argument("n_neighbors must satisfy 0 < n_neighbors < n_samples = " + std::to_string(n) +
                                ", got " + std::to_string(k));
  if (n_threads < 1) throw std::invalid_argument("n_threads must be >= 1");
  if (algorithm == KnnAlgorithm::automatic) algorithm = choose_knn_algorithm(n, X.cols(), metric);
  if (algorithm == KnnAlgorithm::kd_tree) {  // euclidean only: kernlearn/graph.py checks the pair
    return KdTree(X).self_query(k, n_threads, poll);
  }
  return knn_brute(X, k, metric, n_threads, poll);
}

}  // namespace kernlearn
