"""The SVM dual omega(K) of eq. (1) and the mixed-norm MKL Omega(K_1, ..., K_m) of eq. (10).

Both use scikit-learn's ``SVC(kernel="precomputed")`` (libsvm). Its ``dual_coef_`` holds
beta = Y alpha on the support vectors (with y = +1 for ``classes_[1]``); only the outer product
beta beta' = Y alpha alpha' Y enters the subgradients, so the sign convention does not matter.

Closed-form gamma (eq. (10)). For fixed alpha let beta = Y alpha and q_i = beta' K_i beta >= 0.
The inner problem over gamma in Delta_m = {gamma >= 0, sum gamma <= 1} is

    max_gamma  -(1/2) sum_i q_i / gamma_i.

Each term -q_i / gamma_i increases with gamma_i, so sum gamma = 1 at the optimum; the Lagrange
condition q_i / gamma_i^2 = nu gives gamma_i = sqrt(q_i) / sum_j sqrt(q_j), and the value is
-(1/2) (sum_i sqrt(q_i))^2 (Cauchy-Schwarz: (sum sqrt q_i)^2 = (sum sqrt(q_i/gamma_i) sqrt(gamma_i))^2
<= sum q_i/gamma_i for any gamma on the simplex, with equality at gamma above). Hence

    Omega = max_alpha  1'alpha - (1/2) (sum_i sqrt(beta' K_i beta))^2,

an l-infinity (non-sparse) combination: every kernel with q_i > 0 keeps a positive weight. The
function h(alpha, gamma) = 1'alpha - (1/2) sum_i q_i(alpha) / gamma_i is jointly concave
(quadratic-over-linear is jointly convex), so alternating its two exact block maximisations (an
SVM with kernel sum_i K_i / gamma_i for alpha, the formula above for gamma) increases h
monotonically; :func:`mkl` stops when the increase is below ``tol`` relative. Omega is a maximum
of functions linear in the K_i, hence convex in (K_1, ..., K_m): the maximisation over gamma is
what makes formulation (6) convex. Its subgradient w.r.t. K_i is -beta beta' / (2 gamma_i)
(Lemma 3.1).

Floor on gamma (a deviation). The maximiser may lie on the boundary: when the kernels are low
rank, the best alpha can make q_i = 0 for some i, so gamma_i -> 0 and the SVM kernel K_i /
gamma_i blows up (libsvm then loses precision and h can *decrease*:
bench/results/similarity.md). There the subgradient -beta beta' / (2 gamma_i) is unbounded too,
while Theorem 3.2 needs a Lipschitz constant. We therefore maximise over Delta_m intersected
with {gamma_i >= GAMMA_MIN} (GAMMA_MIN = 1e-4, so kernel weights stay <= 1e4): Omega stays a
maximum of linear functions of the K_i (convex), and the closed form becomes water-filling,
gamma_i = max(GAMMA_MIN, s sqrt(q_i)) with s such that sum gamma = 1. Whenever the floor is
inactive this is the formula above.
"""

import numpy as np
from sklearn.svm import SVC

__all__ = [
    "svm_dual",
    "mkl",
    "closed_form_gamma",
    "GAMMA_MIN",
    "NonFiniteKernel",
    "LowRankKernels",
    "svm_dual_features",
]

# Lower bound on each gamma_i (module docstring: keeps the SVM kernel and the subgradient bounded).
GAMMA_MIN = 1e-4


class NonFiniteKernel(ValueError):
    """The SVM met a kernel or a solution that is not finite (float64 overflow); the estimators
    re-raise it naming S."""


def svm_dual(K, y, C, tol):
    """Solve the SVM dual (1) with kernel K (n_l x n_l) and labels y in {-1, +1}.

    Returns (omega, beta, intercept) with beta = Y alpha (length n_l) and
    omega = 1'alpha - beta' K beta / 2, the dual value at libsvm's alpha.
    """
    if not np.isfinite(K).all():
        raise NonFiniteKernel("the learned kernel has non-finite entries")
    svc = SVC(kernel="precomputed", C=C, tol=tol, cache_size=200)
    try:
        svc.fit(K, y)
    except ValueError as err:
        if "finite" not in str(err) and "NaN" not in str(err):
            raise
        # libsvm's solution overflowed ("The dual coefficients or intercepts are not finite")
        raise NonFiniteKernel(f"the SVM on the learned kernel failed: {err}") from None
    beta = np.zeros(K.shape[0])
    # classes_ is [-1, 1]: libsvm's dual_coef_ is +alpha for y = +1 and -alpha for y = -1.
    beta[svc.support_] = svc.dual_coef_[0]
    omega = float(np.abs(beta).sum() - 0.5 * beta @ (K @ beta))
    return omega, beta, float(svc.intercept_[0])


def svm_dual_features(F, y, C, tol):
    """:func:`svm_dual` for the kernel K = F F' given by its factor F (n_l x r): libsvm's linear
    kernel on the rows of F, the same dual problem without the n_l x n_l array (at n_l = 2,000,
    r = 90 forming K took longer than the SVM on it: bench/results/similarity_scale.md)."""
    if not np.isfinite(F).all():
        raise NonFiniteKernel("the learned kernel has non-finite entries")
    svc = SVC(kernel="linear", C=C, tol=tol, cache_size=200)
    try:
        svc.fit(F, y)
    except ValueError as err:
        if "finite" not in str(err) and "NaN" not in str(err):
            raise
        raise NonFiniteKernel(f"the SVM on the learned kernel failed: {err}") from None
    beta = np.zeros(F.shape[0])
    beta[svc.support_] = svc.dual_coef_[0]
    omega = float(np.abs(beta).sum() - 0.5 * np.sum((F.T @ beta) ** 2))
    return omega, beta, float(svc.intercept_[0])


