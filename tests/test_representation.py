"""Chapter 3: exact identities of the symbolic layer, quadrature exactness, the Monte Carlo rate and its controls."""

from __future__ import annotations

import math
import warnings

import pytest
import sympy
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nnproofs import representation as rep
from nnproofs import representation_symbolic as sym

X = sympy.symbols("x1:6", real=True)
Y = sympy.Symbol("y", real=True)


@st.composite
def polynomials(draw, max_degree: int = 5):
    """A random polynomial in d = 2..4 variables with small integer coefficients and degree <= max_degree."""
    d = draw(st.integers(2, 4))
    variables = X[:d]
    terms = draw(st.lists(st.tuples(st.lists(st.integers(0, 3), min_size=d, max_size=d), st.integers(-3, 3)),
                          min_size=1, max_size=4))
    poly = sympy.Integer(0)
    for exponents, coeff in terms:
        if sum(exponents) <= max_degree:
            poly += coeff * sympy.Mul(*(v**a for v, a in zip(variables, exponents)))
    return sympy.expand(poly), variables


FAST = settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# ---- symbolic identities (exact) ----

@FAST
@given(polynomials())
def test_harmonic_decomposition_is_exact_and_harmonic(case):
    poly, v = case
    r2 = sum(a**2 for a in v)
    pieces = sym.harmonic_decomposition(poly, v)
    assert sympy.expand(sum((r2**m * h for _, m, h in pieces), sympy.Integer(0)) - poly) == 0
    for k, m, h in pieces:
        assert sym.laplacian(h, v) == 0
        assert set(sym.homogeneous_parts(h, v)) == {k - 2 * m}


@FAST
@given(polynomials(max_degree=4), st.sampled_from(["sphere", "gaussian"]))
def test_relu_operator_inverse_is_exact(case, law):
    poly, v = case
    sigma = sympy.Rational(3, 2)
    g = sym.inverse_relu_operator(poly, v, law, sigma)
    assert sympy.expand(sym.relu_operator(g, v, law, sigma) - poly) == 0


@FAST
@given(polynomials())
def test_harmonic_extension_is_harmonic_and_restricts(case):
    poly, v = case
    H = sym.harmonic_extension(poly, v, Y)
    assert sym.laplacian(H, (*v, Y)) == 0
    assert sympy.expand(H.subs(Y, 0) - poly) == 0


@FAST
@given(polynomials(max_degree=4), st.sampled_from([sympy.Integer(1), sympy.Rational(1, 2), sympy.Rational(5, 4)]))
def test_projection_is_backward_heat_flow_and_star_identity(case, sigma):
    """E_z H(f_k)(w, z) = e^{−σ²Δ/2} f_k(w) for z ~ N(0, σ²), and E_w[⟨x,w⟩^k q_k(w)] = k! σ^{2k} f_k(x)."""
    poly, v = case
    w = sympy.symbols(f"w0:{len(v)}", real=True)
    for k, part in sym.homogeneous_parts(poly, v).items():
        q = sym.sharpen(part, v, sigma)
        projected = sym.expectation(sym.harmonic_extension(part, v, Y), [Y], "gaussian", sigma)
        assert sympy.expand(projected - q) == 0
        inner = sum(a * b for a, b in zip(v, w))
        star = sym.expectation(inner**k * q.subs(dict(zip(v, w)), simultaneous=True), w, "gaussian", sigma)
        assert sympy.expand(star - sympy.factorial(k) * sigma ** (2 * k) * part) == 0


@FAST
@given(polynomials(max_degree=4))
def test_fischer_norm_is_gaussian_norm_of_sharpened(case):
    poly, v = case
    if poly != 0:
        assert rep.check_fischer_identity([poly], v, sigma=0.75).passed


def test_fischer_identity_control_without_factorial_fails():
    polys, v = rep._fischer_examples()
    assert rep.check_fischer_identity(polys, v).passed
    assert not rep.check_fischer_identity(polys, v, inner=sym.coefficient_inner).passed


def test_fischer_norm_values():
    x1, x2, x3 = X[:3]
    assert rep.fischer_norm(x1**2 * x2, X[:2]) == pytest.approx(math.sqrt(2))
    assert rep.fischer_norm(x1**2 + x2**2 + x3**2, X[:3]) == pytest.approx(math.sqrt(6))  # √(2d)
    assert rep.fischer_norm((x1 + x2) ** 3, X[:2]) ** 2 == pytest.approx(math.factorial(3) * 2**3)  # k!|a|^{2k}


@pytest.mark.parametrize("d", [2, 3, 5])
def test_eigenvalues_on_explicit_pieces(d):
    """T_μ(|x|^{2m} h_j) = λ_{k,j} |x|^{2m} h_j for both laws, and the closed forms of the notes."""
    v = X[:d]
    r2 = sum(a**2 for a in v)
    harmonics = {0: sympy.Integer(1), 1: v[0], 2: v[0] * v[1], 3: v[0] * v[1] ** 2 - v[0] ** 3 / 3 if d == 2 else v[0] * v[1] * v[2]}
    if d == 2:
        harmonics[3] = v[0] ** 3 - 3 * v[0] * v[1] ** 2
    for law, sigma in (("sphere", 1), ("gaussian", sympy.Rational(1, 2))):
        for j, h in harmonics.items():
            assert sym.laplacian(h, v) == 0
            for m in range(0, 2):
                piece = sympy.expand(r2**m * h)
                lam = sym.eigenvalue(j + 2 * m, j, d, law, sigma)
                assert sympy.expand(sym.relu_operator(piece, v, law, sigma) - lam * piece) == 0
    assert sym.eigenvalue(1, 1, d) == sympy.Rational(1, d)
    assert sym.eigenvalue(2, 2, d) == sympy.Rational(2, d * (d + 2))
    assert sym.eigenvalue(3, 3, d, "gaussian", 2) == 6 * 2**6  # λ_kk = k! σ^{2k}, free of d


def test_worked_inverses_sphere():
    d, v = 3, X[:3]
    r2 = sum(a**2 for a in v)
    assert sympy.expand(sym.inverse_relu_operator(v[0], v) - d * v[0]) == 0
    assert sympy.expand(sym.inverse_relu_operator(r2, v) - d * r2) == 0
    assert sympy.expand(sym.inverse_relu_operator(v[0] * v[1], v) - sympy.Rational(d * (d + 2), 2) * v[0] * v[1]) == 0
    assert sympy.expand(sym.inverse_relu_operator(v[0] ** 2, v) - (6 * v[0] ** 2 - sympy.Rational(3, 2) * (v[1] ** 2 + v[2] ** 2))) == 0


