"""KDAC / ISM (kernlearn.cluster.KDAC): the blocked Phi(W) and cost against direct double loops of
eq. (8) / (4a), the spectral initialisation (12) in closed form, the fixed point of ISM (Lemma 2),
the paper's Table 1 rows, convergence safeguards and bad input."""

import pickle
import warnings
from pathlib import Path

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics import normalized_mutual_info_score
from sklearn.preprocessing import StandardScaler

from kernlearn import _core
from kernlearn.cluster import KDAC
from kernlearn.cluster._kdac import median_sigma

# ../shared beside the repository, else this machine's copy (a CI clone lives elsewhere).
DATA = next(
    (
        p
        for p in (
            Path(__file__).resolve().parents[2] / "shared" / "data" / "alt-clustering",
            Path("/work/shared/data/alt-clustering"),
        )
        if p.is_dir()
    ),
    Path("alt-clustering-not-found"),
)
needs_data = pytest.mark.skipif(not DATA.is_dir(), reason="the alt-clustering data sets are not available")


def nmi(a, b):
    return normalized_mutual_info_score(a, b, average_method="geometric")


def load(name):
    X = np.loadtxt(DATA / f"{name}.csv", delimiter=",")
    original = np.loadtxt(DATA / f"{name}_original_label.csv", delimiter=",")
    alternative = np.loadtxt(DATA / f"{name}_alt_label.csv", delimiter=",")
    return X, original, alternative


def gamma_factor(U, Y, degree, lam):
    """A = D^-1/2 [HU, HY], c = (1.., -lam..): gamma = A diag(c) A'."""
    A = np.hstack([U - U.mean(0), Y - Y.mean(0)]) / np.sqrt(degree)[:, None]
    c = np.r_[np.ones(U.shape[1]), -lam * np.ones(Y.shape[1])]
    return np.ascontiguousarray(A), c


def random_problem(rng, n, d, q, k=3, ky=2, lam=0.7, sigma=1.3, shift=3.0):
    X = rng.normal(size=(n, d)) + shift  # off-centre on purpose: Phi must not care
    W = np.ascontiguousarray(np.linalg.qr(rng.normal(size=(d, q)))[0])
    U = np.linalg.qr(rng.normal(size=(n, k)))[0]
    Y = np.eye(ky)[rng.integers(0, ky, n)]
    Z = X @ W
    K = np.exp(-((Z[:, None] - Z[None]) ** 2).sum(-1) / (2 * sigma**2))
    D = K.sum(1)
    return X, W, U, Y, K, D, lam, sigma


def gamma_dense(U, Y, D, lam):
    n = U.shape[0]
    H = np.eye(n) - 1.0 / n
    Dm = np.diag(D**-0.5)
    return Dm @ H @ (U @ U.T - lam * Y @ Y.T) @ H @ Dm


# --------------------------------------------------------------------------------------------
# Phi(W), the cost and the bound of (10) against the definitions


def test_phi_cost_bound_match_double_loop(rng):
    X, W, U, Y, K, D, lam, sigma = random_problem(rng, 40, 5, 2)
    gamma = gamma_dense(U, Y, D, lam)
    phi = np.zeros((5, 5))
    cost = bound = 0.0
    for i in range(40):  # eq. (8), (4a) and the right side of (10), literally
        for j in range(40):
            dx = X[i] - X[j]
            Aij = np.outer(dx, dx)
            e = np.exp(-np.trace(W.T @ Aij @ W) / (2 * sigma**2))
            phi += gamma[i, j] / sigma**2 * e * Aij
            cost += gamma[i, j] * e
            bound += abs(gamma[i, j]) / sigma**2 * e * np.trace(Aij.T @ Aij)
    A, c = gamma_factor(U, Y, D, lam)
    got, trace, rhs = _core.kernels.hsic_phi(X, W, A, c, sigma=sigma, with_bound=True, n_threads=1)
    assert np.abs(got - phi).max() <= 1e-12 * np.abs(phi).max()
    assert abs(trace - cost) <= 1e-12 * abs(cost)
    assert abs(rhs - bound) <= 1e-12 * bound
    # The cost (4a) in the appendix's vectorised form, sum(gamma o K), and Tr(gamma K).
    assert abs(trace - np.trace(gamma @ K)) <= 1e-12 * abs(cost)


