"""Issue 26, items 2-4: the unbiasedness check chooses its width from the exact prediction within a stated budget,
one heavy-tail diagnostic decides whether a verdict counts, and the constant term is compared exactly."""

import math
import re

import pytest
import sympy
import torch

from nnproofs import representation as rep

R_TARGET = rep.DETECTION_LIMIT / rep.DETECTION_RESOLUTIONS  # 0.025: a 10% offset is 4 resolutions


def _held_out(d, seed):
    v = sympy.symbols(f"x1:{d + 1}", real=True)
    return rep.ridge_polynomial(v, (1, 2, 3, 4), seed=seed, constant=-1.3), v


def test_width_resolves_a_ten_percent_offset_at_the_stated_power():
    """At least the smallest width with 4r <= 0.1; wider where the power along f − f_0 or a part falls short there."""
    poly, v = _held_out(4, 21)
    check = rep.check_unbiasedness(poly, v, test_points=50, seed=3)
    built = rep.sharpened_representation(poly, v)
    needed = math.ceil(built.predicted_mse(1) / (built.target_variance() * R_TARGET**2 * 100))
    assert check.notes["width"] >= max(rep.UNBIASED_MIN_WIDTH, needed)
    assert check.notes["resolution r = √(pooled prediction)/‖f − f_0‖"] <= R_TARGET
    assert check.notes["power"] >= rep.DETECTION_PROBABILITY and check.passed, check.report()


@pytest.mark.parametrize("d", [3, 4, 5, 6, 7])
def test_held_out_polynomials_pass_both_checks_and_their_near_misses_fail(d):
    poly, v = _held_out(d, 20 + d)
    assert rep.check_unbiasedness(poly, v, test_points=100, seed=d).verdict == "PASSED"
    assert rep.check_monte_carlo_rate(poly, v, ns=rep.default_ns(), replicates=20, seed=d).verdict == "PASSED"
    for c in (0.9, 1.1):
        control = rep.check_unbiasedness(poly, v, test_points=100, seed=d, build=rep.mean_scaled_control(c))
        assert control.verdict == "FAILED", (c, control.report())


@pytest.mark.slow
@pytest.mark.parametrize("d", [3, 4, 5, 6, 7])
def test_held_out_polynomials_pass_both_checks_on_ten_seeds(d):
    for tseed in (31, 32):
        poly, v = _held_out(d, tseed)
        for seed in range(100, 105):
            assert rep.check_unbiasedness(poly, v, test_points=100, seed=seed).verdict == "PASSED", (tseed, seed)
            rate = rep.check_monte_carlo_rate(poly, v, ns=rep.default_ns(), replicates=20, seed=seed)
            assert rate.verdict == "PASSED", (tseed, seed, rate.report())


def test_beyond_the_budget_the_verdict_is_inconclusive_and_names_the_budget(monkeypatch):
    monkeypatch.setenv("BOOK_BUDGET_FACTOR", "0.0125")  # 200 000 pooled neurons
    x = sympy.symbols("x1:3", real=True)
    check = rep.check_unbiasedness(x[0] ** 5 - 2 * x[0] ** 3 + 1, x, test_points=50)
    assert check.verdict == "INCONCLUSIVE" and "budget" in check.inconclusive
    assert check.notes["pooled width"] <= 200_000


@pytest.mark.parametrize("constant", [1e15, 1e16, -3e17])
def test_a_large_constant_term_costs_no_digits(constant):
    v = sympy.symbols("x1:4", real=True)
    poly = rep.ridge_polynomial(v, (1, 2), seed=5, constant=0) + sympy.Float(constant)  # degrees 1-2: cheap widths
    assert rep.check_unbiasedness(poly, v, test_points=50, seed=1).passed
    assert rep.check_monte_carlo_rate(poly, v, ns=[1000, 4000], replicates=10, test_points=200, seed=1).passed
    scaled = rep.check_unbiasedness(poly, v, test_points=50, seed=1, build=rep.mean_scaled_control(1.1))
    assert scaled.verdict == "FAILED"


def test_heavy_tail_readings():
    light, biased = [[1.1, 0.9, 1.0, 0.8, 1.2]], [[3.0, 2.8, 3.3, 2.9, 3.1]]
    assert rep.heavy_tail(light, [1.0], failed=True) == ""
    assert rep.heavy_tail(biased, [1.0], failed=True) == ""  # a bias raises every draw
    rare = [[0.1, 0.05, 0.12, 0.08, 30.0]]  # (a): most draws far below the expectation
    assert "below 0.2" in rep.heavy_tail(rare, [1.0], failed=False)
    typical_low = [[0.3, 0.35, 0.4, 0.3, 0.38]]  # (b): a failure cannot count, a pass may
    assert "below 0.5" in rep.heavy_tail(typical_low, [1.0], failed=True)
    assert rep.heavy_tail(typical_low, [1.0], failed=False) == ""
    rising = [typical_low[0], [0.5, 0.6, 0.55, 0.7, 0.65]]  # (b) at one width: the slope is ruled by rare draws
    assert "below 0.5 at a width" in rep.heavy_tail(rising, [1.0, 1.0], failed=True)
    one_draw = [[0.9, 1.0, 1.1, 0.8, 12.0]]  # (c): the failing mean is one draw
    assert "exceeds the sum" in rep.heavy_tail(one_draw, [1.0], failed=True)
    with pytest.raises(ValueError, match="draws"):
        rep.heavy_tail([[1.0, math.nan]], [1.0], failed=True)
    with pytest.raises(TypeError, match="predictions"):
        rep.heavy_tail(light, [1.0, 2.0], failed=True)


