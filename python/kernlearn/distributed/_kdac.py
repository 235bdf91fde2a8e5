"""KDAC's whole W/D/U alternation with the kernel sums on a Dask cluster (``KDAC(backend="dask")``).

The steps are those of the core's kdac() (``cpp/src/methods/kdac.cpp``), written here around
:class:`~kernlearn.distributed._hsic.HsicTiles`: every Phi(W), degree vector and kernel product
runs as tile-pair tasks on the workers, and only d x d matrices and n x k blocks come back. The
comments of kdac.cpp give the reasons for each step; this file repeats only what differs:

* The U-step is always Lanczos (:func:`kernlearn.linalg.eigsh`) on the matrix-free operator
  Q = H D^-1/2 K D^-1/2 H, with the core's basis sizes and tolerance; the core uses an explicit
  n x n matrix below ``KdacOptions().dense_max_n`` points, which a distributed path never forms.
  The two agree to the eigensolver's tolerance.

ISM (Algorithm 2, :func:`ism`) is the core's ism() written out in numpy, Anderson acceleration
included (``_anderson.py``): its state is a few d x q and d x d matrices, and only Phi(W) goes to
the cluster.
"""

import types

import numpy as np

from .. import _core
from ..linalg import eigsh
from ._anderson import AndersonProjector
from ._subspace import fix_signs, leading_subspace, projection_distance

__all__ = ["DistributedKdac", "ism"]

# Mirrors of the core's constants (kdac.hpp, kdac.cpp): damped steps per W-step, the Lanczos basis
# beyond k (cold, warm start), the periods of the outer cycle test.
_MAX_DAMPED_STEPS = 5
_COLD_EXTRA, _WARM_EXTRA = 20, 8
_MAX_PERIOD = 4


class _IsmOutcome(types.SimpleNamespace):
    """One W-step: W, n_iter, n_damped, cycled (the core's IsmResult fields that KDAC records), the
    projection distance and Tr(gamma K) of every Phi evaluation (``distance``, ``trace_gamma_k``,
    as IsmResult), and two counts the core does not report: ``n_extrapolated`` (Anderson steps
    taken) and ``n_restarts`` (Anderson histories dropped because the residual did not shrink)."""


def ism(phi_of, W0, *, tol, max_iter, anderson_depth=0):
    """The core's ism() (``cpp/src/methods/kdac.cpp``) around a given Phi: Algorithm 2 from W0.

    Each step maps W to W_next, the q eigenvectors of Phi(W) with the smallest eigenvalues, and
    stops when the projection distance from W to W_next is <= tol (returning W_next). A 2-cycle
    (W_next back at the previous iterate) is damped by up to ``_MAX_DAMPED_STEPS`` steps to the
    subspace between its ends, then its end with the larger Tr(gamma K) is kept. With
    ``anderson_depth > 0`` and q < d the next iterate is :class:`AndersonProjector`'s
    extrapolation while the residual (that distance) shrinks; when it does not, the history is
    dropped and the plain step W_next is taken, and a damped step drops it too.

    Parameters
    ----------
    phi_of : callable
        W (d x q) -> (Phi(W) (d x d), Tr(gamma K(W))), gamma fixed.
    W0 : ndarray of shape (d, q)
        Orthonormal start.
    tol : float
    max_iter : int
        Phi evaluations at most.
    anderson_depth : int, default 0
        Residual differences used by the acceleration; 0 is the plain iteration.

    Returns
    -------
    _IsmOutcome
    """
    d, q = W0.shape
    out = _IsmOutcome(n_iter=0, n_damped=0, cycled=False, distance=[], trace_gamma_k=[], n_extrapolated=0, n_restarts=0)
    accelerate = anderson_depth > 0 and q < d
    anderson = AndersonProjector(q, anderson_depth)
    W, W_prev, trace_prev = W0, None, 0.0
    residual_prev = np.inf
    for s in range(1, int(max_iter) + 1):
        phi, trace = phi_of(W)
        W_next = fix_signs(np.linalg.eigh(phi)[1][:, :q])
        dist = projection_distance(W, W_next)
        out.n_iter = s
        out.distance.append(dist)
        out.trace_gamma_k.append(trace)
        if dist <= tol:
            out.W = W_next
            return out
        if s >= 2 and projection_distance(W_prev, W_next) <= max(tol, 1e-3 * dist):
            # A 2-cycle: a step to its middle restarts the acceleration (IsmSolver::damp).
            middle = leading_subspace(W @ W.T + W_next @ W_next.T, q) if out.n_damped < _MAX_DAMPED_STEPS else None
            if middle is None:
                out.cycled = True
                out.W = W if trace >= trace_prev else W_prev
                return out
            out.n_damped += 1
            W_prev, trace_prev, W = W, trace, middle
            anderson.clear()
            residual_prev = np.inf
            continue
        # Anderson while the residual shrinks, else the plain step, history dropped
        # (IsmSolver::advance): a 2-cycle's constant residual is left to the plain iteration.
        W_step = W_next
        if accelerate and dist < residual_prev:
            W_step, extrapolated = anderson.next(W, W_next)
            out.n_extrapolated += extrapolated
        elif accelerate:
            anderson.clear()
            out.n_restarts += 1
        residual_prev = dist
        W_prev, trace_prev, W = W, trace, W_step
    out.W = W
    return out