def test_eigenvalues_against_the_exact_funk_hecke_integral():
    check = rep.check_eigenvalues([2, 3, 4, 5], 6)
    assert check.passed, check.report()
    assert check.measured == 0


def test_gegenbauer_trap_is_rejected():
    with pytest.raises(ValueError, match="zonal"):
        rep.funk_hecke_eigenvalue(2, 2, 2, zonal="gegenbauer")
    assert rep.check_eigenvalues([2, 3], 4, zonal="gegenbauer").verdict == "INCONCLUSIVE"


@pytest.mark.parametrize("ds, k_max", [([2, 3], 6), ([2], 3), ([2, 4, 5], 5)])
def test_undefined_eigenvalue_comparison_is_inconclusive(ds, k_max):
    """Every computable value agrees; the undefined ones (Gegenbauer at d = 2) make it INCONCLUSIVE, never FAILED."""
    check = rep.check_eigenvalues(ds, k_max, zonal="gegenbauer")
    assert check.verdict == "INCONCLUSIVE" and check.measured == 0 and check.notes["pairs undefined"] > 0
    assert rep.check_eigenvalues([3, 4], k_max, zonal="gegenbauer").verdict == "PASSED"


@pytest.mark.parametrize("zonal", ["foo", None, 3, "Chebyshev"])
def test_eigenvalues_refuse_an_unknown_zonal(zonal):
    with pytest.raises(ValueError, match="zonal"):
        rep.check_eigenvalues([3], 4, zonal=zonal)
    assert rep.funk_hecke_eigenvalue(2, 2, 3, zonal="gegenbauer") == sym.eigenvalue(2, 2, 3)


def test_sharpening_of_worked_examples():
    x1, x2 = X[:2]
    assert sympy.expand(sym.sharpen(x1**2, X[:2]) - (x1**2 - 1)) == 0
    assert sympy.expand(sym.sharpen(x1**3, X[:2], 2) - (x1**3 - 12 * x1)) == 0
    assert sympy.expand(sym.sharpen(x1**2 * x2, X[:2]) - (x1**2 - 1) * x2) == 0
    assert sympy.expand(sym.heat_flow(sym.sharpen(x1**4, X[:2], 3), X[:2], 9) - x1**4) == 0  # backward ∘ forward = id


# ---- representation exactness by quadrature ----

WORKED = ["1", "x1", "x1**2", "x1**2 + x2**2 + x3**2", "x1*x2", "x1**3", "x1**2*x2", "1/2 - x1 + 3*x1*x2 - x2**3"]


@pytest.mark.parametrize("d", [1, 2, 3])
@pytest.mark.parametrize("text", WORKED)
@pytest.mark.parametrize("sigma", [1.0, 0.7])
@pytest.mark.parametrize("kernel", ["sharpened", "explicit"])
def test_representation_exact_by_quadrature(d, text, sigma, kernel):
    v = X[:d]
    poly = sympy.sympify(text, locals={str(s): s for s in X})
    if not poly.free_symbols <= set(v):
        poly = poly.subs({s: 0 for s in X[d:]})
    point = [0.7, -0.4, 0.3][:d]
    exact = float(poly.subs(dict(zip(v, point))))
    assert rep.representation_quadrature(poly, v, point, sigma=sigma, kernel=kernel) == pytest.approx(exact, abs=1e-8)


def test_representation_exact_far_from_the_sphere():
    v = X[:4]
    poly, point = v[0] ** 3 - 2 * v[1] * v[2] * v[3] + v[3] ** 2 / 2, [3.0, -2.5, 2.0, 3.0]
    exact = float(poly.subs(dict(zip(v, point))))
    assert rep.representation_quadrature(poly, v, point) == pytest.approx(exact, abs=1e-8)


@pytest.mark.parametrize(("control", "limit"), [("unsharpened", X[0] ** 2 + (X[0] ** 2 + X[1] ** 2 + X[2] ** 2) / 2),
                                                 ("forward heat", 2 * X[0] ** 2 + X[1] ** 2 + X[2] ** 2)])
@pytest.mark.parametrize("sigma", [1.0, 1.5])
def test_control_limits_do_not_depend_on_sigma(control, limit, sigma):
    """The controls' networks converge to x1² + |x|²/2 and x1² + |x|², whatever σ is."""
    point = [0.7, -0.4, 0.3]
    value = float(limit.subs(dict(zip(X[:3], point))))
    assert rep.representation_quadrature(X[0] ** 2, X[:3], point, sigma=sigma, kernel=control) == pytest.approx(value, abs=1e-8)


# ---- sampling layer ----

def test_sampled_network_shape_biases_and_mean():
    poly, v = rep.default_target(4)
    r = rep.sharpened_representation(poly, v)
    net = r.sample(500, generator=torch.Generator().manual_seed(1))
    assert isinstance(net, torch.nn.Sequential) and [type(m) for m in net] == [torch.nn.Linear, torch.nn.ReLU, torch.nn.Linear]
    assert net[0].weight.shape == (500, 4) and net[2].weight.shape == (1, 500)
    assert net[0].weight.dtype == torch.float64 and (net[0].bias <= 0).all()
    assert net[2].bias.item() == pytest.approx(0.5)
    assert sum(c["weight"] for c in r.constants().values()) == pytest.approx(1.0)


def test_second_moment_of_linear_part_matches_closed_form():
    """√M_1/‖f_1‖_F = √(2(1 + 2/d)) exactly for D = U(S^{d−1}) (notes §2.10)."""
    for d in (2, 5, 7):
        r = rep.sharpened_representation(X[0] - 2 * X[1], sympy.symbols(f"x1:{d + 1}", real=True))
        assert r.constants()[1]["ratio"] == pytest.approx(math.sqrt(2 * (1 + 2 / d)), rel=1e-12)


@pytest.mark.parametrize("inputs", ["sphere", pytest.param("ball", marks=pytest.mark.slow)])
@pytest.mark.parametrize("build", [rep.sharpened_representation, rep.explicit_representation,
                                   rep.explicit_sphere_representation])
