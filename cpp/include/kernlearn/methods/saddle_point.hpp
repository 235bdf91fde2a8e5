// The saddle-point iteration of SimpleNPKL (Zhuang, Tsang & Hoi, JMLR 2011, Algorithm 1), for
// every problem of the form (Sections 4.3 and 6)
//
//   max_alpha  J(alpha) = -phi(A(alpha)) + w'alpha - (rho / 2) |alpha|^2,   alpha in a convex set
//   A(alpha)   = M + sum_c alpha_c C_c,   C_c = sum_q R_cq T_q
//
// where T_q are pair matrices on a fixed pattern (entry or distance pairs, see constraints.hpp),
// R maps constraints to pairs (SimpleNPKL: R = diag(t); a triplet of SPE: T_ij - T_ik), and
//   phi(A) = max { tr(A K) : K psd, tr K^p <= B }        = B^(1/p) |sigma_+(A)|_q   (B form)
//        or  max { tr(A K) - (G/p) tr K^p : K psd }      = |sigma_+|_q^q / (q G^(q-1))  (G form)
// with q = p / (p - 1); the maximiser K(alpha) is built from A's positive eigenpairs. The base
// M = S + U diag(c) U' + shift I (S sparse) is never formed dense; with `center`, A is replaced
// by H A H (H = I - 11'/n), which is the constraint K 1 = 0 of MVU-type embeddings.
//
// It is the Lagrangian dual of the primal
//   min_K  -tr(M K) + loss(g(K)) [+ (G/p) tr K^p],   g_c(K) = tr(C_c K)
// where the set of alpha fixes the loss:
//   free,            rho > 0:  (1 / (2 rho)) sum_c (w_c - g_c)^2           (equalities, square loss)
//   nonnegative,     rho > 0:  (1 / (2 rho)) sum_c max(0, w_c - g_c)^2     (squared hinge)
//   box [0, u],      rho = 0:  u sum_c max(0, w_c - g_c)                   (hinge)
//   capped simplex (alpha >= 0, sum alpha <= u), rho = 0: u max(0, max_c (w_c - g_c))  (one slack)
//   fixed:           alpha stays at alpha0 and K(alpha0) is the answer (linear loss); P = -tr(A K).
// P(K_t) - J(alpha_t) >= 0 is the certified duality gap the iteration stops on.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

#include <Eigen/Core>

#include "kernlearn/core/monitor.hpp"
#include "kernlearn/core/parallel.hpp"
#include "kernlearn/core/solver_choice.hpp"
#include "kernlearn/core/status.hpp"
#include "kernlearn/core/thread_team.hpp"
#include "kernlearn/core/types.hpp"
#include "kernlearn/linalg/dense_eigen.hpp"
#include "kernlearn/methods/constraints.hpp"
#include "kernlearn/neighbors/graph.hpp"

