// S3ML's affinity propagation (Liu et al., KDD 2010, eq. 9), W* = (1 - a)(I - a P)^-1 W0, evaluated
// column by column by local residual pushes (the reverse "push" of local PageRank computations:
// Andersen, Borgs, Chayes, Hopcroft, Mirrokni & Teng 2008): each column to an entrywise accuracy
// eps, touching only the positions whose residual reaches eps, so a column costs about the size
// of its eps-neighbourhood, not n. The two-pass use (candidates, then values at the symmetrised
// candidate pattern) and the accuracy contract are in python/kernlearn/metric/_affinity.py.
//
// Each column runs on one thread with dense n-vectors and lists as workspace; no n x n array
// exists; columns are independent and gathered in column order, so the output does not depend on
// the thread count.
#pragma once

#include <vector>

#include "kernlearn/core/interrupt.hpp"
#include "kernlearn/core/thread_team.hpp"
#include "kernlearn/core/types.hpp"

namespace kernlearn {

struct AffinityTriplets {
  std::vector<Index> rows, cols;
  std::vector<double> values;
};

// P_transpose: P' as CSR (row j lists the i with P_ij != 0, with P_ij); P must be row-stochastic
// and non-negative (the accuracy bound needs it). W0: the symmetric initial affinities as CSR
// (column j = row j), entries in [-1, 1]. Every returned value is within eps of W*'s entry. With
// pattern null, the entries whose computed magnitude is >= cut; with a symmetric pattern (CSR,
// data ignored), the values at pattern row j's indices of column j, whatever their size (zeros
// included). Throws std::invalid_argument naming the argument on mismatched sizes or options
// outside 0 < alpha < 1, eps >= 1e-15, cut >= 0.
AffinityTriplets affinity_push(const Csr& P_transpose, const Csr& W0, double alpha, double eps, double cut,
                               const Csr* pattern, ThreadTeam& team, const InterruptPoll& poll = {});

}  // namespace kernlearn
