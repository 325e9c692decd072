"""Bias-free shallow ReLU networks ``f(x) = Σ_j a_j ρ(w_j · x)`` with ``‖w_j‖ ≤ 1``, and the cost ``C(θ)`` of
definition ``def-barrier-cost``, with the validation of their inputs."""

from __future__ import annotations

import math

import numpy as np
import torch
from torch import nn
from torch.nn.modules import module as torch_module
from torch.nn.utils import parametrize

from ..networks import affine_maps
from ..validate import finite_real
from . import costs
from .losses import Loss, get_loss

Network = tuple[torch.Tensor, torch.Tensor]
LAMBDA = 1e-3  # ℓ1 weight on the output layer in the chapter's experiments
MAX_LR = 10.0  # Adam's learning rate in train_networks and bezier_paths: at most this (larger ones overflow)
X_RANGE = (2.0**-500, 2.0**500)  # the largest |x_ij| of each non-zero row: outside, ‖x_i‖² under- or overflows
UNIT_ROUNDOFF = 2.0**-53  # u: float64 rounds every operation to a relative error of at most this
SMALLEST_SUBNORMAL = 2.0**-1074  # η: below 2^-1022 float64 rounds to an absolute error of at most η/2
# J_i's margin for pre-activations' absolute underflow errors (below c·η for any c < 2^52): a normal number, since
# arithmetic on subnormal operands is an order of magnitude slower on common CPUs
UNDERFLOW_MARGIN = 2.0**-1021
FEASIBILITY_RTOL = 1e-12  # ‖w_j‖ ≤ 1 + this: the projection w / max(1, ‖w‖) overshoots by an ulp at most
CHUNK_ELEMENTS = {"cpu": 1 << 18, "cuda": 1 << 24}  # parameter sets × hidden units × data points at once:
#   on a CPU the (sets, m, N) hidden activations should stay in cache (2 MiB); a GPU wants large batches


def _choice(name: str, value, allowed: tuple[str, ...]) -> str:
    if not isinstance(value, str) or value not in allowed:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, allowed))}, got {value!r}")
    return value


def _float64(name: str, value) -> torch.Tensor:
    if isinstance(value, np.ndarray):
        value = torch.from_numpy(value)
    if type(value) not in (torch.Tensor, nn.Parameter):
        # exact types: a tensor subclass can change what relu, matmul or mean compute
        raise TypeError(f"{name} must be a torch tensor (or numpy array), not a subclass, got {type(value).__name__}")
    if not (value.is_floating_point() or value.dtype in (torch.int32, torch.int64)):
        raise TypeError(f"{name} must hold real numbers, got dtype {value.dtype}")
    if value.device.type == "meta":
        raise ValueError(f"{name} is on the meta device (a shape without values); the construction needs values:"
                         " put it on 'cpu' or 'cuda'")
    value = value.detach().to(torch.float64)
    if not bool(torch.isfinite(value).all()):
        raise ValueError(f"{name} contains NaN or inf")
    return value


_HOOKS = ("_forward_hooks", "_forward_pre_hooks", "_backward_hooks", "_backward_pre_hooks")


def _plain(name: str, net: nn.Module) -> None:
    """Refuse a module whose output is not ``Linear, ReLU, Linear`` applied in turn: a parametrization (its
    weights are computed), a subclass (its own ``forward``), a ``forward`` set on the instance or a hook (on a
    module or global)."""
    modules = [net, *net] if isinstance(net, nn.Sequential) else [net]
    for label, module in zip([name, *(f"{name}[{i}]" for i in range(len(modules) - 1))], modules):
        if parametrize.is_parametrized(module):
            raise ValueError(f"{label} has a parametrization (its weights are computed); pass (W, a) instead")
        allowed = (nn.Sequential,) if module is net else (nn.Linear, nn.ReLU)
        if type(module) not in allowed:
            raise TypeError(f"{label} must be exactly {' or '.join(t.__name__ for t in allowed)} (a subclass may"
                            f" change forward), got {type(module).__name__}")
        if any(getattr(module, hooks) for hooks in _HOOKS):
            raise ValueError(f"{label} has hooks, which may change its output; remove them")
        if "forward" in vars(module):
            raise ValueError(f"{label} has its forward replaced on the instance, which may change its output")
    if any(getattr(torch_module, f"_global{hooks}") for hooks in _HOOKS):
        raise ValueError(f"{name}: global module hooks are registered, which may change its output; remove them")


