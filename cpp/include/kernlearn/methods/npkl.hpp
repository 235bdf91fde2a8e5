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

#include "kernlearn/core/thread_team.hpp"
#include "kernlearn/core/types.hpp"
#include "kernlearn/linalg/chebyshev_filter.hpp"
#include "kernlearn/methods/saddle_point.hpp"
#include "kernlearn/neighbors/graph.hpp"

namespace kernlearn {

enum class NpklLoss { linear, squared_hinge, hinge, square };

// The saddle-point solver's options plus the loss. simple_npkl runs the Lanczos solves on a
// degree-kFilterDegree Chebyshev filter of A (chebyshev_filter.hpp) whatever spectral.filter_degree
// says: it pays on the Laplacian's wide negative spectrum (figures: bench/results/npkl.md).
// The range of C simple_npkl accepts (std::invalid_argument outside): rho = 2 / C stays finite.
constexpr double kMinC = 1e-300, kMaxC = 1e300;

struct NpklOptions {
  NpklLoss loss = NpklLoss::squared_hinge;
  double C = 0.3;  // the estimator's default (bench/results/simplenpkl_table2.md)
  SpectralOptions spectral;
};

// L: the graph Laplacian (CSR, sorted indices, symmetric); pairs: m x 2 distinct unordered pairs
// with i != j; labels: m values in {+1, -1}. In saddle_point.hpp's terms: M = -L, entry pairs,
// R = diag(labels), w = 2, rho = 2 / C (hinge: 0, box [0, C]), alpha0 = C (so the first iterate
// is the linear-loss solution, which has a positive part whenever any constraint does).
SaddleResult simple_npkl(const Csr& L, const Eigen::Ref<const RowMatrixXi>& pairs,
                         const Eigen::Ref<const Eigen::VectorXd>& labels, const NpklOptions& options, ThreadTeam& team,
                         const Monitor<SaddleIteration>& monitor = {}, const InterruptPoll& poll = {},
                         const Eigen::MatrixXd& basis = {});

}  // namespace kernlearn
