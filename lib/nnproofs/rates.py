"""Log-log fits and the check result type behind every quantitative claim of the book.

A *rate* is the slope :math:`\\alpha` of :math:`\\log y = \\alpha \\log x + c` fitted by ordinary
least squares to measured pairs :math:`(x_i, y_i)`: an error that behaves like :math:`C x^{\\alpha}`
has slope :math:`\\alpha`. A :class:`RateCheck` records the data, the fit, what the theorem
predicts, the tolerance and whether every requirement holds, in a form that prints as a report,
fails loudly and serialises for the rates ledger.

Two senses of agreement are offered:

* two-sided (``sense="=="``): ``|measured - expected| <= tolerance``, "decays at this rate";
* one-sided (``sense="<="``): ``measured <= expected + tolerance``, "decays at least as fast as"
  when ``measured`` is a (negative) decay slope; ``sense=">="`` is the mirror image.
"""

from __future__ import annotations

import math
import textwrap
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from .validate import as_finite_array, finite_real

SENSES = ("==", "<=", ">=")
SUMMARY_WIDTH = 88  # characters: the code width of a book page


@dataclass(frozen=True)
class LogLogFit:
    """Least-squares fit of ``log y = slope * log x + intercept`` (natural logarithms)."""

    slope: float
    intercept: float
    slope_stderr: float
    r2: float
    n: int

    def __call__(self, x) -> np.ndarray:
        """The fitted power law ``exp(intercept) * x**slope``."""
        return np.exp(self.intercept) * np.asarray(x, dtype=np.float64) ** self.slope


def fit_loglog(x, y) -> LogLogFit:
    """Fit a power law ``y ~ C x^slope`` by least squares on ``(log x, log y)``.

    Returns the slope, the intercept ``log C``, the standard error of the slope
    (``sqrt(SSR / (n - 2) / Sxx)``, zero with two points) and the coefficient of determination r².
    Needs at least two points with distinct x, all x and y finite and positive.
    """
    x = as_finite_array("x", x, positive=True, min_size=2)
    y = as_finite_array("y", y, positive=True, min_size=2)
    if x.size != y.size:
        raise ValueError(f"x and y must have the same length, got {x.size} and {y.size}")
    lx, ly = np.log(x), np.log(y)
    sxx = float(np.sum((lx - lx.mean()) ** 2))
    if sxx == 0.0:
        raise ValueError(f"x must contain at least two distinct values, got {x.tolist()}")
    slope = float(np.sum((lx - lx.mean()) * (ly - ly.mean())) / sxx)
    intercept = float(ly.mean() - slope * lx.mean())
    residual = ly - (slope * lx + intercept)
    ssr = float(np.sum(residual**2))
    sst = float(np.sum((ly - ly.mean()) ** 2))
    stderr = math.sqrt(ssr / (x.size - 2) / sxx) if x.size > 2 else 0.0
    r2 = 1.0 - ssr / sst if sst > 0 else 1.0
    return LogLogFit(slope=slope, intercept=intercept, slope_stderr=stderr, r2=r2, n=int(x.size))


