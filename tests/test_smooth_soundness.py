"""Chapter 1, sound by construction (design.md rules 9, 11, 13, 14): the check evaluates what it counts, its sup
converges or it says so, the class is read by two estimators or the verdict is INCONCLUSIVE, and every size a reader
could type is refused fast beyond the budget. Targets and constructions here are not the chapter's."""

from __future__ import annotations

import math
import time

import numpy as np
import pytest
import torch
from torch import nn

from nnproofs import smooth
from nnproofs.smooth import evaluation
from nnproofs.smooth.smoothness import local_fit_error

# refused before the work starts: the work refused takes hours, so a generous CPU limit tells the two apart
# without depending on the machine's speed or load (no timed assertion)
HANG_LIMIT = 30.0  # seconds of this process's CPU time

F64 = torch.float64


def _affine(weight: torch.Tensor, bias: torch.Tensor) -> nn.Linear:
    """An ``nn.Linear`` holding exactly ``weight`` and ``bias`` (float64), for builds that add hidden units."""
    linear = nn.Linear(weight.shape[1], weight.shape[0], dtype=F64)
    with torch.no_grad():
        linear.weight.copy_(weight)
        linear.bias.copy_(bias)
    return linear


def wave(x):
    """An in-class target the chapter never uses: cos(3x + 0.4) + x²/2 (d = 1)."""
    return torch.cos(3 * x[:, 0] + 0.4) + 0.5 * x[:, 0] ** 2


def wave2(x):
    """An in-class target in d = 2: cos(x₁ + 2x₂) + x₁x₂/2."""
    return torch.cos(x[:, 0] + 2 * x[:, 1]) + 0.5 * x[:, 0] * x[:, 1]


def check(build=smooth.constant_depth_network, f=wave, k=1, Ks=(4, 6, 8, 12), **kw):
    return smooth.check_constant_depth_rate(f, k=k, Ks=list(Ks), build=build, device="cpu", **kw)


# ------------------------------------------------------------------ rule 9: evaluate what you count

def _bent(f, **kw):
    """forward replaced by one that adds a small smooth term: counted the same, computes something else."""
    net = smooth.constant_depth_network(f, **kw)
    net.forward = lambda x: nn.Sequential.forward(net, x) + 1e-3 * torch.sin(7 * x[:, :1])
    return net


class _Tower(nn.Linear):
    def forward(self, x):
        return super().forward(x) * 1.0001


def _subclassed(f, **kw):
    net = smooth.constant_depth_network(f, **kw)
    tower = _Tower(net[0].in_features, net[0].out_features, dtype=F64)
    tower.load_state_dict(net[0].state_dict())
    return nn.Sequential(tower, *net[1:])


def _other_activation(module):
    def build(f, **kw):
        net = smooth.constant_depth_network(f, **kw)
        return nn.Sequential(*[m if type(m) is nn.Linear else module for m in net])
    return build


def _bent_leaf(f, **kw):
    """One Linear's forward replaced on the instance by one that scales its output by 1.0001."""
    net = smooth.constant_depth_network(f, **kw)
    leaf = net[2]
    leaf.forward = lambda x: nn.Linear.forward(leaf, x) * 1.0001
    return net


@pytest.mark.parametrize("build", [_bent, _bent_leaf])
def test_a_replaced_forward_is_refused_like_a_hook(build):
    """A forward replaced on an instance would compute something other than the maps counted: refused, by name."""
    with pytest.raises(TypeError, match="forward is replaced on the instance"):
        check(build, Ks=(4, 5))


def test_a_global_forward_hook_changes_nothing():
    handle = torch.nn.modules.module.register_module_forward_hook(lambda m, i, o: o + 1e-2)
    try:
        hooked = check()
    finally:
        handle.remove()
    np.testing.assert_array_equal(hooked.y, check().y)  # the hook's 1e-2 would be 4x these errors


@pytest.mark.parametrize(("k", "K", "activation", "d"), [(3, 4, "silu", 1), (2, 5, "tanh", 1), (1, 3, "gelu", 2)])
def test_builds_and_checks_repeat_bitwise(k, K, activation, d):
    """Two builds are equal bit for bit (a Dask run must equal the serial one, issue 29): LAPACK's batched lstsq
    gave an ulp of difference in one build of four here; the local fits now use an exact pseudo-inverse."""
    f = (lambda x: torch.sin(2.3 * x[:, 0]) + 3e-3 * (x[:, 0] - 0.37).abs() ** 4.5) if d == 1 else wave2
    builds = [smooth.constant_depth_network(f, k=k, K=K, activation=activation, d=d) for _ in range(6)]
    for net in builds[1:]:
        assert all(torch.equal(p, q) for p, q in zip(builds[0].parameters(), net.parameters()))
    if d == 1:
        runs = [check(f=f, k=k, Ks=(K, K + 1), activation=activation) for _ in range(3)]
        assert all(r.y == runs[0].y and r.notes["local slopes"] == runs[0].notes["local slopes"] for r in runs)


def test_subclasses_and_unknown_modules_are_refused():
    with pytest.raises(TypeError, match="_Tower"):
        check(_subclassed)
    with pytest.raises(TypeError, match="Dropout"):
        check(lambda f, **kw: nn.Sequential(*smooth.constant_depth_network(f, **kw), nn.Dropout(0.0)))


@pytest.mark.parametrize("module, read", [(nn.SiLU(), "silu"), (nn.GELU(approximate="tanh"), "gelu(approximate='tanh')"),
                                          (nn.Softplus(beta=1.2), "softplus(beta=1.2"), (nn.Tanh(), "tanh")])
def test_another_activation_under_the_declared_name_fails(module, read):
    result = check(_other_activation(module))
    assert result.verdict == "FAILED"
    failed = [text for text, held in result.requirements.items() if not held]
    # the activation's requirement fails; a network that computes something else may also not fall (measured)
    assert read in failed[0] and all(text.startswith(("the errors fall", "the errors between")) for text in failed[1:])


def test_network_values_agree_with_the_module_on_an_honest_network():
    net = smooth.constant_depth_network(wave, k=2, K=5, activation="softplus")
    x = torch.rand(500, 1, dtype=F64, generator=torch.Generator().manual_seed(3))
    values = evaluation.network_values(smooth.read_network(net), x)
    assert torch.allclose(values, net(x)[:, 0], rtol=0, atol=1e-12)


# ------------------------------------------------------------------ rule 11: a sup that converges

@pytest.mark.parametrize("k, K, activation", [(0, 6, "gelu"), (1, 5, "tanh"), (2, 4, "silu"), (3, 3, "softplus")])
def test_the_sampled_sup_is_within_one_percent_of_a_brute_force_search(k, K, activation):
    """d = 1: the sup at p and 2p agree, and a search at 1/64 of a half-band over all of [0, 1] finds at most 1% more."""
    reading = smooth.read_network(smooth.constant_depth_network(wave, k=k, K=K, activation=activation))
    sampled = evaluation.sampled_sup(reading, wave, K, 1)
    x = torch.linspace(0, 1, 64 * 32 * K * K + 1, dtype=F64)[:, None]
    brute = float((evaluation.network_values(reading, x) - wave(x)).abs().max())
    assert sampled.converged and max(sampled.sup, sampled.doubled) >= 0.99 * brute


