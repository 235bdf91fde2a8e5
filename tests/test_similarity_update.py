"""ESKL / EMKL ``update``: the corrected mirror step against Algorithms 1-2 as printed."""

import numpy as np
import pytest

from kernlearn.similarity import EMKL, ESKL, REKL
from kernlearn.similarity import _mirror_descent as md


def _sym(rng, n):
    A = rng.normal(size=(n, n))
    return A + A.T


def test_paper_step_is_meg_from_the_identity_start():
    rng = np.random.default_rng(0)
    n, tau = 9, 2.0
    G = _sym(rng, n)
    log_lam = np.full(n, np.log(tau / n))
    K_meg = md.dense_from_log(*md.meg_step(np.eye(n), log_lam, G, 0.3, tau))
    K_paper = md.dense_from_log(*md.paper_step(log_lam, G, 0.3, tau))
    np.testing.assert_allclose(K_paper, K_meg, atol=1e-14)
    assert np.trace(K_paper) == pytest.approx(tau)


def test_paper_step_is_meg_when_K_and_G_commute():
    # Common eigenvectors Q, both spectra ascending along Q's columns: the matching the printed
    # update makes is then the true one.
    rng = np.random.default_rng(1)
    n, tau = 7, 1.0
    Q, _ = np.linalg.qr(rng.normal(size=(n, n)))
    lam = np.sort(rng.uniform(0.1, 1.0, n))
    lam *= tau / lam.sum()
    d = np.sort(rng.normal(size=n))
    G = (Q * d) @ Q.T
    K_meg = md.dense_from_log(*md.meg_step(Q, np.log(lam), G, 0.5, tau))
    K_paper = md.dense_from_log(*md.paper_step(np.log(lam), G, 0.5, tau))
    np.testing.assert_allclose(K_paper, K_meg, atol=1e-13)


def test_paper_step_differs_when_K_and_G_do_not_commute():
    rng = np.random.default_rng(2)
    n, tau = 7, 1.0
    Q, _ = np.linalg.qr(rng.normal(size=(n, n)))
    log_lam = np.log(rng.dirichlet(np.ones(n)) * tau)
    G = _sym(rng, n)
    U, log_new = md.paper_step(log_lam, G, 0.5, tau)
    K_meg = md.dense_from_log(*md.meg_step(Q, log_lam, G, 0.5, tau))
    K_paper = md.dense_from_log(U, log_new)
    assert np.abs(K_paper - K_meg).max() > 1e-3
    # the printed update keeps G's eigenvectors and K's (reweighted) spectrum
    w, V = np.linalg.eigh(G)
    np.testing.assert_allclose(np.abs(V.T @ K_paper @ V - np.diag(np.diag(V.T @ K_paper @ V))).max(), 0, atol=1e-12)
    assert np.trace(K_paper) == pytest.approx(tau)


def _toy():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    return X @ X.T, np.where(X[:, 0] > 0, 1, 0)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_corrected_step_reaches_a_lower_objective_than_the_printed_one():
    # Measured: from tau I / n the printed update stalls near f = 84 after 22 iterations, the
    # matrix exponentiated gradient reaches f = 6.3 in 100 (the reason "meg" is the default).
    S, y = _toy()
    meg = ESKL(init="identity", max_iter=100).fit(S, y)
    paper = ESKL(init="identity", update="paper", max_iter=100).fit(S, y)
    assert paper.start_change_[0] > 0  # the printed update does move
    assert meg.objective_[0] < 0.5 * paper.objective_[0]


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_emkl_runs_the_printed_update():
    S, y = _toy()
    S2 = np.stack([S, S + 0.1], axis=-1)
    est = EMKL(init="identity", update="paper", max_iter=5).fit(S2, y)
    assert est.get_params()["update"] == "paper"
    assert np.isfinite(est.objective_).all()
    assert np.allclose(est.eigenvalues_.sum(axis=-1), est.tau_)


@pytest.mark.parametrize("cls", [ESKL, EMKL])
def test_bad_update_is_named(cls):
    S, y = _toy()
    with pytest.raises(ValueError, match="update"):
        cls(update="literal").fit(S, y)


def test_rekl_has_no_pairing_to_choose():
    assert "update" not in REKL().get_params()


def test_suffix_lower_bound_is_valid_and_tighter(monkeypatch):
    """Issue 47: the certificate also aggregates the iterates since the last power of two. On
    min ||x - c||_1 over the simplex (f* = 0 at x = c, a nonsmooth f as the losses here) every
    bound stays below f*, and the suffix makes the final one tighter than the full aggregate."""
    from kernlearn.similarity import _mirror_descent as md

    rng = np.random.default_rng(0)
    n = 30
    c = rng.dirichlet(np.ones(n))
    log_x = np.full(n, -np.log(n))
    rule = md.StepRule(np.log(n))
    bounds = {True: md.LowerBound(), False: md.LowerBound()}

    def min_linear(G):
        return float(G.min())  # the simplex's minimum of <G, x>

    values = {True: [], False: []}
    for t in range(1, 401):
        x = np.exp(log_x)
        f, g = float(np.abs(x - c).sum()), np.sign(x - c)
        eta = rule(t, np.abs(g).max())  # the dual of the l1 norm
        for suffix, bound in bounds.items():
            bound.add(f, g, float(g @ x), eta)
            monkeypatch.setattr(md, "SUFFIX_BOUND", suffix)
            values[suffix].append(bound.value(min_linear))
        log_x = md.simplex_step(log_x, g, eta, 1.0)
    assert max(values[True]) <= 1e-12 and max(values[False]) <= 1e-12  # f* = 0
    assert all(a >= b for a, b in zip(values[True], values[False]))
    assert values[True][-1] > 2 * values[False][-1]  # both negative: at least twice as tight