def test_second_moments_against_a_large_monte_carlo_estimate(inputs, build):
    """The deterministic M_k (exact sphere moments, 2-D quadrature) against 5·10^5 Monte Carlo samples of (x, W).
    The integrand's tails are heavy (G_k ~ e^{t²/8}), so the standard error is itself noisy: 5 of them (over
    seeds 11-20 and the six cases at this size the largest deviation was 3.1 standard errors)."""
    poly, v = rep.default_target(3)
    r = build(poly, v, inputs=inputs)
    means, errors = r.monte_carlo_second_moments(inputs, samples=500_000, seed=11)
    for k, m in r.second_moments(inputs).items():
        assert abs(means[k] - m) <= 5 * errors[k], (k, means[k], m, errors[k])


@pytest.mark.parametrize("d", [1, 2, 5, 50])
@pytest.mark.parametrize("inputs", ["sphere", "ball"])
def test_second_moment_quadrature_has_converged(d, inputs):
    for k in (1, 2, 4):
        for j in (0, 4, 8):
            coarse = rep.radial_second_moment(k, j, d, inputs)
            assert rep.radial_second_moment(k, j, d, inputs, nodes=128) == pytest.approx(coarse, rel=1e-11)


def test_second_moments_are_deterministic_and_sharpened_differs_from_explicit():
    poly, v = rep.default_target(5)
    a, b = rep.sharpened_representation(poly, v), rep.sharpened_representation(poly, v)
    assert a.second_moments() == b.second_moments()
    assert rep.explicit_representation(poly, v).rms_bound() < a.rms_bound()


def test_constants_ceilings_and_limits():
    assert [round(rep.dimension_free_constant(k), 2) for k in range(1, 5)] == [2.91, 9.55, 18.51, 30.99]
    assert [round(rep.dimension_free_limit(k), 3) for k in range(1, 5)] == [1.414, 1.678, 1.516, 1.164]


def test_target_variance_is_exact():
    r = rep.sharpened_representation(X[0] ** 2 + X[1], X[:3])
    # E x1^4 + E x2^2 on S^2: 3/15 + 1/3
    assert r.target_variance("sphere") == pytest.approx(3 / 15 + 1 / 3)
    assert r.target_variance("ball") == pytest.approx(3 / 15 * 3 / 7 + 1 / 3 * 3 / 5)


@pytest.mark.parametrize("case", ["chapter", "mixed-d6", "ball-d8"])
def test_monte_carlo_rate_on_several_polynomials(case):
    if case == "chapter":
        poly, v = rep.default_target(rep.default_dimension())
        inputs = "sphere"
    elif case == "mixed-d6":
        v = X[:5] + sympy.symbols("x6:7", real=True)
        poly = 1 + v[0] - 2 * v[3] * v[4] + v[1] ** 3 / 3 + v[2] ** 2 * v[5] ** 2 / 2 + v[5] ** 4 / 5
        inputs = "sphere"
    else:
        v = sympy.symbols("x1:9", real=True)
        poly = rep.ridge_polynomial(v, (1, 2, 3, 4), seed=7, constant=-1.0)
        inputs = "ball"
    check = rep.check_monte_carlo_rate(poly, v, ns=[1000, 2000, 4000, 8000], inputs=inputs, replicates=20)
    assert check.passed, check.report()
    assert all(0.5 <= r <= 2 for r in check.notes["MSE/prediction"])


@pytest.mark.parametrize("control", [rep.unsharpened_control, rep.forward_heat_control, rep.bias_sign_control])
def test_monte_carlo_controls_fail(control):
    v = X[:5]
    poly = 0.5 + v[0] + v[0] * v[1] + v[2] ** 2 + v[3] ** 3 / 3
    check = rep.check_monte_carlo_rate(poly, v, ns=[1000, 2000, 4000, 8000], build=control, replicates=rep.RATE_MIN_REPLICATES)
    assert not check.passed
    assert not check.requirements["median MSE / predicted MSE <= 2 for every n"]


def test_dimension_stability_and_counterpoint():
    assert rep.check_dimension_stability(rep.default_target, [2, 5, 10]).passed
    assert not rep.check_dimension_stability(rep.squared_norm_target, [2, 5, 10, 20]).passed


# ---- input validation ----

def test_validation_errors():
    x1, x2 = X[:2]
    with pytest.raises(ValueError, match="polynomial"):
        rep.sharpened_representation(sympy.sin(x1), X[:2])
    with pytest.raises(ValueError, match="polynomial"):
        rep.fischer_norm(1 / x1, X[:2])
    with pytest.raises(ValueError, match="not among"):
        rep.sharpened_representation(x1 + X[2], X[:2])
    with pytest.raises(ValueError, match="sigma"):
        rep.sharpened_representation(x1, X[:2], sigma=0.0)
    with pytest.raises(ValueError, match="sigma"):
        rep.sharpened_representation(x1, X[:2], sigma=-1)
    r = rep.sharpened_representation(x1 * x2, X[:2])
    with pytest.raises(ValueError, match="n must be >= 1"):
        r.sample(0)
    with pytest.raises(ValueError, match="inputs"):
        r.predicted_mse(10, inputs="cube")
    with pytest.raises(ValueError, match="inputs"):
        rep.check_monte_carlo_rate(x1, X[:2], ns=[1000, 4000], inputs="gaussian")
    with pytest.raises(ValueError, match="distinct widths"):
        rep.check_monte_carlo_rate(x1, X[:2], ns=[1000, 1000])
    with pytest.raises(ValueError, match="ns must be >= 1000 .* got 10"):
        rep.check_monte_carlo_rate(x1, X[:2], ns=[10, 2000])
    with pytest.raises(ValueError, match="constant"):
        rep.check_monte_carlo_rate(sympy.Integer(3), X[:2], ns=[1000, 4000])
    with pytest.raises(ValueError, match="beta must be > sigma = 1.0 .* got 1.0"):
        rep.dimension_free_constant(3, beta=1.0)
    with pytest.raises(ValueError, match="beta must be > sigma = 1.0 .* got -2"):
        rep.dimension_free_limit(3, beta=-2)
    with pytest.raises(ValueError, match="names of variables but other assumptions.*sympify"):
        rep.sharpened_representation("x1**2 + x2", X[:2])
    with pytest.raises(ValueError, match="replicates must be >= 20"):
        rep.check_unbiasedness(x1, X[:2], width=1000, replicates=5)
    with pytest.raises(ValueError, match="scale must be > 0 and != 1"):
        rep.mean_scaled_control(1.0)
    with pytest.raises(ValueError, match="kernel must be one of"):
        rep.representation_quadrature(x1, X[:2], [0.1, 0.2], kernel="inverse")
    with pytest.raises(ValueError, match="nodes must be >= 1"):
        rep.radial_second_moment(2, 0, 3, nodes=0)
    with pytest.raises(TypeError, match="Symbol"):
        rep.fischer_norm(x1, ["x1"])
    with pytest.raises(ValueError, match="distinct"):
        rep.fischer_norm(x1, [x1, x1])
    with pytest.raises(ValueError, match="homogeneous"):
        sym.harmonic_projection(x1 + x1**2, X[:2])
    with pytest.raises(ValueError, match="k - j even"):
        sym.eigenvalue(3, 2, 3)
    with pytest.raises(ValueError, match="law"):
        sym.relu_operator(x1, X[:2], law="ball")
    with pytest.raises(ValueError, match="coordinates"):
        rep.representation_quadrature(x1, X[:2], [0.1, 0.2, 0.3])


