"""Entropic mirror descent on the spectraplex and on the simplex, with its certificate.

Used by :mod:`kernlearn.similarity` (Kundu, Tankasali, Bhattacharyya & Ben-Tal, "Efficient
algorithms for learning kernels from multiple similarity matrices with general convex loss
functions", NIPS 2010). Three pieces, each independent of the estimators:

* **The matrix exponentiated-gradient step** (:func:`meg_step`). With the von Neumann entropy
  psi(K) = tr(K log K) on {K psd, tr K = tau}, the mirror step solves
  grad psi(K+) = grad psi(K) - eta G + c I, i.e. ``K+ = tau exp(log K - eta G) / tr(.)``
  (Tsuda, Raetsch & Warmuth 2005). Algorithms 1 and 2 of the paper instead keep the eigenvalues
  of K and take the eigenvectors of G, which is this step only when K and G commute; it is
  corrected here (docstrings of the estimators record it). K is kept as its eigendecomposition
  ``V diag(exp(l)) V'`` with the *log*-eigenvalues l, so that log K = V diag(l) V' costs one
  product and exp needs no dense matrix exponential: one symmetric eigendecomposition of
  ``log K - eta G`` per step gives both the new eigenvectors and, by a log-sum-exp, the new
  log-eigenvalues. Eigenvalues that underflow in exp(l) stay exactly representable as l.
* **Step sizes** (:class:`StepRule`) from Proposition 3.1 / Theorem 3.2 with the Lipschitz
  constant replaced by the running maximum of the observed dual norms of the subgradients.
* **A certificate** (:class:`LowerBound`): for convex f and any weights w_s >= 0,
  ``f* >= sum_s w_s (f_s - <g_s, x_s>) + min_{x feasible} <sum_s w_s g_s, x>`` (every
  linearisation is below f); the minimum of a linear function over the spectraplex is
  ``tau * lambda_min``, over the simplex ``tau * min_j``. With w_s proportional to the steps
  eta_s, ``best f - bound`` shrinks at the mirror-descent rate (Beck & Teboulle 2003, Thm 4.1,
  applied at the maximising x), so it is a stopping rule that certifies the returned iterate.
  The same weights over the iterates since the last power of two give a second bound, and the
  larger is used: the early linearisations, far from the optimum and taken with the largest
  steps, dominate the full aggregate (at EMKL's defaults the suffix bound is 3-9x tighter:
  bench/results/emkl_convergence.md).

Losses (:func:`resolve_loss`) are functions ``loss(K, S) -> (value, subgradient w.r.t. K)``;
the built-in ones apply unchanged to spectra (vectors), which REKL uses.
"""

import numbers

import numpy as np
import scipy.linalg
from scipy.special import logsumexp

__all__ = [
    "LOSSES",
    "resolve_loss",
    "meg_step",
    "paper_step",
    "simplex_step",
    "dense_from_log",
    "relative_change",
    "OneKernelState",
    "KernelListState",
    "StepRule",
    "LowerBound",
]


def _l1(K, S):
    # L1 of Section 4: sum_ij |K_ij - S_ij|; sign(K - S) is a subgradient (0 where equal).
    R = K - S
    return float(np.abs(R).sum()), np.sign(R)


def _fro(K, S):
    # L2 of Section 4: ||K - S||_F; gradient (K - S) / ||K - S||_F, and 0 (a subgradient) at K = S.
    R = K - S
    norm = float(np.linalg.norm(R))
    return norm, (R / norm if norm > 0 else np.zeros_like(R))


def _sq_fro(K, S):
    # L3 of Section 4: sum_ij (K_ij - S_ij)^2, gradient 2 (K - S).
    R = K - S
    return float(np.vdot(R, R)), 2.0 * R


LOSSES = {"l1": _l1, "fro": _fro, "sq_fro": _sq_fro}


def resolve_loss(loss):
    """The function (K, S) -> (value, subgradient) for a loss name or a user callable."""
    if callable(loss):
        return _checked(loss)
    if not isinstance(loss, str) or loss not in LOSSES:
        raise ValueError(f"loss must be one of {', '.join(map(repr, LOSSES))} or a callable; got {loss!r}")
    return LOSSES[loss]


