#include "kernlearn/neighbors/knn.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <mutex>
#include <stdexcept>
#include <utility>

#include "kernlearn/core/solver_choice.hpp"
#include "kernlearn/neighbors/distance.hpp"
#include "kernlearn/neighbors/kdtree.hpp"
#include "kernlearn/neighbors/knn_blocks.hpp"
#include "kernlearn/neighbors/knn_kernels.hpp"
#include "kernlearn/neighbors/neighbor_heap.hpp"

namespace kernlearn {

KnnAlgorithm choose_knn_algorithm(Index n, Index d, Metric metric) {
  if (n < 0) throw std::invalid_argument("n must be >= 0");
  if (d < 0) throw std::invalid_argument("d must be >= 0");
  if (metric == Metric::cosine) return KnnAlgorithm::brute;
  if (n < solver_choice::kKdTreeMinN) return KnnAlgorithm::brute;
  return d <= solver_choice::kKdTreeMaxDim ? KnnAlgorithm::kd_tree : KnnAlgorithm::brute;
}

namespace {

// Square blocks of the n x n inner-product matrix: 256 x 256 floats (256 KiB) stay in L2.
constexpr Index kBlock = 256;

// Task t of the upper triangle of nb blocks: the diagonal (I, I) first, then I < J column by
// column. A diagonal task gives its queries a bound from their own block (seeded, below),
// usually before any off-diagonal task scans for them (always on one thread), where they would
// otherwise start from an empty heap.
std::pair<Index, Index> upper_block_pair(Index t, Index nb) {
  if (t < nb) return {t, t};
  t -= nb;  // strictly upper: J >= 1, and (I, J) is task J (J - 1) / 2 + I
  auto J = static_cast<Index>((std::sqrt(8.0 * static_cast<double>(t) + 1.0) + 1.0) / 2.0);
  while (J * (J - 1) / 2 > t) --J;  // guard against the square root rounding either way
  while ((J + 1) * J / 2 <= t) ++J;
  return {t - J * (J - 1) / 2, J};
}

// The screen evaluates |z_i|^2 + |z_j|^2 - 2 <z_i, z_j> in float32 and may only reject a
// candidate whose true squared distance certainly exceeds the bound. Rounding z to float32 and a
// length-d float32 dot product err by at most (d + 2) eps |z_i||z_j| (Higham, Thm 3.5), i.e.
// (d + 2) eps (|z_i|^2 + |z_j|^2) / 2 in the doubled product; the norms, the final subtraction
// and the float64 centring add a few eps (|z_i|^2 + |z_j|^2). We shrink the norms by
// 1 - (2 d + 32) eps, about twice what is needed; at d = 64 that keeps candidates within 2e-5 of
// the bound, which costs a handful of exact distances per query.
double screen_tolerance(Index d) {
  return (2.0 * static_cast<double>(d) + 32.0) * static_cast<double>(std::numeric_limits<float>::epsilon());
}

// Float32 rounding of x toward -inf / +inf, so a rounded screen stays conservative.
float round_down(double x) {
  const auto f = static_cast<float>(x);
  return static_cast<double>(f) > x ? std::nextafter(f, -std::numeric_limits<float>::infinity()) : f;
}
float round_up(double x) {
  if (x >= static_cast<double>(std::numeric_limits<float>::max())) return std::numeric_limits<float>::infinity();
  const auto f = static_cast<float>(x);
  return static_cast<double>(f) < x ? std::nextafter(f, std::numeric_limits<float>::infinity()) : f;
}

// The brute-force search, in named steps: the screening coordinates, one task per block pair (rows
// side, and for a self search columns side), then the sorted keys. A self search finds the k
// nearest of each row of X among the other rows and runs over the upper triangle of block pairs;
// a cross search finds the k nearest of each query row among the rows of a data block that holds
// other points (knn_block's off-diagonal blocks) and runs over every pair of a query block and a
// data block. A pair search is a cross search answered both ways (knn_block_pair): the data rows
// also find their k nearest among the queries, from the same tiles.
class BruteSearch {
 public:
  enum class Kind { self, cross, pair };
  BruteSearch(const MatrixRef& X, Index k, Metric metric) : BruteSearch(X, X, k, metric, Kind::self) {}
  BruteSearch(const MatrixRef& queries, const MatrixRef& data, Index k, Metric metric, Kind kind)
      : Q_(queries),
        D_(data),
        nq_(queries.rows()),
        nd_(data.rows()),
        d_(data.cols()),
        k_(k),
        self_(kind == Kind::self),
        pair_(kind == Kind::pair),
        euclidean_(metric == Metric::euclidean),
        out_{RowMatrixXi(heap_rows(), k), RowMatrixXd(heap_rows(), k)},
        Zd_(data),
        Zq_(self_ ? RowMatrixXd() : RowMatrixXd(queries)),
        a_(heap_rows()),
        b_(static_cast<std::size_t>(pair_ ? nd_ + nq_ : nd_), 0.0f),
        s_(euclidean_ ? 2.0f : 1.0f),
        Zf_(screening_rows()),
        blocks_(Zf_, kBlock),
        nb_(blocks_.n_blocks()),
        nqb_((nq_ + kBlock - 1) / kBlock),
        locks_(static_cast<std::size_t>(pair_ ? nqb_ + nb_ : nqb_)) {
    heaps_.reserve(static_cast<std::size_t>(heap_rows()));
    for (Index i = 0; i < heap_rows(); ++i) heaps_.emplace_back(out_.keys.row(i).data(), out_.indices.row(i).data(), k);
  }