def test_constant_polynomial_samples_a_constant_network():
    r = rep.sharpened_representation(sympy.Rational(3, 2), X[:2])
    net = r.sample(7)
    assert torch.allclose(net(torch.randn(4, 2)).reshape(-1), torch.full((4,), 1.5))


# ---- the ledger: the chapter records exactly the claims registered for it ----

def test_chapter_records_every_registered_claim():
    from pathlib import Path
    import re

    from nnproofs import ledger

    source = (Path(__file__).resolve().parents[1] / f"{rep.CHAPTER}.md").read_text(encoding="utf-8")
    recorded = set(re.findall(r'ledger\.record\(\s*"([^"]+)"', source))
    registered = {c.key for c in ledger.claims() if c.chapter == rep.CHAPTER}
    assert recorded == registered


# ---- seed sweeps: every assertion the chapter makes on a sampled network holds on every seed ----

@pytest.mark.slow
def test_rate_claim_holds_on_seeds_0_to_49():
    """Every seed passes, and the fitted slope spreads over more than 0.2 across them: a fixed slope tolerance would
    not do, the chapter's "How the checks decide" says, quoting this test."""
    poly, v = rep.default_target(rep.default_dimension())
    failed, slopes = {}, []
    for seed in range(50):
        check = rep.check_monte_carlo_rate(poly, v, ns=rep.default_ns(), replicates=rep.default_replicates(), seed=seed)
        slopes.append(check.fit.slope)
        if not check.passed:
            failed[seed] = check.report()
    assert not failed, failed
    assert max(slopes) - min(slopes) > 0.2, (min(slopes), max(slopes))


@pytest.mark.slow
@pytest.mark.parametrize("build", [rep.explicit_representation, rep.explicit_sphere_representation])
def test_explicit_rate_holds_on_twenty_seeds(build):
    """The chapter's explicit claims, at the check's minimum of 10 replicates per width."""
    poly, v = rep.default_target(rep.default_dimension())
    for seed in range(20):
        check = rep.check_monte_carlo_rate(poly, v, ns=rep.default_ns(), replicates=rep.RATE_MIN_REPLICATES, seed=seed,
                                           build=build)
        assert check.passed, (seed, check.report())


@pytest.mark.slow
def test_rate_in_d2_with_40_replicates_holds_on_ten_seeds():
    poly, v = rep.default_target(2)
    for seed in range(10):
        check = rep.check_monte_carlo_rate(poly, v, ns=rep.default_ns(), replicates=40, seed=seed)
        assert check.passed, (seed, check.report())


@pytest.mark.slow
def test_controls_are_rejected_on_ten_seeds():
    poly, v = rep.default_target(rep.default_dimension())
    for seed in range(10):
        checks = {b.__name__: rep.check_monte_carlo_rate(poly, v, ns=rep.default_ns(), build=b, replicates=rep.RATE_MIN_REPLICATES, seed=seed)
                  for b in (rep.unsharpened_control, rep.forward_heat_control, rep.bias_sign_control)}
        assert not any(c.passed for c in checks.values()), seed
        assert not checks["unsharpened_control"].rate_holds and not checks["forward_heat_control"].rate_holds, seed
        # the bias-sign control fails the median ratio and the sign; it does represent the poly's parts (the joint)
        held = checks["bias_sign_control"].requirements
        assert [text for text, ok in held.items() if ok] == [rep.checks.REPRESENTS_POLY], seed


@pytest.mark.slow
def test_unbiasedness_and_its_near_miss_controls_on_ten_seeds():
    """The claim passes and c = 1.1, 1.3 are rejected on seeds 0..9 (the threshold 4 was set on seeds 100..111)."""
    poly, v = rep.default_target(rep.default_dimension())
    sizes = rep.default_unbiasedness_sizes()
    for seed in range(10):
        assert rep.check_unbiasedness(poly, v, **sizes, test_points=100, seed=seed).passed, seed
        for c in (rep.NEAR_MISS_SCALE, 1.3):
            control = rep.check_unbiasedness(poly, v, **sizes, test_points=100, seed=seed, build=rep.mean_scaled_control(c))
            assert not control.passed, (seed, c, control.measured)


# ---- wrong verdicts found by calling the checks on other constructions (each test fails on the old behaviour) ----

def test_unbiasedness_rejects_exploding_variance():
    """Wrong bias sign: u ∝ e^{S²/(2β²)} with ρ(⟨W, x⟩ + S) has infinite variance, every z_j is small, and only the
    pooled network's error against its exact prediction sees it."""
    poly, v = rep.default_target(5)
    check = rep.check_unbiasedness(poly, v, width=1000, replicates=20, test_points=50, build=rep.bias_sign_control)
    assert check.rate_holds  # mean z² <= 4: the old verdict (z-test alone) passed it
    assert not check.passed and check.notes["pooled MSE / prediction"] > 100


def _correct_construction_case(case: str):
    """``(poly, variables, seeds)`` of the sweeps below, on seeds the chapter never uses."""
    if case == "ridge-degree-5-d3":
        return rep.ridge_polynomial(X[:3], (5,)), X[:3], range(50, 60)
    if case == "sparse-d7":
        v = sympy.symbols("x1:8", real=True)
        poly = 1 - v[0] + 2 * v[1] * v[6] - v[2] ** 3 / 2 + v[3] ** 2 * v[4] ** 2 / 3 + v[5] ** 4 / 4 - v[0] * v[2] * v[5]
        return poly, v, range(100, 110)
    if case == "degree-5-in-d2":  # the d = 1 case that is refused, with a second variable
        return X[0] ** 5 - 2 * X[0] ** 3 + 1, X[:2], range(400, 430)
    return (*rep.default_target(int(case[1])), range(700, 730))  # "d2".."d5": the chapter's polynomial


