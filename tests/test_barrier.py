"""Chapter 4 (Theorems thm-barrier-decay and thm-barrier-1d): constructive paths, their guarantees,
the rate checks and their negative controls, the baselines, and input validation."""

from __future__ import annotations

import dataclasses
import math
import re
from pathlib import Path

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from torch import nn

from nnproofs import barrier, ledger
from nnproofs.barrier import construction
from nnproofs.networks import relu_network

LAM = barrier.LAMBDA


def random_network(n: int, m: int, seed: int, *, dead: int = 0, unit: int = 0, scale: float = 1.0):
    """A feasible network: ``w_j`` uniform in the unit ball (``dead`` rows zero, ``unit`` rows on the sphere)."""
    g = torch.Generator().manual_seed(seed)
    w = torch.randn(m, n, generator=g, dtype=torch.float64)
    w = w / w.norm(dim=1, keepdim=True) * torch.rand(m, 1, generator=g, dtype=torch.float64) ** (1 / n)
    w[:unit] /= w[:unit].norm(dim=1, keepdim=True)
    if dead:
        w[-dead:] = 0
    return w, scale * torch.randn(m, generator=g, dtype=torch.float64) / m


def other_data(n: int, loss: str, kind: int, samples: int = 128, seed: int = 5):
    """Targets other than the chapter's teacher: a smooth function, or a sign pattern for BCE."""
    g = torch.Generator().manual_seed(seed)
    x = 2 * torch.rand(samples, n, generator=g, dtype=torch.float64) - 1  # a cube, not the ball
    if kind == 0:
        target = torch.sin(3 * x[:, 0]) + (x**2).sum(1)
    else:
        target = x.abs().sum(1) - 0.5 * x[:, -1]
    if loss == "bce":
        return x, (target > target.median()).to(torch.float64)
    return x, target


# ------------------------------------------------------------------------------------------
# The construction: segment guarantees on random networks (property tests)
# ------------------------------------------------------------------------------------------

@settings(max_examples=30, deadline=None)
@given(n=st.integers(1, 4), m=st.integers(4, 24), seed=st.integers(0, 10**6), dead=st.integers(0, 2),
       unit=st.integers(0, 3), loss=st.sampled_from(("huber", "bce")), cover=st.sampled_from(barrier.COVERS),
       scale=st.sampled_from((0.1, 1.0, 30.0)))
def test_every_segment_keeps_its_guarantee(n, m, seed, dead, unit, loss, cover, scale):
    A = random_network(n, m, seed, dead=dead, unit=unit, scale=scale)
    B = random_network(n, m, seed + 1, scale=scale)
    x, y = other_data(n, loss, seed % 2, samples=64, seed=seed)
    path = barrier.constructive_path(A, B, x, cover=cover)
    torch.testing.assert_close(path.start[0], A[0], rtol=0, atol=0)
    torch.testing.assert_close(path.start[1], A[1], rtol=0, atol=0)
    torch.testing.assert_close(path.end[0], B[0], rtol=0, atol=0)
    torch.testing.assert_close(path.end[1], B[1], rtol=0, atol=0)
    report = barrier.audit(path, x, y, A=A, B=B, loss=loss, lam=LAM)
    assert report.holds, report.failures
    assert report.max_function_change <= 1  # within the float64 error bound of f at every data point
    assert report.barrier <= report.certificate + barrier.COST_ATOL  # certificate ≥ realised barrier
    assert report.spherized_level <= report.level + barrier.COST_ATOL
    W, a = path.evaluate(torch.linspace(0, 1, 101))
    assert float(W.norm(dim=-1).max()) <= 1 + barrier.FEASIBILITY_RTOL  # the path stays feasible


@settings(max_examples=20, deadline=None)
@given(n=st.integers(1, 3), m=st.integers(4, 16), seed=st.integers(0, 10**6))
def test_segments_join_continuously(n, m, seed):
    path = barrier.constructive_path(random_network(n, m, seed), random_network(n, m, seed + 7),
                                     torch.zeros(3, n), cover="grid")
    ends = [s.evaluate(torch.tensor([0.0, 1.0])) for s in path.segments]
    for (W_end, a_end), (W_next, a_next) in zip(ends[:-1], ends[1:]):
        torch.testing.assert_close(W_end[1], W_next[0], rtol=0, atol=1e-15)
        torch.testing.assert_close(a_end[1], a_next[0], rtol=0, atol=1e-15)


def test_spherize_segment_is_the_rescaling_curve():
    A, B = random_network(2, 8, 1), random_network(2, 8, 2)
    x = torch.randn(50, 2, dtype=torch.float64)
    (segment, *_) = barrier.constructive_path(A, B, x).segments
    assert segment.kind == "spherize" and segment.curve == "rescale"
    W, a = segment.evaluate(torch.linspace(0, 1, 9))
    r = A[0].norm(dim=1)
    s = 1 - 0.5 + 0.5 * r
    torch.testing.assert_close(W[4], A[0] / s[:, None], rtol=1e-15, atol=0)
    assert bool((a.abs()[1:] <= a.abs()[:-1] + 1e-16).all())  # |a_j(t)| non-increasing, since ‖w_j‖ ≤ 1
    torch.testing.assert_close(W[-1].norm(dim=1), torch.ones(8, dtype=torch.float64))


def test_certificate_formula_and_canonical_forms():
    A, B = random_network(3, 20, 3), random_network(3, 20, 4)
    x = torch.randn(40, 3, dtype=torch.float64)
    path = barrier.constructive_path(A, B, x, cover="grid")
    canonical_A, canonical_B = path.info["canonical"]
    tilde_w = A[0] / A[0].norm(dim=1, keepdim=True)
    tilde_a = A[1] * A[0].norm(dim=1)
    u = canonical_A.centres[canonical_A.assignment]
    moment = float((tilde_a.abs() * (tilde_w - u).norm(dim=1)).sum())
    assert path.moments[0] == pytest.approx(moment, rel=1e-12)
    assert path.certificate(x, 0.5) == pytest.approx(0.5 * float(x.norm(dim=1).mean()) * max(path.moments), rel=1e-14)
    for canonical in (canonical_A, canonical_B):
        assert canonical.slots.numel() <= 10  # at most K = m/2 occupied cells
        assert int((canonical.a != 0).sum()) == canonical.slots.numel()
    assert sum(path.info["occupied"]) <= 20


@pytest.mark.parametrize("n", [2, 3])
def test_grid_cover_radius(n):
    cells = 24
    centres = barrier.sphere_cover(n, cells)
    torch.testing.assert_close(centres.norm(dim=1), torch.ones(cells, dtype=torch.float64))
    probe = torch.randn(20000, n, dtype=torch.float64)
    probe = probe / probe.norm(dim=1, keepdim=True)
    radius = float(torch.cdist(probe, centres).min(1).values.max())
    if n == 2:
        assert radius <= 2 * math.sin(math.pi / (2 * cells)) + 1e-12
    assert radius <= 4 * cells ** (-1 / (n - 1))


