"""Chapter 2: deep ReLU networks written out layer by layer, so that their resources are counted, not claimed.

A network with hidden layers :math:`h_\\ell = \\rho(A_\\ell h_{\\ell-1} + b_\\ell)` is built one layer at a
time. Between layers every quantity the construction needs is a :class:`Values`: rows of an affine map of
the current layer's neurons (or of the input). :meth:`LayeredNetwork.layer` turns groups of such rows into
the next layer's neurons, :meth:`LayeredNetwork.gadgets` runs networks of :mod:`nnproofs.gadgets` side by
side while other values are carried, one ReLU per layer each (:math:`\\rho(v)` for :math:`v \\ge 0`,
:math:`\\rho(v), \\rho(-v)` for a signed :math:`v`). The result, :class:`ExplicitNetwork`, holds the
affine maps as sparse float64 matrices: its width, depth and nonzero parameters are read off them
(:meth:`ExplicitNetwork.architecture`), it evaluates itself layer by layer, and small ones become a
``torch.nn.Sequential`` of ``Linear`` and ``ReLU`` layers (:meth:`ExplicitNetwork.to_sequential`).
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import nn

from ..networks import Architecture, affine_maps, relu_network

MAX_SEQUENTIAL_ENTRIES = 1 << 24  # to_sequential refuses dense matrices with more entries in all


class Values:
    """``rows`` affine functions :math:`v = A h + b` of the current layer's neurons :math:`h`: ``weight`` ``(rows, n)``, ``bias`` ``(rows,)``."""

    def __init__(self, weight: torch.Tensor, bias: torch.Tensor):
        self.weight, self.bias = weight, bias

    @property
    def rows(self) -> int:
        return self.weight.shape[0]

    def __getitem__(self, index) -> Values:
        index = [index] if isinstance(index, int) else index
        return Values(self.weight[index], self.bias[index])

    def __add__(self, other) -> Values:
        if isinstance(other, Values):
            return Values(self.weight + other.weight, self.bias + other.bias)
        return Values(self.weight, self.bias + other)

    __radd__ = __add__

    def __neg__(self) -> Values:
        return Values(-self.weight, -self.bias)

    def __sub__(self, other) -> Values:
        return self + (-other)

    def __rsub__(self, other) -> Values:
        return (-self) + other

    def __mul__(self, scale) -> Values:
        scale = torch.as_tensor(scale, dtype=self.weight.dtype, device=self.weight.device)
        column = scale[:, None] if scale.ndim == 1 else scale
        return Values(self.weight * column, self.bias * scale)

    __rmul__ = __mul__

    def combine(self, matrix: torch.Tensor) -> Values:
        """The rows ``matrix @ v``: linear combinations of these values."""
        matrix = matrix.to(self.weight)
        return Values(matrix @ self.weight, matrix @ self.bias)

    def sum(self) -> Values:
        return Values(self.weight.sum(0, keepdim=True), self.bias.sum(0, keepdim=True))

    @staticmethod
    def cat(*parts: Values) -> Values:
        return Values(torch.cat([p.weight for p in parts]), torch.cat([p.bias for p in parts]))

    def constant(self, values) -> Values:
        """Constant rows ``values`` (no neuron read) beside these."""
        values = torch.as_tensor(values, dtype=self.weight.dtype, device=self.weight.device).reshape(-1)
        return Values(self.weight.new_zeros(values.numel(), self.weight.shape[1]), values)


