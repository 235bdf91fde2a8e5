"""SimpleNPKL's defaults do what they advertise, and the paper's Sections 5.3 / 5.4 variants.

The default capacity (the penalty G = min(1e-3, 0.3 / n)) is what lets the saddle-point iteration run and the
kernel reach the points outside the pairs (bench/results/npkl_defaults.md); under the paper's
B = 1 every test here about iterations, differing losses or held-out points fails."""

import numpy as np
import pytest
import scipy.linalg
from sklearn.cluster import KMeans
from sklearn.metrics import adjusted_rand_score
from sklearn.preprocessing import StandardScaler

from kernlearn.cluster import KernelKMeans
from kernlearn.constraints import ConstraintAccumulator, from_labels
from kernlearn.datasets import load_iris
from kernlearn.datasets._mixture import make_labelled_mixture
from kernlearn.graph import knn_graph, laplacian
from kernlearn.npkl import DEFAULT_G, SimpleNPKL


@pytest.fixture(scope="module")
def iris():
    X, y = load_iris(return_X_y=True)
    return X, y


def test_default_fit_iterates_and_the_losses_differ(iris):
    X, y = iris
    kernels = {}
    for loss in ("linear", "squared_hinge", "hinge", "square"):
        model = SimpleNPKL(loss, random_state=0, max_iter=2000).fit(X, y)
        if loss != "linear":
            assert model.n_iter_ > 0, loss
        K = model.kernel(dense=True)
        kernels[loss] = K / np.linalg.norm(K)
    names = list(kernels)
    for a in range(4):
        for b in range(a + 1, 4):
            # the saddle-point losses agree where the margins are met and part elsewhere
            gap = 0.05 if names[a] == "linear" else 1e-3
            assert np.linalg.norm(kernels[names[a]] - kernels[names[b]]) > gap, (names[a], names[b])


def test_default_capacity_is_the_penalty_form(iris):
    X, y = iris
    default = SimpleNPKL(random_state=0).fit(X, y)
    explicit = SimpleNPKL(G=DEFAULT_G, random_state=0).fit(X, y)
    np.testing.assert_array_equal(default.kernel(dense=True), explicit.kernel(dense=True))
    assert default.converged_ and default.n_iter_ > 0
    # p = 1 has no penalty form: the bound B = n, active at the linear-loss solution
    linear = SimpleNPKL("linear", p=1, random_state=0).fit(X, y)
    assert np.sum(linear.eigenvalues_) == pytest.approx(X.shape[0], rel=1e-10)


def test_the_kernel_reaches_points_outside_the_pairs(iris):
    # 30 % labelled, every pair among them; the 70 % in no pair must not collapse into one
    # cluster (ARI 0.00 with B = 1).
    X, y = iris
    X = StandardScaler().fit_transform(X)
    labelled = np.random.RandomState(0).rand(y.size) < 0.3
    model = SimpleNPKL(random_state=0).fit(X, np.where(labelled, y, -1))
    free = np.setdiff1d(np.arange(y.size), np.unique(model.pairs_))
    assignment = KernelKMeans(3, random_state=0).fit_predict(model.embedding_)
    baseline = KMeans(3, n_init=10, random_state=0).fit_predict(X)
    ours = adjusted_rand_score(y[free], assignment[free])
    assert ours > 0.8
    assert ours > adjusted_rand_score(y[free], baseline[free])


def test_active_constraints_select_on_the_linear_loss_kernel(iris):
    X, y = iris
    pairs, labels = from_labels(y, component_ratio=0.7, random_state=1)
    pilot = SimpleNPKL("linear", random_state=0).fit(X, pairs=pairs, pair_labels=labels)
    K = pilot.kernel(dense=True)
    n = X.shape[0]
    margin = np.zeros(n)
    count = np.zeros(n)
    for (i, j), t in zip(pairs, labels):
        margin[[i, j]] += t * K[i, j]
        count[[i, j]] += 1
    touched = np.flatnonzero(count)
    chosen = touched[np.argsort(np.abs(margin[touched]) / count[touched], kind="stable")[:20]]
    expected = np.isin(pairs, chosen).any(axis=1)
    model = SimpleNPKL(active_constraints=20, random_state=0).fit(X, pairs=pairs, pair_labels=labels)
    np.testing.assert_array_equal(model.pairs_, pairs[expected])
    assert model.n_iter_ > 0


