"""IKLR with backend="dask" on a local Dask cluster (test_distributed's two worker processes): the
kernel is never formed, and the fit equals the dense one to solver tolerance, flags included; a
worker killed mid-fit changes nothing; bad combinations name the parameter; without Dask the fit
says which extra to install."""

import os
import subprocess
import sys
import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

distributed = pytest.importorskip("distributed")

from scipy.sparse.linalg import LinearOperator  # noqa: E402

import dask_cluster  # noqa: E402
from dask_cluster import result_with_a_worker_killed  # noqa: E402
from kernlearn import _core, kernels  # noqa: E402
from kernlearn._utils._operators import as_core_operator  # noqa: E402
from kernlearn.distributed import KernelOperator  # noqa: E402
from kernlearn.indefinite import IndefiniteKernelLogisticRegression as IKLR  # noqa: E402
from kernlearn.indefinite import krein_decomposition  # noqa: E402

client = dask_cluster.client  # the module-scoped LocalCluster fixture (2 worker processes)

N = 120
# A larger alpha and tol than the defaults keep the fits short: few conjugate-gradient steps, hence
# few distributed products (each costs Dask tens of milliseconds of scheduling on two busy cores).
# The two backends take the same steps, so they agree far below tol. A tl1 fit also pays about 100
# products for the decomposition's Lanczos runs: one runs on the cluster, and the solvers' handling
# of an indefinite K is checked on a plain LinearOperator against the core (test_matrix_free_...).
ALPHA = 0.1
TOL = 1e-4


def problem(n=N, seed=0):
    """Points in [0, 1]^3 (their TL1 kernel is indefinite) and noisy labels."""
    rng = np.random.default_rng(seed)
    X = rng.random((n, 3))
    y = (X[:, 0] + 0.3 * rng.standard_normal(n) > 0.5).astype(int)
    return X, y


def assert_same_fit(dense, dask, X, rtol):
    """Decision values, predictions, objective and flags agree (the kernels' products differ only
    in summation order; the decomposition's eigenvalues come from Lanczos instead of LAPACK)."""
    scores, dask_scores = dense.decision_function(X), dask.decision_function(X)
    assert np.abs(scores - dask_scores).max() <= rtol * np.abs(scores).max()
    np.testing.assert_array_equal(dense.predict(X), dask.predict(X))
    objective, dask_objective = dense.history_[0]["objective"][-1], dask.history_[0]["objective"][-1]
    assert abs(objective - dask_objective) <= rtol * abs(objective)
    np.testing.assert_array_equal(dense.converged_, dask.converged_)
    # Eigenvalues to Lanczos's tolerance relative to ||K|| (an RBF kernel's mu_min, 0 by construction
    # here, is LAPACK's rounding-level value on the dense path).
    scale = max(1.0, np.nan_to_num(abs(dense.decomposition_["mu_max"])))
    assert abs(dense.decomposition_["mu_min"] - dask.decomposition_["mu_min"]) <= 1e-7 * scale


def relative_gradient_norm(model, X, y):
    """||grad F(a)|| / ||grad F(0)|| recomputed from the dense kernel (the certificate, checked
    independently of the solver that reports it)."""
    K = kernels.rbf_kernel(X, gamma=model.gamma_) if model.kernel == "rbf" else kernels.tl1_kernel(X)
    K = K + model.intercept_scaling**2
    signs = np.where(y == model.classes_[1], 1.0, -1.0)
    a = model.dual_coef_[0]
    n = len(y)
    beta = 1.0 / (1.0 + np.exp(signs * (K @ a)))
    gradient = K @ (-signs * beta / n + model.alpha * a) + model.alpha * model.decomposition_["shift"] * a
    return np.linalg.norm(gradient) / np.linalg.norm(K @ signs / (2 * n))


@pytest.mark.parametrize(("kernel", "cache"), [("tl1", True), ("rbf", False), ("rbf", True)])
def test_newton_fit_equals_the_dense_fit(client, kernel, cache):
    """tl1 (indefinite here) runs Newton's Hessian form, rbf its PSD form."""
    X, y = problem()
    before = X.copy()
    dense = IKLR(kernel, alpha=ALPHA, tol=TOL, random_state=0).fit(X, y)
    dask = IKLR(kernel, alpha=ALPHA, tol=TOL, random_state=0, backend="dask", client=client, cache=cache, block_size=N)
    dask.fit(X, y)
    np.testing.assert_array_equal(X, before)
    assert_same_fit(dense, dask, X, 1e-6)
    assert dask.converged_.all() and dask.gradient_norm_[0] <= dask.tol
    assert relative_gradient_norm(dask, X, y) <= dask.tol  # the certificate holds for the dense K
    if kernel == "tl1":
        assert dask.decomposition_["mu_min"] < 0 and dask.decomposition_["n_matvec"] > 0  # Lanczos ran
    steps = dask.history_[0]
    assert len(steps["objective"]) == dask.n_iter_[0] + 1 and np.all(np.diff(steps["objective"]) <= 1e-12)