def test_tied_errors_choose_the_same_peaks_on_every_call():
    """Equal errors (a symmetric target meets them) are ranked by position, not by a parallel sort's whim."""
    torch.manual_seed(0)
    x = torch.rand(1 << 17, 2, dtype=F64)
    error = torch.rand(x.shape[0], dtype=F64).round(decimals=1)  # ~13000 ties at each of 11 values
    first = evaluation._peaks(x, error, 1e-3, 8)
    with_threads = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        again = [evaluation._peaks(x, error, 1e-3, 8) for _ in range(3)]
    finally:
        torch.set_num_threads(with_threads)
    top = (error == error.max()).nonzero()[:8, 0]
    assert all(torch.equal(first, a) for a in again) and torch.equal(first, x[top])


def test_d2_is_measured_not_verified():
    result = check(f=wave2, k=1, Ks=(2, 3), d=2)
    assert result.verdict == "INCONCLUSIVE" and all(result.requirements.values())


@pytest.mark.slow
def test_why_d2_stays_inconclusive_the_sampled_sup_moves_with_the_density():
    """The reason the page gives: on sin(3x₁x₂) + x₂ at K = 3 the sampled sup moves by more than 10% between
    densities 1, 2, 4 and 8 points per cell (measured 1.02e-2 .. 1.63e-2, not monotone), so in d = 2 a passed
    doubling test (as on the chapter's target) does not show convergence."""
    def f(x):
        return torch.sin(3 * x[:, 0] * x[:, 1]) + x[:, 1]
    reading = smooth.read_network(smooth.constant_depth_network(f, k=1, K=3, d=2))
    sups = [evaluation.sampled_sup(reading, f, 3, 2, p=p).sup for p in (1, 2, 4, 8)]
    assert max(sups) > 1.1 * min(sups)
    assert max(b / a for a, b in zip(sups, sups[1:])) > 1.1  # one doubling alone moves it by more than 10%


def test_a_sup_that_moves_on_doubling_is_inconclusive():
    """A target with a peak narrower than the base sample (a 2-D bump of width 2e-3 off every critical line)."""
    def bump(x):
        return torch.exp(-(((x[:, 0] - 0.4123) ** 2 + (x[:, 1] - 0.6071) ** 2) / 4e-6))
    reading = smooth.read_network(smooth.constant_depth_network(wave2, k=1, K=3, d=2))
    sampled = evaluation.sampled_sup(reading, lambda x: wave2(x) + 0.1 * bump(x), 3, 2)
    assert not sampled.converged


def test_without_the_coarse_factor_nothing_passes():
    """The control's spikes at the coarse breakpoints are narrower than the cells; the later-layer bisection
    measures them (its sup converges), and the errors they leave do not fall: never PASSED."""
    result = check(smooth.without_coarse_factor_network, k=2, Ks=(4, 6, 8))
    assert result.verdict != "PASSED", result.report()


def test_one_interval_never_passes():
    result = check(Ks=(8, 12))
    assert result.verdict == "INCONCLUSIVE" and "too few sizes" in result.inconclusive


# ------------------------------------------------------------------ errors that swing or do not fall never pass

def _staircase_scaled(factor):
    """A broken build: the first affine map (the coarse staircase) scaled by ``factor``, so the coarse index is
    wrong on bands whose place moves with K: errors of 4-80% that swing between sizes instead of decaying."""
    def build(f, **kw):
        net = smooth.constant_depth_network(f, **kw)
        with torch.no_grad():
            net[0].weight.mul_(factor)
            net[0].bias.mul_(factor)
        return net
    return build


@pytest.mark.parametrize(("k", "Ks", "factor"), [(0, (4, 5, 7), 0.86), (0, (4, 6, 14), 0.86), (0, (4, 5, 7), 0.9),
                                                 (1, (11, 13, 16), 0.86), (0, (4, 6, 7), 0.86)])
def test_errors_that_swing_never_pass(k, Ks, factor):
    """Three sizes can catch two steep drops of a swinging error (0.77, 0.14, 0.079): a drop steeper than the rate
    by more than SWING + tol is not the asymptotic line (in-class slopes settle within 1.2 of it, measured)."""
    result = check(_staircase_scaled(factor), k=k, Ks=Ks)
    assert result.verdict != "PASSED", result.report()


@pytest.mark.parametrize("factor", [0.7, 0.75, 0.8, 0.85, 0.9, 0.95, 0.98])
def test_errors_that_do_not_fall_overall_fail(factor):
    result = check(_staircase_scaled(factor), Ks=smooth.default_Ks(1))
    assert result.verdict == "FAILED", result.report()
    assert not [held for text, held in result.requirements.items() if text.startswith("the errors fall")][0]


@pytest.mark.parametrize(("f", "k", "activation"), [
    (lambda x: torch.tanh(30 * (x[:, 0] - 0.4)), 3, "tanh"),  # the flattest in-class overall slope measured: -5.4
    (lambda x: torch.tanh(30 * (x[:, 0] - 0.4)), 2, "tanh"), (lambda x: torch.sin(9 * x[:, 0]), 0, "gelu"),
    (wave, 1, "sigmoid")])
def test_in_class_errors_fall_overall(f, k, activation):
    result = check(f=f, k=k, Ks=smooth.default_Ks(k, 1, activation), activation=activation)
    assert [held for text, held in result.requirements.items() if text.startswith("the errors fall")][0]
    assert result.verdict != "FAILED", result.report()
    rate, read = -2 * (k + 1), result.notes["intervals read (K)"]
    assert result.notes["slope over the sizes read"] <= 0.65 * rate  # the page: at least 0.68 of the rate
    slopes = dict(zip(zip(result.x, result.x[1:]), result.notes["local slopes"]))
    assert all(slopes[interval] >= rate - 1.2 for interval in read)  # the page: settle within 1.2 of it


# ------------------------------------------------------------------ rule 13: read conservatively

OUT = [  # (target, k): exponents 0.3 short of k + 1, at the ends, inside, under smooth parts and offsets
    (lambda x: wave(x) + x[:, 0] ** 1.7, 1),
    (lambda x: wave(x) + 3 * (1 - x[:, 0]) ** 2.7, 2),
    (lambda x: 50 + wave(x) + (x[:, 0] - 0.5813) .abs() ** 3.7, 3),
    (lambda x: 1e3 + wave(x) + 1e-4 * (x[:, 0] - 0.2917).abs(), 1),
    (lambda x: torch.sin(30 * x[:, 0]) + (x[:, 0] - 0.1234).abs() ** 2.7, 2),
]


