// Sparse similarity graphs built from kNN lists, and their graph Laplacians, in CSR form.
#pragma once

#include <optional>
#include <vector>

#include "kernlearn/core/types.hpp"
#include "kernlearn/neighbors/knn.hpp"

namespace kernlearn {

enum class GraphMode { symmetric, mutual };        // edge if either / both are kNN of each other
enum class EdgeWeight { binary, heat, distance };  // 1, exp(-d^2 / (2 sigma^2)), d
enum class LaplacianKind { normalized, unnormalized, random_walk };

// The symmetric kNN graph of a Neighbors result: zero diagonal, sorted indices. Weights depend on
// the distance only, which is bitwise symmetric, so the graph is exactly symmetric. sigma (> 0) is
// the heat weight's width, required by it and ignored by the others. Throws std::invalid_argument
// on neighbour indices out of range or a non-finite or non-positive heat sigma; polls every few
// thousand rows and throws Interrupted when poll() returns true.
Csr knn_graph(const Neighbors& nb, GraphMode mode, EdgeWeight weight, std::optional<double> sigma = std::nullopt,
              const InterruptPoll& poll = {});

// The Laplacian of a symmetric, non-negative similarity matrix S (CSR, sorted indices, no
// duplicates; symmetry is the caller's check). The diagonal of S is ignored (self-loops do not
// change a Laplacian), as in scipy.sparse.csgraph.laplacian. With degrees d_i = sum_{j != i} S_ij:
//   unnormalized  L = D - S
//   normalized    L = I - D^-1/2 S D^-1/2
//   random_walk   L = I - D^-1 S
// An isolated node (d_i = 0) gets D_i^-1/2 = D_i^-1 = 0 and L_ii = 0 in every kind, never NaN.
// Weights of any finite magnitude, subnormal to 1e308, give finite normalized and random-walk
// Laplacians; an unnormalized degree above the largest double is +inf (the caller warns).
// The result holds the pattern of S's off-diagonal plus the full diagonal. Throws
// std::invalid_argument on a non-finite or negative weight or unsorted or duplicate indices.
Csr laplacian(const Csr& S, LaplacianKind kind, const InterruptPoll& poll = {});

}  // namespace kernlearn