@pytest.mark.parametrize("n", [255, 256, 257, 700])
def test_phi_across_tiles_and_threads(rng, n):
    """Several 256-row tiles (and edge sizes) against the vectorised eq. (8); threads agree."""
    X, W, U, Y, K, D, lam, sigma = random_problem(rng, n, 4, 2, sigma=2.0)
    G = gamma_dense(U, Y, D, lam) * K
    # sum_ij G_ij (x_i - x_j)(x_i - x_j)' = 2 X'(D_G - G)X: the factor 2 the appendix drops.
    ref = 2.0 * (X.T @ (np.diag(G.sum(1)) - G) @ X) / sigma**2
    A, c = gamma_factor(U, Y, D, lam)
    one, t1, _ = _core.kernels.hsic_phi(X, W, A, c, sigma=sigma, n_threads=1)
    two, t2, _ = _core.kernels.hsic_phi(X, W, A, c, sigma=sigma, n_threads=2)
    assert np.abs(one - ref).max() <= 1e-11 * np.abs(ref).max()
    assert np.abs(two - one).max() <= 1e-12 * np.abs(one).max()
    assert abs(t1 - G.sum()) <= 1e-12 * np.abs(G).sum() and abs(t2 - t1) <= 1e-12 * np.abs(G).sum()
    Z = np.ascontiguousarray(X @ W)
    deg = _core.kernels.gaussian_degree(Z, sigma=sigma, n_threads=2)
    np.testing.assert_allclose(deg, D, rtol=1e-13)


def test_phi_rejects_bad_sigma(rng):
    X, W, U, Y, K, D, lam, sigma = random_problem(rng, 10, 3, 1)
    A, c = gamma_factor(U, Y, D, lam)
    with pytest.raises(ValueError, match="sigma"):
        _core.kernels.hsic_phi(X, W, A, c, sigma=0.0)


# --------------------------------------------------------------------------------------------
# ISM fixed point and the spectral initialisation


@needs_data
def test_ism_fixed_point_satisfies_lemma_2():
    """A fixed point has Phi(W) W = W Lambda with Lambda the q smallest eigenvalues (Lemma 2/3).
    gamma from a KDAC fit of the LG data; ISM started from a random W."""
    X, original, _ = load("Four_gaussian_3D_200")
    m = KDAC(2, n_components=3, sigma=5.0, lambda_=10.0, lambda_scale="absolute", random_state=0).fit(X, original)
    Y = np.eye(2)[original.astype(int)]
    A, c = gamma_factor(m.embedding_, Y, m.degree_, 10.0)
    W0 = np.linalg.qr(np.random.default_rng(1).normal(size=(4, 3)))[0]
    options = _core.methods.IsmOptions(sigma=5.0, max_iter=500, tol=1e-11)
    out = _core.methods.ism(X, np.ascontiguousarray(W0), A, c, options=options, n_threads=1)
    assert out.status == _core.core.SolverStatus.converged and not out.cycled
    W = out.W
    np.testing.assert_allclose(W.T @ W, np.eye(3), atol=1e-12)
    phi, _, _ = _core.kernels.hsic_phi(X, np.ascontiguousarray(W), A, c, sigma=5.0, n_threads=1)
    lam_all = np.linalg.eigvalsh(phi)
    PW = phi @ W
    Lam = W.T @ PW
    assert np.linalg.norm(PW - W @ Lam) <= 1e-9 * np.linalg.norm(phi)
    np.testing.assert_allclose(np.linalg.eigvalsh(Lam), lam_all[:3], rtol=1e-8)
    # ISM ascends Tr(gamma K) (descends the cost 4a) from the random start.
    tr = out.trace_gamma_k
    assert tr[-1] > tr[0]
    # The estimator's own end state is a fixed point too (to its tol).
    assert m.fixed_point_residual_ < 1e-5
    P = m.projection_ @ m.projection_.T
    assert np.abs(P - W @ W.T).max() < 1e-5


