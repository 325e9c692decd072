"""Chapter 2, lemma ``lem-bit-extraction``: the binary digits of a word read by a ReLU network.

:func:`bit_extract` returns the :math:`B` digits of :math:`y = \\sum_{j=1}^B \\theta_j 2^{-j}` with two ReLU
layers per digit, exact in float64 for :math:`B \\le 53` (24 in float32); :func:`pack_bits` is its inverse.
"""

from __future__ import annotations

import torch

from ..validate import positive_int
from .sizes import MAX_BITS


def complement_bits(words: torch.Tensor, bits: int):
    """Yield :math:`b_j = 1 - \\theta_j`, ``j = 1..bits``, for words :math:`y = \\sum_j \\theta_j 2^{-j}`.

    Two ReLU layers per digit, with :math:`y_1 = y` and :math:`y_{j+1} = 2 y_j - \\theta_j` on the
    lattice :math:`2^{-(B-j+1)}\\mathbb Z`:

    .. math::

        a_j = \\rho\\big(2^{B-j+1}(y_j - \\tfrac12) + 1\\big) \\in \\mathbb Z_{\\ge 0},

        b_j = \\rho(1 - a_j) = [y_j < \\tfrac12],

    where :math:`a_{j+1}` is one affine map of :math:`(y_j, b_j)` and :math:`y_{j+1} = \\rho(2y_j + b_j - 1)`
    is carried beside it. The pre-activations of :math:`a` are integers (and all their partial
    sums are integers) below :math:`2^B` in magnitude, and :math:`y_j` stays on its lattice, so
    every operation is exact for :math:`B \\le 53` (float64) or 24 (float32); with the scale
    :math:`2^{B-j+1}` the lattice points on either side of :math:`\\tfrac12` land on pre-activations
    :math:`\\ge 1` and :math:`\\le 0`.

    Parameters
    ----------
    words : torch.Tensor
        Shape ``(n,)``, words of at most ``bits`` binary digits in :math:`[0, 1)` (not validated here:
        :func:`bit_extract` validates them).
    bits : int
        The number :math:`B` of digits.

    Yields
    ------
    torch.Tensor
        :math:`b_j`, shape ``(n,)``, for :math:`j = 1, \\dots, B`.

    Examples
    --------
    >>> import torch
    >>> from nnproofs import korobov
    >>> [b.tolist() for b in korobov.complement_bits(torch.tensor([0.75], dtype=torch.float64), 2)]
    [[0.0], [0.0]]
    """
    y = words
    b = None
    for j in range(bits):
        scale = 2.0 ** (bits - j)
        if b is None:
            a = torch.relu(scale * y - scale / 2 + 1)
        else:  # a_{j+1} from layer j's neurons: 2^(B-j)(2y_j - theta_j - 1/2) + 1 with theta_j = 1 - b_j
            a = torch.relu(2 * scale * y + scale * b - 1.5 * scale + 1)
            y = torch.relu(2 * y + b - 1)
        b = torch.relu(1 - a)
        yield b


def bit_extract(words: torch.Tensor, bits: int) -> torch.Tensor:
    """The binary digits :math:`\\theta_1..\\theta_B` of :math:`y = \\sum_{j=1}^B \\theta_j 2^{-j}` (``lem-bit-extraction``).

    Realised by the ReLU network of :func:`complement_bits`: depth :math:`2B`, width at most :math:`B + 1`
    when every digit is carried to the output, exact for every word.

    Parameters
    ----------
    words : torch.Tensor
        Shape ``(n,)``, float64 (``bits <= 53``) or float32 (``bits <= 24``), in :math:`[0, 1)`, with at most
        ``bits`` binary digits; anything else is refused, since the digits of a word that float arithmetic
        cannot hold are not defined.
    bits : int
        The number :math:`B` of digits.

    Returns
    -------
    torch.Tensor
        Shape ``(n, B)``, the digits 0 or 1.

    Examples
    --------
    >>> import torch
    >>> from nnproofs import korobov
    >>> korobov.bit_extract(torch.tensor([0.625], dtype=torch.float64), 3)
    tensor([[1., 0., 1.]], dtype=torch.float64)
    """
    if not isinstance(words, torch.Tensor) or words.dtype not in MAX_BITS:
        raise TypeError(f"words must be a float64 or float32 torch.Tensor, got "
                        f"{getattr(words, 'dtype', type(words).__name__)}")
    if words.ndim != 1 or words.device.type == "meta":
        raise ValueError(f"words must hold values of shape (n,), got {tuple(words.shape)} on {words.device}")
    positive_int("bits", bits)
    limit = MAX_BITS[words.dtype]
    if bits > limit:
        raise ValueError(f"bits={bits} exceeds the {limit} binary digits a {str(words.dtype)[6:]} word holds "
                         f"exactly; allowed: 1..{limit}")
    outside = (words < 0) | (words >= 1) | ~torch.isfinite(words)
    if bool(outside.any()):
        i = int(outside.nonzero()[0])
        raise ValueError(f"words must lie in [0, 1); words[{i}] = {float(words[i])!r}")
    longer = torch.frac(words * 2.0**bits) != 0
    if bool(longer.any()):
        i = int(longer.nonzero()[0])
        raise ValueError(f"words must have at most bits={bits} binary digits; words[{i}] = {float(words[i])!r} has more")
    return torch.stack([1 - b for b in complement_bits(words, bits)], dim=1)


def pack_bits(digits: torch.Tensor) -> torch.Tensor:
    """:math:`y = \\sum_{j=1}^B \\theta_j 2^{-j}`: the inverse of :func:`bit_extract`.

    Parameters
    ----------
    digits : torch.Tensor
        Shape ``(n, B)``, entries 0 or 1, :math:`B \\le 53` (longer words would be rounded: refused).

    Returns
    -------
    torch.Tensor
        Shape ``(n,)``, float64, exact.

    Examples
    --------
    >>> import torch
    >>> from nnproofs import korobov
    >>> korobov.pack_bits(torch.tensor([[1.0, 0.0, 1.0]]))
    tensor([0.6250], dtype=torch.float64)
    """
    if not isinstance(digits, torch.Tensor) or digits.ndim != 2 or digits.device.type == "meta":
        raise ValueError(f"digits must be an (n, B) tensor, got {getattr(digits, 'shape', type(digits).__name__)}")
    if digits.shape[1] > MAX_BITS[torch.float64]:
        raise ValueError(f"digits has B={digits.shape[1]} columns; a float64 word holds at most 53 digits exactly")
    if not bool(((digits == 0) | (digits == 1)).all()):
        raise ValueError("digits must be 0 or 1")
    weights = torch.exp2(-torch.arange(1, digits.shape[1] + 1, dtype=torch.float64, device=digits.device))
    return digits.to(torch.float64) @ weights

