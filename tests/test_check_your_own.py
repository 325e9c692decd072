"""The page "Check your own construction" (book/05_check_your_own.md): the seed sweeps behind its
trajectory-dependent verdicts (CONTRIBUTING.md, the output contract, rule 3).

The page executes seed 0 of a sampled check (chapter 3) and of a check that trains networks (chapter 4); the
verdicts it asserts must hold on every seed. The examples are the page's own lines, read from its source, so
that the sweep and the page cannot drift apart.
"""

from pathlib import Path

import pytest
import sympy
import torch

from nnproofs import barrier
from nnproofs import representation as rep

PAGE = Path(__file__).resolve().parents[1] / "book" / "05_check_your_own.md"
SEEDS = range(10)

POLYNOMIAL = (
    'x1, x2, x3 = variables = sympy.symbols("x1 x2 x3")',
    "my_poly = x1 * x2 + x3**2 / 2 - x1**3 / 3 + sympy.Rational(1, 4)",
)
LINE_DATA = (
    "x_line = torch.linspace(-1, 1, 101, dtype=torch.float64)[:, None]",
    "y_line = torch.relu(x_line[:, 0] - 0.3) - 0.5 * torch.relu(-x_line[:, 0])",
)


def page_example(lines: tuple[str, ...]) -> dict:
    """Execute ``lines``, each of which the page holds verbatim, and return what they define."""
    source = PAGE.read_text(encoding="utf-8")
    missing = [line for line in lines if line not in source]
    assert not missing, f"the page no longer holds {missing}: update the sweep with it"
    namespace = {"sympy": sympy, "torch": torch}
    exec("\n".join(lines), namespace)  # noqa: S102 (the page's own example lines)
    return namespace


def test_the_sweeps_run_the_pages_examples():
    assert page_example(POLYNOMIAL)["my_poly"].free_symbols == set(sympy.symbols("x1 x2 x3"))
    assert page_example(LINE_DATA)["y_line"].shape == (101,)


@pytest.mark.slow
def test_sampled_verdicts_of_the_page_hold_on_ten_seeds():
    example = page_example(POLYNOMIAL)
    for seed in SEEDS:
        for build, verdict in ((rep.sharpened_representation, "PASSED"), (rep.unsharpened_control, "FAILED")):
            check = rep.check_monte_carlo_rate(example["my_poly"], example["variables"], ns=rep.default_ns(),
                                               build=build, seed=seed)
            assert check.verdict == verdict, (seed, build.__name__, check.report())


@pytest.mark.slow
def test_zero_barrier_verdicts_of_the_page_hold_on_ten_seeds():
    example = page_example(LINE_DATA)
    for seed in SEEDS:
        for biases, verdict in ((False, "PASSED"), (True, "FAILED")):
            check = barrier.check_zero_barrier_1d([4, 8, 16], data=(example["x_line"], example["y_line"]), seeds=3,
                                                  biases=biases, seed=seed)
            assert check.verdict == verdict, (seed, biases, check.report())
