// Indefinite kernel logistic regression (Liu, Huang, Gong, Yang & Suykens, TNNLS 2019) by the
// concave-(inexact-)convex procedure: the outer CCCP loop and its GD / SGD inner loops.
//
// Model (eq. 6): F(a) = (1/n) sum_i log(1 + exp(-y_i (K a)_i)) + (lambda/2) a'(K+ - K-) a with
// K = K+ - K- both PSD. Here K- = V diag(w) V' + s I (w >= 0): the paper's spectral decomposition
// (V = the negative eigenvectors, w = |mu_-|, s = tau) or a plain shift (V empty, s >= -mu_min),
// so only K is held densely and K+ a = K a + K- a.
//
// Corrections to the paper, checked by finite differences in the tests:
// - eq. (10): the gradient of F_k (eq. 9) is lambda K+ a - (1/n) K (y o beta) - lambda K- a_k with
//   beta_i = 1 / (1 + exp(y_i (K a)_i)); eq. (11) defines beta through itself (beta_j in place of
//   a_j) and puts y outside the product.
// - eq. (12): the SGD step also needs the linearised concave term -lambda K- a_k.
// - The stochastic logistic term of one sample i is -y_i beta_i K_i (unbiased for the mean).
#pragma once

#include <cstdint>
#include <vector>

#include <Eigen/Core>

#include "kernlearn/core/monitor.hpp"
#include "kernlearn/core/parallel.hpp"
#include "kernlearn/core/status.hpp"
#include "kernlearn/core/thread_team.hpp"
#include "kernlearn/kernels/kernel_matrix.hpp"

namespace kernlearn {

// K- = V diag(w) V' + shift I: views of the caller's arrays (V row-major n x r, w of length r).
struct NegativePart {
  MatrixRef V;
  Eigen::Ref<const Eigen::VectorXd> w;
  double shift = 0.0;
};

// The inner loop of CCICP: full gradient descent or single-sample SGD.
enum class IklrInner { gd, sgd };

// Defaults are the estimator's (the paper's schedule: eta_0 = 0.02, decay 0.8, 20 outer steps).
struct IklrOptions {
  IklrInner inner = IklrInner::gd;
  double lambda = 0.01;  // the paper's lambda (the estimator's alpha)
  double eps = 1.0;      // inner loop stops when |F_k(t+1) - F_k(t)| <= eps (Algorithm 1)
  Index max_outer = 20;
  Index max_inner = 1000;
  double learning_rate = 0.02;  // eta_0
  double decay = 0.8;           // eta <- decay * eta after every inner step
  bool restart_rate = true;     // eta back to eta_0 at each outer step (else it decays throughout)
  bool concave = true;          // false: penalty (lambda/2) a'K+ a (convex, well posed), no -K- term
};

struct IklrIteration {
  double objective = 0.0;  // F(a_k) of eq. (6) (or of the convex model when !concave)
  Index inner_steps = 0;
  Index matvecs = 0;
};

struct IklrResult {
  Eigen::VectorXd alpha;
  std::vector<IklrIteration> history;  // one record per outer iteration, after it
  double initial_objective = 0.0;
  // max_iter: max_outer outer steps ran (CCICP has no stopping certificate); interrupted: the
  // monitor asked to stop; not_converged: a non-finite value stopped the run (the step schedule
  // overflowed) and alpha is the last finite iterate.
  SolverStatus status = SolverStatus::max_iter;
};

// sgd_indices: for the SGD inner loop, the sample drawn at each step (max_outer * max_inner of
// them, row k * max_inner + t for inner step t of outer step k), drawn by the caller's generator;
// ignored (may be empty) for GD. The monitor is called after each outer iteration k (from 0);
// poll (checked before every inner step) returning true throws Interrupted.
template <class Scalar>
IklrResult ccicp(const DenseKernel<Scalar>& K, const Eigen::Ref<const Eigen::VectorXd>& y, const NegativePart& negative,
                 const Eigen::Ref<const Eigen::VectorXd>& alpha0, const IklrOptions& options,
                 const Eigen::Ref<const VectorXi>& sgd_indices, ThreadTeam& team,
                 const Monitor<IklrIteration>& monitor = {}, const InterruptPoll& poll = {});

}  // namespace kernlearn