def test_newton_stopped_early_is_not_called_converged(client):
    X, y = problem()
    with pytest.warns(ConvergenceWarning, match="max_iter=1"):
        dask = IKLR("rbf", alpha=ALPHA, tol=TOL, max_iter=1, backend="dask", client=client).fit(X, y)
    assert not dask.converged_[0] and dask.n_iter_[0] == 1
    assert dask.gradient_norm_[0] > dask.tol
    np.testing.assert_allclose(relative_gradient_norm(dask, X, y), dask.gradient_norm_[0], rtol=1e-6)


@pytest.mark.parametrize(
    ("solver", "options"),
    [("ccicp-gd", {"max_outer": 3}), ("ccicp-sgd", {"max_outer": 2, "max_inner": 4, "init": "uniform"})],
)
def test_ccicp_fit_equals_the_dense_fit(client, solver, options):
    X, y = problem()
    settings = {"solver": solver, "learning_rate": "auto", "random_state": 3, **options}
    dense = IKLR("rbf", **settings).fit(X, y)
    dask = IKLR("rbf", backend="dask", client=client, block_size=N, **settings).fit(X, y)
    assert_same_fit(dense, dask, X, 1e-6)
    assert not dask.converged_[0] and np.isnan(dask.gradient_norm_[0])  # the schedule has no certificate
    np.testing.assert_array_equal(dense.history_[0]["inner_steps"], dask.history_[0]["inner_steps"])
    # An SGD step reads its column of K from the operator's column(), not by a product: the same
    # count of products as the dense path.
    np.testing.assert_array_equal(dense.history_[0]["matvecs"], dask.history_[0]["matvecs"])


def dense_operator(K):
    """K as a plain LinearOperator: the core's solvers call its products back in Python, as they
    call a Dask cluster's."""
    return as_core_operator(LinearOperator(K.shape, matvec=lambda v: K @ v, matmat=lambda V: K @ V, dtype=np.float64))


@pytest.mark.parametrize(
    ("solver", "penalty"),
    [("newton", "positive"), ("ccicp-gd", "krein"), ("ccicp-sgd", "positive"), ("ccicp-sgd-literal", "krein")],
)
def test_matrix_free_solvers_equal_the_core_on_an_indefinite_kernel(solver, penalty):
    """The solvers on a plain LinearOperator (a Python callback, the Dask path) against the same
    solvers on the array, with K- = V diag(w) V' + shift I from an indefinite TL1 kernel: Newton's
    Hessian form, the concave terms, SGD's columns."""
    X, y = problem(80)
    K = kernels.tl1_kernel(X) + 1.0
    decomposition = krein_decomposition(K, "spectral")
    V, w, shift = decomposition.negative_vectors, decomposition.negative_weights, decomposition.shift
    assert w.size > 0
    signs = np.where(y == 1, 1.0, -1.0)
    alpha0 = np.random.default_rng(1).random(80)
    if solver == "newton":
        options = _core.methods.IklrNewtonOptions(lambda_=ALPHA, tol=1e-10, max_iter=50, max_cg=200)
        core = _core.methods.iklr_newton(K, signs, V, w, alpha0, shift=shift, options=options)
        ours = _core.methods.iklr_newton(dense_operator(K), signs, V, w, alpha0, shift=shift, options=options)
        indices = None
    else:
        inner = _core.methods.IklrInner.gd if solver == "ccicp-gd" else _core.methods.IklrInner.sgd
        options = _core.methods.IklrOptions(
            inner=inner,
            lambda_=ALPHA,
            eps=1e-6,
            max_outer=4,
            max_inner=6,
            learning_rate=1e-3,
            decay=0.9,
            restart_rate=True,
            concave=penalty == "krein",
            literal_sgd=solver == "ccicp-sgd-literal",
        )
        indices = np.random.default_rng(2).integers(0, 80, size=24)
        core = _core.methods.ccicp(K, signs, V, w, alpha0, shift=shift, options=options, sgd_indices=indices)
        ours = _core.methods.ccicp(
            dense_operator(K), signs, V, w, alpha0, shift=shift, options=options, sgd_indices=indices
        )
    assert ours.status == core.status
    np.testing.assert_allclose(ours.initial_objective, core.initial_objective, rtol=1e-12)
    if solver == "newton":
        # Both stop on the certificate; a conjugate-gradient run may stop one step apart (its test
        # sits on a rounding-sensitive threshold), so the iterates are compared at the end.
        assert core.status == _core.core.SolverStatus.converged
        assert ours.gradient_norm <= 1e-10 * ours.reference_gradient_norm
        np.testing.assert_allclose(ours.alpha, core.alpha, rtol=1e-7, atol=1e-9 * np.abs(core.alpha).max())
        return
    assert len(ours.history) == len(core.history) > 1
    np.testing.assert_allclose(ours.alpha, core.alpha, rtol=1e-8, atol=1e-10 * np.abs(core.alpha).max())
    for mine, theirs in zip(ours.history, core.history):
        assert mine.inner_steps == theirs.inner_steps
        np.testing.assert_allclose(mine.objective, theirs.objective, rtol=1e-10)


