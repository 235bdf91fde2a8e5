"""IKLR's solvers on a kernel given only by its products (a LinearOperator, e.g. the distributed
kernlearn.distributed.KernelOperator): the same Newton and CCICP iterations as
cpp/src/methods/iklr.cpp, step for step, with the same stopping rules, records and statuses, so
that a fit means the same thing whichever form the kernel takes.

The loops are Python: every step costs one or two products with K, O(n^2) work spread over the
cluster, against O(n) here. The docstrings name the C++ function each mirrors; the derivations
are there.
"""

import types

import numpy as np
from scipy.sparse.linalg import LinearOperator
from scipy.special import expit

from . import _core

_Status = _core.core.SolverStatus


class InterceptKernel(LinearOperator):
    """K + c 11' from an operator for K: the estimator's intercept (a constant added to every kernel
    entry, as the dense path adds it to the stored K) at O(n) per product."""

    def __init__(self, kernel, constant):
        self.kernel = kernel
        self.constant = float(constant)
        super().__init__(dtype=np.dtype(np.float64), shape=kernel.shape)

    def _matmat(self, V):
        V = np.asarray(V, dtype=np.float64)
        return self.kernel.matmat(V) + self.constant * V.sum(axis=0, keepdims=True)

    def _matvec(self, v):
        return self._matmat(np.reshape(v, (-1, 1))).ravel()

    def _adjoint(self):
        return self


def column_of(kernel, i):
    """(column i of a symmetric operator, products it cost): the kernel's column() when it has one
    (a KernelOperator's costs O(n d)), else one product with a unit vector."""
    if isinstance(kernel, InterceptKernel):
        column, products = column_of(kernel.kernel, i)
        return column + kernel.constant, products
    if hasattr(kernel, "column"):
        return np.asarray(kernel.column(i), dtype=np.float64), 0
    unit = np.zeros(kernel.shape[0])
    unit[i] = 1.0
    return np.asarray(kernel.matvec(unit), dtype=np.float64).ravel(), 1


def _record(objective, inner_steps, matvecs, gradient_norm, step):
    """One iteration's record, with the fields of the core's IklrIteration."""
    return types.SimpleNamespace(
        objective=float(objective),
        inner_steps=int(inner_steps),
        matvecs=int(matvecs),
        gradient_norm=float(gradient_norm),
        step=float(step),
    )


def _mean_loss(y, z):
    """(1/n) sum_i log(1 + exp(-y_i z_i)), without overflow for either sign."""
    return float(np.mean(np.logaddexp(0.0, -y * z)))


class _Run:
    """The kernel, labels and K- = V diag(w) V' + shift I shared by both solvers, and the count of
    products with K."""

    def __init__(self, kernel, y, V, w, shift, callback):
        self.kernel = kernel
        self.y = np.asarray(y, dtype=np.float64)
        self.V, self.w, self.shift = V, w, float(shift)
        self.callback = callback
        self.n = self.y.size
        self.matvecs = 0

    def multiply(self, x):
        self.matvecs += 1
        if not np.isfinite(x).all():  # an overflowed step: what a dense product would give
            return np.full(self.n, np.nan)
        return np.asarray(self.kernel.matvec(x), dtype=np.float64).ravel()

    def column(self, i):
        """Column i of K, counted in matvecs when it took a product."""
        column, products = column_of(self.kernel, i)
        self.matvecs += products
        return column

    def negative_times(self, x):
        out = self.shift * x
        if self.V.shape[1] > 0:
            out = out + self.V @ (self.w * (self.V.T @ x))
        return out

    def stops(self, iteration, record):
        return self.callback is not None and bool(self.callback(iteration, record))