@needs_data
def test_spectral_initialisation_is_closed_form():
    """W_0 = top-q eigenvectors of X'H(U0 U0' - lambda YY')HX, U0 the spectral step on X itself."""
    X, original, alternative = load("Four_gaussian_3D_200")
    sigma, lam, q, k = 5.0, 10.0, 3, 2
    m = KDAC(k, n_components=q, sigma=sigma, lambda_=lam, lambda_scale="absolute", max_iter=1, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        m.fit(X, original)
    n = X.shape[0]
    Xc = X - X.mean(0)
    K = np.exp(-((Xc[:, None] - Xc[None]) ** 2).sum(-1) / (2 * sigma**2))
    Dm = K.sum(1) ** -0.5
    H = np.eye(n) - 1.0 / n
    Q = H @ (Dm[:, None] * K * Dm[None]) @ H
    U0 = np.linalg.eigh(Q)[1][:, -k:]
    Y = np.eye(2)[original.astype(int)]
    M = Xc.T @ (U0 @ U0.T - lam * Y @ Y.T) @ Xc
    w, V = np.linalg.eigh(M)
    W0 = V[:, -q:]
    P_ref, P_got = W0 @ W0.T, m.init_projection_ @ m.init_projection_.T
    assert np.abs(P_ref - P_got).max() < 1e-8
    # Phi_0 = -(2 / (n sigma^2)) M (Taylor at W = 0, where D = n I).
    np.testing.assert_allclose(
        m.init_eigenvalues_, np.sort(-2.0 / (n * sigma**2) * w), rtol=1e-9, atol=1e-12 * np.abs(w).max() / n
    )


@needs_data
def test_init_gap_components_picks_the_largest_eigengap_of_phi_0():
    """ "init-gap" (ours): q at the largest gap of Phi_0; "auto" (the paper's Phi(W*) rule) is
    tested in test_kdac_views.py."""
    X, original, _ = load("Four_gaussian_3D_200")
    m = KDAC(2, n_components="init-gap", sigma=5.0, lambda_=10.0, lambda_scale="absolute", random_state=0).fit(
        X, original
    )
    ev = m.init_eigenvalues_
    assert m.n_components_ == int(np.argmax(np.diff(ev))) + 1
    assert m.projection_.shape == (4, m.n_components_)


# --------------------------------------------------------------------------------------------
# Table 1 of the paper (settings from the data README)


@needs_data
def test_faces_pose_to_identity():
    X, identity, pose = load("face_624_20")
    Xs = StandardScaler().fit_transform(X)
    sigma = median_sigma(Xs)
    assert sigma == pytest.approx(3.17, abs=0.01)  # the paper's 3.1
    m = KDAC(4, n_components=17, sigma="median", lambda_=1.0, lambda_scale="absolute", random_state=0).fit(Xs, pose)
    assert m.sigma_ == pytest.approx(sigma)
    assert m.converged_ and not m.cycled_
    assert nmi(identity, m.labels_) == pytest.approx(0.56, abs=0.015)  # Table 1: 0.57 (SI), 0.56 (RI)
    assert m.novelty_[0] <= 0.01  # Table 1: 0.004
    assert m.quality_ == pytest.approx(0.61, abs=0.01)  # Table 1 CQ: 0.61
    assert m.fixed_point_residual_ < 1e-4
    assert m.cost_ == pytest.approx(m.quality_ - 1.0 * m.history_["hsic_y"][-1])
    # Without the row normalisation the identity NMI drops (to 0.42-0.53 depending on the k-means
    # start; the issue quotes 0.42).
    raw = clone(m).set_params(normalize_rows=False).fit(Xs, pose)
    assert nmi(identity, raw.labels_) < nmi(identity, m.labels_) - 0.02


@needs_data
def test_moon():
    X, original, alternative = load("moon_400x4")
    Xs = StandardScaler().fit_transform(X)
    m = KDAC(2, n_components=3, sigma=0.1, lambda_=1.0, lambda_scale="absolute", random_state=0).fit(Xs, original)
    assert m.converged_
    assert nmi(alternative, m.labels_) == pytest.approx(1.0)
    assert m.novelty_[0] < 1e-10
    assert m.quality_ == pytest.approx(2.0, abs=0.01)  # Table 1 CQ: 2


@needs_data
def test_moon_with_noise():
    """MoonN: the authors divide the three uniform-noise columns by 3 (after standardising); the
    appendix's settings sigma = 0.2, lambda = 0.1, q = 6."""
    X, original, alternative = load("moon_200x7")
    Xs = StandardScaler().fit_transform(X)
    Xs[:, 4:] /= 3
    m = KDAC(2, n_components=6, sigma=0.2, lambda_=0.1, lambda_scale="absolute", random_state=0).fit(Xs, original)
    assert nmi(alternative, m.labels_) == pytest.approx(1.0)
    assert m.novelty_[0] < 1e-10


@needs_data
def test_large_gaussian():
    X, original, alternative = load("Four_gaussian_3D_200")
    m = KDAC(2, n_components=3, sigma=5.0, lambda_=10.0, lambda_scale="absolute", random_state=0).fit(X, original)
    assert m.converged_
    assert nmi(alternative, m.labels_) == pytest.approx(1.0)
    assert m.novelty_[0] < 1e-10
    assert np.isfinite(m.eigengap_) and m.eigengap_ > 0
    cond = m.sigma_condition_
    assert cond["holds"] == (cond["lhs"] >= cond["rhs"]) and cond["rhs"] > 0


@needs_data
def test_matrix_free_u_step_matches_dense():
    """The U-step on the explicit Q and matrix-free (the kernel recomputed per product) agree."""
    X, original, _ = load("Four_gaussian_3D_1000")
    X = np.ascontiguousarray(X[:400])
    Y = np.ascontiguousarray(np.eye(2)[original[:400].astype(int)])
    runs = [
        _core.methods.kdac(
            X,
            Y,
            options=_core.methods.KdacOptions(q=3, sigma=5.0, lambda_=10.0, max_iter=3, dense_max_n=dense_max_n),
        )
        for dense_max_n in (10**6, 0)
    ]
    assert runs[0].used_dense and not runs[1].used_dense
    assert sum(h.matvecs for h in runs[1].history) > 0
    np.testing.assert_allclose([h.cost for h in runs[0].history], [h.cost for h in runs[1].history], rtol=1e-9)
    P = [r.U @ r.U.T for r in runs]
    assert np.abs(P[0] - P[1]).max() < 1e-7


# --------------------------------------------------------------------------------------------
# Convergence safeguards


@needs_data
def test_outer_cycle_is_detected_and_the_best_state_kept():
    """From some random starts the Moon alternation settles into a cycle (D is held during the
    W-step, so it is no ascent method); it is detected and the best state of the cycle kept."""
    X, original, alternative = load("moon_400x4")
    Xs = StandardScaler().fit_transform(X)
    m = KDAC(2, n_components=3, sigma=0.1, lambda_=1.0, lambda_scale="absolute", init="random", random_state=0)
    with pytest.warns(ConvergenceWarning, match="cycle of period"):
        m.fit(Xs, original)
    assert m.cycled_ and not m.converged_ and 2 <= m.cycle_period_ <= 4
    assert m.n_iter_ < m.max_iter
    on_cycle = m.history_["cost"][-m.cycle_period_ :]
    assert m.cost_ == pytest.approx(on_cycle.max())


def test_max_iter_warns(rng):
    X = rng.normal(size=(60, 3))
    y = rng.integers(0, 2, 60)
    with pytest.warns(ConvergenceWarning, match="did not converge"):
        m = KDAC(2, n_components=2, sigma=0.5, max_iter=1, random_state=0).fit(X, y)
    assert m.n_iter_ == 1 and not m.converged_


def test_callback_verbose_and_stop(rng, caplog):
    X = rng.normal(size=(50, 3))
    y = rng.integers(0, 2, 50)
    seen = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)  # noise data: ISM may cycle
        m = KDAC(
            2, n_components=2, sigma=1.0, verbose=1, random_state=0, callback=lambda info: seen.append(info) or True
        ).fit(X, y)
    assert len(seen) == 1 and m.n_iter_ == 1
    assert {"iteration", "cost", "quality", "dist_w", "dist_u"} <= set(seen[0])
    assert "[KDAC] iter    1/100" in caplog.text


