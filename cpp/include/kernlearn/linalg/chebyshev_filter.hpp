// Lanczos on a Chebyshev polynomial of A, for the eigenpairs of A beyond a level b when the
// spectrum on the other side of b is wide and the wanted pairs are close together (SimpleNPKL's
// A = C T - L: the Laplacian spreads the unwanted part over [-2, 0] or further, the wanted pairs
// sit within a few hundredths of each other above 0).
//
// p(x) = T_d((2x - a - b) / (b - a)) with a the far end of A's spectrum (its lowest eigenvalue
// when the largest pairs are wanted, its highest for the smallest): |p| <= 1 between a and b,
// p(b) = 1, and p grows like cosh(d acosh(.)) beyond b, monotonically, so it keeps the order of
// the pairs beyond b and pushes them away from the unwanted ones. Lanczos on p(A) then needs a
// fraction of the steps (each costs d products with A), and with them a fraction of the basis
// orthogonalisation and of the restarts, which dominate when A is sparse (bench/bench_npkl.py;
// figures in bench/results/npkl.md).
// The eigenvalues of A are the Rayleigh quotients of the eigenvectors found; their residuals
// are recomputed against A. An odd degree makes p < -1 beyond a, so an estimate of a that falls
// short of the true end cannot promote those pairs.
#pragma once

#include <Eigen/Core>

#include "kernlearn/core/thread_team.hpp"
#include "kernlearn/linalg/lanczos.hpp"
#include "kernlearn/linalg/operator.hpp"

namespace kernlearn {

// y = p(A) x by the three-term recurrence, d products with A.
class ChebyshevFilter final : public LinearOperator {
 public:
  ChebyshevFilter(const LinearOperator& A, double far, double level, int degree);
  Index rows() const override { return A_.rows(); }
  void apply(const Eigen::Ref<const Eigen::MatrixXd>& X, Eigen::Ref<Eigen::MatrixXd> Y) const override;

 private:
  const LinearOperator& A_;
  double scale_, centre_;  // (2x - a - b) / (b - a) = scale x - centre (either order of a, b)
  int degree_;
  mutable Eigen::MatrixXd previous_, current_, product_;
};

// The options.k eigenpairs of A at its options.which end, or in threshold mode every pair
// beyond options.threshold (which must lie at or beyond the filter's level: the caller's check),
// found by Lanczos on p(A) with b a little short of the level (5% of the spectrum's width on the
// unwanted side, so that pairs just there still come in order when fewer than k lie beyond the
// level, and so that p(threshold) stands clear of the band where p equioscillates, which the
// count must be certified against) and the filter's degree; options.filter must be set.
// `far_end` carries A's eigenvector at the other end from one call to the next (empty: a random
// start), which estimates a cheaply. The pairs are checked against A: when one lies on the
// unwanted side of b (where p does not keep the order), or misses tol |A|, or the filtered run
// did not converge within its cap (12 k + 200 products with p(A) by count), plain Lanczos
// finishes from them (result.filtered false). Plain Lanczos alone when nothing lies beyond the
// level on the unwanted side. n_matvec counts products with A.
LanczosResult filtered_lanczos(const LinearOperator& A, const Eigen::MatrixXd& start, const LanczosOptions& options,
                               Eigen::VectorXd& far_end, ThreadTeam& team, const InterruptPoll& poll = {});

// Plain Lanczos, or filtered_lanczos from a random estimate of the far end when options.filter
// is set: the one entry the bindings call. A warm block of at least k columns whose wanted Ritz
// pairs miss tol sets the filter itself (its k-th Ritz value as the level; the reasons and
// figures are at warm_block_filter in chebyshev_filter.cpp).
LanczosResult solve_lanczos(const LinearOperator& A, const Eigen::MatrixXd& start, const LanczosOptions& options,
                            ThreadTeam& team, const InterruptPoll& poll = {});

}  // namespace kernlearn
