"""Similarities given as LinearOperators (e.g. :class:`kernlearn.distributed.KernelOperator`): the
input check and the rank-r eigenpairs that the fits restricted to a rank need from them.

Restricted to a rank, the estimators use S_i only through r eigenpairs and block products with
n x r matrices, so an operator that can be multiplied is enough: the r eigenpairs of largest
magnitude come from :func:`kernlearn.linalg.eigsh` (:func:`leading_eigenpairs`), and everything
afterwards is n x r. REKL and EMKL take those of each S_i (REKL learns their spectra, EMKL an
r x r kernel in their span); ESKL those of the mean similarity, an operator sum, followed by one
product S_i B per similarity (:mod:`kernlearn.similarity._oracles`).
"""

import numpy as np
import scipy.linalg
from scipy.sparse.linalg import LinearOperator, aslinearoperator

from .._utils import _solver_choice
from .._utils._validation import check_data, symmetrized
from ..linalg import eigsh

__all__ = [
    "holds_operators",
    "check_operators",
    "check_test_operators",
    "dense_leading_eigenpairs",
    "leading_eigenpairs",
]

# Relative asymmetry |u'Av - v'Au| / (||Au|| ||v|| + ||Av|| ||u||) above which an operator is
# refused as not symmetric. Rounding of a tiled product (KernelOperator) stays near n * eps; a
# genuinely non-symmetric operator gives O(1).
OPERATOR_SYMMETRY_RTOL = 1e-8


def holds_operators(S):
    """True when S is a LinearOperator or a list / tuple holding at least one."""
    if isinstance(S, LinearOperator):
        return True
    return isinstance(S, (list, tuple)) and any(isinstance(s, LinearOperator) for s in S)


def _asymmetry(A, rng):
    """Relative |u'Av - v'Au| for two random unit vectors: one product with an (n, 2) block."""
    n = A.shape[0]
    probe = rng.standard_normal((n, 2))
    probe /= np.linalg.norm(probe, axis=0)
    product = np.asarray(A.matmat(probe), dtype=np.float64)
    u, v = probe.T
    Au, Av = product.T
    scale = np.linalg.norm(Au) + np.linalg.norm(Av)
    if not np.isfinite(product).all():
        raise ValueError("the product of a similarity operator with a vector is not finite")
    return abs(u @ Av - v @ Au) / scale if scale > 0 else 0.0


def check_operators(S, rng, name="S"):
    """The m similarities as a list of symmetric (n, n) LinearOperators.

    S is one LinearOperator or a list / tuple of them; dense (n, n) arrays in the list are
    checked as in the dense path (symmetrised with a warning) and wrapped. Every operator must be
    real, square and of the same n, and pass a symmetry probe (one product with two random vectors).
    """
    items = [S] if isinstance(S, LinearOperator) else list(S)
    ops = []
    for i, s in enumerate(items):
        label = name if isinstance(S, LinearOperator) else f"{name}[{i}]"
        if isinstance(s, LinearOperator):
            if len(s.shape) != 2 or s.shape[0] != s.shape[1]:
                raise ValueError(f"{label} must be a square (n, n) operator, got shape {s.shape}")
            if s.shape[0] < 2:
                raise ValueError(f"{label} has shape {s.shape}; fit needs at least 2 points")
            if np.dtype(s.dtype).kind not in "biuf":
                raise TypeError(f"{label} must be a real operator, got dtype {s.dtype}")
            asymmetry = _asymmetry(s, rng)
            if not asymmetry <= OPERATOR_SYMMETRY_RTOL:
                raise ValueError(
                    f"{label} is not symmetric: |u'Av - v'Au| / (||Au|| + ||Av||) = {asymmetry:.3g} for random unit "
                    f"vectors u, v (the limit is {OPERATOR_SYMMETRY_RTOL:g}); similarities must be symmetric"
                )
            ops.append(s)
        else:
            dense = check_data(s, label)
            if dense.shape[0] != dense.shape[1]:
                raise ValueError(f"{label} must be square: each similarity matrix must be (n, n), got {dense.shape}")
            ops.append(aslinearoperator(symmetrized(dense, label)))
    shapes = {op.shape for op in ops}
    if len(shapes) > 1:
        raise ValueError(f"all similarities in {name} must have the same shape, got {sorted(shapes)}")
    return ops