def as_network(name: str, net) -> Network:
    """A network as float64 tensors ``(W (m, n), a (m,))`` of a feasible bias-free shallow ReLU network.

    Parameters
    ----------
    name : str
        How error messages call the network.
    net : (W, a) or torch.nn.Sequential
        A pair of tensors, or ``Sequential(Linear(n, m), ReLU(), Linear(m, 1))`` with zero biases, built
        from exactly these module types, with no hooks and no parametrizations.

    Returns
    -------
    W : tensor (m, n), float64
    a : tensor (m,), float64, on ``W``'s device

    Raises
    ------
    TypeError, ValueError
        Another type, biases (lift the inputs to ``(x, 1)``: a bias is a weight on a constant input),
        mismatched shapes, non-finite entries, ``‖w_j‖ > 1`` beyond ``FEASIBILITY_RTOL``, or a non-zero row
        whose largest entry is below ``2**-500`` (its norm is not exact in float64).

    Examples
    --------
    >>> import torch
    >>> from nnproofs import barrier
    >>> W, a = barrier.as_network("A", (torch.eye(2), torch.ones(2)))
    >>> W.dtype, tuple(a.shape)
    (torch.float64, (2,))

    Notes
    -----
    A module's weights are read from its affine maps, never through its ``forward`` (design rule 9).
    Budget: linear in the network's size (already in memory).
    """
    if not isinstance(name, str):
        raise TypeError(f"name must be a str (how errors call the network), got {type(name).__name__}")
    if name != "net":
        name = f"net {name}"
    if isinstance(net, nn.Module):
        _plain(name, net)
        maps = affine_maps(net, name)
        if len(maps) != 2 or maps[1][0].shape[0] != 1:
            raise ValueError(f"{name} must have one hidden layer and one output, got {len(maps) - 1} hidden layers")
        (weight, bias), (out_weight, out_bias) = maps
        if bool((bias != 0).any()) or bool((out_bias != 0).any()):
            raise ValueError(f"{name} has biases, where the construction has none; a network with biases is a"
                             " bias-free network on the lifted inputs (x, 1)")
        net = (weight, out_weight[0])
    if not isinstance(net, (tuple, list)):
        raise TypeError(f"{name} must be a pair (W, a) of tensors or a torch.nn.Sequential, got {type(net).__name__}")
    if len(net) == 3:
        raise ValueError(f"{name} has three parts (W, b, a): biases are not part of the construction; lift the"
                         " inputs to (x, 1) and pass (W with b as its last column, a)")
    if len(net) != 2:
        raise ValueError(f"{name} must be a pair (W, a), got {len(net)} parts")
    weight, out = _float64(f"{name}[0] (W)", net[0]), _float64(f"{name}[1] (a)", net[1])
    if weight.ndim != 2 or weight.shape[0] < 1 or weight.shape[1] < 1:
        raise ValueError(f"{name}: W must have shape (m, n) with m, n >= 1, got {tuple(weight.shape)}")
    if out.shape != (weight.shape[0],):
        raise ValueError(f"{name}: a must have shape ({weight.shape[0]},) to match W {tuple(weight.shape)},"
                         f" got {tuple(out.shape)}")
    peaks = weight.abs().amax(dim=1)
    tiny = ((peaks > 0) & (peaks < X_RANGE[0])).nonzero()
    if len(tiny):
        j = int(tiny[0])
        raise ValueError(f"{name}: row w_{j} of W has largest entry {float(peaks[j]):.3g}, below 2**-500 where"
                         " float64 takes its norm (‖w_j‖² is subnormal or 0, and spherizing w_j / ‖w_j‖ misses"
                         " the sphere or prunes a live unit); set the row to exact zero or rescale it")
    norms = weight.norm(dim=1)
    if bool((norms > 1 + FEASIBILITY_RTOL).any()):
        j = int(norms.argmax())
        given = net[0].dtype if isinstance(net[0], (torch.Tensor, np.ndarray)) else None
        low = given is not None and str(given).removeprefix("torch.") in ("float32", "float16", "bfloat16")
        hint = (f"; its W is {str(given).removeprefix('torch.')}, whose unit rows have norms up to about 1 + 1e-7:"
                " build W in float64 (W.double(), then W / W.norm(dim=1, keepdim=True).clamp(min=1))" if low else "")
        raise ValueError(f"{name} is infeasible: ‖w_{j}‖ = {float(norms[j]):.17g} > 1 (the construction needs"
                         f" ‖w_j‖ <= 1, up to {FEASIBILITY_RTOL:g}){hint}")
    return weight, out.to(weight.device)