def newton(kernel, y, V, w, alpha0, *, shift, options, callback=None):
    """Inexact Newton on F(a) = mean log(1 + exp(-y o K a)) + (lambda/2) a'K+ a: the core's
    ``iklr_newton`` (NewtonRun in cpp/src/methods/iklr.cpp) with K a LinearOperator.

    Returns an object with the fields of the core's IklrResult (alpha, history, status,
    initial_objective, gradient_norm, reference_gradient_norm)."""
    run = _Run(kernel, y, V, w, shift, callback)
    lam, n, y = float(options.lambda_), run.n, run.y
    psd = V.shape[1] == 0 and shift == 0.0
    inv_n = 1.0 / n

    def objective(a, z):
        quad = a @ z
        if not psd:
            quad += a @ run.negative_times(a)
        return _mean_loss(y, z) + 0.5 * lam * quad

    def gradient(a, z):
        beta = expit(-y * z)  # 1 / (1 + exp(y_i z_i)): eq. (11) at the margins
        r = -y * beta * inv_n + lam * a
        g = run.multiply(r)
        if not psd:
            g = g + lam * run.negative_times(a)
        return g, r, beta * (1.0 - beta)

    def direction_psd(g, r, d, forcing):
        # K- = 0: p = -(r - S q / n) / lambda with (lambda I + S K S / n) q = S g, S = D^1/2.
        S = np.sqrt(d)
        rhs = S * g
        q, res, direction = np.zeros(n), rhs.copy(), rhs.copy()
        target = forcing * np.linalg.norm(rhs)
        rr = res @ res
        steps = 0
        while steps < options.max_cg and np.sqrt(rr) > target:
            Bd = lam * direction + inv_n * S * run.multiply(S * direction)
            curvature = direction @ Bd
            if not curvature > 0.0:
                break
            step = rr / curvature
            q += step * direction
            res -= step * Bd
            rr_new = res @ res
            direction = res + (rr_new / rr) * direction
            rr = rr_new
            steps += 1
        p = -(r - inv_n * S * q) / lam
        return p, run.multiply(p), steps

    def direction_hessian(g, gnorm, d, forcing):
        # K- != 0: CG on H p = -g, H = K D K / n + lambda (K + K-); K p accumulates from K dir.
        p, Kp = np.zeros(n), np.zeros(n)
        res = -g
        direction = res.copy()
        target = forcing * gnorm
        rr = res @ res
        steps = 0
        while steps < options.max_cg and np.sqrt(rr) > target:
            Kd = run.multiply(direction)
            Hd = inv_n * run.multiply(d * Kd) + lam * (Kd + run.negative_times(direction))
            curvature = direction @ Hd
            if not curvature > 0.0:
                break
            step = rr / curvature
            p += step * direction
            Kp += step * Kd
            res = res - step * Hd
            rr_new = res @ res
            direction = res + (rr_new / rr) * direction
            rr = rr_new
            steps += 1
        if steps == 0:  # no CG step: steepest descent
            p = -g
            Kp = run.multiply(p)
        return p, Kp, steps

    # The tolerance scale ||grad F(0)|| = ||K y|| / (2n): independent of the start.
    reference = float(np.linalg.norm(run.multiply(y * (0.5 * inv_n))))
    scale = reference if reference > 0 else 1.0
    a = np.array(alpha0, dtype=np.float64)
    z = run.multiply(a)
    f = objective(a, z)
    initial = f
    g, r, d = gradient(a, z)
    gnorm = float(np.linalg.norm(g))
    history = []
    status = _Status.max_iter if np.isfinite(f) and np.isfinite(gnorm) else _Status.not_converged
    forcing_cap = 1e-3 if psd else 0.1  # the core's forcing terms (see iklr.cpp)
    for k in range(int(options.max_iter)):
        if status != _Status.max_iter:
            break
        if gnorm <= options.tol * scale:
            status = _Status.converged
            break
        before = run.matvecs
        forcing = min(forcing_cap, gnorm / scale)
        if psd:
            p, Kp, cg = direction_psd(g, r, d, forcing)
        else:
            p, Kp, cg = direction_hessian(g, gnorm, d, forcing)
        slope = g @ p
        if not slope < 0.0:  # not a descent direction (CG broke down): steepest descent
            p = -g
            Kp = run.multiply(p)
            slope = -gnorm * gnorm
        # Armijo backtracking; z moves with a at no product (K (a + s p) = z + s K p).
        slack = 16.0 * np.finfo(float).eps * abs(f)
        step, accepted, f_new = 1.0, False, f
        for _ in range(60):
            f_new = objective(a + step * p, z + step * Kp)
            if np.isfinite(f_new) and f_new <= f + 1e-4 * step * slope + slack:
                accepted = True
                break
            step *= 0.5
        if not accepted:
            status = _Status.not_converged
            break
        if step < 1.0:
            forcing_cap = max(forcing_cap * 1e-2, 1e-12)
        a = a + step * p
        z = z + step * Kp
        f = f_new
        g, r, d = gradient(a, z)
        gnorm = float(np.linalg.norm(g))
        record = _record(f, cg, run.matvecs - before, gnorm, step)
        history.append(record)
        if run.stops(k, record):
            status = _Status.interrupted
            break
    if status == _Status.max_iter and gnorm <= options.tol * scale:
        status = _Status.converged
    return types.SimpleNamespace(
        alpha=a,
        history=history,
        status=status,
        initial_objective=initial,
        gradient_norm=gnorm,
        reference_gradient_norm=reference,
    )


