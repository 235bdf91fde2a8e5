// IKLR's Nystrom model for large n: kernel logistic regression restricted to M centres, solved by
// Newton-CG in the M-dimensional feature space with a Falkon-type preconditioner.
//
// With the centres' kernel block W = U S U' (the pairs with |s| above a cut-off) and the feature map
// phi(x) = k(x, Z) U |S|^-1/2 (r <= M features), the model is f(x) = phi(x)'beta + s b and
//
//   F(beta, b) = (1/n) sum_i log(1 + exp(-y_i f(x_i))) + (lambda/2) (|beta|^2 + b^2),
//
// the exact model's intercept convention (a constant s^2 added to the kernel, python/kernlearn/
// indefinite.py) in feature form. For a PSD kernel this is the exact model with f restricted to the
// span of k(., z_j) (|beta| is the RKHS norm). The caller gives C = k(X, Z) (n x M) and the
// projection T = U |S|^-1/2 (M x r), so this file does not know the kernel; Phi = C T is applied as
// C (T .) and never formed.
//
// Falkon's preconditioner (Rudi, Carratino & Rosasco 2017; for GLMs, Meanti et al. 2020): the
// Hessian (1/n) Phi' D Phi + lambda I is approximated by the same sum over the M centres,
// (1/M) Phi_Z' D_Z Phi_Z + lambda I with D_Z the curvature at the centres' margins; the centres
// being a uniform sample of the training points, (1/M) Phi_Z' D_Z Phi_Z estimates (1/n) Phi' D Phi.
// Its Cholesky factor costs O(M r^2 + r^3) per Newton step; each CG step costs two passes over C,
// O(n M). Figures (steps, time, accuracy against the exact model): bench/results/iklr_nystrom.md.
#pragma once

#include <Eigen/Core>

#include "kernlearn/core/interrupt.hpp"
#include "kernlearn/core/monitor.hpp"
#include "kernlearn/core/thread_team.hpp"
#include "kernlearn/core/types.hpp"
#include "kernlearn/methods/iklr.hpp"

namespace kernlearn {

struct IklrNystromOptions {
  double lambda = 1e-4;
  double intercept = 1.0;  // s, the value of the constant feature; 0 fits no intercept
  double tol = 1e-8;       // converged when ||grad F|| <= tol ||grad F(0)||
  Index max_iter = 100;    // Newton steps
  Index max_cg = 500;      // preconditioned conjugate-gradient steps per Newton step
};

struct IklrNystromResult {
  Eigen::VectorXd beta;                // the r feature weights
  double intercept_weight = 0.0;       // b (the intercept is s b)
  std::vector<IklrIteration> history;  // per Newton step: objective, CG steps, passes over Phi, ...
  double initial_objective = 0.0;
  // converged (the gradient test met tol), max_iter, not_converged (the line search found no
  // decrease: the rounding floor of F, or a non-finite value), interrupted (the monitor).
  SolverStatus status = SolverStatus::max_iter;
  double gradient_norm = 0.0;            // ||grad F|| at the returned point (the certificate)
  double reference_gradient_norm = 0.0;  // ||grad F(0)||, tol's scale
};

// C: n x M kernel columns of the training points at the centres; T: the M x r projection (the
// features are Phi = C T); Phi_centers: the features of the preconditioner's sample (the centres,
// any number of rows, r columns); y: n signs (+-1); beta0: the r starting weights (intercept
// weight 0). Throws std::invalid_argument naming the argument on a shape mismatch, non-finite
// input or a bad option. poll is checked at every pass over C.
IklrNystromResult iklr_nystrom_newton(const MatrixRef& C, const MatrixRef& T, const MatrixRef& Phi_centers,
                                      const Eigen::Ref<const Eigen::VectorXd>& y,
                                      const Eigen::Ref<const Eigen::VectorXd>& beta0, const IklrNystromOptions& options,
                                      ThreadTeam& team, const Monitor<IklrIteration>& monitor = {},
                                      const InterruptPoll& poll = {});

}  // namespace kernlearn