def check_test_operators(S_test, m, n_train, name="S_test"):
    """The m test blocks (n_test, n_train) of decision_function as LinearOperators (dense blocks
    in the list are checked and wrapped)."""
    items = [S_test] if isinstance(S_test, LinearOperator) else list(S_test)
    if len(items) != m:
        raise ValueError(f"{name} holds {len(items)} similarity blocks, but the model was fitted with m = {m}")
    ops = []
    for i, s in enumerate(items):
        label = name if isinstance(S_test, LinearOperator) else f"{name}[{i}]"
        op = s if isinstance(s, LinearOperator) else aslinearoperator(check_data(s, label))
        if len(op.shape) != 2 or op.shape[1] != n_train:
            raise ValueError(
                f"{label} must have shape (n_test, {n_train}): the similarities of the new points to the "
                f"{n_train} fitted points; got shape {op.shape}"
            )
        if np.dtype(op.dtype).kind not in "biuf":
            raise TypeError(f"{label} must be a real operator, got dtype {op.dtype}")
        ops.append(op)
    shapes = {op.shape for op in ops}
    if len(shapes) > 1:
        raise ValueError(f"all similarity blocks in {name} must have the same shape, got {sorted(shapes)}")
    return ops


def _largest_magnitude(values, vectors, rank):
    """The rank pairs of largest |eigenvalue|, in ascending order of the eigenvalue (as eigh)."""
    keep = np.sort(np.argsort(-np.abs(values), kind="stable")[:rank])
    order = keep[np.argsort(values[keep], kind="stable")]
    return values[order], np.ascontiguousarray(vectors[:, order])


def diagonalised_in_full(S, rank):
    """Whether the fit takes the eigenpairs of the dense arrays S by LAPACK (all n, truncated to
    the rank): for the dense fit, and with a rank up to SIMILARITY_BLOCK_MIN_N points; above it a
    rank < n is taken from the arrays' products as from operators (:func:`leading_eigenpairs`), so
    that a large dense S costs block products, not an O(n^3) eigendecomposition per matrix."""
    if not isinstance(S[0], np.ndarray):
        return False
    n = S[0].shape[0]
    return rank is None or rank >= n or n <= _solver_choice.SIMILARITY_BLOCK_MIN_N


def as_operator(S):
    """A dense (n, n) array as a LinearOperator (an operator as it is)."""
    return S if isinstance(S, LinearOperator) else aslinearoperator(S)


def dense_leading_eigenpairs(S, rank, driver):
    """The rank pairs of largest magnitude of a dense symmetric S (all of them for rank None)."""
    values, vectors = scipy.linalg.eigh(S, check_finite=False, driver=driver)
    if rank is None or rank >= values.size:
        return values, vectors
    return _largest_magnitude(values, vectors, rank)


