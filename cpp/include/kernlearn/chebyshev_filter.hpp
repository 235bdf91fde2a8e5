// Lanczos on a Chebyshev polynomial of A, for the eigenpairs of A above a level b when the
// spectrum below b is wide and those above it are close together (SimpleNPKL's A = C T - L:
// the Laplacian spreads the unwanted part over [-2, 0] or further, the wanted pairs sit within a
// few hundredths of each other near 0).
//
// p(x) = T_d((2x - a - b) / (b - a)) with a <= lambda_min(A): |p| <= 1 on [a, b], p(b) = 1, and
// p grows like cosh(d acosh(.)) above b, monotonically, so it keeps the order of the pairs above
// b and pushes them away from the unwanted ones. Lanczos on p(A) then needs a fraction of the
// steps (each step costs d products with A), and with them a fraction of the basis
// orthogonalisation and of the restarts, which dominate when A is sparse: measured in
// bench/bench_npkl.py (top 200 of the Adult-like A, and the n = 200 SDP comparison).
// The eigenvalues of A are the Rayleigh quotients of the eigenvectors found; their residuals
// are recomputed against A.
#pragma once

#include <Eigen/Core>

#include "kernlearn/lanczos.hpp"
#include "kernlearn/operator.hpp"
#include "kernlearn/thread_team.hpp"

namespace kernlearn {

// y = p(A) x by the three-term recurrence, d products with A.
class ChebyshevFilter final : public SymmetricOperator {
 public:
  ChebyshevFilter(const SymmetricOperator& A, double lower, double upper, int degree);
  Index rows() const override { return A_.rows(); }
  void apply(const Eigen::Ref<const Eigen::MatrixXd>& X, Eigen::Ref<Eigen::MatrixXd> Y) const override;

 private:
  const SymmetricOperator& A_;
  double scale_, centre_;  // (2x - a - b) / (b - a) = scale x - centre
  int degree_;
  mutable Eigen::MatrixXd previous_, product_;
};

// The top options.k eigenpairs of A (options.largest, not threshold mode), found by Lanczos on
// p(A) with b = level and the degree given (odd: p < -1 below a). `bottom` carries A's lowest
// eigenvector from one call to the next (empty: a random start), which estimates a cheaply. The
// pairs are checked against A: when one lies at or below b (where p does not keep the order),
// or misses tol |A|, or the filtered run did not converge, plain Lanczos finishes from them.
// Plain Lanczos alone when nothing lies below the level. n_matvec counts products with A.
LanczosResult filtered_lanczos(const SymmetricOperator& A, const Eigen::MatrixXd& start, const LanczosOptions& options,
                               double level, int degree, Eigen::VectorXd& bottom, ThreadTeam& team,
                               const InterruptPoll& poll = {});

}  // namespace kernlearn
