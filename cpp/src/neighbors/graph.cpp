#include "kernlearn/neighbors/graph.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace kernlearn {

namespace {

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

Csr knn_graph(const Neighbors& nb, GraphMode mode, EdgeWeight weight, std::optional<double> width) {
  const Index n = nb.indices.rows(), k = nb.indices.cols();
  if (weight == EdgeWeight::heat && !width) throw std::invalid_argument("weight heat needs sigma");
  const double sigma = width.value_or(0.0);  // read by the heat weight only

  // Directed graph A (row i = the kNN of i) and its transpose, both with sorted columns.
  std::vector<Index> out_ptr(static_cast<std::size_t>(n + 1)), in_ptr(static_cast<std::size_t>(n + 1), 0);
  std::vector<Edge> out_edges(static_cast<std::size_t>(n * k)), in_edges(static_cast<std::size_t>(n * k));
  for (Index i = 0; i < n; ++i) {
    out_ptr[i] = i * k;
    auto row = sorted_row(nb, i);
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
        return std::exp(-(dist * dist) / (2.0 * sigma * sigma));
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
      } else {
        emit(*a);
        ++a;
        ++b;
      }
    }
    g.indptr[i + 1] = static_cast<Index>(g.indices.size());
  }
  return g;
}

Csr laplacian(const Csr& S, LaplacianKind kind) {
  const Index n = S.n;
  std::vector<double> degree(static_cast<std::size_t>(n), 0.0);
  Index off_diagonal = 0;
  for (Index i = 0; i < n; ++i)
    for (Index p = S.indptr[i]; p < S.indptr[i + 1]; ++p)
      if (S.indices[p] != i) {
        degree[i] += S.data[p];
        ++off_diagonal;
      }

  // scale[i] multiplies row i and column i (normalized), or row i only (random walk).
  std::vector<double> scale(static_cast<std::size_t>(n), 1.0);
  if (kind != LaplacianKind::unnormalized)
    for (Index i = 0; i < n; ++i) {
      const double di = degree[i];
      scale[i] = di > 0.0 ? (kind == LaplacianKind::normalized ? 1.0 / std::sqrt(di) : 1.0 / di) : 0.0;
    }

  Csr L;
  L.n = n;
  L.indptr.resize(static_cast<std::size_t>(n + 1));
  L.indices.reserve(static_cast<std::size_t>(off_diagonal + n));
  L.data.reserve(static_cast<std::size_t>(off_diagonal + n));
  L.indptr[0] = 0;
  for (Index i = 0; i < n; ++i) {
    const double di = degree[i];
    const double diag = kind == LaplacianKind::unnormalized ? di : (di > 0.0 ? 1.0 : 0.0);
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
      switch (kind) {
        case LaplacianKind::unnormalized:
          break;
        case LaplacianKind::normalized:
          w *= scale[i] * scale[j];
          break;
        case LaplacianKind::random_walk:
          w *= scale[i];
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