@pytest.mark.parametrize("index", range(len(OUT)))
def test_targets_short_of_the_class_are_read_out(index):
    f, k = OUT[index]
    reading = smooth.read_class(f, k=k)
    assert reading.in_class is False and reading.exponent < k + 1 - smooth.CLASS_MARGIN


SMALL = [  # a small singularity under a smooth part whose Chebyshev coefficients reach round-off by degree ~20
    (lambda x: torch.cos(2.3 * x[:, 0]) + 1e-5 * (x[:, 0] - 0.61).abs() ** 2.5, 2),
    (lambda x: torch.sin(2 * x[:, 0] + 0.3) + 1e-4 * (x[:, 0] - 0.83).abs() ** 3.3, 3),
    (lambda x: 5 + torch.sin(3 * x[:, 0]) + 1e-6 * (x[:, 0] - 0.27).abs() ** 1.4, 1),  # under an offset
    (lambda x: torch.sin(3 * x[:, 0]) + 1e-4 * (x[:, 0] - 0.03).abs() ** 2.6, 2),  # near an end
    (lambda x: torch.sin(3 * x[:, 0]) + 1e-3 * (x[:, 0] - 0.97).abs() ** 3.4, 3),
    (lambda x: torch.exp(x[:, 0]) + 1e-5 * x[:, 0] ** 1.5, 1),  # at an end
    (lambda x: torch.exp(x[:, 0]) + 1e-3 * (1 - x[:, 0]) ** 2.6, 2),
    (lambda x: torch.cos(4 * x[:, 0]) + 1e-8 * (x[:, 0] - 0.45).abs() ** 0.5, 0),
]


@pytest.mark.parametrize("index", range(len(SMALL)))
def test_small_singularities_under_smooth_parts_are_read_out(index):
    """The Chebyshev tail is read where it lies above round-off (here degrees ~15..80), not only at N/16..N/2."""
    f, k = SMALL[index]
    reading = smooth.read_class(f, k=k)
    assert reading.in_class is False and reading.exponent < k + 1 - smooth.CLASS_MARGIN


def test_the_resolution_is_measured_and_bounds_what_hides():
    """Below the resolution a singular part hides (1e-7|x - 0.45|^2.5 under cos 4x: c = 1e-7 < 2.5e-5); PASSED
    then needs that one at the resolution moves no error read by more than HIDDEN_SHARE, and the result says c."""
    f = lambda x: torch.cos(4 * x[:, 0]) + 1e-7 * (x[:, 0] - 0.45).abs() ** 2.5  # noqa: E731
    reading = smooth.read_class(f, k=2)
    assert reading.in_class is True and 1e-7 < reading.resolution < 1e-2 and reading.beta == 3 - smooth.CLASS_MARGIN
    result = check(f=f, k=2, Ks=smooth.default_Ks(2))
    assert result.notes["class resolution c"] == float(f"{reading.resolution:.1g}")
    fit = local_fit_error(2, reading.beta)
    shares = [fit * reading.resolution * K ** (-2 * reading.beta) / e for K, e in zip(result.x, result.y)]
    assert result.verdict == "PASSED" and max(shares) <= smooth.HIDDEN_SHARE


def test_the_local_fit_error_bounds_a_singular_part_and_is_nearly_attained():
    """E_k(β) h^β bounds the local fit's error on |x - a|^β (rule 12: attained within 5% on a cell with a at the
    worst place, sampled independently of the function's own grid of places)."""
    for k in range(4):
        beta, fit = k + 0.8, local_fit_error(k, k + 0.8)
        nodes = 0.5 - 0.5 * np.cos((2 * np.arange(k + 1) + 1) * np.pi / (2 * k + 2))
        t = np.linspace(0, 1, 4001)
        worst = max(np.abs(np.polyval(np.polyfit(nodes, np.abs(nodes - a) ** beta, k), t) - np.abs(t - a) ** beta).max()
                    for a in np.linspace(-0.5, 1.5, 333))
        assert 0.95 * fit <= worst <= 1.01 * fit


def test_a_resolution_too_coarse_for_the_errors_read_is_inconclusive():
    """|x - 0.618|^4.3 is in C^4, but a part c|x - a|^3.8 with c up to 0.7 could hide under it and would move the
    errors at K = 4..8 by more than 1%: the class is not shown at these errors."""
    result = check(f=lambda x: (x[:, 0] - 0.618).abs() ** 4.3, k=3, Ks=smooth.default_Ks(3))
    assert result.verdict == "INCONCLUSIVE" and "cannot resolve" in result.inconclusive


def test_an_offset_does_not_change_the_reading():
    kink = lambda x: wave(x) + 1e-4 * (x[:, 0] - 0.2917).abs()  # noqa: E731
    plain, lifted = smooth.read_class(kink, k=1), smooth.read_class(lambda x: 1e3 + kink(x), k=1)
    assert plain.in_class is lifted.in_class is False
    assert plain.exponent < 1.3 and lifted.exponent < 1.3  # a kink, exponent 1, read as one with or without it


@pytest.mark.parametrize("f, k", [(wave, 3), (lambda x: (x[:, 0] - 0.6180).abs() ** 4.3, 3),
                                  (lambda x: x[:, 0] ** 3.1 + wave(x), 2), (lambda x: 1 / (1.2 - x[:, 0]), 3)])
def test_in_class_targets_are_read_in(f, k):
    assert smooth.read_class(f, k=k).in_class is True


def test_round_off_without_decay_is_unread_and_inconclusive():
    """An offset of 1e9 leaves round-off 2e-3 above a unit oscillation: the Chebyshev reading cannot see."""
    f = lambda x: 1e9 + wave(x)  # noqa: E731
    reading = smooth.read_class(f, k=1)
    assert reading.in_class is None and "unread" in reading.why
    assert check(f=f).verdict in ("INCONCLUSIVE", "FAILED")


@pytest.mark.parametrize("f", [
    lambda x: ((x[:, 0] - 0.5) ** 2 + (x[:, 1] - 0.5) ** 2) ** 0.7 + x[:, 0],  # radial, 1.4 < 1.8
    lambda x: (x[:, 0] + x[:, 1] - 1).abs() ** 1.5 + torch.cos(x[:, 1]),  # along the anti-diagonal
    lambda x: (x[:, 1] - 0.382).abs() ** 1.6 * (1 + x[:, 0]),  # along an axis
    lambda x: x[:, 0] ** 1.5 + torch.sin(x[:, 1]),  # at an edge
])
def test_d2_singularities_on_the_read_lines_are_out_of_class(f):
    assert smooth.read_class(f, k=1, d=2).in_class is False


def test_d2_in_class_targets_are_read_in():
    assert smooth.read_class(wave2, k=1, d=2).in_class is True
    assert smooth.read_class(smooth.chapter_target, k=1, d=2).in_class is True


# ------------------------------------------------------------------ rule 14: budgets

