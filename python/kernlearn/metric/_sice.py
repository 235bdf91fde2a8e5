"""Sparse inverse covariance estimation (SICE): the l1-penalised log-det problem S3ML solves.

    minimise over positive definite M:   ``-log det M + <Sigma, M> + sum_ij rho_ij |M_ij|``     (eq. 13)

The dual (eq. 15, with weights) is max log det Z + m subject to ``|Z - Sigma| <= rho`` entrywise, so
every positive definite Z in that box bounds the optimum from below; the solvers return the best
such Z they met, and the difference of the two objectives is a *certified* duality gap.

Conventions
-----------
* ``penalize_diagonal=True`` is the paper's problem. Since M_ii > 0 at every feasible M,
  ``|M_ii| = M_ii`` and it equals the problem with Sigma + diag(rho) and an unpenalised diagonal,
  which is what the core solves (scikit-learn, QUIC and metric-learn leave the diagonal
  unpenalised: ``penalize_diagonal=False``).
* The problem is bounded exactly when some positive definite Z lies in the box. We check the two
  natural candidates (Sigma + diag(rho) itself, and with its off-diagonal shrunk towards 0 by rho)
  and raise ValueError when neither is positive definite.
* ``tol`` is on the relative gap, ``gap / max(1, |primal|)``.
"""

import warnings
from dataclasses import dataclass
from numbers import Integral, Real

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from .. import _core
from .._utils._param_validation import Interval, StrOptions, validate_params
from .._utils._validation import SYMMETRY_RTOL, as_real_array, blas_threads, relative_asymmetry

__all__ = ["sparse_inverse_covariance", "SparseInverseCovariance"]

# sparse_inverse_covariance's parameter rules (Sigma's and a matrix rho's are data rules: below).
_PARAMETER_CONSTRAINTS = {
    "rho": [Interval(Real, 0, None), np.ndarray, list, tuple],
    "penalize_diagonal": ["boolean"],
    "solver": [StrOptions({"auto", "newton", "alm"})],
    "tol": [Interval(Real, 0, None, closed="neither")],
    "max_iter": [Interval(Integral, 0, None)],
    "sigma": [Interval(Real, 0, None)],
    "step": [StrOptions({"adaptive", "paper"})],
    "bounds": ["boolean"],
}


@dataclass(frozen=True)
class SparseInverseCovariance:
    """Solution of :func:`sparse_inverse_covariance`.

    Attributes
    ----------
    precision : ndarray (m, m)
        M, positive definite, exactly zero off ``support``.
    support : ndarray of bool (m, m)
        ``precision != 0``.
    dual : ndarray (m, m)
        Z, positive definite, with ``|Z - Sigma| <= rho`` entrywise (the penalised problem's Sigma).
    primal_objective, dual_objective : float
        ``-log det M + <Sigma, M> + sum rho |M|`` and ``log det Z + m``.
    duality_gap : float
        primal - dual >= 0 (up to rounding): M is at most this far from optimal.
    n_iter : int
        Iterations ("newton": its start, a few block coordinate descent sweeps, counts as the
        first). The problem splits exactly into the connected components of the graph
        ``|Sigma_ij| > rho_ij`` (exact covariance thresholding), each solved alone; with several
        blocks, n_iter and ``history`` are those of the block that took the most iterations.
    converged : bool
        Whether ``duality_gap <= tol * max(1, |primal_objective|)``.
    solver : str
        The solver that ran ("newton" or "alm").
    history : ndarray
        Relative certified gap after each iteration, with the best dual point so far (inf before
        the first). "newton" factors a dual point only once an estimate shows it may meet
        ``tol``, so its early entries lag the true gap.

    Examples
    --------
    >>> from kernlearn.datasets import load_wine
    >>> from kernlearn.metric import SparseInverseCovariance, sparse_inverse_covariance
    >>> X, _ = load_wine(return_X_y=True)
    >>> Sigma = np.corrcoef(X, rowvar=False)
    >>> result = sparse_inverse_covariance(Sigma, rho=0.1)
    >>> isinstance(result, SparseInverseCovariance)
    True
    >>> result.precision.shape, int(result.support.sum()), result.converged
    ((13, 13), 109, True)

    The dual point Z lies in the box ``|Z - Sigma| <= rho`` (its diagonal on the box's edge,
    the diagonal being penalised) and is positive definite:

    >>> bool(np.abs(result.dual - Sigma).max() <= 0.1 + 1e-12)
    True
    >>> bool(np.linalg.eigvalsh(result.dual)[0] > 0)
    True
    >>> bool(result.history[-1] <= 1e-8)
    True

    The result is frozen:

    >>> result.converged = False
    Traceback (most recent call last):
    ...
    dataclasses.FrozenInstanceError: cannot assign to field 'converged'
    """

    precision: np.ndarray
    support: np.ndarray
    dual: np.ndarray
    primal_objective: float
    dual_objective: float
    duality_gap: float
    n_iter: int
    converged: bool
    solver: str
    history: np.ndarray