  // The distance is symmetric, so in a self search each block pair (I, J), I <= J, is multiplied
  // once and offered both ways: rows of G (queries of I) scan J's points, and columns of G
  // (queries of J) scan I's points, vectorised across the queries. That halves the GEMM work, and
  // nothing is transposed. A cross search has the rows side only; a pair search has both sides
  // of every (query block, data block) tile.
  //
  // Threads share the heaps, so each side runs in three steps: copy the queries' thresholds
  // under the block's lock, scan and compute exact distances with no lock held (a copied
  // threshold can only be looser than the live one, so nothing is missed), then push the few
  // survivors under the lock. Results do not depend on the order: heaps keep the k smallest
  // (key, index) pairs.
  void scan(int n_threads, const InterruptPoll& poll) {
    const Index tasks = self_ ? nb_ * (nb_ + 1) / 2 : nqb_ * nb_;
    parallel_for(
        static_cast<std::size_t>(tasks), n_threads, 1, [&](std::size_t task, std::size_t) { scan_block_pair(task); },
        poll);
  }

  // Keys of the queries; in a pair search, of the queries then the data rows (heap_rows() rows).
  NeighborKeys finish(int n_threads) {
    parallel_for(static_cast<std::size_t>(heap_rows()), n_threads, 4096, [&](std::size_t begin, std::size_t end) {
      for (std::size_t i = begin; i < end; ++i) {
        require_full(heaps_[i], static_cast<Index>(i), k_);
        heaps_[i].sort();
      }
    });
    return std::move(out_);
  }

 private:
  static constexpr Index ldg = kBlock + PackedRows::kMaxPanel;  // SIMD kernels write whole panels
  struct Survivor {
    Index query, candidate;
    double distance;
  };
  struct Scratch {  // one per thread
    std::vector<float> G, t;
    std::vector<Survivor> found;
    std::vector<double> local_dist;
    std::vector<Index> local_idx;
    std::vector<Index> seeds;
  };

  // Rows with a heap: the queries, and in a pair search the data rows after them (data row j is
  // heap nq_ + j). a_ has one entry per heap row; b_ one per candidate: the data rows, and in a
  // pair search the queries after them (query i is candidate nd_ + i of the columns side).
  Index heap_rows() const { return pair_ ? nq_ + nd_ : nq_; }
  Index data_heap(Index j) const { return pair_ ? nq_ + j : j; }
  Index query_as_candidate(Index i) const { return pair_ ? nd_ + i : i; }
  std::size_t lock_of(Index heap) const {
    return static_cast<std::size_t>(heap < nq_ || self_ ? heap / kBlock : nqb_ + (heap - nq_) / kBlock);
  }