def test_ball_cover_is_inside_the_ball_and_sphere_cover_in_high_dimension():
    assert float(barrier.ball_cover(3, 40).norm(dim=1).max()) <= 1
    torch.testing.assert_close(barrier.sphere_cover(5, 30).norm(dim=1), torch.ones(30, dtype=torch.float64))
    torch.testing.assert_close(barrier.sphere_cover(1, 99), torch.tensor([[1.0], [-1.0]], dtype=torch.float64))


def test_weighted_kmeans_is_deterministic_and_on_the_sphere():
    w, a = random_network(3, 40, 11, unit=40)
    first = barrier.weighted_kmeans(w, a, 10)
    torch.testing.assert_close(first, barrier.weighted_kmeans(w, a, 10), rtol=0, atol=0)
    torch.testing.assert_close(first.norm(dim=1), torch.ones(len(first), dtype=torch.float64))
    two_points = torch.tensor([[1.0, 0.0]] * 3 + [[0.0, 1.0]] * 3, dtype=torch.float64)
    assert len(barrier.weighted_kmeans(two_points, torch.ones(6, dtype=torch.float64), 5)) == 2  # no empty cells


# ------------------------------------------------------------------------------------------
# n = 1: the barrier is exactly zero
# ------------------------------------------------------------------------------------------

@settings(max_examples=30, deadline=None)
@given(m=st.integers(4, 64), seed=st.integers(0, 10**6), loss=st.sampled_from(("huber", "bce")),
       scale=st.sampled_from((0.3, 3.0, 40.0)))
def test_zero_barrier_on_random_1d_pairs(m, seed, loss, scale):
    A, B = random_network(1, m, seed, scale=scale), random_network(1, m, seed + 1, scale=scale)
    x, y = other_data(1, loss, seed % 2, seed=seed)
    path = barrier.constructive_path(A, B, x)
    assert path.certificate(x, 1.0) == 0.0
    assert barrier.barrier(path, x, y, loss=loss, lam=LAM) <= barrier.ZERO_BARRIER_ATOL
    assert barrier.audit(path, x, y, A=A, B=B, loss=loss, lam=LAM).holds


def test_bridge_refuses_too_few_slots():
    x = torch.linspace(-1, 1, 11, dtype=torch.float64)[:, None]
    A = (torch.tensor([[1.0], [-0.5], [0.8]]), torch.tensor([0.3, 0.2, -0.1]))
    B = (torch.tensor([[-0.9], [0.7], [0.2]]), torch.tensor([0.1, 0.4, 0.2]))
    with pytest.raises(ValueError, match=r"the bridge needs K_A \+ K_B = 2 \+ 2 = 4 slots, but the networks have m = 3"):
        barrier.constructive_path(A, B, x)
    one_sided = (torch.tensor([[1.0], [0.5], [0.8]]), torch.tensor([0.3, 0.2, -0.1]))
    path = barrier.constructive_path(one_sided, B, x)  # 1 + 2 slots fit in m = 3
    assert barrier.barrier(path, x, x[:, 0], loss="huber", lam=LAM) <= barrier.ZERO_BARRIER_ATOL


@pytest.mark.parametrize("loss", ["huber", "bce"])
@pytest.mark.parametrize("kind", [0, 1])
def test_zero_barrier_check_on_other_targets(loss, kind):
    check = barrier.check_zero_barrier_1d([4, 8, 32], loss=loss, seeds=3, data=other_data(1, loss, kind), steps=150)
    check.assert_passed()
    assert check.measured <= barrier.ZERO_BARRIER_ATOL
    assert check.notes["largest certificate per width"] == [0.0, 0.0, 0.0]
    assert min(check.y) > 1e-4  # the straight line between the same networks does have a barrier


def test_biases_control_is_rejected():
    check = barrier.check_zero_barrier_1d([4, 8, 32], seeds=3, biases=True, steps=150)
    assert not check.passed and not check.rate_holds
    assert not check.requirements["certificate exactly 0 on every pair (S⁰ covered with radius 0)"]


# ------------------------------------------------------------------------------------------
# n >= 2: the rates and their controls
# ------------------------------------------------------------------------------------------

WIDTHS = [16, 32, 64, 128, 256, 512]  # the sizes SLOPE_TOL was measured at (MEASURED_SIZES)
SEEDS = 5


@pytest.fixture(scope="module")
def spread_checks():
    return {n: barrier.check_barrier_decay(n=n, widths=WIDTHS, seeds=SEEDS) for n in (2, 3)}


def test_spread_certificate_rates(spread_checks):
    for n, check in spread_checks.items():
        check.assert_passed()
        assert check.sense == "=="
        assert check.expected == pytest.approx(-1 / (n - 1))
        assert check.fit.r2 > 0.99


def test_spread_rate_on_other_data_and_loss():
    x, y = other_data(2, "bce", 1)
    barrier.check_barrier_decay(n=2, widths=WIDTHS, seeds=SEEDS, loss="bce", data=(x, y)).assert_passed()


@pytest.mark.parametrize(("options", "failing"), [
    ({"spherization": "chord"}, {barrier.REQ_EXACT, barrier.REQ_MONOTONE, barrier.REQ_OUTPUT, barrier.REQ_FORM}),
    ({"bridge": "joint"}, {barrier.REQ_BRIDGE, barrier.REQ_FORM}),
    ({"cells": 8}, set()),
    ({"spherization": "none"}, set()),
])
def test_rate_controls_are_rejected(options, failing, spread_checks):
    check = barrier.check_barrier_decay(n=2, widths=WIDTHS, seeds=SEEDS, **options)
    assert not check.passed
    assert {text for text, held in check.requirements.items() if not held} == failing
    if not failing:  # the rate itself must fail
        assert not check.rate_holds
    if options == {"spherization": "none"}:  # the ball's rate m^(-1/n), one dimension worse
        assert check.fit.slope == pytest.approx(-0.5, abs=0.1)
        assert check.fit.slope - spread_checks[2].fit.slope >= 0.12


@pytest.mark.parametrize(("n", "loss", "kind"), [(2, "huber", 0), (3, "bce", 0), (2, "bce", 1), (3, "huber", 1)])
def test_trained_check_on_other_targets(n, loss, kind):
    check = barrier.check_trained_barriers(n=n, widths=[16, 32, 64, 128], seeds=3, loss=loss,
                                           data=other_data(n, loss, kind))
    check.assert_passed()
    assert check.sense == "<=" and check.measured <= 0
    assert all(b <= c for b, c in zip(check.notes["largest raw barrier per width (grid)"],
                                      check.notes["largest certificate per width (grid)"]))


def test_trained_check_asserts_no_relative_barrier():
    """On BCE labels of |x|₁ − x₃/2 over the cube the networks condense less: the adaptive path's relative
    barrier is about 1e-2 at m = 16 and 1e-3 at m = 32. It is reported, not required; the check passes."""
    check = barrier.check_trained_barriers(n=3, widths=[16, 32, 64, 128], seeds=3, loss="bce",
                                           data=other_data(3, "bce", 1))
    check.assert_passed()
    relative = check.notes["largest relative barrier per width (adaptive)"]
    assert len(relative) == 4 and max(relative) > 1e-3
    assert not any("relative" in text for text in check.requirements)


