"""Chapter 3: what the checks read of a reader's build and networks (what is evaluated is what is counted).

* :func:`library_copy`: the library's :class:`SharpenedRepresentation` of a build's fields, so that every prediction,
  moment and identity a check uses is the library's computation, never a method a subclass or an instance replaces;
* :func:`counted`: the affine maps of an exact ``nn.Sequential(nn.Linear, nn.ReLU, nn.Linear)``, refusing anything
  else; :func:`centred_values` evaluates them with ``F.linear`` and ``F.relu``, never through a module;
* :func:`centred_polynomial`: :math:`f - f_0` and :math:`f_0` from the polynomial the reader passed.
"""

from __future__ import annotations

from collections.abc import Callable

import sympy
import torch
import torch.nn.functional as F
from torch import nn
from torch.nn.modules import module as _module_hooks

from ..validate import finite_real
from . import symbolic as sym
from .sampling import SharpenedRepresentation, _TorchPolynomial

EVAL_BLOCK = 2**18  # hidden activations per block of points in centred_values (2 MiB of float64)

Maps = tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]


def library_copy(rep: SharpenedRepresentation, name: str = "build") -> SharpenedRepresentation:
    """The library's :class:`SharpenedRepresentation` with ``rep``'s fields (validated again; fresh caches): its
    :math:`M_k`, predictions, target and identities are the library's, whatever ``rep``'s class or instance
    overrides. Invalid fields raise the field's error, naming ``name``."""
    if not isinstance(rep, SharpenedRepresentation):
        raise TypeError(f"{name} must {'return ' if name == 'build' else 'be '}a SharpenedRepresentation, got"
                        f" {type(rep).__name__}")
    try:
        return SharpenedRepresentation(rep.variables, rep.sigma, rep.beta, rep.constant, dict(rep.parts),
                                       dict(rep.kernels), rep.inputs, rep.bias_sign, rep.output_scale, rep.device,
                                       rep.weight_law)
    except (TypeError, ValueError, ArithmeticError) as error:
        raise type(error)(f"{name} returned a representation with invalid fields: {error}") from error


def library_sampler(rep: SharpenedRepresentation, fields: SharpenedRepresentation) -> bool:
    """Whether ``rep.sample`` is the library's sampler of ``fields`` (:func:`library_copy` of ``rep``): ``rep`` is of
    the library's class, no ``sample`` is set on it, and the state the sampler reads (fields, mixture weights, the
    kernels' terms) equals the copy's. Else the checks also draw from ``fields``, the reference law."""
    if type(rep) is not SharpenedRepresentation or type(fields) is not SharpenedRepresentation:
        return False
    state, reference = dict(vars(rep)), dict(vars(fields))
    if "sample" in state or set(state) != set(reference):
        return False
    kernels, own = reference.pop("_kernel_eval"), state.pop("_kernel_eval")
    state.pop("_m_cache"), reference.pop("_m_cache")
    if type(own) is not dict or set(own) != set(kernels):
        return False
    same_kernels = all(type(own[k]) is _TorchPolynomial and _identical(vars(own[k]), vars(kernels[k])) for k in kernels)
    return same_kernels and all(_identical(state[key], value) for key, value in reference.items())


def _identical(value, reference) -> bool:
    """Whether ``value`` is ``reference``'s exact type and value: floats bit for bit (``float.hex``), containers
    element by element in order, sympy expressions by ``srepr``; any other type only if it is ``reference`` itself.
    No ``__eq__`` of ``value`` is called, so a subclass cannot answer for itself."""
    if value is reference:
        return True
    if type(value) is not type(reference):
        return False
    if type(value) is float:
        return value.hex() == reference.hex()
    if type(value) in (int, str, bool, torch.device):
        return value == reference
    if type(value) in (tuple, list):
        return len(value) == len(reference) and all(map(_identical, value, reference))
    if type(value) is dict:
        return _identical(list(value.items()), list(reference.items()))
    if isinstance(value, sympy.Basic) and type(value).__module__.startswith("sympy."):
        return sympy.srepr(value) == sympy.srepr(reference)
    return False


