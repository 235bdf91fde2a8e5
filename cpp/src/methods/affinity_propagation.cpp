#include "kernlearn/methods/affinity_propagation.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>

namespace kernlearn {

namespace {

// One thread's workspace: the estimate p and the residual r as dense n-vectors, with the list of
// positions p touched and the queue of positions whose residual reached the push threshold.
struct Workspace {
  explicit Workspace(Index n)
      : estimate(static_cast<std::size_t>(n), 0.0),
        residual(static_cast<std::size_t>(n), 0.0),
        touched(static_cast<std::size_t>(n), 0),
        queued(static_cast<std::size_t>(n), 0) {}
  std::vector<double> estimate, residual;
  std::vector<char> touched, queued;  // touched: p or r may be non-zero there
  std::vector<Index> support, queue;
};

struct ColumnResult {
  std::vector<Index> rows;
  std::vector<double> values;
};

void touch(Workspace& ws, Index i) {
  if (!ws.touched[i]) {
    ws.touched[i] = 1;
    ws.support.push_back(i);
  }
}

// Column j of W* = (1 - a)(I - aP)^-1 W0[:, j] into ws.estimate by residual pushes: with the
// invariant W*[:, j] = p + (1 - a)(I - aP)^-1 r, a push at u moves (1 - a) r_u into p_u and
// a r_u P e_u (the in-neighbours v of u, by P_vu) into r. It stops when every |r_v| < eps; then
// |W*[:, j] - p| <= eps entrywise, because (1 - a)(I - aP)^-1 has infinity-norm 1 (P is
// row-stochastic).
//
// A column can take seconds (alpha near 1, eps near 1e-15: the residuals travel the whole graph),
// so the pushes check for Ctrl-C every kPollPushes: the calling thread (member 0, the only one
// whose poll sees signals) polls and raises `stop`, and the other members end their column when
// they see it.
constexpr std::size_t kPollPushes = 4096;

void column_push(const Csr& Pt, const Csr& W0, double alpha, double eps, Index j, Workspace& ws, bool caller,
                 const InterruptPoll& poll, std::atomic<bool>& stop) {
  for (Index q = W0.indptr[j]; q < W0.indptr[j + 1]; ++q) {
    const Index i = W0.indices[q];
    touch(ws, i);
    ws.residual[i] += W0.data[q];
    if (!ws.queued[i] && std::abs(ws.residual[i]) >= eps) {
      ws.queued[i] = 1;
      ws.queue.push_back(i);
    }
  }
  // A FIFO over a growing vector: pushes in the order residuals reach eps (breadth first, so a
  // position's residual gathers from several in-neighbours before it is pushed).
  // Pushes end for a row-(sub)stochastic P (module docstring of _affinity.py), but their count
  // grows like 1 / ((1 - alpha) eps) and with the graph's size: a valid alpha = 0.99 and
  // eps = 1e-15 at n = 100,000 pass any fixed cap. The cap bounds one column's work, and passing
  // it is an error naming the parameters that set the work, not an endless call.
  const std::size_t cap = std::max<std::size_t>(10'000'000, 100 * static_cast<std::size_t>(Pt.n));
  for (std::size_t head = 0; head < ws.queue.size(); ++head) {
    if (head % kPollPushes == kPollPushes - 1) {
      if (caller && poll && poll()) {
        stop = true;
        throw Interrupted();
      }
      if (stop) throw Interrupted();
    }
    if (head > cap) {
      char text[160];
      std::snprintf(text, sizeof text, "%zu pushes for one column at alpha = %.6g and eps = %.3g", cap, alpha, eps);
      throw std::invalid_argument(std::string("affinity_push: the propagation needs more than ") + text +
                                  " (the work grows with 1 / ((1 - alpha) eps)): lower alpha or raise eps");
    }
    const Index u = ws.queue[head];
    ws.queued[u] = 0;
    const double ru = ws.residual[u];
    if (std::abs(ru) < eps) continue;
    ws.residual[u] = 0.0;
    ws.estimate[u] += (1.0 - alpha) * ru;
    const double spread = alpha * ru;
    for (Index q = Pt.indptr[u]; q < Pt.indptr[u + 1]; ++q) {
      const Index v = Pt.indices[q];
      touch(ws, v);
      ws.residual[v] += spread * Pt.data[q];
      if (!ws.queued[v] && std::abs(ws.residual[v]) >= eps) {
        ws.queued[v] = 1;
        ws.queue.push_back(v);
      }
    }
  }
  ws.queue.clear();
}

void clear_column(Workspace& ws) {
  for (const Index i : ws.support) {
    ws.estimate[i] = 0.0;
    ws.residual[i] = 0.0;
    ws.touched[i] = 0;
  }
  ws.support.clear();
}

void check_csr(const Csr& A, Index n, const std::string& name) {
  if (A.n != n || static_cast<Index>(A.indptr.size()) != n + 1)
    throw std::invalid_argument("affinity_push: " + name + " must be " + std::to_string(n) + " x " + std::to_string(n));
}

}  // namespace

AffinityTriplets affinity_push(const Csr& P_transpose, const Csr& W0, double alpha, double eps, double cut,
                               const Csr* pattern, ThreadTeam& team, const InterruptPoll& poll) {
  const Index n = P_transpose.n;
  check_csr(W0, n, "W0");
  if (pattern != nullptr) check_csr(*pattern, n, "pattern");
  if (!(alpha > 0.0 && alpha < 1.0)) throw std::invalid_argument("affinity_push: alpha must lie in (0, 1)");
  if (!(eps >= 1e-15) || !std::isfinite(eps))
    throw std::invalid_argument("affinity_push: eps must be finite and >= 1e-15");
  if (!(cut >= 0.0) || !std::isfinite(cut)) throw std::invalid_argument("affinity_push: cut must be finite and >= 0");
  // P row-(sub)stochastic and non-negative: the accuracy bound and the pushes' end need it.
  std::vector<double> row_sums(static_cast<std::size_t>(n), 0.0);
  for (std::size_t q = 0; q < P_transpose.data.size(); ++q) {
    const double v = P_transpose.data[q];
    if (!(v >= 0.0 && v <= 1.0)) throw std::invalid_argument("affinity_push: P's entries must lie in [0, 1]");
    row_sums[static_cast<std::size_t>(P_transpose.indices[q])] += v;
  }
  for (const double s : row_sums)
    if (s > 1.0 + 1e-9) throw std::invalid_argument("affinity_push: P's rows must sum to at most 1 (row-stochastic)");
  for (const double v : W0.data)
    if (!std::isfinite(v) || std::abs(v) > 1.0) throw std::invalid_argument("affinity_push: W0 must be in [-1, 1]");

  std::vector<ColumnResult> columns(static_cast<std::size_t>(n));
  std::atomic<bool> stop{false};
  // One poll for the team (between columns) and for member 0 inside a column: whichever sees
  // the interrupt raises `stop`, so the other members leave their columns too.
  const InterruptPoll stopping = [&poll, &stop] {
    if (!(poll && poll())) return false;
    stop = true;
    return true;
  };
  std::vector<Workspace> spaces;
  spaces.reserve(static_cast<std::size_t>(team.size()));
  for (int t = 0; t < team.size(); ++t) spaces.emplace_back(n);
  team.for_each(
      n,
      [&](int member, Index j) {
        Workspace& ws = spaces[static_cast<std::size_t>(member)];
        column_push(P_transpose, W0, alpha, eps, j, ws, member == 0, stopping, stop);
        ColumnResult& out = columns[static_cast<std::size_t>(j)];
        if (pattern == nullptr) {
          for (const Index i : ws.support) {
            if (std::abs(ws.estimate[i]) >= cut) {
              out.rows.push_back(i);
              out.values.push_back(ws.estimate[i]);
            }
          }
        } else {
          for (Index p = pattern->indptr[j]; p < pattern->indptr[j + 1]; ++p) {
            out.rows.push_back(pattern->indices[p]);
            out.values.push_back(ws.estimate[pattern->indices[p]]);
          }
        }
        clear_column(ws);
      },
      stopping);

  AffinityTriplets result;
  std::size_t count = 0;
  for (const ColumnResult& c : columns) count += c.rows.size();
  result.rows.reserve(count);
  result.cols.reserve(count);
  result.values.reserve(count);
  for (Index j = 0; j < n; ++j) {
    const ColumnResult& c = columns[static_cast<std::size_t>(j)];
    result.rows.insert(result.rows.end(), c.rows.begin(), c.rows.end());
    result.cols.insert(result.cols.end(), c.rows.size(), j);
    result.values.insert(result.values.end(), c.values.begin(), c.values.end());
  }
  return result;
}

}  // namespace kernlearn