def test_a_verdict_without_positive_barriers():
    """Zero targets: nothing to merge, no barrier; the claim (barrier within the certificate) holds and is
    judged, the slope is not observed (a constant placeholder is fitted and named)."""
    x = torch.randn(20, 2, dtype=torch.float64)
    y = torch.zeros(20, dtype=torch.float64)
    check = barrier.check_trained_barriers(n=2, widths=[16, 32], seeds=2, data=(x, y), lam=10.0, steps=5)
    assert check.passed, check.report()
    assert check.notes["observed slope of the largest normalised barrier (grid)"] is None
    assert check.notes["fitted series"] != "largest normalised barrier (grid)"
    x1, y1 = barrier.teacher_data(1)
    zero = barrier.check_zero_barrier_1d([4, 8, 16], seeds=2, data=(x1, torch.zeros_like(y1)))
    assert zero.passed and zero.notes["fitted series"].startswith("none"), zero.report()


def test_trained_check_gives_a_verdict_where_merging_is_free():
    """lam = 0.03 (a review's case): the normalised barrier is 0 at some width, the verdict still comes."""
    check = barrier.check_trained_barriers(n=2, widths=[16, 32, 64, 128], seeds=3, lam=0.03)
    assert check.passed, check.report()
    assert 0.0 in check.notes["largest normalised barrier per width (grid)"]
    assert check.notes["fitted series"] == "largest certificate (grid)"


def test_spread_tolerance_covers_the_measured_spread():
    """SLOPE_TOL is the mean-certificate slope's offset from −1/(n−1) plus 4 standard deviations over seed
    offsets (offsets 1..10 here, at the chapter's sizes); the fitted statistic is the mean, not the maximum."""
    for n in (2, 3):
        slopes = np.array(barrier.spread_certificate_slopes(n, barrier.default_widths("spread"),
                                                            seeds=barrier.default_seeds("spread"),
                                                            offsets=range(1, 11)))
        offset = abs(slopes.mean() + 1 / (n - 1))
        assert offset + 3 * slopes.std(ddof=1) <= barrier.SLOPE_TOL[n] <= offset + 6 * slopes.std(ddof=1) + 0.02


# ------------------------------------------------------------------------------------------
# Evaluation, barrier conventions and baselines
# ------------------------------------------------------------------------------------------

def test_straight_line_against_an_independent_evaluation():
    """The cost along the line, recomputed with nn.Sequential modules and torch's own Huber loss."""
    A, B = random_network(2, 12, 21, scale=5.0), random_network(2, 12, 22, scale=5.0)
    x, y = other_data(2, "huber", 0)
    prof = barrier.profile(barrier.straight_line(A, B), x, y, loss="huber", lam=LAM, points_per_segment=11)
    for t, value in zip(prof.t, prof.cost):
        W, a = (1 - t) * A[0] + t * B[0], (1 - t) * A[1] + t * B[1]
        net = relu_network([(W, torch.zeros(12, dtype=torch.float64)), (a[None, :], torch.zeros(1, dtype=torch.float64))])
        data = nn.functional.huber_loss(net(x)[:, 0], y, delta=0.5)
        assert value == pytest.approx(float(data) + LAM * float(a.abs().sum()), rel=1e-13)


def test_straight_line_against_loss_landscapes():
    loss_landscapes = pytest.importorskip("loss_landscapes")
    from loss_landscapes.metrics import Metric

    A, B = random_network(3, 10, 31, scale=4.0), random_network(3, 10, 32, scale=4.0)
    x, y = other_data(3, "bce", 1)

    def module(net):
        model = nn.Sequential(nn.Linear(3, 10, bias=False), nn.ReLU(), nn.Linear(10, 1, bias=False)).double()
        with torch.no_grad():
            model[0].weight.copy_(net[0])
            model[2].weight.copy_(net[1][None, :])
        return model

    class Cost(Metric):
        def __call__(self, wrapper):
            out = wrapper.modules[0][2].weight
            logits = wrapper.forward(x)[:, 0]
            return float(nn.functional.binary_cross_entropy_with_logits(logits, y) + LAM * out.abs().sum())

    theirs = loss_landscapes.linear_interpolation(module(A), module(B), Cost(), steps=50, deepcopy_model=True)
    ours = barrier.profile(barrier.straight_line(A, B), x, y, loss="bce", lam=LAM, points_per_segment=51).cost
    torch.testing.assert_close(torch.as_tensor(theirs), torch.as_tensor(ours[1:]), rtol=1e-12, atol=1e-14)


def test_barrier_conventions():
    prof = barrier.Profile(t=torch.linspace(0, 1, 5).numpy(), cost=torch.tensor([1.0, 2.5, 3.0, 2.5, 2.0]).numpy(),
                           kinds=("line",))
    assert prof.barriers() == pytest.approx({"max": 1.0, "mean": 1.5, "interpolated": 1.5})


def test_batched_barriers_equal_single_ones():
    x, y = other_data(2, "huber", 1)
    pairs = [(random_network(2, 16, s), random_network(2, 16, s + 100)) for s in range(4)]
    paths = [barrier.constructive_path(A, B, x, cover="grid") for A, B in pairs] + [barrier.straight_line(*pairs[0])]
    single = [barrier.barrier(p, x, y, loss="huber", lam=LAM) for p in paths]
    assert barrier.barriers(paths, x, y, loss="huber", lam=LAM) == pytest.approx(single, rel=1e-12, abs=1e-15)


def test_the_profile_is_the_cost_at_the_paths_own_parameters():
    """A segment whose W does not move is evaluated once for all its a(t): the sampled costs are still
    barrier.cost at the path's parameters, and a line keeps every coordinate equal at both ends bit for bit."""
    x, y = other_data(2, "huber", 1)
    path = barrier.constructive_path(random_network(2, 16, 7), random_network(2, 16, 107), x, cover="grid")
    sampled = barrier.profile(path, x, y, loss="huber", lam=LAM, points_per_segment=9)
    direct = barrier.cost(*path.evaluate(sampled.t), x, y, loss="huber", lam=LAM)
    torch.testing.assert_close(torch.as_tensor(sampled.cost), direct, rtol=1e-14, atol=1e-16)
    times = torch.linspace(0, 1, 33, dtype=torch.float64)
    for segment in path.segments:
        if segment.curve == "line":
            for t0, t1, value in zip((segment.W0, segment.a0), (segment.W1, segment.a1),
                                     segment.forward_evaluate(times)):
                assert torch.equal(value[:, t0 == t1], t0[t0 == t1].expand(len(times), -1)), segment.kind


def test_weight_matching_recovers_a_permutation():
    A = random_network(2, 10, 41)
    perm = torch.randperm(10, generator=torch.Generator().manual_seed(0))
    (W, a), found = barrier.weight_matching(A, (A[0][perm], A[1][perm]))
    torch.testing.assert_close(W, A[0], rtol=0, atol=0)
    torch.testing.assert_close(a, A[1], rtol=0, atol=0)
    assert torch.equal(perm[found], torch.arange(10))
    x, y = other_data(2, "huber", 0)
    assert barrier.barrier(barrier.matched_line(A, (A[0][perm], A[1][perm])), x, y, loss="huber", lam=LAM) == 0.0