def sparse_inverse_covariance(
    Sigma,
    rho,
    *,
    penalize_diagonal=True,
    solver="auto",
    tol=1e-8,
    max_iter=1000,
    sigma=0.0,
    step="adaptive",
    bounds=False,
):
    """Solve min ``-log det M + <Sigma, M> + sum rho_ij |M_ij|`` with a certified duality gap.

    Parameters
    ----------
    Sigma : array-like (m, m)
        Symmetric (to relative 1e-10; it is then symmetrised), finite. Need not be positive
        definite: ``Sigma + diag(rho)`` must admit a positive definite dual point (see below).
    rho : float >= 0 or array-like (m, m)
        The l1 weight, or a symmetric non-negative matrix of weights.
    penalize_diagonal : bool
        True (the S3ML paper) penalises M_ii too; False leaves the diagonal free (scikit-learn's
        ``graphical_lasso``, QUIC); with a weight matrix, False ignores its diagonal.
    solver : {"auto", "newton", "alm"}
        "newton": second-order, from a start found by a few sweeps of block coordinate descent
        on the dual (the graphical lasso's iteration), then QUIC's coordinate-descent direction
        and orthant-wise Newton with preconditioned CG once the support settles (ours, not the
        paper's); "alm": the paper's alternating linearization (Algorithm 1) with ``sigma``,
        ``step`` and ``bounds`` below (the departures from the paper are the errata in
        :mod:`kernlearn.metric._s3ml`). "auto" is "newton", which was faster in every case
        measured in ``bench/bench_sice.py`` and is the only one robust to near-singular Sigma.
    sigma : float >= 0
        "alm" only: Nesterov smoothing of the l1 term (eq. 18); the paper runs 1e-6. 0 solves
        (13) itself (exact zeros by the soft threshold). With sigma > 0 the iterates solve the
        smoothed problem (19), within sigma m^2 max(rho)^2 / 2 of (13) (Theorem 4); the
        returned M is the iterate with its entries in h_sigma's quadratic zone
        (``|M_ij| <= sigma rho_ij``) rounded to 0, when that lowers the objective of (13).
    step : {"adaptive", "paper"}
        "alm" only: the step mu. "adaptive" (ours): mu = g_min g_max of the current M,
        re-estimated every 20 iterations. "paper": mu = min(lambda^2, sigma) with
        lambda = 1 / (||Sigma||_2 + ||rho||_2), which moves M by about sigma per iteration
        (needs sigma > 0; bench/results/sice.md has the figures).
    bounds : bool
        "alm" only (needs sigma > 0): Theorem 5's constraints M, Y >= lambda I. The M-step's is
        exact; the constrained Y-step has no closed form, so Y is projected onto the set
        (an approximation of ours).
    tol : float
        Stop when ``gap <= tol * max(1, |primal|)``. The gap bounds the objective's distance to the
        optimum, F(M) - F* <= gap; M's own distance is about its square root (F is smooth and
        strongly convex near M*), so matching another solver's M to 1e-6 entrywise needs tol
        around 1e-13 to 1e-14.
    max_iter : int
        Cap on the iterations (a ConvergenceWarning when reached before ``tol``).

    Returns
    -------
    SparseInverseCovariance
        M (``precision``), the dual point Z, both objectives and the certified gap.

    Raises
    ------
    ValueError
        Sigma not square, not symmetric or not finite; rho negative or of the wrong shape; no
        positive definite dual point (the problem is unbounded below).

    Notes
    -----
    Ctrl-C stops the solve within a fraction of a second (polled per column of the sweeps, per CG
    step and per factorisation); "alm"'s eigendecompositions are polled between their stages,
    except LAPACK's divide and conquer on the tridiagonal matrix (about 0.2 s at m = 3,000).

    Examples
    --------
    A sparse inverse of the correlation matrix of the 13 wine features:

    >>> from kernlearn.datasets import load_wine
    >>> from kernlearn.metric import sparse_inverse_covariance
    >>> X, _ = load_wine(return_X_y=True)
    >>> Sigma = np.corrcoef(X, rowvar=False)
    >>> result = sparse_inverse_covariance(Sigma, rho=0.1)
    >>> result.precision.shape, result.solver, result.converged
    ((13, 13), 'newton', True)
    >>> int(result.support.sum()), result.support.size
    (109, 169)
    >>> bool(np.linalg.eigvalsh(result.precision)[0] > 0)
    True

    The gap between the primal and the dual objective certifies how far M is from optimal:

    >>> round(result.primal_objective, 3), round(result.dual_objective, 3)
    (10.729, 10.729)
    >>> bool(result.duality_gap <= 1e-8 * abs(result.primal_objective))
    True

    A larger rho gives a sparser M:

    >>> int(sparse_inverse_covariance(Sigma, rho=0.3).support.sum())
    61
    """
    S = _check_sigma(Sigma)
    m = S.shape[0]
    validate_params(
        _PARAMETER_CONSTRAINTS,
        {
            "rho": rho,
            "penalize_diagonal": penalize_diagonal,
            "solver": solver,
            "tol": tol,
            "max_iter": max_iter,
            "sigma": sigma,
            "step": step,
            "bounds": bounds,
        },
        "sparse_inverse_covariance",
    )
    R = _rho_matrix(rho, m)
    if (step == "paper" or bounds) and not sigma > 0:
        raise ValueError(f"step='paper' and bounds=True need sigma > 0 (the smoothed problem), got sigma = {sigma!r}")
    if solver != "alm" and (sigma != 0 or step != "adaptive" or bounds):
        raise ValueError(f"sigma, step and bounds apply to solver='alm' only, got solver = {solver!r}")

    # S and R are this call's own arrays (_check_sigma / _check_rho build them), so no copies.
    S_eff = S + np.diag(np.diag(R)) if penalize_diagonal else S
    R_eff = R
    np.fill_diagonal(R_eff, 0.0)
    if (np.diag(S_eff) <= 0.0).any():  # Z_ii = S_eff_ii for every dual point Z
        _raise_unbounded(S_eff, penalize_diagonal)
    name = "newton" if solver == "auto" else solver
    # One BLAS thread: the core calls LAPACK in a loop on small matrices, where OpenBLAS's spinning
    # threads cost far more than the work on a shared machine (bench/results/sice.md).
    # The core starts from diag(1 / S_eff_ii), the solution when rho dominates, after checking that
    # a positive definite dual point exists (S_eff with each off-diagonal entry moved towards 0 by
    # rho_ij, or S_eff itself): otherwise the problem is unbounded below.
    options = _core.methods.SiceOptions(
        solver=_core.methods.SiceSolver.__members__[name],
        tol=float(tol),
        max_iter=int(max_iter),
        sigma=float(sigma),
        paper_mu=step == "paper",
        bounds=bool(bounds),
    )
    with blas_threads(1):
        out = _core.methods.sice(S_eff, R_eff, options=options)
    if not out.bounded:
        _raise_unbounded(S_eff, penalize_diagonal)
    # M and Z are exactly symmetric (the core writes (i, j) and (j, i) alike), so the transposes of
    # the core's column-major views are the same matrices in C order, without m x m copies (and,
    # like the frozen result holding them, read-only).
    M = out.precision.T
    # The objectives are the caller's: with the diagonal penalty folded into Sigma,
    # <Sigma + diag(rho), M> = <Sigma, M> + sum rho_ii |M_ii| as M_ii > 0. Z's diagonal is
    # Sigma_ii + rho_ii, inside the caller's box.
    primal = float(out.primal)
    dual = float(out.dual_value)
    Z = out.dual.T if np.isfinite(dual) else np.full((m, m), np.nan)
    result = SparseInverseCovariance(
        precision=M,
        support=M != 0.0,
        dual=Z,
        primal_objective=primal,
        dual_objective=dual,
        duality_gap=primal - dual,
        n_iter=int(out.n_iter),
        converged=out.status == _core.core.SolverStatus.converged,
        solver=name,
        history=out.relative_gaps,
    )
    if not result.converged:
        warnings.warn(
            f"sparse_inverse_covariance ({name}) stopped after {result.n_iter} iterations with relative "
            f"duality gap {result.duality_gap / max(1.0, abs(primal)):.3g} > tol = {tol:g}",
            ConvergenceWarning,
            stacklevel=2,
        )
    return result


