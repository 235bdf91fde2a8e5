"""Input coercion shared by the wrappers: every array reaches the C++ core validated, finite,
float64 and C-contiguous, and a caller's array is never modified (we copy when we must convert)."""

import contextlib
import functools
import numbers
import os
import re
import warnings

import numpy as np
import scipy.sparse as sp
from joblib import effective_n_jobs
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import check_array

__all__ = [
    "as_real_array",
    "as_label_array",
    "as_index_array",
    "validate_X",
    "check_data",
    "check_random_state",
    "check_int",
    "check_real",
    "check_finite",
    "resolve_n_threads",
    "blas_threads",
    "check_square_sparse",
    "check_choice",
    "relative_asymmetry",
    "symmetrized",
]

# Dense matrices within this relative asymmetry count as symmetric (rounding of a symmetric
# computation); beyond it they are either rejected or symmetrised, as each caller documents.
SYMMETRY_RTOL = 1e-10


def as_real_array(X, name, *, dtype=np.float64, order="C", accept_sparse=False, finite=True, **check):
    """The input rule of every entry point, in this one place (user guide: "Input validation").

    scikit-learn's ``check_array(X, dtype="numeric")``: numbers of any real dtype (bool, integer,
    float) and object arrays whose elements are numbers are converted; arrays of strings or bytes
    are refused, numeric strings such as ``"1.5"`` included (a TypeError: convert them
    explicitly); complex input is refused (ValueError); an object array holding None gives NaN,
    refused as such when ``finite``. The result has ``dtype`` (or, when ``dtype`` is a tuple, its
    own dtype if listed, else the first) and ``order``; a conforming array passes through without
    a copy and any conversion is a copy, so the caller's array is never modified. ``check``:
    further keywords of ``check_array`` (``ensure_2d``, ``allow_nd``, ``ensure_min_samples``, ...).
    Sparse input is a TypeError unless ``accept_sparse``. Every error names the argument. With
    ``ensure_2d=False`` the caller checks the shape: no minimum count of samples or features."""
    if not check.get("ensure_2d", True):
        check.setdefault("ensure_min_samples", 0)
        check.setdefault("ensure_min_features", 0)
    if sp.issparse(X) and not accept_sparse:
        raise TypeError(f"{name} must be a dense array, got a sparse {type(X).__name__}")
    with _numeric_rule(name):
        X = check_array(
            X,
            accept_sparse=accept_sparse,
            dtype="numeric",
            ensure_all_finite=finite,
            input_name=name,
            **check,
        )
        return _cast(X, dtype, order)


def as_label_array(values, name):
    """Labels (any hashable values) as a numpy array, unchecked otherwise: numpy's own refusal of a
    ragged sequence ("setting an array element with a sequence") then names the argument."""
    with naming(name):
        return np.asarray(values)


def _cast(X, dtype, order):
    """X (numeric, checked) as ``dtype``: kept when its dtype is listed in a tuple ``dtype``."""
    wanted = np.dtype(dtype[0] if isinstance(dtype, (tuple, list)) else dtype)
    if isinstance(dtype, (tuple, list)) and any(X.dtype == np.dtype(d) for d in dtype):
        wanted = X.dtype
    if sp.issparse(X):
        return X if X.dtype == wanted else X.astype(wanted)
    return np.asarray(X, dtype=wanted, order=order)


@contextlib.contextmanager
def _numeric_rule(name):
    """check_array's refusals of strings and of unconvertible objects as a TypeError naming the
    argument; its other errors (complex, NaN, shape) named by ``naming``."""
    with naming(name):
        try:
            yield
        except ValueError as err:
            message = str(err)
            if "bytes/strings" in message:
                raise TypeError(
                    f"{name} must hold real numbers, not strings (numeric strings are refused, as by "
                    "scikit-learn's check_array): convert them explicitly"
                ) from None
            if "could not convert" in message or "argument must be" in message:
                raise TypeError(f"{name} must hold real numbers: {message}") from None
            raise


def as_index_array(values, name):
    """Indices (point numbers in pairs, for instance) as an int64 C array, by the input rule:
    integers, or real numbers with integral values (a float array of pairs read from a file); a
    non-integral, non-finite or non-numeric entry is a TypeError/ValueError naming the argument."""
    arr = as_real_array(values, name, dtype=(np.int64, np.float64), finite=False, ensure_2d=False, allow_nd=True)
    if arr.dtype.kind == "f":
        if not np.isfinite(arr).all():
            raise ValueError(f"{name} contains NaN or infinity")
        if not np.array_equal(arr, np.round(arr)) or (arr.size and np.abs(arr).max() >= 2.0**63):
            raise TypeError(f"{name} must be integers, got non-integral values of dtype {arr.dtype}")
    return np.ascontiguousarray(arr, dtype=np.int64)


def check_random_state(random_state):
    """scikit-learn's ``check_random_state``, and a numpy Generator too: a RandomState drawing
    from the Generator's own bit generator (so the Generator advances), rather than scikit-learn's
    error, which does not name random_state. Every path of the package seeds through here."""
    from sklearn.utils import check_random_state as sklearn_check_random_state

    if isinstance(random_state, np.random.Generator):
        return np.random.RandomState(random_state.bit_generator)
    with naming("random_state"):
        return sklearn_check_random_state(random_state)


