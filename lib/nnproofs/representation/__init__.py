"""Chapter 3 (``book/03_sharpened_representation``): explicit and sharpened ReLU integral representations of
polynomials, their sampled networks, and trained networks compared with them.

The public API, by the chapter's labels:

* ``def-fischer``, ``thm-spectrum``, ``def-harmonic-extension``: :mod:`.symbolic` (exact sympy algebra: Fischer
  norm, heat flow, harmonic decomposition, :math:`T_\\mu` and its inverse), and :func:`fischer_norm`;
* ``thm-sharpened``, ``thm-explicit``: :func:`sharpened_representation`, :func:`explicit_representation`,
  :func:`explicit_sphere_representation` (:class:`SharpenedRepresentation`, module :mod:`.sampling`), checked by
  :func:`representation_quadrature`, :func:`check_fischer_identity` and :func:`check_eigenvalues`
  (:func:`funk_hecke_eigenvalue`);
* ``prop-explicit-bound`` (the Gaussian explicit kernel is the projection of the sharpened one):
  :func:`check_explicit_kernel_bound`;
* ``thm-monte-carlo``: :func:`check_monte_carlo_rate`, :func:`check_unbiasedness` (both read :func:`heavy_tail`;
  the second states its power, :func:`detection_power`),
  :func:`check_dimension_stability`, :func:`compare_constants`; the second moments of :mod:`.moments`
  (:func:`radial_second_moment`, :func:`sphere_weight_moment`, :func:`dimension_free_constant`,
  :func:`dimension_free_limit`);
* what the checks read of a reader's build (:mod:`.reading`): the library's copy of its fields, exactly
  ``Sequential(Linear, ReLU, Linear)`` networks evaluated from their counted maps, :math:`f` from the polynomial;
* controls (:mod:`.controls`): :func:`unsharpened_control`, :func:`forward_heat_control`, :func:`bias_sign_control`,
  :func:`mean_scaled_control`;
* the chapter's targets and sizes (:mod:`.targets`);
* ``obs-trained``: :mod:`.neurons` (also importable as ``nnproofs.neuron_statistics``), the trained networks of
  :mod:`.training`;
* the ledger's claims: :mod:`.claims`.
"""

from . import claims, neurons, symbolic
from .checks import (
    DETECTION_LIMIT,
    DETECTION_PROBABILITY,
    DETECTION_RESOLUTIONS,
    FAILURE_MAX_RESOLUTION,
    FAILURE_MEDIAN_MIN,
    RATE_MIN_REPLICATES,
    RATIO_MAX,
    RATIO_MIN_N,
    SLOPE_SE_MULTIPLE,
    TAIL_MEDIAN_MIN,
    UNBIASED_MAX_POOLED_WIDTH,
    UNBIASED_MIN_REPLICATES,
    UNBIASED_MIN_WIDTH,
    check_dimension_stability,
    check_eigenvalues,
    check_explicit_kernel_bound,
    check_fischer_identity,
    check_monte_carlo_rate,
    check_unbiasedness,
    compare_constants,
    detection_power,
    heavy_tail,
    markov_median_limit,
)
from .claims import CHAPTER
from .controls import (
    bias_sign_control,
    forward_heat_control,
    mean_scaled_control,
    unsharpened_control,
)
from .moments import (
    BETA_OVER_SIGMA,
    dimension_free_constant,
    dimension_free_limit,
    fischer_norm,
    radial_second_moment,
    relu_square_integral,
    sphere_weight_moment,
)
from .quadrature import funk_hecke_eigenvalue, representation_quadrature
from .sampling import (
    KERNELS,
    SharpenedRepresentation,
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
    ridge_polynomial,
    squared_norm_target,
)

__all__ = [
    "BETA_OVER_SIGMA",
    "CHAPTER",
    "DETECTION_LIMIT",
    "DETECTION_PROBABILITY",
    "DETECTION_RESOLUTIONS",
    "FAILURE_MAX_RESOLUTION",
    "FAILURE_MEDIAN_MIN",
    "KERNELS",
    "NEAR_MISS_SCALE",
    "RATE_MIN_REPLICATES",
    "RATIO_MAX",
    "RATIO_MIN_N",
    "SLOPE_SE_MULTIPLE",
    "TAIL_MEDIAN_MIN",
    "UNBIASED_MAX_POOLED_WIDTH",
    "UNBIASED_MIN_REPLICATES",
    "UNBIASED_MIN_WIDTH",
    "SharpenedRepresentation",
    "bias_sign_control",
    "check_dimension_stability",
    "check_eigenvalues",
    "check_explicit_kernel_bound",
    "check_fischer_identity",
    "check_monte_carlo_rate",
    "check_unbiasedness",
    "claims",
    "compare_constants",
    "default_comparison_dimensions",
    "default_dimension",
    "default_dimensions",
    "default_ns",
    "default_replicates",
    "default_target",
    "default_unbiasedness_sizes",
    "detection_power",
    "dimension_free_constant",
    "dimension_free_limit",
    "explicit_representation",
    "explicit_sphere_representation",
    "fischer_norm",
    "forward_heat_control",
    "funk_hecke_eigenvalue",
    "heavy_tail",
    "markov_median_limit",
    "mean_scaled_control",
    "neurons",
    "radial_second_moment",
    "relu_square_integral",
    "representation_quadrature",
    "ridge_polynomial",
    "sharpened_representation",
    "sphere_weight_moment",
    "squared_norm_target",
    "symbolic",
    "unsharpened_control",
]