def _checked(loss):
    def wrapped(K, S):
        out = loss(K.copy(), S.copy())  # a user function may not write into our arrays
        try:
            value, grad = out
        except (TypeError, ValueError):
            raise TypeError(f"a callable loss must return (value, subgradient); got {type(out).__name__}") from None
        if not isinstance(value, numbers.Real) and not (np.ndim(value) == 0 and np.isreal(value)):
            raise TypeError(f"the loss value must be a real number, got {value!r}")
        grad = np.asarray(grad, dtype=np.float64)
        if grad.shape != K.shape:
            raise ValueError(f"the loss subgradient must have shape {K.shape}, got {grad.shape}")
        if not (np.isfinite(value) and np.isfinite(grad).all()):
            raise ValueError("the loss returned a non-finite value or subgradient")
        if grad.ndim == 2:
            grad = (grad + grad.T) / 2.0  # only the symmetric part acts on symmetric K
        return float(value), grad

    return wrapped


def dense_from_log(V, log_lam):
    """K = V diag(exp(log_lam)) V', exactly symmetric."""
    K = (V * np.exp(log_lam)) @ V.T
    return (K + K.T) / 2.0


def relative_change(sq_diff, sq_start):
    """sqrt(sq_diff / sq_start): the relative Frobenius change of a kernel from its start (0 when
    neither moved nor started anywhere, inf for a move from an all-zero start, e.g. underflow)."""
    if sq_start > 0:
        return float(np.sqrt(sq_diff / sq_start))
    return 0.0 if sq_diff == 0 else float("inf")


def meg_step(V, log_lam, G, eta, tau, *, driver="evd"):
    """One matrix exponentiated-gradient step: (V+, log_lam+) of tau exp(log K - eta G) / tr(.).

    ``M = V diag(log_lam) V' - eta G`` is formed densely and diagonalised once,
    ``M = U diag(theta) U'``; then ``K+ = U diag(tau softmax(theta)) U'`` and
    ``log_lam+ = theta - logsumexp(theta) + log(tau)`` (no exponential overflows or underflows).
    """
    M = (V * log_lam) @ V.T
    M -= eta * G
    theta, U = scipy.linalg.eigh(M, overwrite_a=True, check_finite=False, driver=driver)
    return U, theta - logsumexp(theta) + np.log(tau)


def paper_step(log_lam, G, eta, tau, *, driver="evd"):
    """Algorithms 1-2 as printed: K's eigenvalues reweighted on the subgradient's eigenvectors.

    ``G = U diag(d) U'``; ``lam+_j = tau lam_j exp(-eta d_j) / sum_l lam_l exp(-eta d_l)`` and
    ``K+ = U diag(lam+) U'``. The paper does not say how lam_j and d_j are matched; both are taken
    in ascending order, what ``eigh`` returns for each. This is the mirror step of the entropy only
    when K and G commute (then :func:`meg_step` gives the same K+ for the matching order, and
    from K = tau I / n, the paper's start, the two steps agree for any G); otherwise it is a
    different map, kept so that the paper's own algorithm can be run (``update="paper"``).
    """
    d, U = scipy.linalg.eigh(G, check_finite=False, driver=driver)
    z = np.sort(log_lam) - eta * d
    return U, z - logsumexp(z) + np.log(tau)


def simplex_step(log_mu, g, eta, tau):
    """Entropic step on {mu >= 0, sum mu = tau} (Algorithm 3), in log-domain: returns log mu+."""
    z = log_mu - eta * g
    return z - logsumexp(z) + np.log(tau)


class OneKernelState:
    """copy / start_change / step of an oracle whose state is one kernel as (V, log eigenvalues):
    ESKL's, on the full kernel or restricted to a subspace. The oracle holds ``est`` (its
    ``update``) and ``prep`` (``tau``, ``driver``)."""

    def copy(self, state):
        return (state[0].copy(), state[1].copy())

    def start_change(self, start, state):
        """||K - K^(1)||_F / ||K^(1)||_F (in a subspace with an orthonormal basis, the same of Kr)."""
        K0 = dense_from_log(*start)
        return relative_change(float(np.linalg.norm(dense_from_log(*state) - K0)) ** 2, float(np.linalg.norm(K0)) ** 2)

    def step(self, state, G, eta):
        if self.est.update == "paper":
            return paper_step(state[1], G, eta, self.prep.tau, driver=self.prep.driver)
        return meg_step(state[0], state[1], G, eta, self.prep.tau, driver=self.prep.driver)


