// KDAC alternative clustering (Niu, Dy & Jordan 2014) solved by the iterative spectral method of
// Wu et al. (AISTATS 2018): alternate W (ISM, Algorithm 2), D (degrees) and U (spectral step,
// eq. 3) until both subspaces stop moving. The k-means on U is left to the caller.
//
// The paper's errata and the choices that are ours are listed for users in KDAC's docstring
// (python/kernlearn/cluster/_kdac.py, Notes); the comments here say how, and point there.
// The paper's q rule (n_components="auto"), its (sigma, lambda) search and n_views run in Python
// on top of kdac() below.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include <Eigen/Core>

#include "kernlearn/core/monitor.hpp"
#include "kernlearn/core/parallel.hpp"
#include "kernlearn/core/solver_choice.hpp"
#include "kernlearn/core/status.hpp"
#include "kernlearn/core/thread_team.hpp"
#include "kernlearn/core/types.hpp"
#include "kernlearn/kernels/hsic.hpp"
#include "kernlearn/kernels/hsic_lowrank.hpp"

namespace kernlearn {

struct IsmOptions {
  double sigma = 1.0;        // Gaussian kernel bandwidth
  Index max_iter = 30;       // ISM iterations (Phi evaluations)
  double tol = 1e-6;         // stop when the projection distance between iterates is <= tol
  Index anderson_depth = 0;  // Anderson acceleration depth (0 = the plain iteration of Algorithm 2)
};

struct IsmResult {
  Eigen::MatrixXd W;                  // d x q, orthonormal, signs fixed
  Eigen::VectorXd eigenvalues;        // all eigenvalues of the last Phi evaluated, ascending
  std::vector<double> trace_gamma_k;  // Tr(gamma K(W_s)) for every W_s whose Phi was formed
  std::vector<double> distance;       // projection distance between successive iterates
  Index n_iter = 0;
  // converged: an iterate moved <= tol; max_iter; not_converged: a 2-cycle outlasted
  // kMaxDampedSteps and the better end was kept (cycled is then true).
  SolverStatus status = SolverStatus::max_iter;
  Index n_damped = 0;   // steps to the subspace between the ends of a 2-cycle
  bool cycled = false;  // a 2-cycle outlasted kMaxDampedSteps and the better end was kept
};

// Steps to the middle of a period-2 cycle that one W-step may take before keeping an end.
constexpr Index kMaxDampedSteps = 5;

// Algorithm 2: W <- the q eigenvectors of Phi(W) with the smallest eigenvalues, from W0 (d x q),
// with gamma = A diag(c) A' fixed. Stops when the projection distance between iterates is <= tol.
//
// Two-cycle. With noise dimensions (the LG and MoonN data) the iteration can alternate between two
// (nearly orthogonal) subspaces, W_{s+1} ~ W_{s-1} != W_s; comparing the raw eigenvector matrices,
// as the authors' code does, misses this (signs flip too). When dist(W_{s+1}, W_{s-1}) is below
// max(tol, 1e-3 dist(W_{s+1}, W_s)) the cycle is declared and the end with the larger
// Tr(gamma K) (the smaller cost (4a)) is kept.
//
// Acceleration. With anderson_depth > 0 the steps are Anderson-accelerated on the projectors W W'
// (depth = the number of past residual differences used) while the fixed-point residual shrinks;
// the fixed points are the same. 0 = the plain iteration of Algorithm 2.
IsmResult ism(const MatrixRef& X, const Eigen::Ref<const Eigen::MatrixXd>& W0, const MatrixRef& A,
              const Eigen::Ref<const Eigen::VectorXd>& c, const IsmOptions& options, ThreadTeam& team,
              const InterruptPoll& poll = {});

// The same on the sums of a column-centred X held anywhere (X's own sums: LocalHsicSums).
IsmResult ism(HsicSums& sums, const Eigen::Ref<const Eigen::MatrixXd>& W0, const RowMatrixXd& A,
              const Eigen::VectorXd& c, const IsmOptions& options);

struct KdacOptions {
  Index n_clusters = 2;    // k
  std::optional<Index> q;  // subspace dimension; none = the largest eigengap (11) of Phi_0 ("init-gap")
  double sigma = 1.0;
  double lambda = 1.0;
  // lambda relative to the two terms' scales at the start: the effective weight is
  // lambda x HSIC(X, U_0) / HSIC(X, Y), both in the full space (W = I) where U_0 is found, so
  // lambda = 1 weighs the novelty term as much as the clustering term there. false: lambda as is
  // (the paper's, whose Y is 0/1 and whose HSIC(X, Y) is of order n times HSIC(X, U)).
  bool lambda_relative = false;
  Index max_iter = 100;  // outer (W, D, U) iterations
  Index ism_max_iter = 30;
  Index anderson_depth = 0;     // ISM acceleration (0 = plain Algorithm 2; the estimator exposes it)
  double tol = 1e-6;            // projection distance of W and of U between outer iterations
  double ism_tol_factor = 0.1;  // W-step t is solved to max(tol, factor x dist_w of step t-1); 0 = exact
  Index dense_max_n =
      solver_choice::kKdacDenseMaxN;  // U-step on an explicit n x n matrix up to here, matrix-free beyond
  double eig_tol = 1e-10;             // Lanczos residual tolerance of the U-step
  std::uint64_t seed = 0;             // Lanczos starts; the random features' frequencies
  // The low-rank path (hsic_lowrank.hpp) when landmarks are given: the degrees and the U-step
  // (always matrix-free) from the Nystrom kernel on these rows, and Phi(W) from it too, or from
  // n_random_features random Fourier frequencies when that is > 0. No landmarks: the exact sums.
  std::vector<Index> landmarks;
  Index n_random_features = 0;
};

struct KdacIteration {
  double cost = 0.0;                  // HSIC(XW, U) - lambda HSIC(XW, Y), eq. (2a), after this iteration
  double quality = 0.0;               // HSIC(XW, U) = Tr(U' Q U)
  double hsic_y = 0.0;                // HSIC(XW, Y) = Tr(Y' Q Y) (all existing clusterings)
  double dist_w = 0.0, dist_u = 0.0;  // projection distances to the previous iteration
  Index ism_iter = 0;
  bool ism_cycled = false;
  Index ism_damped = 0;
  Index matvecs = 0;  // kernel mat-vecs of the U-step (0 when dense)
};

struct KdacResult {
  Eigen::MatrixXd W, U;
  Eigen::MatrixXd W_init;  // the starting W (eq. 12, or the caller's W0)
  Eigen::VectorXd degree;
  Eigen::VectorXd init_eigenvalues;  // of the spectral-initialisation matrix Phi_0, ascending (empty: given W0)
  Eigen::VectorXd phi_eigenvalues;   // of Phi(W*) with the final gamma, ascending
  Index q = 0;
  double cost = 0.0, quality = 0.0, hsic_y = 0.0;
  double lambda_effective = 0.0;            // the weight used: lambda, times the start's scale ratio if lambda_relative
  double eigengap = 0.0;                    // eq. (11) at the fixed point (NaN when q = d)
  double sigma_lhs = 0.0, sigma_rhs = 0.0;  // the two sides of inequality (10)
  double fixed_point_residual = 0.0;        // |Phi(W) W - W Lambda|_F / |Phi|_F with the final gamma
  Index n_iter = 0;
  // converged: W and U both moved <= tol; max_iter; not_converged: the alternation ended on a
  // cycle (outer_cycled); interrupted: the monitor asked to stop.
  SolverStatus status = SolverStatus::max_iter;
  bool ism_cycled = false;    // some W-step ended on a 2-cycle
  bool outer_cycled = false;  // the (W, D, U) alternation ended on a cycle (best state kept)
  Index cycle_period = 0;     // its period (2 to 4), 0 if none
  bool used_dense = false;
  std::vector<KdacIteration> history;
};

// X: n x d data; Y: n x k_y stacked one-hot indicators of the existing clustering(s); W0: the d x q
// start (random initialisation), or none for the spectral initialisation (12) with options.q.
// The monitor is called after each outer iteration with its number (from 1). sums: the kernel
// sums of the column-centred X when they are computed elsewhere (a cluster's, through the
// bindings), else null for X's own (LocalHsicSums); X itself (n x d) is needed either way, for
// the spectral start (12) and the explicit U-steps up to options.dense_max_n points.
KdacResult kdac(const MatrixRef& X, const MatrixRef& Y, const std::optional<MatrixRef>& W0, const KdacOptions& options,
                ThreadTeam& team, const Monitor<KdacIteration>& monitor = {}, const InterruptPoll& poll = {},
                HsicSums* sums = nullptr);

}  // namespace kernlearn