@pytest.mark.parametrize("Ks, d", [([4, 400], 1), ([3, 40], 2), ([4, 5000], 1), ([2, 10**12], 1)])
def test_sizes_beyond_the_budget_are_refused_fast(Ks, d):
    start = time.process_time()
    with pytest.raises(ValueError, match=r"Ks=.*budget"):
        smooth.check_constant_depth_rate(wave if d == 1 else wave2, k=1, Ks=Ks, d=d)
    assert time.process_time() - start < HANG_LIMIT


@pytest.mark.parametrize("Ks", [list(range(2, 10**7)), range(2, 10**7), np.arange(2, 10**6)])
def test_very_long_size_lists_are_refused_before_they_are_read(Ks):
    start = time.process_time()
    with pytest.raises(ValueError, match=r"Ks holds .* entries"):
        smooth.check_constant_depth_rate(wave, k=1, Ks=Ks)
    assert time.process_time() - start < HANG_LIMIT


def test_the_chapter_sizes_fit_the_budget_at_both_scales(monkeypatch):
    from nnproofs import budget
    from nnproofs.smooth.checks import work_estimate
    for scale in ("ci", "full"):
        monkeypatch.setenv("BOOK_SCALE", scale)
        for d, ks in ((1, range(4)), (2, range(4))):  # every default a reader can ask for, not only the chapter's
            for k in ks:
                for activation in smooth.ACTIVATIONS:
                    Ks = smooth.default_Ks(k, d, activation)
                    cost = work_estimate(Ks, k=k, d=d, points_per_cell=smooth.POINTS_PER_CELL[d])
                    assert cost <= budget.work(), (scale, d, k, activation)


def test_the_work_estimate_bounds_the_parameters_counted():
    from nnproofs.smooth.checks import PARAMETER_BOUND
    for d, Ks in ((1, (2, 5, 16)), (2, (2, 3))):
        for k in range(4):
            for K in Ks:
                counted = smooth.read_network(smooth.constant_depth_network(wave if d == 1 else wave2, k=k, K=K,
                                                                            d=d)).parameters
                assert counted <= PARAMETER_BOUND[d][k] * (K + 2) ** (2 * d), (d, k, K)


def test_learning_curves_need_three_sizes_of_at_least_fifty():
    for ns in ([1, 2], [100, 200], [20, 100, 200]):
        with pytest.raises(ValueError, match="ns"):
            smooth.check_learning_curve(smooth.learning_target, activation="gelu", ns=ns)
    assert math.isfinite(smooth.LEARNING_MIN_N)


def low_amplitude(x):
    """A target far below the noise (0.1): an honest learner's MSE stays above half the null error at these n."""
    return 0.01 * torch.cos(3 * x[:, 0])


def test_an_honest_learner_on_a_low_amplitude_target_is_inconclusive():
    result = smooth.check_learning_curve(low_amplitude, activation="tanh", ns=[200, 400, 800], seeds=1)
    assert result.verdict == "INCONCLUSIVE" and "null error" in result.inconclusive


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(10))
def test_only_the_null_share_failing_is_inconclusive_on_every_seed(seed):
    result = smooth.check_learning_curve(low_amplitude, activation="tanh", ns=[200, 400, 800], seeds=1, seed=seed)
    share_held = all(result.requirements.values())
    assert result.verdict == ("PASSED" if result.rate_holds and share_held else
                              "INCONCLUSIVE" if result.rate_holds else "FAILED")


# ------------------------------------------------------------------ rules 1, 2: in-class targets are never failed

@pytest.mark.parametrize(("f", "k", "activation"), [
    (lambda x: 1 / (1 + 150 * (x[:, 0] - 0.55) ** 2), 2, "sigmoid"),  # narrow Runge: slopes flatten at K <= 5
    (lambda x: 1 / (1 + 200 * (x[:, 0] - 0.4) ** 2), 2, "softplus"),
    (lambda x: torch.exp(-0.4 / (1 - x[:, 0]).clamp_min(1e-300)), 3, "gelu"),  # flat bump at x = 1
    (lambda x: torch.exp(-0.7 / x[:, 0].clamp_min(1e-300)), 2, "tanh"),  # flat at x = 0
])
def test_in_class_targets_whose_slopes_flatten_are_not_failed(f, k, activation):
    check = smooth.check_constant_depth_rate(f, k=k, Ks=smooth.default_Ks(k, 1, activation), activation=activation,
                                             device="cpu")
    assert check.verdict in ("PASSED", "INCONCLUSIVE"), check.report()
    assert all(check.requirements.values())


@pytest.mark.parametrize(("f", "k", "activation"), [
    (lambda x: 0.5 - 0.2 * x[:, 0] + 0.9 * x[:, 0] ** 2, 2, "gelu"), (lambda x: 2 - 0.4 * x[:, 0], 1, "sigmoid"),
    (lambda x: x[:, 0] ** 3 - x[:, 0], 3, "silu")])
def test_targets_reproduced_to_round_off_pass(f, k, activation):
    check = smooth.check_constant_depth_rate(f, k=k, Ks=smooth.default_Ks(k, 1, activation), activation=activation,
                                             device="cpu")
    assert check.verdict == "PASSED" and check.notes["intervals read (K)"] == [], check.report()


def test_a_degree_short_construction_on_a_flattening_target_still_fails():
    """The flattening rule needs a slope beyond -2k - tol; one degree short stays near -2k."""
    check = smooth.check_constant_depth_rate(lambda x: 1 / (1 + 150 * (x[:, 0] - 0.55) ** 2), k=2,
                                             Ks=smooth.default_Ks(2), build=smooth.one_degree_short_network)
    assert check.verdict == "FAILED"


def test_maps_whose_shapes_do_not_chain_are_refused_by_name():
    def build(f, **kw):
        return nn.Sequential(nn.Linear(1, 3, dtype=F64), nn.GELU(), nn.Linear(4, 1, dtype=F64))
    with pytest.raises(ValueError, match=r"build has affine maps whose shapes do not chain.*K = 4"):
        check(build=build)
    with pytest.raises(ValueError, match="net has affine maps"):
        smooth.read_network(nn.Sequential(nn.Linear(2, 3), nn.Tanh(), nn.Linear(2, 1)))


# ------------------------------------------------------------------ rule 11: curvature read up to the ends, refined

@pytest.mark.parametrize("f", [
    lambda x: torch.relu(x[:, 0] - 3e-4) ** 2 / 2,  # f'' = 0 on [0, 3e-4]: below the old first sample
    lambda x: torch.relu(0.9996 - x[:, 0]) ** 2 / 2,  # the same at the right end
    lambda x: x[:, 0] ** 2 / 2 - 0.5 * torch.relu(4e-6 - (x[:, 0] - 0.613).abs()) ** 2,  # interior dip, width 8e-6
])
def test_curvature_that_fails_near_the_ends_or_in_a_narrow_dip_is_refused(f):
    with pytest.raises(ValueError, match="violates the theorem's assumption"):
        smooth.check_curvature(f, 0.8)