def block_leading_eigenpairs(A, rank, rng, driver, parts=None):
    """The rank eigenpairs of largest magnitude of the symmetric operator A by subspace iteration
    on a block of ``rank + max(SIMILARITY_BLOCK_OVERSAMPLE, rank // 2)`` columns (Rayleigh-Ritz at
    every step), ascending.

    Every step is one block product ``A @ Q``: a :class:`kernlearn.kernels.KernelOperator`
    computes its n^2 / 2 entries once per product whatever the number of columns, so a block of
    b columns costs a few single-column products, where Lanczos on A^2 needs about 2.3 rank
    single-column products (bench/results/similarity_scale.md). The step's product also gives
    the Ritz pairs of the block and their residuals ``||A u - theta u||``. It stops when the rank
    wanted residuals are below ``SIMILARITY_BLOCK_TOL * max |theta|``, when the energy of the
    wanted Ritz values (sum theta^2, the squared Frobenius norm of the compression) grew by at most
    ``SIMILARITY_BLOCK_ENERGY_TOL`` (relative) over the step, or after
    ``SIMILARITY_BLOCK_MAX_STEPS`` products. The pairs returned are then Ritz pairs, not converged
    eigenpairs when the spectrum decays slowly (TL1): an orthonormal basis of the block's leading
    directions, which is what the fit restricted to a rank needs (it measures every similarity
    in that basis by its own products, so its problem is exactly defined for any basis; figures
    of what the budget costs in accuracy in bench/results/similarity_scale.md). Power iteration
    on A amplifies by |lambda|, so pairs of both signs come in order of magnitude, as with
    Lanczos on A^2.

    ``parts``: A given as the mean of these operators (ESKL's mean similarity); each step then
    multiplies each part, and the last step's products are returned too, as a third value, the
    list of ``part @ vectors`` (ESKL's compressions need them: no further product).
    """
    n = A.shape[0]
    width = min(n, rank + max(_solver_choice.SIMILARITY_BLOCK_OVERSAMPLE, rank // 2))
    Q, _ = np.linalg.qr(rng.standard_normal((n, width)))
    energy = None
    for step in range(1, _solver_choice.SIMILARITY_BLOCK_MAX_STEPS + 1):
        if parts is None:
            Y = np.asarray(A.matmat(Q), dtype=np.float64)
        else:
            products = [np.asarray(p.matmat(Q), dtype=np.float64) for p in parts]
            Y = sum(products) / len(parts)
        H = Q.T @ Y
        theta, W = scipy.linalg.eigh((H + H.T) / 2.0, check_finite=False, driver=driver)
        keep = np.argsort(-np.abs(theta), kind="stable")[:rank]
        residual = np.linalg.norm(Y @ W[:, keep] - (Q @ W[:, keep]) * theta[keep], axis=0)
        scale = np.abs(theta).max()
        previous, energy = energy, float(np.sum(theta[keep] ** 2))
        if (
            step == _solver_choice.SIMILARITY_BLOCK_MAX_STEPS
            or residual.max() <= _solver_choice.SIMILARITY_BLOCK_TOL * scale
            or (previous is not None and energy - previous <= _solver_choice.SIMILARITY_BLOCK_ENERGY_TOL * energy)
        ):
            break
        Q, _ = np.linalg.qr(Y)
    values, rotation = _largest_magnitude(theta, W, rank)
    if parts is None:
        return values, Q @ rotation
    return values, Q @ rotation, [P @ rotation for P in products]


def leading_eigenpairs(A, rank, rng, driver, parts=None):
    """The rank eigenpairs of largest magnitude of the symmetric operator A, ascending.

    Small problems (n <= eigsh's DENSE_MAX_N, or rank above its DENSE_FRACTION of n: the cases
    where eigsh itself goes dense) are multiplied out with the identity and diagonalised by
    LAPACK, as the dense path does, so rank = n reproduces dense REKL. Otherwise Lanczos on A^2
    (scipy's product operator ``A.dot(A)``, two products with A per step): its rank largest
    eigenvalues are the squares of A's largest magnitudes, and their eigenspace is a sum of
    eigenspaces of A (those of lambda and -lambda), hence invariant under A, so the Rayleigh-Ritz
    step with A on it (a rank x rank eigenproblem, one block product) gives A's eigenpairs with
    their signs. Two Lanczos runs (largest and smallest algebraic) would cover the same pairs, but
    the smallest end of a positive semidefinite kernel (RBF) is a cluster at 0 that threshold-mode
    Lanczos does not rule out within thousands of products, while A^2 costs less than twice the
    products of the largest-algebraic run alone (bench/results/distributed_similarity.md).
    """
    n = A.shape[0]
    if n <= _solver_choice.DENSE_MAX_N or rank > _solver_choice.DENSE_FRACTION * n:
        if n > _solver_choice.DENSE_LIMIT_N:
            raise ValueError(
                f"rank = {rank} is more than {_solver_choice.DENSE_FRACTION:g} n of the n = {n} points, which needs "
                f"every eigenpair of a dense n x n matrix (allowed up to n = {_solver_choice.DENSE_LIMIT_N}); "
                f"choose rank <= {int(_solver_choice.DENSE_FRACTION * n)}"
            )
        M = np.asarray(A.matmat(np.eye(n)), dtype=np.float64)
        return dense_leading_eigenpairs((M + M.T) / 2.0, rank, driver)
    if n > _solver_choice.SIMILARITY_BLOCK_MIN_N:
        return block_leading_eigenpairs(A, rank, rng, driver, parts)
    _, basis, _ = eigsh(A.dot(A), rank, "LA", random_state=rng)
    projected = basis.T @ np.asarray(A.matmat(basis), dtype=np.float64)
    values, rotation = scipy.linalg.eigh((projected + projected.T) / 2.0, check_finite=False)
    return _largest_magnitude(values, basis @ rotation, rank)