@dataclass(frozen=True)
class RateCheck:
    """The outcome of one executable claim.

    ``measured`` is compared with ``expected`` in ``sense`` within ``tolerance``; ``requirements``
    holds further statements the claim makes (e.g. "error equals 2^{-2m-2} within 1% for every m")
    with whether each held. ``passed`` is true when the rate and every requirement hold. A non-empty
    ``inconclusive`` says why the data cannot decide the claim (e.g. too few sizes above a round-off
    floor); such a check is neither passed nor failed, and ``passed`` is false.
    """

    name: str
    expected: float
    tolerance: float
    x: tuple[float, ...]
    y: tuple[float, ...]
    fit: LogLogFit
    measured: float
    passed: bool
    sense: str = "=="
    quantity: str = "log-log slope"
    requirements: Mapping[str, bool] = field(default_factory=dict)
    notes: Mapping[str, object] = field(default_factory=dict)
    inconclusive: str = ""

    @property
    def verdict(self) -> str:
        """``PASSED``, ``FAILED`` or ``INCONCLUSIVE``."""
        return "INCONCLUSIVE" if self.inconclusive else "PASSED" if self.passed else "FAILED"

    @property
    def rate_holds(self) -> bool:
        """Whether ``measured`` agrees with ``expected`` in the check's sense."""
        return _agrees(self.measured, self.expected, self.tolerance, self.sense)

    def requirement(self, *, compact: bool = False) -> str:
        """What the rate must satisfy, in words: ``-2 ± 0.02``, ``at most -0.9 (expected -1, one-sided)``.

        ``compact=True`` writes the one-sided forms as a table cell would: ``≤ -0.9 (expected -1)``.
        """
        if compact and self.sense != "==":
            bound = self.expected + self.tolerance if self.sense == "<=" else self.expected - self.tolerance
            return f"{'≤' if self.sense == '<=' else '≥'} {bound:.4g} (expected {self.expected:.4g})"
        return {
            "==": f"{self.expected:.4g} ± {self.tolerance:.3g}",
            "<=": f"at most {self.expected + self.tolerance:.4g} (expected {self.expected:.4g}, one-sided)",
            ">=": f"at least {self.expected - self.tolerance:.4g} (expected {self.expected:.4g}, one-sided)",
        }[self.sense]

    def summary(self) -> str:
        """Verdict, claim, measured beside required, how many further requirements held: one line, wrapped
        at ``SUMMARY_WIDTH`` characters (a book page's code width) with the continuation indented."""
        held = sum(self.requirements.values())
        further = f"; {held} of {len(self.requirements)} further requirements hold" if self.requirements else ""
        line = (f"{self.verdict}  {self.name}: {self.quantity} = {format_measured(self.measured)},"
                f" required {self.requirement()}{further}")
        return fold(line)

    def report(self) -> str:
        """A readable paragraph: what was measured, what was expected, what held.

        The verdict line and the measured line come first, whole; each further requirement, the fit and each
        note follow, folded to the book's code width (:func:`fold`), so that a long reading stays readable.
        """
        lines = [
            f"{self.name}: {self.verdict}" + (f" ({self.inconclusive})" if self.inconclusive else ""),
            f"  [{'ok' if self.rate_holds else 'X '}] {self.quantity} = {format_measured(self.measured)}, required {self.requirement()}",
        ]
        lines += [f"  [{'ok' if held else 'X '}] {text}" for text, held in self.requirements.items()]
        lines.append(
            f"  fit: slope {self.fit.slope:.4g} ± {self.fit.slope_stderr:.2g} (s.e.), r² = {self.fit.r2:.5f},"
            f" {self.fit.n} points, x from {min(self.x):.3g} to {max(self.x):.3g}"
        )
        lines += [f"  {key}: {_short(value)}" for key, value in self.notes.items()]
        return "\n".join(lines[:2] + [fold(line) for line in lines[2:]])

    def assert_passed(self) -> None:
        """Raise ``AssertionError`` with :meth:`report` unless the check passed."""
        if not self.passed:
            raise AssertionError(self.report())

    def __repr__(self) -> str:
        return (f"RateCheck({self.name!r}, {self.quantity} = {self.measured:#.4g}, required {self.requirement()},"
                f" passed={self.passed})")

    def to_dict(self) -> dict:
        """A JSON-ready dictionary (plain floats, lists and strings) for the ledger and GPU results."""
        return {
            "name": self.name,
            "quantity": self.quantity,
            "expected": float(self.expected),
            "tolerance": float(self.tolerance),
            "sense": self.sense,
            "measured": float(self.measured),
            "passed": bool(self.passed),
            "x": [float(v) for v in self.x],
            "y": [float(v) for v in self.y],
            "fit": {
                "slope": self.fit.slope,
                "intercept": self.fit.intercept,
                "slope_stderr": self.fit.slope_stderr,
                "r2": self.fit.r2,
                "n": self.fit.n,
            },
            "requirements": {text: bool(held) for text, held in self.requirements.items()},
            "notes": {key: _jsonable(value) for key, value in self.notes.items()},
            "inconclusive": self.inconclusive,
        }

    @classmethod
    def from_dict(cls, data: Mapping) -> RateCheck:
        """The check that :meth:`to_dict` wrote (notes come back as plain JSON values)."""
        fit = data["fit"]
        return cls(
            name=data["name"], expected=float(data["expected"]), tolerance=float(data["tolerance"]),
            x=tuple(data["x"]), y=tuple(data["y"]),
            fit=LogLogFit(slope=fit["slope"], intercept=fit["intercept"], slope_stderr=fit["slope_stderr"],
                          r2=fit["r2"], n=fit["n"]),
            measured=float(data["measured"]), passed=bool(data["passed"]), sense=data["sense"],
            quantity=data["quantity"], requirements=dict(data["requirements"]), notes=dict(data["notes"]),
            inconclusive=str(data.get("inconclusive", "")),
        )