@pytest.mark.slow
@pytest.mark.parametrize("case", ["ridge-degree-5-d3", "sparse-d7", "d2", "d3", "d4", "d5", "degree-5-in-d2"])
def test_rate_check_passes_correct_constructions_on_unused_seeds(case):
    """In-class targets with heavier tails than the chapter's (the mean of 20 MSEs is erratic: ratios 0.13..12 for the
    degree-5 ridge at seeds 50-55; the median requirement holds on every seed), and the chapter's polynomial in
    d = 2..5 on 30 seeds each, at the default 20 replicates."""
    poly, v, seeds = _correct_construction_case(case)
    failed, mean_ratios = {}, []
    for seed in seeds:
        check = rep.check_monte_carlo_rate(poly, v, ns=[1000, 2000, 4000, 8000], replicates=20, seed=seed)
        mean_ratios += check.notes["MSE/prediction"]
        if not check.passed:
            failed[seed] = check.report()
    assert not failed, failed
    if case == "ridge-degree-5-d3":  # the chapter: a band [0.5, 2] on the mean would reject this correct construction
        assert min(mean_ratios) < 0.5 or max(mean_ratios) > 2, (min(mean_ratios), max(mean_ratios))


@pytest.mark.parametrize("build", [rep.bias_sign_control, rep.mean_scaled_control(1.3), rep.unsharpened_control])
def test_dimension_stability_requires_a_representation(build):
    """The controls' M_k are those of a representation: without the identity the old check passed them."""
    check = rep.check_dimension_stability(rep.default_target, [2, 5, 10], build=build)
    assert not check.passed
    assert [text for text, held in check.requirements.items() if not held] == [rep.checks.DIMENSION_REPRESENTS]


def test_representations_pass_their_exact_identities():
    poly, v = rep.default_target(4)
    for build in (rep.sharpened_representation, rep.explicit_representation, rep.explicit_sphere_representation):
        assert build(poly, v).represents_target(), build.__name__
    assert rep.sharpened_representation(poly, v, sigma=0.7).represents_target()
    assert not rep.forward_heat_control(poly, v).represents_target()


@pytest.mark.parametrize("beta", [1.01, 1.2, 1.41, 1.42, 1.45])
def test_dimension_free_constant_is_never_nan(beta):
    """For k >= 2, E G_k(σξ)² = ∞ when β < √2σ: inf, not NaN; finite and converged above."""
    for k in (1, 2, 3, 4, 5):
        c = rep.dimension_free_constant(k, beta=beta)
        assert not math.isnan(c) and math.isfinite(rep.dimension_free_limit(k, beta=beta))
        assert math.isinf(c) == (k >= 2 and beta < math.sqrt(2))


def test_float_coefficients_satisfy_the_fischer_identity_exactly():
    x1, x2, x3 = X[:3]
    check = rep.check_fischer_identity([0.3 * x1**2 * x2 + 1.7 * x3**3 - 0.1 * x1], X[:3], sigma=0.8)
    assert check.passed and check.measured == 0.0


def test_sympy_poly_input_is_accepted():
    x1, x2 = X[:2]
    from_poly = rep.sharpened_representation(sympy.Poly(x1**2 + x2, x1, x2), X[:3])
    assert from_poly.rms_bound() == rep.sharpened_representation(x1**2 + x2, X[:3]).rms_bound()
    with pytest.raises(ValueError, match="not among"):
        rep.sharpened_representation(sympy.Poly(x1 + Y, x1, Y), X[:2])


def test_too_few_replicates_or_too_narrow_networks_are_refused():
    x1 = X[0]
    with pytest.raises(ValueError, match="replicates must be >= 10"):
        rep.check_monte_carlo_rate(x1, X[:2], ns=[1000, 4000], replicates=2)
    with pytest.raises(ValueError, match="replicates must be >= 10"):  # at 5, 4 of 100 correct constructions failed
        rep.check_monte_carlo_rate(x1, X[:2], ns=[1000, 4000], replicates=5)
    with pytest.raises(ValueError, match="width must be >= 1000"):
        rep.check_unbiasedness(x1, X[:2], width=1, replicates=20)


def test_sphere_weight_representation():
    poly, v = rep.default_target(5)
    check = rep.check_monte_carlo_rate(poly, v, ns=[1000, 2000, 4000, 8000], build=rep.explicit_sphere_representation)
    assert check.passed, check.report()
    r = rep.explicit_sphere_representation(poly, v)
    net = r.sample(100, generator=torch.Generator().manual_seed(0))
    assert torch.allclose(net[0].weight.norm(dim=1), torch.ones(100, dtype=torch.float64))
    assert r.constants()[1]["ratio"] == pytest.approx(math.sqrt(2), rel=1e-12)  # M_1 = 4 d²‖f_1‖²/d · 1/(2d)
    with pytest.raises(ValueError, match="sigma must be 1"):
        rep.explicit_sphere_representation(poly, v, sigma=2.0)


def test_sphere_weight_moment_quadrature_has_converged():
    for d in (2, 5, 50):
        for k in (2, 4):
            assert rep.sphere_weight_moment(k, d, nodes=128) == pytest.approx(rep.sphere_weight_moment(k, d), rel=1e-11)


def test_unbiasedness_is_inconclusive_where_it_cannot_resolve_a_ten_percent_offset():
    """On a target whose pooled noise is ~26% of ‖f − f_0‖ (r = 0.257 at width 10^4, 100 replicates) a mean off by 10%
    passed (the old verdict, seed 330; its fields now fail the exact identity); the check says it cannot decide a
    correct build there, and gives r in its notes. The chapter's target (r = 0.025, 4 r < 0.1) is still judged."""
    v = sympy.symbols("x1:4", real=True)
    check = rep.check_unbiasedness(rep.ridge_polynomial(v, (5,), seed=3), v, width=10_000, replicates=100,
                                   test_points=100, seed=330)
    assert check.verdict == "INCONCLUSIVE" and not check.passed and "cannot be resolved" in check.inconclusive
    assert check.notes["resolution r = √(pooled prediction)/‖f − f_0‖"] == pytest.approx(0.2566, rel=1e-3)
    poly, w = rep.default_target(5)
    chapter = rep.check_unbiasedness(poly, w, width=10_000, replicates=100, test_points=20, seed=330)
    assert "cannot be resolved" not in chapter.inconclusive and rep.DETECTION_RESOLUTIONS * chapter.notes[
        "resolution r = √(pooled prediction)/‖f − f_0‖"] <= rep.DETECTION_LIMIT



