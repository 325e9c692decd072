"""Valid, cheap calls of every public callable of nnproofs.barrier, for tests/test_fuzz.py."""

from nnproofs import barrier


def _pair():
    A, B, x, y = barrier.tight_pair()
    return A, B, x, y


def _path():
    A, B, x, _ = _pair()
    return barrier.constructive_path(A, B, x, cover="grid")


def _profile():
    A, B, x, y = _pair()
    return barrier.profile(_path(), x, y, loss="huber", lam=barrier.LAMBDA)


def _profile_call():
    _, _, x, y = _pair()
    return dict(path=_path(), x=x, y=y, loss="huber", lam=barrier.LAMBDA)


def _audit_call():
    A, B, _, _ = _pair()
    return dict(**_profile_call(), A=A, B=B)


def _samples(n=2, count=16):
    x, y = barrier.teacher_data(n, samples=count)
    return x, y


# name in __all__ -> a function of no arguments returning the keyword arguments of a valid call that
# finishes in well under a second at ci scale (the harness fuzzes these and every defaulted parameter).
CASES = {
    "as_network": lambda: dict(name="A", net=_pair()[0]),
    "as_pair": lambda: dict(A=_pair()[0], B=_pair()[1]),
    "forward": lambda: dict(W=_pair()[0][0], a=_pair()[0][1], x=_pair()[2]),
    "function_roundoff": lambda: dict(W=_pair()[0][0], a=_pair()[0][1], x=_pair()[2]),
    "cost": lambda: dict(W=_pair()[0][0], a=_pair()[0][1], x=_pair()[2], y=_pair()[3], loss="huber",
                         lam=barrier.LAMBDA),
    "Loss": lambda: dict(name="huber-copy", lipschitz=0.5, function=barrier.LOSSES["huber"].function),
    "get_loss": lambda: dict(loss="bce"),
    "proof_of": lambda: dict(loss=barrier.LOSSES["huber"]),
    "form_problem": lambda: dict(segment=_path().segments[1]),
    "sphere_cover": lambda: dict(n=3, cells=10),
    "ball_cover": lambda: dict(n=2, cells=8),
    "weighted_kmeans": lambda: dict(points=_pair()[0][0], weights=_pair()[0][1], cells=3),
    "default_cells": lambda: dict(n=2, width=8),
    "constructive_path": lambda: dict(A=_pair()[0], B=_pair()[1], x=_pair()[2]),
    "cost_roundoff": lambda: dict(loss_level=2.0, samples=10, width=4),
    "profile": _profile_call,
    "barrier": _profile_call,
    "barriers": lambda: {**{k: v for k, v in _profile_call().items() if k != "path"}, "paths": [_path(), _path()]},
    "audit": _audit_call,
    "spread_network": lambda: dict(n=2, width=8),
    "spread_pairs": lambda: dict(n=2, width=8, seeds=2),
    "teacher_data": lambda: dict(n=2, samples=32),
    "tight_pair": lambda: dict(),
    "tight_audits": lambda: dict(),
    "train_networks": lambda: dict(x=_samples()[0], y=_samples()[1], width=4, seeds=2, loss="huber", steps=1),
    "straight_line": lambda: dict(A=_pair()[0], B=_pair()[1]),
    "weight_matching": lambda: dict(A=_pair()[0], B=_pair()[1]),
    "matched_line": lambda: dict(A=_pair()[0], B=_pair()[1]),
    "bezier_paths": lambda: dict(pairs=[_pair()[:2]], x=_pair()[2], y=_pair()[3], loss="huber", steps=3),
    "path_finders": lambda: dict(pairs=[_pair()[:2]], x=_pair()[2], y=_pair()[3], loss="huber", bezier_steps=3),
    "compare_paths": lambda: dict(pairs=[_pair()[:2]], x=_pair()[2], y=_pair()[3], loss="huber", bezier_steps=3),
    "spread_certificate_slopes": lambda: dict(n=2, widths=[8, 16], seeds=2, offsets=[0, 1]),
    "check_barrier_decay": lambda: dict(n=2, widths=[8, 16], seeds=2, tolerance=0.5, data=_samples()),
    "check_trained_barriers": lambda: dict(n=2, widths=[4, 8], seeds=2, steps=1, data=_samples()),
    "check_zero_barrier_1d": lambda: dict(widths=[4, 8], seeds=2, steps=1, data=_samples(1)),
    "default_widths": lambda: dict(kind="trained"),
    "default_seeds": lambda: dict(kind="spread"),
    "draw_profile": lambda: dict(path_profile=_profile()),
    "draw_path_state": lambda: dict(path=_path(), path_profile=_profile(), t=0.3),
    "draw_directions": lambda: dict(path=_path()),
}

# name in __all__ -> why it is not called by the fuzz test (a result type built by the checks, a
# module, a constant table). Callables that readers call are never exempt.
EXEMPT = {
    "Network": "a type alias, tuple[Tensor, Tensor]",
    "Segment": "a result type, built by constructive_path and the path finders (audit checks any segment's form)",
    "Canonical": "a result type, built by constructive_path",
    "Path": "a result type, built by constructive_path and the path finders (audit checks its joints and ends)",
    "Profile": "a result type, built by profile()",
    "SegmentAudit": "a result type, built by audit()",
    "Audit": "a result type, built by audit()",
}