def check_data(X, name="X", *, min_samples=1):
    """Return X as a finite float64 C-contiguous 2-D array, by the input rule (``as_real_array``).

    For the functions (the estimators use ``validate_X``). A float64 C-contiguous array passes
    through without a copy, read-only arrays included, since the core never writes to its input;
    any conversion is a copy. Sparse input is a TypeError; every error names the argument."""
    return as_real_array(X, name, ensure_min_samples=min_samples)


def validate_X(estimator, X, *, reset=True, accept_sparse=False, min_samples=1, y="no_validation", name="X"):
    """X checked by scikit-learn's ``validate_data`` under the input rule (``as_real_array``): a
    finite float64 array, C-contiguous when dense and canonical CSR (sorted indices, no
    duplicates) when ``accept_sparse`` and X is sparse.

    reset=True (fit) sets ``n_features_in_`` and, for a DataFrame with string column names,
    ``feature_names_in_``; reset=False (transform, predict) checks X against them. A float64
    C-contiguous array passes through without a copy (the core never writes to its input); any
    conversion is a copy, so the caller's X is never modified. Errors name X. With ``y``, returns
    (X, y), y checked by ``validate_data`` (one label per row of X). ``name``: the argument X
    stands for in the caller (``X_other``, say), which the errors then name."""
    from sklearn.utils.validation import validate_data

    with _numeric_rule(name), naming(name, "y"):
        checked = validate_data(
            estimator,
            X,
            y,
            reset=reset,
            accept_sparse="csr" if accept_sparse else False,
            dtype="numeric",
            ensure_min_samples=min_samples,
        )
    no_y = isinstance(y, str) and y == "no_validation"
    X, y = (checked, y) if no_y else checked
    X = _cast(X, np.float64, "C")
    if sp.issparse(X):
        if not X.has_canonical_format:
            X = X.copy()
            X.sum_duplicates()  # sorts the indices too
    return X if no_y else (X, y)


@contextlib.contextmanager
def naming(*names):
    """Re-raise a ValueError/TypeError from a check that is not ours (scikit-learn's check_array,
    numpy's conversions) with the argument's name in front, when its message does not say it."""
    try:
        yield
    except (ValueError, TypeError) as err:
        message = str(err)
        if any(re.search(rf"\b{re.escape(name)}\b", message) for name in names):
            raise
        kind = TypeError if isinstance(err, TypeError) else ValueError
        raise kind(f"{' / '.join(names)}: {message}") from err


