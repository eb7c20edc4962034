"""randint, choice, shuffle and permutation draw from the one global generator."""
import numpy as np
import pytest

from lamina.builtins import sampling as S
from lamina.builtins.random import seed
from lamina.errors import LaminaError


def fresh(n=11):
    seed(float(n))
    return np.random.default_rng(n)


def test_randint_matches_the_generator():
    ref = fresh()
    np.testing.assert_array_equal(S.randint(2.0, 9.0, 50.0), ref.integers(2, 9, size=50))
    assert S.randint(0.0, 3.0, 2.0, 4.0).shape == (2, 4)
    x = S.randint(-5.0, 5.0, 10000.0)
    assert x.min() == -5 and x.max() == 4 and x.dtype == np.float64
    assert type(S.randint(0.0, 2.0)) is float


def test_choice_shuffle_permutation_match_the_generator():
    ref = fresh()
    items = np.array([10.0, 20.0, 30.0, 40.0])
    np.testing.assert_array_equal(S.choice(items, 6.0), items[ref.choice(4, size=6)])
    np.testing.assert_array_equal(S.shuffle(items), items[ref.permutation(4)])
    np.testing.assert_array_equal(S.permutation(7.0), ref.permutation(7))
    m = np.arange(12.0).reshape(4, 3)
    rows = S.shuffle(m)
    assert sorted(map(tuple, rows)) == sorted(map(tuple, m)) and rows.shape == (4, 3)
    assert sorted(S.shuffle(["a", "b", "c"])) == ["a", "b", "c"]
    assert len(set(S.choice(10.0, 10.0, replace=False))) == 10


def test_choice_weights_and_frequencies():
    fresh()
    draws = S.choice(np.array([0.0, 1.0, 2.0]), 20000.0, p=np.array([0.2, 0.5, 0.3]))
    freq = np.bincount(draws.astype(int)) / draws.size
    np.testing.assert_allclose(freq, [0.2, 0.5, 0.3], atol=0.02)


def test_seeded_programs_repeat(lam):
    program = "seed(4)\nprint(randint(0, 100, 3), choice([\"x\", \"y\", \"z\"]), shuffle([1, 2, 3]), permutation(3))"
    assert lam.run(program) == lam.run(program)


@pytest.mark.parametrize("source, kind, start", [
    ("randint(5, 5)", "ValueError", "randint needs lo < hi"),
    ("randint(0, 2.5)", "TypeError", "randint's hi must be a whole number"),
    ("choice([], 2)", "ValueError", "choice needs at least one item"),
    ("choice([1, 2], 3, replace = false)", "ValueError", "choice cannot draw 3 distinct items from 2"),
    ("choice([1, 2], 1, p = [0.5, 0.6])", "ValueError", "choice's p must hold 2 probabilities"),
    ("shuffle(3)", "TypeError", "shuffle needs a vector, matrix or list"),
    ("permutation(-1)", "ValueError", "permutation's n must be at least 0"),
])
def test_errors(lam, source, kind, start):
    err = lam.error(source)
    assert err.kind == kind and err.message.startswith(start), err.message


def test_shuffling_a_matrix_allocates_one_copy_of_it():
    # a program's `A = shuffle(hcat(X, y))` each epoch: one new matrix, not a second copy of it
    import tracemalloc
    X = np.random.default_rng(0).standard_normal((20_000, 50))
    ref = fresh()
    tracemalloc.start()
    try:
        out = S.shuffle(X)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    np.testing.assert_array_equal(out, X[ref.permutation(20_000)])
    assert peak < 1.2 * X.nbytes


def test_choice_of_a_tracked_count_draws_as_of_the_plain_count(run):
    lines, _ = run("seed(1)\nprint(choice(param(5.0)), choice(param(5.0), 4), choice(track(5.0), 3, replace = false))\n"
                   "seed(1)\nprint(choice(5), choice(5, 4), choice(5, 3, replace = false))")
    assert lines[0] == lines[1]