  // Screening coordinates Z: rows centred on the data's mean and scaled by a power of two so that
  // max |z| <= 1 over queries and data (euclidean; centring shrinks the norms the error bound
  // scales with, the scale keeps float32 in range), or unit rows (cosine). Exact distances always
  // use the original rows.
  //   euclidean: reject j when c (|z_i|^2 + |z_j|^2)(1 - tol) - 2 c g_ij > c bound_i
  //   cosine:    reject j when 1 - tol - g_ij > bound_i
  // with c the squared scale. Both read b_j - s g_ij > t_i, the form next_candidate scans, where
  // t_i = c bound_i - a_i is rounded up and b_j rounded down (both conservative).
  // Sets the Z, c, a and b of data and queries; returns the data's Z in float32.
  RowMatrixXf screening_rows() {
    const double tol = screen_tolerance(d_);
    if (euclidean_) {
      const Eigen::RowVectorXd mean = D_.colwise().mean();
      Zd_.rowwise() -= mean;
      if (!self_) Zq_.rowwise() -= mean;
      const double largest = std::max(Zd_.cwiseAbs().maxCoeff(), self_ ? 0.0 : Zq_.cwiseAbs().maxCoeff());
      if (largest > 0.0) {
        // Exact: a power of two. Capped so that c stays finite: with X in the safe range (knn below) and the
        // cap, c lies in [2^-404, 2^1000], so c times a bound is never NaN. Coordinates the cap leaves
        // tiny underflow in float32, which the underflow term below covers.
        const double scale = std::ldexp(1.0, std::min(-std::ilogb(largest) - 1, 500));
        Zd_ *= scale;
        if (!self_) Zq_ *= scale;
        c_ = scale * scale;
      }
      // Float32 underflow near 1e-38 adds an absolute error the relative bound misses.
      const double underflow = 4.0 * static_cast<double>(d_) * static_cast<double>(std::numeric_limits<float>::min());
      for (Index j = 0; j < nd_; ++j) b_[j] = round_down((1.0 - tol) * Zd_.row(j).squaredNorm());
      for (Index i = 0; i < nq_; ++i) a_(i) = (1.0 - tol) * query_rows().row(i).squaredNorm() - underflow;
      if (pair_) {
        for (Index i = 0; i < nq_; ++i) b_[nd_ + i] = round_down((1.0 - tol) * Zq_.row(i).squaredNorm());
        for (Index j = 0; j < nd_; ++j) a_(nq_ + j) = (1.0 - tol) * Zd_.row(j).squaredNorm() - underflow;
      }
    } else {
      to_unit_rows(Zd_);
      if (!self_) to_unit_rows(Zq_);
      a_.setConstant(1.0 - tol);
    }
    RowMatrixXf Zf = Zd_.cast<float>();
    if (!self_) Zqf_ = Zq_.cast<float>();
    // Euclidean confirmations read the original rows, so the float64 screening copies can go now:
    // they would otherwise double the search's memory for its whole run. Cosine keeps its unit rows.
    if (euclidean_) {
      RowMatrixXd().swap(Zd_);
      RowMatrixXd().swap(Zq_);
    }
    return Zf;
  }

  // A row outside the safe range is first scaled by a power of two, so its squared norm neither
  // overflows nor underflows; the unit row is the same (bitwise, for rows that need no scaling).
  void to_unit_rows(RowMatrixXd& Z) const {
    for (Index i = 0; i < Z.rows(); ++i) {
      const int e = safe_exponent(Z.row(i).cwiseAbs().maxCoeff());
      if (e != 0) Z.row(i) = Z.row(i).unaryExpr([e](double v) { return std::ldexp(v, -e); });
      const double len = std::sqrt(ranking_dot(Z.row(i).data(), Z.row(i).data(), d_));
      if (len > 0.0) Z.row(i) /= len;
    }
  }