def test_curvature_at_every_scale_accepts_in_class_targets():
    assert smooth.check_curvature(lambda x: torch.exp(2 * x[:, 0]), 3.9) == 1
    assert smooth.check_curvature(lambda x: -torch.cosh(x[:, 0] - 0.3), 0.99) == -1


@pytest.mark.parametrize("call, name", [
    (lambda: smooth.derivative("gelu", 2, -1e300), "at"),
    (lambda: smooth.square_gadget("gelu", 1e-300), "delta"),
    (lambda: smooth.product_gadget("gelu", 1e-12), "delta"),
    (lambda: smooth.square_gadget("gelu", 1e-2, base=1e300), "base"),
    (lambda: smooth.check_gadget_rate("gelu", deltas=[1e-300, 1e-2]), "deltas"),
    (lambda: smooth.learning_curve(smooth.learning_target, activation="gelu", ns=[50, 60], seed=2**63), "seed"),
    (lambda: smooth.check_relu_bottleneck(smooth.convex_target, mu=1.0, widths=[10**6]), "widths"),
    (lambda: smooth.check_relu_bottleneck(smooth.convex_target, mu=1.0, widths=[4], iterations=10**7), "iterations"),
    (lambda: smooth.evaluation_points(2, 1, p=10**12), "p"),
    (lambda: smooth.check_constant_depth_rate(wave, k=1, Ks=[2, 3], points_per_cell=10**9), "points_per_cell"),
])
def test_extreme_arguments_are_refused_fast_by_name(call, name):
    """What the long fuzz profile found: each refused within a second, with a ValueError naming the parameter."""
    start = time.process_time()
    with pytest.raises(ValueError, match=rf"(?<![A-Za-z_]){name}(?![A-Za-z_])"):
        call()
    assert time.process_time() - start < HANG_LIMIT


def test_a_million_training_points_are_refused_by_name():
    with pytest.raises(ValueError, match=r"points must be <= 65536"):
        smooth.check_relu_bottleneck(smooth.convex_target, mu=1.0, widths=[2, 3], hidden_layers=(1,), iterations=5,
                                     points=10**6)


# ------------------------------------------------------- session 6: between samples, between sizes, floor, steep

def _bumped(where, width, height=0.02):
    """The construction plus a bump of ``height`` on ``[where, where + width]`` from four extra first-layer units
    (seven affine maps, counted as honest); a constant C keeps the carried unit in GELU's linear range."""
    def build(f, **kw):
        lins = [m for m in smooth.constant_depth_network(f, **kw) if type(m) is nn.Linear]
        slope, C, mods = 20.0 / width, 40.0, []
        for i, lin in enumerate(lins):
            w, b = lin.weight.detach(), lin.bias.detach()
            o, n = w.shape
            if i == 0:
                w2 = torch.cat([w, torch.full((4, n), slope, dtype=F64)])
                b2 = torch.cat([b, -slope * torch.tensor([where, where, where + width, where + width], dtype=F64)
                                - torch.tensor([0.0, 1.0, 0.0, 1.0], dtype=F64)])
            elif i == 1:
                w2 = torch.zeros(o + 1, n + 4, dtype=F64)
                w2[:o, :n], w2[o, n:] = w, torch.tensor([1.0, -1.0, -1.0, 1.0], dtype=F64) * height
                b2 = torch.cat([b, torch.tensor([C], dtype=F64)])
            elif i < len(lins) - 1:
                w2 = torch.zeros(o + 1, n + 1, dtype=F64)
                w2[:o, :n], w2[o, n] = w, 1.0
                b2 = torch.cat([b, torch.zeros(1, dtype=F64)])
            else:
                w2 = torch.zeros(o, n + 1, dtype=F64)
                w2[:, :n], w2[0, n] = w, 1.0
                b2 = b - C
            mods += [_affine(w2, b2), nn.GELU()]
        return nn.Sequential(*mods[:-1])
    return build


@pytest.mark.parametrize(("where", "width"), [(0.2113, 1e-6), (0.83, 3e-7), (0.5, 5e-8)])
def test_a_bump_narrower_than_the_samples_is_seen(where, width):
    """The first layer's units are sampled where σ is not linear at STEP of their pre-activation, so a bump made
    by steep first-layer units is measured (its error does not fall: FAILED), wherever it lies and however narrow."""
    result = check(build=_bumped(where, width), Ks=(4, 6, 8))
    assert result.verdict == "FAILED" and min(result.y) > 0.01


def test_first_layer_points_resolve_every_unit_and_refuse_beyond_the_budget():
    """Consecutive points move every first-layer unit by at most STEP where GELU is not linear; units too steep for
    the budget give no points and a count, which the check reports as INCONCLUSIVE."""
    reading = evaluation.read_network(_bumped(0.3, 1e-6)(wave, k=1, K=4, activation="gelu", d=1, device="cpu"))
    x, dropped = evaluation.first_layer_points(reading)
    w, b = reading.maps[0]
    z = torch.sort(x[:, 0]).values[:, None] * w[:, 0] + b
    near = (z[1:].abs() < 9) & (z[:-1].abs() < 9)  # both ends where GELU is not linear
    assert dropped == 0 and float(((z[1:] - z[:-1]).abs() * near).max()) <= evaluation.STEP + 1e-9
    many = nn.Sequential(nn.Linear(1, 16384, dtype=F64), nn.GELU(), nn.Linear(16384, 1, dtype=F64))
    with torch.no_grad():
        many[0].weight.fill_(1e7)
        many[0].bias.copy_(-1e7 * torch.linspace(0, 1, 16384, dtype=F64))
    assert evaluation.first_layer_points(evaluation.read_network(many))[1] > 0


@pytest.mark.parametrize(("s", "Ks", "k"), [(0.84, [7, 10, 13], 1), (0.95, [5, 9, 14], 1), (0.9, [6, 9, 11], 0)])
def test_sizes_on_the_low_points_of_swinging_errors_never_pass(s, Ks, k):
    """A first map scaled by s: the errors swing between sizes. Whatever sizes are given, the check also reads the
    sizes between the end sizes (a lower bound each), so the low points alone never PASS."""
    result = check(build=_staircase_scaled(s), f=lambda x: torch.sin(2 * x[:, 0] + 0.3), k=k, Ks=Ks)
    assert result.verdict != "PASSED"


def test_in_class_builds_pass_with_the_sizes_between_read():
    """The honest construction at sizes with gaps: the sizes between lie on the rate's line and it PASSES."""
    result = check(Ks=(5, 8, 13))
    assert result.verdict == "PASSED" and result.notes["errors between the end sizes"]