def _check_sigma(Sigma):
    S = as_real_array(Sigma, "Sigma", finite=False, ensure_2d=False, allow_nd=True)
    if S.ndim != 2 or S.shape[0] != S.shape[1] or S.shape[0] == 0:
        raise ValueError(f"Sigma must be a non-empty square matrix, got shape {S.shape}")
    S = np.asarray(S, dtype=np.float64)  # only read: the symmetrised return value is a new array
    if not np.isfinite(S).all():
        raise ValueError("Sigma contains NaN or infinity")
    asymmetry = relative_asymmetry(S)
    if asymmetry > SYMMETRY_RTOL:
        raise ValueError(f"Sigma must be symmetric; relative max |Sigma - Sigma'| = {asymmetry:.3g}")
    S = S + S.T  # a new array: the caller's is never written
    S *= 0.5
    return S


def _rho_matrix(rho, m):
    """rho (validated against _PARAMETER_CONSTRAINTS) as a symmetric m x m weight matrix."""
    if isinstance(rho, Real):
        return np.full((m, m), float(rho))
    R = as_real_array(rho, "rho", finite=False, ensure_2d=False, allow_nd=True)
    if R.shape != (m, m):
        raise ValueError(f"rho must be a scalar or have Sigma's shape {(m, m)}, got {R.shape}")
    R = np.asarray(R, dtype=np.float64)  # only read: the symmetrised return value is a new array
    if not np.isfinite(R).all() or (R < 0).any():
        raise ValueError("rho must be finite and non-negative")
    if relative_asymmetry(R) > SYMMETRY_RTOL:
        raise ValueError("rho must be symmetric")
    return (R + R.T) / 2.0


def _raise_unbounded(S_eff, penalize_diagonal):
    smallest = float(np.linalg.eigvalsh(S_eff)[0])
    which = "Sigma + rho I" if penalize_diagonal else "Sigma"
    raise ValueError(
        f"{which} is not positive definite (smallest eigenvalue {smallest:.3g}) and no positive "
        "definite dual point was found: the problem is unbounded below. Increase rho, or make "
        "Sigma positive definite (for S3ML, lower beta)."
    )