class ExplicitNetwork(nn.Module):
    """A ReLU network given by its affine maps ``(A_l, b_l)`` (sparse ``A_l``), with the name of every hidden layer."""

    def __init__(self, maps: Sequence[tuple[torch.Tensor, torch.Tensor]], names: Sequence[str]):
        super().__init__()
        if len(names) != len(maps) - 1:
            raise ValueError(f"names must name the {len(maps) - 1} hidden layers, got {len(names)}")
        self.maps = [(w if w.is_sparse else w.to_sparse(), b) for w, b in maps]
        self.names = list(names)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """The network at ``x`` ``(n, inputs)``, of its weights' dtype: ``(n, outputs)``, one sparse matrix product per layer."""
        inputs, dtype = self.maps[0][0].shape[1], self.maps[0][1].dtype
        if not isinstance(x, torch.Tensor) or x.ndim != 2 or x.shape[1] != inputs:
            shape = tuple(x.shape) if isinstance(x, torch.Tensor) else type(x).__name__
            raise ValueError(f"x must be a tensor of shape (n, {inputs}), got {shape}")
        if x.dtype != dtype:
            raise TypeError(f"x must have the weights' dtype {dtype}, got {x.dtype}")
        h = x.T
        for w, b in self.maps[:-1]:
            h = torch.relu(torch.sparse.mm(w, h) + b[:, None])
        w, b = self.maps[-1]
        return (torch.sparse.mm(w, h) + b[:, None]).T

    def layer_sizes(self) -> list[tuple[str, int, int]]:
        """``(name, neurons, nonzero parameters)`` of every hidden layer, and of the output map (named ``output``)."""
        names = self.names + ["output"]
        return [(name, w.shape[0], int((w.values() != 0).sum()) + int((b != 0).sum()))
                for name, (w, b) in zip(names, self.maps)]

    def architecture(self) -> Architecture:
        """Depth (hidden layers), width (widest hidden layer) and parameters, counted on the maps."""
        sizes = self.layer_sizes()
        return Architecture(depth=len(sizes) - 1, width=max((n for _, n, _ in sizes[:-1]), default=0),
                            parameters=sum(w.shape[0] * w.shape[1] + b.numel() for w, b in self.maps),
                            nonzero_parameters=sum(z for _, _, z in sizes))

    def to_sequential(self) -> nn.Sequential:
        """``Sequential(Linear, ReLU, ..., Linear)`` with the same maps (dense; small networks only)."""
        entries = sum(w.shape[0] * w.shape[1] for w, _ in self.maps)
        if entries > MAX_SEQUENTIAL_ENTRIES:
            raise ValueError(f"the dense network would hold {entries} weights; to_sequential allows at most "
                             f"{MAX_SEQUENTIAL_ENTRIES}")
        return relu_network([(w.to_dense(), b) for w, b in self.maps])


