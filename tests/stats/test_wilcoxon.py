"""stats/wilcoxon.py: the exact null distributions of Wilcoxon's statistics against counting every
sign pattern or arrangement, R's quantiles (qsignrank, qwilcox) against their definition, and the
Hodges-Lehmann intervals against the order statistics and roots they are defined by."""
import itertools
import math

import numpy as np
import pytest
from scipy.optimize import brentq
from scipy.stats import norm, rankdata

from lamina import warnings as channel
from lamina.stats import wilcoxon as W


def _counted_signed_rank(n):
    counts = np.zeros(n * (n + 1) // 2 + 1)
    for signs in itertools.product([0, 1], repeat=n):
        counts[sum(rank for rank, s in zip(range(1, n + 1), signs) if s)] += 1
    return counts / 2 ** n


def _counted_rank_sum(m, n):
    counts = np.zeros(m * n + 1)
    for xs in itertools.combinations(range(1, m + n + 1), m):
        counts[sum(xs) - m * (m + 1) // 2] += 1
    return counts / math.comb(m + n, m)


@pytest.mark.parametrize("n", [1, 2, 5, 9, 12])
def test_the_signed_rank_distribution_counts_every_sign_pattern(n):
    np.testing.assert_allclose(W.signed_rank_null(n), _counted_signed_rank(n), rtol=1e-14, atol=0)


@pytest.mark.parametrize("m, n", [(1, 1), (1, 6), (2, 3), (3, 2), (4, 6), (5, 5), (7, 3), (6, 8)])
def test_the_rank_sum_distribution_counts_every_arrangement(m, n):
    np.testing.assert_allclose(W.rank_sum_null(m, n), _counted_rank_sum(m, n), rtol=1e-14, atol=0)


def test_large_exact_distributions_stay_probabilities():
    for probs in (W.signed_rank_null(300), W.rank_sum_null(49, 49), W.rank_sum_null(200, 150)):
        assert probs.sum() == pytest.approx(1.0, abs=1e-12) and (probs >= 0).all()
        np.testing.assert_allclose(probs, probs[::-1], rtol=1e-9, atol=1e-300)     # symmetric


def test_tails_are_summed_from_their_own_side():
    probs = W.signed_rank_null(20)
    for q in (0, 1, 17, 105, 209, 210):
        lower, upper = W.tails(probs, q)
        assert lower == pytest.approx(probs[:q + 1].sum(), rel=1e-15)
        assert upper == pytest.approx(probs[q:].sum(), rel=1e-15)
    assert W.tails(probs, 0)[0] == 2.0 ** -20          # no 1 - (1 - tiny) rounding


@pytest.mark.parametrize("probs", [_counted_signed_rank(9), _counted_rank_sum(5, 7)])
def test_the_quantile_is_the_smallest_q_whose_cdf_reaches_p(probs):
    cdf = np.cumsum(probs)
    for p in (0.001, 0.01, 0.025, 0.05, 0.3, 0.5, 0.51, 0.9, 0.975, 0.999):
        assert W.quantile(probs, p) == int(np.argmax(cdf >= p - 1e-12)), p
    # at a p the cdf takes, R's slack keeps that q rather than the next (qsignrank(psignrank(5, 9), 9) = 5)
    assert W.quantile(probs, float(cdf[5])) == 5


def test_the_exact_interval_is_order_statistics_of_the_walsh_averages():
    """Hollander & Wolfe (1999, 2nd ed., pp. 40 and 53), R's reg-tests-1a.R: the depression data."""
    x = np.array([1.83, 0.50, 1.62, 2.48, 1.68, 1.88, 1.55, 3.06, 1.30])
    y = np.array([0.878, 0.647, 0.598, 2.05, 1.06, 1.29, 1.06, 3.14, 1.29])
    d = y - x
    walsh = np.sort([(d[i] + d[j]) / 2 for i in range(9) for j in range(i, 9)])
    ci, level, estimate = W.exact_interval(walsh, W.signed_rank_null(9), "two-sided", 0.95, False)
    np.testing.assert_allclose(ci, [-0.786, -0.010], atol=5e-13)
    assert estimate == pytest.approx(-0.46) and level == 0.95
    # by definition: the k-th smallest and largest, with k the 2.5% quantile of V (counted)
    k = int(np.argmax(np.cumsum(_counted_signed_rank(9)) >= 0.025))
    assert (ci[0], ci[1]) == (walsh[k - 1], walsh[len(walsh) - k])


def test_an_unreachable_level_is_lowered_with_a_warning(capsys):
    channel.reset()
    walsh = np.sort([1.0, 1.5, 2.0, 2.5, 3.0, 3.5])          # 3 values: the level can be at most 75%
    ci, level, _ = W.exact_interval(walsh, W.signed_rank_null(3), "two-sided", 0.95, False)
    assert list(ci) == [1.0, 3.5] and level == 0.75
    assert "conf_level is not achievable" in capsys.readouterr().err


def _z_signed(x, alt, correct):
    def z(d, with_correction=True):
        xd = x - d
        xd = xd[xd != 0]
        n = len(xd)
        r = rankdata(np.abs(xd))
        _, t = np.unique(r, return_counts=True)
        sigma = math.sqrt(n * (n + 1) * (2 * n + 1) / 24 - (t ** 3 - t).sum() / 48)
        dz = r[xd > 0].sum() - n * (n + 1) / 4
        c = 0.0 if not (correct and with_correction) else {"two-sided": 0.5 * np.sign(dz), "greater": 0.5,
                                                           "less": -0.5}[alt]
        return (dz - c) / sigma
    return z


@pytest.mark.parametrize("alt", ["two-sided", "less", "greater"])
def test_the_normal_interval_ends_where_the_statistic_meets_the_quantile(alt):
    x = np.array([-2, 0, 1, 1, 2, 2, 3, 5, 5, 5, 7, 4, 6, 3, 2, 8, 1, 0.5])
    z = _z_signed(x, alt, True)
    ci, level, estimate = W.normal_interval(z, x.min(), x.max(), alt, 0.9, False, float(np.median(x)))
    assert level == 0.9
    q = {"two-sided": [norm.isf(0.05), norm.ppf(0.05)], "greater": [norm.isf(0.1), None], "less": [None, norm.ppf(0.1)]}[alt]
    for end, zq in zip(ci, q):
        if zq is None:
            assert math.isinf(end)
        else:
            assert abs(end - brentq(lambda d: z(d) - zq, x.min(), x.max(), xtol=1e-12)) <= 1e-4
    assert abs(estimate - brentq(lambda d: z(d, False), x.min(), x.max(), xtol=1e-12)) <= 1e-4
