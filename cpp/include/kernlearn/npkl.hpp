// SimpleNPKL (Zhuang, Tsang & Hoi, JMLR 2011): a kernel K = V diag(lambda) V' learned from
// must-link / cannot-link pairs on a graph Laplacian L.
//
// Conventions (the paper's sums over S u D read over ordered pairs, so A stays symmetric): pair p
// joins points (i, j) with label t_p = +1 (must-link) or -1 (cannot-link) and owns one dual
// variable alpha_p for both entries (i, j) and (j, i). Then
//   A(alpha)  = sum_p alpha_p t_p (e_i e_j' + e_j e_i') - L
//   linear    K = argmax { tr(A K) : K psd, tr K^p <= B }  at alpha = C (eq. 12-14)
//   J(alpha)  = -phi(A(alpha)) + 2 sum alpha - sum alpha^2 / C     (squared hinge, square loss)
//             = -phi(A(alpha)) + 2 sum alpha, 0 <= alpha <= C       (hinge)
// with phi(A) = max_K tr(A K) over the feasible set (B form: B^(1/p) |sigma_+|_q, q = p/(p-1);
// G form: max_K tr(A K) - (G/p) tr K^p = |sigma_+|_q^q / (q G^(q-1))). Each constraint counted
// twice makes the primal at K
//   P(K) = tr(L K) + C sum_p max(0, 1 - t_p K_ij)^2   (squared hinge; square: (1 - t_p K_ij)^2;
//          hinge: 2 C sum_p max(0, 1 - t_p K_ij)), plus (G/p) tr K^p in the G form,
// and P(K_t) - J(alpha_t) >= 0 is the certified duality gap the iteration stops on. Counting
// each constraint once is the same model with C / 2.
#pragma once

#include <Eigen/Core>
#include <cstdint>
#include <functional>
#include <vector>

#include "kernlearn/dense_eigen.hpp"
#include "kernlearn/graph.hpp"
#include "kernlearn/parallel.hpp"
#include "kernlearn/thread_team.hpp"
#include "kernlearn/types.hpp"

namespace kernlearn {

enum class NpklLoss { linear, squared_hinge, hinge, square };
// automatic: Lanczos while the positive rank stays below dense_fraction n, then LAPACK.
enum class NpklEigenSolver { lanczos, dense, automatic };

struct NpklOptions {
  NpklLoss loss = NpklLoss::squared_hinge;
  double p = 2.0;          // >= 1; p = 1 only with the B form
  bool penalty = false;    // false: tr K^p <= B (Proposition 1); true: + (G/p) tr K^p (Proposition 2)
  double B = 1.0, G = 1.0;
  double C = 0.1;
  Index rank = 0;          // 0: every positive eigenpair of A; r > 0: the r largest only
  NpklEigenSolver eigen_solver = NpklEigenSolver::lanczos;
  double dense_fraction = 0.05;  // automatic: the rank fraction from which LAPACK is used
  SyevdFn syevd = nullptr;  // the dense solver's LAPACK (none: Eigen's solver)
  Index max_iter = 200;
  double tol = 1e-4;       // on the relative duality gap (P - J) / P
  double step = 0.0;       // 0: 1 / (local Lipschitz constant) with backtracking; else fixed
  double eig_tol = 1e-10;  // Lanczos residual tolerance, relative to |A|
  bool warm_start = false;  // start each Lanczos solve from the previous eigenvectors (measured: rarely pays)
  std::uint64_t seed = 0;
};

// One row of the history: J(alpha_t), P(K_t), their gap, the step that led to alpha_t, the
// Lanczos mat-vecs spent on reaching it (rejected backtracking trials included; 0 for the dense
// solver) and the rank of K_t.
struct NpklIteration {
  double dual, primal, gap, step;
  Index matvecs, rank;
};

struct NpklResult {
  Eigen::VectorXd eigenvalues;   // of K, decreasing, all > 0
  Eigen::MatrixXd eigenvectors;  // n x rank
  Eigen::VectorXd alpha;         // one per pair (linear loss: C)
  std::vector<NpklIteration> history;
  Index n_iter = 0;
  bool converged = false;
  bool used_dense = false;       // the last solve was LAPACK's
};

// Called after every iteration; returning true stops the solver (Ctrl-C, a user's callback).
using NpklMonitor = std::function<bool(Index iteration, const NpklIteration&)>;

// L: the graph Laplacian (CSR, sorted indices, symmetric); pairs: m x 2 distinct unordered pairs
// with i != j; labels: m values in {+1, -1}. basis: empty, or n x r with orthonormal columns U
// for the fixed-basis approximation of Section 5.4, K = U E U' with E psd: then each iteration
// solves the r x r problem U' A U = U' (sum_p a_p T_p) U - U' L U, the last term computed once,
// the first in O(m r^2), and no n x n eigenproblem is solved at all.
NpklResult simple_npkl(const Csr& L, const RowMatrixXi& pairs, const Eigen::VectorXd& labels,
                       const NpklOptions& options, ThreadTeam& team, const NpklMonitor& monitor = {},
                       const InterruptPoll& poll = {}, const Eigen::MatrixXd& basis = {});

}  // namespace kernlearn