def as_pair(A, B) -> tuple[Network, Network]:
    """Two networks to join, checked by :func:`as_network` and of the same shape.

    Parameters
    ----------
    A, B : (W, a) or torch.nn.Sequential
        The two networks.

    Returns
    -------
    (W_A, a_A), (W_B, a_B) : tuple of two networks
        float64 tensors, ``B`` moved to ``A``'s device.

    Raises
    ------
    ValueError
        As :func:`as_network`, or when the shapes differ.

    Examples
    --------
    >>> from nnproofs import barrier
    >>> A, B, x, y = barrier.tight_pair()
    >>> (WA, aA), (WB, aB) = barrier.as_pair(A, B)
    >>> WA.shape == WB.shape
    True

    Notes
    -----
    Budget: linear in the networks' size.
    """
    (WA, aA), (WB, aB) = as_network("A", A), as_network("B", B)
    if WA.shape != WB.shape:
        raise ValueError(f"A and B must have the same shape, got W {tuple(WA.shape)} and {tuple(WB.shape)}")
    return (WA, aA), (WB.to(WA.device), aB.to(WA.device))


_X_ONLY = object()


def _device(device):
    """``device`` checked: ``None`` (the data's or the book's device), a ``torch.device`` or a string naming one
    that this machine has."""
    if device is None:
        return None
    if not isinstance(device, (str, torch.device)):
        raise TypeError(f"device must be None, a str or a torch.device, got {type(device).__name__}")
    try:
        device = torch.device(device)
    except RuntimeError as error:
        raise ValueError(f"device {device!r} is not a device name: {error}") from None
    if device.type not in ("cpu", "cuda") or (device.type == "cuda" and not torch.cuda.is_available()):
        raise ValueError(f"device {str(device)!r} is not available here: use 'cpu' or an available 'cuda' device")
    return device


def _data(x, y=_X_ONLY, *, n: int | None = None, loss: str | None = None):
    x = _float64("x", x)
    if x.ndim != 2 or x.shape[0] < 1 or x.shape[1] < 1:
        raise ValueError(f"x must have shape (N, n) with N, n >= 1, got {tuple(x.shape)}")
    if n is not None and x.shape[1] != n:
        raise ValueError(f"x has {x.shape[1]} columns but the networks have input dimension n = {n}")
    peaks = x.abs().amax(dim=1)
    outside = ((peaks > 0) & ((peaks < X_RANGE[0]) | (peaks > X_RANGE[1]))).nonzero()
    if len(outside):
        i = int(outside[0])
        raise ValueError(f"x[{i}] has largest entry {float(peaks[i]):.3g}, outside [2**-500, 2**500] where float64"
                         " takes its norm (‖x_i‖² under- or overflows); rescale x")
    if y is _X_ONLY:
        return x
    y = _float64("y", y).to(x.device)
    if y.shape != (x.shape[0],):
        raise ValueError(f"y must have shape ({x.shape[0]},) to match x, got {tuple(y.shape)}")
    if loss == "bce" and not bool(((y >= 0) & (y <= 1)).all()):
        raise ValueError("y must lie in [0, 1] for the bce loss (labels or probabilities)")
    return x, y


def _lam(lam) -> float:
    lam = finite_real("lam", lam)
    if lam < 0:
        raise ValueError(f"lam must be >= 0 (the ℓ1 weight), got {lam!r}")
    return lam


def _shapes(W, a, x, *, convert: bool = True):
    """``W, a, x`` checked (tensors, shapes, the budget of one forward pass) and, with ``convert``, as float64."""
    for name, value in (("W", W), ("a", a), ("x", x)):
        if not isinstance(value, torch.Tensor):
            raise TypeError(f"{name} must be a torch tensor, got {type(value).__name__}")
        if value.device.type == "meta":
            raise ValueError(f"{name} is on the meta device (a shape without values): put it on 'cpu' or 'cuda'")
    if W.ndim < 2 or x.ndim != 2 or W.shape[-1] != x.shape[1] or a.shape != W.shape[:-1]:
        raise ValueError(f"need W (..., m, n), a (..., m), x (N, n) with matching m and n; got W {tuple(W.shape)},"
                         f" a {tuple(a.shape)}, x {tuple(x.shape)}")
    sets = math.prod(W.shape[:-2])
    work, memory = costs.sampled(1, sets, W.shape[-2], W.shape[-1], x.shape[0])
    tables = 4 * 8.0 * sets * W.shape[-2] * x.shape[0]  # W xᵀ, σ(W xᵀ), J_i or autograd's copies: (sets, m, N), unchunked
    costs.refuse("W, a and x", (tuple(W.shape), tuple(x.shape)), work=work, memory=memory + tables)
    if not convert:
        return W, a, x
    x = _float64("x", x)
    return _float64("W", W).to(x.device), _float64("a", a).to(x.device), x


