// Sparse inverse covariance estimation (SICE), the l1-penalised log-det problem of S3ML
// (Liu, Ma, Tao, Liu & Liu, KDD 2010, eq. 13):
//
//     min_M  F(M) = -log det M + <S, M> + sum_ij R_ij |M_ij|        (M positive definite)
//
// with a symmetric weight matrix R >= 0. Its dual (eq. 15, with weights) is
//
//     max_Z  log det Z + m   subject to  |Z_ij - S_ij| <= R_ij,
//
// so any positive definite Z in that box gives the lower bound log det Z + m, and
// F(M) - (log det Z + m) is a certified duality gap. Both solvers stop on it. newton also offers
// the box point that meets complementary slackness with M, whose gap is second order in M's
// distance to the optimum (see DualCertificate in sice.cpp).
//
// Two solvers:
// - alm: alternating linearization (the paper's Algorithm 1, Goldfarb & Ma's ALM), i.e. Peaceman-
//   Rachford splitting of f(M) = -log det M + <S, M> and the smoothed h_sigma (eq. 18; sigma = 0 is
//   h itself). Options: sigma (the paper runs 1e-6), the step rule (ours: mu = gamma_min * gamma_max
//   of the current M, re-estimated every mu_period iterations; or the paper's mu = min(lambda^2,
//   sigma)), and Theorem 5's bounds M, Y >= lambda I. Where this departs from the paper and why is
//   in the errata of python/kernlearn/metric/_s3ml.py (its module docstring). One eigendecomposition
//   per iteration (two with the bounds). The sparse answer is the Y iterate, whose zeros are exact
//   for sigma = 0 (the soft threshold); for sigma > 0 see sice.cpp.
// - newton: a second-order method written here, in two phases (see sice.cpp), from a start found by
//   a few sweeps of block coordinate descent on the dual (the graphical lasso). First QUIC's
//   direction (Hsieh, Sustik, Dhillon & Ravikumar, 2014): coordinate descent on the l1-penalised
//   quadratic model over the free set, which finds the support. Then, once full steps are taken,
//   Newton steps on the support's orthant solved by preconditioned conjugate gradients, which do
//   not slow down with cond(M) as the coordinate descent does. Armijo line searches keep M
//   positive definite.
#pragma once

#include <optional>
#include <vector>

#include <Eigen/Core>

#include "kernlearn/core/parallel.hpp"
#include "kernlearn/core/status.hpp"
#include "kernlearn/core/types.hpp"
#include "kernlearn/linalg/dense_eigen.hpp"

namespace kernlearn {

// LAPACK / BLAS routines for the Cholesky factor and the inverse from it (LP64, Fortran calling
// convention), handed in by the binding (scipy's); Eigen stands in for any that is missing.
using PotrfFn = void (*)(char* uplo, int* n, double* a, int* lda, int* info);
using TrtriFn = void (*)(char* uplo, char* diag, int* n, double* a, int* lda, int* info);
using LauumFn = void (*)(char* uplo, int* n, double* a, int* lda, int* info);
using TrmmFn = void (*)(char* side, char* uplo, char* transa, char* diag, int* m, int* n, double* alpha, double* a,
                        int* lda, double* b, int* ldb);
using TrsmFn = TrmmFn;  // same signature

struct SpdRoutines {
  PotrfFn potrf = nullptr;
  // The inverse: a blocked triangular inverse (dtrtri on diagonal blocks, dtrmm / dtrsm off them)
  // then dlauum for L^-T L^-1. This is dpotri's algorithm, but OpenBLAS's single-threaded dtrtri
  // runs unblocked level-2 code at these sizes, slower than the blocked inverse
  // (bench/results/sice.md).
  TrtriFn trtri = nullptr;
  LauumFn lauum = nullptr;
  TrmmFn trmm = nullptr;
  TrsmFn trsm = nullptr;
  bool can_invert() const { return potrf && trtri && lauum && trmm && trsm; }
};

enum class SiceSolver { alm, newton };  // see the header comment

struct SiceOptions {
  SiceSolver solver = SiceSolver::newton;
  double tol = 1e-8;  // stop when gap <= tol * max(1, |F(M)|)
  Index max_iter = 1000;
  Index max_cg = 200;        // newton: conjugate-gradient iterations per step
  std::optional<double> mu;  // alm: fixed step (none: the step rule below)
  Index mu_period = 20;      // alm: iterations between step re-estimates (the adaptive rule's)
  double sigma = 0.0;        // alm: Nesterov smoothing of the l1 term (eq. 18); 0: no smoothing
  bool paper_mu = false;     // alm: mu = min(lambda^2, sigma) (the paper's) instead of the adaptive rule
  bool bounds = false;       // alm: Theorem 5's M, Y >= lambda I, lambda = 1 / (|S|_2 + |R|_2)
  DenseLapack dense_lapack;  // alm: LAPACK's eigensolver when available (Eigen's otherwise)
  // Every iteration factors M and Z and inverts M, O(m^3) each: LAPACK's when available
  // (faster than Eigen's; bench/results/sice.md).
  SpdRoutines lapack;
};

struct SiceResult {
  Eigen::MatrixXd precision;  // M: positive definite, exact zeros off its support, exactly symmetric
  Eigen::MatrixXd dual;       // Z: positive definite, |Z - S| <= R entrywise, exactly symmetric
  double primal = 0.0;        // F(M)
  double dual_value = 0.0;    // log det Z + m
  // false: no positive definite Z was found in the box (see find_dual_point in sice.cpp), so the
  // problem is taken to be unbounded below; nothing was solved and the other fields are empty.
  bool bounded = true;
  Index n_iter = 0;  // with several independent blocks (see solve_blocks), the hardest block's
  // converged (gap <= tol), max_iter, or not_converged (newton stalled: no step decreased F).
  SolverStatus status = SolverStatus::max_iter;
  // (F(M) - best dual value so far) / max(1, |F(M)|) after each iteration. newton factors a dual
  // point only once a cheap estimate says it may meet tol, so its early entries lag the true gap.
  // With several blocks, the hardest block's.
  std::vector<double> relative_gaps;
};

// S and R symmetric m x m, R >= 0 (R_ii = 0 leaves the diagonal unpenalised), tol > 0 and
// max_iter >= 0: the caller's checks. M0 is the start (positive definite; none: diag(1 / S_ii)).
// The connected components of |S_ij| > R_ij are solved one by one (the solution is block diagonal
// over them). Throws std::invalid_argument if the start is not positive definite (without M0:
// some S_ii <= 0, when no dual point exists either, as Z_ii = S_ii with R_ii = 0),
// std::runtime_error on numerical breakdown. An unbounded problem is reported by
// SiceResult::bounded.
SiceResult solve_sice(const Eigen::MatrixXd& S, const Eigen::MatrixXd& R, const std::optional<Eigen::MatrixXd>& M0,
                      const SiceOptions& options, const InterruptPoll& poll = {});

}  // namespace kernlearn
