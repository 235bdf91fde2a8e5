"""Structure preserving embedding (Shaw & Jebara 2009; Section 6.3). With W the connectivity
(0/1, symmetric) and N_i the neighbours of i, the triplet constraints d_ij >= d_ik - xi for
k in N_i, j not in N_i (j != i) share one slack:

    min_{K, xi >= 0}  -tr(W K) + C xi
    L = -tr(W K) + C xi - sum_t alpha_t (d_ij - d_ik + xi),    alpha_t >= 0
      = -tr([W + sum_t alpha_t (T_ij - T_ik)] K) + xi (C - sum_t alpha_t)

Minimising over xi >= 0 is finite only for sum alpha <= C, so the dual is
max { -sqrt(B) |(H A H)_+|_F : alpha >= 0, sum alpha <= C } with A = W + sum alpha_t (T_ij - T_ik)
and gradient d_ik - d_ij (the paper writes A = W - sum alpha (T_ik - T_ij), the same matrix; its
dual as printed has the sign of the constraint term flipped). Without centring the problem is
degenerate (K along W's Perron vector, near 11', satisfies every triplet with xi = 0), which is
why Shaw & Jebara's SDP centres K. There are O(n^2 k) triplets, so a cutting plane solves it:
start from K(alpha = 0), ask the C++ oracle for each point's most violated triplets (only i's
farthest neighbour matters), add them, re-solve from the previous alpha, and stop when no
triplet is violated by more than xi + tol * dbar (dbar = 2 tr K / n, the mean squared distance
of a centred K). That final check runs over every triplet, so it certifies the whole problem.
"""

from numbers import Integral

import numpy as np
import scipy.sparse as sp

from .. import _core
from .._utils._graph_arrays import sparse_knn_graph
from .._utils._monitor import Progress
from .._utils._param_validation import Interval, StrOptions, validate_params
from .._utils._validation import check_random_state, resolve_n_threads, validate_X
from ..constraints import core_csr
from ..graph import knn_graph
from ._base import SADDLE_CONSTRAINTS, _SaddleEmbedding, relative_gap
from ._helpers import check_connectivity

__all__ = ["StructurePreservingEmbedding"]