@pytest.mark.parametrize("seed", [3, 8])
def test_a_heavy_tailed_correct_construction_is_not_failed(seed):
    """Ridge polynomial of degrees 1 and 6 in d = 2 at r = 0.045 (<= FAILURE_MAX_RESOLUTION): its correct
    construction had mean z² 4.22 and 5.90 on seeds 3 and 8 and was FAILED before the diagnostic; the medians of one
    network's MSE/prediction are 0.235 and 0.207, below FAILURE_MEDIAN_MIN."""
    x = sympy.symbols("x1:3", real=True)
    poly = rep.ridge_polynomial(x, (1, 6), seed=3)
    check = rep.check_unbiasedness(poly, x, width=11147, replicates=20, test_points=100, seed=seed)
    assert check.measured > 4.0  # the old fixed threshold's failure
    assert check.notes["median MSE / prediction of one network"] < rep.FAILURE_MEDIAN_MIN  # reading (b)
    # never FAILED: within the threshold of its effective number of directions, and unresolved (4r > 0.1)
    assert check.verdict == "INCONCLUSIVE" and ("heavy tail" in check.inconclusive or "resolution" in check.inconclusive)


def test_eigenvalues_are_exact_where_quadrature_lost_digits():
    check = rep.check_eigenvalues([2], 20)
    assert check.passed and check.measured == 0


def test_budgets_refuse_fast_with_a_named_error():
    f, v = rep.default_target(5)
    with pytest.raises(ValueError, match="variables"):
        rep.representation_quadrature(*rep.default_target(14), [0.1] * 14)
    with pytest.raises(ValueError, match="k_max"):
        rep.check_eigenvalues([2, 3], 10**6)
    with pytest.raises(ValueError, match="ns"):
        rep.check_monte_carlo_rate(f, v, ns=[10**9, 4 * 10**9], replicates=10)
    with pytest.raises(ValueError, match="width"):
        rep.check_unbiasedness(f, v, width=10**12, replicates=20)
    with pytest.raises(ValueError, match="d"):
        rep.default_target(10**12)
    with pytest.raises(ValueError, match="poly"):
        rep.explicit_representation(*rep.default_target(200))


def _other_polynomial(scale=None, shift=0, dimension_scaled=False):
    """A build that represents another polynomial than the one passed (referee, issue 26 review 2)."""
    def build(poly, variables, **kw):
        other = poly / sympy.sqrt(len(variables)) if dimension_scaled else poly * (scale or 1) + shift
        return rep.sharpened_representation(sympy.expand(other), variables, **kw)
    return build


def _permuted(poly, variables, **kw):
    return rep.sharpened_representation(poly, tuple(reversed(variables)), **kw)


OTHER_BUILDS = {"0.75 f": _other_polynomial(0.75), "f + 5": _other_polynomial(shift=5),
                "1.2 f": _other_polynomial(1.2), "f - 1/10": _other_polynomial(shift=sympy.Rational(-1, 10)),
                "variables reversed": _permuted}


@pytest.mark.parametrize("name", OTHER_BUILDS)
def test_a_build_of_another_polynomial_fails_every_check(name):
    """The sampled checks measure against the build's own parts: the build must represent the poly passed, exactly."""
    x = sympy.symbols("x1:5")
    f = 2 + x[0] * x[3] - x[1] ** 3 + x[2] * x[3] ** 2 - x[3] / 3
    build = OTHER_BUILDS[name]
    unbiased = rep.check_unbiasedness(f, x, build=build, seed=77, test_points=50)
    rate = rep.check_monte_carlo_rate(f, x, ns=[1000, 4000], replicates=10, test_points=50, build=build, seed=77)
    for check in (unbiased, rate):
        assert check.verdict == "FAILED" and check.requirements[rep.checks.REPRESENTS_POLY] is False, name
    assert rep.check_unbiasedness(f, x, seed=77, test_points=50).requirements[rep.checks.REPRESENTS_POLY]


@pytest.mark.parametrize("target", [rep.squared_norm_target, rep.default_target])
def test_dimension_stability_requires_the_targets_own_representation(target):
    shrunk = rep.check_dimension_stability(target, [3, 4, 5], build=_other_polynomial(dimension_scaled=True))
    assert shrunk.verdict == "FAILED"
    assert not [v for k, v in shrunk.requirements.items() if rep.checks.REPRESENTS_POLY in k][0]
    assert rep.check_dimension_stability(rep.default_target, [3, 4, 5], build=_other_polynomial(1.1)).verdict == "FAILED"


def test_effective_directions():
    g = torch.Generator().manual_seed(5)
    assert rep.checks.effective_directions(torch.randn(100, 1, generator=g) * torch.randn(1, 40, generator=g)) == \
        pytest.approx(1.0)
    independent = rep.checks.effective_directions(torch.randn(2000, 30, generator=g, dtype=torch.float64))
    assert 28 < independent <= 30


X3, X2 = sympy.symbols("x1:4"), sympy.symbols("x1:3")
REFEREE_SEEDS = [(X3[0] + 2 * X3[1] - X3[2] + 1, X3, 301), (X3[0] ** 3 - X3[1] + 1, X3, 203), (X2[0] - 3, X2, 342)]


