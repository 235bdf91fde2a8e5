#include "kernlearn/neighbors/kdtree.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "kernlearn/neighbors/distance.hpp"
#include "kernlearn/neighbors/neighbor_heap.hpp"

namespace kernlearn {

KdTree::KdTree(const MatrixRef& X, Index leaf_size, const InterruptPoll& poll)
    : n_(X.rows()),
      d_(X.cols()),
      leaf_size_(std::max<Index>(leaf_size, 1)),
      points_(X),
      order_(static_cast<std::size_t>(X.rows())) {
  std::iota(order_.begin(), order_.end(), Index{0});
  nodes_.reserve(static_cast<std::size_t>(2 * (n_ / leaf_size_ + 1)));
  build(0, n_, poll);
  // Reorder the points once so that leaves are contiguous.
  RowMatrixXd sorted(n_, d_);
  for (Index r = 0; r < n_; ++r) sorted.row(r) = X.row(order_[r]);
  points_.swap(sorted);
}

Index KdTree::build(Index begin, Index end, const InterruptPoll& poll) {
  if (poll && poll()) throw Interrupted();
  const Index id = static_cast<Index>(nodes_.size());
  nodes_.push_back({begin, end, -1, -1});
  const std::size_t off = (id * d_);
  lo_.resize(off + d_);
  hi_.resize(off + d_);
  // Bounding box of the points (tighter than the split planes, so pruning is stronger).
  for (Index j = 0; j < d_; ++j) {
    double lo = points_(order_[begin], j), hi = lo;
    for (Index r = begin + 1; r < end; ++r) {
      const double v = points_(order_[r], j);
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
    lo_[off + j] = lo;
    hi_[off + j] = hi;
  }
  if (end - begin <= leaf_size_) return id;

  Index dim = 0;
  double widest = -1.0;
  for (Index j = 0; j < d_; ++j) {
    const double w = hi_[off + j] - lo_[off + j];
    if (w > widest) {
      widest = w;
      dim = j;
    }
  }
  if (widest <= 0.0) return id;  // all points identical: a (large) leaf is the only sensible node

  const Index mid = begin + (end - begin) / 2;
  auto first = order_.begin() + begin, nth = order_.begin() + mid, last = order_.begin() + end;
  std::nth_element(first, nth, last, [&](Index a, Index b) {
    const double va = points_(a, dim), vb = points_(b, dim);
    return va < vb || (va == vb && a < b);
  });
  const Index left = build(begin, mid, poll);
  const Index right = build(mid, end, poll);
  nodes_[id].left = left;
  nodes_[id].right = right;
  return id;
}

double KdTree::box_distance2(Index node, const double* q) const {
  const double* lo = lo_.data() + node * d_;
  const double* hi = hi_.data() + node * d_;
  return ordered_sum(d_, [&](Index j) {  // squared_distance's order (distance.hpp)
    const double below = lo[j] - q[j], above = q[j] - hi[j];
    const double gap = below > 0.0 ? below : (above > 0.0 ? above : 0.0);
    return gap * gap;
  });
}

void KdTree::search(Index node_id, const double* q, Index self, NeighborHeap& heap) const {
  const Node& node = nodes_[node_id];
  if (node.left < 0) {
    for (Index r = node.begin; r < node.end; ++r) {
      const Index original = order_[r];
      if (original == self) continue;
      heap.push(squared_distance(q, points_.data() + r * d_, d_), original);
    }
    return;
  }
  double dl = box_distance2(node.left, q), dr = box_distance2(node.right, q);
  Index first = node.left, second = node.right;
  if (dr < dl) {
    std::swap(first, second);
    std::swap(dl, dr);
  }
  // A box at exactly the current bound may still hold a tie with a lower index: prune only '>'.
  if (dl <= heap.bound()) search(first, q, self, heap);
  if (dr <= heap.bound()) search(second, q, self, heap);
}

NeighborKeys KdTree::self_query(Index k, int n_threads, const InterruptPoll& poll) const {
  NeighborKeys out{RowMatrixXi(n_, k), RowMatrixXd(n_, k)};
  // Queries run in leaf order (consecutive queries share most of their search path).
  parallel_for(
      static_cast<std::size_t>(n_), n_threads, 256,
      [&](std::size_t begin, std::size_t end) {
        for (std::size_t r = begin; r < end; ++r) {
          const Index self = order_[r];
          NeighborHeap heap(out.keys.row(self).data(), out.indices.row(self).data(), k);
          search(0, points_.data() + static_cast<Index>(r) * d_, self, heap);
          require_full(heap, self, k);
          heap.sort();
        }
      },
      poll);
  return out;
}

NeighborKeys KdTree::query(const MatrixRef& queries, Index k, int n_threads, const InterruptPoll& poll) const {
  const Index nq = queries.rows();
  NeighborKeys out{RowMatrixXi(nq, k), RowMatrixXd(nq, k)};
  parallel_for(
      static_cast<std::size_t>(nq), n_threads, 256,
      [&](std::size_t begin, std::size_t end) {
        for (std::size_t q = begin; q < end; ++q) {
          const auto i = static_cast<Index>(q);
          NeighborHeap heap(out.keys.row(i).data(), out.indices.row(i).data(), k);
          search(0, queries.row(i).data(), -1, heap);  // no indexed point is a query
          require_full(heap, i, k);
          heap.sort();
        }
      },
      poll);
  return out;
}

}  // namespace kernlearn
