"""Clustering on learned kernels."""

import numbers

import numpy as np
import scipy.linalg
from scipy.sparse.linalg import LinearOperator
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, ClusterMixin, TransformerMixin
from sklearn.cluster import KMeans
from sklearn.utils.validation import check_is_fitted

from .._utils._operators import check_symmetric_operator
from .._utils._param_validation import Interval, StrOptions, validate_params
from .._utils._scaling import binary_exponent
from .._utils._validation import as_real_array, check_random_state, validate_X

__all__ = ["KernelKMeans"]

# Rows of new points handled at a time by transform/predict (bounds the m x k temporaries).
_BLOCK_ROWS = 1024


def _centre_weights(labels, n_clusters, previous=None):
    """A (n x k) with column c = the indicator of cluster c / |c|, so that the centre of c is F'a_c.
    An empty cluster keeps its column of ``previous`` (its last centre), or a zero column."""
    n = labels.shape[0]
    A = np.zeros((n, n_clusters))
    A[np.arange(n), labels] = 1.0
    sizes = A.sum(0)
    empty = sizes == 0
    A[:, ~empty] /= sizes[~empty]
    if previous is not None and empty.any():
        A[:, empty] = previous[:, empty]
    return A


def _squared_distances(F, centres, centre_norms):
    """|f_i - c|^2 for the rows of F, clipped at 0 (it is a difference of rounded terms)."""
    D = np.einsum("ij,ij->i", F, F)[:, None] - 2.0 * (F @ centres.T) + centre_norms[None, :]
    return np.maximum(D, 0.0, out=D)


def _common_scale(F, centres):
    """(e, F / 2^e, centres / 2^e) with one power of two for both (exact): their products and
    squares stay in float64's range."""
    exponent = binary_exponent(F, centres)
    return exponent, np.ldexp(F, -exponent), np.ldexp(centres, -exponent)


def _scaled_squared_distances(F, centres, name="X"):
    """|f_i - c|^2 computed on F / 2^e and the centres / 2^e (exact) and scaled back by 4^e, so
    the squares overflow only where the distances themselves do: then a ValueError naming the
    argument, never inf or NaN (inf - inf) in the result."""
    exponent, Fs, Cs = _common_scale(F, centres)
    D = _squared_distances(Fs, Cs, np.einsum("ij,ij->i", Cs, Cs))
    with np.errstate(over="ignore"):
        D = np.ldexp(D, 2 * exponent)
    if not np.isfinite(D).all():
        raise ValueError(
            f"{name}: the squared distances to the centres overflow float64 (max |{name}| = "
            f"{float(np.abs(F).max()):.3g}): rescale {name}"
        )
    return D


def _operator_diagonal(K):
    """The diagonal of an operator without one: n products with unit vectors, in blocks."""
    n = K.shape[0]
    out = np.empty(n)
    for start in range(0, n, 256):
        block = np.eye(n, min(256, n - start), -start)
        out[start : start + block.shape[1]] = np.einsum("ij,ij->j", block, np.asarray(K.matmat(block)))
    return out


def _operator_distances(K, diagonal, A):
    """(D, centre norms): D_ic = |phi(x_i) - m_c|^2 = K_ii - 2 (K A)_ic + (A'KA)_cc for centre
    weights A (n x k), from one product K A (unclipped: a difference of rounded terms)."""
    KA = np.asarray(K.matmat(A), dtype=np.float64)
    norms = np.einsum("ic,ic->c", A, KA)
    return diagonal[:, None] - 2.0 * KA + norms[None, :], norms


def _operator_column(K, j):
    """Column j of a LinearOperator: its own column() when it has one, else K e_j."""
    if hasattr(K, "column"):
        return np.asarray(K.column(j), dtype=np.float64)
    unit = np.zeros(K.shape[1])
    unit[j] = 1.0
    return np.asarray(K.matvec(unit), dtype=np.float64).ravel()