@pytest.mark.parametrize(("activation", "k", "Ks"), [("sigmoid", 2, [12, 14, 16]), ("softplus", 3, [6, 8, 10])])
def test_a_build_one_degree_short_at_the_floor_does_not_pass(activation, k, Ks):
    """Errors a few times the round-off floor and falling at the lower rate are not 'reproduced to round-off'."""
    short = check(build=smooth.one_degree_short_network, f=wave, k=k, Ks=Ks, activation=activation)
    honest = check(f=wave, k=k, Ks=Ks, activation=activation)
    assert max(honest.y) <= 0.7 * smooth.FLOOR_PASS * honest.notes["round-off floor η"]  # the page: two thirds
    assert short.verdict != "PASSED" or max(short.y) <= smooth.FLOOR_PASS * short.notes["round-off floor η"]


@pytest.mark.parametrize("offset", [4e-6, -1e-5, 3e-4])
def test_a_flat_output_offset_above_the_floor_does_not_pass(offset):
    def shifted(f, **kw):
        net = smooth.constant_depth_network(f, **kw)
        with torch.no_grad():
            net[-1].bias.add_(offset)
        return net
    assert check(build=shifted, f=wave, k=3, Ks=[5, 6, 8], activation="sigmoid").verdict != "PASSED"


@pytest.mark.parametrize("f", [lambda x: torch.tanh(1500 * (x[:, 0] - 0.63)),
                               lambda x: torch.tanh(1100 * (x[:, 0] - 0.27)) + 0.3 * torch.sin(5 * x[:, 0])])
def test_steep_analytic_targets_are_unread_not_out_of_class(f):
    """A feature narrower than degree 1024 resolves: the Chebyshev coefficients have not reached round-off and
    the dyadic meshes read the class; the reading is unread (INCONCLUSIVE, naming why), never 'not C^(k+1)'."""
    kind = smooth.read_class(f, k=1)
    assert kind.in_class is None and "does not resolve f" in kind.why


@pytest.mark.parametrize("f", [lambda x: (x[:, 0] - 0.71).abs() ** 1.3,
                               lambda x: torch.tanh(800 * (x[:, 0] - 0.4)) + (x[:, 0] - 0.77).abs() ** 0.9,
                               lambda x: smooth.chapter_target(x) + 10 * smooth.holder_target(1.75, 0.33)(x)])
def test_singularities_stay_out_of_class_next_to_steep_features(f):
    assert smooth.read_class(f, k=1).in_class is False


@pytest.mark.parametrize(("L", "k"), [(350, 0), (500, 1)])
def test_steep_in_class_targets_whose_slopes_steepen_are_not_failed(L, k):
    """tanh(L(x - 0.55)) at the default sizes: the errors fall slower than half the rate overall, but every local
    slope steepens (pre-asymptotic): INCONCLUSIVE, never FAILED."""
    result = check(f=lambda x: torch.tanh(L * (x[:, 0] - 0.55)), k=k, Ks=smooth.default_Ks(k))
    assert result.verdict == "INCONCLUSIVE", result.report()


def _deep_bump(layer, where, width, steep=1e7, height=0.02):
    """The construction plus a bump of ``height`` on ``[where, where + width]`` made in σ layer ``layer`` (2 or 3):
    a carrier unit GELU(x + 10) ≈ x + 10 in layer 1, passed on unchanged, feeds four units of slope ``steep``."""
    def build(f, **kw):
        lins = [m for m in smooth.constant_depth_network(f, **kw) if type(m) is nn.Linear]
        mods, big = [], 40.0
        for i, lin in enumerate(lins):
            w, b = lin.weight.detach(), lin.bias.detach()
            o, n = w.shape
            extra_out = 4 if i == layer - 1 else (0 if i == len(lins) - 1 else 1)
            extra_in = 0 if i == 0 else (4 if i == layer else 1)
            w2 = torch.zeros(o + extra_out, n + extra_in, dtype=F64)
            w2[:o, :n] = w
            b2 = torch.cat([b, torch.zeros(extra_out, dtype=F64)])
            if i == 0:
                w2[o, 0], b2[o] = 1.0, 10.0
            elif i == layer - 1:
                w2[o:, n] = steep
                b2[o:] = -steep * (10 + torch.tensor([where, where, where + width, where + width], dtype=F64)) \
                    - torch.tensor([0.0, 1.0, 0.0, 1.0], dtype=F64)
            elif i == layer:
                w2[o, n:] = torch.tensor([1.0, -1.0, -1.0, 1.0], dtype=F64) * height
                b2[o] = big
            elif i == len(lins) - 1:
                w2[0, n], b2[0] = 1.0, b2[0] - big
            else:
                w2[o, n] = 1.0
            mods += [_affine(w2, b2), nn.GELU()]
        return nn.Sequential(*mods[:-1])
    return build


@pytest.mark.parametrize(("layer", "where", "width"), [(2, 0.4321, 2e-6), pytest.param(3, 0.1234, 5e-7, marks=pytest.mark.slow)])
def test_every_layer_resolves_a_bump_built_in_a_later_layer(layer, where, width):
    """With ``every_layer`` the cells are bisected until every unit of every σ layer moves by at most STEP where σ
    is not linear, so a bump made by steep units in layer 2 or 3 is measured at its height, wherever it lies."""
    net = _deep_bump(layer, where, width)(wave, k=1, K=6, activation="gelu", d=1, device="cpu")
    reading = evaluation.read_network(net)
    x = torch.linspace(where - width, where + 2 * width, 3001, dtype=F64)[:, None]
    true = float((evaluation.network_values(reading, x) - wave(x)).abs().max())
    assert true > 0.015
    sampled = evaluation.sampled_sup(reading, wave, 6, 1, every_layer=True)
    assert sampled.unresolved == 0 and sampled.sup >= 0.99 * true
    assert check(build=_deep_bump(layer, where, width), Ks=(4, 6, 8), every_layer=True).verdict != "PASSED"


def test_every_layer_must_be_a_bool():
    with pytest.raises(TypeError, match="every_layer"):
        check(Ks=(4, 6), every_layer=1)


@pytest.mark.parametrize(("width", "centre", "k"), [(0.003, 0.5, 0), (0.002, 0.5, 2), (0.006, 0.71, 0)])
def test_an_analytic_feature_narrower_than_the_fine_cells_is_inconclusive(width, centre, k):
    """A narrow Gaussian is analytic; at the chapter's sizes every error stays above UNRESOLVED_SHARE of its
    half-oscillation (the mesh does not resolve it), so its swinging errors are INCONCLUSIVE, not FAILED."""
    def gauss(x):
        return torch.exp(-((x[:, 0] - centre) / width) ** 2)
    Ks = smooth.default_Ks(k)
    result = check(f=gauss, k=k, Ks=Ks)
    assert result.verdict == "INCONCLUSIVE" and min(result.y) > 0.05
    assert smooth.checks._unresolved_by_the_mesh(gauss, k, max(Ks), "cpu")
    assert not smooth.checks._unresolved_by_the_mesh(wave, k, max(Ks), "cpu")  # a resolved target: a broken build fails