def centred_polynomial(poly, variables) -> tuple[Callable[[torch.Tensor], torch.Tensor], float]:
    """:math:`x \\mapsto f(x) - f_0` (exact float64 polynomial evaluation on ``(N, d)`` tensors) and :math:`f_0`, read
    from ``poly`` itself."""
    variables = sym.check_variables(variables)
    parts = sym.homogeneous_parts(poly, variables)
    constant = finite_real("poly's constant term", parts.pop(0, 0))
    return _TorchPolynomial(sympy.Poly(sum(parts.values(), sympy.Integer(0)), *variables)), constant


def counted(net, name: str, *, d: int | None = None, n: int | None = None) -> Maps:
    """``(W, b, u, c)`` in float64 of ``net``, which must be exactly ``nn.Sequential(nn.Linear(d, n), nn.ReLU(),
    nn.Linear(n, 1))`` with floating weights (these classes, not subclasses; no forward hooks on the modules or global,
    no ``forward`` set on an instance), else a TypeError or ValueError naming ``name``; ``d`` and ``n``, where given,
    are required."""
    modules = list(net) if type(net) is nn.Sequential else []
    kinds = [type(m) for m in modules]
    if kinds != [nn.Linear, nn.ReLU, nn.Linear]:
        got = type(net).__name__ + (f"({', '.join(k.__name__ for k in kinds)})" if modules else "")
        raise TypeError(f"{name} must be exactly nn.Sequential(nn.Linear(d, n), nn.ReLU(), nn.Linear(n, 1)) (these"
                        f" classes, not subclasses; no other layer), got {got}")
    replaced = [type(m).__name__ for m in (net, *modules)
                if m._forward_hooks or m._forward_pre_hooks or "forward" in vars(m)]
    if replaced or _module_hooks._global_forward_hooks or _module_hooks._global_forward_pre_hooks:
        where = ", ".join(replaced) or "global hooks"
        raise TypeError(f"{name} has forward hooks or a forward set on an instance ({where}): its maps are evaluated"
                        " with F.linear and F.relu, never by running a module; allowed is a plain"
                        " Sequential(Linear, ReLU, Linear)")
    tensors = (modules[0].weight, modules[0].bias, modules[2].weight, modules[2].bias)
    if any(t is None or type(t) not in (torch.Tensor, nn.Parameter) or not t.is_floating_point() for t in tensors):
        raise TypeError(f"{name} must have Linear layers with biases and floating tensor weights")
    width = tensors[0].shape[0]
    shapes = ((width if n is None else n, tensors[0].shape[1] if d is None else d), (width,), (1, width), (1,))
    if any(tuple(t.shape) != s for t, s in zip(tensors, shapes)):
        raise ValueError(f"{name} must have maps of shapes {list(shapes)}, got {[tuple(t.shape) for t in tensors]}")
    tensors = tuple(t.detach().to(torch.float64) for t in tensors)
    for label, t in zip(("[0].weight", "[0].bias", "[2].weight", "[2].bias"), tensors):
        if not bool(torch.isfinite(t).all()):
            index = [int(i) for i in torch.nonzero(~torch.isfinite(t))[0]]
            raise ValueError(f"{name}{label}{index} = {float(t[tuple(index)])}: every parameter must be finite")
    return tensors


def centred_values(maps: Maps, x: torch.Tensor, constant: float) -> torch.Tensor:
    """:math:`f_n(x) - f_0` is ``F.linear(F.relu(F.linear(x, W, b)), u)`` plus :math:`c - f_0`, of the counted ``maps``,
    in blocks of rows whose ``EVAL_BLOCK`` hidden activations stay in cache; :math:`c - f_0` is formed first (0 for a
    correct build), so a large constant costs no digits."""
    w, b, u, c = maps
    offset = float(c) - constant
    with torch.no_grad():
        return torch.cat([F.linear(F.relu(F.linear(block, w, b)), u)[:, 0]
                          for block in x.to(torch.float64).split(max(1, EVAL_BLOCK // w.shape[0]))]) + offset
