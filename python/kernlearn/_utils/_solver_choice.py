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

# kernlearn.kernels.make_psd and negative_part: LAPACK (only the negative eigenpairs computed) up
# to this n, threshold-mode Lanczos above. A kernel's spectrum clusters near zero, where Lanczos
# converges slowly (an already PSD RBF kernel of 532 points took 53,205 products and did not
# converge), so the dense route wins far beyond DENSE_MAX_N; 3,000 is the largest size measured
# (the machine's load kept 5,000 out of a 10-minute run). Figures: bench/results/make_psd.md.
MAKE_PSD_DENSE_MAX_N = 3000

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

# S3ML, partners="auto": every pair among the labelled points (the paper's protocol) up to this
# many labelled points (124,750 pairs), S3ML_PARTNERS must-link and cannot-link partners per
# labelled point above (linear in the labelled count; from_labels' rule, SimpleNPKL's default).
# propagation_tol="auto": exact (1e-12 relative to theta) up to S3ML_EXACT_PROPAGATION_MAX_N
# points, S3ML_SCALE_PROPAGATION_TOL above: the pushes' cost grows with 1 / tol (2.8 s at 1e-2
# against 208 s at 1e-12, n = 10^4, 5 partners). Figures: bench/results/s3ml_scale.md.
S3ML_ALL_PAIRS_MAX_LABELLED = 500
S3ML_PARTNERS = 5
S3ML_EXACT_PROPAGATION_MAX_N = 5000
S3ML_SCALE_PROPAGATION_TOL = 1e-2


def s3ml_partners(labelled):
    """partners="auto" of S3ML for partially labelled y: None (every pair among the labelled
    points) up to S3ML_ALL_PAIRS_MAX_LABELLED labelled points, S3ML_PARTNERS above."""
    return None if labelled <= S3ML_ALL_PAIRS_MAX_LABELLED else S3ML_PARTNERS


def s3ml_propagation_tol(n):
    """propagation_tol="auto" of S3ML and tol="auto" of propagate_affinities: 1e-12 up to
    S3ML_EXACT_PROPAGATION_MAX_N points, S3ML_SCALE_PROPAGATION_TOL above."""
    return 1e-12 if n <= S3ML_EXACT_PROPAGATION_MAX_N else S3ML_SCALE_PROPAGATION_TOL


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


# IKLR, approximation="auto": the exact model up to IKLR_EXACT_MAX_N training points, the
# Nystrom model on IKLR_NYSTROM_CENTERS centres above (n_centers="auto"). On the diamonds table
# the Nystrom model's test accuracy equals the exact model's to 0.03 points from M = 250 on, at
# 2,000-30,000 points, and its fit is faster from about 5,000 points on (exact 18-45 s against
# 2-7 s at 10,000, one classifier; the scale benchmark's 5-class exact fit took 41 s at 10,000);
# on digits (64 features) M = 500 is 0.2 points short of exact and M = 100 1.8 points: 1,000
# leaves room for data of higher intrinsic dimension at O(n M) memory (800 MB at n = 10^5).
# Figures: bench/results/iklr_nystrom.md, bench/results/scale.md.
IKLR_EXACT_MAX_N = 5_000
IKLR_NYSTROM_CENTERS = 1000


def iklr_nystrom_centers(n):
    """n_centers="auto" of IKLR's Nystrom model: IKLR_NYSTROM_CENTERS, at most n."""
    return min(n, IKLR_NYSTROM_CENTERS)


# ESKL, EMKL and REKL, rank="auto": the dense fit (rank None, the paper's method) up to
# SIMILARITY_DENSE_MAX_N points, the fit restricted to the SIMILARITY_RANK leading eigenvectors
# above it (and always when the similarities are LinearOperators, which the dense fit cannot
# take). The dense fit costs an n x n eigendecomposition per kernel per iteration: 48-128 s for ESKL
# at n = 1,000 on the five-class mixture (8 times that per doubling; EMKL's did not finish in
# 600 s), where rank 10-50 took 1-5 s and were as accurate or more; 500 keeps the exact method
# where it takes seconds. Rank 30: as accurate as the dense fit at n = 1,000 (ESKL, REKL), and
# the block eigensolves of three 20,000-point KernelOperators (45 columns a product) keep the
# default fits within 120 s, where rank 50 (75 columns) took 94 s of eigensolves alone (rank 10
# was more accurate still on that mixture of five classes: the rank is a parameter to tune).
# Figures: bench/results/similarity_scale.md.
SIMILARITY_DENSE_MAX_N = 500
SIMILARITY_RANK = 30


def similarity_rank(n, operators):
    """rank="auto" of ESKL / EMKL / REKL: None (dense) up to SIMILARITY_DENSE_MAX_N points given
    as arrays, else SIMILARITY_RANK (at most n)."""
    if not operators and n <= SIMILARITY_DENSE_MAX_N:
        return None
    return min(n, SIMILARITY_RANK)


# The rank eigenpairs of a similarity operator (kernlearn.similarity._operators): above this n by
# block subspace iteration (one product with rank + max(SIMILARITY_BLOCK_OVERSAMPLE, rank / 2)
# columns a step, stopped at residuals <= SIMILARITY_BLOCK_TOL max |theta|, when the wanted Ritz
# values' energy grows by <= SIMILARITY_BLOCK_ENERGY_TOL, or after SIMILARITY_BLOCK_MAX_STEPS
# products: at n = 4,000 three power steps capture 0.9997 of the mean similarity's rank-50
# energy and 0.92 of TL1's, and one 75-column product of a 20,000-point KernelOperator takes
# about 6 s, so four steps on three similarities are what 120 s allow), below it by Lanczos on
# S^2 (single-column products, to eigsh's 1e-10, as before this rule; 2,000 is where a dense
# eigendecomposition still takes about a second, not a measured crossover of the two routes).
# Figures: bench/results/similarity_scale.md.
SIMILARITY_BLOCK_MIN_N = 2000
SIMILARITY_BLOCK_OVERSAMPLE = 10
SIMILARITY_BLOCK_TOL = 1e-4
SIMILARITY_BLOCK_ENERGY_TOL = 1e-3
SIMILARITY_BLOCK_MAX_STEPS = 4


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
