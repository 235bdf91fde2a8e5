// SimpleNPKL with p = 1, the trace bound tr K <= B, for the losses other than the linear one
// (npkl.hpp's conventions: ordered pairs, A(alpha) = sum_p alpha_p t_p T_p - L).
//
// There phi(A) = max { tr(A K) : K psd, tr K <= B } = B max(lambda_max(A), 0), attained at
// K = B v v' (Proposition 1 at p = 1), so the dual J is not differentiable wherever lambda_max is
// multiple, which it is at the optimum whenever K* has rank > 1: the saddle-point ascent does not
// apply. The primal is solved instead,
//   min_K f(K) = tr(L K) + loss(K),   K psd, tr K <= B,
// by fully corrective conditional gradient (Frank-Wolfe with the whole basis re-optimised,
// Laue 2012 "A hybrid algorithm for convex semidefinite optimization"). The gradient of f is
// -A(alpha(K)) with alpha_p(K) = -d loss / d g_p (g_p = tr(t_p T_p K) = 2 t_p K_ij):
//   squared hinge  alpha_p = C max(0, 1 - t_p K_ij)      square  alpha_p = C (1 - t_p K_ij)
// so the linear oracle argmin { tr(grad f S) } = B v v' is A's top eigenvector (one Lanczos solve
// of k = 1 per iteration, warm-started from the last one). alpha(K) is also the dual point that
// maximises the Lagrangian's loss term at K, which makes
//   P(K) - J(alpha(K)) = B max(lambda_max(A), 0) - tr(A K),
// the Frank-Wolfe gap: the certificate is the duality gap of npkl.hpp, best P minus best J.
// K = U E U' is kept as an orthonormal n x r basis U of the atoms found and an r x r psd E with
// tr E <= B; each iteration appends the new eigenvector to U and re-solves the restricted problem
// in E (accelerated projected gradient, the projection an r x r eigensolve and a capped-simplex
// projection of the eigenvalues) to a restricted gap below a tenth of the outer one. Directions
// of zero weight are dropped beyond kSpareDirections, keeping those the restricted gradient
// favours: dropping every one at once stalls the hinge (bench/results/npkl.md).
//
// The hinge loss is not differentiable: its primal is smoothed (Nesterov 2005),
//   2 C max(0, 1 - s) ~ sum over a in [0, C] of max a (2 - 2 s) - (mu / 2) a^2,
// whose maximiser alpha_p = clip(2 (1 - t_p K_ij) / mu, 0, C) is a hinge dual point in the box,
// so J(alpha) = 2 sum alpha - B max(lambda_max(A(alpha)), 0) stays a true lower bound and P(K) is
// the true hinge objective: the certified gap is the hinge's own. It splits into the smoothed
// problem's Frank-Wolfe gap and a smoothing term sum_p (C - alpha_p) 2 (1 - t_p K_ij)_+; mu starts
// at 1 / C and is divided by 4 whenever the smoothing term dominates (continuation).
#pragma once

#include <Eigen/Core>

#include "kernlearn/core/interrupt.hpp"
#include "kernlearn/core/monitor.hpp"
#include "kernlearn/core/thread_team.hpp"
#include "kernlearn/core/types.hpp"
#include "kernlearn/methods/npkl.hpp"
#include "kernlearn/methods/saddle_point.hpp"

namespace kernlearn {

// Zero-weight directions kept in the basis after each restricted solve.
constexpr Index kSpareDirections = 10;

// simple_npkl's work for p = 1 and a loss other than linear (it checks the arguments first).
// options.spectral: B, max_iter, tol, eigen_solver (dense / mixed: the oracle by LAPACK in
// double precision; lanczos; automatic: LAPACK below solver_choice::kMinFilteredSize points),
// eig_tol and seed are read. The history's `step` holds the restricted problem's gradient steps.
SaddleResult npkl_trace_bound(const Csr& L, const Eigen::Ref<const RowMatrixXi>& pairs,
                              const Eigen::Ref<const Eigen::VectorXd>& labels, const NpklOptions& options,
                              ThreadTeam& team, const Monitor<SaddleIteration>& monitor = {},
                              const InterruptPoll& poll = {});

}  // namespace kernlearn