def test_unbiasedness_failure_overrides_the_flag_only_at_small_resolution():
    """2x1x2x3 − x4² + x2/2 − 1 at width 3000 (r = 0.048 > 0.025, a 10% offset cannot be resolved): a mean off by
    20% (mean z² 105 at width 10^4) was INCONCLUSIVE; up to r = FAILURE_MAX_RESOLUTION a failure is FAILED. Above it
    heavy tails make correct constructions exceed 4 (x1⁶ + x2² − 2x1x2, seed 303: pooled ratio 10.4), which stays
    INCONCLUSIVE."""
    v = sympy.symbols("x1:5", real=True)
    poly = 2 * v[0] * v[1] * v[2] - v[3] ** 2 + v[1] / 2 - 1
    sizes = {"width": 3000, "replicates": 100, "test_points": 100, "seed": 301}
    correct = rep.check_unbiasedness(poly, v, **sizes)
    assert correct.verdict == "INCONCLUSIVE" and correct.rate_holds and all(correct.requirements.values())
    assert correct.notes["resolution r = √(pooled prediction)/‖f − f_0‖"] <= rep.FAILURE_MAX_RESOLUTION
    assert rep.check_unbiasedness(poly, v, **sizes, build=rep.mean_scaled_control(0.8)).verdict == "FAILED"
    poly, w, _ = _sparse_high_degree("P5-sphere")
    heavy = rep.check_unbiasedness(poly, w, width=10_000, replicates=100, test_points=100, seed=303)
    assert heavy.verdict == "INCONCLUSIVE"  # a correct heavy-tailed construction is never FAILED


@pytest.mark.slow
def test_unbiasedness_does_not_fail_correct_constructions_up_to_the_trusted_resolution():
    """The chapter's target at width 2500 (r = 0.0499 <= FAILURE_MAX_RESOLUTION): mean z² 0.47..1.64 and pooled ratio
    0.50..1.40 on seeds 300-311, so a failure there is trusted; the control off by 20% is rejected on each."""
    poly, v = rep.default_target(5)
    for seed in range(300, 312):
        sizes = {"width": 2500, "replicates": 100, "test_points": 100, "seed": seed}
        assert rep.check_unbiasedness(poly, v, **sizes).verdict == "INCONCLUSIVE", seed
        assert rep.check_unbiasedness(poly, v, **sizes, build=rep.mean_scaled_control(0.8)).verdict == "FAILED", seed

def test_float_coefficients_are_read_exactly_by_every_explicit_construction():
    """Float coefficients crashed the explicit kernels (ArithmeticError: 1.0*x1**2 − K[1.0*x1**2] not divisible by
    |x|²); they are now read as the rationals of their decimal forms, as in check_fischer_identity."""
    from nnproofs.representation.quadrature import representation_quadrature
    v = X[:3]
    for poly, exact in ((v[0] ** 2 + 0.5, v[0] ** 2 + sympy.Rational(1, 2)),
                        (v[0] ** 2 * v[1] + 0.1 * v[2], v[0] ** 2 * v[1] + v[2] / 10)):
        assert sym.inverse_relu_operator(poly, v) == sym.inverse_relu_operator(exact, v)
        for build in (rep.explicit_representation, rep.explicit_sphere_representation):
            assert build(poly, v).represents_target()
            assert build(poly, v).rms_bound() == pytest.approx(build(exact, v).rms_bound(), rel=1e-12)
        value = float(exact.subs(dict(zip(v, (0.3, 0.4, 0.5)))))
        assert representation_quadrature(poly, v, [0.3, 0.4, 0.5], kernel="explicit") == pytest.approx(value, rel=1e-9)


@pytest.mark.slow
def test_rate_claim_holds_at_the_minimum_replicates_on_seeds_the_chapter_never_uses():
    """At R = 5 seeds 502, 517, 519, 589 rejected this correct construction (median ratio up to 2.89; slope); the
    minimum is now 10, and seeds 500..599 all pass there."""
    v = X[:3]
    poly = 2 - v[0] * v[1] * v[2] + sympy.Rational(7, 10) * v[1] ** 2 - 3 * v[2] + v[0] ** 4 / 4
    for seed in (502, 517, 519, 589, *range(520, 530)):
        check = rep.check_monte_carlo_rate(poly, v, ns=[1000, 2000, 4000, 8000], replicates=rep.RATE_MIN_REPLICATES,
                                           seed=seed)
        assert check.passed, (seed, check.measured, check.notes["median MSE/prediction"])


def test_bad_seeds_builds_targets_and_overflowing_moments_are_named():
    """Each used to give an unnamed RuntimeError/OverflowError/AttributeError, or a silently wrong verdict."""
    v = X[:3]
    poly = v[0] ** 2 + v[1]
    for seed, error in ((1.5, TypeError), (None, TypeError), ("a", TypeError), (-1, ValueError), (2**70, ValueError)):
        with pytest.raises(error, match="seed"):
            rep.check_monte_carlo_rate(poly, v, ns=[1000, 4000], replicates=10, seed=seed)
        with pytest.raises(error, match="seed"):
            rep.check_unbiasedness(poly, v, width=1000, replicates=20, seed=seed)
    with pytest.raises(TypeError, match="build must return a SharpenedRepresentation"):
        rep.check_monte_carlo_rate(poly, v, ns=[1000, 4000], replicates=10, build=lambda *a, **k: 3)
    with pytest.raises(TypeError, match="target must return a pair"):
        rep.check_dimension_stability(lambda d: X[0] ** 2, [2, 3])
    for check in (rep.check_dimension_stability, rep.compare_constants):  # the old verdict: PASSED, d ignored
        with pytest.raises(ValueError, match=r"target\(2\) must return 2 variables"):
            check(lambda d: (poly, v), [2, 5])
    for scale in (1e160, 1e-170):
        with pytest.raises(ValueError, match="not finite and positive in float64"):
            rep.sharpened_representation(scale * v[0] ** 2 + v[1], v)


