"""logreg on separated data: the linear programs that find separation, the warnings on stderr,
and the fields and printout that say the fit did not converge."""
from __future__ import annotations

import contextlib
import io
import warnings

import numpy as np
import pytest

from lamina import warnings as channel
from lamina.interpreter import Interpreter
from lamina.stats.separation import separation


@pytest.fixture(autouse=True)
def fresh_channel():
    channel.reset()
    yield
    channel.reset()


def run(code: str) -> tuple[list[str], list[str]]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        Interpreter().run(code, "s.lam")
    return out.getvalue().splitlines(), err.getvalue().splitlines()


def statsmodels_separation_warning(X, y) -> bool:
    sm = pytest.importorskip("statsmodels.api")
    from statsmodels.tools.sm_exceptions import PerfectSeparationWarning
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            sm.Logit(y, sm.add_constant(X, has_constant="add")).fit(disp=0, maxiter=200)
        except np.linalg.LinAlgError:
            return True
    return any(issubclass(w.category, PerfectSeparationWarning) for w in caught)


def test_separation_by_construction_and_against_statsmodels(rng):
    X = rng.normal(size=(60, 3))
    apart = (X @ np.array([1.0, -2.0, 0.5]) + 0.3 > 0).astype(float)
    assert separation(X, apart) == "complete"
    assert separation(X * 1e6, apart) == "complete"        # scale does not matter
    noisy = (X[:, 0] + rng.normal(size=60) > 0).astype(float)
    assert separation(X, noisy) == "none"
    assert statsmodels_separation_warning(X, apart) and not statsmodels_separation_warning(X, noisy)
    # quasi-complete: a binary column whose 1s are all in class 1, the rest overlapping
    flag = (rng.random(60) < 0.2).astype(float)
    quasi = np.where(flag == 1, 1.0, noisy)
    assert separation(np.column_stack([X, flag]), quasi) == "quasi"
    # one point of each class on the boundary x = 3
    assert separation(np.array([[1.0], [2], [3], [3], [4], [5]]), np.array([0.0, 0, 0, 1, 1, 1])) == "quasi"


def test_logreg_warns_and_reports_quasi_separation_and_max_iter():
    out, err = run("f = logreg([1, 2, 3, 3, 4, 5], [0, 0, 0, 1, 1, 1])\nprint(f.converged, f.separation)\n"
                   "g = logreg([1, 2, 3, 4, 5, 6], [0, 0, 1, 0, 1, 1], max_iter = 2)\nprint(g.converged)\n"
                   "h = logreg([1, 2, 3, 4, 5, 6], [0, 0, 1, 0, 1, 1])\nprint(h.converged)\n")
    assert out == ["false quasi", "false", "true"]
    assert err == [
        "warning: logreg: a line separates the two classes but for examples of both classes on the line "
        "(quasi-complete separation), so the maximum-likelihood weights are infinite: the fit stopped at "
        "large weights and its standard errors mean nothing; pass l2 > 0 for a finite fit. (s.lam:1)",
        "warning: logreg did not converge in 2 iterations (max_iter = 2); raise max_iter, or standardize "
        "the predictors. (s.lam:3)"]


def test_a_logreg_of_one_class_is_an_error():
    with pytest.raises(Exception) as info:
        run("f = logreg([1, 2, 3], [1, 1, 1])")
    assert str(info.value) == "ValueError: logreg needs examples of both classes, but every label is 1."


def test_the_printed_model_and_its_html_say_it_did_not_converge():
    out, _ = run("print(logreg([1, 2, 3, 4], [0, 0, 1, 1]))")
    assert out[0].endswith("iterations, did not converge)") and out[-1].startswith("Complete separation")
    from lamina.stats.models import logreg
    with contextlib.redirect_stderr(io.StringIO()):
        html = logreg(np.array([[1.0], [2], [3], [4]]), np.array([0.0, 0, 1, 1])).html()
    assert "did not converge" in html and "Complete separation" in html


def test_a_fit_proves_overlap_without_the_linear_programs(rng, monkeypatch):
    """The fitted probabilities of an overlapping data set prove "none" (Stiemke's lemma) and
    the programs are not run; given a separated data set's fit, the programs still decide."""
    import scipy.optimize
    from lamina.stats.models import logreg
    X = rng.normal(size=(32, 2))
    noisy = (X @ np.array([1.0, -1.0]) + rng.normal(size=32) > 0).astype(float)
    apart = (X @ np.array([1.0, -1.0]) > 0).astype(float)
    fits = {}
    for name, y in [("noisy", noisy), ("apart", apart)]:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fit = logreg(X, y)
        fits[name] = fit.predict(X)
    programs = []
    real = scipy.optimize.linprog
    monkeypatch.setattr(scipy.optimize, "linprog", lambda *a, **k: programs.append(1) or real(*a, **k))
    assert separation(X, noisy, fitted=fits["noisy"]) == "none" and programs == []
    assert separation(X, apart, fitted=fits["apart"]) == "complete" and len(programs) == 2


def test_the_proof_from_a_fit_agrees_with_the_programs(rng):
    """On data sets from well mixed to nearly and exactly separated, with and without a far
    offset, separation given the fit answers as the linear programs alone do."""
    from lamina.stats.models import logreg
    for trial in range(60):
        n, d = int(rng.choice([6, 12, 32, 100])), int(rng.integers(1, 4))
        X = rng.normal(size=(n, d)) * rng.choice([1e-3, 1.0, 1e3]) + rng.choice([0.0, 1e6])
        noise = rng.choice([0.0, 1e-6, 0.3, 3.0])
        y = ((X - X.mean(axis=0)) @ rng.normal(size=d) + noise * rng.normal(size=n) * X.std() > 0).astype(float)
        y[:2] = 0.0, 1.0
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                fit = logreg(X, y)
            except Exception:            # collinear columns: no fit to give
                continue
        assert separation(X, y, fitted=fit.predict(X)) == separation(X, y), (trial, n, d, noise)
