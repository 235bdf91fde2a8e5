#include "kernlearn/methods/triplets.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace kernlearn {

TripletSearch most_violated_triplets(const MatrixRef& Z, const Csr& graph, double margin, Index per_point,
                                     int n_threads, const InterruptPoll& poll) {
  const Index n = Z.rows();
  if (graph.n != n) throw std::invalid_argument("Z and graph must have one row per point each");
  if (graph.indptr.size() != static_cast<std::size_t>(n) + 1) throw std::invalid_argument("graph must be n x n");
  if (!(margin >= 0.0) || !std::isfinite(margin)) throw std::invalid_argument("margin must be finite and >= 0");
  if (per_point < 1) throw std::invalid_argument("per_point must be >= 1");
  if (!Z.allFinite()) throw std::invalid_argument("Z must be finite");
  if (n > 0 && Z.cwiseAbs().maxCoeff() > kMaxCoordinate)
    throw std::invalid_argument("Z's entries must be at most 1e150 in magnitude (squared distances must be finite)");
  for (double w : graph.data)
    if (!std::isfinite(w)) throw std::invalid_argument("graph's data must be finite");
  const Eigen::VectorXd sq = Z.rowwise().squaredNorm();
  constexpr Index kBlock = 64;  // rows per block: a 64 x n distance block stays small
  const Index n_blocks = (n + kBlock - 1) / kBlock;
  std::vector<std::vector<Triplet>> found(static_cast<std::size_t>(n));
  std::vector<double> worst(static_cast<std::size_t>(n), -std::numeric_limits<double>::infinity());

  parallel_for(
      static_cast<std::size_t>(n_blocks), n_threads, 1,
      [&](std::size_t b0, std::size_t b1) {
        std::vector<char> is_neighbour(static_cast<std::size_t>(n), 0);
        std::vector<std::pair<double, Index>> candidates;
        for (auto b = static_cast<Index>(b0); b < static_cast<Index>(b1); ++b) {
          const Index first = b * kBlock, rows = std::min(kBlock, n - first);
          // d_ij = |z_i|^2 + |z_j|^2 - 2 z_i . z_j for the block's rows against every point.
          const Eigen::MatrixXd inner = Z.middleRows(first, rows) * Z.transpose();
          for (Index r = 0; r < rows; ++r) {
            const Index i = first + r;
            auto dist = [&](Index j) { return std::max(0.0, sq(i) + sq(j) - 2.0 * inner(r, j)); };
            double far = -1.0;
            Index far_k = -1;
            for (Index q = graph.indptr[i]; q < graph.indptr[i + 1]; ++q) {
              const Index k = graph.indices[q];
              if (k == i) continue;
              is_neighbour[k] = 1;
              if (dist(k) > far) far = dist(k), far_k = k;
            }
            if (far_k >= 0) {
              candidates.clear();
              double nearest = std::numeric_limits<double>::infinity();
              for (Index j = 0; j < n; ++j) {
                if (j == i || is_neighbour[j]) continue;
                const double d = dist(j);
                nearest = std::min(nearest, d);
                if (far - d > margin) candidates.emplace_back(d, j);
              }
              if (nearest < std::numeric_limits<double>::infinity()) worst[i] = far - nearest;
              const auto keep = std::min<std::size_t>(candidates.size(), static_cast<std::size_t>(per_point));
              std::partial_sort(candidates.begin(), candidates.begin() + keep, candidates.end());
              for (std::size_t c = 0; c < keep; ++c)
                found[i].push_back({i, candidates[c].second, far_k, far - candidates[c].first});
            }
            for (Index q = graph.indptr[i]; q < graph.indptr[i + 1]; ++q) is_neighbour[graph.indices[q]] = 0;
          }
        }
      },
      poll);

  TripletSearch out;
  out.max_violation = -std::numeric_limits<double>::infinity();
  for (Index i = 0; i < n; ++i) {
    out.max_violation = std::max(out.max_violation, worst[i]);
    out.triplets.insert(out.triplets.end(), found[i].begin(), found[i].end());
  }
  return out;
}

}  // namespace kernlearn
