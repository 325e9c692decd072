"""The ledger's claims of chapter 1 (``nnproofs.ledger.claim``); each key is recorded where the chapter asserts it."""

from __future__ import annotations

from ..ledger import claim
from ..rates import RateCheck
from .bottleneck import check_relu_bottleneck, default_bottleneck_widths
from .checks import DEFAULT_DELTAS, check_constant_depth_rate, check_gadget_rate, default_Ks
from .controls import (FORWARD_CONTROL_BASE, OUT_OF_CLASS_EXPONENT, float32_network, one_degree_short_network,
                       padded_network, relu_swapped_network)
from .network import constant_depth_network
from .targets import chapter_target, convex_target, holder_target


CHAPTER = "book/01_smooth_constant_depth"


def _gadget_claim(activation: str) -> RateCheck:
    return check_gadget_rate(activation, DEFAULT_DELTAS)


@claim("smooth/gadget-gelu", chapter=CHAPTER, label="def-smooth-gadgets",
       statement="GELU square gadget: sup error ∝ δ² on [−1, 1]")
def _claim_gadget_gelu() -> RateCheck:
    return _gadget_claim("gelu")


@claim("smooth/gadget-tanh", chapter=CHAPTER, label="def-smooth-gadgets",
       statement="tanh square gadget at the shifted base point: sup error ∝ δ²")
def _claim_gadget_tanh() -> RateCheck:
    return _gadget_claim("tanh")


@claim("smooth/control-gadget-forward", chapter=CHAPTER, label="def-smooth-gadgets", control=True,
       statement="control: one-sided stencil at b = 1 (error O(δ)) must be rejected")
def _control_gadget_forward() -> RateCheck:
    return check_gadget_rate("gelu", DEFAULT_DELTAS, base=FORWARD_CONTROL_BASE, stencil="forward")


def _depth_claim(k: int, build=constant_depth_network) -> RateCheck:
    # the controls are decided at K <= 12 (the chapter runs them there too)
    Ks = default_Ks(k) if build is constant_depth_network else default_Ks(k)[:-1]
    return check_constant_depth_rate(chapter_target, k=k, Ks=Ks, build=build)


@claim("smooth/constant-depth-k0", chapter=CHAPTER, label="thm-constant-depth",
       statement="GELU, depth 7, k = 0: sup error ∝ K^−2, N = O(K²)")
def _claim_depth_k0() -> RateCheck:
    return _depth_claim(0)


@claim("smooth/constant-depth-k1", chapter=CHAPTER, label="thm-constant-depth",
       statement="GELU, depth 7, k = 1: sup error ∝ K^−4, N = O(K²)")
def _claim_depth_k1() -> RateCheck:
    return _depth_claim(1)


@claim("smooth/constant-depth-k2", chapter=CHAPTER, label="thm-constant-depth",
       statement="GELU, depth 7, k = 2: sup error ∝ K^−6, N = O(K²)")
def _claim_depth_k2() -> RateCheck:
    return _depth_claim(2)


@claim("smooth/constant-depth-k3", chapter=CHAPTER, label="thm-constant-depth",
       statement="GELU, depth 7, k = 3 (cubes by third differences): sup error ∝ K^−8, N = O(K²)")
def _claim_depth_k3() -> RateCheck:
    return _depth_claim(3)


@claim("smooth/control-float32", chapter=CHAPTER, label="thm-constant-depth", control=True,
       statement="control: the k = 2 network evaluated in float32 must be rejected")
def _control_float32() -> RateCheck:
    return _depth_claim(2, float32_network)


@claim("smooth/control-relu-swapped", chapter=CHAPTER, label="thm-constant-depth", control=True,
       statement="control: ReLU in place of GELU (same weights) must be rejected")
def _control_relu_swapped() -> RateCheck:
    return _depth_claim(2, relu_swapped_network)


@claim("smooth/control-out-of-class", chapter=CHAPTER, label="thm-constant-depth", control=True,
       statement="control: the target |x − 0.37|^2.7 (Hölder 2.7 < k + 1 = 3) must be rejected at k = 2")
def _control_out_of_class() -> RateCheck:
    return check_constant_depth_rate(holder_target(OUT_OF_CLASS_EXPONENT), k=2, Ks=default_Ks(2))


@claim("smooth/control-cubic-parameters", chapter=CHAPTER, label="thm-constant-depth", control=True,
       statement="control: a builder adding ~3K³ idle parameters must be rejected (N = O(K²) fails)")
def _control_cubic_parameters() -> RateCheck:
    return _depth_claim(2, padded_network)


@claim("smooth/control-one-degree-short", chapter=CHAPTER, label="thm-constant-depth", control=True,
       statement="near miss: the construction of degree k − 1 presented as k = 2 must be rejected (rate K^(−4))")
def _control_one_degree_short() -> RateCheck:
    return _depth_claim(2, one_degree_short_network)


@claim("smooth/relu-floor", chapter=CHAPTER, label="thm-relu-floor",
       statement="trained ReLU nets (H = 1, 2, 3): P ≤ (W+1)^H, sup error ≥ μ/(16P²); GELU nets of the same"
                 " architecture below it on a majority of architectures")
def _claim_relu_floor() -> RateCheck:
    return check_relu_bottleneck(convex_target, mu=1.0, widths=default_bottleneck_widths())


@claim("smooth/control-relu-comparison", chapter=CHAPTER, label="thm-relu-floor", control=True,
       statement="control: ReLU nets as the comparison cannot beat the floor, must be rejected")
def _control_relu_comparison() -> RateCheck:
    return check_relu_bottleneck(convex_target, mu=1.0, widths=default_bottleneck_widths(), comparison="relu")
