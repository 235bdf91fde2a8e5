#include "kernlearn/neighbors/knn_blocks.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>

#include "kernlearn/neighbors/distance.hpp"

namespace kernlearn {

namespace {

// Entry (key, index) of a partial result goes before (other_key, other_index): (key, index)
// ascending, padding (index -1) after every candidate.
bool goes_before(double key, Index index, double other_key, Index other_index) {
  if (index < 0) return false;
  if (other_index < 0) return true;
  return key < other_key || (key == other_key && index < other_index);
}

void check_same_shape(const NeighborKeys& keys, Index rows, Index cols, const char* name) {
  if (keys.indices.rows() != rows || keys.indices.cols() != cols || keys.keys.rows() != rows ||
      keys.keys.cols() != cols)
    throw std::invalid_argument(std::string(name) + ": indices and keys must both have shape (" + std::to_string(rows) +
                                ", " + std::to_string(cols) + ")");
}

// Every row: candidates (index >= 0, finite key) strictly ascending by (key, index), then padding
// (index -1, key +inf) only.
void check_partial(const NeighborKeys& part, const char* name) {
  const Index n = part.indices.rows(), k = part.indices.cols();
  for (Index i = 0; i < n; ++i) {
    for (Index j = 0; j < k; ++j) {
      const Index index = part.indices(i, j);
      const double key = part.keys(i, j);
      const bool padding = index == -1 && key == std::numeric_limits<double>::infinity();
      if (!padding && (index < 0 || !std::isfinite(key)))
        throw std::invalid_argument(std::string(name) +
                                    ": a candidate needs an index >= 0 and a finite key; padding is (-1, inf)");
      if (j > 0 && !padding && !goes_before(part.keys(i, j - 1), part.indices(i, j - 1), key, index))
        throw std::invalid_argument(std::string(name) + ": row " + std::to_string(i) +
                                    " is not ascending by (key, index) with padding last");
    }
  }
}

}  // namespace

int knn_scale_exponent(double largest_magnitude) {
  if (!(std::isfinite(largest_magnitude) && largest_magnitude >= 0.0))
    throw std::invalid_argument("largest_magnitude must be finite and >= 0");
  return safe_exponent(largest_magnitude);
}

NeighborKeys merge_neighbor_keys(const NeighborKeys& a, const NeighborKeys& b) {
  const Index n = a.indices.rows(), k = a.indices.cols();
  check_same_shape(a, n, k, "a");
  check_same_shape(b, n, k, "b");
  check_partial(a, "a");
  check_partial(b, "b");
  NeighborKeys out{RowMatrixXi(n, k), RowMatrixXd(n, k)};
  for (Index i = 0; i < n; ++i) {
    // Two sorted rows of k entries each: the first k of their merge never run past either row.
    Index from_a = 0, from_b = 0;
    for (Index j = 0; j < k; ++j) {
      const bool take_a =
          !goes_before(b.keys(i, from_b), b.indices(i, from_b), a.keys(i, from_a), a.indices(i, from_a));
      const NeighborKeys& source = take_a ? a : b;
      Index& at = take_a ? from_a : from_b;
      out.indices(i, j) = source.indices(i, at);
      out.keys(i, j) = source.keys(i, at);
      ++at;
      if (j > 0 && out.indices(i, j) >= 0 && out.indices(i, j) == out.indices(i, j - 1))
        throw std::invalid_argument("a and b both hold candidate " + std::to_string(out.indices(i, j)) + " of row " +
                                    std::to_string(i) + ": their data blocks overlap");
    }
  }
  return out;
}

Neighbors neighbors_from_keys(NeighborKeys&& keys, Metric metric, int scale_exponent) {
  const Index n = keys.indices.rows(), k = keys.indices.cols();
  check_same_shape(keys, n, k, "keys");
  check_scale_exponent(scale_exponent);
  if (metric == Metric::cosine && scale_exponent != 0)
    throw std::invalid_argument("scale_exponent must be 0 for the cosine metric, got " +
                                std::to_string(scale_exponent));
  for (Index i = 0; i < n; ++i)
    for (Index j = 0; j < k; ++j) {
      if (keys.indices(i, j) < 0)
        throw std::invalid_argument("row " + std::to_string(i) + " has fewer than " + std::to_string(k) +
                                    " neighbours (padding left after every block was merged)");
      const double key = keys.keys(i, j);
      if (!std::isfinite(key) || (metric == Metric::euclidean && key < 0.0))
        throw std::invalid_argument("keys must be finite (and >= 0 for euclidean), got " + std::to_string(key));
    }
  Neighbors out{std::move(keys.indices), std::move(keys.keys)};
  if (metric == Metric::euclidean) {
    out.distances = out.distances.cwiseSqrt();
    if (scale_exponent != 0)
      out.distances = out.distances.unaryExpr([scale_exponent](double v) { return std::ldexp(v, scale_exponent); });
  } else {
    out.distances = out.distances.cwiseMax(0.0).cwiseMin(2.0);  // rounding can leave 1 - cos just outside [0, 2]
  }
  return out;
}

}  // namespace kernlearn
