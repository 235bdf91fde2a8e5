// KDAC's kernel sums at large n from low-rank kernels: the HsicSums of hsic.hpp at O(n w) per
// Phi(W) (w: the rank) instead of O(n^2 d), with no n x n array. KDAC's loop (methods/kdac.cpp) is
// unchanged: it is handed these sums instead of LocalHsicSums.
//
// Phi(W), Tr(gamma K) from a factored kernel K ~ Phi S Phi' (Phi: n x w, S: w x w). For
// gamma = A diag(c) A' (A: n x m):
//   G = gamma o K = sum_r c_r (a_r o Phi) S (a_r o Phi)'
//   X' G X   = sum_r c_r B_r S B_r',      B_r = X' diag(a_r) Phi   (d x w),
//   G 1      = sum_r c_r a_r o (Phi S v_r),   v_r = Phi' a_r        (so diag(G 1) needs V first),
//   Tr(gamma K) = 1'G1 = sum_r c_r v_r' S v_r,
// and Phi(W) = (2 / sigma^2) X'(diag(G1) - G)X as in hsic.hpp: two passes over row blocks, O(n m d w)
// flops, the block of Phi recomputed in the second pass (O(b w) memory per thread, not O(n w)).
// Two factorisations:
//
// * Nystrom (Williams & Seeger, NIPS 2000), the default: M landmark rows L chosen by the caller,
//   Phi = C = K(Z, Z_L), S = K_LL^+ (the eigenpairs above kNystromRcond x the largest), w = M.
// * Random Fourier features (Rahimi & Recht, NIPS 2007): F frequencies omega_s ~ N(0, I_d) drawn
//   once (every W-step sees the same smooth surrogate), projected as W' omega_s / sigma ~
//   N(0, I_q / sigma^2) for an orthonormal W (so the features depend on span W only, as the
//   kernel does), Phi = [cos(omega_s' W'x / sigma), sin(omega_s' W'x / sigma)]_s / sqrt(F),
//   S = I, w = 2F: each entry unbiased within O(1 / sqrt F) (Hoeffding).
//   Phi(W) is a difference of two large terms (X'diag(G1)X and X'GX), and their independent
//   O(1 / sqrt F) errors do not cancel: at the exact fixed point on LG1000 (q = 2, eigengap 0.24,
//   |Phi| = 328) the random-feature Phi (F = 256) was 3e-2 off, relative, and its q smallest
//   eigenvectors 0.11 from W*, where Nystrom on 50 landmarks was 2e-8 and 2e-7 off; that fit did
//   not converge in 100 iterations (bench/results/kdac_scale.md, sections c and f), hence Nystrom.
//
// The right side of inequality (10), sum_ij |gamma_ij| K_ij |x_i - x_j|^4 / sigma^2, has |gamma|,
// which no low-rank form carries: it is estimated from kLowRankBoundPairs ordered pairs drawn
// uniformly (exact K and gamma on each), all pairs when there are no more than that.
//
// kernel(W, sigma) (the degrees and the U-step): the Nystrom kernel C K_LL^+ C' (C stored, n x M)
// plus the diagonal correction diag(1 - (C K_LL^+ C')_ii), so K_ii = 1 exactly, as the true
// kernel's: a point far from every landmark keeps degree ~ 1 instead of ~ 0. A product costs
// O(n M) per column.
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

// Throws std::invalid_argument naming n_landmarks / landmarks unless they are 1 <= M <= n distinct
// rows in [0, n).
void check_low_rank(Index n, const std::vector<Index>& landmarks);

// hsic_phi by random Fourier features: F frequencies drawn from seed (the same seed and q give
// the same features). with_bound: the sampled estimate of (10)'s right side (seed too).
PhiResult hsic_phi_rff(const MatrixRef& X, const Eigen::Ref<const Eigen::MatrixXd>& W, const MatrixRef& A,
                       const Eigen::Ref<const Eigen::VectorXd>& c, double sigma, Index n_frequencies,
                       std::uint64_t seed, bool with_bound, ThreadTeam& team, const InterruptPoll& poll = {});

// hsic_phi from the Nystrom kernel on the landmark rows. with_bound: the sampled estimate (seed).
PhiResult hsic_phi_nystrom(const MatrixRef& X, const Eigen::Ref<const Eigen::MatrixXd>& W, const MatrixRef& A,
                           const Eigen::Ref<const Eigen::VectorXd>& c, double sigma,
                           const std::vector<Index>& landmarks, std::uint64_t seed, bool with_bound, ThreadTeam& team,
                           const InterruptPoll& poll = {});

// The Nystrom kernel operator of Z = X W on the landmark rows (with the diagonal correction).
std::unique_ptr<LinearOperator> nystrom_kernel(const MatrixRef& X, const Eigen::Ref<const Eigen::MatrixXd>& W,
                                               double sigma, const std::vector<Index>& landmarks, ThreadTeam& team,
                                               const InterruptPoll& poll = {});

// The sums over a column-centred X held here: Nystrom (n_frequencies = 0) or random features for
// phi(), Nystrom for kernel().
class LowRankHsicSums final : public HsicSums {
 public:
  LowRankHsicSums(const MatrixRef& Xc, Index n_frequencies, std::vector<Index> landmarks, std::uint64_t seed,
                  ThreadTeam& team, InterruptPoll poll);
  Index rows() const override { return Xc_.rows(); }
  void set_weights(const RowMatrixXd& A, const Eigen::VectorXd& c) override {
    A_ = A;
    c_ = c;
  }
  PhiResult phi(const Eigen::MatrixXd& W, double sigma, bool with_bound) override;
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