@pytest.mark.parametrize("program, message", [
    ("choice([1, 2, 3], 3, replace = false, p = [0.5, 0.5, 0])",
     "choice cannot draw 3 distinct items when p gives only 2 of them a probability above 0."),
    ("choice([1, 2, 3], 2, p = [0 / 0, 0.5, 0.5])",
     "choice's p must hold 3 probabilities (one per item), each at least 0, summing to 1."),
])
def test_choice_with_bad_probabilities_says_so(run, program, message):
    # both were InternalErrors from NumPy's generator
    with pytest.raises(LaminaError) as e:
        run(program)
    assert (e.value.kind, e.value.message) == ("ValueError", message)


def test_choice_and_shuffle_keep_float32(lam):
    assert lam.run("seed(1)\nx = float32([5, 5, 5])\nm = float32(ones(2, 2))\n"
                   "print(dtype(choice(x, 2)))\nprint(dtype(shuffle(x)))\n"
                   "print(dtype(choice(m, 3)))\nprint(dtype(choice(m)))\n"
                   "print(dtype(choice(param(x), 2)))\ny = choice(x)\nprint(dtype(y))\nprint(y * 2)") \
        == ["float32"] * 5 + ["float64", "10"]


def test_rand_float32_stays_below_one(monkeypatch):
    import numpy as np

    from lamina import rng
    from lamina.builtins.random import rand

    class Stub:                        # a float64 draw that rounds up to 1.0 in float32
        def random(self, shape):
            return np.full(shape, 1 - 2.0 ** -30)
    monkeypatch.setitem(rng._state, "rng", Stub())
    x = rand(2.0, 3.0, dtype="float32")
    assert x.dtype == np.float32 and x.max() == np.float32(1 - 2.0 ** -24)


def test_distribution_parameters_whose_scale_overflows_are_refused(lam):
    # uniform(-1e308, 1e308) gave mean Inf (not 0) and cdf(0) 0 (not 0.5); exponential(1e-310)
    # gave cdf(1e300) 0 (not 1 - exp(-1e-10)): SciPy's scale, high - low or 1 / rate, was Inf
    for src, fragment in [("uniform(-1e308, 1e308)", "uniform: low must be less than high, and high - low finite"),
                          ("exponential(1e-310)", "exponential: rate must be greater than 0, and 1 / rate finite"),
                          ("gamma_dist(2, 1e-310)", "gamma_dist: rate must be greater than 0, and 1 / rate finite")]:
        err = lam.error(src)
        assert err.kind == "ValueError" and fragment in err.message
    assert lam.run("print(uniform(-1e307, 1e307).mean, round(cdf(exponential(1e-300), 1e300), 12))") == ["0 0.632120558829"]


def test_choice_of_a_huge_count_draws_without_building_it(lam):
    # choice(k, n) built all k numbers first: 1e12 was a "too large to hold in memory" ValueError
    import numpy as np
    ref = np.random.default_rng(3)
    expected = ref.choice(10 ** 12, size=3, replace=False)
    out = lam.run("seed(3)\nprint(choice(1e12, 3, replace = false))\nprint(dtype(choice(1e12, 2)))")
    assert out == ["[" + ", ".join(str(int(i)) for i in expected) + "]", "float64"]


def test_choice_takes_float32_probabilities(lam):
    # a float32 softmax sums to 1 only to float32 precision: its p was a ValueError
    import numpy as np
    p = np.full(10, 0.1, dtype=np.float32)
    assert abs(p.astype(np.float64).sum() - 1) > 1e-8
    expected = np.random.default_rng(5).choice(10, size=4, p=p.astype(np.float64) / p.astype(np.float64).sum())
    out = lam.run("seed(5)\nprint(choice(10, 4, p = float32(ones(10) / 10)))")
    assert out == ["[" + ", ".join(str(int(i)) for i in expected) + "]"]


@pytest.mark.parametrize("n", ["0", "2.5"])
def test_shuffle_of_a_number_points_to_permutation(lam, n):
    # shuffle(0) said "shuffle's argument must be at least 1", shuffle(2.5) "must be a whole number"
    err = lam.error(f"shuffle({n})")
    assert err.kind == "TypeError"
    assert err.message == "shuffle needs a vector, matrix or list; permutation(n) shuffles 0 to n - 1."
