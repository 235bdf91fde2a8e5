// Exact k-nearest neighbours of every point of a data set among the others.
//
// Two searches give identical answers: a kd-tree (kdtree.hpp) for low dimension and a blocked
// brute force that screens candidates with a GEMM and confirms them with a direct distance.
// Both rank candidates by the squared distance summed dimension by dimension in the same order,
// so their results are bitwise equal; ties go to the lower index (neighbor_heap.hpp).
#pragma once

#include "kernlearn/core/parallel.hpp"
#include "kernlearn/core/types.hpp"

namespace kernlearn {

enum class Metric { euclidean, cosine };
enum class KnnAlgorithm { automatic, kd_tree, brute };

struct Neighbors {
  RowMatrixXi indices;    // n x k, ascending by (distance, index), self excluded
  RowMatrixXd distances;  // n x k: euclidean distance, or cosine distance 1 - cos(x, y)
};

// What the searches rank by, before it becomes a distance: the squared euclidean distance of the
// searched (possibly rescaled) rows, or 1 - cos(x, y) before it is clamped to [0, 2]. A distance
// is a monotone but not strictly monotone function of its key (two keys can round to one square
// root), so searches and merges of partial results compare keys and ties go to the lower index;
// neighbors_from_keys (knn_blocks.hpp) turns keys into distances once, at the end.
struct NeighborKeys {
  RowMatrixXi indices;  // n x k, ascending by (key, index)
  RowMatrixXd keys;     // n x k
};

// The search "automatic" picks for n points in d dimensions (measured in bench/bench_knn.py).
KnnAlgorithm choose_knn_algorithm(Index n, Index d, Metric metric);

// Exact kNN of each row of X among the other rows, for finite X of any magnitude (distances of
// the scaled data, scaled back: distance.hpp's safe range). Throws std::invalid_argument unless
// 0 < k < n, X has a column and is finite, and algorithm kd_tree comes with the euclidean metric. Cosine distance
// always uses the brute force (it is an inner-product ranking); rows of zero norm have cosine distance 1 to everything,
// as in scikit-learn.
Neighbors knn(const MatrixRef& X, Index k, Metric metric, KnnAlgorithm algorithm, int n_threads,
              const InterruptPoll& poll = {});

// Brute-force search, exposed for tests and benchmarks.
Neighbors knn_brute(const MatrixRef& X, Index k, Metric metric, int n_threads, const InterruptPoll& poll = {});

}  // namespace kernlearn