def test_unbiasedness_refuses_the_two_point_sphere():
    """On S^0 the 100 test points are ±1: correct constructions of x1⁵ − 2x1³ + 1 were rejected on 3 of the seeds
    420..429 (mean z² 4.28; pooled ratios 4.68, 5.73). d = 1 on the sphere is refused with the reason."""
    x1 = X[0]
    with pytest.raises(ValueError, match="S\\^0 = \\{-1, 1\\} the test points repeat two values"):
        rep.check_unbiasedness(x1**5 - 2 * x1**3 + 1, [x1], width=10_000, replicates=100, test_points=100, seed=421)


def test_dimension_free_constants_depend_on_beta_over_sigma_only():
    """σ = 1e-30 raised ZeroDivisionError and σ = 1e30 OverflowError, for a quantity that depends on β/σ only: the
    extremes of the scale range agree with σ = 1, beyond it σ is refused by name (as in every build)."""
    for k in (1, 2, 4):
        for f in (rep.dimension_free_constant, rep.dimension_free_limit):
            reference = f(k, sigma=1.0, beta=2.6)
            assert f(k, sigma=0.5, beta=1.3) == pytest.approx(reference, rel=1e-12)
            for sigma in (1e-4, 1e4):
                assert f(k, sigma=sigma) == pytest.approx(f(k), rel=1e-12)
            for sigma in (1e-30, 1e30):
                with pytest.raises(ValueError, match="sigma"):
                    f(k, sigma=sigma)


def test_funk_hecke_quadrature_refuses_the_pairs_the_closed_form_refuses():
    """(3, 2) and (3, 5) returned ~1e-18 where sym.eigenvalue raises."""
    from nnproofs.representation.quadrature import funk_hecke_eigenvalue
    for k, j in ((3, 2), (3, 5)):
        with pytest.raises(ValueError, match="need j <= k with k - j even"):
            sym.eigenvalue(k, j, 3)
        with pytest.raises(ValueError, match="need j <= k with k - j even"):
            funk_hecke_eigenvalue(k, j, 3)


def test_radial_second_moment_names_a_dimension_it_cannot_compute():
    """d = 10^6 returned NaN with a RuntimeWarning; then it raised, after scipy's overflow warnings. The domain is now
    checked before the quadrature: no warning."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for d in (2001, 10**6):
            with pytest.raises(ValueError, match=f"d must be <= 2000 for the Gauss–Jacobi quadrature .* got {d}"):
                rep.radial_second_moment(3, 2, d)
            with pytest.raises(ValueError, match="d must be <= 2000"):
                rep.sphere_weight_moment(3, d, "ball")
        assert math.isfinite(rep.radial_second_moment(3, 2, 2000)) and rep.sphere_weight_moment(3, 2000) > 0


# ---- d = 1, extreme degrees and dimensions, exact σ ----

@pytest.mark.parametrize("inputs", ["sphere", "ball"])
def test_rate_check_refuses_one_dimension(inputs):
    """x1⁵ − 2x1³ + 1 on S^0, seed 402: a correct construction rejected (slope +0.021); over seeds 400-429 the
    replicates' MSE/prediction drifts with n (median 0.08 → 0.24), so no statistic of them tracks the rate."""
    x1 = X[0]
    with pytest.raises(ValueError, match="check_monte_carlo_rate needs d >= 2: in d = 1"):
        rep.check_monte_carlo_rate(x1**5 - 2 * x1**3 + 1, [x1], ns=[1000, 2000, 4000, 8000], inputs=inputs, seed=402)



@pytest.mark.parametrize("inputs", ["sphere", pytest.param("ball", marks=pytest.mark.slow)])
def test_constants_are_defined_in_one_dimension(inputs):
    """Nothing is sampled by check_dimension_stability and compare_constants, so they accept d = 1; there the M_k of all
    three representations agree with 5·10^5-sample Monte Carlo estimates (largest deviation 3.0 standard errors)."""
    stability = rep.check_dimension_stability(rep.default_target, [1, 2, 5], inputs=inputs)
    comparison = rep.compare_constants(rep.default_target, [1, 2, 5], inputs=inputs)
    assert stability.passed and comparison.passed and stability.notes["d"] == [1, 2, 5]
    if inputs == "sphere":  # √M_1/‖f_1‖_F = √(2(1 + 2/d)), d = 1
        assert stability.notes["√M_1/‖f_1‖_F"][0] == pytest.approx(math.sqrt(6), rel=1e-12)
    poly, v = rep.default_target(1)
    for build in (rep.sharpened_representation, rep.explicit_representation, rep.explicit_sphere_representation):
        r = build(poly, v, inputs=inputs)
        means, errors = r.monte_carlo_second_moments(inputs, samples=500_000, seed=11)
        for k, m in r.second_moments(inputs).items():
            assert abs(means[k] - m) <= 5 * errors[k], (build.__name__, k, means[k], m, errors[k])


def _sparse_high_degree(case: str):
    """Sparse targets of high degree whose replicate MSEs are ruled by rare huge draws: ``(poly, variables, inputs)``."""
    x = sympy.symbols("x1:7", real=True)
    if case.startswith("P5"):
        return x[0] ** 6 + x[1] ** 2 - 2 * x[0] * x[1], x[:2], case.split("-")[1]
    if case == "P12":
        return x[0] ** 12 - x[1] ** 6 * x[2] ** 5 + x[0] * x[1], x[:3], "sphere"
    return x[0] ** 8 - 3 * x[1] ** 2 * x[3] ** 5 + x[4], x[:6], "sphere"


def test_rate_check_is_inconclusive_on_a_heavy_tailed_target():
    """x1⁶ + x2² − 2x1x2 on S^1: the median MSE/prediction stays below 0.2 at every width. Seed 908 rejected this
    correct construction (slope −0.086 ± 0.298) and the control scaled by 0.5 passed at seed 900; a positive bias still
    fails."""
    poly, v, _ = _sparse_high_degree("P5-sphere")
    ns = [1000, 2000, 4000, 8000]
    correct = rep.check_monte_carlo_rate(poly, v, ns=ns, seed=908)
    assert correct.verdict == "INCONCLUSIVE" and not correct.rate_holds, correct.report()
    assert max(correct.notes["median MSE/prediction"]) < rep.TAIL_MEDIAN_MIN
    halved = rep.check_monte_carlo_rate(poly, v, ns=ns, seed=900, build=rep.mean_scaled_control(0.5))
    assert halved.verdict == "INCONCLUSIVE" and halved.rate_holds and all(halved.requirements.values())
    assert rep.check_monte_carlo_rate(poly, v, ns=ns, seed=900, build=rep.bias_sign_control).verdict == "FAILED"