class KernelKMeans(ClassNamePrefixFeaturesOutMixin, TransformerMixin, ClusterMixin, BaseEstimator):
    """k-means in the feature space of a kernel, with out-of-sample ``predict`` and ``transform``.

    Kernel k-means on K = F F' is k-means on the rows of F (the feature-space distances are the
    same), so a low-rank kernel is clustered through its factor at O(n r) per iteration; a
    dense kernel matrix is factored once by its eigendecomposition (negative eigenvalues,
    rounding in a PSD kernel, are clipped: the kernel clustered is K+ = F F').

    After scikit-learn's k-means the fit runs Lloyd steps until the labels are a fixed point, so
    every centre is exactly the mean of its members (a centre whose cluster empties keeps its last
    value) and ``labels_`` is the nearest-centre rule applied to the training points: ``predict``
    on the training data reproduces ``labels_``.

    Out-of-sample rule (the kernel k-means distance, e.g. Dhillon, Guan & Kulis, KDD 2004). With
    a_c the indicator of cluster c divided by ``|c|``, the squared feature-space distance of a
    point x to the centre of c is::

        |phi(x) - m_c|^2 = k(x, x) - 2 sum_j a_cj k(x, x_j) + a_c' K+ a_c
                         = k(x, x) - 2/|c| sum_{j in c} k(x, x_j) + 1/|c|^2 sum_{j,l in c} K+_jl.

    ``predict`` takes the argmin over c, which does not need k(x, x). The centre norms
    ``a_c' K+ a_c = |F'a_c|^2`` are those of the kernel the fit clustered (K+, the clipped kernel), so
    on a PSD K (K+ = K up to rounding) ``predict(K)`` reproduces ``labels_`` and
    ``transform(K, np.diag(K))`` the distances of the fitted factor. With ``kernel="factor"`` the
    same rule is the Euclidean distance of the new rows to ``cluster_centers_``.

    Parameters
    ----------
    n_clusters : int, default 2
    kernel : {"factor", "precomputed"}, default "factor"
        What ``fit`` receives: a factor F (n x r, e.g. ``SimpleNPKL().embedding_``) or the
        n x n kernel matrix. ``predict``/``transform`` then take new factor rows (m x r, e.g.
        ``SimpleNPKL().transform`` of new points) or the m x n cross-kernel k(new, training).
        The precomputed kernel may be a symmetric LinearOperator, e.g.
        :class:`kernlearn.kernels.KernelOperator`, never formed: the fit then runs Lloyd's
        iteration on the kernel itself (one product with an n x k block per step, O(n k)
        memory), seeded by kernel k-means++ (one column per seed), ``n_init`` times.
    n_init, max_iter, tol, random_state
        As in :class:`sklearn.cluster.KMeans`.

    Attributes
    ----------
    labels_ : ndarray (n,)
    cluster_centers_ : ndarray (n_clusters, r)
        The centres in factor space (``kernel="factor"`` only: with a precomputed kernel the
        factor is an internal eigenbasis and the centres are held as weights of training points).
    inertia_ : float
        Sum of the squared feature-space distances of the training points to their centres.
    n_iter_ : int
        Iterations of scikit-learn's k-means (the Lloyd steps after it are not counted).
    n_features_in_ : int
        r, or n for a precomputed kernel.

    Examples
    --------
    With a precomputed kernel: fit on the training kernel, then place new points by their
    cross-kernel with the training points. (With ``kernel="factor"``, the default, ``fit`` takes a
    factor such as ``SimpleNPKL().embedding_`` and ``predict`` its ``transform`` of new points;
    see :class:`kernlearn.npkl.SimpleNPKL`.)

    >>> import numpy as np
    >>> from kernlearn.cluster import KernelKMeans
    >>> from kernlearn.datasets import load_iris
    >>> from kernlearn.evaluation import nmi
    >>> from kernlearn.kernels import rbf_kernel
    >>> X, y = load_iris(return_X_y=True)
    >>> test = np.random.RandomState(0).rand(150) < 0.2  # hold out about a fifth
    >>> K = rbf_kernel(X[~test], gamma=0.5)
    >>> km = KernelKMeans(3, kernel="precomputed", random_state=0).fit(K)
    >>> sorted(np.bincount(km.labels_).tolist())
    [34, 42, 46]
    >>> round(nmi(y[~test], km.labels_), 2)
    0.79
    >>> K_new = rbf_kernel(X[test], X[~test], gamma=0.5)  # k(new, training)
    >>> round(nmi(y[test], km.predict(K_new)), 2)
    0.82
    >>> km.transform(K_new, kernel_diagonal=np.ones(len(K_new))).shape  # k(x, x) = 1 for the RBF kernel
    (28, 3)
    """

    _parameter_constraints = {
        "n_clusters": [Interval(numbers.Integral, 1, None)],
        "kernel": [StrOptions({"factor", "precomputed"})],
        "n_init": [StrOptions({"auto"}), Interval(numbers.Integral, 1, None)],
        "max_iter": [Interval(numbers.Integral, 1, None)],
        "tol": [Interval(numbers.Real, 0, None)],
        "random_state": ["random_state"],
    }

    def __init__(self, n_clusters=2, *, kernel="factor", n_init=10, max_iter=300, tol=1e-4, random_state=None):
        self.n_clusters = n_clusters
        self.kernel = kernel
        self.n_init = n_init
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = self.kernel == "precomputed"
        return tags

    @property
    def _n_features_out(self):
        """transform's columns: one squared distance per cluster."""
        return int(self.n_clusters)

    def _fit(self, X):
        """Fit; return the factor clustered and the final centres (k x r)."""
        validate_params(self._parameter_constraints, self.get_params(deep=False), type(self).__name__)
        if isinstance(X, LinearOperator):
            return self._fit_operator(X)
        try:
            F = validate_X(self, X, reset=True)
        except ValueError as err:
            if self.kernel == "factor" and "0 feature(s)" in str(err):
                # scikit-learn's convention for empty features; say what it means for a kernel factor.
                raise ValueError(
                    f"{err} The kernel is zero (e.g. SimpleNPKL found no positive part), so every point "
                    "is the same point"
                ) from None
            raise
        n_clusters = int(self.n_clusters)
        if n_clusters > F.shape[0]:
            raise ValueError(f"n_clusters must be <= the number of samples in X ({F.shape[0]}), got {n_clusters}")
        if self.kernel == "precomputed":
            if F.shape[0] != F.shape[1]:
                raise ValueError(f"a precomputed kernel must be square, got shape {F.shape}")
            if not np.allclose(F, F.T, rtol=1e-10, atol=1e-12 * np.abs(F).max()):
                raise ValueError("X, a precomputed kernel, must be symmetric")
            w, V = scipy.linalg.eigh(F)
            F = V * np.sqrt(np.clip(w, 0.0, None))
        # The clustering runs on F / 2^e (the labels do not change; exact): squares of data near
        # 1e200 would overflow. The distances and the inertia come back in X's units, or a
        # ValueError when they do not fit a float64.
        exponent = binary_exponent(F)
        Fs = np.ldexp(F, -exponent)
        km = KMeans(
            n_clusters,
            n_init=self.n_init,
            max_iter=self.max_iter,
            tol=self.tol,
            random_state=check_random_state(self.random_state),
        ).fit(Fs)
        labels, A, centres = self._lloyd_fixed_point(Fs, km.labels_.astype(np.intp), n_clusters)
        centres = np.ldexp(centres, exponent)
        self.labels_ = labels
        with np.errstate(over="ignore"):
            centre_norms = np.einsum("ij,ij->i", centres, centres)
            inertia = float(np.take_along_axis(_scaled_squared_distances(F, centres), labels[:, None], 1).sum())
        if not np.isfinite(inertia):
            raise ValueError("X: the inertia (sum of squared distances) overflows float64: rescale X")
        self.inertia_ = inertia
        self.n_iter_ = int(km.n_iter_)
        self._centre_norms = centre_norms
        if self.kernel == "factor":
            self.cluster_centers_ = centres
        else:
            self._centre_weights = A
        return F, centres, centre_norms

    def _fit_operator(self, K):
        """Kernel k-means on a symmetric operator K (kernel="precomputed"): the best of n_init runs
        of kernel k-means++ seeding and Lloyd steps to a fixed point, every distance
        |phi(x_i) - m_c|^2 = K_ii - 2 (K A)_ic + (A'KA)_cc from one product K A per step. Returns
        (None, None, None): there is no factor (fit_transform recomputes the distances)."""
        if self.kernel != "precomputed":
            raise ValueError(
                "X is a LinearOperator: pass kernel='precomputed' to cluster the points of a kernel operator"
            )
        rng = check_random_state(self.random_state)
        check_symmetric_operator(K, "X", rng)
        n, n_clusters = K.shape[0], int(self.n_clusters)
        if n_clusters > n:
            raise ValueError(f"n_clusters must be <= the number of samples in X ({n}), got {n_clusters}")
        diagonal = np.asarray(K.diagonal() if hasattr(K, "diagonal") else _operator_diagonal(K), dtype=np.float64)
        runs = 1 if self.n_init == "auto" else int(self.n_init)
        best = None
        for _ in range(runs):
            labels = self._kmeans_pp(K, diagonal, n_clusters, rng)
            result = self._lloyd_on_operator(K, diagonal, labels, n_clusters)
            if best is None or result[3] < best[3]:
                best = result
        labels, A, (D, norms), inertia, n_iter = best
        self.labels_ = labels
        self.inertia_ = float(inertia)
        self.n_iter_ = int(n_iter)
        self._centre_norms = norms
        self._centre_weights = A
        self.n_features_in_ = n
        self._fit_distances = D
        return None, None, None

    @staticmethod
    def _kmeans_pp(K, diagonal, n_clusters, rng):
        """Kernel k-means++ (Arthur & Vassilvitskii 2007 in feature space): each seed drawn with
        probability proportional to its squared distance to the nearest seed so far, one column
        of K per seed; returns the labels of the nearest seeds."""
        n = K.shape[0]
        seed = int(rng.randint(n))
        column = _operator_column(K, seed)
        nearest = np.maximum(diagonal - 2.0 * column + diagonal[seed], 0.0)
        labels = np.zeros(n, dtype=np.intp)
        for c in range(1, n_clusters):
            total = nearest.sum()
            seed = int(rng.choice(n, p=nearest / total)) if total > 0 else int(rng.randint(n))
            column = _operator_column(K, seed)
            distance = np.maximum(diagonal - 2.0 * column + diagonal[seed], 0.0)
            closer = distance < nearest
            labels[closer] = c
            nearest = np.where(closer, distance, nearest)
        return labels

    def _lloyd_on_operator(self, K, diagonal, labels, n_clusters):
        """Lloyd steps on the kernel until the labels repeat: (labels, A, (distances, centre norms),
        inertia, steps) for the returned labels' centres; one product K A per step."""
        A = _centre_weights(labels, n_clusters)
        D, norms = _operator_distances(K, diagonal, A)
        steps = 0
        while steps < int(self.max_iter):
            steps += 1
            new = np.argmin(D, axis=1)
            if np.array_equal(new, labels):
                break
            labels = new
            A = _centre_weights(labels, n_clusters, previous=A)
            D, norms = _operator_distances(K, diagonal, A)
        np.maximum(D, 0.0, out=D)
        inertia = float(np.take_along_axis(D, labels[:, None], 1).sum())
        return labels, A, (D, norms), inertia, steps

    def _lloyd_fixed_point(self, F, labels, n_clusters):
        """Lloyd steps from k-means' labels until they repeat: centres = F'A, A the member means."""
        A = _centre_weights(labels, n_clusters)
        for _ in range(int(self.max_iter)):
            centres = A.T @ F
            new = np.argmin(_squared_distances(F, centres, np.einsum("ij,ij->i", centres, centres)), axis=1)
            if np.array_equal(new, labels):
                return labels, A, centres
            labels = new
            A = _centre_weights(labels, n_clusters, previous=A)
        centres = A.T @ F  # max_iter Lloyd steps: label by the last centres, whatever they are
        labels = np.argmin(_squared_distances(F, centres, np.einsum("ij,ij->i", centres, centres)), axis=1)
        return labels, A, centres

    def fit(self, X, y=None):
        """Cluster the factor rows X (n x r), or the points of the n x n kernel matrix X.

        Parameters
        ----------
        X : array-like of shape (n_samples, r) or (n_samples, n_samples)
            A kernel factor F (K = F F', ``kernel="factor"``) or the kernel matrix K
            (``kernel="precomputed"``, symmetric).
        y : ignored

        Returns
        -------
        self : KernelKMeans
        """
        self._fit(X)
        return self

    def fit_predict(self, X, y=None):
        """Fit and return ``labels_``.

        Parameters
        ----------
        X : array-like of shape (n_samples, r) or (n_samples, n_samples)
            As in :meth:`fit`.
        y : ignored

        Returns
        -------
        labels : ndarray of shape (n_samples,)
        """
        return self.fit(X).labels_

    def fit_transform(self, X, y=None):
        """Fit and return the training points' squared distances to the centres,
        in the feature space of the kernel the fit clustered (for a precomputed K, the clipped
        K+): ``transform(K, np.diag(K))`` gives the same on a PSD K.

        Parameters
        ----------
        X : array-like of shape (n_samples, r) or (n_samples, n_samples)
            As in :meth:`fit`.
        y : ignored

        Returns
        -------
        distances : ndarray of shape (n_samples, n_clusters)
        """
        F, centres, centre_norms = self._fit(X)
        if F is None:  # a kernel operator: the distances of its Lloyd steps
            return self._fit_distances
        return _scaled_squared_distances(F, centres)

    def _cross_terms(self, X):
        """For validated new rows X: (the -2 <phi(x), m_c> + |m_c|^2 part of the distances, m x k);
        with a factor, of X and the centres divided by a power of two (only predict uses it)."""
        if self.kernel == "factor":  # on X / 2^e and the centres / 2^e: predict's argmin is the same
            _, Xs, Cs = _common_scale(X, self.cluster_centers_)
            return np.einsum("ij,ij->i", Cs, Cs)[None, :] - 2.0 * (Xs @ Cs.T)
        return self._centre_norms[None, :] - 2.0 * (X @ self._centre_weights)

    def _check_new(self, X, kernel_diagonal=None, *, need_diagonal=False):
        check_is_fitted(self)
        X = validate_X(self, X, reset=False)
        if self.kernel == "factor":
            if kernel_diagonal is not None:
                raise ValueError("kernel_diagonal is only for kernel='precomputed' (a factor's rows give it)")
            return X, np.einsum("ij,ij->i", X, X)
        if kernel_diagonal is None:
            if need_diagonal:
                raise ValueError(
                    "kernel_diagonal, k(x, x) of the new points (shape (n_new,)), is required with "
                    "kernel='precomputed': the squared distances to the centres include it (predict does not need it)"
                )
            return X, None
        diagonal = as_real_array(kernel_diagonal, "kernel_diagonal", finite=False, ensure_2d=False)
        diagonal = diagonal.reshape(-1) if diagonal.ndim <= 1 else diagonal
        if diagonal.shape != (X.shape[0],):
            raise ValueError(
                f"kernel_diagonal must have shape ({X.shape[0]},) (one k(x, x) per row of X), "
                f"got {np.shape(kernel_diagonal)}"
            )
        if not np.isfinite(diagonal).all():
            raise ValueError("kernel_diagonal contains NaN or infinity")
        return X, diagonal

    def transform(self, X, kernel_diagonal=None):
        """Squared feature-space distances of new points to the centres.

        Values are clipped at 0 (they are differences of rounded terms; the rule: class docstring).
        Unlike :meth:`sklearn.cluster.KMeans.transform`, the distances are squared.

        Parameters
        ----------
        X : array-like of shape (m, r) or (m, n_samples)
            New factor rows with ``kernel="factor"``; the cross-kernel k(new, training) with
            ``kernel="precomputed"``.
        kernel_diagonal : array-like of shape (m,), optional
            k(x, x) of the new points; required with ``kernel="precomputed"`` (with a factor it
            is the rows' squared norms, and must not be given).

        Returns
        -------
        distances : ndarray of shape (m, n_clusters)
        """
        X, diagonal = self._check_new(X, kernel_diagonal, need_diagonal=True)
        if self.kernel == "factor":
            return _scaled_squared_distances(X, self.cluster_centers_)
        out = np.empty((X.shape[0], int(self.n_clusters)))
        for start in range(0, X.shape[0], _BLOCK_ROWS):
            rows = slice(start, start + _BLOCK_ROWS)
            block = self._cross_terms(X[rows])
            block += diagonal[rows, None]
            out[rows] = np.maximum(block, 0.0)
        return out

    def predict(self, X):
        """The nearest centre of each new point (rule: class docstring).

        k(x, x) does not change the argmin, so no diagonal is needed.

        Parameters
        ----------
        X : array-like of shape (m, r) or (m, n_samples)
            As in :meth:`transform`.

        Returns
        -------
        labels : ndarray of shape (m,)
        """
        X, _ = self._check_new(X)
        labels = np.empty(X.shape[0], dtype=self.labels_.dtype)
        for start in range(0, X.shape[0], _BLOCK_ROWS):
            rows = slice(start, start + _BLOCK_ROWS)
            labels[rows] = np.argmin(self._cross_terms(X[rows]), axis=1)
        return labels

    def score(self, X, y=None, kernel_diagonal=None):
        """Minus the sum of the squared distances of X to their nearest centres (as
        :meth:`sklearn.cluster.KMeans.score`).

        Parameters
        ----------
        X : array-like of shape (m, r) or (m, n_samples)
            As in :meth:`transform`.
        y : ignored
        kernel_diagonal : array-like of shape (m,), optional
            As in :meth:`transform`.

        Returns
        -------
        score : float
            Larger is better (0 when every point sits on its centre).
        """
        return -float(self.transform(X, kernel_diagonal).min(axis=1).sum())
