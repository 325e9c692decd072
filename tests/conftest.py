"""Shared test setup: the book's numerical policy for the whole session, and GPU tests skipped without CUDA."""

from __future__ import annotations

import pytest
import torch

import nnproofs.device


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
