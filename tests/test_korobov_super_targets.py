"""Chapter 2.2: the checks of Networks B and C judge the target as it is when they are called.

A callable whose values change between two checks (an object with a parameter, a module trained further) was
judged on its former values: the networks and the class readings were cached per target object, so a target
that left the class after a first PASSED check passed again. Each check now reads the target afresh.
"""
import torch

from nnproofs import korobov

WL = [(2, 2), (4, 4), (8, 8)]


class Kinked:
    """4x(1 - x)(sin x + a|x - 1/4|): in the class for a = 0; for a = 1 a kink at the node 1/4, which keeps
    every slope and only the class readings reject."""

    def __init__(self):
        self.a = 0.0

    def __call__(self, x):
        return 4 * x[:, 0] * (1 - x[:, 0]) * (torch.sin(x[:, 0]) + self.a * (x[:, 0] - 0.25).abs())


def test_a_target_that_leaves_the_class_between_two_checks_is_rejected_by_the_second():
    for check in (lambda f: korobov.check_super_approximation(f, m=2, WL=WL),
                  lambda f: korobov.check_super_approximation_derivative(f, m=2, WL=WL),
                  lambda f: korobov.check_partitioned_network(f, WL=WL[:2])):
        f = Kinked()
        assert check(f).verdict == "PASSED"
        f.a = 1.0
        changed = check(f)
        assert changed.verdict == "FAILED" and changed.rate_holds  # only the class reading sees the kink
