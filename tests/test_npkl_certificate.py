"""The eigen-certificate of the saddle-point results (``spectrum_certificate_``) against the
spectrum of A(alpha) recomputed densely by LAPACK from the returned dual point."""

import numpy as np
import pytest

from kernlearn.datasets._mixture import make_labelled_mixture
from kernlearn.npkl import SimpleNPKL
from test_npkl import mixture_with_a_large_first_rank, problem


def dense_A(model, L):
    """A(alpha) = sum_p alpha_p t_p (e_i e_j' + e_j e_i') - L, SimpleNPKL's dual matrix."""
    A = -np.array(L, dtype=float)
    i, j = model.pairs_[:, 0], model.pairs_[:, 1]
    coef = model.dual_coef_ * model.pair_labels_
    np.add.at(A, (i, j), coef)
    np.add.at(A, (j, i), coef)
    return A


@pytest.mark.parametrize("solver", ["lanczos", "dense"])
def test_certificate_matches_the_dense_spectrum_of_A(solver):
    X, y, pairs, labels, L = problem(n=60, n_pairs=60)
    model = SimpleNPKL(eigen_solver=solver, C=0.3, B=6.0, n_neighbors=3, tol=1e-9, max_iter=5000, random_state=0)
    model.fit(X, pairs=pairs, pair_labels=labels)
    cert = model.spectrum_certificate_
    values = np.linalg.eigvalsh(dense_A(model, L))[::-1]
    assert cert["method"] == solver and cert["certified"]
    # every eigenvalue of A above the level is kept, and no other
    assert cert["kept"] == np.count_nonzero(values > cert["level"]) == model.eigenvalues_.size
    if solver == "lanczos":
        # the Ritz value that ends the threshold solve is A's next eigenvalue, within its residual
        # (plus the gap between the returned dual point and the kernel's, closed to tol)
        assert cert["next_eigenvalue"] <= cert["level"]
        assert abs(cert["next_eigenvalue"] - values[cert["kept"]]) <= cert["residual"] + 1e-6
    else:
        assert cert["next_eigenvalue"] is None  # LAPACK was asked only for the pairs above the level


def test_basis_certificate_is_of_the_subspace_and_top_of_the_trace_bound():
    X, y, pairs, labels, L = problem(n=60, n_pairs=60)
    basis = SimpleNPKL(C=0.3, B=6.0, n_neighbors=3, basis=10, random_state=0).fit(X, pairs=pairs, pair_labels=labels)
    cert = basis.spectrum_certificate_
    assert cert["method"] == "projected" and cert["certified"] and cert["kept"] == basis.eigenvalues_.size
    top = SimpleNPKL("squared_hinge", p=1, B=2.0, C=0.3, n_neighbors=3, tol=1e-6, max_iter=2000, random_state=0).fit(
        X, pairs=pairs, pair_labels=labels
    )
    cert = top.spectrum_certificate_
    lam_max = np.linalg.eigvalsh(dense_A(top, L))[-1]
    assert cert["method"] == "top" and cert["certified"]
    assert abs(cert["next_eigenvalue"] - lam_max) <= cert["residual"] + 1e-6 * abs(lam_max)


def test_embeddings_report_their_certificate():
    from kernlearn.embedding import MinimumVolumeEmbedding

    X, *_ = problem(n=40)
    model = MinimumVolumeEmbedding(n_components=2, n_neighbors=4).fit(X)
    assert set(model.spectrum_certificate_) == {"method", "level", "next_eigenvalue", "residual", "kept", "certified"}
    assert model.spectrum_certificate_["certified"]


def test_low_rank_iterates_solve_unfiltered_and_the_optimum_is_kept():
    """After an iterate of positive rank <= 10 the next Lanczos solve runs without the Chebyshev
    filter (its products cost more than the orthogonalisation it saves at that rank): the default
    fit at n = 1,000 spends at most 300 products a later iteration (320-960 filtered), and on a
    problem whose first iterates have rank 56-88 (filtered solves, the threshold window grown from
    10) and later ones 2-6 (unfiltered), Lanczos ends at the dense solver's objective within the
    two certified gaps, with a certified spectrum."""
    X, _, y = make_labelled_mixture(1000)
    model = SimpleNPKL(random_state=0).fit(X, y)
    assert model.history_["rank"][-1] <= 10 and model.history_["matvecs"][1:].max() <= 300
    X, pairs, pair_labels = mixture_with_a_large_first_rank()
    kw = dict(C=3.0, random_state=0, tol=1e-6, max_iter=1000)
    fits = {
        solver: SimpleNPKL("squared_hinge", eigen_solver=solver, **kw).fit(X, pairs=pairs, pair_labels=pair_labels)
        for solver in ("lanczos", "dense")
    }
    lanczos, dense = fits["lanczos"], fits["dense"]
    assert lanczos.history_["rank"][0] > 50 and lanczos.history_["rank"][-1] <= 10
    assert lanczos.converged_ and dense.converged_
    cert = lanczos.spectrum_certificate_
    assert cert["method"] == "lanczos" and cert["certified"] and cert["kept"] == lanczos.eigenvalues_.size
    gap = lanczos.history_["gap"][-1] + dense.history_["gap"][-1]
    assert abs(lanczos.history_["primal"][-1] - dense.history_["primal"][-1]) <= gap