def test_bezier_curves_are_feasible_and_improve_on_the_line():
    x, y = other_data(2, "huber", 0)
    pairs = [(random_network(2, 16, s), random_network(2, 16, s + 50)) for s in range(2)]
    curves = barrier.bezier_paths(pairs, x, y, loss="huber", steps=100)
    for (A, B), curve in zip(pairs, curves):
        W, a = curve.evaluate(torch.linspace(0, 1, 21))
        torch.testing.assert_close(W[0], A[0], rtol=0, atol=0)
        torch.testing.assert_close(a[-1], B[1], rtol=0, atol=0)
        assert float(W.norm(dim=-1).max()) <= 1 + 1e-12
        line = barrier.barrier(barrier.straight_line(A, B), x, y, loss="huber", lam=LAM, points_per_segment=101)
        assert barrier.barrier(curve, x, y, loss="huber", lam=LAM, points_per_segment=101) <= line


def test_bezier_convergence_rule_stops_early_and_records_its_steps():
    x, y = barrier.teacher_data(3, loss="bce", samples=64)
    W, a = barrier.train_networks(x, y, width=16, seeds=3, loss="bce", steps=150)
    pairs = [((W[0], a[0]), (W[i], a[i])) for i in (1, 2)]  # their Bezier curves keep a barrier of about 1e-2
    curves = barrier.bezier_paths(pairs, x, y, loss="bce", steps=2000, converge=0.5, check_every=20)
    taken = curves[0].info["steps"]
    assert taken % 20 == 0 and 40 <= taken < 2000 and all(c.info["steps"] == taken for c in curves)  # two checks
    longer = barrier.bezier_paths(pairs, x, y, loss="bce", steps=2000, converge=0.05, check_every=20)
    assert longer[0].info["steps"] > taken  # a stricter rule trains longer
    fixed = barrier.bezier_paths(pairs, x, y, loss="bce", steps=taken)  # same steps, no rule: the same curves
    torch.testing.assert_close(fixed[1].segments[0].control[0], curves[1].segments[0].control[0], rtol=0, atol=0)
    with pytest.raises(ValueError, match=r"converge must be a fraction in \[0, 1\)"):
        barrier.bezier_paths(pairs, x, y, loss="bce", converge=1.5)


def test_compare_paths_reports_every_method():
    x, y = barrier.teacher_data(2, loss="huber", samples=64)
    W, a = barrier.train_networks(x, y, width=16, seeds=2, loss="huber", steps=100)
    table = barrier.compare_paths([((W[0], a[0]), (W[1], a[1]))], x, y, loss="huber", bezier_steps=20)
    assert tuple(table) == barrier.METHODS
    for method, row in table.items():
        assert row["seconds"] >= 0 and len(row["max"]) == 1
        assert row["level"] == pytest.approx(table["straight line"]["level"], rel=1e-12)
        assert (row["certificate"][0] is None) == (not method.startswith("constructive"))
    for method in ("constructive (grid)", "constructive (adaptive)"):
        assert table[method]["max"][0] <= table[method]["certificate"][0] + barrier.COST_ATOL


def test_compare_paths_runs_only_the_methods_asked_for():
    x, y = barrier.teacher_data(2, loss="huber", samples=32)
    pair = (random_network(2, 8, 1), random_network(2, 8, 2))
    table = barrier.compare_paths([pair], x, y, loss="huber", methods=("straight line", "constructive (grid)"))
    assert tuple(table) == ("straight line", "constructive (grid)")
    with pytest.raises(ValueError, match="methods must be a non-empty sequence of names from"):
        barrier.compare_paths([pair], x, y, loss="huber", methods=("NEB",))


def test_train_networks_is_feasible_and_reproducible():
    x, y = barrier.teacher_data(3, loss="bce", samples=64)
    W, a = barrier.train_networks(x, y, width=8, seeds=3, loss="bce", steps=30)
    assert W.shape == (3, 8, 3) and a.shape == (3, 8)
    assert float(W.norm(dim=-1).max()) <= 1 + 1e-15
    W2, a2 = barrier.train_networks(x, y, width=8, seeds=3, loss="bce", steps=30)
    assert torch.equal(W, W2) and torch.equal(a, a2)


def test_sequential_networks_are_accepted():
    net = relu_network([(random_network(2, 6, 0)[0], torch.zeros(6, dtype=torch.float64)),
                        (torch.randn(1, 6, dtype=torch.float64), torch.zeros(1, dtype=torch.float64))])
    W, a = barrier.as_network("A", net)
    assert W.shape == (6, 2) and a.shape == (6,)


# ------------------------------------------------------------------------------------------
# Input validation
# ------------------------------------------------------------------------------------------

X2 = torch.zeros(5, 2, dtype=torch.float64)
GOOD = (torch.full((4, 2), 0.5, dtype=torch.float64), torch.ones(4, dtype=torch.float64))


@pytest.mark.parametrize(("A", "match"), [
    ((torch.full((4, 2), 0.8, dtype=torch.float64), torch.ones(4)), r"infeasible: ‖w_0‖ = 1\.13"),
    ((GOOD[0], torch.zeros(4), torch.ones(4)), "biases are not part of the construction"),
    ((GOOD[0], torch.ones(3)), r"a must have shape \(4,\)"),
    ((torch.zeros(4, 0), torch.ones(4)), r"W must have shape \(m, n\) with m, n >= 1"),
    ((torch.full((4, 2), float("nan")), torch.ones(4)), "NaN or inf"),
    ((GOOD[0][None], GOOD[1]), r"W must have shape \(m, n\)"),
])
def test_bad_networks_are_refused(A, match):
    with pytest.raises(ValueError, match=match):
        barrier.constructive_path(A, GOOD, X2)


def test_too_few_slots_in_higher_dimension_suggests_fewer_cells():
    A, B = random_network(2, 6, 1, unit=6), random_network(2, 6, 2, unit=6)
    with pytest.raises(ValueError, match=r"slots, but the networks have m = 6: pass fewer cells \(cells <= m // 2 = 3"):
        barrier.constructive_path(A, B, torch.zeros(3, 2), cover="grid", cells=6)


@pytest.mark.parametrize("name", ["one minus cosine", "Geman-McClure"])
def test_non_convex_losses_are_refused(name, monkeypatch):
    function = {"one minus cosine": lambda p, y: 1 - torch.cos(p - y),
                "Geman-McClure": lambda p, y: (p - y) ** 2 / (1 + (p - y) ** 2)}[name]
    monkeypatch.setitem(barrier.LOSSES, name, barrier.Loss(name, 1.0, function))
    with pytest.raises(ValueError, match=f"loss '{name}' is not convex in the prediction"):
        barrier.audit(barrier.constructive_path(GOOD, GOOD, X2), X2, torch.zeros(5), A=GOOD, B=GOOD, loss=name, lam=LAM)