def test_the_networks_built_between_the_end_sizes_are_counted_too():
    """Rule 9 the other way round: every network the check evaluates is counted. A build that is deeper only at
    the sizes the user did not pass (here every K not divisible by 4) was PASSED with 7 maps at every K given."""
    def deeper_off_the_given_sizes(g, **kw):
        net = smooth.constant_depth_network(g, **kw)
        if kw["K"] % 4 == 0:
            return net
        tail = []
        for _ in range(3):
            up, down = nn.Linear(1, 5, dtype=torch.float64), nn.Linear(5, 1, dtype=torch.float64)
            with torch.no_grad():
                up.weight.fill_(1.0), up.bias.zero_(), down.weight.fill_(0.2), down.bias.zero_()
            tail += [up, down]
        return nn.Sequential(*net, *tail)

    def f(x):
        return torch.cos(5 * x[:, 0]) * x[:, 0]

    result = smooth.check_constant_depth_rate(f, k=1, Ks=[4, 8, 12, 16], build=deeper_off_the_given_sizes)
    assert result.notes["affine maps"] == [7, 7, 7, 7]  # the sizes given alone look like constant depth
    assert result.verdict == "FAILED"
    assert not result.requirements["the same number of affine maps for every K (constant depth)"]


def test_a_target_too_large_for_float64_weights_is_named():
    with pytest.raises(ValueError, match=r"f reaches \|f\| = 3e\+299"):
        smooth.check_constant_depth_rate(lambda x: 3e299 * torch.cos(2 * x[:, 0]), k=1, Ks=smooth.default_Ks(1))


# ------------------------------------------------------- session 7: the floor of the build's own parameter rounding

def _rounded(bits):
    """The construction with every parameter rounded to ``bits`` significant bits and stored as float64 (24: float32,
    8: bfloat16): the dtype reads float64, the precision does not."""
    def build(f, **kw):
        net = smooth.constant_depth_network(f, **kw)
        with torch.no_grad():
            for m in net.modules():
                if type(m) is nn.Linear:
                    for t in (m.weight, m.bias):
                        mantissa, exponent = torch.frexp(t)
                        t.copy_(torch.ldexp(torch.round(mantissa * 2.0 ** bits), exponent - bits))
        return net
    return build


def hump(x):
    """An in-class target the chapter never uses: exp(-(x - 0.3)²) + sin(5x)/5."""
    return torch.exp(-(x[:, 0] - 0.3) ** 2) + 0.2 * torch.sin(5 * x[:, 0])


@pytest.mark.parametrize(("bits", "below"), [(53, False), (45, False), (24, True), (8, True)])
def test_parameter_bits_read_the_precision_the_parameters_carry(bits, below):
    """The construction's parameters carry >= 45 bits (softplus at small K the least); rounded to 24 bits (float32)
    or 8 they are read at that precision, below FLOAT64_BITS."""
    for activation, k, K in (("softplus", 3, 2), ("gelu", 1, 4), ("tanh", 2, 5)):
        net = (_rounded(bits) if bits < 53 else smooth.constant_depth_network)(hump, k=k, K=K, activation=activation,
                                                                               d=1, device="cpu")
        read = smooth.parameter_bits(smooth.read_network(net))
        assert read <= bits and (read < smooth.checks.FLOAT64_BITS) == below, (activation, read)


@pytest.mark.parametrize(("activation", "k"), [("gelu", 2), ("silu", 1), ("sigmoid", 1)])
def test_a_build_with_float32_rounded_weights_does_not_pass(activation, k):
    """Weights rounded to float32 and stored as float64 pass the dtype requirement; their errors are read above the
    build's own floor, 2^(53 - b) η, so the float32 round-off near the end (slopes flattening by 0.1-0.2) is never
    read as the rate; the same target and sizes PASS with the honest build."""
    Ks = smooth.default_Ks(k, activation=activation)
    rounded = check(build=_rounded(24), f=hump, k=k, Ks=Ks, activation=activation)
    assert rounded.verdict != "PASSED" and not rounded.notes["parameters carry >= 40 bits"], rounded.report()
    assert check(f=hump, k=k, Ks=Ks, activation=activation).verdict == "PASSED"


# ------------------------------------------------------------------ edition 4: structural fixes of a review

def _end_blend(x):
    """An end singularity 0.5 short of C³ under an offset and a smooth part that hide it on the coarse meshes."""
    return 320 + torch.sin(2.1 * x[:, 0] + 0.45) + 1.2e-3 * (1 - x[:, 0]) ** 2.5


def test_an_exponent_that_has_not_settled_leaves_the_class_unread():
    """Above the offset's round-off only three meshes are read, their local exponents falling (a smooth part over an
    emerging h^2.5): the reading must not take the blend for the class, at the reading or at the check."""
    reading = smooth.read_class(_end_blend, k=2)
    assert reading.in_class is None and "not settled" in reading.why, reading
    result = check(f=_end_blend, k=2, Ks=(4, 6, 8, 12))
    assert result.verdict != "PASSED", result.report()


def test_the_resolution_is_measured_at_every_exponent_short_of_the_class():
    """One amplitude resolution per β from k + 1 - CLASS_MARGIN down to k + 0.4, each a positive number."""
    reading = smooth.read_class(wave, k=2)
    betas = [beta for beta, _ in reading.resolutions]
    assert betas[0] == reading.beta == 3 - smooth.CLASS_MARGIN and min(betas) == pytest.approx(2.4)
    assert all(0 < c < math.inf for _, c in reading.resolutions) and dict(reading.resolutions)[reading.beta] == \
        reading.resolution


def _wide_bump(layer, where):
    return _deep_bump(layer, where, 1e-6, steep=3e7, height=0.03)


@pytest.mark.parametrize(("layer", "where"), [(2, 0.5813), pytest.param(3, 0.2719, marks=pytest.mark.slow)])
def test_a_bump_built_in_a_later_layer_is_not_passed_by_default(layer, where):
    """Without every_layer the cells where a unit of a later σ layer skips σ's nonlinear zone are bisected, so a bump
    narrower than the sampling, built in layer 2 or 3, is found and the verdict is not PASSED."""
    result = check(build=_wide_bump(layer, where), Ks=(4, 6, 8))
    assert result.verdict == "FAILED" and max(result.y) > 0.01, result.report()


def _rate_short(power, size):
    def build(f, **kw):
        net = smooth.constant_depth_network(f, **kw)
        with torch.no_grad():
            net[-1].bias.add_(size * kw["K"] ** -power)
        return net
    return build


def test_steady_slopes_short_of_the_rate_fail():
    """The honest build plus 0.5 K^-4.5 at k = 2 (rate -6): steady end slopes near -4.5 are asymptotic, not the
    swing of an in-class target at small K, so they fail."""
    result = check(build=_rate_short(4.5, 0.5), k=2, Ks=(4, 6, 8, 12))
    assert result.verdict == "FAILED", result.report()


