"""The former path of :mod:`nnproofs.representation.symbolic`, kept importable: the same module object."""

import sys

from .representation import symbolic

sys.modules[__name__] = symbolic
