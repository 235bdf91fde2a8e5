// Every dense-versus-iterative threshold and solver-choice rule of the C++ library, once. Each
// constant states the decision; the measurements that set it are in the results file named
// beside it. The Python layer's counterpart is python/kernlearn/_utils/_solver_choice.py; no value
// is stated in both (options structs take their defaults from here).
#pragma once

#include "kernlearn/core/types.hpp"

namespace kernlearn::solver_choice {

// kNN, algorithm "auto": brute force below this many points (no tree to build), else the kd-tree
// up to this dimension and the blocked brute force above. Figures: bench/results/knn.md.
constexpr Index kKdTreeMinN = 256;
constexpr Index kKdTreeMaxDim = 8;

// Dense tridiagonal solves: MRRR instead of divide and conquer when at most this part of the
// pairs is wanted. Figures: bench/results/solver_choice.md.
constexpr double kMrrrFraction = 0.1;

// The mixed-precision dense route's Rayleigh-Ritz step costs O(n k^2 + k^3) for k kept pairs:
// above this part of n the double-precision route is taken instead.
constexpr double kMixedMaxFraction = 0.5;

// Chebyshev-filtered Lanczos: below this size the filter cannot pay for its estimate of a.
constexpr Index kMinFilteredSize = 64;

// Saddle-point solver: the Lanczos solve after an iterate of positive rank at most this runs
// unfiltered. Its basis is then at the 20-vector floor, so the products outweigh the
// orthogonalisation the filter saves: at rank 4 plain Lanczos takes 115 products a solve against
// 320 filtered, half the time; at rank 5 they tie, and from rank 32 up the filter is 1.4-1.7x
// faster (n = 30,000; bench/results/npkl_sequence.md, 2026-12-07). Ranks 6-31 were not measured,
// so the cut sits at the last measured rank where plain Lanczos does not lose.
constexpr Index kFilterMinRank = 5;

// Saddle-point solver (SimpleNPKL, embeddings), eigen_solver automatic: the positive-rank fraction
// of n from which LAPACK replaces Lanczos, and the n from which the dense solves are mixed
// precision (0 = never). Figures: bench/results/solver_choice.md.
constexpr double kSaddleDenseFraction = 0.05;
constexpr Index kMixedPrecisionMinN = 2000;

// Saddle-point Newton steps only from iterates of rank at most this fraction of n.
constexpr double kNewtonMaxRank = 0.25;

// KDAC's U-step: every eigenpair of the explicit Q (Eigen's dense solver) up to kFullEigenMaxN,
// an explicit Q with Lanczos up to kDenseMaxN (float storage from kFloatMinN), matrix-free
// beyond. Figures: bench/results/kdac.md.
constexpr Index kKdacFullEigenMaxN = 200;
constexpr Index kKdacFloatMinN = 4096;
constexpr Index kKdacDenseMaxN = 8192;

// Whether a kernel is stored (DenseKernel) or computed on the fly (KernelOperator) is decided
// before the core is called, by the memory rule dense_kernel_fits in _utils/_solver_choice.py (a
// stored kernel while it takes at most 16,000^2 doubles): every solver here takes whichever
// LinearOperator it is given. Figures: bench/results/kernel_operator.md.

// Lanczos with a ThreadTeam: below this many rows the mat-vecs and the Gram-Schmidt passes run on
// the calling thread alone (on an idle machine two threads lost at n = 1024, were within noise of
// one at 2048 (0.88 to 1.19 in three runs) and won from 3072 on: bench/results/threads.md, "small").
constexpr Index kTeamMinRows = 3072;

}  // namespace kernlearn::solver_choice