def closed_form_gamma(q, gamma_min=GAMMA_MIN):
    """argmax of -(1/2) sum q_i / gamma_i over {sum gamma = 1, gamma_i >= gamma_min}.

    Without the floor gamma_i = sqrt(q_i) / sum_j sqrt(q_j). With it (KKT): gamma_i =
    max(gamma_min, s sqrt(q_i)), s solving sum_i gamma_i = 1; the kernels at the floor are those
    with the smallest q_i, so s is found by trying the k largest sqrt(q_i) as the free set.
    """
    q = np.asarray(q, dtype=float)
    m = q.size
    if m * gamma_min >= 1.0:
        raise ValueError(f"gamma_min = {gamma_min} leaves no room for {m} kernels")
    r = np.sqrt(np.maximum(q, 0.0))
    if r.sum() == 0.0:
        return np.full(m, 1.0 / m)
    order = np.argsort(-r)
    for k in range(m, 0, -1):
        free = order[:k]
        s = (1.0 - gamma_min * (m - k)) / r[free].sum()
        if r[order[k - 1]] * s > gamma_min:  # the smallest free one is above the floor
            gamma = np.full(m, gamma_min)
            gamma[free] = r[free] * s
            return gamma
    return np.full(m, 1.0 / m)  # unreachable: k = 1 always qualifies when r.max() > 0


def combined(Ks, gamma):
    """sum_i K_i / gamma_i."""
    out = Ks[0] / gamma[0]
    for K, g in zip(Ks[1:], gamma[1:]):
        out += K / g
    return out


class LowRankKernels:
    """m PSD kernels on the labelled points given by factors, K_i = F_i F_i' (F_i of shape
    (n_l, r_i)): the fits restricted to a rank, where r_i is far below n_l. The MKL then needs no
    n_l x n_l array at all: sum_i K_i / gamma_i = G G' with G = [F_i / sqrt(gamma_i)], which the
    SVM takes as features (:func:`svm_dual_features`), and q_i = beta' K_i beta = ||F_i' beta||^2. At 2,000 labelled
    points and rank 30 this took EMKL's iteration from about 1 s to a tenth of that, the rest
    being the n_l x n_l sums, stacks and contractions of the dense form
    (bench/results/similarity_scale.md)."""

    def __init__(self, factors):
        self.factors = [np.asarray(F, dtype=np.float64) for F in factors]
        self.shape = (len(self.factors), self.factors[0].shape[0], self.factors[0].shape[0])

    def combined_factor(self, gamma):
        """G with G G' = sum_i K_i / gamma_i."""
        return np.hstack([F / np.sqrt(g) for F, g in zip(self.factors, gamma)])

    def quadratic(self, beta):
        return np.array([float(np.sum((F.T @ beta) ** 2)) for F in self.factors])


def _quadratic(Ks, beta):
    """q_i = beta' K_i beta for every kernel."""
    if isinstance(Ks, LowRankKernels):
        return Ks.quadratic(beta)
    return np.einsum("i,kij,j->k", beta, Ks, beta)


def _svm(Ks, gamma, y, C, tol):
    """The SVM on sum_i K_i / gamma_i: on its factor for LowRankKernels."""
    if isinstance(Ks, LowRankKernels):
        return svm_dual_features(Ks.combined_factor(gamma), y, C, tol)
    return svm_dual(combined(Ks, gamma), y, C, tol)


def mkl(Ks, y, C, *, gamma0=None, tol=1e-6, max_iter=50, svm_tol=1e-5):
    """Omega of eq. (10) by alternating the SVM (alpha) and the closed-form gamma.

    Parameters
    ----------
    Ks : array (m, n_l, n_l) of PSD kernels on the labelled points, or :class:`LowRankKernels`.
    gamma0 : start for gamma (default uniform); warm-started by the mirror-descent loop.

    Returns
    -------
    dict with ``omega`` (max over gamma of h(alpha, gamma) at the last alpha: the exact dual
    function of that alpha), ``beta``, ``gamma`` (the maximiser for that beta: the pair used for the
    subgradient), ``gamma_svm`` and ``intercept`` (the SVM that produced beta, used to predict),
    ``q``, ``n_iter`` and ``history`` (h after every half-step: non-decreasing up to libsvm's tol).
    """
    m = Ks.shape[0]
    gamma = np.full(m, 1.0 / m) if gamma0 is None else np.asarray(gamma0, dtype=float)
    history = []
    previous = -np.inf
    for it in range(1, max_iter + 1):  # noqa: B007  (the count is returned)
        _, beta, intercept = _svm(Ks, gamma, y, C, svm_tol)
        q = _quadratic(Ks, beta)
        total = np.abs(beta).sum()
        h_alpha = float(total - 0.5 * np.sum(q / gamma))  # h after the alpha step
        gamma_svm = gamma
        gamma = closed_form_gamma(q)
        omega = float(total - 0.5 * np.sum(q / gamma))  # after the gamma step: the dual function of alpha
        history += [h_alpha, omega]
        if omega - previous <= tol * max(abs(omega), 1e-300):
            break
        previous = omega
    return {
        "omega": omega,
        "beta": beta,
        "gamma": gamma,
        "gamma_svm": gamma_svm,
        "intercept": intercept,
        "q": q,
        "n_iter": it,
        "history": np.asarray(history),
    }