def check_int(value, name, *, low=None, high=None):
    """Return value as a Python int in [low, high), raising TypeError/ValueError naming it."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {value!r} ({type(value).__name__})")
    value = int(value)
    if low is not None and value < low:
        raise ValueError(f"{name} must be >= {low}, got {value}")
    if high is not None and value >= high:
        raise ValueError(f"{name} must be < {high}, got {value}")
    return value


def _require_real(value, name):
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {value!r}")


def check_real(value, name, *, low=None):
    """Check a finite real parameter: > 0, or >= low when low is given; errors name it."""
    _require_real(value, name)
    if not np.isfinite(value) or (value < low if low is not None else value <= 0):
        raise ValueError(f"{name} must be {'>= ' + str(low) if low is not None else '> 0'}, got {value!r}")


def check_finite(value, name):
    """Return a finite real parameter of any sign as a float; errors name it."""
    _require_real(value, name)
    if not np.isfinite(value):
        raise ValueError(f"{name} must be finite, got {value}")
    return float(value)


def check_choice(value, name, choices):
    """Return value if it is one of choices, else raise ValueError listing them."""
    if not isinstance(value, str) or value not in choices:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, choices))}; got {value!r}")
    return value


def relative_asymmetry(A, rows=256):
    """max |A - A'| / max |A| of a dense square matrix (0 for the zero matrix), compared a band of
    ``rows`` rows at a time: O(rows n) temporary memory, not an n x n difference (a kernel viewed
    without a copy must not be copied to be checked)."""
    if not A.size:
        return 0.0
    # Extremes instead of abs: one band-sized temporary, not three.
    scale = max(float(A.max()), -float(A.min()))
    if not scale > 0:
        return 0.0
    worst = 0.0
    for start in range(0, A.shape[0], rows):
        difference = A[start : start + rows] - A[:, start : start + rows].T
        worst = max(worst, float(difference.max()), -float(difference.min()))
    return worst / scale


def symmetrized(A, name):
    """A itself when symmetric to SYMMETRY_RTOL, else a new (A + A') / 2 with a UserWarning
    naming it: for inputs such as BLAST scores that are similarities but not symmetric."""
    asymmetry = relative_asymmetry(A)
    if asymmetry <= SYMMETRY_RTOL:
        return A
    warnings.warn(
        f"{name} is not symmetric (relative max |A - A'| = {asymmetry:.3g}); using (A + A') / 2",
        UserWarning,
        stacklevel=3,
    )
    return (A + A.T) / 2.0


def thread_budget():
    """The threads ``n_jobs=-1`` stands for: the core's cap (the cores this process may run on,
    lowered by ``threadpoolctl.threadpool_limits``; ``thread_cap`` in core/parallel.hpp), lowered
    further by ``OMP_NUM_THREADS`` when it is set, as scikit-learn's OpenMP code is. joblib sets
    that variable in its worker processes (``inner_max_num_threads``, by default cores / n_jobs),
    so ``GridSearchCV(n_jobs=k)`` over an estimator with ``n_jobs=-1`` does not oversubscribe.
    Inside one process, the core's thread reservation does the same for concurrent calls
    (joblib's threading backend, user threads)."""
    from .. import _core

    budget = int(_core.core.thread_cap())
    env = os.environ.get("OMP_NUM_THREADS", "").split(",")[0].strip()
    if env.isdigit() and int(env) >= 1:
        budget = min(budget, int(env))
    return budget


def resolve_n_threads(n_jobs):
    """Turn scikit-learn's n_jobs into the positive thread count the core takes.

    None means 1 unless a joblib ``parallel_config(n_jobs=...)`` context says otherwise; -1 means
    ``thread_budget()`` threads, -2 one fewer, and so on (at least 1); a positive n_jobs is capped at
    the budget too: more threads than cores only contend, and a count like 10**6 would exhaust
    the address space on thread stacks. The core applies the same cap (``usable_threads`` in
    core/parallel.hpp), so a raw ``_core`` call is bounded too."""
    if n_jobs is None:
        n_jobs = effective_n_jobs(None)
    check_int(n_jobs, "n_jobs")
    if n_jobs == 0:
        raise ValueError("n_jobs must be a non-zero integer or None, got 0")
    budget = thread_budget()
    return max(1, budget + 1 + int(n_jobs)) if n_jobs < 0 else min(int(n_jobs), budget)


def blas_threads(n_threads):
    """A context in which scipy's LAPACK/BLAS (the core's dense eigensolvers) uses at most n_threads.

    The same n_jobs then governs the core's threads and LAPACK's. The count is lowered, never
    raised: to a BLAS limit the caller already set (``threadpool_limits(k, user_api="blas")``), and
    to the cores other processes leave idle right now (``idle_cores`` in core/parallel.hpp, the rule
    the core's own threads follow). OpenBLAS's threads spin-wait for each other after every BLAS-2
    call of the tridiagonal reduction, so one busy process beside a 2-thread solve made it ten times
    slower than one thread, while on an idle machine two threads are 1.5 to 2 times faster
    (figures: bench/results/threads.md). The count is one per process: contexts open at once in
    several threads change it for each other (a known limit, recorded there)."""
    from .. import _core

    controller = _blas_controller()
    in_force = [lib.num_threads for lib in controller.select(user_api="blas").lib_controllers]
    limit = max(1, min([int(n_threads), _core.core.idle_cores(), *in_force]))
    return controller.limit(limits=limit, user_api="blas")


@functools.cache
def _blas_controller():
    """One controller for the process: threadpoolctl's library scan is too slow to repeat per
    call (figures: bench/results/threads.md). scipy.linalg is imported first so its BLAS is seen."""
    import scipy.linalg  # noqa: F401
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController()


def check_square_sparse(S, name="S"):
    """Return S as a canonical CSR matrix (sorted indices, duplicates summed, finite float64).

    The result is always a new object, so callers may canonicalise without touching the input.
    """
    if not sp.issparse(S):
        with naming(name):  # numpy's refusal of a ragged S
            if np.ndim(S) != 2:
                raise ValueError(f"{name} must be a 2-D square matrix, got shape {np.shape(S)}")
    S = as_real_array(
        S, name, accept_sparse=True, finite=False, ensure_min_samples=0, ensure_min_features=0, order=None
    )
    S = sp.csr_matrix(S, dtype=np.float64, copy=True)
    if S.ndim != 2 or S.shape[0] != S.shape[1]:
        raise ValueError(f"{name} must be square, got shape {S.shape}")
    if S.shape[0] == 0:
        raise ValueError(f"{name} is empty (shape {S.shape})")
    S.sum_duplicates()
    S.sort_indices()
    if not np.all(np.isfinite(S.data)):
        raise ValueError(f"{name} contains NaN or infinity")
    return S


def warn_unconverged_eigensolves(result, who):
    """A ConvergenceWarning when some of a saddle-point solve's Lanczos runs (``result``: a
    ``SaddleResult``) stopped at their mat-vec cap: their eigenpairs were used as found, so the
    kernel may be inaccurate."""
    count = int(result.unconverged_eigensolves)
    if count:
        warnings.warn(
            f"{who}: {count} Lanczos eigensolve(s) reached their mat-vec limit before converging and "
            "were used as found; eigen_solver='dense' avoids this where n allows it",
            ConvergenceWarning,
            stacklevel=3,
        )
