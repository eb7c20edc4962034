"""Benchmark case: a training loop that forgets tape_reset() (bench protocol: `cases()`).

The same Lamina program, 20,000 steps of param / loss / grad / update on a 3-point
least-squares fit, once with tape_reset() at the top of each step and once without.
Without it the tape keeps every step's entries (about 20 per step): grad used to walk
all of them each time, so the loop was quadratic (5.6 s for 10,000 steps, 21 s for
20,000, 95 s for 40,000, against 0.6, 1.2 and 1.5 s with the reset). grad now walks
only what the loss depends on, so the ratio of the two should stay near 1 whatever
the number of steps; and since each value owns its history (autodiff/tape.py), a step's
entries are freed when the next step rebinds its values, so no memory is lost either.
`bench/run.py --only forgotten` runs this case alone.
"""
from __future__ import annotations

STEPS = 20_000

PROGRAM = """
x = [1.0, 2.0, 3.0]
wv = 0.0
for step = 1 to {steps}
    {reset}
    w = param(wv)
    g = grad(mean((w * x - 2 * x) .^ 2), wrt = w)
    wv = wv - 0.05 * g
end for
tape_reset()
"""


def lamina_loop(reset: bool):
    import contextlib
    import io

    from lamina.interpreter import Interpreter
    interp = Interpreter()
    code = interp.compile(PROGRAM.format(steps=STEPS, reset="tape_reset()" if reset else ""), "<bench>")

    def run():
        with contextlib.redirect_stderr(io.StringIO()):     # any warning about the tape
            interp.run_code(code)
    return run


def cases() -> list[dict]:
    return [
        {"name": "tape: 20,000 grad steps without tape_reset()", "sizes": f"{STEPS:,} steps",
         "dtype": "float64", "repeat": 4, "per": [STEPS, "step"],
         "goal": {"peer": "lamina, tape_reset() each step", "within": 1.5},
         "impls": {"lamina": lamina_loop(reset=False),
                   "lamina, tape_reset() each step": lamina_loop(reset=True)},
         "notes": ["the same program with and without tape_reset() at the top of each step; the "
                   "ratio is the cost of forgetting it. It was quadratic before grad walked only "
                   "what the loss depends on: 21 s against 1.2 s in the report that found it."]},
    ]