  // The queries' screening rows: the data's own in a self search.
  const RowMatrixXd& query_rows() const { return self_ ? Zd_ : Zq_; }
  const RowMatrixXf& query_rows_float() const { return self_ ? Zf_ : Zqf_; }
  Index query_block_rows(Index I) const { return std::min(kBlock, nq_ - I * kBlock); }
  // Only a self search meets a query among its candidates.
  bool is_query_itself(Index query, Index candidate) const { return self_ && query == candidate; }

  double exact(Index i, Index j) const {
    return euclidean_ ? squared_distance(Q_.row(i).data(), D_.row(j).data(), d_)
                      : 1.0 - ranking_dot(query_rows().row(i).data(), Zd_.row(j).data(), d_);
  }
  // +inf while the heap is not full: every candidate passes, whatever c and a are.
  float threshold(Index i) const {
    return heaps_[i].full() ? round_up(c_ * heaps_[i].bound() - a_(i)) : std::numeric_limits<float>::infinity();
  }

  // Task `task`: block pair (I, J), rows side then (self search off the diagonal, pair search)
  // columns side.
  // Cross tasks run query blocks side by side (task t is query block t mod nqb), so threads
  // rarely wait on one block's lock, and each query block meets the data blocks in order.
  void scan_block_pair(std::size_t task) {
    thread_local Scratch w;
    w.G.resize(static_cast<std::size_t>(kBlock * ldg));
    w.local_dist.resize(static_cast<std::size_t>(kBlock * k_));
    w.local_idx.resize(static_cast<std::size_t>(kBlock * k_));
    w.t.resize(static_cast<std::size_t>(kBlock));
    const auto t = static_cast<Index>(task);
    const auto [I, J] = self_ ? upper_block_pair(t, nb_) : std::pair<Index, Index>{t % nqb_, t / nqb_};
    blocks_.dot(query_rows_float().row(I * kBlock).data(), query_block_rows(I), J, w.G.data(), ldg);
    scan_rows(w, I, J);
    push_found(w, I * kBlock);
    if (!(pair_ || (self_ && I != J))) return;  // a diagonal block's rows already saw every pair both ways
    scan_columns(w, I, J);
    push_found(w, data_heap(J * kBlock));
  }

  // The thresholds of heaps first .. first + count - 1, all in one block (one lock).
  void copy_thresholds(Scratch& w, Index first, Index count) {
    std::lock_guard<std::mutex> hold(locks_[lock_of(first)]);
    for (Index q = 0; q < count; ++q) w.t[q] = threshold(first + q);
  }
  // The survivors of one side, all in the block of heap first_heap.
  void push_found(Scratch& w, Index first_heap) {
    std::lock_guard<std::mutex> hold(locks_[lock_of(first_heap)]);
    for (const Survivor& f : w.found) heaps_[f.query].push(f.distance, f.candidate);
    w.found.clear();
  }

  // Survivors also tighten the copied thresholds as the scan goes: a query's bound can be no
  // worse than the k-th best distance found for it in this very task. Local heaps keep those.
  NeighborHeap local_heap(Scratch& w, Index q) const {
    return NeighborHeap(w.local_dist.data() + q * k_, w.local_idx.data() + q * k_, k_);
  }
  float tightened(const NeighborHeap& heap, Index query, float copied) const {
    return heap.full() ? std::min(copied, round_up(c_ * heap.bound() - a_(query))) : copied;
  }