class LayeredNetwork:
    """Builds an :class:`ExplicitNetwork` one hidden layer at a time (see the module's docstring)."""

    def __init__(self, inputs: int, *, device=None):
        self.maps: list[tuple[torch.Tensor, torch.Tensor]] = []
        self.names: list[str] = []
        self.size = inputs
        self.device = device

    def inputs(self) -> Values:
        eye = torch.eye(self.size, dtype=torch.float64, device=self.device)
        return Values(eye, eye.new_zeros(self.size))

    def layer(self, name: str, *groups: Values) -> list[Values]:
        """A hidden layer of the neurons :math:`\\rho(v)`, ``v`` the rows of ``groups``; returns each group's neurons."""
        pre = Values.cat(*groups)
        if pre.weight.shape[1] != self.size:
            raise ValueError(f"layer {name!r}: values read {pre.weight.shape[1]} neurons, the current layer has {self.size}")
        self.maps.append((pre.weight.to_sparse(), pre.bias))
        self.names.append(name)
        self.size = pre.rows
        eye = torch.eye(self.size, dtype=torch.float64, device=self.device)
        out, start = [], 0
        for group in groups:
            out.append(Values(eye[start : start + group.rows], eye.new_zeros(group.rows)))
            start += group.rows
        return out

    def carry(self, name: str, *values: Values, signed: Sequence[bool] = ()) -> list[Values]:
        """One layer that only carries ``values`` (a signed one as :math:`\\rho(v) - \\rho(-v)`)."""
        return self.gadgets(name, [], values, signed=signed)[1]

    def gadgets(self, name: str, runs: Sequence[tuple[nn.Sequential, Values]], carried: Sequence[Values] = (),
                *, signed: Sequence[bool] = ()) -> tuple[list[Values], list[Values]]:
        """Gadgets of equal depth side by side, each applied to its input values, while ``carried`` values ride along.

        Each gadget's first affine map reads its inputs' rows (fused with them), its hidden layers follow, and its
        output map is returned as :class:`Values` of the last layer; a carried value takes one ReLU per layer
        (two if its flag in ``signed`` is set). Returns (gadget outputs, carried values).
        """
        signed = list(signed) + [False] * (len(carried) - len(signed))
        maps = [affine_maps(net) for net, _ in runs]
        depths = {len(m) - 1 for m in maps}
        if len(depths) > 1:
            raise ValueError(f"gadgets run side by side need equal depths, got {sorted(depths)}")
        depth = depths.pop() if depths else 1
        inputs = [Values(m[0][0].to(v.weight) @ v.weight, m[0][0].to(v.weight) @ v.bias + m[0][1].to(v.weight))
                  for m, (_, v) in zip(maps, runs)]
        state = [Values.cat(v, -v) if s else v for v, s in zip(carried, signed)]
        for index in range(depth):
            groups = self.layer(f"{name} {index + 1}" if depth > 1 else name, *inputs, *state)
            hidden, state = groups[: len(runs)], groups[len(runs):]
            following = [m[index + 1] for m in maps]
            inputs = [Values(w.to(h.weight) @ h.weight, w.to(h.weight) @ h.bias + b.to(h.weight))
                      for (w, b), h in zip(following, hidden)]
        carried_out = [Values(v.weight[: v.rows // 2] - v.weight[v.rows // 2 :], v.bias[: v.rows // 2] - v.bias[v.rows // 2 :])
                       if s else v for v, s in zip(state, signed)]
        return inputs, carried_out

    def finish(self, output: Values) -> ExplicitNetwork:
        return ExplicitNetwork(self.maps + [(output.weight.to_sparse(), output.bias)], self.names)

    @classmethod
    def resume(cls, network: ExplicitNetwork) -> tuple[LayeredNetwork, Values]:
        """A builder whose current layer is ``network``'s last hidden layer, and ``network``'s outputs as :class:`Values`."""
        builder = cls(network.maps[0][0].shape[1], device=network.maps[0][1].device)
        builder.maps = list(network.maps[:-1])
        builder.names = list(network.names)
        builder.size = network.maps[-1][0].shape[1]
        w, b = network.maps[-1]
        return builder, Values(w.to_dense(), b)


def side_by_side(*networks: ExplicitNetwork, names: Sequence[str]) -> ExplicitNetwork:
    """Networks on the same input side by side, their outputs concatenated.

    The shallower ones carry their outputs to the common depth, one ReLU per output and layer, so every output
    must be non-negative. Hidden layers are stacked block-diagonally, the first maps read the shared input.
    """
    depth = max(len(n.maps) - 1 for n in networks)
    padded = []
    for net, label in zip(networks, names):
        builder, out = LayeredNetwork.resume(net)
        for index in range(depth - (len(net.maps) - 1)):
            (out,) = builder.layer(f"{label}: carried output {index + 1}", out)
        padded.append(builder.finish(out))
    maps = []
    for index in range(depth + 1):
        blocks = [n.maps[index] for n in padded]
        rows, columns, indices, values = 0, 0, [], []
        for w, _ in blocks:
            w = w.coalesce()
            offset = torch.tensor([[rows], [0 if index == 0 else columns]], device=w.device)
            indices.append(w.indices() + offset)
            values.append(w.values())
            rows, columns = rows + w.shape[0], columns + w.shape[1]
        shape = (rows, blocks[0][0].shape[1] if index == 0 else columns)
        weight = torch.sparse_coo_tensor(torch.cat(indices, 1), torch.cat(values), shape, check_invariants=True).coalesce()
        maps.append((weight, torch.cat([b for _, b in blocks])))
    labels = [" | ".join(n.names[i] for n in padded) for i in range(depth)]
    return ExplicitNetwork(maps, labels)
