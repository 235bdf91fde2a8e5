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
#include <limits>
#include <optional>

#include <Eigen/Core>

#include "kernlearn/core/parallel.hpp"
#include "kernlearn/core/status.hpp"
#include "kernlearn/core/thread_team.hpp"
#include "kernlearn/core/types.hpp"
#include "kernlearn/linalg/operator.hpp"

namespace kernlearn {

// Which end of the spectrum is wanted.
enum class LanczosWhich { largest, smallest };  // largest (LA) or smallest (SA) algebraic eigenvalues

// The Chebyshev filter's default degree: the best measured on the Adult-like top 200 (figures in
// bench/results/npkl.md); odd (see chebyshev_filter.hpp).
constexpr int kFilterDegree = 5;
// The largest degree accepted: beyond it p overflows for pairs a few widths past the level.
constexpr int kMaxFilterDegree = 99;

// Lanczos on a degree-`degree` Chebyshev polynomial of A (chebyshev_filter.hpp) that damps the
// spectrum on the unwanted side of `level`.
struct LanczosFilter {
  double level = 0.0;  // on the unwanted side of the wanted pairs; in threshold mode at or beyond the threshold
  int degree = kFilterDegree;
};

struct LanczosOptions {
  Index k = 6;  // eigenpairs wanted; in threshold mode, the first guess of the count
  LanczosWhich which = LanczosWhich::largest;
  // Threshold mode when set: every eigenvalue > threshold (largest) / < threshold (smallest).
  std::optional<double> threshold;
  std::optional<Index> max_rank;        // threshold mode: at most this many pairs (none: n)
  std::optional<Index> ncv;             // basis size, k < ncv <= n (none: k + max(20, 0.6 k))
  double tol = 1e-10;                   // converged when residual <= tol * |A|_est (largest |Ritz value|)
  std::optional<Index> max_matvec;      // none: 100 n, effectively unlimited
  std::uint64_t seed = 0;               // for the vectors that replace a Krylov basis that became invariant
  std::optional<LanczosFilter> filter;  // Chebyshev-filtered Lanczos (filtered_lanczos) when set

  bool largest() const { return which == LanczosWhich::largest; }
};

// status: converged (every wanted pair met tol), max_iter (the max_matvec budget ran out first;
// the pairs are returned as found with their residuals). In threshold mode with max_rank, finding
// max_rank + 1 converged pairs beyond the threshold stops the solve early: status converged,
// max_rank_reached true, and the max_rank most extreme pairs returned.
struct LanczosResult {
  Eigen::VectorXd values;     // largest: decreasing; smallest: increasing
  Eigen::MatrixXd vectors;    // n x (number found), orthonormal columns
  Eigen::VectorXd residuals;  // |A v - lambda v| estimates, one per pair
  Index n_matvec = 0;
  Index n_restart = 0;
  Index n_locked = 0;  // pairs of a warm block locked without Lanczos steps (not later locks)
  double norm_estimate = 0.0;
  SolverStatus status = SolverStatus::max_iter;
  bool max_rank_reached = false;  // more than max_rank pairs lie beyond the threshold
  bool filtered = false;          // the pairs came from a Chebyshev filter (chebyshev_filter.hpp)
  // Threshold mode: the converged Ritz pair at or below the threshold that certified the rest
  // (its value and residual; NaN when the solve found all n pairs, hit its cap or was filtered).
  double beyond_value = std::numeric_limits<double>::quiet_NaN();
  double beyond_residual = std::numeric_limits<double>::quiet_NaN();
};

// Throws std::invalid_argument (naming the option) unless A has a row, start is finite with n
// rows, 0 < k < n (threshold mode: k <= n), k < ncv <= n, threshold is not NaN, max_rank,
// max_matvec >= 1, tol is positive and finite and the filter's level finite and its degree odd
// and at most kMaxFilterDegree. lanczos and solve_lanczos call it.
void check_lanczos_options(const LinearOperator& A, const Eigen::MatrixXd& start, const LanczosOptions& options);

// start: one vector, or a block (b > 1: the eigenvectors of an earlier, similar problem). A block
// gets one Rayleigh-Ritz step; the Ritz pairs that already meet 1% of tol are locked, and Lanczos
// starts from the sum of the others (no component along the earlier unwanted eigenvectors). An
// orthonormal block that one product shows to be far from invariant skips the step and Lanczos
// starts from the sum of its columns.
// The basis products run on `team` (share it with the operator's).
LanczosResult lanczos(const LinearOperator& A, const Eigen::MatrixXd& start, const LanczosOptions& options,
                      ThreadTeam& team, const InterruptPoll& poll = {});

// lanczos on P, a Chebyshev filter polynomial of A (chebyshev_filter.cpp calls it): the same
// iteration with the smaller restart buffer a filtered spectrum needs (the wanted pairs of P are
// far above the rest, so the extra Lanczos vectors buy fewer products than they cost in
// orthogonalisation).
LanczosResult lanczos_on_filter(const LinearOperator& P, const Eigen::MatrixXd& start, const LanczosOptions& options,
                                ThreadTeam& team, const InterruptPoll& poll = {});

}  // namespace kernlearn