  // Seeds: scanning in index order from an empty heap, a query confirms every candidate that
  // beats its running k-th best, about k (1 + ln(nc / k)) of them. So on a query's first block (its own, the
  // diagonal tasks going first; the first data block of a cross search) the best screened candidate of each of
  // 16 lanes (j mod 16) is found first, one pass of vector minima, and those lanes' minima enter the heap (a
  // self search skips the query's own): it starts near its final bound, and the scan confirms about one more.
  // That pays from k = 3 (k (1 + ln(256 / k)) = 16 there, against 6.5 at k = 1); ordering the lanes to seed
  // only the k best gained nothing. Later blocks start from the copied bound, which seeds would rarely beat
  // (seeding every block was slower; bench/results/knn.md). Seeds are real candidates, skipped when the scan
  // meets them again: results are unchanged.
  void seed(Scratch& w, NeighborHeap& heap, Index qi, const float* g, Index c0, Index nc) const {
    Index where[kSeedLanes];
    lane_minima(b_.data() + c0, g, s_, nc, where);
    for (int l = 0; l < kSeedLanes; ++l) {
      if (where[l] < 0 || is_query_itself(qi, c0 + where[l])) continue;
      w.seeds.push_back(where[l]);
      heap.push(exact(qi, c0 + where[l]), c0 + where[l]);
    }
  }
  static bool is_seed(const Scratch& w, Index j) {
    return std::find(w.seeds.begin(), w.seeds.end(), j) != w.seeds.end();
  }

  // Rows of G: the queries of block I scan block J's points.
  void scan_rows(Scratch& w, Index I, Index J) {
    const Index r0 = I * kBlock, nr = query_block_rows(I);
    const Index c0 = J * kBlock, nc = blocks_.rows_in_block(J);
    const bool seeding = (I == J || !self_) && k_ >= 3 && k_ < kSeedLanes && nc >= 4 * kSeedLanes;
    copy_thresholds(w, r0, nr);
    for (Index i = 0; i < nr; ++i) {
      const Index qi = r0 + i;
      const float* g = w.G.data() + i * ldg;
      NeighborHeap heap = local_heap(w, 0);
      w.seeds.clear();
      if (seeding && w.t[i] == std::numeric_limits<float>::infinity()) seed(w, heap, qi, g, c0, nc);
      for (Index j = next_candidate(b_.data() + c0, g, s_, tightened(heap, qi, w.t[i]), 0, nc); j < nc;
           j = next_candidate(b_.data() + c0, g, s_, tightened(heap, qi, w.t[i]), j + 1, nc))
        if (!is_query_itself(qi, c0 + j) && !is_seed(w, j)) heap.push(exact(qi, c0 + j), c0 + j);
      for (Index q = 0; q < heap.size(); ++q) w.found.push_back({qi, w.local_idx[q], w.local_dist[q]});
    }
  }

  // Columns of G (self and pair search): the data rows of block J scan the points of query block I,
  // vectorised across the data rows.
  void scan_columns(Scratch& w, Index I, Index J) {
    const Index r0 = I * kBlock, nr = query_block_rows(I);
    const Index c0 = J * kBlock, nc = blocks_.rows_in_block(J);
    copy_thresholds(w, data_heap(c0), nc);
    std::vector<NeighborHeap> column_heaps;
    column_heaps.reserve(static_cast<std::size_t>(nc));
    for (Index j = 0; j < nc; ++j) column_heaps.push_back(local_heap(w, j));
    for (Index i = 0; i < nr; ++i) {
      const Index ci = r0 + i;
      const float* g = w.G.data() + i * ldg;
      const float b = b_[static_cast<std::size_t>(query_as_candidate(ci))];
      for (Index j = next_query(b, g, s_, w.t.data(), 0, nc); j < nc; j = next_query(b, g, s_, w.t.data(), j + 1, nc)) {
        NeighborHeap& heap = column_heaps[j];
        heap.push(exact(ci, c0 + j), ci);  // the distance is symmetric, bitwise (distance.hpp)
        w.t[j] = tightened(heap, data_heap(c0 + j), w.t[j]);
      }
    }
    for (Index j = 0; j < nc; ++j)
      for (Index q = 0; q < column_heaps[j].size(); ++q)
        w.found.push_back({data_heap(c0 + j), w.local_idx[j * k_ + q], w.local_dist[j * k_ + q]});
  }

