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
// the heat weight's width, required by it and ignored by the others.
Csr knn_graph(const Neighbors& nb, GraphMode mode, EdgeWeight weight, std::optional<double> sigma = std::nullopt);

// The Laplacian of a symmetric, non-negative similarity matrix S (CSR, sorted indices, no
// duplicates; symmetry is the caller's check). The diagonal of S is ignored (self-loops do not
// change a Laplacian), as in scipy.sparse.csgraph.laplacian. With degrees d_i = sum_{j != i} S_ij:
//   unnormalized  L = D - S
//   normalized    L = I - D^-1/2 S D^-1/2
//   random_walk   L = I - D^-1 S
// An isolated node (d_i = 0) gets D_i^-1/2 = D_i^-1 = 0 and L_ii = 0 in every kind, never NaN.
// The result holds the pattern of S's off-diagonal plus the full diagonal.
Csr laplacian(const Csr& S, LaplacianKind kind);

}  // namespace kernlearn
