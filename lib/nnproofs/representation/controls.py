"""Chapter 3: negative controls of the representation, each saying what it breaks and which requirement catches it.

* :func:`unsharpened_control` (broken: no backward heat flow) and :func:`forward_heat_control` (broken: the wrong
  direction): their mean is not :math:`f`; the rate check's slope and median ratio reject them;
* :func:`bias_sign_control` (broken: biases :math:`+S`): infinite variance; the rate check's sign and ratio
  requirements and the unbiasedness check's pooled prediction reject it;
* :func:`mean_scaled_control` (near miss: outputs times :math:`c`): the unbiasedness check rejects :math:`|c - 1| \\ge 0.1`
  from the sampling too (its mean of :math:`z^2`), besides the exact identity.

Every control fails :meth:`SharpenedRepresentation.represents_target`, so :func:`check_dimension_stability` rejects it.
"""

from __future__ import annotations

from collections.abc import Callable

from ..validate import finite_real
from .sampling import SharpenedRepresentation, _build


def unsharpened_control(poly, variables, *, sigma: float = 1.0, inputs: str = "sphere") -> SharpenedRepresentation:
    """Broken control: no backward heat flow, :math:`q_k = f_k`.

    For :math:`x_1^2` the networks converge to :math:`x_1^2 + |x|^2/2`, whatever :math:`\\sigma` is; the rate check's
    slope and median ratio reject it.

    Parameters
    ----------
    poly, variables, sigma, inputs
        As for :func:`sharpened_representation`.

    Returns
    -------
    SharpenedRepresentation
        Whose :meth:`~SharpenedRepresentation.represents_target` is False.
    """
    return _build(poly, variables, sigma=sigma, beta=None, inputs=inputs, kernel="unsharpened")


def forward_heat_control(poly, variables, *, sigma: float = 1.0, inputs: str = "sphere") -> SharpenedRepresentation:
    """Broken control: forward heat flow :math:`e^{+\\sigma^2\\Delta/2}f_k` in place of the backward one.

    For :math:`x_1^2` the networks converge to :math:`x_1^2 + |x|^2`; the rate check's slope and median ratio reject it.

    Parameters
    ----------
    poly, variables, sigma, inputs
        As for :func:`sharpened_representation`.

    Returns
    -------
    SharpenedRepresentation
        Whose :meth:`~SharpenedRepresentation.represents_target` is False.
    """
    return _build(poly, variables, sigma=sigma, beta=None, inputs=inputs, kernel="forward heat")


def bias_sign_control(poly, variables, *, sigma: float = 1.0, inputs: str = "sphere") -> SharpenedRepresentation:
    """Broken control: neurons :math:`\\rho(\\langle W, x\\rangle + S)`, bias :math:`+S \\ge 0`.

    Not a representation of :math:`f`, and of infinite variance: the rate check's sign and ratio requirements and
    the unbiasedness check's pooled prediction reject it.

    Parameters
    ----------
    poly, variables, sigma, inputs
        As for :func:`sharpened_representation`.

    Returns
    -------
    SharpenedRepresentation
        Whose :meth:`~SharpenedRepresentation.represents_target` is False.
    """
    return _build(poly, variables, sigma=sigma, beta=None, inputs=inputs, bias_sign=+1.0)


def mean_scaled_control(scale: float) -> Callable[..., SharpenedRepresentation]:
    """Near-miss control: a ``build`` whose networks have every output weight times ``scale``.

    Their mean is :math:`f_0 + c(f - f_0)`, :math:`c =` ``scale``; the second moments and the prediction stay the
    correct construction's, so of the sampled checks only :func:`check_unbiasedness` sees :math:`|c - 1| = 0.1`, in
    its mean of :math:`z^2`; its fields fail :meth:`SharpenedRepresentation.represents_target`, which FAILS it
    whatever the sampling says.

    Parameters
    ----------
    scale : float
        :math:`c > 0`, :math:`c \\ne 1`.

    Returns
    -------
    callable
        ``build(poly, variables, *, sigma=1.0, inputs="sphere") -> SharpenedRepresentation``, for the ``build``
        argument of the checks.

    Examples
    --------
    >>> from nnproofs import representation as rep
    >>> rep.mean_scaled_control(1.1).__name__
    'mean_scaled_control(1.1)'
    """
    scale = finite_real("scale", scale)
    if scale <= 0 or scale == 1:
        raise ValueError(f"scale must be > 0 and != 1 (1 is the correct construction), got {scale!r}")

    def build(poly, variables, *, sigma: float = 1.0, inputs: str = "sphere") -> SharpenedRepresentation:
        return _build(poly, variables, sigma=sigma, beta=None, inputs=inputs, output_scale=scale)

    build.__name__ = f"mean_scaled_control({scale:g})"
    return build
