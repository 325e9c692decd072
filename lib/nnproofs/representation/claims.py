"""Chapter 3: the ledger's claims (``nnproofs.ledger``), each running a check at the chapter's sizes."""

from __future__ import annotations

import sympy

from .. import device as book_device
from ..ledger import claim
from ..rates import RateCheck
from . import symbolic as sym
from .checks import (
    RATE_MIN_REPLICATES,
    check_dimension_stability,
    check_eigenvalues,
    check_explicit_kernel_bound,
    check_fischer_identity,
    check_monte_carlo_rate,
    check_unbiasedness,
    compare_constants,
)
from .controls import (
    bias_sign_control,
    forward_heat_control,
    mean_scaled_control,
    unsharpened_control,
)
from .neurons import (
    DIMENSION,
    check_comparison,
    check_trained_neurons,
    compare_trained,
    default_sizes,
    fresh_initialisation_control,
    nonpositive_bias_network,
)
from .sampling import (
    KERNELS,
    explicit_representation,
    explicit_sphere_representation,
    sharpened_representation,
)
from .targets import (
    NEAR_MISS_SCALE,
    _fischer_examples,
    default_comparison_dimensions,
    default_dimension,
    default_dimensions,
    default_ns,
    default_replicates,
    default_target,
    default_unbiasedness_sizes,
    squared_norm_target,
)

CHAPTER = "book/03_sharpened_representation"


def _rate_claim(build=sharpened_representation, replicates=None) -> RateCheck:
    poly, variables = default_target(default_dimension())
    return check_monte_carlo_rate(poly, variables, ns=default_ns(), build=build,
                                  replicates=replicates or default_replicates())


@claim("representation/monte-carlo-rate", chapter=CHAPTER, label="thm-monte-carlo",
       statement="sampled width-n network: RMS ∝ n^(−1/2), median MSE·n within a factor 2 above the exact prediction at"
                 " every n (one-sided; the mean is the unbiasedness claim's)")
def _claim_rate() -> RateCheck:
    return _rate_claim()


@claim("representation/control-unsharpened", chapter=CHAPTER, label="thm-monte-carlo", control=True,
       statement="control: q_k = f_k (no backward heat flow) must be rejected")
def _control_unsharpened() -> RateCheck:
    return _rate_claim(unsharpened_control, replicates=RATE_MIN_REPLICATES)


@claim("representation/control-forward-heat", chapter=CHAPTER, label="thm-monte-carlo", control=True,
       statement="control: forward heat flow e^(+σ²Δ/2) must be rejected")
def _control_forward() -> RateCheck:
    return _rate_claim(forward_heat_control, replicates=RATE_MIN_REPLICATES)


@claim("representation/control-bias-sign", chapter=CHAPTER, label="thm-monte-carlo", control=True,
       statement="control: neurons ρ(⟨W,x⟩ + S) (wrong bias sign) must be rejected")
def _control_bias() -> RateCheck:
    return _rate_claim(bias_sign_control, replicates=RATE_MIN_REPLICATES)


@claim("representation/eigenvalues", chapter=CHAPTER, label="thm-spectrum",
       statement="λ_(k,j) closed form = Funk–Hecke quadrature (Chebyshev at d = 2)")
def _claim_eigen() -> RateCheck:
    return check_eigenvalues([2, 3, 4, 5], book_device.sizes(ci=6, full=10))



@claim("representation/fischer-identity", chapter=CHAPTER, label="thm-sharpened",
       statement="E[q_k(W)²] = σ^(2k)‖f_k‖_F² exactly")
def _claim_fischer() -> RateCheck:
    polys, x = _fischer_examples()
    return check_fischer_identity(polys, x, sigma=0.8)


@claim("representation/control-fischer-no-factorial", chapter=CHAPTER, label="thm-sharpened", control=True,
       statement="control: Fischer norm without α! must be rejected")
def _control_fischer() -> RateCheck:
    polys, x = _fischer_examples()
    return check_fischer_identity(polys, x, inner=sym.coefficient_inner)


@claim("representation/dimension-stability", chapter=CHAPTER, label="thm-monte-carlo",
       statement="the build represents f (exact identities); B = Σ√M_k does not grow with d at fixed Fischer norms;"
                 " √M_k/‖f_k‖_F <= C_k")
def _claim_stability() -> RateCheck:
    return check_dimension_stability(default_target, default_dimensions())


@claim("representation/counterpoint-squared-norm", chapter=CHAPTER, label="thm-monte-carlo", control=True,
       statement="counterpoint: |x|² (Fischer norm √(2d)): B grows with d, rejected")
def _control_squared_norm() -> RateCheck:
    return check_dimension_stability(squared_norm_target, default_dimensions())


def _unbiasedness_claim(build=sharpened_representation) -> RateCheck:
    poly, variables = default_target(default_dimension())
    return check_unbiasedness(poly, variables, **default_unbiasedness_sizes(), test_points=100, build=build)


@claim("representation/unbiased", chapter=CHAPTER, label="thm-sharpened",
       statement="the mean of the sampled networks is f: per-point z-test of 100 replicate networks at a width where"
                 " 4r <= 0.1 and the z-test's computed power against a 10% scaling is >= 0.999: mean z² and the pooled"
                 " network's MSE / its exact prediction each within the 1 − 1e-6 quantile of χ²_k/k (k: the errors'"
                 " effective directions)")
