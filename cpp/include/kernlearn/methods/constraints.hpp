// Sparse accumulation of B + sum_p a_p T_p on a CSR pattern fixed once, for solvers that re-value
// the same constraint matrices every iteration (SimpleNPKL, the embeddings).
//
// Two pair patterns: entry pairs T_ij = e_i e_j' + e_j e_i' (SimpleNPKL's eq. 7), and distance
// pairs T_ij = (e_i - e_j)(e_i - e_j)' (so that tr(K T_ij) = K_ii + K_jj - 2 K_ij).
#pragma once

#include <vector>

#include "kernlearn/core/parallel.hpp"
#include "kernlearn/core/types.hpp"
#include "kernlearn/neighbors/graph.hpp"

namespace kernlearn {

enum class PairPattern { entry, distance };

class ConstraintAccumulator {
 public:
  // pairs: m x 2, 0 <= i, j < n, i != j, each unordered pair at most once (the caller checks
  // duplicates). base: a symmetric n x n CSR with sorted indices (may be empty).
  ConstraintAccumulator(const Eigen::Ref<const RowMatrixXi>& pairs, PairPattern pattern, const Csr& base);

  Index n() const { return pattern_.n; }
  Index n_pairs() const { return static_cast<Index>(first_.size()); }
  Index nnz() const { return static_cast<Index>(pattern_.indices.size()); }
  const std::vector<Index>& indptr() const { return pattern_.indptr; }
  const std::vector<Index>& indices() const { return pattern_.indices; }

  // data[0..nnz) = values of B + sum_p a[p] T_p on the fixed pattern: O(nnz + m), no allocation.
  void assemble(const double* a, double* data) const;

  // out[p] = tr(T_p K) for K = V diag(lam) V' (V: n x r), in O(m r) without forming K.
  void inner(const Eigen::Ref<const Eigen::MatrixXd>& V, const Eigen::Ref<const Eigen::VectorXd>& lam, double* out,
             int n_threads) const;
  // The same for a row-major V (numpy's layout), without inner()'s row-major copy.
  void inner_rows(const MatrixRef& V, const Eigen::Ref<const Eigen::VectorXd>& lam, double* out, int n_threads) const;

 private:
  PairPattern kind_;
  Csr pattern_;                                       // union of B's pattern and every T_p's
  std::vector<double> base_;                          // B's values on that pattern
  std::vector<Index> first_, second_;                 // the pair's two points
  std::vector<Index> at_ij_, at_ji_, at_ii_, at_jj_;  // positions of T_p's entries in data
};

}  // namespace kernlearn