namespace kernlearn {

enum class DualSet { fixed, free, nonnegative, box, capped_simplex };
// dense: LAPACK in double precision at every n; mixed: the mixed-precision dense route
// (dense_eigen.hpp) at every n; automatic: Lanczos while the positive rank stays below
// dense_fraction n, then LAPACK, in mixed precision from solver_choice::kMixedPrecisionMinN on.
enum class SpectralSolver { lanczos, dense, mixed, automatic };

// R in compressed rows: constraint c is sum_{e in [indptr[c], indptr[c+1])} data[e] T_{indices[e]}.
struct ConstraintRows {
  std::vector<Index> indptr, indices;
  std::vector<double> data;
  Index rows() const { return static_cast<Index>(indptr.size()) - 1; }
  // out = R x: per constraint, from one value per pair.
  void apply(const Eigen::VectorXd& x, Eigen::VectorXd& out) const {
    out.setZero(rows());
    for (Index c = 0; c < rows(); ++c)
      for (Index e = indptr[c]; e < indptr[c + 1]; ++e) out(c) += data[e] * x(indices[e]);
  }
  // out = R' y: per pair (n_pairs of them), from one value per constraint.
  void apply_transpose(const Eigen::VectorXd& y, Index n_pairs, Eigen::VectorXd& out) const {
    out.setZero(n_pairs);
    for (Index c = 0; c < rows(); ++c)
      for (Index e = indptr[c]; e < indptr[c + 1]; ++e) out(indices[e]) += data[e] * y(c);
  }
};

// Euclidean projection of x onto the capped simplex {x >= 0, sum x <= u}.
void project_capped_simplex(Eigen::VectorXd& x, double u);

struct SaddleProblem {
  Csr sparse;                    // S (n x n, sorted indices; may have no entries)
  Eigen::MatrixXd lowrank;       // U (n x r, r may be 0)
  Eigen::VectorXd lowrank_coef;  // c (r)
  double shift = 0.0;
  bool center = false;
  RowMatrixXi pairs;  // m_pairs x 2, distinct unordered pairs
  PairPattern pattern = PairPattern::entry;
  ConstraintRows rows;     // R
  Eigen::VectorXd target;  // w, one per constraint
  double rho = 0.0;
  DualSet set = DualSet::nonnegative;
  double upper = 0.0;      // u of the box / capped simplex
  Eigen::VectorXd alpha0;  // the starting point (projected onto the set)
};

struct SpectralOptions {
  double p = 2.0;  // >= 1; p = 1 only with the B form and the fixed set
  // Unset: the bound tr K^p <= B (Proposition 1); set: the penalty + (G/p) tr K^p instead
  // (Proposition 2), and B is not used.
  std::optional<double> G;
  double B = 1.0;
  std::optional<Index> rank;  // unset: every positive eigenpair of A; r: the r largest only
  SpectralSolver eigen_solver = SpectralSolver::automatic;
  double dense_fraction =
      solver_choice::kSaddleDenseFraction;  // automatic: the rank fraction from which LAPACK is used
  // automatic: above this n no dense solve is ever formed; a positive rank beyond the Lanczos cap
  // (dense_fraction n) is then an error naming rank and basis instead of an n x n matrix.
  Index dense_max_n = std::numeric_limits<Index>::max();
  DenseLapack dense_lapack;  // the dense solver's LAPACK (none: Eigen's solver)
  Index max_iter = 200;
  double tol = 1e-4;           // on the relative duality gap (P - J) / |P|
  std::optional<double> step;  // unset: 1 / (local Lipschitz constant) with backtracking; set: fixed
  // Nesterov momentum with function restart (L-BFGS for a free alpha), and with an unset step an
  // adaptive one (grown while backtracking accepts it at once); off: Algorithm 1 as such.
  bool accelerate = true;
  // Opt-in (MVE's steps ask for it): for a free alpha with p = 2, distance pairs, no rank cap and
  // no basis, Newton steps (conjugate gradients on the generalised Hessian) from points whose
  // spectrum comes whole from the double-precision dense solver and whose positive rank is at
  // most n / 4, while they pay (saddle_point.cpp).
  bool newton = false;
  double eig_tol = 1e-10;   // Lanczos residual tolerance, relative to |A|
  bool warm_start = false;  // start each Lanczos solve from the previous eigenvectors (rarely pays:
                            // bench/results/npkl.md)
  int filter_degree = 0;    // > 0: Lanczos on a Chebyshev filter of A of this degree (chebyshev_filter.hpp)
  std::uint64_t seed = 0;
};

// The largest trace bound B and step the solver accepts: B = 1e300 and step = 1e308 overflowed the
// projected eigensolver, while 1e280 and 1e250 ran to finite kernels with every SimpleNPKL loss
// (bench/results/reliability_round2.md).
inline constexpr double kMaxB = 1e280, kMaxStep = 1e250;

// Throws std::invalid_argument naming the first option (its Python field name) out of its range.
void check_spectral_options(const SpectralOptions& options);

// One row of the history: J(alpha_t), P(K_t), their gap, the step that led to alpha_t, the
// Lanczos mat-vecs spent on reaching it (rejected backtracking trials included; 0 for the dense
// solver) and the rank of K_t.
struct SaddleIteration {
  double dual, primal, gap, step;
  Index matvecs, rank;
};

// The stopping rule of every certified solver on this dual: best P - best J <= tol |best P|.
inline bool certified_gap_closed(const SaddleIteration& record, double tol) {
  return record.gap <= tol * std::max(std::abs(record.primal), std::numeric_limits<double>::min());
}

// Why K(alpha) holds every positive eigenpair of A that it should (issue 45): the kept pairs
// are those above `level`, the zero level (rounding and the exact zeros of untouched graph
// components). `next` is the largest eigenvalue of A known beyond the kept block and
// `residual` its residual norm, so an eigenvalue of A lies within `residual` of `next`:
//   lanczos    threshold mode: the converged Ritz value at or below the level that ends the
//              solve (no Ritz value beyond it is above the level). With a rank cap r: the r
//              largest pairs converged, `next` NaN (not computed).
//   dense      LAPACK: exact up to rounding. `next` is the largest eigenvalue at or below the
//              level where the whole spectrum was computed, else NaN (only the pairs above the
//              level were asked for, bisection-exact).
//   projected  Section 5.4's basis: the r x r matrix U_b' A U_b solved whole, so the statement
//              holds in the subspace only (`next` its largest eigenvalue at or below the level).
//   top        p = 1 with a trace bound (npkl_trace_bound.hpp): the top pair only; `next` is
//              lambda_max(A) itself and next + residual the bound the dual value uses.
// certified: the solve that produced it converged (a Lanczos solve stopped by its mat-vec cap
// is not a certificate; unconverged_eigensolves counts them).
enum class SpectrumMethod { lanczos, dense, projected, top };
struct SpectrumCertificate {
  SpectrumMethod method = SpectrumMethod::lanczos;
  double level = 0.0;
  double next = std::numeric_limits<double>::quiet_NaN();
  double residual = 0.0;
  Index kept = 0;
  bool certified = false;
};

struct SaddleResult {
  Eigen::VectorXd eigenvalues;        // of K, decreasing, all > 0
  Eigen::MatrixXd eigenvectors;       // n x rank
  Eigen::VectorXd alpha;              // one per constraint
  Eigen::VectorXd constraint_values;  // g_c(K) = tr(C_c K) at the returned K
  std::vector<SaddleIteration> history;
  Index n_iter = 0;
  SolverStatus status = SolverStatus::max_iter;  // converged: the gap met tol (at once for a fixed alpha)
  bool used_dense = false;                       // the last solve was LAPACK's
  bool used_mixed_precision = false;             // ... in mixed precision
  Index unconverged_eigensolves = 0;             // Lanczos solves stopped by their mat-vec cap, pairs used as found
  SpectrumCertificate spectrum;                  // of the returned K's eigensolve
};

// basis: empty, or n x r with orthonormal columns U_b for the fixed-basis approximation of
// Section 5.4, K = U_b E U_b' with E psd: each iteration then solves the r x r problem
// U_b' A U_b, with U_b' M U_b computed once and the pairs' part in O(m r^2). With centring, U_b
// must be orthogonal to the constant vector (then H U_b = U_b).
SaddleResult solve_saddle_point(const SaddleProblem& problem, const SpectralOptions& options, ThreadTeam& team,
                                const Monitor<SaddleIteration>& monitor = {}, const InterruptPoll& poll = {},
                                const Eigen::MatrixXd& basis = {});

// The Hessian of -J at problem.alpha0 applied to v: the operator of the Newton steps, for tests
// against finite differences of g. Needs what Newton steps need (options.newton, a free alpha,
// distance pairs, p = 2, no rank cap, no mixed precision) and uses the dense solver whatever
// `options` say.
Eigen::VectorXd saddle_hessian_product(const SaddleProblem& problem, const SpectralOptions& options,
                                       const Eigen::VectorXd& v, ThreadTeam& team);

}  // namespace kernlearn