# --------------------------------------------------------------------------------------------
# API


def test_several_existing_clusterings_and_determinism(rng):
    X = rng.normal(size=(80, 4))
    y1, y2 = rng.integers(0, 2, 80), rng.integers(0, 3, 80)
    X_before = X.copy()
    m = KDAC(2, n_components=2, sigma=1.5, random_state=3).fit(X, [y1, y2])
    assert m.novelty_.shape == (2,)
    assert np.array_equal(X, X_before)  # input untouched
    m2 = KDAC(2, n_components=2, sigma=1.5, random_state=3).fit(X, np.column_stack([y1, y2]))
    np.testing.assert_array_equal(m.labels_, m2.labels_)
    np.testing.assert_allclose(m.projection_, m2.projection_)
    threads = KDAC(2, n_components=2, sigma=1.5, random_state=3, n_jobs=2).fit(X, [y1, y2])
    assert np.abs(threads.projection_ @ threads.projection_.T - m.projection_ @ m.projection_.T).max() < 1e-8
    assert threads.labels_.shape == (80,)
    pickle.loads(pickle.dumps(m))
    assert m.embedding_.shape == (80, 2)


def test_ism_two_cycle_is_damped_to_a_fixed_point(rng):
    """Pure-noise data against one random labelling: ISM alternates between two subspaces; the
    cycle is detected and steps to the subspace between its ends lead to a fixed point, the
    one Anderson acceleration reaches (same cost), without a warning."""
    X = rng.normal(size=(80, 4))
    y1 = rng.integers(0, 2, 80)
    m = KDAC(2, n_components=2, sigma=1.5, lambda_=1.0, lambda_scale="absolute", random_state=3)
    labels = m.fit_predict(X, y1)  # the suite turns any warning into an error
    assert labels.shape == (80,)
    assert m.history_["ism_damped"].any() and not m.history_["ism_cycled"].any()
    assert m.converged_
    fast = KDAC(
        2, n_components=2, sigma=1.5, lambda_=1.0, lambda_scale="absolute", random_state=3, ism_acceleration=True
    ).fit(X, y1)
    assert m.cost_ == pytest.approx(fast.cost_, rel=1e-6)


