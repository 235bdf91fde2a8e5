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

namespace kernlearn {

enum class PairwiseKind { tl1, rbf };

// tl1: max(tau - ||x - y||_1, 0), the truncated l1-distance kernel (Huang et al., TNNLS 2018;
//      indefinite in general).
// rbf: exp(-gamma ||x - y||^2).
struct PairwiseKernel {
  PairwiseKind kind = PairwiseKind::rbf;
  double tau = 1.0;
  double gamma = 1.0;
};

// out (X.rows() x Y.rows(), row-major) = k(x_i, y_j). The distance of a pair is summed feature by
// feature in a fixed order, so k(X, X) is exactly symmetric. Scalar is float or double.
template <class Scalar>
void pairwise_kernel(const MatrixRef& X, const MatrixRef& Y, const PairwiseKernel& kernel, Scalar* out, int n_threads,
                     const InterruptPoll& poll = {});

// out (n_w x n_t, row-major) = exp(-gamma ||log(W_i T_j W_i)||_F^2): the affine-invariant Gaussian
// kernel between SPD matrices S_i = W_i^-2 (the caller passes W_i = S_i^-1/2) and T_j; the squared
// distance is sum_k log^2 of the eigenvalues of W_i T_j W_i. Stacks are row-major (n, d, d).
// same = true when T is S: only j >= i is computed and mirrored (the distance is symmetric).
void affine_invariant_kernel(const double* W, Index n_w, const double* T, Index n_t, Index d, double gamma, bool same,
                             double* out, int n_threads, const InterruptPoll& poll = {});

// A dense symmetric n x n kernel held by someone else (numpy), row-major, float or double.
template <class Scalar>
class DenseKernel {
 public:
  DenseKernel(const Scalar* data, Index n) : data_(data), n_(n) {}
  Index rows() const { return n_; }
  const Scalar* row(Index i) const { return data_ + static_cast<std::size_t>(i) * static_cast<std::size_t>(n_); }
  // y = K x, rows split over the team (each row's sum in a fixed order: the result does not
  // depend on the team's size).
  void multiply(const double* x, double* y, ThreadTeam& team) const;

 private:
  const Scalar* data_;
  Index n_;
};

extern template class DenseKernel<float>;
extern template class DenseKernel<double>;

}  // namespace kernlearn