  const MatrixRef& Q_;
  const MatrixRef& D_;
  const Index nq_, nd_, d_, k_;
  const bool self_, pair_, euclidean_;
  NeighborKeys out_;
  RowMatrixXd Zd_, Zq_;  // the screening rows of data and queries (kept for cosine's exact distances only)
  double c_ = 1.0;
  Eigen::VectorXd a_;
  std::vector<float> b_;
  const float s_;
  RowMatrixXf Zqf_;  // the queries' float32 screening rows (cross search; set by screening_rows)
  const RowMatrixXf Zf_;
  const PackedRows blocks_;
  const Index nb_, nqb_;
  std::vector<NeighborHeap> heaps_;
  std::vector<std::mutex> locks_;
};

void check_knn_arguments(const MatrixRef& X, Index k, int n_threads) {
  const Index n = X.rows();
  if (n < 2) throw std::invalid_argument("knn needs at least 2 points (rows of X), got " + std::to_string(n));
  if (X.cols() < 1) throw std::invalid_argument("X must have at least 1 column, got 0");
  if (k < 1 || k >= n)
    throw std::invalid_argument("n_neighbors must satisfy 0 < n_neighbors < n_samples = " + std::to_string(n) +
                                ", got " + std::to_string(k));
  if (n_threads < 1) throw std::invalid_argument("n_threads must be >= 1, got " + std::to_string(n_threads));
  if (!X.allFinite()) throw std::invalid_argument("X must be finite (no NaN or infinity)");
}

// Runs search on X, or on X 2^-e when X lies outside the safe range (the scaling is exact, so is the
// ranking), and turns its keys into distances, scaled back by 2^e; cosine distances are scale-free.
template <class Search>
Neighbors in_safe_range(const MatrixRef& X, Metric metric, Search&& search) {
  const int e = metric == Metric::euclidean ? knn_scale_exponent(X.cwiseAbs().maxCoeff()) : 0;
  if (e == 0) return neighbors_from_keys(search(X), metric, 0);
  const RowMatrixXd scaled = X.unaryExpr([e](double v) { return std::ldexp(v, -e); });
  return neighbors_from_keys(search(MatrixRef(scaled)), metric, e);
}

NeighborKeys brute(const MatrixRef& X, Index k, Metric metric, int n_threads, const InterruptPoll& poll) {
  BruteSearch search(X, k, metric);
  search.scan(n_threads, poll);
  return search.finish(n_threads);
}

NeighborKeys brute(const MatrixRef& queries, const MatrixRef& data, Index k, Metric metric, int n_threads,
                   const InterruptPoll& poll) {
  BruteSearch search(queries, data, k, metric, BruteSearch::Kind::cross);
  search.scan(n_threads, poll);
  return search.finish(n_threads);
}

// Keys of the queries among the data, then of the data among the queries, (nq + nd) x k.
NeighborKeys brute_pair(const MatrixRef& queries, const MatrixRef& data, Index k, Metric metric, int n_threads,
                        const InterruptPoll& poll) {
  BruteSearch search(queries, data, k, metric, BruteSearch::Kind::pair);
  search.scan(n_threads, poll);
  return search.finish(n_threads);
}

void check_block_arguments(const MatrixRef& queries, Index query_offset, const MatrixRef& data, Index data_offset,
                           Index k, Metric metric, int scale_exponent, int n_threads) {
  const Index nq = queries.rows(), nd = data.rows();
  if (k < 1) throw std::invalid_argument("n_neighbors must be >= 1, got " + std::to_string(k));
  // Every row of the result has n_neighbors columns (padded): 2^31 of them is no search, but an
  // allocation that fails (std::bad_alloc).
  if (k > std::numeric_limits<int>::max())
    throw std::invalid_argument("n_neighbors must be < 2^31, got " + std::to_string(k));
  if (data.cols() < 1) throw std::invalid_argument("data must have at least 1 column, got 0");
  if (queries.cols() != data.cols())
    throw std::invalid_argument("queries have " + std::to_string(queries.cols()) + " columns but data has " +
                                std::to_string(data.cols()));
  if (query_offset < 0 || query_offset > std::numeric_limits<Index>::max() - nq)
    throw std::invalid_argument("query_offset must be >= 0 and leave room for the block's rows");
  if (data_offset < 0 || data_offset > std::numeric_limits<Index>::max() - nd)
    throw std::invalid_argument("data_offset must be >= 0 and leave room for the block's rows");
  const bool overlap = query_offset < data_offset + nd && data_offset < query_offset + nq;
  if (overlap && !(query_offset == data_offset && nq == nd))
    throw std::invalid_argument(
        "query_offset and data_offset must give the blocks index ranges that are disjoint or equal (a diagonal "
        "block), got [" +
        std::to_string(query_offset) + ", " + std::to_string(query_offset + nq) + ") and [" +
        std::to_string(data_offset) + ", " + std::to_string(data_offset + nd) + ")");
  if (n_threads < 1) throw std::invalid_argument("n_threads must be >= 1, got " + std::to_string(n_threads));
  if (!queries.allFinite()) throw std::invalid_argument("queries must be finite (no NaN or infinity)");
  if (!data.allFinite()) throw std::invalid_argument("data must be finite (no NaN or infinity)");
  check_scale_exponent(scale_exponent);
  if (metric == Metric::cosine && scale_exponent != 0)
    throw std::invalid_argument("scale_exponent must be 0 for the cosine metric, got " +
                                std::to_string(scale_exponent));
  if (metric == Metric::euclidean) {
    const double largest = std::max(nq ? queries.cwiseAbs().maxCoeff() : 0.0, nd ? data.cwiseAbs().maxCoeff() : 0.0);
    if (std::ldexp(largest, -scale_exponent) > kSafeMax)
      throw std::invalid_argument("scale_exponent " + std::to_string(scale_exponent) +
                                  " leaves entries above 2^200: use knn_scale_exponent of the largest |x| of the "
                                  "whole data set");
  }
}

// The keys of a block pair whose rows are in the safe range: a diagonal block searches itself, an
// off-diagonal one its data for the queries, each by the search knn() would pick for the data block.
NeighborKeys block_keys(const MatrixRef& queries, const MatrixRef& data, bool diagonal, Index k, Metric metric,
                        int n_threads, const InterruptPoll& poll) {
  const bool tree = choose_knn_algorithm(data.rows(), data.cols(), metric) == KnnAlgorithm::kd_tree;
  if (diagonal)
    return tree ? KdTree(data, 32, poll).self_query(k, n_threads, poll) : brute(data, k, metric, n_threads, poll);
  return tree ? KdTree(data, 32, poll).query(queries, k, n_threads, poll)
              : brute(queries, data, k, metric, n_threads, poll);
}

}  // namespace

Neighbors knn_brute(const MatrixRef& X, Index k, Metric metric, int n_threads, const InterruptPoll& poll) {
  check_knn_arguments(X, k, n_threads);
  return in_safe_range(X, metric, [&](const MatrixRef& Y) { return brute(Y, k, metric, n_threads, poll); });
}

Neighbors knn(const MatrixRef& X, Index k, Metric metric, KnnAlgorithm algorithm, int n_threads,
              const InterruptPoll& poll) {
  check_knn_arguments(X, k, n_threads);
  if (algorithm == KnnAlgorithm::automatic) algorithm = choose_knn_algorithm(X.rows(), X.cols(), metric);
  if (algorithm == KnnAlgorithm::kd_tree && metric != Metric::euclidean)
    throw std::invalid_argument("algorithm kd_tree supports metric euclidean only");
  return in_safe_range(X, metric, [&](const MatrixRef& Y) {
    if (algorithm == KnnAlgorithm::kd_tree) return KdTree(Y, 32, poll).self_query(k, n_threads, poll);
    return brute(Y, k, metric, n_threads, poll);
  });
}

NeighborKeys knn_block(const MatrixRef& queries, Index query_offset, const MatrixRef& data, Index data_offset, Index k,
                       Metric metric, int scale_exponent, int n_threads, const InterruptPoll& poll) {
  check_block_arguments(queries, query_offset, data, data_offset, k, metric, scale_exponent, n_threads);
  const Index nq = queries.rows(), nd = data.rows();
  const bool diagonal = nq > 0 && query_offset == data_offset;
  // A query meets fewer than k candidates in a small block: the search asks for what there is,
  // and padding fills the rest of the row.
  const Index searched = std::min(k, diagonal ? nd - 1 : nd);
  NeighborKeys out{RowMatrixXi::Constant(nq, k, -1),
                   RowMatrixXd::Constant(nq, k, std::numeric_limits<double>::infinity())};
  if (nq == 0 || searched < 1) return out;
  NeighborKeys found;
  if (scale_exponent == 0) {
    found = block_keys(queries, data, diagonal, searched, metric, n_threads, poll);
  } else {
    const auto scale = [scale_exponent](double v) { return std::ldexp(v, -scale_exponent); };
    const RowMatrixXd scaled_data = data.unaryExpr(scale);
    const RowMatrixXd scaled_queries = diagonal ? RowMatrixXd() : RowMatrixXd(queries.unaryExpr(scale));
    found = block_keys(diagonal ? MatrixRef(scaled_data) : MatrixRef(scaled_queries), scaled_data, diagonal, searched,
                       metric, n_threads, poll);
  }
  out.indices.leftCols(searched) = found.indices.array() + data_offset;
  out.keys.leftCols(searched) = found.keys;
  return out;
}

std::pair<NeighborKeys, NeighborKeys> knn_block_pair(const MatrixRef& queries, Index query_offset,
                                                     const MatrixRef& data, Index data_offset, Index k, Metric metric,
                                                     int scale_exponent, int n_threads, const InterruptPoll& poll) {
  check_block_arguments(queries, query_offset, data, data_offset, k, metric, scale_exponent, n_threads);
  const Index nq = queries.rows(), nd = data.rows();
  if (nq > 0 && query_offset == data_offset)
    throw std::invalid_argument(
        "query_offset and data_offset must give knn_block_pair disjoint blocks, got equal ones (search a diagonal "
        "block with knn_block)");
  // One tile answers both ways only in the brute search, and only with k candidates on each side
  // (a row with fewer needs padding, which the shared search has no room for); otherwise two
  // one-way searches give the same keys.
  const bool tree = choose_knn_algorithm(nd, data.cols(), metric) == KnnAlgorithm::kd_tree ||
                    choose_knn_algorithm(nq, queries.cols(), metric) == KnnAlgorithm::kd_tree;
  if (tree || nq < k || nd < k)
    return {knn_block(queries, query_offset, data, data_offset, k, metric, scale_exponent, n_threads, poll),
            knn_block(data, data_offset, queries, query_offset, k, metric, scale_exponent, n_threads, poll)};
  NeighborKeys both;
  if (scale_exponent == 0) {
    both = brute_pair(queries, data, k, metric, n_threads, poll);
  } else {
    const auto scale = [scale_exponent](double v) { return std::ldexp(v, -scale_exponent); };
    const RowMatrixXd scaled_queries = queries.unaryExpr(scale), scaled_data = data.unaryExpr(scale);
    both = brute_pair(scaled_queries, scaled_data, k, metric, n_threads, poll);
  }
  std::pair<NeighborKeys, NeighborKeys> out{
      NeighborKeys{both.indices.topRows(nq).array() + data_offset, both.keys.topRows(nq)},
      NeighborKeys{both.indices.bottomRows(nd).array() + query_offset, both.keys.bottomRows(nd)}};
  return out;
}

}  // namespace kernlearn