def test_a_persistent_two_cycle_keeps_an_end_and_warns():
    """A cycle that outlasts the damped steps (found by search over noise problems) ends the
    W-step at its better end, before ism_max_iter, and a warning says so."""
    rng = np.random.default_rng(40)
    X = rng.normal(size=(60, 5))
    y1 = rng.integers(0, 2, 60)
    m = KDAC(2, n_components=1, sigma=1.5, lambda_=1.0, lambda_scale="absolute", init="random", random_state=3)
    with pytest.warns(ConvergenceWarning) as record:  # max_iter is reached, too
        m.fit(X, y1)
    assert any("period-2 cycle between two subspaces" in str(w.message) for w in record)
    cycled = m.history_["ism_cycled"]
    assert cycled.any()
    assert (m.history_["ism_damped"][cycled] == 5).all()
    assert (m.history_["ism_iter"][cycled] < m.ism_max_iter).all()


def test_ism_acceleration_reaches_a_true_fixed_point(rng):
    """The same pure-noise case with Anderson acceleration: the first W-step ends
    at a fixed point of Algorithm 2's map (residual <= tol, no cycle, nothing damped) in fewer
    Phi evaluations, and the alternation ends at the same cost as the plain iteration."""
    X = rng.normal(size=(80, 4))
    y1 = rng.integers(0, 2, 80)
    fast = KDAC(
        2, n_components=2, sigma=1.5, lambda_=1.0, lambda_scale="absolute", random_state=3, ism_acceleration=True
    ).fit(X, y1)
    plain = KDAC(2, n_components=2, sigma=1.5, lambda_=1.0, lambda_scale="absolute", random_state=3).fit(X, y1)
    assert not fast.history_["ism_cycled"].any() and not fast.history_["ism_damped"][0]
    assert fast.history_["ism_iter"][0] < plain.history_["ism_iter"][0]
    assert fast.cost_ == pytest.approx(plain.cost_, rel=1e-6)