def test_a_wrong_lipschitz_constant_is_refused(monkeypatch):
    monkeypatch.setitem(barrier.LOSSES, "huber-understated", barrier.Loss("huber-understated", 0.1,
                                                                          barrier.LOSSES["huber"].function))
    with pytest.raises(ValueError, match="declares lipschitz = 0.1 but its difference quotients reach 0.5"):
        barrier.cost(GOOD[0], GOOD[1], X2, torch.zeros(5), loss="huber-understated", lam=LAM)


def test_meta_tensors_are_refused():
    meta = (torch.empty(4, 2, device="meta"), torch.empty(4, device="meta"))
    with pytest.raises(ValueError, match=r"A\[0\] \(W\) is on the meta device"):
        barrier.constructive_path(meta, GOOD, X2)
    with pytest.raises(ValueError, match="x is on the meta device"):
        barrier.constructive_path(GOOD, GOOD, torch.empty(5, 2, device="meta"))
    with pytest.raises(ValueError, match="W is on the meta device"):
        barrier.forward(meta[0], meta[1], X2)


def test_biases_in_a_module_are_refused():
    net = relu_network([(GOOD[0], torch.full((4,), 0.1, dtype=torch.float64)),
                        (GOOD[1][None, :], torch.zeros(1, dtype=torch.float64))])
    with pytest.raises(ValueError, match="has biases"):
        barrier.constructive_path(net, GOOD, X2)


def test_other_bad_inputs():
    other = (torch.full((6, 2), 0.5, dtype=torch.float64), torch.ones(6, dtype=torch.float64))
    with pytest.raises(ValueError, match="same shape"):
        barrier.constructive_path(GOOD, other, X2)
    with pytest.raises(ValueError, match="x has 3 columns but the networks have input dimension n = 2"):
        barrier.constructive_path(GOOD, GOOD, torch.zeros(5, 3))
    with pytest.raises(ValueError, match="cover must be one of"):
        barrier.constructive_path(GOOD, GOOD, X2, cover="voronoi")
    with pytest.raises(TypeError, match="A must be a pair"):
        barrier.constructive_path("network", GOOD, X2)
    path = barrier.constructive_path(GOOD, GOOD, X2)
    y = torch.zeros(5, dtype=torch.float64)
    with pytest.raises(ValueError, match=r"lam must be >= 0"):
        barrier.barrier(path, X2, y, loss="huber", lam=-1.0)
    with pytest.raises(ValueError, match="loss must be one of huber, bce"):
        barrier.barrier(path, X2, y, loss="mse", lam=LAM)
    with pytest.raises(ValueError, match=r"y must lie in \[0, 1\] for the bce loss"):
        barrier.barrier(path, X2, y - 1, loss="bce", lam=LAM)
    with pytest.raises(ValueError, match=r"points_per_segment must be in \[2, 4097\]"):
        barrier.barrier(path, X2, y, loss="huber", lam=LAM, points_per_segment=1)
    with pytest.raises(ValueError, match=r"ts must be a non-empty set of path times in \[0, 1\]"):
        path.evaluate([1.5])
    with pytest.raises(ValueError, match="carries no certificate"):
        barrier.straight_line(GOOD, GOOD).certificate(X2, 1.0)
    with pytest.raises(ValueError, match="must be >= 2 for the rate"):
        barrier.check_barrier_decay(n=1, widths=[4, 8])
    with pytest.raises(ValueError, match="n must be >= 1"):
        barrier.check_barrier_decay(n=0, widths=[4, 8])
    with pytest.raises(ValueError, match=r"widths must all be >= 4, got \[3\]"):
        barrier.check_zero_barrier_1d([3, 8])
    with pytest.raises(ValueError, match="at least two distinct widths"):
        barrier.check_barrier_decay(n=2, widths=[16, 16])
    with pytest.raises(ValueError, match="cover must be one of"):
        barrier.check_barrier_decay(n=2, widths=[16, 32], cover="random")
    with pytest.raises(ValueError, match=r"seeds must be >= 2 \(pairs of trained networks\), got 1"):
        barrier.check_trained_barriers(n=2, widths=[16, 32], seeds=1)
    with pytest.raises(ValueError, match=r"lam must be >= 0"):
        barrier.check_zero_barrier_1d([4, 8], lam=-0.1)


# ------------------------------------------------------------------------------------------
# Seed sweeps: every assertion the chapter makes on trained or sampled networks, on seeds 0..9
# ------------------------------------------------------------------------------------------

SWEEP = range(10)


@pytest.mark.slow
@pytest.mark.parametrize(("n", "loss"), [(2, "huber"), (2, "bce"), (3, "huber"), (3, "bce")])
def test_sweep_trained_certificate(n, loss):
    """The chapter's trained claims (its widths and seeds) hold on every seed of the sweep."""
    for seed in SWEEP:
        check = barrier.check_trained_barriers(n=n, widths=barrier.default_widths("trained"),
                                               seeds=barrier.default_seeds("trained"), loss=loss, seed=seed)
        assert check.passed, (seed, check.report())


@pytest.mark.slow
@pytest.mark.parametrize("n", [2, 3])
def test_sweep_worst_case_rate_and_its_controls(n):
    """The worst-case rate passes, and the ball and fixed-K controls fail as the chapter asserts, on every offset."""
    widths, seeds = barrier.default_widths("spread"), barrier.default_seeds("spread")
    for seed in SWEEP:
        sphere = barrier.check_barrier_decay(n=n, widths=widths, seeds=seeds, seed=seed)
        assert sphere.passed, (seed, sphere.report())
        ball = barrier.check_barrier_decay(n=n, widths=widths, seeds=seeds, seed=seed, spherization="none")
        assert not ball.passed and not ball.rate_holds, (seed, ball.report())
        assert abs(ball.fit.slope + 1 / n) <= barrier.SLOPE_TOL[n], (seed, ball.report())
        assert ball.fit.slope - sphere.fit.slope >= 0.12, seed
        if n == 2:
            fixed = barrier.check_barrier_decay(n=2, widths=widths, seeds=seeds, seed=seed, cells=8)
            assert not fixed.passed and not fixed.rate_holds, (seed, fixed.report())
            chord = barrier.check_barrier_decay(n=2, widths=widths, seeds=seeds, seed=seed, spherization="chord")
            assert not chord.passed, seed
            assert chord.notes["largest function change on exact segments, in float64 error bounds"] > 1e6
            joint = barrier.check_barrier_decay(n=2, widths=widths, seeds=seeds, seed=seed, bridge="joint")
            assert not joint.passed, seed


@pytest.mark.slow
@pytest.mark.parametrize("loss", ["huber", "bce"])
def test_sweep_zero_barrier_1d(loss):
    for seed in SWEEP:
        check = barrier.check_zero_barrier_1d(barrier.default_widths("1d"), loss=loss,
                                              seeds=barrier.default_seeds("1d"), seed=seed)
        assert check.passed, (seed, check.report())


@pytest.mark.slow
def test_sweep_biases_control():
    for seed in SWEEP:
        check = barrier.check_zero_barrier_1d(barrier.default_widths("1d"), seeds=barrier.default_seeds("1d"),
                                              biases=True, seed=seed)
        assert not check.passed and not check.rate_holds, (seed, check.report())