def _agrees(measured: float, expected: float, tolerance: float, sense: str) -> bool:
    if sense == "==":
        return abs(measured - expected) <= tolerance
    if sense == "<=":
        return measured <= expected + tolerance
    return measured >= expected - tolerance


def fold(text: str, *, hanging: int = 4) -> str:
    """``text`` folded at ``SUMMARY_WIDTH`` characters (a book page's code width), line by line.

    Each line keeps its own leading spaces, and its continuations are indented ``hanging`` spaces more,
    so a report's ``[ok] ...`` lines or an indented list stay readable when folded.
    """
    folded = []
    for line in text.splitlines() or [""]:
        lead = line[: len(line) - len(line.lstrip(" "))]
        folded.append(textwrap.fill(line, SUMMARY_WIDTH, subsequent_indent=lead + " " * hanging,
                                    break_on_hyphens=False) or line)
    return "\n".join(folded)


def format_measured(value: float) -> str:
    """Four significant digits; an exact zero as ``0.0e+00``.

    A measured float that is exactly 0 on one CPU is often 1e-17 on another: printed as ``0.0e+00`` it
    is sanitized to ``ROUNDOFF`` by nbval like every number below 1e-12 (CONTRIBUTING.md).
    """
    return "0.0e+00" if value == 0.0 else f"{value:.4g}"


def _short(value: object) -> str:
    if isinstance(value, float):
        return format_measured(value)
    if isinstance(value, (list, tuple)) and value and all(isinstance(v, float) for v in value):
        return "[" + ", ".join(format_measured(v) for v in value) + "]"
    return str(value)


def _jsonable(value: object) -> object:
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, np.ndarray)):
        return [_jsonable(v) for v in value]
    if isinstance(value, (np.integer, int)) and not isinstance(value, bool):
        return int(value)
    if isinstance(value, (np.floating, float)):
        return float(value)
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    return str(value)


def rate_check(
    name: str,
    x: Sequence[float],
    y: Sequence[float],
    *,
    expected: float,
    tolerance: float,
    sense: str = "==",
    measured: float | None = None,
    quantity: str = "log-log slope",
    requirements: Mapping[str, bool] | None = None,
    notes: Mapping[str, object] | None = None,
    inconclusive: str = "",
) -> RateCheck:
    """Fit ``y`` against ``x`` on log-log axes and judge the claim.

    ``measured`` defaults to the fitted slope; pass another statistic (with ``quantity`` naming it)
    when the claim is about something else, e.g. a ratio between successive levels. A non-empty
    ``inconclusive`` (the reason) makes the verdict INCONCLUSIVE: not passed, whatever the rate.
    """
    if not isinstance(name, str) or not name:
        raise ValueError(f"name must be a non-empty string, got {name!r}")
    if sense not in SENSES:
        raise ValueError(f"sense={sense!r} is not allowed; use one of {', '.join(SENSES)}")
    expected, tolerance = finite_real("expected", expected), finite_real("tolerance", tolerance)
    if tolerance < 0:
        raise ValueError(f"tolerance must be >= 0, got {tolerance!r}")
    fit = fit_loglog(x, y)
    value = fit.slope if measured is None else finite_real("measured", measured)
    requirements = {str(k): bool(v) for k, v in (requirements or {}).items()}
    if not isinstance(inconclusive, str):
        raise TypeError(f"inconclusive must be a string (the reason, or empty), got {type(inconclusive).__name__}")
    passed = _agrees(value, float(expected), float(tolerance), sense) and all(requirements.values()) and not inconclusive
    return RateCheck(
        name=name,
        expected=float(expected),
        tolerance=float(tolerance),
        x=tuple(float(v) for v in np.asarray(x, dtype=np.float64)),
        y=tuple(float(v) for v in np.asarray(y, dtype=np.float64)),
        fit=fit,
        measured=value,
        passed=passed,
        sense=sense,
        quantity=quantity,
        requirements=requirements,
        notes=dict(notes or {}),
        inconclusive=inconclusive,
    )
