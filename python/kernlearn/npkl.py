"""SimpleNPKL: non-parametric kernel learning from pairwise constraints (Zhuang, Tsang & Hoi,
JMLR 12, 2011), solved in C++ on the Lanczos core.

The kernel maximises alignment with must-link (+1) / cannot-link (-1) pairs while staying smooth
on a kNN graph of the data (normalised Laplacian L)::

    min_K  tr(L K) + C * sum over pairs of loss(t_ij K_ij)   s.t.  K psd,  tr K^p <= B
                                                             (or + (G/p) tr K^p: penalty form)

Convention. The paper's sums over "(i, j) in S u D" run over *ordered* pairs (A must be
symmetric), so each unordered constraint counts twice: the constraint matrix is the symmetric T
of eq. (7), the linear-loss matrix is ``A = C T - L``, the saddle-point matrix is
``A(alpha) = (alpha o T) - L`` with one alpha per constraint (alpha_ij = alpha_ji), and for
p = 2 the dual is ``J(alpha) = -sqrt(B) |A_+|_F + 2 sum alpha - sum alpha^2 / C`` (squared hinge
and square loss; hinge: no quadratic term and 0 <= alpha <= C) with gradient
``2 (1 - t_p K_ij - alpha_p / C)`` per constraint. Counting each constraint once is the same
model with C / 2.

Algorithm. Linear loss: one eigendecomposition, K in closed form (Proposition 1; Proposition 2
for the penalty G). Other losses: Algorithm 1, projected gradient ascent on J, every iteration
in C++: the constraint values are re-accumulated on a CSR pattern fixed once, A's positive part
comes from thick-restart Lanczos in threshold mode sized by the previous rank (from 64 points
on a Chebyshev filter of A, see ``rank``),
tr(T_p K) costs O(m r). The base step is 1 / L_t with the local Lipschitz constant
``L_t = 2 (1/G_t + 1/C)`` (``G_t = |A_+|_F / sqrt(B)`` makes K = A_+ / G_t; each pair moves a
distinct entry of A, so Lemma 5's factor m is not needed, and Proposition 6's eta is an inverse
step), and a backtracking test keeps J from falling below its quadratic model. By default the
ascent is accelerated (Nesterov momentum, restarted whenever J falls) and the step grows while
backtracking accepts it at once; ``step="lipschitz"`` is the plain Algorithm 1. Every iterate
gives a lower bound J(alpha) and a feasible K with an upper bound P(K), so the iteration stops
when the best P minus the best J, a certificate, is below ``tol`` relative to P.

p = 1 (trace bound) with a loss other than linear: phi(A) = B max(lambda_max(A), 0) is not
differentiable where lambda_max is multiple, as it is at any optimum of rank > 1, so the primal
min tr(L K) + loss over {K psd, tr K <= B} is solved by fully corrective conditional gradient
(cpp/include/kernlearn/methods/npkl_trace_bound.hpp). The primal's gradient is -A(alpha(K)),
alpha(K) the loss's derivative (squared hinge C max(0, 1 - t K_ij), square C (1 - t K_ij)), so
its linear oracle is B v v' with v A's top eigenvector (one Lanczos solve for k = 1 per
iteration), and its Frank-Wolfe gap B max(lambda_max, 0) - tr(A K) equals P(K) - J(alpha(K)):
the same certificate, with ``dual_coef_`` = alpha(K). K = U E U' is a basis of the atoms found
and a small psd E, re-optimised (accelerated projected gradient) after each new atom. The hinge
is smoothed, alpha = clip(2 (1 - t K_ij) / mu, 0, C), with mu reduced whenever the smoothing
dominates the gap; that alpha lies in [0, C], so J(alpha) = 2 sum alpha - B max(lambda_max, 0) is
a true lower bound and the certificate is the hinge's own.

Errata to the paper (each checked by a test against cvxpy or the closed form):

* Eq. (25) writes K = (-B / tr A_+^(p/(p-1)))^(1/p) A_+^(1/(p-1)); the sign is a misprint, the
  factor is Proposition 1's +B (with -B the root is not real).
* Proposition 1 at p = 1 gives K = B A_1 on the top eigenvector(s) whatever their sign; when
  sigma_max <= 0 that K makes tr(A K) <= 0 and K = 0 is optimal, as tr K <= B is an inequality.
  The code returns K = 0 there, and warns (``tests/test_npkl_defaults.py``).
* Section 7.1's B = 1 makes the saddle-point losses collapse onto the linear loss (see the G
  parameter of :class:`SimpleNPKL`): the paper's Tables 4 and 5, with 10-51 iterations and
  accuracies that differ by loss, cannot come from B = 1 on our scale; they match B = 7.5 n to
  30 n on the mutual graph (bench/results/simplenpkl_table4.md).
* Lemma 5's Lipschitz factor m is not needed (each pair moves a distinct entry of A), see below.
"""

import warnings
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import check_is_fitted

from . import _core
from ._utils import _solver_choice
from ._utils._certificate import spectrum_certificate
from ._utils._graph_arrays import graph_degrees, knn_laplacian_arrays
from ._utils._monitor import Monitor, history_arrays
from ._utils._out_of_sample import TrainingNeighbors, harmonic_rows
from ._utils._param_validation import Interval, StrOptions, validate_params
from ._utils._validation import (
    blas_threads,
    check_int,
    check_random_state,
    resolve_n_threads,
    validate_X,
    warn_unconverged_eigensolves,
)
from .constraints import ConstraintAccumulator, pairs_for_fit
from .linalg import eigsh

__all__ = ["SimpleNPKL"]

