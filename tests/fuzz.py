"""Adversarial calls of a public function, one parameter at a time (issue 23; design.md sections 5 and 8).

A call with one bad argument passes when, within :data:`CPU_LIMIT` seconds of this process's CPU time, it

* raises ``TypeError`` or ``ValueError`` whose message names the parameter, or
* returns a result with no NaN in it (floats, arrays, tensors, dataclass fields, lists, dicts, looked into
  recursively).

Anything else fails: another exception (``KeyError``, ``IndexError``, ``RuntimeError``, ``ZeroDivisionError``,
an allocator error), a NaN result, a message that does not name the parameter, too much CPU time, or a call
still running after :data:`WALL_LIMIT` seconds (a hang). CPU time, not wall time, is what is limited, so a
machine busy with other work does not change the verdict; the wall limit only ends a call that can no longer
pass. Memory is capped for the duration of each call (:data:`MEMORY_LIMIT` above what the process maps), so a
request that would allocate without limit fails here instead of taking the machine down.

The bad values depend on the valid value they replace (:func:`bad_values`): numbers get NaN, ±inf, 0,
negatives and huge values; sequences get empty, NaN, huge and nested entries and a very long list; tensors
and arrays get float32, float16, integer, NaN-filled, empty, wrong-shape, wrong-device and very long views;
callables get wrapped to return NaN, a single value or a string; modules get float32, NaN-weight and
foreign copies; every parameter also gets ``None``, a string, an ``object()``, a bool and a complex number.
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import inspect
import math
import re
import resource
import signal
import threading
import time
from collections.abc import Callable, Mapping

import numpy as np
import torch
from torch import nn

CPU_LIMIT = 5.0  # seconds of CPU time for one call
WALL_LIMIT = 300.0  # seconds after which a call is a hang, however busy the machine
MEMORY_LIMIT = 6 * 2**30  # bytes of address space a call may add to what the process maps
LONG = 10**7  # rows of the very long (non-allocating) tensor views, entries of the long lists
HUGE_INT = 10**12
HUGE_FLOAT = 1e300


class Hang(Exception):
    """A call still running after :data:`WALL_LIMIT` seconds."""


def _common() -> list[tuple[str, object]]:
    return [("nan", math.nan), ("huge int", HUGE_INT), ("None", None), ("a string", "nonsense"), ("-inf", -math.inf),
            ("zero", 0), ("negative", -1), ("inf", math.inf), ("huge float", HUGE_FLOAT), ("object()", object()),
            ("True", True), ("complex", 1 + 1j), ("empty list", [])]


def _numeric_sequence(valid) -> bool:
    return (isinstance(valid, (list, tuple, range)) and len(valid) > 0
            and all(isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool) for v in valid))


def _tensor_variants(t: torch.Tensor) -> list[tuple[str, object]]:
    out = [("float32 tensor", t.float()), ("float16 tensor", t.half()), ("integer tensor", t.long()),
           ("NaN tensor", torch.full_like(t, math.nan)), ("extra dimension", t.unsqueeze(0)),
           ("meta tensor", t.to("meta"))]
    if t.ndim >= 1:
        out += [("empty tensor", t[:0]), ("very long tensor", t[:1].expand(LONG, *t.shape[1:]))]
    if t.ndim >= 2:
        out += [("flattened tensor", t.reshape(-1)), ("transposed tensor", t.transpose(0, -1))]
    if t.ndim == 0:
        out += [("one-element vector", t.reshape(1))]
    return out


def _array_variants(a: np.ndarray) -> list[tuple[str, object]]:
    out = [("float32 array", a.astype(np.float32)), ("NaN array", np.full(a.shape, np.nan)),
           ("extra dimension", a[None]), ("object array", a.astype(object))]
    if a.ndim >= 1:
        out += [("empty array", a[:0]), ("very long array", np.broadcast_to(a[:1], (LONG, *a.shape[1:])))]
    return out


def _sequence_variants(valid) -> list[tuple[str, object]]:
    first = next(iter(valid))
    return [("[nan]", [math.nan]), ("[huge]", [HUGE_INT]), ("empty sequence", []), ("[inf]", [math.inf]),
            ("[0]", [0]), ("[-1]", [-1]), ("a huge entry", [*list(valid)[:-1], HUGE_INT]),
            ("repeated entries", [first, first]), ("reversed", list(valid)[::-1]), ("nested", [list(valid)]),
            ("strings", ["a"] * len(valid)), ("a very long list", list(range(1, LONG + 1)))]


def _callable_variants(f: Callable) -> list[tuple[str, object]]:
    def nan_valued(*args, **kwargs):
        return f(*args, **kwargs) * math.nan

    def one_value(*args, **kwargs):
        value = f(*args, **kwargs)
        return value.reshape(-1)[:1] if hasattr(value, "reshape") else value

    def text(*args, **kwargs):
        return "nonsense"

    return [("returns NaN", nan_valued), ("returns one value", one_value), ("returns a string", text)]


def _module_variants(module: nn.Module) -> list[tuple[str, object]]:
    nan_weights = copy.deepcopy(module)
    with torch.no_grad():
        for parameter in nan_weights.parameters():
            parameter.fill_(math.nan)
            break
    return [("float32 module", copy.deepcopy(module).float()), ("NaN weight", nan_weights),
            ("nn.Identity()", nn.Identity()), ("empty Sequential", nn.Sequential()),
            ("a Linear(3, 1)", nn.Linear(3, 1, dtype=torch.float64))]


def _dataclass_variants(value) -> list[tuple[str, object]]:
    out = []
    for field in dataclasses.fields(value):
        inner = getattr(value, field.name)
        if isinstance(inner, torch.Tensor) and inner.is_floating_point() and field.init:
            with contextlib.suppress(Exception):
                out.append((f"NaN in .{field.name}", dataclasses.replace(value, **{field.name: torch.full_like(
                    inner, math.nan)})))
            with contextlib.suppress(Exception):
                out.append((f"float32 .{field.name}", dataclasses.replace(value, **{field.name: inner.float()})))
    return out


def bad_values(valid) -> list[tuple[str, object]]:
    """Labelled bad values for a parameter whose valid value is ``valid``: type-specific ones first."""
    if isinstance(valid, torch.Tensor):
        specific = _tensor_variants(valid)
    elif isinstance(valid, np.ndarray):
        specific = _array_variants(valid)
    elif isinstance(valid, nn.Module):
        specific = _module_variants(valid)
    elif isinstance(valid, bool):
        specific = [("the string 'no'", "no"), ("the int 1", 1)]
    elif isinstance(valid, (int, np.integer)):
        specific = [("a float", float(valid) + 0.5), ("10**6", 10**6), ("2**63", 2**63)]
    elif isinstance(valid, (float, np.floating)):
        specific = [("-0.0", -0.0), ("1e-300", 1e-300), ("-1e300", -1e300)]
    elif isinstance(valid, str):
        specific = [("empty string", ""), ("unknown name", "no-such-choice")]
    elif _numeric_sequence(valid):
        specific = _sequence_variants(valid)
    elif dataclasses.is_dataclass(valid) and not isinstance(valid, type):
        specific = _dataclass_variants(valid)
    elif callable(valid) and not isinstance(valid, type):
        specific = _callable_variants(valid)
    else:
        specific = []
    return specific + _common()


def nan_paths(value, path: str = "result", depth: int = 0) -> list[str]:
    """Where ``value`` holds a NaN (at most 5 levels deep; the first 1000 entries of a container)."""
    if depth > 5:
        return []
    if isinstance(value, bool):
        return []
    if isinstance(value, (float, np.floating, complex, np.complexfloating)):
        return [path] if np.isnan(value) else []
    if isinstance(value, torch.Tensor):
        if value.device.type == "meta":
            return [f"{path} (a meta tensor: no values)"]
        if (value.is_floating_point() or value.is_complex()) and bool(torch.isnan(value.detach()).any()):
            return [path]
        return []
    if isinstance(value, np.ndarray):
        if value.dtype.kind in "fc" and bool(np.isnan(value).any()):
            return [path]
        if value.dtype.kind == "O":
            return [p for i, v in enumerate(value.flat[:1000]) for p in nan_paths(v, f"{path}[{i}]", depth + 1)]
        return []
    if isinstance(value, nn.Module):
        return [f"{path}.{name}" for name, p in value.named_parameters() if bool(torch.isnan(p.detach()).any())]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return [p for f in dataclasses.fields(value)
                for p in nan_paths(getattr(value, f.name, None), f"{path}.{f.name}", depth + 1)]
    if isinstance(value, Mapping):
        return [p for i, (k, v) in enumerate(value.items()) if i < 1000
                for p in nan_paths(v, f"{path}[{k!r}]", depth + 1)]
    if isinstance(value, (list, tuple)):
        return [p for i, v in enumerate(value[:1000]) for p in nan_paths(v, f"{path}[{i}]", depth + 1)]
    return []


@contextlib.contextmanager
def _limits():
    """Memory capped at :data:`MEMORY_LIMIT` above the current mapping; a :class:`Hang` after :data:`WALL_LIMIT`;
    one torch thread, so that the CPU time counts work, not the spinning of idle threads on a busy machine."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    with open("/proc/self/statm") as statm:
        mapped = int(statm.read().split()[0]) * resource.getpagesize()
    cap = mapped + MEMORY_LIMIT
    if hard != resource.RLIM_INFINITY:
        cap = min(cap, hard)
    resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
    main = threading.current_thread() is threading.main_thread()
    if main:
        def hang(signum, frame):
            raise Hang(f"still running after {WALL_LIMIT:.0f} s")
        previous = signal.signal(signal.SIGALRM, hang)
        signal.setitimer(signal.ITIMER_REAL, WALL_LIMIT)
    try:
        yield
    finally:
        if main:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
        torch.set_num_threads(threads)


