#include "kernlearn/neighbors/graph.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>

namespace kernlearn {

namespace {

// Rows between two polls: a poll is a clock read, a row a few hundred nanoseconds.
constexpr Index kPollRows = 4096;

// exp(-r^2 / 2) for r = d / sigma: no d^2 or sigma^2 to overflow or underflow (0 / 0 is impossible).
double heat(double r) { return r > 0x1p500 ? 0.0 : std::exp(-0.5 * (r * r)); }

struct Edge {
  Index col;
  double dist;
};

// Row i of the directed kNN graph, sorted by column.
std::vector<Edge> sorted_row(const Neighbors& nb, Index i) {
  const Index k = nb.indices.cols();
  std::vector<Edge> row(static_cast<std::size_t>(k));
  for (Index j = 0; j < k; ++j) row[j] = {nb.indices(i, j), nb.distances(i, j)};
  std::sort(row.begin(), row.end(), [](const Edge& a, const Edge& b) { return a.col < b.col; });
  return row;
}

}  // namespace

Csr knn_graph(const Neighbors& nb, GraphMode mode, EdgeWeight weight, std::optional<double> width,
              const InterruptPoll& poll) {
  const Index n = nb.indices.rows(), k = nb.indices.cols();
  if (weight == EdgeWeight::heat && !width) throw std::invalid_argument("weight heat needs sigma");
  if (width && !(std::isfinite(*width) && *width > 0.0))
    throw std::invalid_argument("sigma must be positive and finite");
  const double sigma = width.value_or(1.0);  // read by the heat weight only
  if (nb.distances.rows() != n || nb.distances.cols() != k)
    throw std::invalid_argument("neighbors: indices and distances differ in shape");
  if (!nb.distances.allFinite() || (nb.distances.array() < 0.0).any())
    throw std::invalid_argument("neighbors: distances must be finite and >= 0");
  for (Index i = 0; i < n; ++i)
    for (Index j = 0; j < k; ++j)
      if (nb.indices(i, j) < 0 || nb.indices(i, j) >= n || nb.indices(i, j) == i)
        throw std::invalid_argument("neighbors: index out of range or a point its own neighbour");
  const auto check = [&poll](Index i) {
    if (i % kPollRows == 0 && poll && poll()) throw Interrupted();
  };

  // Directed graph A (row i = the kNN of i) and its transpose, both with sorted columns.
  std::vector<Index> out_ptr(static_cast<std::size_t>(n + 1)), in_ptr(static_cast<std::size_t>(n + 1), 0);
  std::vector<Edge> out_edges(static_cast<std::size_t>(n * k)), in_edges(static_cast<std::size_t>(n * k));
  for (Index i = 0; i < n; ++i) {
    check(i);
    out_ptr[i] = i * k;
    auto row = sorted_row(nb, i);
    // A point listed twice would be emitted twice in row i but once in its own row: the graph
    // would not be symmetric (issue 48). A knn() result never repeats one.
    for (std::size_t p = 1; p < row.size(); ++p)
      if (row[p].col == row[p - 1].col)
        throw std::invalid_argument("neighbors: row " + std::to_string(i) + " lists point " +
                                    std::to_string(row[p].col) + " twice");
    std::copy(row.begin(), row.end(), out_edges.begin() + i * k);
    for (const Edge& e : row) ++in_ptr[e.col + 1];
  }
  out_ptr[n] = n * k;
  std::partial_sum(in_ptr.begin(), in_ptr.end(), in_ptr.begin());
  {
    std::vector<Index> fill(in_ptr.begin(), in_ptr.end() - 1);
    // Rows visited in increasing i, so every transposed row comes out sorted by column.
    for (Index i = 0; i < n; ++i)
      for (Index p = out_ptr[i]; p < out_ptr[i + 1]; ++p) {
        const Edge& e = out_edges[p];
        in_edges[fill[e.col]++] = {i, e.dist};
      }
  }

  auto weigh = [&](double dist) {
    switch (weight) {
      case EdgeWeight::binary:
        return 1.0;
      case EdgeWeight::distance:
        return dist;
      case EdgeWeight::heat:
        return heat(dist / sigma);
    }
    return 1.0;
  };

  // Merge A's row with A^T's row: union (symmetric) or intersection (mutual).
  Csr g;
  g.n = n;
  g.indptr.assign(static_cast<std::size_t>(n + 1), 0);
  g.indices.reserve(static_cast<std::size_t>(2 * n * k));
  g.data.reserve(static_cast<std::size_t>(2 * n * k));
  for (Index i = 0; i < n; ++i) {
    check(i);
    const Edge* a = out_edges.data() + out_ptr[i];
    const Edge* a_end = out_edges.data() + out_ptr[i + 1];
    const Edge* b = in_edges.data() + in_ptr[i];
    const Edge* b_end = in_edges.data() + in_ptr[i + 1];
    auto emit = [&](const Edge& e) {
      g.indices.push_back(e.col);
      g.data.push_back(weigh(e.dist));
    };
    while (a != a_end || b != b_end) {
      if (b == b_end || (a != a_end && a->col < b->col)) {
        if (mode == GraphMode::symmetric) emit(*a);
        ++a;
      } else if (a == a_end || b->col < a->col) {
        if (mode == GraphMode::symmetric) emit(*b);
        ++b;
      } else {  // in both lists: the smaller of the two distances, so rows i and j agree
        emit(a->dist <= b->dist ? *a : Edge{a->col, b->dist});
        ++a;
        ++b;
      }
    }
    g.indptr[i + 1] = static_cast<Index>(g.indices.size());
  }
  return g;
}

namespace {

// A non-negative number as m 2^e with m in [1/2, 1) (0 as m = 0). Degrees, their roots and the
// weights divided by them are computed on mantissas and put together by one final ldexp, so
// weights of any finite magnitude, subnormal to 1e308, neither overflow nor lose bits to
// underflow along the way: the result is rounded once unless it is itself subnormal or huge.
struct Split {
  double m = 0.0;
  int e = 0;
};

Split split(double x) {
  Split s;
  s.m = std::frexp(x, &s.e);
  return s;
}

// d_i = sum_{j != i} S_ij, summed as S_ij 2^-shift with the row's largest weight near 1 (exact
// scaling: the sum cannot overflow, and is the plain sum's bits wherever that does not).
Split degree_of_row(const Csr& S, Index i) {
  double top = 0.0;
  for (Index p = S.indptr[i]; p < S.indptr[i + 1]; ++p)
    if (S.indices[p] != i) top = std::max(top, S.data[p]);
  if (top == 0.0) return {};
  const int shift = std::ilogb(top);
  double sum = 0.0;
  for (Index p = S.indptr[i]; p < S.indptr[i + 1]; ++p)
    if (S.indices[p] != i) sum += std::ldexp(S.data[p], -shift);
  Split d = split(sum);
  d.e += shift;
  return d;
}

// sqrt(d) with an even exponent, so the square root of the mantissa is the only rounding.
Split root_of(Split d) {
  if (d.e % 2 != 0) {
    d.m *= 2.0;
    d.e -= 1;
  }
  return {std::sqrt(d.m), d.e / 2};
}

}  // namespace

Csr laplacian(const Csr& S, LaplacianKind kind, const InterruptPoll& poll) {
  const Index n = S.n;
  const auto check = [&poll](Index i) {
    if (i % kPollRows == 0 && poll && poll()) throw Interrupted();
  };
  std::vector<Split> degree(static_cast<std::size_t>(n)), root(static_cast<std::size_t>(n));
  Index off_diagonal = 0;
  for (Index i = 0; i < n; ++i) {
    check(i);
    for (Index p = S.indptr[i]; p < S.indptr[i + 1]; ++p) {
      const double w = S.data[p];
      if (!(std::isfinite(w) && w >= 0.0))
        throw std::invalid_argument("data (the weights) must be finite and non-negative");
      if (p > S.indptr[i] && S.indices[p] <= S.indices[p - 1])
        throw std::invalid_argument("S must have sorted indices without duplicates in every row");
      if (S.indices[p] != i) ++off_diagonal;
    }
    degree[i] = degree_of_row(S, i);
    root[i] = root_of(degree[i]);
  }

  Csr L;
  L.n = n;
  L.indptr.resize(static_cast<std::size_t>(n + 1));
  L.indices.reserve(static_cast<std::size_t>(off_diagonal + n));
  L.data.reserve(static_cast<std::size_t>(off_diagonal + n));
  L.indptr[0] = 0;
  for (Index i = 0; i < n; ++i) {
    check(i);
    const Split di = degree[i];
    const bool connected = di.m > 0.0;
    // An unnormalized degree above the largest double is +inf: not representable.
    const double diag = kind == LaplacianKind::unnormalized ? std::ldexp(di.m, di.e) : (connected ? 1.0 : 0.0);
    bool diag_done = false;
    for (Index p = S.indptr[i]; p < S.indptr[i + 1]; ++p) {
      const Index j = S.indices[p];
      if (j == i) continue;
      if (!diag_done && j > i) {
        L.indices.push_back(i);
        L.data.push_back(diag);
        diag_done = true;
      }
      double w = S.data[p];
      const Split ws = split(w);
      switch (kind) {
        case LaplacianKind::unnormalized:
          break;
        case LaplacianKind::normalized:  // 0 towards an isolated node (only an asymmetric S has one)
          w = w > 0.0 && degree[j].m > 0.0 ? std::ldexp(ws.m / root[i].m / root[j].m, ws.e - root[i].e - root[j].e)
                                           : 0.0;
          break;
        case LaplacianKind::random_walk:  // w > 0 implies d_i > 0
          w = w > 0.0 ? std::ldexp(ws.m / di.m, ws.e - di.e) : 0.0;
          break;
      }
      L.indices.push_back(j);
      L.data.push_back(-w);
    }
    if (!diag_done) {
      L.indices.push_back(i);
      L.data.push_back(diag);
    }
    L.indptr[i + 1] = static_cast<Index>(L.indices.size());
  }
  return L;
}

}  // namespace kernlearn
