// The separation oracle of structure preserving embedding (Shaw & Jebara 2009; SimpleNPKL paper
// Section 6.3): triplets (i, j, k) with k a graph neighbour of i and j not, violated when the
// non-neighbour j is closer to i than the neighbour k. There are O(n^2 k) of them, so a cutting
// plane solver asks this oracle for the most violated ones instead of listing them all.
#pragma once

#include <vector>

#include <Eigen/Core>

#include "kernlearn/core/parallel.hpp"
#include "kernlearn/core/types.hpp"
#include "kernlearn/neighbors/graph.hpp"

namespace kernlearn {

struct Triplet {
  Index i, j, k;     // k in N_i, j not in N_i and j != i
  double violation;  // d_ik - d_ij
};

struct TripletSearch {
  std::vector<Triplet> triplets;  // per point, up to `per_point` with violation > margin, largest first
  double max_violation = 0.0;     // max over every triplet of d_ik - d_ij (may be <= 0)
};

// Z: n x r embedding rows (K = Z Z'), so d_ij = |z_i - z_j|^2. graph: the neighbour sets N_i as
// the rows of a CSR pattern (values ignored, diagonal ignored). For each i only the farthest
// neighbour k matters (it makes every j's violation largest). O(n^2 r) time in row blocks,
// O(block n) memory.
TripletSearch most_violated_triplets(const MatrixRef& Z, const Csr& graph, double margin, Index per_point,
                                     int n_threads, const InterruptPoll& poll = {});

}  // namespace kernlearn
