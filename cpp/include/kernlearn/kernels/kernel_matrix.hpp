// Dense kernel matrices: built in row blocks on threads, and multiplied by vectors.
//
// The indefinite-kernel learners (IKLR) hold one n x n kernel and stream it once or twice per
// gradient step, so the mat-vec runs at memory speed: float32 storage halves the bytes per pass
// (the sums are accumulated in double either way).
#pragma once

#include <cstddef>

#include "kernlearn/core/parallel.hpp"
#include "kernlearn/core/thread_team.hpp"
#include "kernlearn/core/types.hpp"
#include "kernlearn/kernels/kernel_rows.hpp"
#include "kernlearn/linalg/operator.hpp"

namespace kernlearn {

// out (X.rows() x Y.rows(), row-major) = k(x_i, y_j), each entry computed in double by kernel_row
// (so bitwise that of the on-the-fly KernelOperator, and k(X, X) exactly symmetric) and rounded
// to Scalar, float or double.
template <class Scalar>
void pairwise_kernel(const MatrixRef& X, const MatrixRef& Y, const PairwiseKernel& kernel, Scalar* out, int n_threads,
                     const InterruptPoll& poll = {});

// out (n_w x n_t, row-major) = exp(-gamma ||log(W_i T_j W_i)||_F^2): the affine-invariant Gaussian
// kernel between SPD matrices S_i = W_i^-2 (the caller passes W_i = S_i^-1/2) and T_j; the squared
// distance is sum_k log^2 of the eigenvalues of W_i T_j W_i. Stacks are row-major (n, d, d).
// same = true when T is S: only j >= i is computed and mirrored (the distance is symmetric).
void affine_invariant_kernel(const double* W, Index n_w, const double* T, Index n_t, Index d, double gamma, bool same,
                             double* out, int n_threads, const InterruptPoll& poll = {});

// A dense symmetric n x n kernel held by someone else (numpy), row-major, float or double: the
// operator of a stored kernel (IKLR's dense path, KDAC's single-precision U-step).
template <class Scalar>
class DenseKernel final : public LinearOperator {
 public:
  DenseKernel(const Scalar* data, Index n, ThreadTeam& team) : data_(data), n_(n), team_(team) {}
  Index rows() const override { return n_; }
  const Scalar* row(Index i) const { return data_ + static_cast<std::size_t>(i) * static_cast<std::size_t>(n_); }
  // y = K x, rows split over the team (each row's sum in a fixed order: the result does not
  // depend on the team's size).
  void multiply(const double* x, double* y) const;
  // Column by column through multiply.
  void apply(const Eigen::Ref<const Eigen::MatrixXd>& X, Eigen::Ref<Eigen::MatrixXd> Y) const override;
  void column(Index j, Eigen::Ref<Eigen::VectorXd> out) const override;  // row j (K is symmetric)
  Eigen::VectorXd diagonal() const override;
  double max_abs() const override;
  bool is_explicit() const override { return true; }
  // Whether every entry is finite (O(n^2), once per solve).
  bool all_finite() const;

 private:
  const Scalar* data_;
  Index n_;
  ThreadTeam& team_;
};

extern template class DenseKernel<float>;
extern template class DenseKernel<double>;

}  // namespace kernlearn