@pytest.mark.slow
@pytest.mark.parametrize("case", ["P5-sphere", "P5-ball", "P12", "P2"])
def test_rate_check_never_fails_a_correct_construction_of_a_heavy_tailed_target(case):
    """Without the heavy-tail rule 7 of 61 (circle), 14 of 61 (disc), 5 of 22 (P12) and 3 of 22 (P2) of these correct
    constructions were rejected; the largest median MSE/prediction over the widths was 0.155, 0.146, 2e-6, 0.015."""
    poly, v, inputs = _sparse_high_degree(case)
    seeds = range(900, 961) if case.startswith("P5") else range(900, 922)
    checks = {seed: rep.check_monte_carlo_rate(poly, v, ns=[1000, 2000, 4000, 8000], inputs=inputs, seed=seed)
              for seed in seeds}
    verdicts = {seed: check.verdict for seed, check in checks.items()}
    assert set(verdicts.values()) == {"INCONCLUSIVE"}, verdicts
    # the chapter: the median stays below TAIL_MEDIAN_MIN at every width on every seed (reading (a))
    assert max(max(c.notes["median MSE/prediction"]) for c in checks.values()) < rep.TAIL_MEDIAN_MIN

def test_unbiasedness_refuses_one_dimension_on_the_ball_and_names_points_no_neuron_reaches():
    """On [-1, 1] the points near 0 are reached by no neuron: every replicate had the same error, z = ±inf, and the
    check raised 'measured must be finite, got inf'."""
    x1 = X[0]
    with pytest.raises(ValueError, match="check_unbiasedness needs d >= 2.*on the ball"):
        rep.check_unbiasedness(x1**5 - 2 * x1**3 + 1, [x1], width=1000, replicates=20, inputs="ball")
    v = X[:2]
    fixed = rep.sharpened_representation(v[0] ** 3, v).sample(1000, generator=torch.Generator().manual_seed(0))

    def deterministic(poly, variables, **options):  # every "sample" is the same network
        representation = rep.sharpened_representation(poly, variables, **options)
        representation.sample = lambda n, generator=None: fixed
        return representation

    with pytest.raises(ValueError, match="the 20 networks agree exactly at test point 0"):
        rep.check_unbiasedness(v[0] ** 3, v, width=1000, replicates=20, test_points=20, build=deterministic)


def test_too_few_test_points_and_too_narrow_a_range_of_widths_are_refused():
    """One test point lets a correct construction fail one time in 20 (z² = 4.65 seen); widths 1000 and 1001 let a
    construction scaled by 0.5 pass with a slope of -28.6 ± 78.3."""
    poly, v = rep.default_target(3)
    with pytest.raises(ValueError, match=r"test_points must be"):
        rep.check_unbiasedness(poly, v, width=1000, replicates=20, test_points=19)
    with pytest.raises(ValueError, match=r"ns must span at least a factor 4"):
        rep.check_monte_carlo_rate(poly, v, ns=[1000, 1001], replicates=10)


def test_compare_constants_takes_sigma_for_the_gaussian_weights_only():
    def target(d):
        v = sympy.symbols(f"x1:{d + 1}", real=True)
        return 3 + v[0] ** 2 * v[1] - v[-1] ** 3, v

    at_two = rep.compare_constants(target, [2, 4], sigma=2.0)
    at_one = rep.compare_constants(target, [2, 4])
    assert at_two.notes != at_one.notes


def test_dimension_free_constants_of_high_degree_are_computed_in_logs():
    """k = 200 raised OverflowError('math range error'); now finite, or a named error where float64 cannot hold it."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        c200 = rep.dimension_free_constant(200)
        assert 0 < c200 < 1e-70 and math.isfinite(c200)
        assert 0 < rep.dimension_free_limit(300) < 1e-250
        ratios = [rep.dimension_free_constant(k + 1) / rep.dimension_free_constant(k) for k in (50, 100, 150)]
        assert all(0 < r < 1 for r in ratios)  # the (k − 2)! in the denominator wins
        with pytest.raises(ValueError, match=r"C_k\^∞ for k=400 is e\^\(-8.*outside the float64 range"):
            rep.dimension_free_limit(400)
        with pytest.raises(ValueError, match="k must be <= 1000 .* got 2000"):
            rep.dimension_free_constant(2000)


def test_sympy_numbers_are_accepted_as_sigma():
    """sigma = Rational(1, 3) raised TypeError (ufunc isfinite); sigma = sqrt(2) was refused though exact."""
    x = X[:3]
    f = x[0] ** 3 - 2 * x[0] * x[1] + x[2] ** 4 / 3
    for sigma in (sympy.Rational(1, 3), sympy.sqrt(2)):
        r = rep.sharpened_representation(f, x, sigma=sigma)
        assert r.sigma == float(sigma) and r.represents_target()
        assert sympy.expand(r.kernels[3] - (x[0] ** 3 - 3 * sigma**2 * x[0])) == 0  # e^{-σ²Δ/2}x1³, exactly
        assert rep.check_fischer_identity([f], x, sigma=sigma).passed
        assert rep.dimension_free_constant(3, sigma=sigma) == pytest.approx(rep.dimension_free_constant(3), rel=1e-12)
    for bad, error in ((sympy.Symbol("a"), TypeError), (sympy.I, TypeError), (-sympy.sqrt(2), ValueError)):
        with pytest.raises(error, match="sigma must be"):
            rep.sharpened_representation(f, x, sigma=bad)


def test_too_many_variables_are_refused_before_sympy_recurses():
    """d = 1200 raised RecursionError from sympy.Poly."""
    v = sympy.symbols("x1:1201", real=True)
    with pytest.raises(ValueError, match="variables must hold at most 800 symbols .* got d = 1200"):
        rep.sharpened_representation(v[0] ** 2 + v[1], v)


@pytest.mark.slow
def test_the_docstring_examples_run():
    """The Examples sections of the package's public functions (numpydoc), run as doctests (a few minutes)."""
    import doctest

    from nnproofs.representation import checks, controls, moments, quadrature, sampling, targets

    for module in (checks, controls, moments, quadrature, sampling, targets):
        result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
        assert result.attempted > 0 and result.failed == 0, module.__name__
