"""Device, precision, seed and scale policy shared by every chapter, test and benchmark.

Two environment variables steer a run:

* ``BOOK_DEVICE`` = ``auto`` (default: CUDA when available) | ``cpu`` | ``cuda``;
* ``BOOK_SCALE``  = ``ci`` (default: every chapter runs in about a minute on two CPU cores) | ``full``
  (sizes closer to the asymptotic regime, meant for a GPU).

:func:`setup` is the one call a chapter makes first: it seeds ``random``, ``numpy`` and ``torch``,
makes float64 the default dtype (error measurements go down to 1e-12 and need it), switches TF32
off (it would silently round matmuls to 10 mantissa bits on Ampere and newer GPUs), fixes the
thread count and makes numpy print scalars as plain numbers.
"""

from __future__ import annotations

import os
import random
from typing import TypeVar

import numpy as np
import torch

DEVICES = ("auto", "cpu", "cuda")
SCALES = ("ci", "full")
T = TypeVar("T")


def _env_choice(variable: str, allowed: tuple[str, ...]) -> str:
    value = os.environ.get(variable, allowed[0]).strip().lower() or allowed[0]
    if value not in allowed:
        raise ValueError(f"{variable}={value!r} is not allowed; use one of {', '.join(allowed)}")
    return value


def device() -> torch.device:
    """The device named by ``BOOK_DEVICE``; ``auto`` picks CUDA when it is available."""
    choice = _env_choice("BOOK_DEVICE", DEVICES)
    if choice == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if choice == "cuda" and not torch.cuda.is_available():
        raise ValueError("BOOK_DEVICE='cuda' but torch sees no CUDA device; use 'auto' or 'cpu'")
    return torch.device(choice)


def scale() -> str:
    """The scale named by ``BOOK_SCALE``: ``'ci'`` (default) or ``'full'``."""
    return _env_choice("BOOK_SCALE", SCALES)


def sizes(ci: T, full: T) -> T:
    """Pick the value for the current ``BOOK_SCALE``: ``sizes(ci=range(1, 9), full=range(1, 16))``."""
    return full if scale() == "full" else ci


def seed_everything(seed: int = 0) -> None:
    """Seed Python's ``random``, numpy's global generator and torch (CPU and every CUDA device)."""
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed must be a non-negative int, got {seed!r}")
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def setup(seed: int = 0, threads: int | None = None) -> torch.device:
    """Apply the book's numerical policy and return the device to compute on.

    ``threads`` defaults to ``OMP_NUM_THREADS`` when set, else to torch's own choice.
    """
    if threads is not None and (isinstance(threads, bool) or not isinstance(threads, int) or threads < 1):
        raise ValueError(f"threads must be a positive int or None, got {threads!r}")
    seed_everything(seed)
    torch.set_default_dtype(torch.float64)
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    if threads is None and os.environ.get("OMP_NUM_THREADS", "").isdigit():
        threads = max(1, int(os.environ["OMP_NUM_THREADS"]))
    if threads is not None:
        torch.set_num_threads(threads)
    np.set_printoptions(legacy="1.25")
    return device()
