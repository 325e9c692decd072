"""The ledger on a Dask cluster (nnproofs.cluster): the serial run's outcomes bit for bit, failures named."""

from __future__ import annotations

import contextlib
import json
import sys
from pathlib import Path

import pytest
import torch

from nnproofs import cluster, ledger

distributed = pytest.importorskip("distributed")
cloudpickle = pytest.importorskip("cloudpickle")

# One cheap ci-scale claim of every chapter (the GPU check's smoke set).
KEYS = ["prelude/square", "smooth/gadget-gelu", "korobov/bit-extraction", "representation/fischer-identity",
        "barrier/spread-n2"]


@pytest.fixture(scope="module")
def client():
    """A local cluster of two single-threaded worker processes, as ``--cluster local`` starts on two cores."""
    cloudpickle.register_pickle_by_value(sys.modules[__name__])  # the tasks below travel to the workers
    with cluster.client("local", workers=2) as c:
        yield c


def _json(check) -> str:
    return json.dumps(check.to_dict(), sort_keys=True)


def test_a_two_worker_cluster_gives_the_serial_outcomes_bit_for_bit(client, monkeypatch):
    monkeypatch.setenv("BOOK_SCALE", "ci")
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # the workers' thread count: sums in the same order
    try:
        serial = ledger.run_claims(KEYS)
    finally:
        torch.set_num_threads(threads)
    spread = cluster.gather(client, KEYS)
    assert [o.claim.key for o in spread] == KEYS
    assert [_json(o.check) for o in spread] == [_json(o.check) for o in serial]
    assert [o.as_asserted for o in spread] == [o.as_asserted for o in serial] == [True] * len(KEYS)
    workers = {o.where["worker"] for o in spread}
    assert workers <= set(client.scheduler_info()["workers"]) and all(o.where["threads"] == 1 for o in spread)


def test_the_command_line_writes_the_same_json_with_each_claims_worker(client, monkeypatch, tmp_path):
    @contextlib.contextmanager
    def this_client(mode, workers=None):
        yield client

    monkeypatch.setattr(cluster, "client", this_client)
    serial, spread = tmp_path / "serial.json", tmp_path / "cluster.json"
    assert ledger.main(["--scale", "ci", "--only", *KEYS[:2], "--out", str(serial)]) == 0
    assert ledger.main(["--scale", "ci", "--only", *KEYS[:2], "--out", str(spread), "--cluster", "local"]) == 0
    a, b = (json.loads(p.read_text(encoding="utf-8")) for p in (serial, spread))
    assert a.keys() == b.keys() and a["provenance"].keys() == b["provenance"].keys()
    for x, y in zip(a["claims"], b["claims"], strict=True):
        assert x.keys() == y.keys() and x["check"] == y["check"]
        assert x["where"]["worker"] == "serial" and y["where"]["worker"].startswith("tcp://")


def _fails_once(key, book_scale, marker):
    """Raises on its first attempt for ``key`` (a marker file remembers the attempt), then runs the claim."""
    flag = Path(marker) / key.replace("/", "-")
    if not flag.exists():
        flag.touch()
        raise RuntimeError(f"first attempt at {key} fails")
    return cluster._task(key, book_scale)


def _always_fails(key, book_scale):
    raise ValueError(f"{key} cannot be computed")


def test_a_task_that_fails_once_is_retried(client, tmp_path):
    (outcome,) = cluster.gather(client, KEYS[:1], task=lambda k, s: _fails_once(k, s, str(tmp_path)))
    assert outcome.as_asserted and (tmp_path / "prelude-square").exists()


def test_each_run_computes_afresh_on_the_same_cluster(client, tmp_path):
    """A claim run twice on one cluster runs twice: the second run does not get the first one's outcome."""
    first = cluster.gather(client, KEYS[:1])
    with pytest.raises(cluster.ClaimsWithoutOutcome):
        cluster.gather(client, KEYS[:1], task=_always_fails)
    assert first[0].as_asserted


def test_a_claim_without_outcome_is_named(client):
    with pytest.raises(cluster.ClaimsWithoutOutcome) as caught:
        cluster.gather(client, KEYS[:2], task=_always_fails)
    assert set(caught.value.missing) == set(KEYS[:2])
    assert "prelude/square: ValueError: prelude/square cannot be computed" in str(caught.value)


@pytest.mark.parametrize("mode", ["", "locale", "http://host:8786", "tcp://", None, 3])
def test_bad_modes_are_refused(mode):
    with pytest.raises(ValueError, match="--cluster"):
        cluster.check_mode(mode)


def test_unknown_keys_and_bad_worker_counts_are_refused():
    with pytest.raises(ValueError, match="unknown claim keys"):
        cluster.run_claims(["no/such-claim"], "local")
    with pytest.raises(ValueError, match="workers"):
        cluster.run_claims(KEYS[:1], "local", workers=0)
