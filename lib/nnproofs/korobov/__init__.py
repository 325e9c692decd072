"""Chapter 2: sparse grids and bit extraction as ReLU networks for Korobov functions.

The chapter (:doc:`/book/02_korobov`) executes the three ingredients of the super-approximation
theorem of Li and Zhang for the Korobov space :math:`X^m_p([0,1]^d)` (mixed derivatives of order
:math:`m` in every direction, zero boundary values):

* the classical interpolation estimate (``thm-sparse-grid-interp``): the hat-basis sparse-grid
  interpolant :math:`I_n f` (:mod:`nnproofs.korobov.sparsegrid`) has
  :math:`\\|f - I_n f\\|_{L_2} = O(4^{-n} n^{d-1})` and :math:`|f - I_n f|_{H^1} = O(2^{-n})`;
  :func:`check_sparse_grid_levels` measures the error ratio per level (4 and 2);
* Network A, :func:`relu_sparse_grid_network`: :math:`I_n f` as an explicit ReLU network (exact
  hats, products by Yarotsky's zero-preserving product :math:`\\tilde\\times_s`), within
  :math:`\\#\\text{levels}\\cdot\\max|v|\\,(d-1)\\,2^{-2s}` of :math:`I_n f`
  (:func:`check_relu_sparse_grid_network`); ``prune=True`` evaluates its active copy pruned on
  :math:`[-1, 1]^d` (:mod:`nnproofs.pruning`), ``compile()`` through ``torch.compile`` and
  ``fuse()`` through numba (:mod:`nnproofs.fused`);
* bit extraction (``lem-bit-extraction``), :func:`bit_extract`: the :math:`B` binary digits of
  :math:`y = \\sum_{j=1}^B \\theta_j 2^{-j}` by a ReLU network of depth :math:`2B`, exact in
  float64 for :math:`B \\le 53` (:func:`check_bit_extraction`);
* Network B (``thm-korobov-super``), :func:`super_approximation_network`: in :math:`d = 1`, the
  degree-:math:`(m-1)` interpolant on :math:`K = (WL)^2` cells whose :math:`m` coefficients per cell
  are *stored as bits* in :math:`O(W^2 L)` words of :math:`L` bits (:class:`BitTable`) and looked up
  by ReLU step and bit-extraction gadgets; in :math:`d \\ge 2` (:math:`m = 2`), the sparse grid of
  level :math:`\\log_2 K` with one bit-stored table of surpluses per level
  (:class:`SparseSuperApproximationNetwork`); :func:`check_super_approximation` fits the error
  (divided by the sparse grid's :math:`n^{d-1}`) against the nominal :math:`WL`: slope :math:`-2m`.
* Network B's derivative (``thm-korobov-sobolev``): off its bands it has the :math:`W^1` rate
  :math:`(WL)^{-2(m-1)}` when its products are :math:`(m-1)n + 4` deep
  (:func:`check_super_approximation_derivative`); inside the bands its variation grows with
  :math:`WL` (:func:`band_profile`), which is why Theorem 1.2 needs a partition of unity;
* Network C (``thm-korobov-sobolev``, :math:`d = 1`, :math:`m = 2`), :func:`partitioned_network`:
  Network B and its half-cell shift glued by a partition of unity that vanishes on their bands;
  it has no bands, and :func:`check_partitioned_network` measures its derivative error everywhere:
  slope :math:`-2`.

What is from the paper and what is reconstructed is stated in the chapter; in short, the rates
are the paper's, the constructions are the standard toolbox (Yarotsky; Bartlett et al.; Lu, Shen,
Yang and Zhang) assembled as in the research notes, section 4.

The package follows the chapter: :mod:`.sparsegrid`, :mod:`.targets`, :mod:`.bits`, :mod:`.bit_table`,
:mod:`.network_a`, :mod:`.network_b` (:mod:`.network_b_sparse` for :math:`d \\ge 2`), :mod:`.network_c`,
:mod:`.baselines`, the public checks (:mod:`.checks`, :mod:`.super_checks`; :mod:`.smoothness`, the readings of
the target's class that every check calls: differences of every order up to :math:`m`, mixed differences, surplus
decay, lattice lines that no kink larger than a stated radius escapes), :mod:`.controls` and
:mod:`.claims`; :mod:`.sizes` holds the limits that every construction enforces.
"""