@pytest.mark.parametrize(("activation", "bits"), [("tanh", 21)])
def test_errors_that_do_not_fall_under_a_vacuous_floor_fail(activation, bits):
    """Rounded to 21 bits the build's floor 2^32 η exceeds f's oscillation; its errors, far above any float64 floor,
    do not fall: FAILED, not INCONCLUSIVE."""
    result = check(build=_rounded(bits), f=hump, k=2, Ks=smooth.default_Ks(2, activation=activation),
                   activation=activation)
    assert result.verdict == "FAILED", result.report()


def _deep_sawtooth(depth, width=3):
    layers = [nn.Linear(1, width, dtype=F64), nn.ReLU()]
    for _ in range(depth - 1):
        layers += [nn.Linear(width, width, dtype=F64), nn.ReLU()]
    return nn.Sequential(*layers, nn.Linear(width, 1, dtype=F64))


def test_relu_piece_count_refuses_beyond_its_budget():
    """(W + 1)^L pieces are bounded before the count starts: depth 20 at width 3 is refused at once, depth 3 counted."""
    start = time.process_time()
    with pytest.raises(ValueError, match="net="):
        smooth.relu_piece_count(_deep_sawtooth(20))
    assert time.process_time() - start < HANG_LIMIT
    assert smooth.relu_piece_count(_deep_sawtooth(3)) >= 1


# ------------------------------------------------------------------ third referee: the floor path, spikes, near misses

def test_the_floor_path_reads_the_hidden_share_and_the_sup_convergence_at_every_size():
    """Every error within η: a part below the class reading's resolution could still stand above η, so the verdict
    is not PASSED; an in-class target reproduced to round-off still is."""
    hidden = smooth.check_constant_depth_rate(lambda x: 3 + torch.exp(x[:, 0]) + 0.01 * x[:, 0] ** 3.7, k=3,
                                              Ks=[2, 3, 4], activation="softplus")
    assert hidden.verdict != "PASSED", hidden.report()
    cubic = smooth.check_constant_depth_rate(lambda x: 1 + x[:, 0] ** 3 - 0.5 * x[:, 0], k=3, Ks=[2, 3, 4],
                                             activation="softplus")
    assert cubic.verdict == "PASSED", cubic.report()


def test_steady_end_slopes_short_of_the_rate_are_not_passed():
    """A build whose error is 5·K^-1.7 at k = 0 (15% short) has steady slopes within END_SLOPE_TOL of the rate."""
    def f(x):
        return torch.cos(1.3 * x[:, 0]) + x[:, 0] ** 2 / 3

    def short(g, *, K, **kw):
        return smooth.constant_depth_network(lambda x: g(x) + 5.0 * K ** -1.7 * torch.sin(3 * x[:, 0]), K=K, **kw)

    check = smooth.check_constant_depth_rate(f, k=0, Ks=smooth.default_Ks(0), build=short)
    assert check.verdict != "PASSED" and "steady" in check.inconclusive, check.report()
    assert smooth.check_constant_depth_rate(f, k=0, Ks=smooth.default_Ks(0)).verdict == "PASSED"


def _with_a_spike(where: float, height: float):
    """The construction plus a parallel GELU path that leaves σ's linear zone and comes back between two samples
    (a spike of ``height`` about 5e-6 wide at ``where``), exact elsewhere: GELU(t) + GELU(-t) = t·erf(t/√2)."""
    eps, scale = 1e-11, 1e12

    def t(*rows):
        return torch.tensor(rows, dtype=F64)

    extra = [(t([1.0], [-1.0]), t(-where, where)), (t([-scale, -scale]), t(scale * eps)), (t([1.0], [-1.0]), t(0, 0))]
    extra += [(t([1.0, -1.0], [-1.0, 1.0]), t(0.0, 0.0))] * 3 + [(t([height / (scale * eps), -height / (scale * eps)]),
                                                                    t(0.0))]

    def build(f, **kw):
        maps = smooth.affine_maps(smooth.constant_depth_network(f, **kw))
        layers = []
        for i, ((W, b), (w, c)) in enumerate(zip(maps, extra)):
            if i == 0:
                W2, b2 = torch.cat([W, w]), torch.cat([b, c])
            elif i == len(maps) - 1:
                W2, b2 = torch.cat([W, w], 1), b + c
            else:
                W2, b2 = torch.block_diag(W, w), torch.cat([b, c])
            layers += [_affine(W2, b2)] + ([nn.GELU()] if i < len(maps) - 1 else [])
        return nn.Sequential(*layers)
    return build


def test_a_build_of_ones_own_cannot_pass_without_every_layer():
    """A later unit that rises into σ's nonlinear zone and falls back between two samples is not bisected by default:
    a build of one's own is then INCONCLUSIVE, and every_layer=True measures the spike (FAILED)."""
    def f(x):
        return torch.exp(-x[:, 0]) * (2 + torch.cos(2.5 * x[:, 0]))

    build = _with_a_spike(0.5813, 0.1)
    x = torch.tensor([[0.5813]], dtype=F64)
    net = build(f, k=1, K=8, activation="gelu", d=1, device="cpu")
    assert float((evaluation.network_values(evaluation.read_network(net), x) - f(x)).abs()) > 0.09  # the spike
    default = smooth.check_constant_depth_rate(f, k=1, Ks=smooth.default_Ks(1)[:3], build=build)
    # FAILED where a sample happens to meet the spike, else INCONCLUSIVE with the reason: never PASSED
    assert default.verdict == "FAILED" or "every_layer=True" in default.inconclusive, default.report()
    exact_copy = _with_a_spike(0.5813, 0.0)  # the spike's path carried with weight 0: the construction itself
    smooth_build = smooth.check_constant_depth_rate(f, k=1, Ks=smooth.default_Ks(1)[:3], build=exact_copy)
    assert smooth_build.verdict == "INCONCLUSIVE" and "every_layer=True" in smooth_build.inconclusive
    resolved = smooth.check_constant_depth_rate(f, k=1, Ks=smooth.default_Ks(1)[:3], build=build, every_layer=True)
    assert resolved.verdict == "FAILED", resolved.report()


@pytest.mark.parametrize("case", ["first map takes 2 inputs", "a None entry", "a None weight"])
def test_networks_that_cannot_be_read_are_refused_by_name(case):
    if case == "first map takes 2 inputs":
        def build(f, **kw):
            return nn.Sequential(nn.Linear(2, 3, dtype=F64), nn.GELU(), nn.Linear(3, 1, dtype=F64))
        with pytest.raises(ValueError, match="takes 2 inputs"):
            smooth.check_constant_depth_rate(lambda x: torch.sin(x[:, 0]), k=0, Ks=[2, 3], build=build)
        return
    net = nn.Sequential(nn.Linear(1, 3, dtype=F64), nn.GELU(), nn.Linear(3, 1, dtype=F64))
    if case == "a None entry":
        net.add_module("extra", None)
    else:
        net[2].register_parameter("weight", None)
    with pytest.raises(TypeError, match="None|NoneType"):
        smooth.read_network(net)