@pytest.mark.slow
def test_sweep_demo_pair_audit():
    """The chapter's first trained pair (n = 2, m = 32, Huber) keeps every guarantee, grid cover."""
    x, y = barrier.teacher_data(2, loss="huber")
    for seed in SWEEP:
        W, a = barrier.train_networks(x, y, width=32, seeds=2, loss="huber", seed=seed)
        A, B = (W[0], a[0]), (W[1], a[1])
        report = barrier.audit(barrier.constructive_path(A, B, x, cover="grid"), x, y, A=A, B=B, loss="huber", lam=LAM)
        assert report.holds, (seed, report.failures)


@pytest.mark.slow
@pytest.mark.parametrize(("n", "loss"), [(2, "huber"), (3, "bce")])
def test_sweep_comparison_assertions(n, loss):
    """What the chapter asserts on its comparison table (m = 64): the adaptive path below the straight line,
    matching removes at least 90% of the line's barrier, both constructive paths within their certificates."""
    x, y = barrier.teacher_data(n, loss=loss)
    methods = ("straight line", "weight matching + line", "constructive (grid)", "constructive (adaptive)")
    for seed in SWEEP:
        W, a = barrier.train_networks(x, y, width=64, seeds=barrier.default_seeds("trained"), loss=loss, seed=7 + seed)
        table = barrier.compare_paths(barrier_pairs(W, a), x, y, loss=loss, methods=methods)
        naive = max(table["straight line"]["max"])
        assert naive > max(table["constructive (adaptive)"]["max"]), seed
        assert max(table["weight matching + line"]["max"]) < 0.1 * naive, seed
        for method in methods[2:]:
            assert all(b <= c + barrier.COST_ATOL for b, c in zip(table[method]["max"], table[method]["certificate"]))
        if (n, loss) == (3, "bce"):  # the chapter: the grid path is not the lowest there, and its certificate vacuous
            def worst(row, key):
                return max(v / level for v, level in zip(row[key], row["level"]))
            grid, matched = table["constructive (grid)"], table["weight matching + line"]
            assert worst(grid, "max") > worst(matched, "max") and worst(grid, "certificate") > 1, seed


@pytest.mark.slow
def test_sweep_matched_line_in_1d():
    """1-D, BCE, m = 64: the matched straight line keeps a positive barrier on some pair (not on every pair:
    at seed 9 one pair's is 0), the construction has none on any."""
    x, y = barrier.teacher_data(1, loss="bce")
    for seed in SWEEP:
        W, a = barrier.train_networks(x, y, width=64, seeds=barrier.default_seeds("trained"), loss="bce", seed=7 + seed)
        pairs = barrier_pairs(W, a)
        matched = barrier.barriers([barrier.matched_line(P, Q) for P, Q in pairs], x, y, loss="bce", lam=LAM,
                                   points_per_segment=51)
        built = barrier.barriers([barrier.constructive_path(P, Q, x) for P, Q in pairs], x, y, loss="bce", lam=LAM)
        assert max(matched) > barrier.ZERO_BARRIER_ATOL and max(built) <= barrier.ZERO_BARRIER_ATOL, (seed, matched)


def barrier_pairs(W, a):
    return [((W[i], a[i]), (W[j], a[j])) for i in range(len(W)) for j in range(i + 1, len(W))]


# ------------------------------------------------------------------------------------------
# Ledger, and CUDA against CPU
# ------------------------------------------------------------------------------------------

def test_claims_are_registered():
    found = {c.key: c for c in ledger.claims() if c.key.startswith("barrier/")}
    assert {k for k, c in found.items() if c.control} == {
        "barrier/control-chord", "barrier/control-joint-bridge", "barrier/control-fixed-cells",
        "barrier/control-ball", "barrier/control-biases-1d"}
    assert all(c.chapter == "book/04_barrier_decay" for c in found.values())
    assert {c.label for c in found.values()} == {"thm-barrier-decay", "thm-barrier-1d"}


def test_chapter_records_exactly_the_registered_claims():
    """Every claim registered for chapter 4 is recorded by the chapter (ledger.record), and nothing else."""
    source = (Path(__file__).resolve().parents[1] / "book" / "04_barrier_decay.md").read_text(encoding="utf-8")
    recorded = set(re.findall(r'ledger\.record\(\s*"(barrier/[^"]+)"', source))
    registered = {c.key for c in ledger.claims() if c.chapter == barrier.CHAPTER}
    assert recorded == registered


@pytest.mark.gpu
def test_cuda_agrees_with_cpu():
    cuda = torch.device("cuda")
    A, B = random_network(3, 32, 1), random_network(3, 32, 2)
    x, y = barrier.teacher_data(3, loss="bce")
    on_cpu = barrier.audit(barrier.constructive_path(A, B, x, cover="grid"), x, y, A=A, B=B, loss="bce", lam=LAM)
    A_cuda = tuple(t.to(cuda) for t in A)
    B_cuda = tuple(t.to(cuda) for t in B)
    path = barrier.constructive_path(A_cuda, B_cuda, x.to(cuda), cover="grid")
    assert path.segments[0].W0.device.type == "cuda"
    on_cuda = barrier.audit(path, x.to(cuda), y.to(cuda), A=A_cuda, B=B_cuda, loss="bce", lam=LAM)
    assert on_cuda.certificate == pytest.approx(on_cpu.certificate, rel=1e-10)
    assert on_cuda.peak == pytest.approx(on_cpu.peak, rel=1e-10)
    assert on_cuda.holds


def test_cost_matches_its_formula_and_validates():
    W, a = random_network(2, 5, 3)
    x, y = other_data(2, "huber", 0, samples=7)
    by_hand = nn.functional.huber_loss(torch.relu(x @ W.T) @ a, y, delta=0.5) + LAM * a.abs().sum()
    assert float(barrier.cost(W, a, x, y, loss="huber", lam=LAM)) == pytest.approx(float(by_hand), rel=1e-14)
    batch = barrier.cost(torch.stack([W, W]), torch.stack([a, -a]), x, y, loss="huber", lam=LAM)
    assert batch.shape == (2,)
    with pytest.raises(ValueError, match="matching m and n"):
        barrier.cost(W, a[:4], x, y, loss="huber", lam=LAM)
    with pytest.raises(ValueError, match="lam must be >= 0"):
        barrier.cost(W, a, x, y, loss="huber", lam=-1.0)
    with pytest.raises(TypeError, match="W must be a torch tensor"):
        barrier.forward(W.numpy(), a, x)


def test_bce_is_exact_for_large_logits():
    """log(1 + e^p) − yp without softplus's switch at p = 20 (a 2e-9 jump that would break convexity checks)."""
    mpmath = pytest.importorskip("mpmath")
    mpmath.mp.dps = 50
    p = torch.tensor([19.9, 20.0, 20.1, 40.0, -40.0], dtype=torch.float64)
    exact = torch.tensor([float(mpmath.log(1 + mpmath.exp(mpmath.mpf(float(v))))) for v in p], dtype=torch.float64)
    torch.testing.assert_close(barrier.LOSSES["bce"](p, torch.zeros(5, dtype=torch.float64)), exact, rtol=2e-16, atol=0)
    assert float((nn.functional.softplus(p) - exact).abs().max()) > 1e-9  # torch's softplus is not exact here