LOSSES = ("linear", "squared_hinge", "hinge", "square")

# Upper bounds of B and of a numeric step, the core's (saddle_point.hpp): B = 1e300 and step = 1e308
# ended in "eigensolver of the projected matrix failed" (issue 48; the sweep:
# bench/results/reliability_round2.md). Within them, a kernel or history that still overflows (a
# tiny G, say) is a ValueError from _store.
B_MAX = _core.methods.B_MAX
STEP_MAX = _core.methods.STEP_MAX

# The capacity with neither B nor G given: the penalty form, G = min(DEFAULT_G, G_TIMES_N / n)
# (see the G parameter).
DEFAULT_G = 1e-3
G_TIMES_N = 0.3
# C when not given, with d the pairs per point: min(DEFAULT_C, SADDLE_C_TIMES_PAIRS_PER_POINT / d)
# for the saddle-point losses; for the linear loss max(LINEAR_C_TIMES_PAIRS_PER_POINT / d,
# LINEAR_C_OVER_THRESHOLD * C_0), C_0 the smallest C for which A = C T - L has a positive
# eigenvalue (below it the kernel is zero; see the C parameter and _zero_kernel_threshold).
# Figures: bench/results/npkl_linear_c.md.
DEFAULT_C = 0.3
SADDLE_C_TIMES_PAIRS_PER_POINT = 2.0
LINEAR_C_TIMES_PAIRS_PER_POINT = 0.5
LINEAR_C_OVER_THRESHOLD = 2.0
# Pairs from partially labelled y: this many must- and cannot-link partners per labelled point
# (see the partners parameter).
DEFAULT_PARTNERS = 5

# The per-iteration record fields shown by verbose and handed to the callback, and those of history_.
MONITOR_FIELDS = ("dual", "primal", ("gap", ".2e"), "matvecs", "rank")
HISTORY_FIELDS = ("dual", "primal", "gap", "step", "matvecs", "rank")


def _csr(L, n):
    """The Laplacian's CSR arrays (data, indices, indptr) as a scipy matrix."""
    return sp.csr_matrix(L, shape=(n, n))


def _zero_kernel_threshold(L, n, pairs, labels, C_start, stop_below, seed, n_jobs=None):
    """C_0 (from above): the smallest C for which A(C) = C T - L has a positive eigenvalue, i.e. the
    linear loss's kernel is not zero, or an upper bound of it below ``stop_below`` once that is
    enough to know that C_0 < stop_below.

    f(C) = lambda_max(C T - L) is convex in C (a maximum of functions linear in C), f(0) = 0 (L is
    psd and singular) and f(C) > 0 for large C (T has a positive eigenvalue whenever there is a
    pair), so C_0 = inf {C > 0 : f(C) > 0} exists. From any C with f(C) > 0 and top eigenvector v,
    the tangent's zero ``C' = v'Lv / v'Tv`` (Newton's step) satisfies C_0 <= C' < C; the iterates
    fall monotonically to C_0, quadratically near it. Each step is one top eigenpair of the
    sparse A (no dense matrix above eigsh's dense size), usually 1-2 of them when C_0 is far
    below ``stop_below``, 5-8 on data where the default would give a zero kernel."""
    Lcsr = _csr(L, n)
    acc = ConstraintAccumulator(pairs, n, base=-Lcsr, pair_labels=labels)
    t = labels.astype(np.float64)

    def top(C):
        values, vectors, _ = eigsh(
            acc.assemble(np.full(len(pairs), C)), 1, "LA", tol=1e-10, random_state=seed, n_jobs=n_jobs
        )
        return float(values[0]), vectors[:, 0]

    C = float(C_start)
    value, v = top(C)
    for _ in range(200):  # f grows at least linearly in C beyond C_0: a few factors of 4 suffice
        if value > 0:
            break
        C *= 4.0
        value, v = top(C)
    for _ in range(50):
        vTv = 2.0 * float(np.dot(t, v[pairs[:, 0]] * v[pairs[:, 1]]))  # v'Tv, each pair counted twice
        vLv = float(v @ (Lcsr @ v))
        if not vTv > 0:  # only if f(C) <= 0 still (unreachable for finite pairs): no better bound
            return C
        C_next = max(vLv, 0.0) / vTv  # vTv > 0: C v'Tv = f(C) + v'Lv > 0
        if C_next <= stop_below or C - C_next <= 1e-3 * C:
            return C_next
        value, v_next = top(C_next)
        if value <= 0:  # C_next within the eigensolver's tolerance of C_0
            return C_next
        C, v = C_next, v_next
    return C


