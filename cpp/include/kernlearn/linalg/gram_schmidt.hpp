// Dense products with a column-major Lanczos basis, on the SIMD kernel family simd.hpp picks: the
// two matrix-vector products of classical Gram-Schmidt, and the basis rotation of a thick restart.
// They dominate Lanczos once the basis is wide (a hundred columns of a 10^4-row matrix outweigh a
// sparse mat-vec), and Eigen built for baseline x86-64 would run them with SSE2 only.
#pragma once

#include <vector>

#include "kernlearn/core/interrupt.hpp"
#include "kernlearn/core/thread_team.hpp"
#include "kernlearn/core/types.hpp"

namespace kernlearn {

// h[c] = <V[:, c], w> for c < cols; V is n x cols, column-major with leading dimension ld.
void project(const double* V, Index ld, Index n, Index cols, const double* w, double* h);

// w -= V h.
void subtract_combination(const double* V, Index ld, Index n, Index cols, const double* h, double* w);

// w -= V h, then h2 = V' w (the new w), in one pass over V: each strip of rows is subtracted and
// then projected while it is in L1. It fuses the first subtraction of Gram-Schmidt with the
// projection of the second pass.
void subtract_then_project(const double* V, Index ld, Index n, Index cols, const double* h, double* w, double* h2);

// Y = V S: V is n x m (leading dimension ldv), S is m x p (ldS), Y is n x p (ldy); Y must not
// overlap V.
void rotate_basis(const double* V, Index ldv, Index n, Index m, const double* S, Index lds, Index p, double* Y,
                  Index ldy);

// The same products for an n-row basis on a thread team. The rows are cut into blocks whose number
// depends on n alone; each block's partial projections are summed in block order, so the results
// do not depend on the team's size. The methods that change w return its new squared norm.
class BasisProducts {
 public:
  BasisProducts(Index n, ThreadTeam& team);

  // h = V' w.
  void project(const double* V, Index ld, Index cols, const double* w, double* h);
  // w -= a x + b y (the local terms of a Lanczos step), then h = V' w; returns |w|^2.
  double subtract_pair_then_project(const double* x, double a, const double* y, double b, const double* V, Index ld,
                                    Index cols, double* w, double* h);
  // w -= V h, then h2 = V' w.
  double subtract_then_project(const double* V, Index ld, Index cols, const double* h, double* w, double* h2);
  // w -= V h.
  double subtract(const double* V, Index ld, Index cols, const double* h, double* w);
  // w -= h[c] V[:, c] for the listed columns c only (a few of a wide basis).
  double subtract_columns(const double* V, Index ld, const std::vector<Index>& columns, const double* h, double* w);
  // <x, y>.
  double dot(const double* x, const double* y);
  // y = a x.
  void scale(const double* x, double a, double* y);
  // Y = V S as rotate_basis.
  void rotate(const double* V, Index ldv, Index m, const double* S, Index lds, Index p, double* Y, Index ldy);
  // The same by panels of rows small enough to poll between (a thick restart's rotation of a wide
  // basis takes seconds at n = 10^5); throws Interrupted when poll says stop. The rows are
  // independent, so the result is the same bits as rotate's.
  void rotate(const double* V, Index ldv, Index m, const double* S, Index lds, Index p, double* Y, Index ldy,
              const InterruptPoll& poll);

 private:
  // fn(block, first row, row count) for every block, spread over the team.
  template <class Fn>
  void for_blocks(Fn&& fn);
  // Sums the blocks' partial vectors (length len) in block order into out.
  void reduce(Index len, double* out) const;
  double reduce_scalars() const;
  void reserve(Index cols);

  ThreadTeam& team_;
  std::vector<Index> starts_;    // block b holds rows [starts_[b], starts_[b + 1])
  std::vector<double> partial_;  // block b's partial vector at b * stride_
  std::vector<double> scalars_;  // block b's partial dot product or squared norm
  Index stride_ = 0;
};

}  // namespace kernlearn