# ------------------------------------------------------------------------------------------
# a review's controls: each must be rejected (or, in class, pass)
# ------------------------------------------------------------------------------------------

def _failing(check) -> set[str]:
    return {text for text, held in check.requirements.items() if not held}


@pytest.mark.parametrize("n", [1, 4, 5, 6])
def test_rate_is_refused_where_its_tolerance_was_not_measured(n):
    """For n >= 4 the ball path without spherization passed (n = 4: −0.254 vs −0.333 ± 0.083): the gap
    1/(n(n−1)) between the two rates is below any unmeasured tolerance, so such n are refused."""
    with pytest.raises(ValueError, match=rf"n(?: must be >= 2| = {n}: the slope tolerance is measured for n in \[2, 3\])"):
        barrier.check_barrier_decay(n=n, widths=WIDTHS, seeds=SEEDS, spherization="none")


@pytest.mark.parametrize(("widths", "seeds", "match"), [
    ([16, 32], 2, r"2 distinct widths \(at least 4\), largest width 32 \(at least 512\), span largest/smallest width 2 \(at least 32\), seeds = 2 \(at least 5\)"),
    ([512, 513, 514, 515], 5, r"span largest/smallest width 1.01 \(at least 32\)"),
    ([64, 128, 256, 512], 4, r"seeds = 4 \(at least 5\)"),
    ([4, 8, 16, 32, 64, 128, 256, 512], 5, r"smallest width 4 \(at least 16\)"),
])
def test_rate_is_refused_at_unmeasured_sizes(widths, seeds, match):
    with pytest.raises(ValueError, match=match):
        barrier.check_barrier_decay(n=2, widths=widths, seeds=seeds)


def test_adaptive_rate_is_one_sided():
    """The adaptive cover beats the grid on some offsets (−1.085 at n = 2, 16…512): the theorem only bounds it."""
    check = barrier.check_barrier_decay(n=2, widths=WIDTHS, seeds=SEEDS, cover="adaptive")
    assert check.sense == "<=" and check.passed, check.report()
    ball = barrier.check_barrier_decay(n=2, widths=WIDTHS, seeds=SEEDS, cover="adaptive", spherization="none")
    assert not ball.rate_holds, ball.report()


def _scaled_merge(factor):
    original = construction._compress

    def compress(W, a, side, **options):
        segments, canonical = original(W, a, side, **options)
        out, after = [], False
        for s in segments:
            if s.kind == "merge":
                out.append(barrier.Segment("merge", side, s.W0, s.a0, s.W1, s.a1 * factor))
                after = True
            else:
                out.append(barrier.Segment(s.kind, side, s.W0, s.a0 * factor, s.W1, s.a1 * factor) if after else s)
        return out, dataclasses.replace(canonical, a=canonical.a * factor)
    return compress


@pytest.mark.parametrize("factor", [0.8, 1.1, 1.3])
def test_a_merge_that_rescales_the_output_weights_is_rejected(factor, monkeypatch):
    monkeypatch.setattr(construction, "_compress", _scaled_merge(factor))
    check = barrier.check_barrier_decay(n=2, widths=WIDTHS, seeds=SEEDS)
    assert not check.passed and barrier.REQ_OUTPUT in _failing(check), check.report()
    trained = barrier.check_trained_barriers(n=3, widths=[16, 32], seeds=2, loss="bce", steps=50)
    assert not trained.passed and barrier.REQ_OUTPUT in _failing(trained), trained.report()


def test_a_detour_outside_the_ball_is_rejected(monkeypatch):
    """Idle slots (a_j = 0) leave the ball (3·w_j) and come back: the cost is unchanged, feasibility is not."""
    original = construction._bridge

    def excursion(A, B, *, bridge):
        segments = original(A, B, bridge=bridge)
        W, a = segments[0].W0, segments[0].a0
        out = torch.where((a == 0)[:, None], 3.0 * W, W)
        return [barrier.Segment("free", "bridge", W, a, out, a), barrier.Segment("free", "bridge", out, a, W, a)] + segments
    monkeypatch.setattr(construction, "_bridge", excursion)
    for check in (barrier.check_zero_barrier_1d([4, 8, 16], seeds=2),
                  barrier.check_trained_barriers(n=2, widths=[16, 32], seeds=2, steps=50),
                  barrier.check_barrier_decay(n=2, widths=WIDTHS, seeds=SEEDS)):
        assert not check.passed and barrier.REQ_FEASIBLE in _failing(check), check.report()


@pytest.mark.parametrize("factor", [1.1, 1.3])
def test_cover_centres_outside_the_ball_are_rejected(factor, monkeypatch):
    sphere, kmeans = construction.sphere_cover, construction.weighted_kmeans
    monkeypatch.setattr(construction, "sphere_cover", lambda n, cells, device=None: sphere(n, cells, device=device) * factor)
    monkeypatch.setattr(construction, "weighted_kmeans", lambda *args, **kw: kmeans(*args, **kw) * factor)
    for check in (barrier.check_zero_barrier_1d([4, 8, 16], seeds=2),
                  barrier.check_trained_barriers(n=2, widths=[16, 32], seeds=2, steps=50)):
        assert not check.passed and barrier.REQ_FEASIBLE in _failing(check), check.report()


def test_tight_pair_nearly_attains_the_certificate():
    """One tight case per cover and loss: (sin 10° + cos 70° − cos 80°)/(4 sin 5°) = 0.98106."""
    expected = (math.sin(math.radians(10)) + math.cos(math.radians(70)) - math.cos(math.radians(80))) / (
        4 * math.sin(math.radians(5)))
    tight = barrier.tight_audits()
    assert set(tight) == {(n, c, l, o) for n in barrier.TIGHT_DIMENSIONS for c in barrier.COVERS for l in barrier.LOSSES
                         for o in barrier.TIGHT_ORDERS}
    for report in tight.values():
        assert report.holds and report.joined
        assert report.merge_barrier / report.certificate == pytest.approx(expected, abs=1e-9)
        assert report.barrier == pytest.approx(report.merge_barrier, rel=1e-12)


def _mean_norm(x) -> float:
    return float(x.norm(dim=1).mean())


UNDERSTATED = {
    **{f"×{factor}": lambda self, x, L, f=factor: f * L * _mean_norm(x) * max(self.moments) for factor in (0.9, 0.8, 0.72, 0.3)},
    # the tight pair's sides differ (μ_B = 0): a certificate on the smaller or the mean moment misses
    "min side": lambda self, x, L: L * _mean_norm(x) * min(self.moments),
    "mean of sides": lambda self, x, L: L * _mean_norm(x) * sum(self.moments) / 2,
}


