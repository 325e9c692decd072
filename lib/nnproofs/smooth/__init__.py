"""Chapter 1: constant depth suffices with smooth activations; fixed-depth ReLU is capped by its pieces.

The API, in the chapter's order (labels of ``book/01_smooth_constant_depth.md``):

* **gadgets** (Definition ``def-smooth-gadgets``, module ``gadgets``): for a smooth ``σ`` with ``σ''(b) ≠ 0``,
  ``sq_δ(x) = [σ(b+δx) - 2σ(b) + σ(b-δx)] / (δ²σ''(b))`` has ``sup_{[-1,1]} |sq_δ(x) - x²| ≍ δ²``:
  :func:`square_gadget`, :func:`product_gadget`, :func:`identity_gadget`, with exact derivatives
  (:func:`exact_derivative`, :func:`derivative`), base points (:func:`base_point`) and step reaches
  (:func:`step_reach`); checked by :func:`check_gadget_rate` against the error model and for slope ``2 ± 0.1``;
* **the two-scale network** (Construction ``con-two-scale``, module ``network``): :func:`constant_depth_network`
  (seven affine maps for every ``k``, ``K``, ``d``; ``N`` a polynomial of degree ``2d`` in ``K``), built from
  :func:`local_polynomials` with :func:`critical_points` where its bands lie;
* **constant depth** (Theorem ``thm-constant-depth``, module ``checks``): ``sup |f - f̂| = O(K^{-2(k+1)}) =
  O(N^{-(k+1)/d})``: :func:`check_constant_depth_rate` (one-sided with a round-off floor :func:`round_off_floor`,
  read at the asymptotic end; PASSED, INCONCLUSIVE or FAILED) at :func:`default_Ks`; what it evaluates (module
  ``evaluation``): :func:`read_network` (the affine maps and activations it counts, evaluated with ``F.linear``
  and ``σ``; :func:`parameter_bits`, the precision its parameters carry), :func:`evaluation_points` (every fine cell and band, at ``p`` and ``2p``: the sup must converge);
  the class it reads (module ``smoothness``): :func:`read_class` from :func:`chebyshev_smoothness` and
  :func:`interpolation_smoothness`, the less favourable deciding;
* **the ReLU floor** (Theorem ``thm-relu-floor``, module ``bottleneck``): :func:`check_relu_bottleneck`, with
  :func:`relu_piece_count` counting ``P`` exactly and :func:`check_curvature`; smooth nets of the same architecture
  below the floor on a majority of architectures, stalled fits (:data:`STALLED`) refitted :data:`RETRAINS` times;
  networks trained by module ``training``;
* **learning curves** (Theorem ``thm-erm-rate``, illustrated, module ``learning``): :func:`learning_curve`,
  :func:`check_learning_curve`;
* targets (module ``targets``): :func:`chapter_target`, :func:`convex_target`, :func:`learning_target`, and
  :func:`holder_target` just outside the class; negative controls (module ``controls``):
  :func:`relu_swapped_network`, :func:`without_coarse_factor_network`, :func:`float32_network`,
  :func:`padded_network`, ``stencil="forward"`` at :data:`FORWARD_CONTROL_BASE`, ``comparison="relu"``,
  ``permute_labels=True``. The ledger's claims live in module ``claims``.
"""

from . import claims  # registers the chapter's claims with the ledger
from .bottleneck import (
    RETRAINS,
    STALLED,
    check_curvature,
    check_relu_bottleneck,
    default_bottleneck_widths,
    relu_piece_count,
)
from .checks import (
    DEFAULT_DELTAS,
    END_INTERVALS,
    END_INTERVALS_K3,
    END_SLOPE_TOL,
    FLOOR_MARGIN,
    FLOOR_PASS,
    BETWEEN,
    GADGET_SLOPE_TOL,
    OUTPUT_ROUNDING,
    ROUND_OFF_FLOOR,
    STEEPENING,
    SWING,
    HIDDEN_SHARE,
    FALL_SHARE,
    check_constant_depth_rate,
    check_gadget_rate,
    default_Ks,
    local_slopes,
    round_off_floor,
)
from .evaluation import (
    POINTS_PER_CELL,
    SUP_CONVERGENCE,
    NetworkReading,
    affine_maps,
    evaluation_points,
    parameter_bits,
    read_network,
)
from .smoothness import (
    CHEBYSHEV_DEGREE,
    CLASS_MARGIN,
    ClassReading,
    ExponentReading,
    chebyshev_smoothness,
    interpolation_smoothness,
    read_class,
)
from .claims import CHAPTER
from .controls import (
    FORWARD_CONTROL_BASE,
    OUT_OF_CLASS_EXPONENT,
    float32_network,
    one_degree_short_network,
    padded_network,
    relu_swapped_network,
    without_coarse_factor_network,
)
from .gadgets import (
    ACTIVATIONS,
    EXACT_IDENTITY,
    base_point,
    derivative,
    exact_derivative,
    identity_gadget,
    product_gadget,
    square_gadget,
    step_reach,
)
from .inputs import MAX_D, MAX_K
from .learning import (
    LEARNING_MIN_N,
    LEARNING_MIN_SIZES,
    LEARNING_NULL_SHARE,
    LEARNING_SLOPE,
    check_learning_curve,
    learning_curve,
)
from .network import constant_depth_network, critical_points, local_polynomials
from .targets import chapter_target, convex_target, holder_target, learning_target

__all__ = [
    "ACTIVATIONS", "CHEBYSHEV_DEGREE", "CLASS_MARGIN", "CHAPTER", "DEFAULT_DELTAS", "END_INTERVALS", "END_INTERVALS_K3", "END_SLOPE_TOL", "EXACT_IDENTITY", "FLOOR_MARGIN", "FLOOR_PASS", "BETWEEN",
    "FORWARD_CONTROL_BASE", "GADGET_SLOPE_TOL", "LEARNING_NULL_SHARE", "LEARNING_SLOPE", "MAX_D", "MAX_K",
    "OUTPUT_ROUNDING", "OUT_OF_CLASS_EXPONENT", "POINTS_PER_CELL", "SUP_CONVERGENCE", "NetworkReading",
    "ClassReading", "ExponentReading", "interpolation_smoothness", "read_class", "read_network", "parameter_bits",
    "LEARNING_MIN_N", "LEARNING_MIN_SIZES", "RETRAINS", "ROUND_OFF_FLOOR", "STALLED", "STEEPENING", "SWING", "FALL_SHARE", "HIDDEN_SHARE", "affine_maps",
    "base_point", "chapter_target", "check_constant_depth_rate", "check_curvature", "check_gadget_rate",
    "check_learning_curve", "chebyshev_smoothness", "check_relu_bottleneck", "constant_depth_network", "convex_target", "critical_points",
    "default_Ks", "default_bottleneck_widths", "derivative", "evaluation_points", "exact_derivative",
    "float32_network", "holder_target", "identity_gadget", "learning_curve", "learning_target", "local_polynomials", "one_degree_short_network",
    "local_slopes", "padded_network", "product_gadget", "relu_piece_count", "relu_swapped_network",
    "round_off_floor", "square_gadget", "step_reach", "without_coarse_factor_network",
]
