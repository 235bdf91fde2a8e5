// KDAC's kernel sums at large n from low-rank kernels: the HsicSums of hsic.hpp at O(n D) per
// Phi(W) instead of O(n^2 d), with no n x n array. KDAC's loop (methods/kdac.cpp) is unchanged:
// it is handed these sums instead of LocalHsicSums.
//
// Phi(W), Tr(gamma K) (ISM's sums): random Fourier features (Rahimi & Recht, NIPS 2007) of the
// Gaussian kernel of Z = X W. With F frequencies omega_s ~ N(0, I_d) drawn once (every W-step sees
// the same smooth surrogate of the kernel), projected as W' omega_s / sigma ~ N(0, I_q / sigma^2)
// for an orthonormal W (so the features depend on span W only, as the kernel does), and
//   phi(z) = [cos(omega_s' W z / sigma), sin(omega_s' W z / sigma)]_s / sqrt(F)   (2F columns),
// K_ij ~ phi(z_i)' phi(z_j) = mean_s cos(omega_s'(z_i - z_j)), unbiased, exact on the diagonal,
// each entry within O(1 / sqrt F) (Hoeffding: every term lies in [-1, 1]). Then for
// gamma = A diag(c) A' (A: n x m) and Phi = product F_Z (n x 2F):
//   G = gamma o K = sum_r c_r (a_r o Phi)(a_r o Phi)'          (rank m 2F),
//   X' G X   = sum_r c_r B_r B_r',    B_r = X' diag(a_r) Phi   (d x 2F),
//   G 1      = sum_r c_r a_r o (Phi v_r),   v_r = Phi' a_r     (so diag(G 1) needs V first),
//   Tr(gamma K) = 1'G1 = sum_r c_r |v_r|^2,
// and Phi(W) = (2 / sigma^2) X'(diag(G1) - G)X as in hsic.hpp: two passes over row blocks, O(n m d F)
// flops, the feature block recomputed in the second pass (O(b F) memory per thread, not O(n F)).
//
// The right side of inequality (10), sum_ij |gamma_ij| K_ij |x_i - x_j|^4 / sigma^2, has |gamma|,
// which no low-rank form carries: it is estimated from kLowRankBoundPairs ordered pairs drawn
// uniformly (exact K and gamma on each), all pairs when there are no more than that.
//
// kernel(W, sigma) (the degrees and the U-step): the Nystrom approximation (Williams & Seeger,
// NIPS 2000) on M landmark rows L chosen by the caller, K ~ C K_LL^+ C' with C = K(Z, Z_L) (n x M,
// stored) plus the diagonal correction diag(1 - (C K_LL^+ C')_ii), so K_ii = 1 exactly, as the
// true kernel's: a point far from every landmark keeps degree ~ 1 instead of ~ 0. K_LL^+ keeps the
// eigenpairs above kNystromRcond x the largest. A product costs O(n M) per column.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include <Eigen/Core>

#include "kernlearn/core/parallel.hpp"
#include "kernlearn/core/thread_team.hpp"
#include "kernlearn/core/types.hpp"
#include "kernlearn/kernels/hsic.hpp"
#include "kernlearn/linalg/operator.hpp"

namespace kernlearn {

// Ordered pairs sampled for the bound of (10) on the low-rank path.
constexpr Index kLowRankBoundPairs = Index(1) << 20;

// Relative cut of the eigenvalues of K_LL in the Nystrom pseudo-inverse.
constexpr double kNystromRcond = 1e-10;

// Throws std::invalid_argument naming n_random_features / n_landmarks unless 1 <= F, and the
// landmarks are 1 <= M <= n distinct rows in [0, n).
void check_low_rank(Index n, Index n_frequencies, const std::vector<Index>& landmarks);

// hsic_phi by random Fourier features: F frequencies drawn from seed (the same seed and q give
// the same features). with_bound: the sampled estimate of (10)'s right side (seed too).
PhiResult hsic_phi_rff(const MatrixRef& X, const Eigen::Ref<const Eigen::MatrixXd>& W, const MatrixRef& A,
                       const Eigen::Ref<const Eigen::VectorXd>& c, double sigma, Index n_frequencies,
                       std::uint64_t seed, bool with_bound, ThreadTeam& team, const InterruptPoll& poll = {});

// The Nystrom kernel operator of Z = X W on the landmark rows (with the diagonal correction).
std::unique_ptr<LinearOperator> nystrom_kernel(const MatrixRef& X, const Eigen::Ref<const Eigen::MatrixXd>& W,
                                               double sigma, const std::vector<Index>& landmarks, ThreadTeam& team,
                                               const InterruptPoll& poll = {});

// The sums over a column-centred X held here: RFF for phi(), Nystrom for kernel().
class LowRankHsicSums final : public HsicSums {
 public:
  LowRankHsicSums(const MatrixRef& Xc, Index n_frequencies, std::vector<Index> landmarks, std::uint64_t seed,
                  ThreadTeam& team, InterruptPoll poll);
  Index rows() const override { return Xc_.rows(); }
  void set_weights(const RowMatrixXd& A, const Eigen::VectorXd& c) override {
    A_ = A;
    c_ = c;
  }
  PhiResult phi(const Eigen::MatrixXd& W, double sigma, bool with_bound) override {
    return hsic_phi_rff(Xc_, W, A_, c_, sigma, n_frequencies_, seed_, with_bound, team_, poll_);
  }
  std::unique_ptr<LinearOperator> kernel(const Eigen::MatrixXd& W, double sigma) override {
    return nystrom_kernel(Xc_, W, sigma, landmarks_, team_, poll_);
  }

 private:
  MatrixRef Xc_;
  Index n_frequencies_;
  std::vector<Index> landmarks_;
  std::uint64_t seed_;
  ThreadTeam& team_;
  InterruptPoll poll_;
  RowMatrixXd A_;
  Eigen::VectorXd c_;
};

}  // namespace kernlearn
