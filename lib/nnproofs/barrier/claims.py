"""The ledger registrations of chapter 4's claims (nothing else)."""

from __future__ import annotations

from ..ledger import claim
from ..rates import RateCheck
from .checks import check_barrier_decay, check_trained_barriers, check_zero_barrier_1d, default_seeds, default_widths

CHAPTER = "book/04_barrier_decay"


@claim("barrier/zero-1d-huber", chapter=CHAPTER, label="thm-barrier-1d",
       statement="n = 1, m ≥ 4: barrier exactly 0 (Huber), certificate 0")
def _claim_zero_huber() -> RateCheck:
    return check_zero_barrier_1d(default_widths("1d"), loss="huber", seeds=default_seeds("1d"))


@claim("barrier/zero-1d-bce", chapter=CHAPTER, label="thm-barrier-1d",
       statement="n = 1, m ≥ 4: barrier exactly 0 (BCE), certificate 0")
def _claim_zero_bce() -> RateCheck:
    return check_zero_barrier_1d(default_widths("1d"), loss="bce", seeds=default_seeds("1d"))


@claim("barrier/spread-n2", chapter=CHAPTER, label="thm-barrier-decay",
       statement="n = 2, worst-case networks: mean certificate ∝ m^−1 (slope within 0.08)")
def _claim_spread_2() -> RateCheck:
    return check_barrier_decay(n=2, widths=default_widths("spread"), seeds=default_seeds("spread"))


@claim("barrier/spread-n3", chapter=CHAPTER, label="thm-barrier-decay",
       statement="n = 3, worst-case networks: mean certificate ∝ m^−1/2 (slope within 0.06: resolves"
                 " covers K ∝ m^β for β ≤ 0.8, not β = 0.9)")
def _claim_spread_3() -> RateCheck:
    return check_barrier_decay(n=3, widths=default_widths("spread"), seeds=default_seeds("spread"))


def _trained_claim(n: int, loss: str):
    @claim(f"barrier/trained-n{n}-{loss}", chapter=CHAPTER, label="thm-barrier-decay",
           statement=f"n = {n}, trained networks ({loss}): barrier within the certificate on every pair, grid and"
                     " adaptive covers (the decay of the barrier is reported, not asserted)")
    def run() -> RateCheck:
        return check_trained_barriers(n=n, widths=default_widths("trained"), seeds=default_seeds("trained"), loss=loss)

    return run


_trained_claim(2, "huber")


_trained_claim(2, "bce")


_trained_claim(3, "huber")


_trained_claim(3, "bce")


@claim("barrier/control-chord", chapter=CHAPTER, label="thm-barrier-decay", control=True,
       statement="control: spherization by its chord (the function changes) must be rejected")
def _control_chord() -> RateCheck:
    return check_barrier_decay(n=2, widths=default_widths("spread"), seeds=default_seeds("spread"), spherization="chord")


@claim("barrier/control-joint-bridge", chapter=CHAPTER, label="thm-barrier-decay", control=True,
       statement="control: first-layer weights moving during the bridge must be rejected")
def _control_joint() -> RateCheck:
    return check_barrier_decay(n=2, widths=default_widths("spread"), seeds=default_seeds("spread"), bridge="joint")


@claim("barrier/control-fixed-cells", chapter=CHAPTER, label="thm-barrier-decay", control=True,
       statement="control: a cover with K = 8 cells for every m (no rate) must be rejected")
def _control_fixed() -> RateCheck:
    return check_barrier_decay(n=2, widths=default_widths("spread"), seeds=default_seeds("spread"), cells=8)


@claim("barrier/control-ball", chapter=CHAPTER, label="thm-barrier-decay", control=True,
       statement="control: no spherization (ball cover, rate m^−1/n) must be rejected")
def _control_ball() -> RateCheck:
    return check_barrier_decay(n=2, widths=default_widths("spread"), seeds=default_seeds("spread"),
                               spherization="none")


@claim("barrier/control-biases-1d", chapter=CHAPTER, label="thm-barrier-1d", control=True,
       statement="control: 1-D networks with biases (no exact zero) must be rejected")
def _control_biases() -> RateCheck:
    return check_zero_barrier_1d(default_widths("1d"), seeds=default_seeds("1d"), biases=True)