class SimpleNPKL(ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    """Non-parametric kernel learning from pairwise constraints, extended to new points.

    ``fit`` learns the kernel of the training points (transductive, as in the paper);
    ``transform`` places new points in it by the harmonic extension of the model's own graph
    regulariser tr(L K) (Zhu, Ghahramani & Lafferty 2003; Bengio et al. 2004, Section 4): a new
    point x is attached to its ``n_neighbors`` nearest training points N(x) with the training
    graph's binary edges (new points are not neighbours of each other), and with the training
    rows held fixed the row minimising tr(L' K') over the augmented graph is

        f(x) = sum_{j in N(x)} f_j / sqrt(d_x (d_j + 1)),    d_x = n_neighbors,

    d_j the training degrees. The cross-kernel is K(x, x_j) = f(x) . f_j (:meth:`kernel`). This
    is not a Nystrom rule: a training point queried as a new point is its own nearest neighbour,
    so ``transform(X_train)`` is a smoothed ``embedding_``, not ``embedding_`` itself, and
    ``fit_transform`` returns ``embedding_``. LLE's reconstruction weights, the embeddings' rule,
    did no better on held-out 1-NN accuracy (figures: bench/results/out_of_sample.md), so the
    rule derived from the model stays.

    Parameters
    ----------
    loss : {"linear", "squared_hinge", "hinge", "square"}, default "squared_hinge"
        The paper's main loss. On the suite's two protocols the three saddle-point losses score
        within about a point of each other, and the hinge needs about twice the iterations. The
        linear loss (closed form, 0 iterations) hangs on C (see C): on the held-out protocol it
        loses 0.6-11 points to the squared hinge on five of six data sets (it wins ionosphere),
        on the paper's it is within 2 points except sonar, where it wins by 8
        (bench/results/npkl_defaults.md, section 3; bench/results/suite.md).
    p : float >= 1, default 2
        The capacity regulariser tr K^p. p = 1 (the trace bound tr K <= B; not with G) makes
        the dual non-differentiable, so the other losses solve the primal there: fully corrective
        Frank-Wolfe on K = U E U', whose linear oracle is A(alpha)'s top eigenvector and whose
        gap is the duality gap; the hinge is smoothed, with continuation, and its certificate
        stays the hinge's own (see the module docstring). ``rank``, ``step`` and ``warm_start``
        do not apply, ``basis`` is refused, and ``history_``'s ``step`` holds the restricted
        problem's gradient steps. p = 2, the paper's choice ("for its simplicity and
        smoothness"), stays the default: its Table 5 and ours find p < 2 worse
        (bench/results/simplenpkl_table5.md).
    B : float > 0, optional
        Trace bound tr K^p <= B (Proposition 1). Give B or G, not both; with neither, the
        penalty form with G = min(%(DEFAULT_G)g, %(G_TIMES_N)g / n) is used (p = 1, which has no penalty form: B = n,
        the trace of a kernel with unit diagonal).
    G : float > 0, optional
        Penalty (G/p) tr K^p instead of the bound (Proposition 2). The default with neither B nor G
        given is min(%(DEFAULT_G)g, %(G_TIMES_N)g / n). K = A_+ / G, and a cluster indicator spread
        over a fixed share of n points gives entries of order 1 / (G n): a fixed G leaves the unit
        margins out of reach as n grows, every dual variable sits at C, and the kernel concentrates
        on the labelled points (unlabelled ARI 0 from n = 3,000 on bench/scale.py's mixture with
        G = 1e-3; 1.0 with the rule, bench/results/npkl_pairs.md). %(DEFAULT_G)g was chosen at p = 2
        on the held-out protocol of bench/results/suite.md, whose data sets have n <= 600 (the rule
        moves it only above 300 points). The paper's B = 1 (Section 7.1) caps every ``|K_ij|`` near
        1 / n: every constraint stays violated, every dual variable sits at C, so the fit ends
        where it starts, at the linear-loss kernel, for every loss (0-2 iterations), and that
        kernel puts next to no mass on the points outside the pairs, which kernel k-means then
        lumps into one cluster (held-out ARI 0.00 on iris and wine). A bound large enough for the
        unit margins t_ij K_ij >= 1 to be met (B = n^2) spreads the kernel (ARI 0.91 / 0.87), but
        where the optimum does not need that room (the square loss always, the others on sonar and
        ionosphere) the bound is inactive, the dual is not differentiable at its optimum and the
        ascent stalls at max_iter. The penalty form is smooth there: G = 1e-3 converged in 9-90
        iterations on every data set tried, as accurate as B = n^2, and 1e-2 falls back towards the
        collapse (figures: bench/results/npkl_defaults.md).
    C : float > 0, optional
        Loss weight (each constraint counted twice, see the module docstring). Default for the
        saddle-point losses: min(0.3, %(SADDLE_C)g / d), d = 2 m / (points in a pair) the pairs per
        point; 0.3 is the value of {0.01, 0.03, 0.1, 0.3, 1} tuned most often in the Table 2
        reproduction (bench/results/simplenpkl_table2.md), where d is about 1.5. Their dual
        variables settle below C wherever a margin is met, but the first iterates (alpha = C) and
        any constraint left violated weigh C times the pair graph's degree against the Laplacian
        (eigenvalues <= 2): at C d of order ten and more the positive part of A is hundreds of
        eigenvectors concentrated on the labelled points, the fit is slow, and the unlabelled
        points get no mass (bench/results/npkl_pairs.md). The linear loss has no margin: its kernel
        is the positive part of C T - L, whose pair term grows with d and swamps the graph term L
        (eigenvalues <= 2) unless C d stays of order one; past that the points outside the pairs
        get no mass, and far below it A has no positive part and K = 0. So its default is 0.5 / d,
        which is 0.3 on the paper's protocol (d about 1.5) (figures:
        bench/results/npkl_defaults.md), raised where needed so that the kernel is never zero:
        C = max(0.5 / d, %(OVER)g C_0), C_0 the smallest C for which C T - L has a positive
        eigenvalue (Newton's method on lambda_max(C T - L), convex in C: 1-2 top eigenpairs of
        the sparse A, 5-8 where the rule binds). Where pairs and graph disagree (classes the
        kNN graph does not separate, as the skull measurements of 5 epochs) 0.5 / d lies below
        C_0 and gave K = 0 on 5 of 5 draws; the rule binds on 3 of 12 development sets and moves
        ARI by -0.3 to +3 points there (figures: bench/results/npkl_linear_c.md). A given C is
        used as it is; if the kernel it gives is zero, ``fit`` warns with C_0 (a zero kernel
        puts every point at the origin, and :class:`kernlearn.cluster.KernelKMeans` refuses its
        0-column factor). The C used is ``C_``.
    partners : int >= 1 or "all", default %(DEFAULT_PARTNERS)d
        The pairs ``fit`` draws from partially labelled y (-1 marks an unlabelled point): each
        labelled point with this many must- and cannot-link partners
        (:func:`kernlearn.constraints.from_labels` with ``partners``), so the pairs grow
        linearly with the labelled count; "all": every pair of labelled points (from_labels'
        default, quadratic, capped at 2**20). On the suite's held-out protocol 5 partners tie
        all pairs on all seven data sets (digits 85.5 against 81.9) with a third to a tenth of the pairs
        (bench/results/npkl_pairs.md). Fully labelled y keeps the papers' protocol (pairs until
        the must-links leave 0.7 n components); given ``pairs`` are used as they are.
    n_neighbors : int, default 5
        The paper's k (Section 7.1). Of 3, 5, 10 and 15 on the held-out protocol it is best or
        within 2 points of the best on all six data sets tried; 3 loses 5-9 points on iris, wine
        and sonar, 10 and 15 lose 8-14 on sonar and glass (bench/results/npkl_defaults.md,
        section 3).
    graph : {"symmetric", "mutual"}, default "symmetric"
        kNN graph: an edge when either (symmetric) or both (mutual: the paper's literal "among
        each other's k nearest neighbours") points are among the other's neighbours. The mutual
        kNN graph of raw features falls apart into many components and lost to the symmetric
        graph on most reproduced data sets, hence the default (figures: bench/results/npkl.md).
    rank : "auto" or int
        "auto": every positive eigenpair of A (exact). An int r: the r largest only, the
        paper's practice; tr K^2 <= B is not a linear constraint, so Proposition 4 does not
        bound the rank and r is an approximation. With ``eigen_solver="auto"`` above
        %(DENSE_LIMIT_N)d points no dense matrix is formed: "auto" raises a ValueError as soon as
        an iterate has more positive eigenpairs than Lanczos may keep in the memory that dense
        matrix would take (800 at n = 10^5; mutual kNN graphs there can have thousands): use an
        int, or ``basis``. From 64 points, the Lanczos solves (either rank)
        run on a degree-%(DEGREE)d Chebyshev polynomial of A that damps the spectrum below zero
        (the Laplacian's wide negative part), and the eigenvalues are the Rayleigh quotients
        against A, which is faster for both kinds of rank (figures: bench/results/npkl.md);
        after an iterate of rank 5 or less they run on A itself, which is faster there
        (bench/results/npkl_sequence.md). A
        rank above the positive count is served too (the filter keeps the order a little below
        zero); pairs that miss the tolerance against A end in plain Lanczos.
    eigen_solver : {"auto", "lanczos", "dense", "mixed"}
        "auto": threshold-mode Lanczos, its kept block grown until no eigenvalue beyond it is
        positive, while the positive rank (or ``rank``) stays below a fraction of n; a dense
        solver for an iterate that has more, and Lanczos again once the rank has fallen below a
        quarter of that (the first iterates, from alpha = C, can have a large rank and the
        optimum a small one: 94 s against 1.1 s at n = 3,000, bench/results/scale.md). The
        fraction is measured: %(SMALL)g for n <= %(DENSE_MAX_N)d, %(DENSE_FRACTION)g above.
        From n = %(MIXED)d on, "auto"'s dense solves are mixed precision. "dense": LAPACK's
        Householder route in double precision, only the wanted eigenvectors computed (MRRR when
        they are few) and transformed back. "mixed": the tridiagonal reduction, which is bound by
        memory bandwidth, in single precision, then one Rayleigh-Ritz step in double against the
        exact A: faster than "dense" for large n, with the same positive count, eigenvalues
        accurate to about ``1e-10 |A|`` and an orthonormal factor, but vector residuals of single
        precision's order (figures: bench/results/npkl.md). The
        objective, the duality gap and the constraint values depend on the eigenvalues and on K
        itself, so they stay accurate: K is feasible by construction and tr(A K) uses the
        refined eigenvalues.
        Ctrl-C stops a fit between the panels of the dense solvers' tridiagonal reduction and
        between their stages; the one step it cannot break is LAPACK's divide and conquer on the
        tridiagonal matrix (xstedc), about 0.2 s at n = 3,000 and 1 s at n = 6,000 (it grows as
        n^3).
    max_iter : int, default 200
    tol : float, default 1e-4
        Relative duality gap at which the saddle-point iteration stops. On the held-out
        protocol the clusterings are settled from 1e-3 on (glass's k-means aside); 1e-4 costs
        1.2-1.6x the iterations of 1e-3 for a certificate worth reporting, 1e-6 another 1.5-2.6x
        (bench/results/npkl_tol.md).
    step : "auto", "lipschitz" or float
        "auto": accelerated ascent (Nesterov momentum with restart) from the step 1 / L_t, grown
        while backtracking accepts it; "lipschitz": Algorithm 1 as such, step 1 / L_t with
        backtracking (J increases at every iterate); a float: a fixed step, no acceleration.
    active_constraints : int, optional
        Section 5.3: pick this many points with the smallest normalised margin
        ``|sum_j T_ij K_ij| / l_i`` and fit on the constraints touching them only. The margins
        are read from the linear-loss kernel (Proposition 1, one eigensolve), a pilot the paper
        leaves open: a pilot as costly as the full fit could not save time. On digits (n = 1,797,
        5,696 pairs) 450 points keep 2,093 pairs and fit 21x faster at equal accuracy (99.1 vs
        99.3 %%), mostly because the smaller rank stays in Lanczos; the same number of random
        pairs does about as well (bench/results/simplenpkl_fig2_defaults.md).
    warm_start : bool, default False
        Start each Lanczos solve from the previous iteration's eigenvectors (a block Rayleigh-Ritz
        step locks the pairs that still meet tol) instead of a random vector. Every solve after
        the first is sized by the previous rank either way, and that is what saves mat-vecs:
        the eigenvector start rarely pays, hence off by default (figures: bench/results/npkl.md).
    basis : int, optional
        Section 5.4: restrict K to ``U E U'`` with U fixed, ``basis`` columns found by Lanczos
        once (see ``basis_from``); every iteration then solves an r x r eigenproblem instead of
        an n x n one. The duality gap is that of the restricted problem.
    basis_from : {"kernel", "laplacian"}, default "kernel"
        The basis U. "kernel", the paper's: the eigenvectors of K, taken from the linear-loss
        kernel, i.e. the top ``basis`` eigenvectors of A(C) = C T - L. "laplacian": the
        ``basis`` smoothest eigenvectors of L (its smallest eigenpairs), which ignore the pairs
        (figures for both: bench/results/npkl_basis.md).
    random_state : int, RandomState or None
        Start vector of the eigensolver and, with ``y``, the drawn pairs.
    n_jobs : int, optional
    verbose : int, default 0
    callback : callable, optional
        Called after each iteration with a dict (iteration, dual, primal, gap, matvecs, rank);
        returning True stops the fit.

    Attributes
    ----------
    eigenvalues_, eigenvectors_ : the kernel is ``V diag(lam) V'`` (never stored dense)
    embedding_ : ``V sqrt(lam)``, n x rank
    dual_coef_ : alpha, one per pair
    C_ : the loss weight used (``C``, or its default for the loss and the pairs)
    G_ : the penalty used (``G``, or its default for n), None under a bound B
    pairs_, pair_labels_ : the constraints used
    n_features_in_ : number of features of X
    feature_names_in_ : X's column names (DataFrames)
    n_iter_, converged_ : iterations and whether the gap met tol
    history_ : dict of arrays per iteration: dual, primal, gap, step, matvecs, rank
    eigen_solver_ : the solver of the last eigensolve ("lanczos", "dense", "mixed" or "basis")
    spectrum_certificate_ : dict, why the kernel kept every positive eigenpair of A(alpha) at the
        returned point: ``method``, ``level`` (eigenvalues at or below it count as zero),
        ``next_eigenvalue`` (the largest eigenvalue of A known beyond the ``kept`` pairs, within
        ``residual`` of a true one; None where not computed) and ``certified`` (the eigensolve
        converged). With Lanczos it is the converged Ritz value below the level that ends the
        threshold solve, so no dense eigendecomposition is needed to trust a low-rank kernel.
    basis_ : Section 5.4's U (n x basis), or None

    Examples
    --------
    About half of 122 flowers labelled (each paired with 5 must- and 5 cannot-link partners);
    the other 28 flowers are new points.

    >>> import numpy as np
    >>> from kernlearn.cluster import KernelKMeans
    >>> from kernlearn.datasets import load_iris
    >>> from kernlearn.evaluation import nmi
    >>> from kernlearn.npkl import SimpleNPKL
    >>> X, y = load_iris(return_X_y=True)
    >>> rng = np.random.RandomState(0)
    >>> train = rng.rand(150) >= 0.2
    >>> y_known = np.where(rng.rand(150) < 0.5, y, -1)[train]  # -1: unlabelled, in no pair
    >>> model = SimpleNPKL(random_state=0).fit(X[train], y_known)
    >>> len(model.pairs_), int((model.pair_labels_ == 1).sum())  # must-links among them
    (510, 239)
    >>> model.embedding_.shape  # the learned kernel of the training points is F F'
    (122, 2)
    >>> model.converged_
    True

    Kernel k-means on the learned kernel, then the new points placed in it:

    >>> km = KernelKMeans(3, random_state=0).fit(model.embedding_)
    >>> round(nmi(y[train], km.labels_), 2)
    0.84
    >>> F_new = model.transform(X[~train])
    >>> F_new.shape
    (28, 2)
    >>> round(nmi(y[~train], km.predict(F_new)), 2)
    1.0
    """

    _parameter_constraints = {
        "loss": [StrOptions(LOSSES)],
        "p": [Interval(Real, 1, None)],
        "B": [Interval(Real, 0, B_MAX, closed="right"), None],
        "G": [Interval(Real, 0, None, closed="neither"), None],
        "C": [Interval(Real, *_core.methods.C_RANGE), None],
        "partners": [Interval(Integral, 1, None), StrOptions({"all"})],
        "n_neighbors": [Interval(Integral, 1, None)],
        "graph": [StrOptions({"symmetric", "mutual"})],
        "rank": [Interval(Integral, 1, None), StrOptions({"auto"})],
        "eigen_solver": [StrOptions({"auto", "lanczos", "dense", "mixed"})],
        "max_iter": [Interval(Integral, 0, None)],
        "tol": [Interval(Real, 0, None, closed="neither")],
        "step": [StrOptions({"auto", "lipschitz"}), Interval(Real, 0, STEP_MAX, closed="right")],
        "active_constraints": [Interval(Integral, 1, None), None],
        "warm_start": ["boolean"],
        "basis": [Interval(Integral, 1, None), None],
        "basis_from": [StrOptions({"kernel", "laplacian"})],
        "random_state": ["random_state"],
        "verbose": ["boolean", Interval(Integral, 0, None)],
        "callback": ["callable", None],
    }

    def __init__(
        self,
        loss="squared_hinge",
        *,
        p=2.0,
        B=None,
        G=None,
        C=None,
        partners=DEFAULT_PARTNERS,
        n_neighbors=5,
        graph="symmetric",
        rank="auto",
        eigen_solver="auto",
        max_iter=200,
        tol=1e-4,
        step="auto",
        active_constraints=None,
        warm_start=False,
        basis=None,
        basis_from="kernel",
        random_state=None,
        n_jobs=None,
        verbose=0,
        callback=None,
    ):
        self.loss = loss
        self.p = p
        self.B = B
        self.G = G
        self.C = C
        self.partners = partners
        self.n_neighbors = n_neighbors
        self.graph = graph
        self.rank = rank
        self.eigen_solver = eigen_solver
        self.max_iter = max_iter
        self.tol = tol
        self.step = step
        self.active_constraints = active_constraints
        self.warm_start = warm_start
        self.basis = basis
        self.basis_from = basis_from
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.verbose = verbose
        self.callback = callback

    def fit(self, X, y=None, *, pairs=None, pair_labels=None):
        """Learn the kernel of the points X from ``pairs`` + ``pair_labels`` (+1 must-link,
        -1 cannot-link), or from class labels ``y`` through
        :func:`kernlearn.constraints.from_labels`.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
            A dense array, a DataFrame or a scipy CSR matrix (text features: the kNN search
            runs on the sparse rows).
        y : array-like of shape (n_samples,), optional
            Class labels of any type, the number -1 marking an unlabelled point (scikit-learn's
            semi-supervised convention); the pairs are drawn from them. Give y or ``pairs``.
        pairs : array-like of shape (n_pairs, 2), optional
            Indices (i, j) into X of the constrained pairs, each unordered pair once.
        pair_labels : array-like of shape (n_pairs,), optional
            +1 (must-link) or -1 (cannot-link) per pair; required with ``pairs``.

        Returns
        -------
        self : SimpleNPKL
        """
        validate_params(self._parameter_constraints, self.get_params(deep=False), type(self).__name__)
        X = validate_X(self, X, accept_sparse=True, min_samples=2)
        n = X.shape[0]
        self._check_params(n)
        rng = check_random_state(self.random_state)
        pairs, labels = pairs_for_fit(n, y, pairs, pair_labels, rng, partners=self.partners)
        if np.all(labels > 0):
            warnings.warn(
                "only must-link pairs: nothing pushes classes apart, so the learned kernel tends to "
                "merge clusters; add cannot-link pairs",
                UserWarning,
                stacklevel=2,
            )
        n_threads = resolve_n_threads(self.n_jobs)
        # The Laplacian stays as the core's CSR arrays; a scipy matrix is built only for the
        # basis and the rank estimate, which small fits skip.
        L = knn_laplacian_arrays(X, self.n_neighbors, self.graph, n_threads)
        seed = int(rng.randint(np.iinfo(np.int32).max))
        if self.active_constraints is not None:
            # Section 5.3 on the linear-loss closed form (one eigensolve), so that the selection
            # costs less than the fit it shortens (figures: bench/results/simplenpkl_fig2_defaults.md).
            C_pilot = self._C_for("linear", L, n, pairs, labels, seed)
            pilot = self._solve(L, n, pairs, labels, seed, None, n_threads, C_pilot, loss="linear")
            keep = self._active_pairs(pairs, labels, pilot)
            pairs, labels = pairs[keep], labels[keep]
        C = self._C_for(self.loss, L, n, pairs, labels, seed)
        basis = self._basis(L, n, pairs, labels, seed, C if self.loss == "linear" else None)
        out = self._solve(L, n, pairs, labels, seed, basis, n_threads, C)
        self._store(out, n, pairs, labels, C)
        self.basis_ = basis
        self._training = TrainingNeighbors(X, self.n_neighbors)
        self._degrees = graph_degrees(L)
        if self.eigenvalues_.size == 0:
            advice = "a larger C gives the pairs more weight against the graph"
            if self.loss == "linear":  # the default C never gets here: it is above the threshold
                C_0 = _zero_kernel_threshold(L, n, pairs, labels, self.C_, 0.0, seed, self.n_jobs)
                advice = (
                    f"the kernel is nonzero from C = {C_0:.3g} on (C=None chooses at least "
                    f"{LINEAR_C_OVER_THRESHOLD:g} times that)"
                )
            warnings.warn(
                f"the learned kernel is zero: A = C T - L had no positive eigenvalue at the optimum "
                f"(C = {self.C_:g}), so every point has the same (zero) embedding and a clustering of "
                f"it has nothing to separate; {advice}",
                UserWarning,
                stacklevel=2,
            )
        if not self.converged_:
            warnings.warn(
                f"SimpleNPKL stopped after {self.n_iter_} iterations with relative duality gap "
                f"{self.history_['gap'][-1] / max(abs(self.history_['primal'][-1]), 1e-300):.2e} > tol = {self.tol}",
                ConvergenceWarning,
                stacklevel=2,
            )
        return self

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags

    def fit_transform(self, X, y=None, **fit_params):
        """``fit`` and return ``embedding_``, the training points' rows of the learned factor.

        Parameters
        ----------
        X, y
            As in :meth:`fit`.
        **fit_params
            ``pairs`` and ``pair_labels``, as in :meth:`fit`.

        Returns
        -------
        embedding : ndarray of shape (n_samples, rank)
        """
        return self.fit(X, y, **fit_params).embedding_

    def transform(self, X):
        """The factor rows of new points X by the harmonic extension (see the class docstring):
        ``transform(X) @ transform(X_other).T`` is their learned kernel.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_new, n_features)
            New points, in the features of the training data.

        Returns
        -------
        F_new : ndarray of shape (n_new, rank)
            rank = ``embedding_.shape[1]``.
        """
        return self._new_rows(X, "X")

    def _new_rows(self, X, name):
        """transform's rows, errors naming the argument X stands for."""
        check_is_fitted(self, "eigenvectors_")
        X = validate_X(self, X, reset=False, accept_sparse=True, name=name)
        indices, _ = self._training.query(X)
        return harmonic_rows(self.embedding_, self._degrees, indices)

    def kernel(self, X=None, X_other=None, *, dense=False):
        """The learned kernel.

        Without X: the training points' factor ``embedding_`` (K = F F'), or with ``dense=True``
        the n x n matrix. With X: the (n_new, n_train) cross-kernel K(X, X_train), or with
        ``X_other`` the (n_new, n_other) kernel between two sets of new points, both through
        :meth:`transform`."""
        check_is_fitted(self, "eigenvectors_")
        if X is None:
            if X_other is not None:
                raise ValueError("X_other needs X: kernel(X, X_other) is the kernel between two sets of new points")
            if dense:
                return (self.eigenvectors_ * self.eigenvalues_) @ self.eigenvectors_.T
            return self.embedding_
        F = self._new_rows(X, "X")
        F_other = self.embedding_ if X_other is None else self._new_rows(X_other, "X_other")
        return F @ F_other.T

    @property
    def _n_features_out(self):
        """Columns of ``transform``'s output (the learned rank), for ``get_feature_names_out``."""
        return self.embedding_.shape[1]

    # -- internals ---------------------------------------------------------------------------

    def _check_params(self, n):
        """The rules that tie parameters to each other or to the data (the table checks the rest)."""
        if self.B is not None and self.G is not None:
            raise ValueError("give the trace bound B or the penalty G, not both")
        if self.G is not None and self.p == 1:
            raise ValueError("p = 1 needs the trace bound B (with the penalty G, K is 0 or unbounded)")
        if self.p == 1 and self.loss != "linear" and self.basis is not None:
            raise ValueError("basis is not supported with p = 1 and a loss other than linear")
        check_int(self.n_neighbors, "n_neighbors", low=1, high=n)
        if not isinstance(self.rank, str):
            check_int(self.rank, "rank", low=1, high=n)
        if self.active_constraints is not None:
            check_int(self.active_constraints, "active_constraints", low=1, high=n + 1)
        if self.basis is not None:
            check_int(self.basis, "basis", low=1, high=n)

    def _choose_solver(self, n):
        """(eigen solver for the core, the rank fraction of n beyond which its "auto" leaves
        Lanczos). "auto" runs threshold-mode Lanczos, its block grown until no eigenvalue beyond it
        is positive, and takes LAPACK only for a solve whose positive rank exceeds the fraction,
        returning to Lanczos once the rank has fallen (the first iterate, alpha = C, can have a
        large positive rank and the optimum a small one). Above DENSE_LIMIT_N no dense matrix is
        formed: the fraction is Lanczos's memory cap, and a larger rank is an error naming rank and
        basis (the core's dense_max_n)."""
        if n > _solver_choice.DENSE_LIMIT_N:
            return self.eigen_solver, _solver_choice.saddle_lanczos_max_rank(n) / n
        return self.eigen_solver, _solver_choice.auto_dense_fraction(n)

    def _basis(self, L, n, pairs, labels, seed, C_linear=None):
        """Section 5.4's U (None: no basis): the top eigenvectors of A(C) = C T - L, the
        linear-loss kernel's eigenvectors extended by its next directions ("kernel", the
        paper's; C the linear loss's, ``C_linear`` when already known), or the smoothest
        eigenvectors of L, as the largest of 2I - L ("laplacian")."""
        if self.basis is None:
            return None
        if self.basis_from == "kernel":
            C = C_linear if C_linear is not None else self._C_for("linear", L, n, pairs, labels, seed)
            M = ConstraintAccumulator(pairs, n, base=-_csr(L, n), pair_labels=labels).assemble(np.full(len(pairs), C))
        else:
            M = (2.0 * sp.identity(n, format="csr") - _csr(L, n)).tocsr()
        _, U, _ = eigsh(M, int(self.basis), random_state=seed, n_jobs=self.n_jobs)
        return np.ascontiguousarray(U, dtype=np.float64)

    def _C_for(self, loss, L, n, pairs, labels, seed):
        """The C parameter, or its default for this loss, these pairs and this graph (the C
        parameter's docstring states the rules)."""
        if self.C is not None:
            return float(self.C)
        per_point = 2.0 * len(pairs) / np.unique(pairs).size
        if loss != "linear":
            return min(DEFAULT_C, SADDLE_C_TIMES_PAIRS_PER_POINT / per_point)
        C = LINEAR_C_TIMES_PAIRS_PER_POINT / per_point
        # Never a zero kernel: at least LINEAR_C_OVER_THRESHOLD times the smallest C with one
        # (bench/results/npkl_linear_c.md). The threshold is sought only as far as it can bind.
        C_0 = _zero_kernel_threshold(L, n, pairs, labels, C, C / LINEAR_C_OVER_THRESHOLD, seed, self.n_jobs)
        return max(C, LINEAR_C_OVER_THRESHOLD * C_0)

    def _G_for(self, n):
        """The G parameter, its default for n, or None when a bound B is used."""
        if self.G is not None:
            return float(self.G)
        if self.B is not None or self.p == 1:
            return None
        return min(DEFAULT_G, G_TIMES_N / n)

    def _options(self, solver, fraction, seed, loss, n, C):
        """NpklOptions: the user's parameters, and for the rest the core's defaults."""
        methods = _core.methods
        spectral = dict(
            p=float(self.p),
            eigen_solver=methods.SpectralSolver.__members__[solver],
            dense_fraction=fraction,
            dense_max_n=_solver_choice.DENSE_LIMIT_N,
            max_iter=int(self.max_iter),
            tol=float(self.tol),
            warm_start=bool(self.warm_start),
            seed=seed,
        )
        if self.B is not None:
            spectral["B"] = float(self.B)
        elif self.G is None and self.p == 1:
            spectral["B"] = float(n)
        elif self._G_for(n) is not None:
            spectral["G"] = self._G_for(n)
        if not isinstance(self.rank, str):
            spectral["rank"] = int(self.rank)
        if self.step != "auto":  # Algorithm 1 as such: no momentum, no adaptive step
            spectral["accelerate"] = False
            if not isinstance(self.step, str):
                spectral["step"] = float(self.step)
        return methods.NpklOptions(
            loss=methods.NpklLoss.__members__[loss],
            C=C,
            spectral=methods.SpectralOptions(**spectral),
        )

    def _solve(self, L, n, pairs, labels, seed, basis, n_threads, C, loss=None):
        if basis is not None:
            solver, fraction = "lanczos", _solver_choice.DENSE_FRACTION  # unused: every solve is r x r
        else:
            solver, fraction = self._choose_solver(n)
        data, indices, indptr = L
        monitor = Monitor(
            "SimpleNPKL",
            self.verbose,
            self.callback,
            MONITOR_FIELDS,
            max_iter=self.max_iter,
            objective="primal",
            certificate="gap",
        )
        with monitor, blas_threads(n_threads):
            out = _core.methods.simple_npkl(
                _core.methods.Csr(n=n, indptr=indptr, indices=indices, data=data),
                pairs,
                labels,
                options=self._options(solver, fraction, seed, loss or self.loss, n, C),
                basis=basis,
                callback=monitor.core_callback(),
                n_threads=n_threads,
            )
        warn_unconverged_eigensolves(out, "SimpleNPKL")
        if basis is not None:
            self.eigen_solver_ = "basis"
        elif out.used_dense:  # what ran last
            self.eigen_solver_ = "mixed" if out.used_mixed_precision else "dense"
        else:
            self.eigen_solver_ = "lanczos"
        return out

    def _active_pairs(self, pairs, labels, out):
        """Section 5.3: the constraints of the points with the smallest |margin| / l_i."""
        V, lam = out.eigenvectors, out.eigenvalues
        n = V.shape[0]
        Kij = ConstraintAccumulator(pairs, n, n_jobs=self.n_jobs).inner(V, lam) / 2  # tr(T_p K) = 2 K_ij
        ends = np.r_[pairs[:, 0], pairs[:, 1]]
        margin = np.bincount(ends, np.r_[labels * Kij, labels * Kij], minlength=n)
        count = np.bincount(ends, minlength=n)
        touched = np.flatnonzero(count > 0)
        score = np.abs(margin[touched]) / count[touched]
        chosen = touched[np.argsort(score, kind="stable")[: self.active_constraints]]
        mask = np.zeros(n, dtype=bool)
        mask[chosen] = True
        return mask[pairs[:, 0]] | mask[pairs[:, 1]]

    def _store(self, out, n, pairs, labels, C):
        self.eigenvalues_ = np.array(out.eigenvalues)
        # A zero kernel (no positive eigenvalue) may come back as a 0 x 0 matrix: n x 0 here.
        self.eigenvectors_ = np.array(out.eigenvectors).reshape(n, self.eigenvalues_.size)
        self.embedding_ = self.eigenvectors_ * np.sqrt(self.eigenvalues_)
        self.dual_coef_ = np.array(out.alpha)
        self.pairs_, self.pair_labels_ = pairs, labels.astype(np.int64)
        self.C_ = C
        self.G_ = self._G_for(n)
        self.n_iter_ = int(out.n_iter)
        self.converged_ = out.status == _core.core.SolverStatus.converged
        self.history_ = history_arrays(out.history, HISTORY_FIELDS)
        self.spectrum_certificate_ = spectrum_certificate(out)
        finite = np.isfinite(self.embedding_).all() and all(np.isfinite(v).all() for v in self.history_.values())
        if not finite:  # never a kernel or a history with inf / NaN (issue 48: G = 5e-324, say)
            raise ValueError(
                f"the learned kernel or its objective overflows float64 with B = {self.B!r}, G = {self.G!r}, "
                f"C = {self.C_!r}: give values nearer 1 (K grows with B and with 1 / G)"
            )


if SimpleNPKL.__doc__:  # None under python -OO
    SimpleNPKL.__doc__ = SimpleNPKL.__doc__ % {
        "DENSE_MAX_N": _solver_choice.DENSE_MAX_N,
        "DENSE_LIMIT_N": _solver_choice.DENSE_LIMIT_N,
        "DENSE_FRACTION": _solver_choice.DENSE_FRACTION,
        "SMALL": _solver_choice.SMALL_N_DENSE_FRACTION,
        "MIXED": _core.methods.MIXED_PRECISION_MIN_N,
        "DEGREE": _core.linalg.FILTER_DEGREE,
        "DEFAULT_G": DEFAULT_G,
        "G_TIMES_N": G_TIMES_N,
        "SADDLE_C": SADDLE_C_TIMES_PAIRS_PER_POINT,
        "OVER": LINEAR_C_OVER_THRESHOLD,
        "DEFAULT_PARTNERS": DEFAULT_PARTNERS,
    }