def test_kernel_basis_spans_the_top_eigenvectors_of_A(iris):
    X, y = iris
    pairs, labels = from_labels(y, component_ratio=0.7, random_state=0)
    model = SimpleNPKL(C=0.3, basis=12, random_state=0).fit(X, pairs=pairs, pair_labels=labels)
    n = X.shape[0]
    L = laplacian(knn_graph(X, 5, mode="symmetric"), "normalized")
    A = ConstraintAccumulator(pairs, n, base=-L, pair_labels=labels).assemble(np.full(len(pairs), 0.3)).toarray()
    U = model.basis_
    np.testing.assert_allclose(U.T @ U, np.eye(12), atol=1e-10)
    top = scipy.linalg.eigvalsh(A)[::-1][:12]
    np.testing.assert_allclose(np.sort(np.linalg.eigvalsh(U.T @ A @ U))[::-1], top, atol=1e-8)
    assert model.eigen_solver_ == "basis"


def test_bad_basis_source(iris):
    X, y = iris
    with pytest.raises(ValueError, match="basis_from"):
        SimpleNPKL(basis=5, basis_from="pca").fit(X, y)


def test_p1_closed_form_is_zero_when_no_eigenvalue_is_positive():
    # Erratum to Proposition 1 at p = 1: with sigma_max(A) <= 0 the optimum is K = 0, not B
    # times the top eigenvector. Cannot-links only and a tiny C keep A = C T - L negative definite.
    rng = np.random.default_rng(0)
    X = rng.standard_normal((40, 2))
    pairs, labels = np.array([[0, 1], [2, 3], [4, 5]]), np.array([-1, -1, -1])
    n = X.shape[0]
    L = laplacian(knn_graph(X, 8, mode="symmetric"), "normalized")
    A = ConstraintAccumulator(pairs, n, base=-L, pair_labels=labels).assemble(np.full(3, 1e-3)).toarray()
    assert scipy.linalg.eigvalsh(A).max() < 0
    with pytest.warns(UserWarning, match="the learned kernel is zero"):
        model = SimpleNPKL("linear", p=1, B=5.0, C=1e-3, n_neighbors=8).fit(X, pairs=pairs, pair_labels=labels)
    assert model.eigenvalues_.size == 0 and model.embedding_.shape == (n, 0)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")  # max_iter=1: the pairs are the point
def test_default_pairs_are_linear_in_the_labelled_count():
    from kernlearn.npkl import DEFAULT_PARTNERS

    X, _, y = make_labelled_mixture(600)
    labelled = np.flatnonzero(y >= 0)
    model = SimpleNPKL(random_state=0, max_iter=1).fit(X, y)
    assert len(model.pairs_) <= 2 * DEFAULT_PARTNERS * labelled.size
    assert set(np.unique(model.pairs_)) == set(labelled)
    expected = from_labels(y, partners=DEFAULT_PARTNERS, random_state=np.random.RandomState(0))
    np.testing.assert_array_equal(model.pairs_, expected[0])
    every = SimpleNPKL(partners="all", random_state=0, max_iter=1).fit(X, y)
    assert len(every.pairs_) == labelled.size * (labelled.size - 1) // 2
    # The saddle-point C shrinks with the pairs per point d: min(0.3, 2 / d).
    d = 2 * len(every.pairs_) / labelled.size
    assert every.C_ == pytest.approx(min(0.3, 2 / d)) and every.C_ < 0.3
    # ... and G with n: min(1e-3, 0.3 / n); the paper's small data sets keep 1e-3.
    assert every.G_ == pytest.approx(0.3 / 600)
    assert SimpleNPKL(max_iter=1).fit(X[:200], y[:200]).G_ == DEFAULT_G
    assert SimpleNPKL(B=10.0, max_iter=1).fit(X, y).G_ is None
    # SimpleNPKLCV draws the pairs its estimator would.
    from kernlearn.npkl_cv import SimpleNPKLCV

    cv = SimpleNPKLCV(SimpleNPKL(partners=2, max_iter=1), Cs=[0.3], Gs=[1e-3], cv=2, random_state=0).fit(X, y)
    assert len(cv.best_estimator_.pairs_) <= 4 * labelled.size
    full = SimpleNPKL(random_state=0, max_iter=1).fit(X, np.arange(600) % 5)  # fully labelled: the papers' protocol
    np.testing.assert_array_equal(
        full.pairs_, from_labels(np.arange(600) % 5, random_state=np.random.RandomState(0))[0]
    )


