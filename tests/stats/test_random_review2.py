"""Review 2: choice and shuffle keep a float32 tensor float32; choice of one element is a number."""


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