def ccicp(kernel, y, V, w, alpha0, *, shift, options, sgd_indices, callback=None):
    """CCICP (the paper's Algorithm 1, with the corrections of the estimator's docstring): the core's
    ``ccicp`` (CcicpRun in cpp/src/methods/iklr.cpp) with K a LinearOperator.

    An SGD step needs one column of K: the kernel's ``column()`` when it has one (a
    KernelOperator's costs O(n d) and no product), else one product with a unit vector, counted
    in ``matvecs``."""
    run = _Run(kernel, y, V, w, shift, callback)
    lam, n, y = float(options.lambda_), run.n, run.y
    concave, gd = bool(options.concave), options.inner == _core.methods.IklrInner.gd
    inv_n = 1.0 / n
    state = types.SimpleNamespace(a=np.array(alpha0, dtype=np.float64), eta=float(options.learning_rate))
    state.z = run.multiply(state.a)
    state.ak, state.neg_ak = state.a, np.zeros(n)

    def objective():  # eq. (6); the convex variant keeps (lambda/2) a'K+ a
        quad = state.a @ state.z
        if not concave:
            quad += state.a @ run.negative_times(state.a)
        return _mean_loss(y, state.z) + 0.5 * lam * quad

    def subproblem(neg_a):  # F_k of eq. (9) with its constant, F_k(a_k) = F(a_k)
        value = _mean_loss(y, state.z) + 0.5 * lam * (state.a @ state.z + state.a @ neg_a)
        if concave:
            value -= 0.5 * lam * (state.ak @ state.neg_ak) + lam * (state.neg_ak @ (state.a - state.ak))
        return value

    def inner(k):
        state.ak = state.a.copy()
        state.neg_ak = run.negative_times(state.a) if concave else np.zeros(n)
        neg_a = run.negative_times(state.a)
        previous = subproblem(neg_a)
        if options.restart_rate:
            state.eta = float(options.learning_rate)
        t = 0
        while t < options.max_inner:
            g = lam * (state.z + neg_a)
            if concave:
                g -= lam * state.neg_ak
            if gd:
                g -= run.multiply(inv_n * y * expit(-y * state.z))
            else:
                i = int(sgd_indices[k * options.max_inner + t])
                if options.literal_sgd:  # eq. (12) as printed: no -lambda K- a_k
                    g += lam * state.neg_ak
                g -= y[i] * expit(-y[i] * state.z[i]) * run.column(i)
            state.a = state.a - state.eta * g
            state.eta *= options.decay
            t += 1
            state.z = run.multiply(state.a)
            neg_a = run.negative_times(state.a)
            current = subproblem(neg_a)
            if not np.isfinite(current) or abs(current - previous) <= options.eps:
                break
            previous = current
        return t

    initial = objective()
    history = []
    status = _Status.max_iter
    for k in range(int(options.max_outer)):
        before = run.matvecs
        with np.errstate(over="ignore", invalid="ignore"):  # an overflow is the status below
            steps = inner(k)
            record = _record(objective(), steps, run.matvecs - before, np.nan, state.eta / options.decay)
        if not np.isfinite(record.objective) or not np.isfinite(state.a).all():
            # The step schedule overflowed: hand back the last finite iterate, flagged.
            status = _Status.not_converged
            state.a = state.ak
            break
        history.append(record)
        if run.stops(k, record):
            status = _Status.interrupted
            break
    return types.SimpleNamespace(
        alpha=state.a,
        history=history,
        status=status,
        initial_objective=initial,
        gradient_norm=np.nan,
        reference_gradient_norm=np.nan,
    )
