// Thick-restart Lanczos (Wu & Simon, SIAM J. Matrix Anal. Appl. 22(2), 2000) with full
// reorthogonalisation, for a few extreme eigenpairs of a symmetric operator.
//
// Each cycle extends the basis to ncv vectors by Lanczos steps, each made orthogonal to the whole
// basis: the three-term part first, then classical Gram-Schmidt against every vector, repeated
// only when it cancelled much (DGKS). The coefficients give the projected matrix H column by
// column. It then solves the small eigenproblem of H and restarts from the best Ritz vectors plus
// the last Lanczos vector. That restart keeps the Krylov relation A V = V H + beta v e', so the
// residual of a Ritz pair (theta, s) is beta |s_last| without touching A. Wanted pairs that have
// converged well below tol are locked: they stay in the basis unrotated and out of the small
// eigenproblem, their couplings counted in the other pairs' residuals.
#pragma once

#include <cstdint>

#include <Eigen/Core>

#include "kernlearn/core/parallel.hpp"
#include "kernlearn/core/thread_team.hpp"
#include "kernlearn/core/types.hpp"
#include "kernlearn/linalg/operator.hpp"

namespace kernlearn {

struct LanczosOptions {
  Index k = 6;          // eigenpairs wanted; in threshold mode, the first guess
  bool largest = true;  // largest (LA) or smallest (SA) algebraic eigenvalues
  bool threshold_mode = false;
  double threshold = 0.0;  // threshold mode: every eigenvalue > threshold (LA) / < (SA)
  Index max_rank = 0;      // threshold mode: at most this many pairs (0 = n)
  Index ncv = 0;           // basis size, k < ncv <= n (0 = k + max(20, 0.6 k))
  double tol = 1e-10;      // converged when residual <= tol * |A|_est (largest |Ritz value|)
  Index max_matvec = 0;    // 0 = 100 * n, effectively unlimited
  std::uint64_t seed = 0;  // for the vectors that replace a Krylov basis that became invariant
};

enum class LanczosStatus { converged = 0, not_converged = 1, max_rank_reached = 2 };

struct LanczosResult {
  Eigen::VectorXd values;     // LA: decreasing; SA: increasing
  Eigen::MatrixXd vectors;    // n x (number found), orthonormal columns
  Eigen::VectorXd residuals;  // |A v - lambda v| estimates, one per pair
  Index n_matvec = 0;
  Index n_restart = 0;
  Index n_locked = 0;  // pairs of a warm block locked without Lanczos steps (not later locks)
  double norm_estimate = 0.0;
  LanczosStatus status = LanczosStatus::not_converged;
  bool filtered = false;  // the pairs came from a Chebyshev filter (chebyshev_filter.hpp)
};

// start: one vector, or a block (b > 1: the eigenvectors of an earlier, similar problem). A block
// gets one Rayleigh-Ritz step; the Ritz pairs that already meet 1% of tol are locked, and Lanczos
// starts from the sum of the others (no component along the earlier unwanted eigenvectors). An
// orthonormal block that one product shows to be far from invariant skips the step and Lanczos
// starts from the sum of its columns.
// The basis products run on `team` (share it with the operator's).
LanczosResult lanczos(const SymmetricOperator& A, const Eigen::MatrixXd& start, const LanczosOptions& options,
                      ThreadTeam& team, const InterruptPoll& poll = {});

}  // namespace kernlearn
