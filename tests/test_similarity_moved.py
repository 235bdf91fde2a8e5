"""Whether a fit of ESKL / EMKL / REKL moved its kernel away from the start (start_change_,
stop_reason_ "stalled_at_start") and the paper's identity start (init="identity")."""

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

from kernlearn.similarity import EMKL, ESKL, REKL
from kernlearn.similarity._base import INIT_EPS
from test_similarity import _problem

ESTIMATORS = (ESKL, EMKL, REKL)


def _quiet_fit(est, S, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return est.fit(S, y)


@pytest.mark.parametrize("Est", ESTIMATORS)
def test_a_fit_that_moves(Est):
    S, y = _problem(n=30, m=2)
    est = Est(max_iter=100).fit(S, y)  # no warning: it converges away from the start
    assert est.converged_ and est.stop_reason_ in ("certificate", "stalled")
    assert est.start_change_.shape == (1,)
    assert est.start_change_[0] > 0.05
    assert est.objective_[0] < 0.9 * est.history_["objective"][0]  # improved on f(K^(1))
    assert est.n_iter_ > est.n_iter_no_change + 1


def test_start_change_is_the_relative_frobenius_change():
    S, y = _problem(n=30, m=2)
    est = ESKL(max_iter=60).fit(S, y)
    n, tau = len(y), est.tau_
    lam, V = np.linalg.eigh(S.mean(axis=-1))
    pos = np.maximum(lam, 0)
    K0 = (V * ((1 - INIT_EPS) * tau * pos / pos.sum() + INIT_EPS * tau / n)) @ V.T
    K = (est.eigenvectors_[0] * est.eigenvalues_[0]) @ est.eigenvectors_[0].T
    expected = np.linalg.norm(K - K0) / np.linalg.norm(K0)
    assert est.start_change_[0] == pytest.approx(expected, rel=1e-8)


@pytest.mark.parametrize("Est", ESTIMATORS)
def test_a_fit_that_cannot_move_is_not_converged(Est):
    # steps of 1e-10 times the theory step: the kernel cannot leave its start
    S, y = _problem(n=30, m=2)
    est = Est(step=1e-10, n_iter_no_change=3, max_iter=50)
    with pytest.warns(ConvergenceWarning, match="did not move from its start.*init='identity'"):
        est.fit(S, y)
    assert est.stop_reason_ == "stalled_at_start"
    assert not est.converged_
    assert est.n_iter_ == 4  # the stall window of 3 iterations reached back to iteration 1
    assert est.start_change_[0] < 1e-8
    assert est.objective_[0] == pytest.approx(est.history_["objective"][0], rel=1e-8)


@pytest.mark.parametrize("Est", (EMKL, REKL))
def test_denoise_start_stalls_where_the_identity_start_learns(Est):
    # the case: a small C makes the Denoise start look stationary to the stall rule
    S, y = _problem(n=30, m=2)
    with pytest.warns(ConvergenceWarning, match="did not move"):
        den = Est(C=1e-3, max_iter=100).fit(S, y)
    assert den.stop_reason_ == "stalled_at_start" and not den.converged_
    assert den.n_iter_ == den.n_iter_no_change + 1
    assert den.start_change_[0] == 0.0  # the returned kernel is the start itself
    ide = _quiet_fit(Est(C=1e-3, max_iter=100, init="identity"), S, y)
    assert ide.stop_reason_ != "stalled_at_start"
    assert ide.start_change_[0] > 0.5
    assert ide.objective_[0] < den.objective_[0]  # the start was not optimal


def test_n_iter_no_change_one_reports_without_warning():
    S, y = _problem(n=24, m=2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        est = ESKL(max_iter=3, n_iter_no_change=1).fit(S, y)
    assert est.stop_reason_ == "stalled_at_start" and not est.converged_
    assert est.start_change_[0] == 0.0


def test_start_change_per_problem_in_one_vs_rest():
    S, _ = _problem(n=30, m=2)
    y = np.repeat([0, 1, 2], 10)
    est = _quiet_fit(REKL(max_iter=30), S, y)
    assert est.start_change_.shape == (3,)
    assert np.all(est.start_change_ >= 0)
    assert len(est.stop_reason_) == 3
    assert est.converged_ == all(r in ("certificate", "stalled") for r in est.stop_reason_)


@pytest.mark.parametrize("Est", ESTIMATORS)
def test_identity_start_is_tau_identity_over_n(Est):
    S, y = _problem(n=20, m=2)
    with pytest.warns(ConvergenceWarning, match="max_iter = 1"):
        est = Est(init="identity", max_iter=1).fit(S, y)
    # after one iteration the returned kernel is K^(1) = tau I / n
    assert est.start_change_[0] == 0.0
    if Est is REKL:
        np.testing.assert_allclose(est.spectra_[0], est.tau_ / 20, rtol=1e-12)
    else:
        np.testing.assert_allclose(est.eigenvalues_[0], est.tau_ / 20, rtol=1e-12)


@pytest.mark.parametrize("Est", ESTIMATORS)
def test_init_is_validated(Est):
    S, y = _problem(n=20, m=2)
    with pytest.raises(ValueError, match="init"):
        Est(init="eye").fit(S, y)
