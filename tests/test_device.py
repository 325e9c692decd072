"""Device, scale, precision and seed policy (design §6): environment parsing, setup() and seeding."""

from __future__ import annotations

import random

import numpy as np
import pytest
import torch

from nnproofs import device as book_device


@pytest.fixture
def no_cuda(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)


@pytest.fixture
def restore_threads():
    threads = torch.get_num_threads()
    yield
    torch.set_num_threads(threads)


# ---------------------------------------------------------------- BOOK_DEVICE


@pytest.mark.parametrize(
    ("value", "cuda", "expected"),
    [
        (None, False, "cpu"),
        (None, True, "cuda"),
        ("", False, "cpu"),
        ("auto", False, "cpu"),
        ("auto", True, "cuda"),
        (" AUTO ", True, "cuda"),
        ("cpu", False, "cpu"),
        ("cpu", True, "cpu"),
        ("Cpu", True, "cpu"),
        ("cuda", True, "cuda"),
        (" CUDA\n", True, "cuda"),
    ],
)
def test_book_device_choice(monkeypatch, value, cuda, expected):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: cuda)
    if value is None:
        monkeypatch.delenv("BOOK_DEVICE", raising=False)
    else:
        monkeypatch.setenv("BOOK_DEVICE", value)
    assert book_device.device() == torch.device(expected)


@pytest.mark.parametrize("value", ["gpu", "cuda:0", "mps", "0", "auto cpu"])
def test_book_device_bad_value_names_variable(monkeypatch, value):
    monkeypatch.setenv("BOOK_DEVICE", value)
    with pytest.raises(ValueError, match=r"BOOK_DEVICE=.*not allowed.*auto, cpu, cuda"):
        book_device.device()


def test_book_device_cuda_without_cuda_raises(monkeypatch, no_cuda):
    monkeypatch.setenv("BOOK_DEVICE", "cuda")
    with pytest.raises(ValueError, match=r"BOOK_DEVICE='cuda'.*no CUDA device"):
        book_device.device()


# ---------------------------------------------------------------- BOOK_SCALE


@pytest.mark.parametrize(
    ("value", "expected"),
    [(None, "ci"), ("", "ci"), ("ci", "ci"), ("CI", "ci"), ("full", "full"), (" Full ", "full")],
)
def test_book_scale_choice(monkeypatch, value, expected):
    if value is None:
        monkeypatch.delenv("BOOK_SCALE", raising=False)
    else:
        monkeypatch.setenv("BOOK_SCALE", value)
    assert book_device.scale() == expected


@pytest.mark.parametrize("value", ["large", "small", "1", "ci,full"])
def test_book_scale_bad_value_names_variable(monkeypatch, value):
    monkeypatch.setenv("BOOK_SCALE", value)
    with pytest.raises(ValueError, match=r"BOOK_SCALE=.*not allowed.*ci, full"):
        book_device.scale()
    with pytest.raises(ValueError, match="BOOK_SCALE"):
        book_device.sizes(ci=1, full=2)


@pytest.mark.parametrize(("value", "expected"), [("ci", range(1, 9)), ("full", range(1, 16))])
def test_sizes_picks_value_for_scale(monkeypatch, value, expected):
    monkeypatch.setenv("BOOK_SCALE", value)
    assert book_device.sizes(ci=range(1, 9), full=range(1, 16)) == expected


# ---------------------------------------------------------------- setup()


def test_setup_applies_float64_and_disables_tf32(monkeypatch, restore_threads):
    monkeypatch.setenv("BOOK_DEVICE", "cpu")
    torch.set_default_dtype(torch.float32)
    torch.backends.cuda.matmul.allow_tf32 = True
    torch.backends.cudnn.allow_tf32 = True
    try:
        assert book_device.setup() == torch.device("cpu")
        assert torch.get_default_dtype() == torch.float64
        assert torch.tensor([0.1]).dtype == torch.float64
        assert torch.backends.cuda.matmul.allow_tf32 is False
        assert torch.backends.cudnn.allow_tf32 is False
        assert repr(np.float64(0.5)) == "0.5"  # numpy scalars print as plain numbers
    finally:
        torch.set_default_dtype(torch.float64)


def test_setup_threads_argument(monkeypatch, restore_threads):
    monkeypatch.setenv("BOOK_DEVICE", "cpu")
    book_device.setup(threads=1)
    assert torch.get_num_threads() == 1


def test_setup_threads_default_from_omp_num_threads(monkeypatch, restore_threads):
    monkeypatch.setenv("BOOK_DEVICE", "cpu")
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    torch.set_num_threads(2)
    book_device.setup()
    assert torch.get_num_threads() == 1


def test_setup_propagates_device_errors(monkeypatch, no_cuda):
    monkeypatch.setenv("BOOK_DEVICE", "cuda")
    with pytest.raises(ValueError, match="BOOK_DEVICE"):
        book_device.setup()


@pytest.mark.parametrize("threads", [0, -2, True, 2.0, "4"])
def test_setup_bad_threads_raise(threads):
    with pytest.raises(ValueError, match=r"threads must be a positive int or None"):
        book_device.setup(threads=threads)


# ---------------------------------------------------------------- seeding


def _draws():
    return (torch.rand(5).tolist(), np.random.rand(5).tolist(), [random.random() for _ in range(5)])


def test_seed_everything_reproduces_every_generator():
    book_device.seed_everything(123)
    first = _draws()
    book_device.seed_everything(123)
    again = _draws()
    book_device.seed_everything(124)
    other = _draws()
    assert first == again
    for a, b in zip(first, other):
        assert a != b


def test_setup_seeds_like_seed_everything(monkeypatch, restore_threads):
    monkeypatch.setenv("BOOK_DEVICE", "cpu")
    book_device.setup(seed=7)
    via_setup = _draws()
    book_device.seed_everything(7)
    assert _draws() == via_setup


@pytest.mark.parametrize("seed", [-1, True, 1.5, "0", None])
def test_seed_everything_bad_seed_raises(seed):
    with pytest.raises(ValueError, match=r"seed must be a non-negative int"):
        book_device.seed_everything(seed)
    with pytest.raises(ValueError, match=r"seed must be a non-negative int"):
        book_device.setup(seed=seed)
