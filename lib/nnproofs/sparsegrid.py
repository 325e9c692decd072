"""The regular sparse grid of chapter 2, importable under its former name: see :mod:`nnproofs.korobov.sparsegrid`."""

from .korobov.sparsegrid import *  # noqa: F403
from .korobov.sparsegrid import __all__  # noqa: F401