@pytest.mark.parametrize("case", range(len(REFEREE_SEEDS)))
def test_correlated_errors_do_not_fail_a_correct_construction(case):
    """Mean z² ≈ 4 on these seeds (threshold 4 failed them): the errors have k ≈ 3-7 effective directions (a width
    redrawn for the power of each part draws other networks, with a smaller mean z²)."""
    poly, variables, seed = REFEREE_SEEDS[case]
    check = rep.check_unbiasedness(poly, variables, seed=seed)
    assert check.verdict == "PASSED"
    assert rep.check_unbiasedness(poly, variables, seed=seed, build=rep.mean_scaled_control(1.1)).verdict == "FAILED"


@pytest.mark.slow
@pytest.mark.parametrize("case", range(len(REFEREE_SEEDS)))
def test_unbiasedness_false_rejections_over_200_seeds(case):
    """0 of 200 correct constructions rejected for each target (seeds 1000-1199, the referee's three targets)."""
    poly, variables, _ = REFEREE_SEEDS[case]
    verdicts = [rep.check_unbiasedness(poly, variables, seed=s).verdict for s in range(1000, 1200)]
    assert verdicts.count("FAILED") == 0


def test_the_chosen_width_stays_within_the_work_budget(monkeypatch):
    """The width chosen from r is capped by the operations budget too (nnproofs.budget.work), not only by the pooled
    neurons: beyond it the verdict is INCONCLUSIVE and names both budgets, instead of a ValueError after the choice."""
    monkeypatch.setenv("BOOK_BUDGET_FACTOR", "0.02")  # work 1.2e9 operations, 320 000 pooled neurons
    poly, v = _held_out(5, 31)
    check = rep.check_unbiasedness(poly, v, test_points=500, seed=4)
    assert check.verdict == "INCONCLUSIVE" and "nnproofs.budget.work" in check.inconclusive
    assert check.notes["width"] < 3200  # the operations bind before the pooled neurons
    assert rep.checks._sampling_cost(check.notes["width"], 100, 500, 5) <= 1.2e9 < rep.checks._sampling_cost(
        check.notes["width"] + 1, 100, 500, 5)


def _referee_degree_five(d=4):
    """A polynomial of the session-4 referee: monomials such as y1³y3² up to degree 5, in d = 4."""
    import random
    rng, x = random.Random(4100 + d), sympy.symbols(f"y1:{d + 1}", real=True)
    f = sympy.Rational(rng.randint(-9, 9), 4)
    for k in (1, 2, 4, 5):
        for _ in range(2):
            idx = rng.sample(range(d), min(k, d, 2))
            f += sympy.Rational(rng.choice([-3, -2, -1, 1, 2, 3]), rng.choice([1, 2, 3])) * sympy.prod(
                x[idx[j % len(idx)]] for j in range(k))
    return sympy.expand(f), x


@pytest.mark.parametrize("d", [4, 5, 6])
def test_a_degree_five_polynomial_of_the_referee_needs_no_more_than_the_budget(d):
    """They need 7.0, 12.5 and 12.6 million pooled neurons for 4r <= 0.1 (exact, before sampling): at the old budget of
    4 million their correct constructions were INCONCLUSIVE."""
    f, x = _referee_degree_five(d)
    built = rep.sharpened_representation(f, x)
    needed = built.predicted_mse(1) / (built.target_variance() * R_TARGET**2)
    assert 4_000_000 < needed <= rep.UNBIASED_MAX_POOLED_WIDTH


def test_a_degree_five_monomial_is_decided_only_at_a_larger_budget():
    """x1⁵ in d = 3 (referee, session 5) needs 1.16e8 pooled neurons for 4r <= 0.1: 7.2 times the ci budget (about
    100 s of one core; 14 s was measured at the budget), within the full-scale factor 64. Beyond the budget the check
    says INCONCLUSIVE and names the factor that decides it (the message is asserted on a cheaper case below)."""
    x = sympy.symbols("x1:4", real=True)
    built = rep.sharpened_representation(x[0] ** 5, x)
    needed = built.predicted_mse(1) / (built.target_variance() * R_TARGET**2)
    assert 7 * rep.UNBIASED_MAX_POOLED_WIDTH < needed < 7.5 * rep.UNBIASED_MAX_POOLED_WIDTH
    assert needed < rep.checks.budget.FULL_FACTOR * rep.UNBIASED_MAX_POOLED_WIDTH


def test_beyond_the_budget_the_verdict_names_the_factor_that_decides_it(monkeypatch):
    monkeypatch.setenv("BOOK_BUDGET_FACTOR", "0.01")  # 160 000 pooled neurons
    poly, v = _held_out(4, 21)
    check = rep.check_unbiasedness(poly, v, replicates=20, test_points=20, seed=3)
    built = rep.sharpened_representation(poly, v)
    factor = built.predicted_mse(1) / (built.target_variance() * R_TARGET**2) / rep.UNBIASED_MAX_POOLED_WIDTH
    named = re.search(r"BOOK_BUDGET_FACTOR >= ([0-9.e+-]+) decides it", check.inconclusive)
    assert check.verdict == "INCONCLUSIVE" and named
    assert factor <= float(named[1]) <= factor * 1.01  # rounded up: a referee found 1.23265 named as 1.23
    monkeypatch.setenv("BOOK_BUDGET_FACTOR", named[1])
    decided = rep.check_unbiasedness(poly, v, replicates=20, test_points=20, seed=3)
    assert "decides it" not in decided.inconclusive, decided.inconclusive


