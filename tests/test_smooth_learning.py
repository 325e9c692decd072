"""The learning check decides on the risk minimiser, not on an unfinished fit (chapter 1, ``check_learning_curve``)."""

import torch

from nnproofs import smooth


def steep(x):
    """An analytic target, steep enough that 100 BFGS steps leave the wider networks unfinished."""
    return torch.tanh(40 * (x[:, 0] - 0.3))


def test_a_slope_failure_of_unconverged_fits_is_inconclusive_and_converged_fits_pass():
    ns = [100, 200, 400, 800]
    short = smooth.check_learning_curve(steep, activation="tanh", ns=ns, iterations=100, seeds=1, device="cpu")
    assert not short.rate_holds  # the slope alone fails: the median test MSE does not fall
    assert short.verdict == "INCONCLUSIVE" and "not converged" in short.inconclusive
    enough = smooth.check_learning_curve(steep, activation="tanh", ns=ns, iterations=1500, seeds=1, device="cpu")
    assert enough.verdict == "PASSED"


def test_shuffled_labels_still_fail_without_a_second_fit():
    shuffled = smooth.check_learning_curve(steep, activation="tanh", ns=[100, 200, 400], iterations=100, seeds=1,
                                           permute_labels=True, device="cpu")
    assert shuffled.verdict == "FAILED"
