// Indefinite kernel logistic regression (Liu, Huang, Gong, Yang & Suykens, TNNLS 2019) by the
// concave-(inexact-)convex procedure: the outer CCCP loop and its GD / SGD inner loops.
//
// Model (eq. 6): F(a) = (1/n) sum_i log(1 + exp(-y_i (K a)_i)) + (lambda/2) a'(K+ - K-) a with
// K = K+ - K- both PSD. Here K- = V diag(w) V' + s I (w >= 0): the paper's spectral decomposition
// (V = the negative eigenvectors, w = |mu_-|, s = tau) or a plain shift (V empty, s >= -mu_min),
// so only K is held densely and K+ a = K a + K- a.
//
// The paper's errata (gradient of eq. 10-11, eq. 12's missing concave term, the Lipschitz
// constant, the O(dn) cost claim) are listed for users in the docstring of
// python/kernlearn/indefinite.py; the tests check the corrected steps by finite differences.
// The stochastic logistic term of one sample i is -y_i beta_i K_i (unbiased for the mean).
//
// iklr_newton solves the convex model (lambda/2) a'K+ a by an inexact Newton method: CCICP's
// gradient steps in the coefficients need thousands of steps on a smooth kernel (numbers in
// bench/results/iklr_solver.md), Newton needs about ten.
#pragma once

#include <cstdint>
#include <vector>

#include <Eigen/Core>

#include "kernlearn/core/monitor.hpp"
#include "kernlearn/core/parallel.hpp"
#include "kernlearn/core/status.hpp"
#include "kernlearn/linalg/operator.hpp"

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
  bool literal_sgd = false;     // SGD step as eq. (12) prints it: without -lambda K- a_k
};

struct IklrIteration {
  double objective = 0.0;  // F(a_k) of eq. (6) (or of the convex model when !concave)
  Index inner_steps = 0;   // CCICP: descent steps; Newton: conjugate-gradient steps
  Index matvecs = 0;
  double gradient_norm = 0.0;  // Newton: ||grad F|| after the step; CCICP: NaN (not computed)
  double step = 0.0;           // Newton: the line-search step length; CCICP: the last eta
};

struct IklrResult {
  Eigen::VectorXd alpha;
  std::vector<IklrIteration> history;  // one record per outer iteration, after it
  double initial_objective = 0.0;
  // max_iter: max_outer outer steps ran (CCICP has no stopping certificate); interrupted: the
  // monitor asked to stop; not_converged: a non-finite value stopped the run (the step schedule
  // overflowed) and alpha is the last finite iterate.
  SolverStatus status = SolverStatus::max_iter;
  double gradient_norm = 0.0;            // Newton: ||grad F(alpha)||_2; CCICP: NaN
  double reference_gradient_norm = 0.0;  // Newton: ||grad F(0)||_2 = ||K y|| / (2n), the tol scale
};

// Options of the Newton solver for the convex model F(a) = (1/n) sum_i log(1 + exp(-y_i (K a)_i))
// + (lambda/2) a'K+ a.
struct IklrNewtonOptions {
  double lambda = 0.01;
  double tol = 1e-8;     // converged when ||grad F(a)|| <= tol ||grad F(0)||
  Index max_iter = 100;  // Newton steps
  Index max_cg = 500;    // conjugate-gradient steps per Newton step
};

// K must be square and symmetric (products of a non-finite K show as a non-finite objective:
// status not_converged). sgd_indices: for the SGD inner loop, the sample drawn at each step (max_outer * max_inner of
// them, row k * max_inner + t for inner step t of outer step k), drawn by the caller's generator;
// ignored (may be empty) for GD. The monitor is called after each outer iteration k (from 0);
// poll (checked before every inner step) returning true throws Interrupted.
IklrResult ccicp(const LinearOperator& K, const Eigen::Ref<const Eigen::VectorXd>& y, const NegativePart& negative,
                 const Eigen::Ref<const Eigen::VectorXd>& alpha0, const IklrOptions& options,
                 const Eigen::Ref<const VectorXi>& sgd_indices, const Monitor<IklrIteration>& monitor = {},
                 const InterruptPoll& poll = {});

// Inexact Newton on the convex model from alpha0, with an Armijo backtracking line search. When
// K- = 0 (a PSD kernel) the Newton system K (D K / n + lambda I) p = -K r is solved in the
// symmetric form B = lambda I + D^1/2 K D^1/2 / n, whose condition number is at most
// 1 + ||K|| / (4 n lambda) whatever K's small eigenvalues; otherwise by conjugate gradients on the
// Hessian K D K / n + lambda K+ itself (positive definite when K- has a shift > 0). Status:
// converged (the gradient test met tol), max_iter, not_converged (the line search found no
// decrease: the rounding floor of F or a non-finite value), interrupted (monitor).
IklrResult iklr_newton(const LinearOperator& K, const Eigen::Ref<const Eigen::VectorXd>& y,
                       const NegativePart& negative, const Eigen::Ref<const Eigen::VectorXd>& alpha0,
                       const IklrNewtonOptions& options, const Monitor<IklrIteration>& monitor = {},
                       const InterruptPoll& poll = {});

}  // namespace kernlearn