class StructurePreservingEmbedding(_SaddleEmbedding):
    """Structure preserving embedding (Shaw & Jebara 2009) by SimpleNPKL with cutting planes.

    Finds a centred K that maximises tr(W K) while every point's graph neighbours stay closer
    than its non-neighbours (one shared slack, weight C); see the module docstring for the
    derivation and the cutting-plane scheme.

    Parameters
    ----------
    n_components : int, default 2
    n_neighbors : int, default 5
        For ``affinity="nearest_neighbors"``: W is the symmetric binary kNN graph of X.
    affinity : {"nearest_neighbors", "precomputed"}
        ``"precomputed"``: X is the n x n connectivity matrix W (symmetric, 0/1, dense or sparse).
    C : float, default 1.0
    B : float or None
        Bound on tr K^2; None: n (the paper's B = N, i.e. ``B_per_point=1``; the problem is
        scale-free: B only rescales K).
    B_per_point : float or None
        m > 0: B = m x n_samples (the paper's Section 7.5 grid is m in {0.1, 1, 2, 10}); give B
        or B_per_point, not both.
    per_point : int, default 5
        Triplets added per point and round (its most violated).
    max_rounds : int, default 50
    basis, rank, eigen_solver, max_iter, tol, random_state, n_jobs, verbose, callback
        As in :class:`ColoredMVU` (the basis from W's Laplacian); tol also sets the violation
        allowed outside the set.

    Attributes
    ----------
    embedding_, eigenvalues_, eigenvectors_
        As in :class:`ColoredMVU`.
    triplets_ : (t, 3) the active (i, j, k)
    dual_coef_ : their alpha
    basis_ : the basis size used (None: the exact problem)
    B_ : the bound on tr K^2 used
    slack_ : xi at the returned K
    max_violation_ : max over every triplet of d_ik - d_ij
    n_iter_ : rounds
    spectrum_certificate_ : as in SimpleNPKL, of the last saddle-point solve (in the solver's
        units: A of the rescaled data)
    converged_ : whether the last round found no triplet violated beyond the slack (and tol)
    history_ : per round: n_triplets, max_violation, slack, inner_iterations, gap

    Examples
    --------
    >>> import numpy as np
    >>> from kernlearn.datasets import load_iris
    >>> from kernlearn.embedding import StructurePreservingEmbedding
    >>> from kernlearn.graph import knn_graph
    >>> X = load_iris().data
    >>> new = np.arange(150) % 5 == 0  # every fifth flower is held out
    >>> spe = StructurePreservingEmbedding(2, random_state=0).fit(X[~new])
    >>> spe.embedding_.shape, spe.converged_
    ((120, 2), True)
    >>> spe.transform(X[new]).shape  # by the locally linear extension
    (30, 2)

    The learned kernel as a whole (its factor over every eigenpair, not only the top two) keeps
    most of the input's kNN graph:

    >>> W = knn_graph(X[~new], 5)
    >>> round(W.multiply(knn_graph(spe.kernel(), 5)).nnz / W.nnz, 1)
    0.8

    A graph can be embedded directly (there are no features then, so no ``transform``):

    >>> spe = StructurePreservingEmbedding(2, affinity="precomputed", random_state=0).fit(W)
    >>> spe.embedding_.shape
    (120, 2)
    """

    _saddle_progress_level = 2  # the saddle-point solves are the inner loop
    _parameter_constraints = {
        **SADDLE_CONSTRAINTS,
        "affinity": [StrOptions({"nearest_neighbors", "precomputed"})],
        "per_point": [Interval(Integral, 1, None)],
        "max_rounds": [Interval(Integral, 1, None)],
    }

    def __init__(
        self,
        n_components=2,
        *,
        n_neighbors=5,
        affinity="nearest_neighbors",
        C=1.0,
        B=None,
        B_per_point=None,
        basis="auto",
        per_point=5,
        max_rounds=50,
        rank="auto",
        eigen_solver="auto",
        max_iter=1000,
        tol=1e-4,
        random_state=None,
        n_jobs=None,
        verbose=0,
        callback=None,
    ):
        self.n_components = n_components
        self.n_neighbors = n_neighbors
        self.affinity = affinity
        self.C = C
        self.B = B
        self.B_per_point = B_per_point
        self.basis = basis
        self.per_point = per_point
        self.max_rounds = max_rounds
        self.rank = rank
        self.eigen_solver = eigen_solver
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.verbose = verbose
        self.callback = callback

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True  # CSR features, or a sparse precomputed graph
        tags.input_tags.pairwise = self.affinity == "precomputed"
        return tags

    def fit(self, X, y=None):
        """Learn the kernel and the embedding of X's graph.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features) or (n_samples, n_samples)
            Features (dense or CSR), or with ``affinity="precomputed"`` the symmetric 0/1
            connectivity matrix W.
        y : ignored

        Returns
        -------
        self : StructurePreservingEmbedding
        """
        validate_params(self._parameter_constraints, self.get_params(deep=False), type(self).__name__)
        if self.affinity == "precomputed":
            W = check_connectivity(X)
            n = W.shape[0]
            self.n_features_in_ = n
            self._training = None
        else:
            X = validate_X(self, X, accept_sparse=True, min_samples=3)
            n = X.shape[0]
        self._check_common(n)
        if self.affinity != "precomputed":
            if sp.issparse(X):
                W = sparse_knn_graph(X, self.n_neighbors, "symmetric", resolve_n_threads(self.n_jobs))
            else:
                W = knn_graph(X, self.n_neighbors, mode="symmetric", n_jobs=self.n_jobs)
            self._keep_training(X)
        W.sort_indices()
        explicit = self._explicit_bound(n)  # B, or B_per_point x n
        B = float(n) if explicit is None else explicit
        self.B_ = B
        seed = int(check_random_state(self.random_state).randint(np.iinfo(np.int32).max))
        n_threads = resolve_n_threads(self.n_jobs)
        graph = core_csr(W)

        basis = self._laplacian_basis(W, seed)
        triplets = np.zeros((0, 3), dtype=np.int64)
        alpha = np.zeros(0)
        out = self._solve_triplets(n, W, triplets, alpha, B, seed, basis)  # K(alpha = 0): no constraint yet
        history = {"n_triplets": [], "max_violation": [], "slack": [], "inner_iterations": [], "gap": []}
        converged = False
        progress = Progress("StructurePreservingEmbedding", self.verbose, self.max_rounds)
        for round_ in range(self.max_rounds):
            Z = np.ascontiguousarray(np.asarray(out.eigenvectors) * np.sqrt(out.eigenvalues))
            if Z.shape[1] == 0:
                Z = np.zeros((n, 1))
            slack = max(0.0, float(-np.min(out.constraint_values))) if len(triplets) else 0.0
            margin = self.tol * 2.0 * float(np.sum(out.eigenvalues)) / n
            new, _, worst = _core.methods.most_violated_triplets(
                Z, graph, margin=slack + margin, per_point=int(self.per_point), n_threads=n_threads
            )
            history["n_triplets"].append(len(triplets))
            history["max_violation"].append(float(worst))
            history["slack"].append(slack)
            history["inner_iterations"].append(int(out.n_iter))
            history["gap"].append(relative_gap(out))
            progress.report(
                round_ + 1,
                [
                    ("max violation", float(worst), ".3e"),
                    ("slack", slack, ".3e"),
                    ("triplets", len(triplets), "d"),
                    ("inner gap", history["gap"][-1], ".2e"),
                ],
            )
            if len(new) == 0 or self.max_rounds == round_ + 1:
                converged = len(new) == 0
                break
            code = lambda t: (t[:, 0] * n + t[:, 1]) * n + t[:, 2]  # noqa: E731  (one int64 per triplet)
            new = np.asarray(new)[~np.isin(code(np.asarray(new)), code(triplets))]
            if len(new) == 0:  # the oracle's cuts are all in the set already: the inner solve is not tight
                break
            triplets = np.vstack([triplets, new])
            alpha = np.r_[alpha, np.zeros(len(new))]
            out = self._solve_triplets(n, W, triplets, alpha, B, seed, basis)
            alpha = np.array(out.alpha)
        progress.close()
        self._store_kernel(out, 1.0)
        self.triplets_, self.dual_coef_ = triplets, alpha
        self.slack_ = history["slack"][-1]
        self.max_violation_ = history["max_violation"][-1]
        self.n_iter_, self.converged_ = round_ + 1, converged
        self.history_ = {k: np.asarray(v) for k, v in history.items()}
        self._warn_unconverged(converged, f"triplets still violated after max_rounds = {self.max_rounds} rounds")
        return self

    def _solve_triplets(self, n, W, triplets, alpha, B, seed, basis):
        """The restricted problem over the active triplets: C_t = T_ij - T_ik."""
        t = len(triplets)
        if t == 0:
            rows = (np.zeros(1, dtype=np.int64), np.zeros(0, dtype=np.int64), np.zeros(0))
            return self._solve(
                n,
                sparse=W,
                pairs=np.zeros((0, 2), dtype=np.int64),
                rows=rows,
                target=np.zeros(0),
                rho=0.0,
                dual_set="fixed",
                upper=0.0,
                alpha0=np.zeros(0),
                B=B,
                seed=seed,
                basis=basis,
            )
        i, j, k = triplets.T
        ends = np.r_[np.c_[i, j], np.c_[i, k]]
        ends.sort(axis=1)
        pairs, which = np.unique(ends, axis=0, return_inverse=True)
        which = which.ravel()
        # Row t: +1 on pair (i, j), -1 on pair (i, k).
        rows = (
            np.arange(0, 2 * t + 1, 2, dtype=np.int64),
            np.ravel(np.c_[which[:t], which[t:]]).astype(np.int64),
            np.tile([1.0, -1.0], t),
        )
        return self._solve(
            n,
            sparse=W,
            pairs=np.ascontiguousarray(pairs, dtype=np.int64),
            rows=rows,
            target=np.zeros(t),
            rho=0.0,
            dual_set="capped_simplex",
            upper=float(self.C),
            alpha0=alpha,
            B=B,
            seed=seed,
            basis=basis,
        )