def test_random_init(rng):
    X = rng.normal(size=(60, 5))
    y = rng.integers(0, 3, 60)
    m = KDAC(3, n_components="init-gap", init="random", sigma=2.0, random_state=0).fit(X, y)
    assert m.n_components_ == 3 and m.init_eigenvalues_.size == 0  # "init-gap" with random init: q = k
    np.testing.assert_allclose(m.init_projection_.T @ m.init_projection_, np.eye(3), atol=1e-12)


@pytest.mark.parametrize(
    "params, y_fn, match",
    [
        ({}, lambda n: np.zeros(n - 1, int) + np.arange(n - 1) % 2, "labels but X has"),
        ({}, lambda n: np.zeros(n, int), "single cluster"),
        ({"n_clusters": 31}, lambda n: np.arange(n) % 2, "n_clusters"),
        ({"n_components": 5}, lambda n: np.arange(n) % 2, "n_components"),
        ({"sigma": 0.0}, lambda n: np.arange(n) % 2, "sigma"),
        ({"sigma": -1.0}, lambda n: np.arange(n) % 2, "sigma"),
        ({"sigma": "mean"}, lambda n: np.arange(n) % 2, "sigma"),
        ({"lambda_": -0.5}, lambda n: np.arange(n) % 2, "lambda_"),
        ({"init": "pca"}, lambda n: np.arange(n) % 2, "init"),
        ({"n_components": "max"}, lambda n: np.arange(n) % 2, "n_components"),
        ({"tol": 0.0}, lambda n: np.arange(n) % 2, "tol"),
        ({}, lambda n: np.where(np.arange(n) < 3, np.nan, 1.0), "NaN"),
        ({}, lambda n: None, "requires y to be passed"),
    ],
)
def test_bad_input_raises_value_error(rng, params, y_fn, match):
    X = rng.normal(size=(30, 4))
    with pytest.raises(ValueError, match=match):
        KDAC(**params).fit(X, y_fn(30))


def test_string_labels_give_the_integer_result(rng):
    """y goes through the shared label rule (encode_labels): strings, and several views of them."""
    X = rng.normal(size=(60, 3))
    X[:30, 0] += 3
    y = np.arange(60) % 2
    names = np.array(["left", "right"])[y]
    a = KDAC(2, n_components=2, sigma=1.5, random_state=0).fit(X, y)
    b = KDAC(2, n_components=2, sigma=1.5, random_state=0).fit(X, names)
    np.testing.assert_array_equal(a.labels_, b.labels_)
    np.testing.assert_allclose(a.projection_, b.projection_)
    c = KDAC(2, n_components=2, sigma=1.5, random_state=0).fit(X, [names, (X[:, 0] > 1.5).astype(int)])
    assert c.novelty_.shape == (2,)
    with pytest.raises(ValueError, match="y: Unknown label type"):
        KDAC(2, sigma=1.5).fit(X, rng.normal(size=60))  # continuous values are not cluster labels


def test_nan_in_X_raises(rng):
    X = rng.normal(size=(30, 4))
    X[3, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        KDAC(2, sigma=1.0).fit(X, np.arange(30) % 2)


def test_type_errors(rng):
    X = rng.normal(size=(30, 4))
    y = np.arange(30) % 2
    with pytest.raises(TypeError, match="n_clusters"):
        KDAC(2.5).fit(X, y)
    with pytest.raises(TypeError, match="callback"):
        KDAC(callback=3).fit(X, y)
    with pytest.raises(TypeError, match="normalize_rows"):
        KDAC(normalize_rows="yes").fit(X, y)


def test_ctrl_c_interrupts_a_long_fit():
    """KDAC runs without the GIL and polls for Ctrl-C between kernel tiles: a fit that would take
    minutes (n = 20,000, matrix-free U-steps) stops within seconds of SIGINT."""
    from test_interrupt import seconds_to_interrupt

    script = (
        "import numpy as np\n"
        "from kernlearn.cluster import KDAC\n"
        "rng = np.random.default_rng(0)\n"
        "X = rng.normal(size=(20000, 4)); y = rng.integers(0, 2, 20000)\n"
        "print('ready', flush=True)\n"
        "try:\n"
        "    KDAC(2, n_components=2, sigma=1.0).fit(X, y)\n"
        "except KeyboardInterrupt:\n"
        "    print('interrupted', flush=True)\n"
    )
    assert seconds_to_interrupt(script, after=1.0) < 5.0