def forward(W: torch.Tensor, a: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
    """The network's outputs ``f(x_i) = Σ_j a_j ρ(w_j · x_i)`` for a batch of parameter sets.

    Parameters
    ----------
    W : tensor (..., m, n)
        First-layer weights, one ``(m, n)`` matrix per parameter set.
    a : tensor (..., m)
        Output weights.
    x : tensor (N, n)
        Inputs.

    Returns
    -------
    tensor (..., N)
        float64, on ``x``'s device.

    Examples
    --------
    >>> import torch
    >>> from nnproofs import barrier
    >>> W, a = torch.eye(2, dtype=torch.float64), torch.tensor([2.0, -1.0], dtype=torch.float64)
    >>> barrier.forward(W, a, torch.tensor([[1.0, 3.0]], dtype=torch.float64)).tolist()
    [-1.0]

    Notes
    -----
    No biases: the construction's networks are bias-free (:func:`as_network`). Budget: sets × m × N × (n + 1)
    multiply-adds within ``budget.work()``.
    """
    return _forward(*_shapes(W, a, x))


def _forward(W: torch.Tensor, a: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
    return _output(torch.relu(torch.matmul(W, x.T)), a)


def _output(active: torch.Tensor, a: torch.Tensor) -> torch.Tensor:
    """``f(x_i) = Σ_j a_j σ(w_j·x_i)`` from the activations ``active = σ(W xᵀ) (..., m, N)``."""
    return torch.matmul(a.unsqueeze(-2), active).squeeze(-2)


def function_roundoff(W: torch.Tensor, a: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
    """A bound on the float64 error of each computed ``f(x_i)``:
    ``e_i = c·u·(Σ_j |a_j| σ(w_j·x_i) + (1 + c·u) Σ_{j∈J_i} |a_j|‖w_j‖‖x_i‖ + μ Σ_j |a_j|)
    + c·η·(1 + Σ_j |a_j|(1 + √n‖x_i‖) + Σ_j ‖w_j‖‖x_i‖)``, ``c = m + n + 11``, ``u = 2⁻⁵³``, ``η = 2⁻¹⁰⁷⁴``,
    ``μ = 2⁻¹⁰²¹``, ``J_i = {j : w_j·x_i ≥ −c·u·‖w_j‖‖x_i‖ − μ}`` (the units not clearly inactive at ``x_i``;
    ``μ > c·η`` covers a pre-activation's underflow errors).

    Parameters
    ----------
    W, a, x
        As in :func:`forward`: ``W (..., m, n)``, ``a (..., m)``, ``x (N, n)``.

    Returns
    -------
    tensor (..., N)
        ``e_i`` per parameter set and data point, float64 on ``x``'s device (``w_j·x_i`` the computed
        pre-activation).

    Examples
    --------
    >>> import torch
    >>> from nnproofs import barrier
    >>> W, a = torch.eye(2, dtype=torch.float64), torch.tensor([2.0, -1.0], dtype=torch.float64)
    >>> x = torch.tensor([[1.0, -3.0]], dtype=torch.float64)
    >>> e = barrier.function_roundoff(W, a, x)
    >>> round(float(e[0]) / (15 * barrier.UNIT_ROUNDOFF * 2 * (1 + 10**0.5)), 12)
    1.0

    Notes
    -----
    Higham's bounds of inner products (*Accuracy and Stability of Numerical Algorithms*, §3.1; any order of
    the sums, with or without fused multiply-adds), ``γ_k = ku/(1 − ku) ≤ (k + 1)u``: the pre-activation is
    computed to ``γ_n Σ_k|w_jk||x_ik| ≤ γ_n‖w_j‖‖x_i‖`` (so its ReLU too), the output sum to
    ``γ_m Σ_j|a_j|σ(w_j·x_i)``. Two parameter sets that should give the same ``f`` (two samples of an exact
    segment, its curve rounded coordinate by coordinate; two sides of a joint, within ``JOINT_RTOL``, 4.5 ulps
    = 9u per parameter) differ in ``a_j σ(w_j·x_i)`` by at most ``9u|a_j|(|w_j·x_i| + ‖w_j‖‖x_i‖)``. So
    ``c = (m + 1) + (n + 1) + 9`` bounds ``|f̂(x_i) − f̂'(x_i)| ≤ e_i(θ) + e_i(θ')``. A unit below
    ``−c·u·‖w_j‖‖x_i‖`` is below 0 exactly too (``c ≥ n + 1``) and adds an exact 0, however large its
    ``a_j``; one at its activation boundary adds up to ``u|a_j|‖w_j‖‖x_i‖`` either side. Below ``2⁻¹⁰²²``
    (subnormal numbers) the relative model fails: each operation may add an absolute error of up to ``η/2``
    (Higham §2.1), in the ``n`` products of a pre-activation (carried by ``|a_j|``), in the ``m`` output terms,
    and in a subnormal parameter rounded along a segment (``η‖x_i‖₁|a_j| ≤ η√n‖x_i‖|a_j|`` for a row entry,
    ``η σ(w_j·x_i) ≤ η‖w_j‖‖x_i‖`` for an output weight); the second term bounds all of them, over every unit.
    Budget: as :func:`forward`.
    """
    W, a, x = _shapes(W, a, x)
    with torch.no_grad():
        pre = torch.matmul(W, x.T)
        return _bound(pre, torch.relu(pre), W, a, x)


def _bound(pre: torch.Tensor, active: torch.Tensor, W: torch.Tensor, a: torch.Tensor, x: torch.Tensor
           ) -> torch.Tensor:
    """:func:`function_roundoff` from the pre-activations ``pre = W xᵀ`` and ``active = σ(pre)``: ``W (..., m, n)``
    with ``a (..., m)``, or one ``W (m, n)`` shared by the rows of ``a (T, m)``. Two matrix products: ``|a|`` with
    ``active``, and ``|a_j|‖w_j‖`` with the indicator of ``J_i`` (no subnormal operand: they are slow on CPUs)."""
    m, n = W.shape[-2:]
    c = (m + n + 11) * UNIT_ROUNDOFF
    eta = (m + n + 11) * SMALLEST_SUBNORMAL
    norms, x_norms = W.norm(dim=-1), x.norm(dim=1)
    # J_i's indicator, in place (the audit's largest tables): w_j·x_i + c·u·‖w_j‖‖x_i‖ ≥ −μ, as 1.0 or 0.0
    near = torch.addcmul(pre, norms.unsqueeze(-1), x_norms, value=c).ge_(-UNDERFLOW_MARGIN)
    weights = a.abs().unsqueeze(-2)  # (..., 1, m)
    sigma = torch.matmul(weights, active).squeeze(-2)
    near = torch.matmul(weights * norms.unsqueeze(-2), near).squeeze(-2)
    mass = weights.sum(-1)  # Σ_j |a_j|, (..., 1)
    underflow = eta * (1 + mass * (1 + n**0.5 * x_norms) + norms.sum(-1).unsqueeze(-1) * x_norms)
    return c * (sigma + (1 + c) * near * x_norms + UNDERFLOW_MARGIN * mass) + underflow


def cost(W: torch.Tensor, a: torch.Tensor, x: torch.Tensor, y: torch.Tensor, *, loss: str, lam: float) -> torch.Tensor:
    """The cost ``C(θ) = mean_i ℓ(f_θ(x_i), y_i) + λ‖a‖₁`` of every parameter set of a batch.

    Parameters
    ----------
    W : tensor (..., m, n)
        First-layer weights (floating point).
    a : tensor (..., m)
        Output weights.
    x : tensor (N, n)
        Inputs.
    y : tensor (N,)
        Targets (in ``[0, 1]`` for ``bce``).
    loss : str
        A key of :data:`LOSSES`.
    lam : float
        The ℓ1 weight λ ≥ 0.

    Returns
    -------
    tensor (...)
        float64 on the data's device; autograd flows through ``W`` and ``a``.

    Examples
    --------
    >>> import torch
    >>> from nnproofs import barrier
    >>> W, a = torch.eye(2, dtype=torch.float64), torch.tensor([2.0, -1.0], dtype=torch.float64)
    >>> x, y = torch.tensor([[1.0, 3.0]], dtype=torch.float64), torch.zeros(1, dtype=torch.float64)
    >>> round(float(barrier.cost(W, a, x, y, loss="huber", lam=0.1)), 12)
    0.675

    Notes
    -----
    Huber with ``δ_H = 1/2`` at residual ``−1`` is ``δ_H(1 − δ_H/2) = 0.375``, plus ``0.1 · 3``.
    Budget: as :func:`forward`.
    """
    loss_fn, lam = get_loss(loss), _lam(lam)
    x, y = _data(x, y, loss=loss)
    _shapes(W, a, x, convert=False)
    if not (W.is_floating_point() and a.is_floating_point()):
        raise TypeError(f"W and a must be floating-point tensors (autograd flows through them), got {W.dtype}, {a.dtype}")
    if not (bool(torch.isfinite(W).all()) and bool(torch.isfinite(a).all())):
        raise ValueError("W and a must be finite (no NaN or inf)")
    W, a = W.to(x), a.to(x)  # float64 on the data's device
    _refuse_overflow(W.detach(), a.detach(), x, y, loss_fn, lam)
    return loss_fn(_forward(W, a, x), y).mean(-1) + lam * a.abs().sum(-1)


def _values(W, a, x, y, loss: Loss, lam: float, *, bound: bool = False):
    """Function values ``(T, N)`` and costs ``(T,)`` of ``T`` parameter sets, in memory-bounded chunks; with
    ``bound``, also their float64 error bounds ``(T, N)`` (:func:`function_roundoff`) from the same
    pre-activations."""
    _refuse_overflow(W, a, x, y, loss, lam)
    chunk = max(1, CHUNK_ELEMENTS.get(W.device.type, CHUNK_ELEMENTS["cpu"]) // (W.shape[-2] * x.shape[0]))
    fs, cs, rs = [], [], []
    with torch.no_grad():
        for start in range(0, W.shape[0], chunk):
            pre, ac = torch.matmul(W[start:start + chunk], x.T), a[start:start + chunk]
            active = torch.relu(pre)
            f = _output(active, ac)
            fs.append(f)
            cs.append(loss(f, y).mean(-1) + lam * ac.abs().sum(-1))
            if bound:
                rs.append(_bound(pre, active, W[start:start + chunk], ac, x))
    values = torch.cat(fs), torch.cat(cs)
    return (*values, torch.cat(rs)) if bound else values


def _values_at(W, a, x, y, loss: Loss, lam: float, *, bound: bool = False):
    """:func:`_values` of parameter sets ``(W, a_k)`` that share the first-layer weights ``W (m, n)``:
    ``σ(W xᵀ)`` once, then one matrix product for every ``a_k`` (rows of ``a (T, m)``)."""
    _refuse_overflow(W, a, x, y, loss, lam)
    with torch.no_grad():
        pre = torch.matmul(W, x.T)
        active = torch.relu(pre)
        f = torch.matmul(a, active)
        values = f, loss(f, y).mean(-1) + lam * a.abs().sum(-1)
        return (*values, _bound(pre, active, W, a, x)) if bound else values


def _refuse_overflow(W, a, x, y, loss: Loss, lam: float) -> None:
    """Refuse, naming the parameter, sizes whose function values, costs or round-off bounds overflow float64.

    ``|f(x_i)| ≤ Σ_j |a_j| ‖w_j‖ ‖x_i‖`` and ``ℓ(f, y) ≤ ℓ(0, y) + L |f|``: each term must stay below
    ``max float64 / (4 (N + m + n + 4))``, so that the sums and ``cost_roundoff`` stay finite."""
    limit = torch.finfo(torch.float64).max / (4 * (x.shape[0] + W.shape[-2] + W.shape[-1] + 4))
    with torch.no_grad():
        mass = float((a.abs() * W.norm(dim=-1)).sum(-1).max())
        reach = mass * float(x.norm(dim=1).max())
        fit = float(loss(torch.zeros_like(y)[None], y).max()) + loss.lipschitz * reach
        penalty = lam * float(a.abs().sum(-1).max())
    for name, value in (("the networks' output weights a", mass), ("x", reach), ("y", fit), ("lam", penalty)):
        if not value <= limit:
            raise ValueError(f"{name} too large for float64: the cost's terms reach {value:.3g} (at most {limit:.3g}"
                             " keeps its sums and round-off bound finite); scale it down")


def _generator(seed: int, device) -> torch.Generator:
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**63:
        raise ValueError(f"seed must be an int in [0, 2**63), got {seed!r:.60}")
    return torch.Generator(device=device).manual_seed(seed)
