"""Chapter 4, issue 27: an audit never says PASSED where it cannot see.

A loss known only by its values is probed at a finite spacing (``PROBE_RESOLUTION``): a spike narrower than
that passes :func:`get_loss`, and the true barrier can exceed the certificate between the audit's samples.
Such an audit is INCONCLUSIVE; a loss with a proof (``Loss.proved``) gets PASSED, and then the verdict rests
on the guarantees' upper bound of the supremum, not on the samples.
"""

from __future__ import annotations

import dataclasses

import pytest
import torch
from torch import nn

from nnproofs import barrier

LAM = barrier.LAMBDA
F64 = torch.float64


def _huber(p, y):
    return nn.functional.huber_loss(p, y.expand_as(p), reduction="none", delta=0.5)


def _spiked(residual: float, width: float, height: float):
    """Huber plus a tent of ``height`` and half-width ``width`` at ``p − y = residual``."""
    return lambda p, y: _huber(p, y) + height * torch.relu(1 - ((p - y - residual) / width).abs())


def _tight_audit(loss: str):
    A, B, x, y = barrier.tight_pair()
    return barrier.audit(barrier.constructive_path(A, B, x), x, y, A=A, B=B, loss=loss, lam=LAM), (A, B, x, y)


def _between_samples(report_pair):
    """A path time between two of the audit's samples (33 per segment) near the end of A's merge, and the
    residual ``f(x_0) − y_0`` there: a spike at that residual sits where the path goes, unsampled."""
    A, B, x, y = report_pair
    path = barrier.constructive_path(A, B, x)
    merge = path.kinds.index("merge")
    t = (merge + 30.37 / 32) / len(path.segments)
    W, a = path.evaluate([t])
    residual = float(barrier.forward(W, a, x)[0, 0] - y[0])
    return path, t, residual


@pytest.mark.parametrize("width", [2e-7, 3e-8, 1e-9])
@pytest.mark.parametrize("offset", [0.0, 1e-4, -3.1e-4])
def test_a_spike_between_the_probes_and_the_samples_is_not_passed(width, offset, monkeypatch):
    """The spike raises the true barrier above the certificate; neither the probe nor the samples see it."""
    report, pair = _tight_audit("huber")
    path, t, residual = _between_samples(pair)
    A, B, x, y = pair
    height = 10.0 * x.shape[0] * report.certificate  # its cost, height/N at t, is 10 certificates
    monkeypatch.setitem(barrier.LOSSES, "spiked", barrier.Loss("spiked", 0.5, _spiked(residual + offset * width,
                                                                                      width, height)))
    barrier.get_loss("spiked")  # the probe passes it: the spike falls between its points
    W, a = path.evaluate([t])
    true = float(barrier.cost(W, a, x, y, loss="spiked", lam=LAM)[0]) - report.level
    assert true > 5 * report.certificate  # the true barrier is far above the certificate
    spiked = barrier.audit(path, x, y, A=A, B=B, loss="spiked", lam=LAM)
    assert spiked.barrier <= spiked.certificate  # the samples miss it too
    assert spiked.verdict == "INCONCLUSIVE" and not spiked.holds
    assert "no proof" in spiked.inconclusive and "spacing" in spiked.report()


@pytest.mark.parametrize("residual", [0.3335, -2.71, 250.0001])
@pytest.mark.parametrize("width", [1e-2, 1e-5, 1e-8])
@pytest.mark.parametrize("height", [1e-6, 50.0])
def test_a_spiked_loss_is_never_passed(residual, width, height, monkeypatch):
    """Wherever the spike sits and however wide or high: refused by the probe, or not PASSED."""
    monkeypatch.setitem(barrier.LOSSES, "spiked", barrier.Loss("spiked", 0.5, _spiked(residual, width, height)))
    try:
        report, _ = _tight_audit("spiked")
    except ValueError as error:
        assert "spiked" in str(error)
        return
    assert report.verdict != "PASSED"


def test_only_the_librarys_own_proofs_make_an_audit_pass(monkeypatch):
    """A reader's loss is INCONCLUSIVE with or without a ``proved`` string: the library cannot check the claim
    (a referee's loss said "convex, |l'| <= 0.5" and hid a spike 100 certificates high between the probes)."""
    assert _tight_audit("huber")[0].verdict == "PASSED"
    monkeypatch.setitem(barrier.LOSSES, "copy", barrier.Loss("copy", 0.5, _huber))
    monkeypatch.setitem(barrier.LOSSES, "claimed copy", barrier.Loss("claimed copy", 0.5, _huber,
                                                                     proved="Huber: |ℓ'| ≤ δ, ℓ' non-decreasing"))
    for name in ("copy", "claimed copy"):
        report = _tight_audit(name)[0]
        assert report.verdict == "INCONCLUSIVE" and report.within_certificate and report.bounded
        assert "no proof" in report.inconclusive


