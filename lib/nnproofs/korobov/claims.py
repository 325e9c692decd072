"""Chapter 2, the claims of the rates ledger: each check with the chapter's sizes, registered once.

The sizes (:func:`default_levels`, :func:`default_wl`, :func:`default_wl_partition`) depend on
``BOOK_SCALE``; ``python -m nnproofs.ledger`` runs every claim without Jupyter.
"""

from __future__ import annotations

import torch

from .. import device as book_device
from ..ledger import claim
from ..rates import RateCheck
from .sizes import require_smoothness
from .checks import check_bit_extraction, check_relu_sparse_grid_network, check_sparse_grid_levels
from .controls import clamped_product, interpolant_without_level
from .super_checks import check_partitioned_network, check_super_approximation, check_super_approximation_derivative
from .targets import basis_sum_target, korobov_example


# The chapter (book/02_korobov) executes its claims on two pages: the sparse grid and Network A, then
# bit extraction and Networks B and C.
CHAPTER = "book/02_korobov_grids"
NETWORKS_PAGE = "book/02_korobov_networks"


def default_levels(d: int) -> list[int]:
    """Levels the chapter measures: 3..9 (d = 2) / 3..8 (d = 3) at ``ci``, up to 12 / 10 at ``full``."""
    tops = {2: book_device.sizes(ci=9, full=12), 3: book_device.sizes(ci=8, full=10)}
    if isinstance(d, bool) or not isinstance(d, int) or d not in tops:
        raise ValueError(f"d={d!r}: the chapter measures levels in d = 2 and 3 only; choose levels for other d "
                         f"yourself (check_sparse_grid_levels takes any)")
    top = tops[d]
    return list(range(3, top + 1))


def default_wl(m: int, d: int = 1) -> list[tuple[int, int]]:
    """Nominal (W, L) of Network B.

    :math:`d = 1`: up to (8, 8) at ``ci``; at ``full`` also (16, 16) (m = 2) or (8, 16) (m = 3); for
    m = 3 the error at (16, 16) would be near float64 round-off (:math:`K^{-3} \\approx 4\\cdot10^{-15}`).
    :math:`d = 2`: WL = 4, 8, 16 (levels n = 4, 6, 8) at ``ci``; at ``full`` also WL = 32 and 64
    (n = 10, 12: 9 217 and 45 057 surpluses). Other ``d`` are refused (Network B is checked in d <= 2).
    """
    require_smoothness(m)
    if isinstance(d, bool) or not isinstance(d, int) or d not in (1, 2):
        raise ValueError(f"d={d!r}: Network B's sizes are chosen for d = 1 and 2; allowed: 1, 2")
    if d == 2:
        return [(2, 2), (2, 4), (4, 4)] + book_device.sizes(ci=[], full=[(4, 8), (8, 8)])
    return [(2, 2), (4, 4), (8, 8)] + book_device.sizes(ci=[], full=[(16, 16)] if m == 2 else [(8, 16)])


def default_wl_partition() -> list[tuple[int, int]]:
    """Nominal (W, L) of Network C at every scale: WL = 4, 16, 64, the largest that float64 allows (:class:`PartitionedNetwork`)."""
    return [(2, 2), (4, 4), (8, 8)]


@claim("korobov/sparse-grid-L2-d2", chapter=CHAPTER, label="thm-sparse-grid-interp",
       statement="hat sparse grid, d = 2: L2 error falls by ≈ 4 per level (factor n^(d−1) allowed); the class "
                 "read to its measured resolution (a non-Korobov part below it is not seen)")
def _claim_l2_d2() -> RateCheck:
    return check_sparse_grid_levels(korobov_example(2), d=2, levels=default_levels(2))


@claim("korobov/sparse-grid-L2-d3", chapter=CHAPTER, label="thm-sparse-grid-interp",
       statement="hat sparse grid, d = 3: L2 error falls by ≈ 4 per level (factor n^(d−1) allowed); the class "
                 "read to its measured resolution (a non-Korobov part below it is not seen)")
def _claim_l2_d3() -> RateCheck:
    return check_sparse_grid_levels(korobov_example(3), d=3, levels=default_levels(3))


@claim("korobov/sparse-grid-H1-d3", chapter=CHAPTER, label="thm-sparse-grid-interp",
       statement="hat sparse grid, d = 3: H1 error falls by 2 per level")
def _claim_h1_d3() -> RateCheck:
    return check_sparse_grid_levels(korobov_example(3), d=3, levels=default_levels(3), norm="H1")


@claim("korobov/control-dropped-level", chapter=CHAPTER, label="thm-sparse-grid-interp", control=True,
       statement="control: the increment of level (2, 1, 1) left out must be rejected")
def _control_dropped_level() -> RateCheck:
    return check_sparse_grid_levels(korobov_example(3), d=3, levels=default_levels(3), build=interpolant_without_level)


@claim("korobov/network-A", chapter=CHAPTER, label="thm-sparse-grid-interp",
       statement="Network A is within #levels·max|v|·(d−1)·2^(−2s) of the interpolant, error ∝ 4^(−s)")
def _claim_network_a() -> RateCheck:
    return check_relu_sparse_grid_network(basis_sum_target(2, 5), d=2, level=5, ss=[4, 6, 8, 10])


@claim("korobov/control-product", chapter=CHAPTER, label="thm-sparse-grid-interp", control=True,
       statement="control: a product that is not zero-preserving must break Network A's bound")