class KernelListState:
    """The same for a list of kernels (EMKL's, full or restricted), G holding one subgradient
    per kernel."""

    def copy(self, state):
        return [(V.copy(), l.copy()) for V, l in state]

    def start_change(self, start, state):
        """sqrt(sum_i ||K_i - K_i^(1)||_F^2 / sum_i ||K_i^(1)||_F^2)."""
        num = den = 0.0
        for (V0, l0), (V, l) in zip(start, state):
            K0 = dense_from_log(V0, l0)
            num += float(np.linalg.norm(dense_from_log(V, l) - K0)) ** 2
            den += float(np.linalg.norm(K0)) ** 2
        return relative_change(num, den)

    def step(self, state, G, eta):
        tau, driver = self.prep.tau, self.prep.driver
        if self.est.update == "paper":
            return [paper_step(l, G[i], eta, tau, driver=driver) for i, (_, l) in enumerate(state)]
        return [meg_step(V, l, G[i], eta, tau, driver=driver) for i, (V, l) in enumerate(state)]


class StepRule:
    """eta_t = scale * sqrt(2 sigma B / t) / Lip_t (Proposition 3.1, Theorem 3.2, Proposition 3.2).

    ``sigma * B`` is passed as ``radius``: for one spectraplex with tr K = tau the entropy is
    (1/tau)-strongly convex (w.r.t. the trace norm, hence also the Frobenius norm) and
    B(K, K1) <= tr(K log K) - tr(K log K1) <= tau log(tau / lambda_min(K1)), so
    sigma B <= log(tau / lambda_min(K1)) (= log n for K1 = tau I / n, the paper's value). On a
    product of m of them sigma = 1/(m tau) and B adds up, so sigma B is the *mean* of the m radii.
    ``Lip_t`` is the running maximum of the observed dual norms, ``scale`` is 1 for the theory
    step (the ``step`` parameter of the estimators).
    """

    def __init__(self, radius, scale=1.0):
        self.radius = float(radius)
        self.scale = float(scale)
        self.lip = 0.0

    def __call__(self, t, dual_norm):
        self.lip = max(self.lip, float(dual_norm))
        if self.lip == 0.0:  # zero subgradient: x is optimal, any step leaves it in place
            return 0.0
        return self.scale * np.sqrt(2.0 * self.radius / t) / self.lip


# LowerBound also aggregates the iterates since the last power of two (t/2 < s <= t) and returns
# the larger of the two bounds: both are valid, and the early iterates' linearisations, far from the
# optimum and weighted by the largest steps, dominate the full aggregate. Figures (the certificate
# 4-8x tighter): bench/results/emkl_convergence.md.
SUFFIX_BOUND = True


class _Aggregate:
    """sum_s w_s (f_s - <g_s, x_s>) and sum_s w_s g_s over a set of iterates."""

    def __init__(self):
        self.weight = 0.0
        self.constant = 0.0
        self.G = None

    def add(self, f, g, x_dot_g, eta):
        self.weight += eta
        self.constant += eta * (f - x_dot_g)
        if self.G is None:
            self.G = eta * g
        else:
            self.G += eta * g

    def value(self, min_linear):
        if self.weight == 0.0:
            return -np.inf
        return (self.constant + min_linear(self.G)) / self.weight


class LowerBound:
    """The aggregated-linearisation lower bound on min f (module docstring).

    ``add(f, g, x_dot_g, eta)`` accumulates ``eta (f - <g, x>)`` and ``eta g``;
    ``value(min_linear)`` divides by the sum of the etas after ``min_linear`` turned the
    accumulated ``sum eta g`` into its minimum over the feasible set. The bound holds for any
    weights, so the same sums over the iterates since the last power of two (the second half of
    the run) give a second bound, usually much tighter (the linearisations there are taken near
    the optimum); ``value`` returns the larger (with ``SUFFIX_BOUND``; one more ``min_linear`` per
    call).
    """

    def __init__(self):
        self.all = _Aggregate()
        self.recent = _Aggregate()
        self.count = 0

    @property
    def weight(self):
        return self.all.weight

    def add(self, f, g, x_dot_g, eta):
        if eta <= 0:
            return
        self.all.add(f, g, x_dot_g, eta)
        self.count += 1
        if self.count & (self.count - 1) == 0:  # a power of two: start the suffix afresh
            self.recent = _Aggregate()
        self.recent.add(f, g, x_dot_g, eta)

    def value(self, min_linear):
        bound = self.all.value(min_linear)
        if SUFFIX_BOUND and self.recent.weight < self.all.weight:
            bound = max(bound, self.recent.value(min_linear))
        return bound
