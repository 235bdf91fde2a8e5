"""Every dense-versus-iterative threshold and solver-choice rule of the Python layer, once.

Each constant states the decision; the measurements that set it are in the results file named
beside it. Code reads these as module attributes (``_solver_choice.DENSE_MAX_N``) at call time,
so a test can move a threshold with ``monkeypatch.setattr``. The C++ layer's counterpart is
``cpp/include/kernlearn/core/solver_choice.hpp``; no value is stated in both.
"""

# kernlearn.linalg.eigsh, method="auto": LAPACK up to this n, and above it whenever more than
# DENSE_FRACTION of the spectrum is wanted (or estimated, in threshold mode).
# Figures: bench/results/eigsh.md ("Crossovers").
DENSE_MAX_N = 300
DENSE_FRACTION = 0.1

# SimpleNPKL and the embeddings, eigen_solver="auto", up to DENSE_MAX_N points: the rank fraction
# from which the core switches from Lanczos to LAPACK. Figures: bench/results/solver_choice.md.
SMALL_N_DENSE_FRACTION = 0.12

# Largest n for which any "auto" rule forms a dense n x n matrix (1.9 GiB; the dense solver's
# peak is twice that). Above it, "auto" keeps to Lanczos. Figures: bench/results/solver_choice.md.
DENSE_LIMIT_N = 16_000


def dense_kernel_fits(n, itemsize):
    """Whether an estimator stores its n x n training kernel (entries of ``itemsize`` bytes) as a
    dense array rather than computing it on the fly (kernlearn.kernels.KernelOperator): while it
    takes at most the DENSE_LIMIT_N^2 doubles of every "auto" rule. Below that the stored kernel's
    products are 1.2-1.4 times faster than the on-the-fly ones at d = 10 (and much more at large d),
    which repays its formation within a few products; above it memory decides.
    Figures: bench/results/kernel_operator.md."""
    return n * n * itemsize <= 8 * DENSE_LIMIT_N**2


# krein_decomposition: every eigenpair from LAPACK up to this n (threshold-mode Lanczos restarts
# often when hundreds of small negative eigenvalues cluster near zero, as with TL1 kernels).
# Figures: bench/results/solver_choice.md.
SPECTRAL_DENSE_MAX_N = 2000

# S3ML's affinity propagation, method="dense": limited to this n (a few n x n float64 arrays,
# 200 MB each at the limit); "auto" takes the sparse series above it.
AFFINITY_DENSE_MAX_N = 5000

# MVE's Newton steps: up to this n, eigen_solver="auto" solves them densely from the start
# (Newton steps need the whole spectrum). Figures: bench/results/solver_choice.md.
NEWTON_DENSE_MAX_N = 1000

# MVE's init="auto" solves MVU first up to this n (MVU's first iterate has rank n - 1, so its
# solves are dense). Figures: bench/results/solver_choice.md.
MVU_INIT_MAX_N = 1000


# MVE, SPE and ColoredMVU, basis="auto": the exact problem up to this n; above it Section 5.4's
# restriction K = U E U' to the EMBEDDING_BASIS_SIZE smoothest eigenvectors of the kNN graph's
# Laplacian. Figures (time, memory and what the restriction costs): bench/results/scale.md.
EMBEDDING_EXACT_MAX_N = 500
EMBEDDING_BASIS_SIZE = 50


def embedding_basis(n, n_components):
    """basis="auto" of the embeddings: None (the exact problem) up to EMBEDDING_EXACT_MAX_N
    points, the basis size above it (at least n_components, at most the n - 1 non-constant
    eigenvectors)."""
    if n <= EMBEDDING_EXACT_MAX_N:
        return None
    return min(max(EMBEDDING_BASIS_SIZE, n_components), n - 1)


def auto_dense_fraction(n):
    """The positive-rank fraction of n from which the core's eigen_solver="auto" switches to a
    dense solve for the rest of the run; 1.0 (never: no rank exceeds n) above DENSE_LIMIT_N, so
    that no n x n matrix is formed there."""
    if n > DENSE_LIMIT_N:
        return 1.0
    return SMALL_N_DENSE_FRACTION if n <= DENSE_MAX_N else DENSE_FRACTION


def saddle_lanczos_max_rank(n):
    """SimpleNPKL above DENSE_LIMIT_N, where no dense matrix is formed: the largest positive rank
    that threshold-mode Lanczos may keep. Its two n x ncv bases (the basis and its restart spare,
    ncv about 1.6 times the rank, at least the rank + 20) take no more memory than the dense
    matrix "auto" allows below the limit (8 DENSE_LIMIT_N^2 bytes): 800 pairs at n = 10^5."""
    budget = 8 * DENSE_LIMIT_N**2 / (2 * 8 * n)  # columns the two bases may hold
    return max(1, min(n - 1, int(min(budget / 1.6, budget - 20))))


# KDAC, approximation="auto": the exact kernel sums up to this n; above it the Nystrom path (Phi(W),
# the degrees and the U-step from a Nystrom kernel on random landmarks: O(n M) per Phi, no n x n
# array). The exact fit is the faster up to 2,000 points (1.1-2.0 s against 2.5-3.2 s on the 2 x 2
# mixture) and the slower from 3,000 (15 s against 4.1 s). Figures (time, memory, NMI against the
# exact fit): bench/results/kdac_scale.md.
KDAC_EXACT_MAX_N = 2000


def kdac_approximation(n, approximation):
    """KDAC's path: "exact", "nystrom" or "rff"; "auto" is "nystrom" above KDAC_EXACT_MAX_N
    points, else "exact"."""
    if approximation != "auto":
        return approximation
    return "nystrom" if n > KDAC_EXACT_MAX_N else "exact"