@pytest.mark.slow
@pytest.mark.parametrize("d", [4, 5, 6])
def test_a_degree_five_polynomial_of_the_referee_is_judged_within_the_budget(d):
    """Both checks pass its correct construction at the default sizes, and a mean off by 15% fails."""
    f, x = _referee_degree_five(d)
    seed = 5000 + 7 * d
    assert rep.check_unbiasedness(f, x, test_points=100, seed=seed).verdict == "PASSED"
    assert rep.check_monte_carlo_rate(f, x, ns=rep.default_ns(), seed=seed).verdict == "PASSED"
    scaled = rep.check_unbiasedness(f, x, test_points=100, seed=seed, build=rep.mean_scaled_control(0.85))
    assert scaled.verdict == "FAILED"


def _networks_of(f_net):
    """A build whose networks sample ``f_net``'s kernels while it declares the parts of the poly passed: the joint
    check (REPRESENTS_POLY) cannot see it, only the networks' mean can."""
    def build(poly, variables, *, sigma=1.0, inputs="sphere"):
        declared = rep.sharpened_representation(poly, variables, sigma=sigma, inputs=inputs)
        actual = rep.sharpened_representation(f_net, variables, sigma=sigma, inputs=inputs)
        return rep.SharpenedRepresentation(variables=declared.variables, sigma=declared.sigma, beta=declared.beta,
                                           constant=declared.constant, parts=declared.parts, kernels=actual.kernels,
                                           inputs=inputs)
    return build


def test_a_coefficient_off_by_twelve_percent_of_the_norm_in_the_networks_only_fails():
    """Referee (session 4): y1y3 perturbed by 12% of ‖f − f_0‖ in the sampled networks while the build declares f.
    The declared parts are f's, so only the z-test can see it, and it does: FAILED."""
    y = sympy.symbols("y1:4", real=True)
    f = -y[0] * y[1] * y[2] - y[0] * y[2] - y[0] + y[1] * y[2] - sympy.Rational(1, 2)
    f_net = f + sympy.Rational(3207, 10000) * y[0] * y[2]  # 0.12 ‖f − f_0‖/‖y1y3‖ in L²(S²), exact moments
    check = rep.check_unbiasedness(f, y, test_points=100, seed=5021, build=_networks_of(f_net))
    assert check.verdict == "FAILED" and check.requirements[rep.checks.REPRESENTS_POLY]


# The referee's third review on session 5's head (issue 26): a build that raises its own thresholds, a gross failure
# called INCONCLUSIVE, a sampler that differs above the probe's width, and a monotonicity the theorem does not prove.

def _own(sample_change, *, base=rep.sharpened_representation, **fields):
    """A build whose sampler is the library's followed by ``sample_change(rep, net, n, generator)``."""
    class Changed(rep.SharpenedRepresentation):
        def sample(self, n, *, generator=None):
            net = super().sample(n, generator=generator)
            with torch.no_grad():
                sample_change(self, net, n, generator)
            return net

    def build(poly, variables, *, sigma=1.0, inputs="sphere"):
        g = base(poly, variables, sigma=sigma, inputs=inputs)
        values = dict(variables=g.variables, sigma=g.sigma, beta=g.beta, constant=g.constant, parts=dict(g.parts),
                      kernels=dict(g.kernels), inputs=g.inputs)
        return Changed(**{**values, **fields})
    return build


def _shared_shift(scale):
    """One N(0, scale · prediction) shift of each network's output bias: the mean stays f, the errors of a network
    move together (their effective number of directions falls towards 1)."""
    def change(self, net, n, generator):
        net[2].bias.add_((scale * self.predicted_mse(n, self.inputs)) ** 0.5
                         * torch.randn(1, dtype=torch.float64, generator=generator))
    return change


@pytest.mark.parametrize("output_scale, seed", [(1.0, 11), (0.92, 12), (1.08, 13)])
def test_a_build_cannot_raise_its_own_thresholds(output_scale, seed):
    """A shared shift per network (variance 4× the prediction), with or without an 8% offset of the mean (outputs
    scaled by the sampler, the fields right), in d = 4 on a polynomial of our own: the thresholds are those of the
    library's build at the same seed (the reference law), and the variance above the exact prediction fails the
    pooled network."""
    poly, v = _held_out(4, 31)

    def change(self, net, n, generator):
        _shared_shift(4.0)(self, net, n, generator)
        net[2].weight.mul_(output_scale)
    build = _own(change)
    check = rep.check_unbiasedness(poly, v, test_points=60, seed=seed, build=build)
    library = rep.check_unbiasedness(poly, v, test_points=60, seed=seed)
    key = "thresholds (mean z², pooled ratio)"
    assert check.notes[key] == pytest.approx(library.notes[key], rel=1e-9) and max(library.notes[key]) < 10
    assert check.verdict == "FAILED", check.report()
    assert library.passed, library.report()