@pytest.mark.parametrize("formula", sorted(UNDERSTATED))
def test_an_understated_certificate_is_rejected(formula, monkeypatch):
    monkeypatch.setattr(barrier.Path, "certificate", UNDERSTATED[formula])
    for check in (barrier.check_barrier_decay(n=2, widths=WIDTHS, seeds=SEEDS),
                  barrier.check_zero_barrier_1d([4, 8, 16], seeds=2),
                  barrier.check_trained_barriers(n=2, widths=[16, 32], seeds=2, steps=50)):
        assert not check.passed and barrier.REQ_TIGHT in _failing(check), check.report()


def _trimmed(v, p):
    v = torch.sort(v).values
    k = int(p * len(v))
    return float(v[k:len(v) - k].mean())


# exact on the tight pairs (width 6, three samples, n = 2 and 3, μ_B = 0) but understated elsewhere: only
# the audit's own evaluation of L·mean‖x‖·max(μ_A, μ_B) on every path sees them (referee 4d and our own)
EXACT_ONLY_WHERE_TIGHT = {
    "20%-trimmed mean": lambda self, x, L: L * _trimmed(x.norm(dim=1), 0.2) * max(self.moments),
    "median norm": lambda self, x, L: L * float(x.norm(dim=1).median()) * max(self.moments),
    "geometric mean": lambda self, x, L: L * float(x.norm(dim=1).log().mean().exp()) * max(self.moments),
    "max − ½ min": lambda self, x, L: L * _mean_norm(x) * (max(self.moments) - 0.5 * min(self.moments)),
    "first 3 coordinates": lambda self, x, L: L * float(x[:, :3].norm(dim=1).mean()) * max(self.moments),
    "×0.88 for n > 3": lambda self, x, L: (1 if x.shape[1] <= 3 else 0.88) * L * _mean_norm(x) * max(self.moments),
    "×0.75 for width > 6": lambda self, x, L: ((1 if self.segments[0].W0.shape[0] <= 6 else 0.75)
                                               * L * _mean_norm(x) * max(self.moments)),
    "×0.9 for N > 3": lambda self, x, L: (1 if x.shape[0] <= 3 else 0.9) * L * _mean_norm(x) * max(self.moments),
    "×1.2 (overstated)": lambda self, x, L: 1.2 * L * _mean_norm(x) * max(self.moments),
}


@pytest.mark.parametrize("formula", sorted(EXACT_ONLY_WHERE_TIGHT))
def test_a_certificate_exact_only_where_the_tight_cases_look_is_rejected(formula, monkeypatch):
    g = torch.Generator().manual_seed(11)
    x = torch.randn(40, 4, generator=g, dtype=torch.float64) * torch.exp(0.8 * torch.randn(40, 1, generator=g,
                                                                                           dtype=torch.float64))
    y = torch.tanh(x[:, 0] * x[:, 1])
    W, a = barrier.train_networks(x, y, width=8, seeds=2, loss="huber", seed=3, steps=50)
    A, B = (W[0], a[0]), (W[1], a[1])
    honest = barrier.audit(barrier.constructive_path(A, B, x), x, y, A=A, B=B, loss="huber", lam=barrier.LAMBDA)
    assert honest.certificate_as_stated and min(honest.moments) > 0.2 * max(honest.moments), honest.moments
    monkeypatch.setattr(barrier.Path, "certificate", EXACT_ONLY_WHERE_TIGHT[formula])
    tight = barrier.tight_audits()
    if formula != "×1.2 (overstated)":  # exact on every tight case: the tight cases alone cannot see it
        assert all(t.merge_barrier > barrier.TIGHT_RATIO * t.certificate for t in tight.values())
    report = barrier.audit(barrier.constructive_path(A, B, x), x, y, A=A, B=B, loss="huber", lam=barrier.LAMBDA)
    assert report.verdict == "FAILED" and not report.certificate_as_stated, report.report()
    assert "certificate is L·mean‖x‖·max(μ_A, μ_B)" in report.report()
    check = barrier.check_trained_barriers(n=4, widths=[8, 16], seeds=2, steps=50, data=(x, y))
    assert not check.passed and barrier.REQ_TIGHT in _failing(check), check.report()


@pytest.mark.parametrize("scale", [1e3, 1e5])
def test_round_off_is_relative_to_the_cost_level(scale):
    """y × 1e5 puts the cost near 1.5e4, where one ulp is 1.8e-12: an absolute 1e-12 failed there."""
    x, y = barrier.teacher_data(1)
    barrier.check_zero_barrier_1d([4, 8, 16, 32], seeds=3, data=(x, y * scale)).assert_passed()
    W, a = barrier.train_networks(x, y * scale, width=8, seeds=2, loss="huber", seed=8)
    A, B = (W[0], a[0]), (W[1], a[1])
    path = barrier.constructive_path(A, B, x, cover="grid")
    assert barrier.audit(path, x, y * scale, A=A, B=B, loss="huber", lam=barrier.LAMBDA).holds
    u = barrier.UNIT_ROUNDOFF
    assert barrier.cost_roundoff(1.5e4, samples=40, width=8) == pytest.approx(4 * u * 42 * 1.5e4)
    assert barrier.cost_roundoff(-2.0, 3.0, samples=1, width=2, function_error=5.0) == pytest.approx(
        4 * u * (6 + 12) + 10)


def test_float32_networks_are_refused_with_a_conversion_hint():
    W = torch.nn.functional.normalize(torch.randn(64, 2, dtype=torch.float32, generator=torch.Generator().manual_seed(0)), dim=1)
    with pytest.raises(ValueError, match=r"> 1 .*its W is float32.*W\.double\(\)"):
        barrier.constructive_path((W, torch.ones(64)), (W, torch.ones(64)), X2)


def test_one_unit_in_higher_dimension_names_the_minimum_width():
    with pytest.raises(ValueError, match=r"m = 1: for n = 2 this construction needs m >= 2"):
        barrier.constructive_path(barrier.spread_network(2, 1), barrier.spread_network(2, 1, seed=1), X2)


BARRIER_MODULES = ("baselines", "checks", "construction", "covers", "data", "drawing", "evaluation", "losses",
                   "model", "paths")


@pytest.mark.parametrize("name", BARRIER_MODULES)
def test_the_docstring_examples_run(name):
    """The Examples sections of the package's public functions (numpydoc), run as doctests; and every public
    function and method has the numpydoc sections (summary, Parameters, Returns, Examples, Notes)."""
    import doctest
    import importlib
    import inspect

    module = importlib.import_module(f"nnproofs.barrier.{name}")
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0, (name, result)
    functions = []
    for public in barrier.__all__:
        obj = getattr(barrier, public)
        if getattr(obj, "__module__", None) != module.__name__:
            continue
        if inspect.isfunction(obj):
            functions.append((public, obj))
        elif inspect.isclass(obj):  # and the public methods of the package's classes
            functions += [(f"{public}.{k}", v) for k, v in vars(obj).items() if inspect.isfunction(v) and k[0] != "_"]
    for public, obj in functions:
        doc = inspect.getdoc(obj) or ""
        takes = [p for p in inspect.signature(obj).parameters if p != "self"]
        needed = ("Parameters",) * bool(takes) + ("Returns", "Examples", "Notes")
        sections = [s for s in needed if f"{s}\n---" not in doc]
        assert not sections and len(doc.split("\n", 1)[0]) <= 110, (public, sections)
