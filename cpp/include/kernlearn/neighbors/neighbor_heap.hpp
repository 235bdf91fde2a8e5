// A bounded max-heap of the k best (distance, index) candidates of one query point.
//
// Ordering is lexicographic: a smaller distance wins, and an equal distance goes to the lower
// index. That single rule makes kNN results independent of the search order (kd-tree, brute force,
// any thread count) and matches kernlearn's documented tie-breaking.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

namespace kernlearn {

class NeighborHeap {
 public:
  // dist and idx point at k slots owned by the caller (a row of the output arrays).
  NeighborHeap(double* dist, std::int64_t* idx, std::int64_t k) : dist_(dist), idx_(idx), k_(k) {}

  bool full() const { return size_ == k_; }

  // The distance a candidate must not exceed to be considered (+inf while not full).
  double bound() const { return full() ? dist_[0] : std::numeric_limits<double>::infinity(); }

  // True when (d, i) would enter the heap.
  bool accepts(double d, std::int64_t i) const {
    if (!full()) return true;
    return d < dist_[0] || (d == dist_[0] && i < idx_[0]);
  }

  void push(double d, std::int64_t i) {
    if (!accepts(d, i)) return;
    if (full()) {
      sift_down_from_root(d, i);
    } else {
      sift_up(size_++, d, i);
    }
  }

  // Sorts the slots ascending by (distance, index); the heap is unusable afterwards.
  // Heap-sort in place: repeatedly move the worst to the end.
  void sort() {
    for (std::int64_t end = size_ - 1; end > 0; --end) {
      const double d = dist_[end];
      const std::int64_t i = idx_[end];
      dist_[end] = dist_[0];
      idx_[end] = idx_[0];
      size_ = end;
      sift_down_from_root(d, i);
    }
    size_ = 0;
  }

  std::int64_t size() const { return size_; }

 private:
  static bool worse(double da, std::int64_t ia, double db, std::int64_t ib) { return da > db || (da == db && ia > ib); }

  void sift_up(std::int64_t pos, double d, std::int64_t i) {
    while (pos > 0) {
      const std::int64_t parent = (pos - 1) / 2;
      if (!worse(d, i, dist_[parent], idx_[parent])) break;
      dist_[pos] = dist_[parent];
      idx_[pos] = idx_[parent];
      pos = parent;
    }
    dist_[pos] = d;
    idx_[pos] = i;
  }

  // Replaces the root by (d, i) and restores the heap over the first size_ slots.
  void sift_down_from_root(double d, std::int64_t i) {
    std::int64_t pos = 0;
    for (;;) {
      const std::int64_t left = 2 * pos + 1;
      if (left >= size_) break;
      std::int64_t child = left;
      const std::int64_t right = left + 1;
      if (right < size_ && worse(dist_[right], idx_[right], dist_[left], idx_[left])) child = right;
      if (!worse(dist_[child], idx_[child], d, i)) break;
      dist_[pos] = dist_[child];
      idx_[pos] = idx_[child];
      pos = child;
    }
    dist_[pos] = d;
    idx_[pos] = i;
  }

  double* dist_;
  std::int64_t* idx_;
  std::int64_t k_;
  std::int64_t size_ = 0;
};

// Every heap holds k entries before it is written out: a search that left one short (NaN bounds,
// a bug) raises here instead of returning slots it never wrote.
inline void require_full(const NeighborHeap& heap, std::int64_t query, std::int64_t k) {
  if (heap.size() != k)
    throw std::runtime_error("kNN internal error: point " + std::to_string(query) + " has " +
                             std::to_string(heap.size()) + " of its " + std::to_string(k) + " neighbours");
}

}  // namespace kernlearn