def test_markov_median_limit_is_the_binomial_bound():
    from scipy.stats import binom
    for count in (10, 20, 99, 100):
        t = rep.markov_median_limit(count)
        assert binom.sf((count + 1) // 2 - 1, count, 1 / t) <= rep.checks.UNBIASED_FALSE_REJECTION
        assert binom.sf((count + 1) // 2 - 1, count, 1 / (0.999 * t)) > rep.checks.UNBIASED_FALSE_REJECTION
    assert rep.markov_median_limit(100) < 4 < rep.markov_median_limit(20) < 13
    # one huge draw among gross ones: the median decides before any heavy-tail reading
    gross = [[5.0] * 60 + [1e9] + [0.01] * 39]
    assert rep.heavy_tail(gross, [1.0], failed=True) == ""
    assert "exceeds the sum" in rep.heavy_tail([[3.0] * 60 + [1e9] + [0.01] * 39], [1.0], failed=True)
    with pytest.raises(ValueError, match="count"):
        rep.markov_median_limit(0)


def _clamp_biases(self, net, n, generator):
    net[0].bias.clamp_(min=-0.5 * self.beta)


@pytest.mark.parametrize("seed", [21, 22])
def test_a_gross_failure_is_failed_before_any_heavy_tail_reading(seed):
    """Biases clamped at −β/2 (every bias still <= 0, the outputs kept) on a polynomial of our own in d = 3: the
    median MSE/prediction is far beyond Markov's limit, and both sampled checks say FAILED, also at a given width whose
    resolution is above FAILURE_MAX_RESOLUTION."""
    x = sympy.symbols("x1:4")
    poly = x[0] ** 3 * x[1] - x[2] ** 2 + 2 * x[0] * x[2] - 0.3
    build = _own(_clamp_biases)
    check = rep.check_unbiasedness(poly, x, test_points=60, seed=seed, build=build, width=1000, replicates=20)
    assert check.notes["resolution r = √(pooled prediction)/‖f − f_0‖"] > rep.FAILURE_MAX_RESOLUTION
    assert check.notes["median MSE / prediction of one network"] > rep.markov_median_limit(20)
    assert check.verdict == "FAILED", check.report()
    rate = rep.check_monte_carlo_rate(poly, x, ns=[1000, 4000], replicates=10, test_points=60, seed=seed, build=build)
    assert rate.verdict == "FAILED", rate.report()


@pytest.mark.parametrize("above", [1000, 50_000, 400_000])
def test_dimension_stability_probes_every_width_a_sampled_check_draws(above):
    """A sampler equal to the library's up to ``above`` neurons and 3% off beyond (a reader's fast path)."""
    def fast_path(self, net, n, generator):
        if n > above:
            net[2].weight.mul_(0.97)
    check = rep.check_dimension_stability(rep.default_target, [2, 3], build=_own(fast_path))
    assert check.verdict == "INCONCLUSIVE"
    assert f"(2, {min(w for w in rep.checks._probe_widths(2) if w > above)})" in check.inconclusive
    same = rep.check_dimension_stability(rep.default_target, [2, 3], build=_own(lambda *args: None))
    assert same.passed, same.report()


def test_the_probes_reach_the_widest_unbiasedness_network_within_a_memory_cap():
    widest = rep.UNBIASED_MAX_POOLED_WIDTH // rep.UNBIASED_MIN_REPLICATES
    assert rep.checks._probe_widths(2)[-1] == widest and rep.checks._probe_widths(3)[0] == 256
    assert rep.checks._probe_widths(2000)[-1] * 2000 <= rep.checks.PROBE_MAX_WEIGHTS


def test_dimension_stability_asserts_the_ceiling_not_a_monotone_ratio():
    """A family whose cubic part changes with d: the explicit kernel's √M_3/‖f_3‖_F rises from d = 2 to 3, below C_3."""
    def target(d):
        x = sympy.symbols(f"x1:{d + 1}")
        cubic = x[0] ** 3 if d == 2 else math.sqrt(6) * x[0] * x[1] * x[2] if d == 3 else x[0] ** 3 + x[0] * x[1] ** 2
        return cubic + x[1], x
    check = rep.check_dimension_stability(target, [2, 3, 4], build=rep.explicit_representation)
    ratios = check.notes["√M_3/‖f_3‖_F"]
    assert ratios[1] > ratios[0] and check.passed, check.report()
    assert max(ratios) <= rep.dimension_free_constant(3)


def test_an_undecided_heavy_tail_names_its_limit():
    """x1 + x1⁶/10 in d = 2 (seed 3): INCONCLUSIVE at the width with 4r <= 0.1, naming the widest width within the
    budget (given here: a chosen width is redrawn wider for the power of each part)."""
    x = sympy.symbols("x1:3")
    poly = x[0] + x[0] ** 6 / 10
    built = rep.sharpened_representation(poly, x)
    width = max(rep.UNBIASED_MIN_WIDTH, math.ceil(built.predicted_mse(1) / (built.target_variance() * R_TARGET**2 * 100)))
    check = rep.check_unbiasedness(poly, x, width=width, test_points=100, seed=3)
    assert check.verdict == "INCONCLUSIVE"
    assert re.search(r"the limit is the width \d+: .* up to width \d+ fits the budget \(pass width=\)",
                     check.inconclusive), check.inconclusive


def test_the_rate_checks_tolerance_is_the_reference_laws():
    """A shared shift per network widens the build's own spread; the slope's tolerance is read from the reference
    law (the library's sampler of the fields at the same seed), so it equals the library build's; the heavy tail is
    read on the reference law's draws (at 10 replicates this seed's law has one draw of 66% of the total, and the
    verdict is INCONCLUSIVE); at 20 replicates the rank test fails it."""
    poly, v = _held_out(3, 41)
    for replicates in (10, 20):
        sizes = dict(ns=[1000, 4000], replicates=replicates, test_points=60, seed=17)
        library = rep.check_monte_carlo_rate(poly, v, **sizes)
        shifted = rep.check_monte_carlo_rate(poly, v, **sizes, build=_own(_shared_shift(3.0)))
        assert shifted.tolerance == pytest.approx(library.tolerance, rel=1e-12) and library.passed, library.report()
        assert not shifted.passed, shifted.report()
    assert shifted.verdict == "FAILED" and not shifted.requirements[rep.checks.INFLATION], shifted.report()


@pytest.mark.parametrize("seed, inputs, points, replicates", [(52, "ball", 1000, 10), (84, "sphere", 200, 10),
                                                               (107, "ball", 100, 20)])
def test_a_rising_median_does_not_fail_a_correct_build(seed, inputs, points, replicates):
    """Referee 3c: x1⁴ − x2³ + x1x2 in d = 3 at n = 1000, 4000; the library's own build was FAILED on the slope
    (tolerance 4 standard errors of heavy-tailed replicates) while the median MSE/prediction rose from 0.30 to 0.57.
    A median below FAILURE_MEDIAN_MIN at one width means the mean there, and the slope, is ruled by rare draws."""
    x = sympy.symbols("x1:4")
    check = rep.check_monte_carlo_rate(x[0] ** 4 - x[1] ** 3 + x[0] * x[1], x, ns=[1000, 4000], replicates=replicates,
                                       test_points=points, seed=seed, inputs=inputs)
    assert check.verdict != "FAILED", check.report()
    if check.verdict == "INCONCLUSIVE":
        assert min(check.notes["median MSE/prediction"]) < rep.FAILURE_MEDIAN_MIN


@pytest.mark.slow
def test_rate_failures_of_a_correct_build_are_rare():
    """150 seeds of 2x₃⁴ − x₁x₂² + x₃/2 on S² at n = 1000, 4000 (10 replicates, 200 test points): 3 were FAILED
    (seeds 1031, 1091, 1100, smallest medians 0.17, 0.25, 0.18) while reading (b) looked at the largest median."""
    x = sympy.symbols("x1:4")
    poly = 2 * x[2] ** 4 - x[0] * x[1] ** 2 + x[2] / 2
    verdicts = {seed: rep.check_monte_carlo_rate(poly, x, ns=[1000, 4000], replicates=10, test_points=200,
                                                 seed=seed).verdict for seed in range(1000, 1150)}
    assert "FAILED" not in verdicts.values(), {s: v for s, v in verdicts.items() if v == "FAILED"}


# The final referee of issue 26 (session 6): kernels ×1.1 on x1 − 2x2 PASSED at 20 replicates on 2 of 456 seeds, where
# 2-3 effective directions put both χ² limits at 10-14. The check now computes the z-test's power against a 10% scaling
# from the reference law (detection_power), redraws once at a width that reaches DETECTION_PROBABILITY, and otherwise
# calls a pass INCONCLUSIVE, naming the replicates that reach it. Near misses on polynomials of our own:

FEW_DIRECTIONS = [(X2[0] - 2 * X2[1], X2), (3 * X3[0] + X3[1] - X3[2] / 2 + 2, X3), (X3[0] ** 2 * X3[1] - X3[1] + 1, X3)]
NEAR_MISSES = {"kernels ×0.9": rep.mean_scaled_control(0.9), "kernels ×1.1": rep.mean_scaled_control(1.1),
               "kernels ×1.2": rep.mean_scaled_control(1.2),
               "biases ×1.2": _own(lambda self, net, n, g: net[0].bias.mul_(1.2)),
               "biases − 0.15": _own(lambda self, net, n, g: net[0].bias.sub_(0.15))}
# The biases' changes move the mean by 11-12% of ‖f − f_0‖ (×1.2 on x1²x2 − x2 + 1: 10.8%) (measured with common random numbers: ×1.1 on
# x1²x2 − x2 + 1 moves it by 6.1%, −0.1 by 8.0%); smaller moves are below DETECTION_LIMIT and may pass.


def _near_misses(poly, v):
    """NEAR_MISSES, without a bias scaling where f is linear (degree-1 neurons have bias 0: the same construction)."""
    linear = sympy.Poly(poly, *v).total_degree() < 2
    return {name: build for name, build in NEAR_MISSES.items() if not (linear and name == "biases ×1.2")}


def _sweep(poly, v, build, seeds, replicates=rep.UNBIASED_MIN_REPLICATES):
    return [rep.check_unbiasedness(poly, v, replicates=replicates, test_points=100, seed=s, build=build).verdict
            for s in seeds]


def _near_misses_never_pass(case, seeds, passed_at_least):
    """Every near miss of FEW_DIRECTIONS[case] is never PASSED on ``seeds``; the correct build is never FAILED and
    PASSED at least ``passed_at_least`` times."""
    poly, v = FEW_DIRECTIONS[case]
    for name, build in _near_misses(poly, v).items():
        assert "PASSED" not in _sweep(poly, v, build, seeds), name
    verdicts = _sweep(poly, v, rep.sharpened_representation, seeds)
    assert "FAILED" not in verdicts and verdicts.count("PASSED") >= passed_at_least


@pytest.mark.parametrize("case", [0, 1])
def test_near_misses_are_never_passed_at_the_minimum_replicates(case):
    _near_misses_never_pass(case, range(600, 604), 3)


@pytest.mark.slow
@pytest.mark.parametrize("case", range(len(FEW_DIRECTIONS)))
def test_near_misses_are_never_passed_on_a_hundred_seeds(case):
    _near_misses_never_pass(case, range(700, 800), 90)


def test_a_pass_short_of_the_stated_power_names_the_replicates_that_reach_it():
    """A given width keeps the z-test at its power: at 20 replicates of width 1000 on x1 − 2x2 the power is below
    DETECTION_PROBABILITY, the pass is INCONCLUSIVE and names the replicates; at those the power is reached."""
    poly, v = FEW_DIRECTIONS[0]
    check = rep.check_unbiasedness(poly, v, width=1000, replicates=20, test_points=100, seed=3)
    named = re.search(r"about (\d+) replicates reach it", check.inconclusive)
    assert check.verdict == "INCONCLUSIVE" and named and check.notes["power"] < rep.DETECTION_PROBABILITY
    again = rep.check_unbiasedness(poly, v, width=1000, replicates=int(named[1]), test_points=100, seed=3)
    assert again.notes["power"] >= rep.DETECTION_PROBABILITY and again.verdict == "PASSED", again.report()


# Issue 26's "in-class held-out polynomials in d = 3…7 get PASSED from both checks at the stated budget", for each of
# the three builds. The budget is UNBIASED_MAX_POOLED_WIDTH pooled neurons and nnproofs.budget.work() operations; what
# a polynomial needs is exact before sampling (4r <= 0.1), and the sphere-weight build's need grows with d.
BUILDS = [rep.sharpened_representation, rep.explicit_representation, rep.explicit_sphere_representation]


def _degree_five(d):
    v = sympy.symbols(f"x1:{d + 1}", real=True)
    return rep.ridge_polynomial(v, (1, 2, 3, 4, 5), seed=40 + d, constant=0.3), v


def _needed(build, poly, v):
    built = build(poly, v)
    return built.predicted_mse(1) / (built.target_variance() * R_TARGET**2)


@pytest.mark.parametrize("d", [3, pytest.param(4, marks=pytest.mark.slow), pytest.param(5, marks=pytest.mark.slow),
                               pytest.param(6, marks=pytest.mark.slow), 7])
def test_held_out_degree_five_polynomials_need_less_than_the_budget_with_every_build(d):
    """Ridge polynomials of degrees 1-5 with unit Fischer norms need at most 4 million pooled neurons with every build
    (sphere weights: 0.6 in d = 3 rising to 3.8 in d = 7), a quarter of the budget; parts of degree 6 need up to 57
    million (sphere weights, d = 7), beyond it, and are INCONCLUSIVE naming the factor; other polynomials of degree
    <= 5 (products of distinct coordinates) can need more."""
    poly, v = _degree_five(d)
    needs = {build: _needed(build, poly, v) for build in BUILDS}
    assert max(needs.values()) <= rep.UNBIASED_MAX_POOLED_WIDTH / 4
    if d == 7:
        assert needs[rep.explicit_sphere_representation] > 4 * _needed(rep.explicit_sphere_representation,
                                                                        *_degree_five(3))


@pytest.mark.slow
@pytest.mark.parametrize("d", [3, 4, 5, 6, 7])
def test_held_out_polynomials_pass_both_checks_with_every_build(d):
    poly, v = _degree_five(d)
    for build in BUILDS:
        for seed in (900, 901):
            check = rep.check_unbiasedness(poly, v, test_points=100, seed=seed, build=build)
            assert check.verdict == "PASSED", (build.__name__, seed, check.report())
            rate = rep.check_monte_carlo_rate(poly, v, ns=rep.default_ns(), replicates=20, seed=seed, build=build)
            assert rate.verdict == "PASSED", (build.__name__, seed, rate.report())


# Issue 26, fourth review: near misses whose fields scale one kernel (the mean moves by (c − 1) f_k, 10% of
# ‖f − f_0‖) passed the z-test on up to 30% of seeds where the offset sat where the variance sits (a high-degree part).
# The exact identity of the fields decides them; the power is computed along each part; the mean of z² is compared
# with F(k, R − 1), not χ²_k/k (a correct build failed at 20 replicates).

def _kernel_scaled(k, base=rep.sharpened_representation):
    """A build whose fields carry the degree-``k`` kernel times the c that moves the mean by 10% of ‖f − f_0‖."""
    def build(poly, variables, *, sigma=1.0, inputs="sphere"):
        r = base(poly, variables, sigma=sigma, inputs=inputs)
        c = 1 + rep.DETECTION_LIMIT * math.sqrt(r.target_variance(inputs) / r.part_variances(inputs)[k])
        kernels = {j: sympy.expand(q * sympy.nsimplify(c)) if j == k else q for j, q in r.kernels.items()}
        return rep.SharpenedRepresentation(r.variables, r.sigma, r.beta, r.constant, dict(r.parts), kernels, r.inputs)
    return build


X7, X6 = sympy.symbols("x1:8", real=True), sympy.symbols("x1:7", real=True)
X4, X5 = sympy.symbols("x1:5", real=True), sympy.symbols("x1:6", real=True)
DEGREE_FIVE_IN_D7 = X7[0] - X7[1] / 2 + X7[6] ** 5 / 50 + 1
KERNEL_SCALED = [  # (poly, variables, scaled degree, base build, seed, replicates, test points)
    (DEGREE_FIVE_IN_D7, X7, 5, rep.sharpened_representation, 403, 20, 20),  # a review: PASSED on 9 of 30 seeds
    (X6[0] - X6[1] / 2 + X6[5] ** 4 / 30 + 1, X6, 4, rep.sharpened_representation, 620, 25, 50),  # 4 of 34
    (X4[0] * X4[1] - X4[2] ** 3 / 3 + X4[3] + 2, X4, 3, rep.sharpened_representation, 5, 20, 20),
    (X5[0] ** 2 - X5[1] * X5[2] + X5[3] ** 4 / 5 - X5[4], X5, 2, rep.explicit_representation, 6, 20, 20),
    (X3[0] ** 3 - X3[1] + 2 * X3[2] ** 5 / 5, X3, 1, rep.explicit_sphere_representation, 7, 20, 20),
]


@pytest.mark.parametrize("case", range(len(KERNEL_SCALED)))
def test_fields_that_do_not_represent_f_are_failed_whatever_the_sampling(case):
    poly, v, k, base, seed, replicates, points = KERNEL_SCALED[case]
    sizes = dict(width=1000, replicates=replicates, test_points=points, seed=seed)
    check = rep.check_unbiasedness(poly, v, build=_kernel_scaled(k, base), **sizes)
    assert check.verdict == "FAILED" and not check.requirements[rep.checks.FIELDS_REPRESENT], check.report()
    assert check.requirements[rep.checks.REPRESENTS_POLY]  # the parts are f's: only the kernels' identity sees it
    assert rep.check_unbiasedness(poly, v, build=base, **sizes).requirements[rep.checks.FIELDS_REPRESENT]


def test_the_power_is_the_least_over_the_parts_and_the_threshold_is_an_f_quantile():
    """The correct build of a review's polynomial at seed 419 (20 replicates, 20 points) was FAILED: mean z² 7.05
    against the χ²_k/k quantile 6.44 (k = 5.9), while z_j is a t statistic of 19 degrees of freedom. The power is the
    least over f − f_0 and the parts, and here the degree-5 part, which sits where the variance sits, sets it."""
    from scipy.stats import f as f_law
    check = rep.check_unbiasedness(DEGREE_FIVE_IN_D7, X7, replicates=20, test_points=20, seed=419)
    assert check.verdict != "FAILED", check.report()
    k = check.notes["effective directions k (z, pooled)"][0]
    threshold = check.notes["thresholds (mean z², pooled ratio)"][0]
    assert threshold == pytest.approx(f_law.ppf(1 - rep.checks.UNBIASED_FALSE_REJECTION, k, 19), rel=1e-9)
    powers = check.notes["power by direction"]
    assert set(powers) == {"f − f_0", "f_1", "f_5"} and check.notes["power"] == min(powers.values())
    assert powers["f_5"] < powers["f − f_0"]


def _correct_verdicts(seeds):
    return [rep.check_unbiasedness(DEGREE_FIVE_IN_D7, X7, replicates=20, test_points=20, seed=s).verdict
            for s in seeds]


@pytest.mark.slow
def test_a_correct_build_of_a_degree_five_part_in_d7_is_never_failed():
    """100 seeds at 20 replicates and 20 points (a review found 1 FAILED in 96 under χ²_k/k thresholds)."""
    assert "FAILED" not in _correct_verdicts(range(400, 500))


def test_detection_power_sees_an_offset_where_the_variance_sits():
    """Normal errors with standard deviation 6 at 4 of 40 points and 1 elsewhere: an offset there has a per-point
    noncentrality below the one from the average variance (the same for both directions, of equal mean square), and
    the power is computed from the smaller: 0.25 against 1.0 along the spread direction; the z-test's measured
    detection rate over 300 simulated runs (0.26) is not below it."""
    g = torch.Generator().manual_seed(9)
    sd = torch.ones(40, dtype=torch.float64)
    sd[:4] = 6.0
    variance = float((sd**2).mean())
    there = torch.zeros(40, dtype=torch.float64)
    there[:4] = math.sqrt(10.0)  # the same mean square as the spread direction
    spread = torch.ones(40, dtype=torch.float64)
    law = torch.randn(20, 40, dtype=torch.float64, generator=g) * sd
    k = rep.checks.effective_directions(law / law.std(0))
    threshold = rep.checks._z_quantile(k, 20)
    sizes = dict(threshold=threshold, variance=variance, replicates=20, width_factor=2000.0)
    power_there, power_spread = (rep.detection_power(law, t, **sizes) for t in (there, spread))
    assert power_there < power_spread
    offset = math.sqrt(2000.0) * rep.DETECTION_LIMIT / (1 + rep.DETECTION_LIMIT)  # δ t at 2000 times the width
    detected = 0
    for _ in range(300):
        errors = torch.randn(20, 40, dtype=torch.float64, generator=g) * sd + offset * there
        z = errors.mean(0) / (errors.std(0) / math.sqrt(20))
        detected += float((z**2).mean()) > threshold
    assert 0.05 < power_there < 0.9 and detected / 300 >= power_there - 3 * math.sqrt(power_there * (1 - power_there) / 300)