def _control_product() -> RateCheck:
    return check_relu_sparse_grid_network(basis_sum_target(2, 5), d=2, level=5, ss=[4, 6, 8, 10],
                                          product=clamped_product)


@claim("korobov/bit-extraction", chapter=NETWORKS_PAGE, label="lem-bit-extraction",
       statement="every digit of B-bit words recovered exactly, B up to 53 (float64)")
def _claim_bits() -> RateCheck:
    return check_bit_extraction([8, 16, 32, 48, 53])


@claim("korobov/control-float32-words", chapter=NETWORKS_PAGE, label="lem-bit-extraction", control=True,
       statement="control: words stored in float32 lose every digit beyond the 24th")
def _control_float32() -> RateCheck:
    return check_bit_extraction([8, 16, 20, 24, 25, 26, 32, 48, 53], storage=torch.float32, words=2000)


@claim("korobov/super-m2", chapter=NETWORKS_PAGE, label="thm-korobov-super",
       statement="Network B, d = 1, m = 2: L1 error (bands included) ∝ (WL)^(−4)")
def _claim_super_m2() -> RateCheck:
    return check_super_approximation(korobov_example(1), m=2, WL=default_wl(2))


@claim("korobov/super-m3", chapter=NETWORKS_PAGE, label="thm-korobov-super",
       statement="Network B, d = 1, m = 3 (quadratic basis): L1 error (bands included) ∝ (WL)^(−6)")
def _claim_super_m3() -> RateCheck:
    return check_super_approximation(korobov_example(1), m=3, WL=default_wl(3))


@claim("korobov/super-d2", chapter=NETWORKS_PAGE, label="thm-korobov-super",
       statement="Network B, d = 2, m = 2 (sparse grid, surpluses as bits): L1 error / n ∝ (WL)^(−4)")
def _claim_super_d2() -> RateCheck:
    return check_super_approximation(korobov_example(2), m=2, WL=default_wl(2, d=2), d=2)


@claim("korobov/control-fixed-bits-d2", chapter=NETWORKS_PAGE, label="thm-korobov-super", control=True,
       statement="control: d = 2 surpluses stored with a fixed 10 bits must be rejected")
def _control_fixed_bits_d2() -> RateCheck:
    return check_super_approximation(korobov_example(2), m=2, WL=default_wl(2, d=2), d=2, coefficient_bits=10)


@claim("korobov/control-scaled-coefficients", chapter=NETWORKS_PAGE, label="thm-korobov-super", control=True,
       statement="near miss: Network B with its stored coefficients times 1.2 (d = 1, WL = 4, 16) must be rejected")
def _control_scaled_coefficients() -> RateCheck:
    return check_super_approximation(korobov_example(1), m=2, WL=default_wl(2)[:2], coefficient_scale=1.2)


@claim("korobov/control-scaled-surpluses-d2", chapter=NETWORKS_PAGE, label="thm-korobov-super", control=True,
       statement="near miss: d = 2 surpluses stored times 0.8 (WL = 4, 8) must be rejected")
def _control_scaled_surpluses_d2() -> RateCheck:
    return check_super_approximation(korobov_example(2), m=2, WL=default_wl(2, d=2)[:2], d=2, coefficient_scale=0.8)


@claim("korobov/control-fixed-bits", chapter=NETWORKS_PAGE, label="thm-korobov-super", control=True,
       statement="control: coefficients stored with a fixed 12 bits (not growing with log K) must be rejected")
def _control_fixed_bits() -> RateCheck:
    return check_super_approximation(korobov_example(1), m=2, WL=default_wl(2), coefficient_bits=12)


@claim("korobov/super-derivative-m2", chapter=NETWORKS_PAGE, label="thm-korobov-sobolev",
       statement="Network B off its bands, d = 1, m = 2: derivative error ∝ (WL)^(−2)")
def _claim_derivative_m2() -> RateCheck:
    return check_super_approximation_derivative(korobov_example(1), m=2, WL=default_wl(2))


@claim("korobov/super-derivative-m3", chapter=NETWORKS_PAGE, label="thm-korobov-sobolev",
       statement="Network B off its bands, d = 1, m = 3, products of depth 2n + 4: derivative error ∝ (WL)^(−4)")
def _claim_derivative_m3() -> RateCheck:
    return check_super_approximation_derivative(korobov_example(1), m=3, WL=default_wl(3))


@claim("korobov/network-C", chapter=NETWORKS_PAGE, label="thm-korobov-sobolev",
       statement="Network C (partition of unity), d = 1, m = 2: derivative error everywhere ∝ (WL)^(−2), bands hidden")
def _claim_network_c() -> RateCheck:
    return check_partitioned_network(korobov_example(1), WL=default_wl_partition())


@claim("korobov/control-unshifted-partition", chapter=NETWORKS_PAGE, label="thm-korobov-sobolev", control=True,
       statement="control: Network C with both local networks unshifted (bands where g = 1) must be rejected")
def _control_unshifted() -> RateCheck:
    return check_partitioned_network(korobov_example(1), WL=default_wl_partition(), shift=False)


@claim("korobov/control-shallow-products", chapter=NETWORKS_PAGE, label="thm-korobov-sobolev", control=True,
       statement="control: m = 3 with products only as deep as the values need must be rejected in W^1")
def _control_shallow_products() -> RateCheck:
    return check_super_approximation_derivative(korobov_example(1), m=3, WL=default_wl(3), products="Lp")

