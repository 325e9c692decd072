"""The former path of :mod:`nnproofs.representation.neurons`, kept importable: the same module object."""

import sys

from .representation import neurons

sys.modules[__name__] = neurons