from . import claims  # registers the chapter's claims with the ledger
from .baselines import MAX_CLASSICAL_CELLS, classical_relu_interpolant, network_b_overtakes
from .bit_table import PROBE_BAND, READ_BLOCK, BitTable, floor_stage, gated_product, indicators
from .bits import bit_extract, complement_bits, pack_bits
from .checks import (INTERPOLATION_RTOL, NORMS, RATIO_MARGIN, RATIO_WINDOW, SAMPLES, MIN_SAMPLES, check_bit_extraction,
                     check_relu_sparse_grid_network, check_sparse_grid_levels)
from .claims import CHAPTER, default_levels, default_wl, default_wl_partition
from .controls import clamped_product, interpolant_without_level
from .network_a import (CHUNK_NEURONS, MAX_SEQUENTIAL_PARAMETERS, ReLUSparseGridNetwork, basis_product_network,
                        relu_sparse_grid_network)
from .network_b import BandProfile, SuperApproximationNetwork, band_profile, super_approximation_network
from .network_b_sparse import SparseSuperApproximationNetwork
from .network_c import PartitionedNetwork, partitioned_network
from .sizes import (BAND, MAX_BASE, MAX_BITS, MAX_PRODUCT_DEPTH, MAX_STORED_BITS, NONZERO_KEY, PARAMETER_DIGITS,
                    ROUNDING, SMOOTHNESS)
from .smoothness import (CONVERGENCE, DIFFERENCE_GROWTH, SURPLUS_GROWTH, TREND_GROWTH, ClassReading,
                         coordinate_differences, error_trend, higher_mixed_convergence, lattice_hole, mixed_convergence,
                         mixed_differences, read_class, scaled_surplus_maxima, surplus_growth)
from .sparsegrid import DEGREES, SparseGridInterpolant, level_multi_indices, sparse_grid_interpolant, sparse_grid_size
from .super_checks import (BAND_SHARE, GAUSS_NODES, MAX_CHECK_DIMENSION, NORMS_P, PRODUCTS, check_partitioned_network,
                           check_super_approximation, check_super_approximation_derivative)
from .targets import basis_sum_target, korobov_example
from ..measure import interpolation_error, target_gradient, uniform_points  # used through nnproofs.korobov too

# The bit table's building blocks (BitTable, floor_stage, gated_product, indicators, READ_BLOCK) stay importable
# from here for the tests; they are parts of Network B, not the chapter's API.
__all__ = [
    # the sparse grid (thm-sparse-grid-interp) and its targets
    "DEGREES", "SparseGridInterpolant", "sparse_grid_interpolant", "sparse_grid_size", "level_multi_indices",
    "korobov_example", "basis_sum_target",
    # the class readings
    "DIFFERENCE_GROWTH", "SURPLUS_GROWTH", "TREND_GROWTH", "CONVERGENCE", "ClassReading", "error_trend",
    "mixed_convergence", "higher_mixed_convergence", "lattice_hole", "read_class",
    "coordinate_differences",
    "mixed_differences", "scaled_surplus_maxima", "surplus_growth",
    # Network A
    "CHUNK_NEURONS", "MAX_SEQUENTIAL_PARAMETERS", "ReLUSparseGridNetwork", "basis_product_network",
    "relu_sparse_grid_network",
    # bit extraction (lem-bit-extraction) and the bit table
    "bit_extract", "complement_bits", "pack_bits", "PROBE_BAND",
    # Networks B and C (thm-korobov-super, thm-korobov-sobolev)
    "SuperApproximationNetwork", "SparseSuperApproximationNetwork", "super_approximation_network", "BandProfile",
    "band_profile", "PartitionedNetwork", "partitioned_network", "MAX_CLASSICAL_CELLS", "classical_relu_interpolant",
    "network_b_overtakes",
    # the limits every construction enforces
    "BAND", "MAX_BASE", "MAX_BITS", "MAX_PRODUCT_DEPTH", "MAX_STORED_BITS", "NONZERO_KEY", "PARAMETER_DIGITS",
    "ROUNDING", "SMOOTHNESS",
    # the checks, their tolerances, controls and the chapter's sizes
    "check_sparse_grid_levels", "check_relu_sparse_grid_network", "check_bit_extraction", "check_super_approximation",
    "check_super_approximation_derivative", "check_partitioned_network", "INTERPOLATION_RTOL", "NORMS",
    "RATIO_MARGIN", "RATIO_WINDOW", "SAMPLES", "MIN_SAMPLES", "BAND_SHARE", "GAUSS_NODES", "MAX_CHECK_DIMENSION", "NORMS_P",
    "PRODUCTS", "clamped_product", "interpolant_without_level", "CHAPTER", "default_levels", "default_wl",
    "default_wl_partition",
]