def test_a_user_built_operator_is_a_precomputed_kernel(client):
    X, y = problem()
    operator = KernelOperator(X, "rbf", gamma=2.0, client=client, block_size=N)
    dask = IKLR("precomputed", alpha=ALPHA, backend="dask").fit(operator, y)
    dense = IKLR("rbf", gamma=2.0, alpha=ALPHA).fit(X, y)
    assert dask.X_fit_ is None and dask.gamma_ == 2.0
    cross = kernels.rbf_kernel(X[:50], X, gamma=2.0)
    np.testing.assert_allclose(dask.decision_function(cross), dense.decision_function(X[:50]), rtol=1e-6, atol=1e-9)


def test_prediction_is_blocked(monkeypatch):
    from kernlearn import indefinite

    X, y = problem()
    model = IKLR("tl1", alpha=ALPHA).fit(X, y)
    expected = model.decision_function(X)
    monkeypatch.setattr(indefinite, "_CROSS_KERNEL_BLOCK_ENTRIES", 7 * N)  # blocks of 7 rows
    np.testing.assert_allclose(model.decision_function(X), expected, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize(
    ("settings", "fit_X", "error", "match"),
    [
        ({"backend": "spark"}, None, ValueError, "backend"),
        ({"client": "tcp://127.0.0.1:8786"}, None, ValueError, "client is used by backend='dask' only"),
        ({"cache": True}, None, ValueError, "cache is used by backend='dask' only"),
        ({"block_size": 100}, None, ValueError, "block_size is used by backend='dask' only"),
        ({"backend": "dask", "block_size": 0}, None, ValueError, "block_size"),
        ({"backend": "dask", "cache": "yes"}, None, (TypeError, ValueError), "cache"),
        ({"backend": "dask", "client": "tcp://127.0.0.1:8786"}, None, TypeError, "client"),
        ({"backend": "dask", "kernel": lambda A, B: A @ B.T}, None, ValueError, "kernel"),
        ({"backend": "dask", "kernel": "precomputed"}, "dense kernel", ValueError, "kernel='precomputed'"),
        ({"backend": "dask", "kernel_dtype": "float32"}, None, ValueError, "kernel_dtype"),
        ({"backend": "dask", "kernel": "rbf"}, "operator", ValueError, "kernel='precomputed'"),
        ({"kernel": "precomputed"}, "operator", ValueError, "backend='dask'"),
    ],
)
def test_bad_input_names_the_argument(client, settings, fit_X, error, match):
    X, y = problem(60)
    if fit_X == "dense kernel":
        X = kernels.tl1_kernel(X)
    elif fit_X == "operator":
        X = KernelOperator(X, "rbf", client=client)
    with pytest.raises(error, match=match):
        IKLR(**settings).fit(X, y)


def test_a_missing_extra_is_named():
    """In a fresh interpreter: hiding Dask in this one (sys.modules entries set to None) would break
    the live client's background thread, which pickles task graphs by importing dask's modules."""
    code = (
        "import sys\n"
        "for name in ('dask', 'dask.array', 'distributed'):\n"
        "    sys.modules[name] = None\n"
        "import numpy as np\n"
        "from kernlearn.indefinite import IndefiniteKernelLogisticRegression\n"
        "try:\n"
        "    IndefiniteKernelLogisticRegression(backend='dask').fit(np.eye(4), [0, 1, 0, 1])\n"
        "except ImportError as err:\n"
        "    print(err)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=os.environ)
    assert 'pip install "kernlearn[dask]"' in out.stdout


def test_a_worker_killed_mid_fit_changes_nothing(client):
    """Last in the file: the cluster comes back with a new worker process."""
    X, y = problem()
    expected = IKLR("rbf", alpha=ALPHA, tol=1e-8, random_state=0).fit(X, y)

    def fit():
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # no ConvergenceWarning: the fit converges as before
            model = IKLR("rbf", alpha=ALPHA, tol=1e-8, random_state=0, backend="dask", client=client, block_size=30)
            return model.fit(X, y)

    assert_same_fit(expected, result_with_a_worker_killed(client, fit, "_row_block_product"), X, 1e-6)
