// A kernel matrix K = k(X, X) + c 11' as a linear operator that is never formed: every product
// recomputes the entries tile by tile on the thread team (kernel_rows.hpp), in O(n (b + d)) memory
// for a product with b columns plus one row of a tile per thread.
//
// Schedule. K is symmetric, so each tile K_IJ (I < J, 256 x 256) is computed once and used twice:
// Y_I += K_IJ V_J and Y_J += K_IJ' V_I. The tile pairs run in the rounds of a round-robin
// tournament (the circle method): within a round every block meets exactly one other, so the
// items of a round write disjoint rows of Y and need no per-thread copies of Y; across rounds
// each row block accumulates in the same order whatever the team's size. The result is therefore
// the same on 1 or 16 threads and from run to run, and costs half the kernel evaluations of a
// row-by-row product. Figures: bench/results/kernel_operator.md.
//
// Precision. float64 tiles give entries bitwise equal to pairwise_kernel's (the dense matrix of
// the same kernel). float32 tiles compute the differences and exp in single precision, from X
// centred first (both kernels are translation invariant, and centring keeps |x| small against
// the differences), and accumulate the products in double: about 1e-7 relative per entry, and
// twice the entries per vector instruction.
#pragma once

#include <utility>
#include <vector>

#include <Eigen/Core>

#include "kernlearn/core/interrupt.hpp"
#include "kernlearn/core/thread_team.hpp"
#include "kernlearn/core/types.hpp"
#include "kernlearn/kernels/kernel_rows.hpp"
#include "kernlearn/linalg/operator.hpp"

namespace kernlearn {

// Rows and columns of a tile of the on-the-fly kernel.
constexpr Index kKernelTile = 256;

// A round-robin tournament on `blocks` players by the circle method, computed slot by slot (no
// table: O(1) memory at any n): round_robin_size gives {rounds, slots per round}, and
// round_robin_pair the pair {I, J}, I < J, in a slot of a round, or {-1, -1} for a bye. Each
// unordered pair appears in exactly one round and each player at most once per round.
std::pair<Index, Index> round_robin_size(Index blocks);
std::pair<Index, Index> round_robin_pair(Index blocks, Index round, Index slot);

// Throws std::invalid_argument naming the parameter unless the kernel's parameters are valid
// (tau finite > 0, gamma finite >= 0) and X is finite with |x_ij| <= kMaxCoordinate.
void check_pairwise_kernel(const PairwiseKernel& kernel, const MatrixRef& X, const char* x_name);

// Throws std::invalid_argument naming X when the float32 tiles of X (centred) could overflow.
void check_single_precision_range(const MatrixRef& X);

class KernelOperator final : public LinearOperator {
 public:
  // X (n x d, n >= 1) is the caller's and must outlive the operator; the constant c is added to
  // every entry (an intercept's 11'). single: float32 tiles. poll is checked between tiles.
  KernelOperator(const MatrixRef& X, const PairwiseKernel& kernel, double constant, bool single, ThreadTeam& team,
                 const InterruptPoll& poll = {});
  Index rows() const override { return X_.rows(); }
  void apply(const Eigen::Ref<const Eigen::MatrixXd>& V, Eigen::Ref<Eigen::MatrixXd> Y) const override;
  void column(Index j, Eigen::Ref<Eigen::VectorXd> out) const override;
  Eigen::VectorXd diagonal() const override;
  bool single() const { return single_; }

 private:
  template <class Scalar>
  void apply_tiles(const Scalar* points, Index stride, const Scalar* panel, const RowMatrixXd& V, RowMatrixXd& Y) const;

  MatrixRef X_;
  PairwiseKernel kernel_;
  double constant_;
  bool single_;
  ThreadTeam& team_;
  InterruptPoll poll_;
  Index ld_ = 0;    // the panels' padded width
  RowMatrixXd Xt_;  // float64: X' as a feature-major panel (d x ld)
  Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> Xf_, Xtf_;  // float32: centred X, X'
};

// The feature-major panel of the rows of Y (d x padded(m), the padding zero), optionally centred
// by subtracting `center` (1 x d) first: the layout kernel_row reads.
template <class Scalar>
Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> feature_panel(const MatrixRef& Y,
                                                                                     const Eigen::RowVectorXd& center);

}  // namespace kernlearn
