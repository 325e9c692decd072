"""Shared test setup: the book's numerical policy for the whole session, hypothesis without clocks, and GPU
tests skipped without CUDA."""

from __future__ import annotations

import pytest
import torch
from hypothesis import HealthCheck, settings

import nnproofs.device

# No test may depend on how busy the machine is: hypothesis's per-example deadline (200 ms by default) and its
# "too slow" health check both read a clock, so they are off for every property test. Examples are drawn from
# a fixed seed (derandomize), so a run repeats the previous one's examples exactly.
settings.register_profile("book", deadline=None, derandomize=True,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("book")


@pytest.fixture(autouse=True, scope="session")
def book_policy():
    """float64 by default, TF32 off, every generator seeded: what each chapter does first."""
    nnproofs.device.setup()
    yield


def pytest_collection_modifyitems(config, items):
    if torch.cuda.is_available():
        return
    skip = pytest.mark.skip(reason="needs CUDA (torch.cuda.is_available() is false)")
    for item in items:
        if item.get_closest_marker("gpu") is not None:
            item.add_marker(skip)