def test_default_fit_carries_labels_to_unlabelled_points_at_3000():
    """With C = 0.3 and G = 1e-3 whatever the pairs and n (before), the kernel concentrated on the
    300 labelled points and the unlabelled ones clustered at chance (ARI 0.000,
    bench/results/scale.md); the n- and pair-aware defaults recover the classes."""
    X, truth, y = make_labelled_mixture(3000)
    model = SimpleNPKL(random_state=0).fit(X, y)
    assert model.converged_ and model.eigenvalues_.size <= 10
    predicted = KernelKMeans(5, random_state=0).fit(model.embedding_).labels_
    assert adjusted_rand_score(truth[y < 0], predicted[y < 0]) > 0.95


def test_linear_default_C_never_gives_a_zero_kernel():
    """Issue 47: with every pair among 45 labelled points of classes the geometry does not hold
    (the skulls' situation), 0.5 / d leaves A = C T - L without a positive eigenvalue, and the
    kernel is zero. The default is max(0.5 / d, 2 C_0), C_0 the smallest C with a positive
    eigenvalue, checked here against dense eigenvalues on both sides of C_0."""
    from kernlearn.npkl import LINEAR_C_OVER_THRESHOLD

    rng = np.random.default_rng(0)
    X = rng.standard_normal((150, 4))
    y = np.where(rng.random(150) < 0.3, rng.integers(0, 5, 150), -1)
    pairs, labels = from_labels(y, random_state=0)
    n = X.shape[0]
    d = 2 * len(pairs) / np.unique(pairs).size
    L = laplacian(knn_graph(X, 5, mode="symmetric"), "normalized")
    acc = ConstraintAccumulator(pairs, n, base=-L, pair_labels=labels)

    def top(C):
        return scipy.linalg.eigvalsh(acc.assemble(np.full(len(pairs), C)).toarray())[-1]

    assert top(0.5 / d) < 0
    with pytest.warns(UserWarning, match=r"the learned kernel is zero.*nonzero from C = "):
        zero = SimpleNPKL("linear", C=0.5 / d, random_state=0).fit(X, pairs=pairs, pair_labels=labels)
    assert zero.embedding_.shape == (n, 0)
    with pytest.raises(ValueError, match="kernel is zero"):
        KernelKMeans(5).fit(zero.embedding_)
    model = SimpleNPKL("linear", random_state=0).fit(X, pairs=pairs, pair_labels=labels)
    C_0 = model.C_ / LINEAR_C_OVER_THRESHOLD
    assert top(0.999 * C_0) < 1e-12 < top(1.01 * C_0)
    assert model.embedding_.shape[1] >= 1
    assert KernelKMeans(5, random_state=0).fit(model.embedding_).labels_.shape == (n,)
    # Where 0.5 / d already gives a kernel well above the threshold, the default stays 0.5 / d.
    iris_X, iris_y = load_iris(return_X_y=True)
    partial = np.where(np.random.default_rng(1).random(150) < 0.3, iris_y, -1)
    iris_pairs, iris_labels = from_labels(partial, random_state=0)
    d = 2 * len(iris_pairs) / np.unique(iris_pairs).size
    fitted = SimpleNPKL("linear", random_state=0).fit(iris_X, pairs=iris_pairs, pair_labels=iris_labels)
    assert fitted.C_ == pytest.approx(0.5 / d)