class DistributedKdac:
    """One KDAC alternation (Algorithm 1 of Wu et al. 2018) with its kernel sums on the cluster.

    Parameters
    ----------
    tiles : HsicTiles
        The column-centred X on the workers.
    Xc : ndarray (n, d)
        The same centred X here (for the n x k products of the spectral start, eq. 12).
    """

    def __init__(self, tiles, Xc):
        self.tiles = tiles
        self.Xc = Xc

    def run(self, Y, options, W0, monitor):
        """The core's kdac() on the cluster: a result with the fields of ``_core.methods.KdacResult``."""
        opt = options
        self.opt = opt
        self.sigma, self.lam, self.k = float(opt.sigma), float(opt.lambda_), int(opt.n_clusters)
        self.Yc = Y - Y.mean(axis=0)
        self.rng = np.random.default_rng(int(opt.seed))
        n, d = self.Xc.shape
        res = types.SimpleNamespace(
            init_eigenvalues=np.empty(0), used_dense=False, ism_cycled=False, outer_cycled=False, cycle_period=0
        )
        # U_0 from the kernel of the full space (W = I), then W_0, then the degrees of its kernel.
        identity = np.eye(d)
        degree = self.tiles.degree(identity, self.sigma)
        U = self._u_step(identity, degree, None).U
        if W0 is None:
            W, res.init_eigenvalues = self._spectral_w0(U, opt.q)
        else:
            W = np.array(W0, dtype=np.float64)
        res.q, res.W_init = W.shape[1], W.copy()
        degree = self.tiles.degree(W, self.sigma)
        status = _core.core.SolverStatus.max_iter
        history, recent = [], []
        for it in range(1, int(opt.max_iter) + 1):
            rec = types.SimpleNamespace(ism_cycled=False, ism_damped=0, matvecs=0)
            # W-step (4) by ISM, solved to max(tol, factor x the last change of W) (kdac.cpp).
            A, c = self._gamma_factor(U, degree)
            ism_tol = max(float(opt.tol), 1e-3 if it == 1 else float(opt.ism_tol_factor) * history[-1].dist_w)
            w = self._ism(W, A, c, ism_tol)
            rec.dist_w = projection_distance(W, w.W)
            rec.ism_iter, rec.ism_cycled, rec.ism_damped = w.n_iter, w.cycled, w.n_damped
            res.ism_cycled = res.ism_cycled or w.cycled
            W = w.W
            degree = self.tiles.degree(W, self.sigma)  # D-step
            u = self._u_step(W, degree, U)  # U-step (3), warm-started
            rec.dist_u = projection_distance(U, u.U)
            U = u.U
            rec.quality = float(u.values.sum())
            rec.hsic_y = u.hsic_y
            rec.cost = rec.quality - self.lam * rec.hsic_y
            rec.matvecs = u.matvecs
            history.append(rec)
            res.n_iter, res.cost, res.quality, res.hsic_y = it, rec.cost, rec.quality, rec.hsic_y
            converged = rec.dist_w <= opt.tol and rec.dist_u <= opt.tol
            if monitor is not None and monitor(it, rec):
                status = _core.core.SolverStatus.interrupted
                break
            if converged:
                status = _core.core.SolverStatus.converged
                break
            cycle = self._cycle(recent, W, U, rec)
            if cycle is not None:
                period, best = cycle
                res.cycle_period, res.outer_cycled = period, True
                if best is not None:
                    W, U, degree = best.W, best.U, best.degree
                    res.cost, res.quality, res.hsic_y = best.cost, best.quality, best.hsic_y
                status = _core.core.SolverStatus.not_converged
                break
            recent.append(
                types.SimpleNamespace(W=W, U=U, degree=degree, cost=rec.cost, quality=rec.quality, hsic_y=rec.hsic_y)
            )
            if len(recent) > _MAX_PERIOD:
                recent.pop(0)
        res.status, res.history = status, history
        return self._finish(res, W, U, degree)

    def _spectral_w0(self, U, q):
        """Eq. (12): the q smallest eigenvectors of Phi_0 (q None: at its largest gap (11))."""
        XU, XY = self.Xc.T @ U, self.Xc.T @ self.Yc
        M = XU @ XU.T - self.lam * (XY @ XY.T)
        phi0 = (-2.0 / (self.Xc.shape[0] * self.sigma**2)) * M
        values, vectors = np.linalg.eigh(phi0)
        if q is None:
            q = int(np.argmax(np.diff(values))) + 1 if values.size > 1 else 1
        return fix_signs(vectors[:, :q]), values

    def _gamma_factor(self, U, degree):
        """A = D^-1/2 [H U, H Y] and c = (1 x k, -lambda x k_y): gamma = A diag(c) A' (eq. 4)."""
        A = np.hstack([U - U.mean(axis=0), self.Yc]) / np.sqrt(degree)[:, None]
        c = np.r_[np.ones(U.shape[1]), np.full(self.Yc.shape[1], -self.lam)]
        return A, c

    def _ism(self, W, A, c, tol):
        """Algorithm 2 from W with gamma = A diag(c) A' fixed, each Phi(W) on the cluster (:func:`ism`)."""
        A_blocks = self.tiles.place(A)

        def phi_of(W):
            phi, trace, _ = self.tiles.phi(W, A_blocks, c, self.sigma)
            return phi, trace

        return ism(phi_of, W, tol=tol, max_iter=int(self.opt.ism_max_iter), anderson_depth=int(self.opt.anderson_depth))

    def _u_step(self, W, degree, warm):
        """Eq. (3): the top-k eigenvectors of Q = H D^-1/2 K D^-1/2 H by Lanczos on the cluster's
        products, with the core's basis size (smaller from a warm start) and tolerance."""
        n, k = self.tiles.n_samples, self.k
        scale = 1.0 / np.sqrt(degree)
        counter = [0]

        def apply_q(V):
            V = np.asarray(V, dtype=np.float64).reshape(n, -1)
            counter[0] += V.shape[1]
            KV = self.tiles.kernel_times(W, self.sigma, scale[:, None] * (V - V.mean(axis=0)))
            out = scale[:, None] * KV
            return out - out.mean(axis=0)

        from scipy.sparse.linalg import LinearOperator

        operator = LinearOperator((n, n), matvec=apply_q, matmat=apply_q, dtype=np.float64)
        extra = max(_WARM_EXTRA if warm is not None else _COLD_EXTRA, (3 * k + 4) // 5)
        start = warm if warm is not None else self.rng.standard_normal(n)
        values, vectors, _ = eigsh(
            operator,
            k,
            "LA",
            v0=start,
            tol=float(self.opt.eig_tol),
            ncv=min(n, k + extra),
            method="lanczos",
            random_state=int(self.opt.seed) % 2**32,
        )
        hsic_y = float(np.trace(self.Yc.T @ apply_q(self.Yc)))
        return types.SimpleNamespace(U=fix_signs(vectors), values=values, hsic_y=hsic_y, matvecs=counter[0])

    def _cycle(self, recent, W, U, rec):
        """The core's outer cycle test: (period, the cycle's best other state or None) when W and U
        are back where they were p = 2..4 iterations ago, else None."""
        for p in range(2, len(recent) + 1):
            old = recent[len(recent) - p]
            if projection_distance(old.W, W) <= max(self.opt.tol, 1e-2 * rec.dist_w) and projection_distance(
                old.U, U
            ) <= max(self.opt.tol, 1e-2 * rec.dist_u):
                best = None
                for state in recent[len(recent) - (p - 1) :]:
                    if state.cost > (best.cost if best is not None else rec.cost):
                        best = state
                return p, best
        return None

    def _finish(self, res, W, U, degree):
        """The certificates at the end: Phi(W*) with the final gamma, the eigengap (11), both sides
        of inequality (10), the fixed-point residual (kdac.cpp, KdacSolver::finish)."""
        A, c = self._gamma_factor(U, degree)
        phi, _, bound = self.tiles.phi(W, self.tiles.place(A), c, self.sigma, with_bound=True)
        values = np.linalg.eigvalsh(phi)
        q, d = W.shape
        res.phi_eigenvalues = values
        res.eigengap = float(values[q] - values[q - 1]) if q < d else float("nan")
        res.sigma_lhs = self.sigma**2 * res.eigengap
        res.sigma_rhs = bound
        PW = phi @ W
        res.fixed_point_residual = float(
            np.linalg.norm(PW - W @ (W.T @ PW)) / max(np.linalg.norm(phi), np.finfo(float).tiny)
        )
        res.W, res.U, res.degree = W, U, degree
        return res
