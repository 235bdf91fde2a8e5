// A kd-tree over the rows of a matrix, for exact euclidean kNN in low dimension.
//
// Nodes split at the median of their widest coordinate, so the tree is balanced and its depth is
// log2(n / leaf_size). Points are stored in leaf order: a leaf scan reads contiguous memory, and
// querying the data points in that same order keeps consecutive queries on nearby nodes.
#pragma once

#include <vector>

#include "kernlearn/core/types.hpp"
#include "kernlearn/neighbors/knn.hpp"

namespace kernlearn {

class KdTree {
 public:
  // The build polls at every node (a poll is a clock read between its real checks) and throws
  // Interrupted when poll() returns true.
  explicit KdTree(const MatrixRef& X, Index leaf_size = 32, const InterruptPoll& poll = {});

  // kNN of every indexed point among the others, self excluded, as keys (knn.hpp's contract).
  NeighborKeys self_query(Index k, int n_threads, const InterruptPoll& poll = {}) const;

  // kNN among the indexed points of each row of `queries` (points other than the indexed ones, with
  // as many columns), as keys; k is at most the number of indexed points.
  NeighborKeys query(const MatrixRef& queries, Index k, int n_threads, const InterruptPoll& poll = {}) const;

  Index n_nodes() const { return static_cast<Index>(nodes_.size()); }

 private:
  struct Node {
    Index begin, end;   // range of points_ rows under this node
    Index left, right;  // child node ids, -1 for a leaf
  };

  Index build(Index begin, Index end, const InterruptPoll& poll);
  void search(Index node, const double* q, Index self, class NeighborHeap& heap) const;
  double box_distance2(Index node, const double* q) const;

  Index n_, d_, leaf_size_;
  RowMatrixXd points_;        // the data in leaf order
  std::vector<Index> order_;  // points_ row r is row order_[r] of the input
  std::vector<Node> nodes_;
  std::vector<double> lo_, hi_;  // per-node bounding boxes, n_nodes x d
};

}  // namespace kernlearn
