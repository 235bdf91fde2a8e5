#include "kernlearn/methods/constraints.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace kernlearn {

namespace {

// Position of column j in row i of a CSR with sorted indices.
Index find_entry(const Csr& A, Index i, Index j) {
  const auto begin = A.indices.begin() + A.indptr[i], end = A.indices.begin() + A.indptr[i + 1];
  const auto it = std::lower_bound(begin, end, j);
  return static_cast<Index>(it - A.indices.begin());
}

}  // namespace

ConstraintAccumulator::ConstraintAccumulator(const Eigen::Ref<const RowMatrixXi>& pairs, PairPattern pattern,
                                             const Csr& base)
    : kind_(pattern) {
  const Index n = base.n, m = pairs.rows();
  if (pairs.cols() != 2) throw std::invalid_argument("pairs must have 2 columns");
  first_.resize(static_cast<std::size_t>(m));
  second_.resize(static_cast<std::size_t>(m));
  // Columns each row needs: B's, plus j in row i and i in row j (and the diagonal for distance
  // pairs). Collected per row, sorted and merged once.
  std::vector<std::vector<Index>> cols(static_cast<std::size_t>(n));
  for (Index i = 0; i < n; ++i)
    cols[i].assign(base.indices.begin() + base.indptr[i], base.indices.begin() + base.indptr[i + 1]);
  for (Index p = 0; p < m; ++p) {
    const Index i = pairs(p, 0), j = pairs(p, 1);
    if (i < 0 || j < 0 || i >= n || j >= n || i == j)
      throw std::invalid_argument("pairs[" + std::to_string(p) + "] = (" + std::to_string(i) + ", " +
                                  std::to_string(j) + ") is out of range or has i == j");
    first_[p] = i;
    second_[p] = j;
    cols[i].push_back(j);
    cols[j].push_back(i);
    if (pattern == PairPattern::distance) {
      cols[i].push_back(i);
      cols[j].push_back(j);
    }
  }
  pattern_.n = n;
  pattern_.indptr.assign(static_cast<std::size_t>(n + 1), 0);
  for (Index i = 0; i < n; ++i) {
    auto& c = cols[i];
    std::sort(c.begin(), c.end());
    c.erase(std::unique(c.begin(), c.end()), c.end());
    pattern_.indices.insert(pattern_.indices.end(), c.begin(), c.end());
    pattern_.indptr[i + 1] = static_cast<Index>(pattern_.indices.size());
    std::vector<Index>().swap(c);
  }
  base_.assign(pattern_.indices.size(), 0.0);
  for (Index i = 0; i < n; ++i)
    for (Index q = base.indptr[i]; q < base.indptr[i + 1]; ++q)
      base_[find_entry(pattern_, i, base.indices[q])] += base.data[q];

  at_ij_.resize(static_cast<std::size_t>(m));
  at_ji_.resize(static_cast<std::size_t>(m));
  if (pattern == PairPattern::distance) {
    at_ii_.resize(static_cast<std::size_t>(m));
    at_jj_.resize(static_cast<std::size_t>(m));
  }
  for (Index p = 0; p < m; ++p) {
    const Index i = first_[p], j = second_[p];
    at_ij_[p] = find_entry(pattern_, i, j);
    at_ji_[p] = find_entry(pattern_, j, i);
    if (pattern == PairPattern::distance) {
      at_ii_[p] = find_entry(pattern_, i, i);
      at_jj_[p] = find_entry(pattern_, j, j);
    }
  }
}

void ConstraintAccumulator::assemble(const double* a, double* data) const {
  std::copy(base_.begin(), base_.end(), data);
  const Index m = n_pairs();
  if (kind_ == PairPattern::entry) {
    for (Index p = 0; p < m; ++p) {
      data[at_ij_[p]] += a[p];
      data[at_ji_[p]] += a[p];
    }
  } else {
    for (Index p = 0; p < m; ++p) {
      data[at_ii_[p]] += a[p];
      data[at_jj_[p]] += a[p];
      data[at_ij_[p]] -= a[p];
      data[at_ji_[p]] -= a[p];
    }
  }
}

void ConstraintAccumulator::inner(const Eigen::Ref<const Eigen::MatrixXd>& V,
                                  const Eigen::Ref<const Eigen::VectorXd>& lam, double* out, int n_threads) const {
  if (V.rows() != n() || V.cols() != lam.size()) throw std::invalid_argument("V must be n x r and lam of length r");
  // Row access is strided in a column-major V: copy once to row-major (n r, far below m r work).
  const RowMatrixXd W = V;
  inner_rows(W, lam, out, n_threads);
}

void ConstraintAccumulator::inner_rows(const MatrixRef& W, const Eigen::Ref<const Eigen::VectorXd>& lam, double* out,
                                       int n_threads) const {
  if (W.rows() != n() || W.cols() != lam.size()) throw std::invalid_argument("V must be n x r and lam of length r");
  const Index r = W.cols(), m = n_pairs();
  parallel_for(static_cast<std::size_t>(m), n_threads, 8192, [&](std::size_t begin, std::size_t end) {
    for (auto p = static_cast<Index>(begin); p < static_cast<Index>(end); ++p) {
      const double* vi = W.row(first_[p]).data();
      const double* vj = W.row(second_[p]).data();
      double s = 0.0;
      if (kind_ == PairPattern::entry) {
        for (Index c = 0; c < r; ++c) s += lam(c) * vi[c] * vj[c];
        out[p] = 2.0 * s;  // tr(T K) = K_ij + K_ji
      } else {
        for (Index c = 0; c < r; ++c) {
          const double diff = vi[c] - vj[c];
          s += lam(c) * diff * diff;
        }
        out[p] = s;  // K_ii + K_jj - 2 K_ij
      }
    }
  });
}

}  // namespace kernlearn