def _claim_unbiased() -> RateCheck:
    return _unbiasedness_claim()


@claim("representation/control-mean-off-10pc", chapter=CHAPTER, label="thm-sharpened", control=True,
       statement="control: networks whose mean is f_0 + 1.1(f − f_0) must be rejected by the unbiasedness check")
def _control_mean_scaled() -> RateCheck:
    return _unbiasedness_claim(mean_scaled_control(NEAR_MISS_SCALE))


@claim("representation/explicit-monte-carlo-rate", chapter=CHAPTER, label="thm-explicit",
       statement="the explicit representation (T_μ⁻¹, Gaussian μ) sampled through the same rate check passes it")
def _claim_explicit_rate() -> RateCheck:
    return _rate_claim(explicit_representation, replicates=RATE_MIN_REPLICATES)


@claim("representation/explicit-sphere-monte-carlo-rate", chapter=CHAPTER, label="thm-explicit",
       statement="the explicit representation with weights on the sphere (T_μ⁻¹, uniform μ) passes the same rate check")
def _claim_explicit_sphere_rate() -> RateCheck:
    return _rate_claim(explicit_sphere_representation, replicates=RATE_MIN_REPLICATES)


@claim("representation/explicit-kernel-bound", chapter=CHAPTER, label="prop-explicit-bound",
       statement="the Gaussian explicit kernel g_k is the projection of q_k: q_k − g_k ⟂ P_k and E[g_k²] <= E[q_k²] ="
                 " σ^(2k)‖f_k‖_F², exactly; so the sharpened ceiling C_k bounds the explicit representation too")
def _claim_explicit_bound() -> RateCheck:
    polys, x = _fischer_examples()
    return check_explicit_kernel_bound(polys, x, sigma=0.8)


@claim("representation/control-explicit-kernel", chapter=CHAPTER, label="prop-explicit-bound", control=True,
       statement="control: 1.2 times the explicit kernel (a near miss) must fail the orthogonality")
def _control_explicit_bound() -> RateCheck:
    polys, x = _fischer_examples()
    return check_explicit_kernel_bound(polys, x, kernel=_near_miss_kernel)


def _near_miss_kernel(part, variables, k, s2):
    return sympy.Rational(6, 5) * KERNELS["explicit"](part, variables, k, s2)


@claim("representation/explicit-dimension-stability", chapter=CHAPTER, label="prop-explicit-bound",
       statement="the Gaussian explicit build represents f, B does not grow with d, √M_k/‖f_k‖_F <= C_k")
def _claim_explicit_stability() -> RateCheck:
    return check_dimension_stability(default_target, default_comparison_dimensions(), build=explicit_representation)


@claim("representation/explicit-vs-sharpened", chapter=CHAPTER, label="thm-explicit",
       statement="as measured on the chapter's polynomial: B_explicit <= B_sharpened at every d of the sweep (the"
                 " sharpening buys no smaller constant with Gaussian weights; against sphere weights it does)")
def _claim_explicit_constants() -> RateCheck:
    return compare_constants(default_target, default_comparison_dimensions())
def _claim(**options) -> RateCheck:
    poly, variables = default_target(DIMENSION)
    return check_trained_neurons(poly, variables, **default_sizes(), **options)


@claim("neuron-statistics/trained-bias-sign", chapter=CHAPTER, label="obs-trained",
       statement="training fits f and moves the fraction of negative biases (mass, activity) and the activity-weighted"
                 " law of r = −b/|w| towards the representation's, statistics that every construction with the Taylor"
                 " engine's neurons shares (the sharpening is not tested); training on permuted targets does not fit, yet"
                 " moves the fractions at least as far: the movement is not specific to f")
def _claim_trained() -> RateCheck:
    return _claim(with_null=True)


@claim("neuron-statistics/control-bias-sign", chapter=CHAPTER, label="obs-trained", control=True,
       statement="control: the same trained network against the wrong-sign representation must be rejected")
def _control_bias_sign() -> RateCheck:
    return _claim(build=bias_sign_control)


@claim("neuron-statistics/control-fresh-initialisation", chapter=CHAPTER, label="obs-trained", control=True,
       statement="control that could pass: untrained initialisations in place of the trained network, movement judged"
                 " alone; it passes if the thresholds accept at least half of them, and must be rejected")
def _control_fresh() -> RateCheck:
    poly, variables = default_target(DIMENSION)
    comparison = compare_trained(poly, variables, **default_sizes())
    return fresh_initialisation_control(comparison)


@claim("neuron-statistics/control-rewritten-initialisation", chapter=CHAPTER, label="obs-trained", control=True,
       statement="control: the initialisation rewritten with every bias <= 0 (the same function, never trained) in place"
                 " of the trained network, judge_fit=False (the fit judged relative to the initialisation only): its"
                 " biases moved all the way, and it must be rejected")
def _control_rewritten() -> RateCheck:
    poly, variables = default_target(DIMENSION)
    comparison = compare_trained(poly, variables, **default_sizes())
    rewritten = comparison.with_trained(nonpositive_bias_network(comparison.networks["initialisation"]))
    return check_comparison(rewritten, judge_fit=False)