@pytest.mark.parametrize("loss", ["huber", "bce"])
@pytest.mark.parametrize("cover", ["grid", "adaptive"])
def test_the_builtin_losses_pass_on_the_bound_not_the_samples(loss, cover):
    """PASSED rests on the guarantees' upper bound: it is at least the sampled barrier, within the certificate,
    and the verdict does not change when the samples are coarsened (a sampled peak that had not converged)."""
    for key in [(n, cover, loss, order) for n in barrier.TIGHT_DIMENSIONS for order in barrier.TIGHT_ORDERS]:
        report = barrier.tight_audits()[key]
        assert report.verdict == "PASSED" and report.bounded
        assert report.barrier <= report.bound_peak - report.level <= report.certificate * (1 + 1e-12)
        coarse = dataclasses.replace(report, coarse_peak=report.peak - 0.5 * report.certificate)
        assert not coarse.converged and coarse.verdict == "PASSED"


@pytest.mark.parametrize("scale", [0.9, 0.8, 0.5])
def test_a_bound_above_the_certificate_is_not_passed(scale):
    """The samples within an understated certificate, the bound above it: INCONCLUSIVE; the samples above: FAILED."""
    report = barrier.tight_audits()[(2, "grid", "huber", "A→B")]
    understated = dataclasses.replace(report, certificate=report.certificate * scale)
    assert understated.verdict == "FAILED"  # the tight case: its samples reach 0.98 of the certificate
    high = dataclasses.replace(report, bound_peak=report.level + report.certificate / scale,
                               bound_inner_peak=report.spherized_level + report.certificate / scale)
    assert high.within_certificate and high.verdict == "INCONCLUSIVE" and "bound" in high.inconclusive


def test_a_check_with_an_unproved_loss_is_inconclusive(monkeypatch):
    monkeypatch.setitem(barrier.LOSSES, "copy", barrier.Loss("copy", 0.5, _huber))
    check = barrier.check_zero_barrier_1d([4, 8], loss="copy", seeds=2, steps=20)
    assert check.verdict == "INCONCLUSIVE" and "no proof" in check.inconclusive and not check.passed
    assert barrier.check_zero_barrier_1d([4, 8], loss="huber", seeds=2, steps=20).verdict == "PASSED"


def test_a_segment_of_another_type_is_refused():
    """The bounds read a segment's fields; a subclass could sample another curve (a referee's hooked bridge
    hid a barrier 530 certificates high), so only exact types are audited."""
    from nnproofs.barrier.paths import Path, Segment

    A, B, x, y = barrier.tight_pair()
    path = barrier.constructive_path(A, B, x, cover="grid")

    class Hooked(Segment):
        pass

    segments = list(path.segments)
    segments[0] = Hooked(**{f.name: getattr(segments[0], f.name) for f in dataclasses.fields(segments[0])})
    with pytest.raises(TypeError, match="path"):
        barrier.audit(Path(tuple(segments), path.moments, path.info), x, y, A=A, B=B, loss="huber", lam=1e-3)


@pytest.mark.parametrize("scale", [1e4, 3e5])
def test_large_outputs_are_judged_relative_to_their_round_off(scale):
    """Function-exact segments are compared with the float64 error bound of f at each data point
    (function_roundoff): a correct path between networks with output weights of 1e4 was FAILED on a round-off
    change of 1.2e-10 against an absolute tolerance."""
    generator = torch.Generator().manual_seed(1)
    W = torch.randn(2, 64, 2, dtype=torch.float64, generator=generator)
    W = W / W.norm(dim=2, keepdim=True)
    a = scale * torch.randn(2, 64, dtype=torch.float64, generator=generator)
    x = torch.randn(30, 2, dtype=torch.float64, generator=generator)
    y = torch.randn(30, dtype=torch.float64, generator=generator)
    A, B = (W[0], a[0]), (W[1], a[1])
    report = barrier.audit(barrier.constructive_path(A, B, x, cover="grid"), x, y, A=A, B=B, loss="huber", lam=1e-3)
    assert all(s.function_change <= 1 for s in report.segments if s.exact)
    assert report.verdict != "FAILED", report.report()