def _names(message: str, name: str) -> bool:
    return re.search(rf"(?<![A-Za-z0-9_]){re.escape(name)}(?![A-Za-z0-9_])", message) is not None


def call(function: Callable, kwargs: Mapping, parameter: str | None = None, label: str = "valid") -> str | None:
    """Call ``function(**kwargs)`` under the limits; ``None`` when the outcome is acceptable, else what went wrong.

    ``parameter`` is the name of the parameter that holds a bad value (``None`` for a valid call, which must
    return a NaN-free result).
    """
    where = f"{getattr(function, '__qualname__', function)}({parameter or ''}={label})" if parameter else \
        f"{getattr(function, '__qualname__', function)}(valid call)"
    dtype = torch.get_default_dtype()
    start = time.process_time()
    try:
        with _limits():
            result = function(**kwargs)
    except (TypeError, ValueError) as error:
        if parameter is None:
            return f"{where}: raised {type(error).__name__}: {error}"
        if not _names(str(error), parameter):
            return f"{where}: {type(error).__name__} does not name {parameter!r}: {str(error)[:300]}"
        result = None
    except Hang as error:
        return f"{where}: {error}"
    except BaseException as error:
        if isinstance(error, KeyboardInterrupt):
            raise
        return f"{where}: raised {type(error).__name__}: {str(error)[:300]}"
    finally:
        torch.set_default_dtype(dtype)
    seconds = time.process_time() - start
    if seconds > CPU_LIMIT:
        return f"{where}: took {seconds:.1f} s of CPU time (limit {CPU_LIMIT:.0f} s)"
    found = nan_paths(result)
    if found:
        return f"{where}: returned NaN at {', '.join(found[:5])}"
    return None


def parameters(function: Callable, valid: Mapping) -> dict[str, object]:
    """The parameters to fuzz with their valid values: those of the valid call, then every defaulted one."""
    signature = inspect.signature(function)
    out = dict(valid)
    for name, p in signature.parameters.items():
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) or name in out:
            continue
        if p.default is not p.empty:
            out[name] = p.default
    return out

