"""Log-log fits and RateCheck (design §5): exactness, statistics, semantics, reporting, validation."""

from __future__ import annotations

import dataclasses
import json
import math

import numpy as np
import pytest
from scipy import stats

from nnproofs.rates import SUMMARY_WIDTH, LogLogFit, RateCheck, fit_loglog, fold, rate_check

X = [2.0**k for k in range(1, 9)]


def power_law(x, constant, slope):
    return [constant * v**slope for v in x]


# ---------------------------------------------------------------- fit_loglog


@pytest.mark.parametrize(("constant", "slope"), [(3.0, -2.0), (0.25, 1.5), (1e-6, -0.5), (7.0, 0.0)])
def test_fit_recovers_exact_power_law(constant, slope):
    fit = fit_loglog(X, power_law(X, constant, slope))
    assert isinstance(fit, LogLogFit)
    assert fit.slope == pytest.approx(slope, abs=1e-12)
    assert fit.intercept == pytest.approx(math.log(constant), abs=1e-12)
    assert fit.slope_stderr <= 1e-12
    assert fit.r2 == pytest.approx(1.0, abs=1e-12)
    assert fit.n == len(X)
    np.testing.assert_allclose(fit([5.0, 300.0]), power_law([5.0, 300.0], constant, slope), rtol=1e-12)


def test_fit_on_noisy_data_matches_scipy_and_is_within_stderr():
    rng = np.random.default_rng(20240601)
    x = np.geomspace(1.0, 1e4, 40)
    y = 2.5 * x**-1.3 * np.exp(rng.normal(0.0, 0.1, x.size))
    fit = fit_loglog(x, y)
    reference = stats.linregress(np.log(x), np.log(y))
    assert fit.slope == pytest.approx(reference.slope, rel=1e-12)
    assert fit.intercept == pytest.approx(reference.intercept, rel=1e-12)
    assert fit.slope_stderr == pytest.approx(reference.stderr, rel=1e-10)
    assert fit.r2 == pytest.approx(reference.rvalue**2, rel=1e-12)
    assert 0 < fit.slope_stderr < 0.05
    assert abs(fit.slope - (-1.3)) <= fit.slope_stderr  # this seed: 0.4 standard errors off
    assert fit.r2 < 1.0


def test_fit_with_two_points_has_zero_stderr():
    fit = fit_loglog([1.0, 10.0], [1.0, 100.0])
    assert fit.slope == pytest.approx(2.0, abs=1e-12)
    assert fit.slope_stderr == 0.0


@pytest.mark.parametrize(
    ("x", "y", "error", "pattern"),
    [
        ([1.0, 0.0, 2.0], [1.0, 1.0, 1.0], ValueError, r"x\[1\] = 0\.0.*finite and > 0"),
        ([1.0, -2.0, 3.0], [1.0, 1.0, 1.0], ValueError, r"x\[1\] = -2\.0"),
        ([1.0, 2.0, 3.0], [1.0, 1.0, -1.0], ValueError, r"y\[2\] = -1\.0"),
        ([1.0, 2.0, 3.0], [1.0, 0.0, 1.0], ValueError, r"y\[1\] = 0\.0"),
        ([1.0, math.nan, 3.0], [1.0, 1.0, 1.0], ValueError, r"x\[1\] = nan"),
        ([1.0, 2.0, 3.0], [math.inf, 1.0, 1.0], ValueError, r"y\[0\] = inf"),
        ([1.0, 2.0, 3.0], [1.0, 2.0], ValueError, r"x and y must have the same length, got 3 and 2"),
        ([1.0], [1.0], ValueError, r"x needs at least 2 values, got 1"),
        ([], [], ValueError, r"x needs at least 2 values, got 0"),
        ([2.0, 2.0, 2.0], [1.0, 2.0, 3.0], ValueError, r"x must contain at least two distinct values"),
        ([[1.0, 2.0], [3.0, 4.0]], [1.0, 2.0], ValueError, r"x must be one-dimensional, got shape \(2, 2\)"),
        ([1.0, 2.0], [[1.0, 2.0]], ValueError, r"y must be one-dimensional"),
        (5.0, [1.0, 2.0], ValueError, r"x must be one-dimensional, got shape \(\)"),
        (["a", "b"], [1.0, 2.0], TypeError, r"x must be a sequence of real numbers"),
        ([1.0, 2.0], "ab", TypeError, r"y must be a sequence of real numbers, got a string"),
        ([1.0, 2.0], [1.0, {}], TypeError, r"y must be a sequence of real numbers"),
    ],
)
def test_fit_rejects_bad_input(x, y, error, pattern):
    with pytest.raises(error, match=pattern):
        fit_loglog(x, y)


# ---------------------------------------------------------------- rate_check semantics


def judged(measured, sense, expected=-2.0, tolerance=0.25, requirements=None):
    return rate_check("claim", X, power_law(X, 1.0, -2.0), expected=expected, tolerance=tolerance,
                      sense=sense, measured=measured, requirements=requirements)


ABOVE = np.nextafter(-1.75, 0.0)  # just above expected + tolerance
BELOW = np.nextafter(-2.25, -3.0)  # just below expected - tolerance


@pytest.mark.parametrize(
    ("sense", "measured", "passed"),
    [
        ("==", -2.0, True),
        ("==", -1.75, True),  # |measured - expected| == tolerance: boundary included
        ("==", -2.25, True),
        ("==", ABOVE, False),
        ("==", BELOW, False),
        ("<=", -1.75, True),  # measured == expected + tolerance
        ("<=", ABOVE, False),
        ("<=", -10.0, True),  # decays faster than claimed: fine one-sided
        (">=", -2.25, True),  # measured == expected - tolerance
        (">=", BELOW, False),
        (">=", 10.0, True),
    ],
)
def test_rate_check_sense_at_boundary(sense, measured, passed):
    check = judged(measured, sense)
    assert check.measured == measured
    assert check.sense == sense
    assert check.passed is passed
    assert check.rate_holds is passed


def test_rate_check_measures_fitted_slope_by_default():
    check = rate_check("claim", X, power_law(X, 3.0, -2.0), expected=-2.0, tolerance=0.01)
    assert check.measured == check.fit.slope
    assert check.measured == pytest.approx(-2.0, abs=1e-12)
    assert check.passed
    assert check.x == tuple(X)
    assert check.y == pytest.approx(tuple(power_law(X, 3.0, -2.0)))
    assert check.quantity == "log-log slope"


def test_failing_requirement_fails_the_check():
    check = judged(-2.0, "==", requirements={"pieces double": True, "error equals bound": False})
    assert check.rate_holds
    assert not check.passed
    report = check.report()
    assert report.splitlines()[0] == "claim: FAILED"
    assert "[ok] pieces double" in report
    assert "[X ] error equals bound" in report


def test_passing_check_report_and_assert_passed():
    check = judged(-2.0, "==", requirements={"pieces double": True})
    assert check.passed
    check.assert_passed()  # does not raise
    report = check.report()
    assert report.splitlines()[0] == "claim: PASSED"
    assert "required -2 ± 0.25" in report
    assert "[X ]" not in report


def test_summary_is_one_line_with_verdict_measured_required_and_requirements():
    check = judged(-2.0, "==", requirements={"pieces double": True, "error equals bound": False})
    assert check.summary() == ("FAILED  claim: log-log slope = -2, required -2 ± 0.25;"
                               " 1 of 2 further requirements hold")
    long = judged(-2.0, "==", requirements={f"requirement {i}": True for i in range(9)})
    wrapped = dataclasses.replace(long, name="a claim with a long name " * 3).summary().splitlines()
    assert len(wrapped) == 2 and all(len(line) <= SUMMARY_WIDTH for line in wrapped)
    assert wrapped[1].startswith("    ") and wrapped[1].endswith("9 of 9 further requirements hold")
    assert judged(-1.9, "==").summary() == "PASSED  claim: log-log slope = -1.9, required -2 ± 0.25"


@pytest.mark.parametrize(("sense", "text"), [("<=", "at most -1.75"), (">=", "at least -2.25")])
def test_report_states_one_sided_bound(sense, text):
    assert text in judged(-2.0, sense).report()


@pytest.mark.parametrize(
    ("measured", "requirements"), [(-1.0, None), (-2.0, {"error equals bound": False})]
)
def test_assert_passed_raises_with_report(measured, requirements):
    check = judged(measured, "==", requirements=requirements)
    with pytest.raises(AssertionError) as raised:
        check.assert_passed()
    assert str(raised.value) == check.report()
    assert "FAILED" in str(raised.value)


def test_to_dict_is_json_and_round_trips():
    check = rate_check(
        "claim", X, power_law(X, 3.0, -2.0), expected=-2, tolerance=0.02, sense="<=",
        requirements={"r": np.bool_(True)},
        notes={"m": np.arange(1, 4), "ratio": np.float64(0.5), "count": np.int64(3), "flag": np.bool_(False),
               "nested": {"a": (1.5, 2)}, "where": object()},
    )
    data = json.loads(json.dumps(check.to_dict()))
    assert data["name"] == "claim"
    assert data["sense"] == "<="
    assert data["expected"] == -2.0
    assert data["tolerance"] == 0.02
    assert data["measured"] == check.measured
    assert data["passed"] is True
    assert data["x"] == list(check.x)
    assert data["y"] == list(check.y)
    assert data["fit"] == {"slope": check.fit.slope, "intercept": check.fit.intercept,
                           "slope_stderr": check.fit.slope_stderr, "r2": check.fit.r2, "n": len(X)}
    assert data["requirements"] == {"r": True}
    assert data["notes"]["m"] == [1, 2, 3]
    assert data["notes"]["ratio"] == 0.5
    assert data["notes"]["count"] == 3
    assert data["notes"]["flag"] is False
    assert data["notes"]["nested"] == {"a": [1.5, 2]}
    assert data["notes"]["where"].startswith("<object object")


def test_rate_check_is_frozen():
    check = judged(-2.0, "==")
    with pytest.raises(AttributeError):
        check.passed = False  # type: ignore[misc]
    assert isinstance(check, RateCheck)


# ---------------------------------------------------------------- rate_check validation


@pytest.mark.parametrize(
    ("kwargs", "pattern"),
    [
        ({"sense": "="}, r"sense='=' is not allowed"),
        ({"sense": "<"}, r"sense='<' is not allowed"),
        ({"tolerance": -0.1}, r"tolerance must be >= 0, got -0\.1"),
        ({"tolerance": math.nan}, r"tolerance must be finite, got nan"),
        ({"tolerance": math.inf}, r"tolerance must be finite, got inf"),
        ({"expected": math.nan}, r"expected must be finite, got nan"),
        ({"expected": -math.inf}, r"expected must be finite, got -inf"),
        ({"measured": math.nan}, r"measured must be finite"),
        ({"measured": math.inf}, r"measured must be finite"),
        ({"name": ""}, r"name must be a non-empty string"),
        ({"name": None}, r"name must be a non-empty string"),
        ({"y": [1.0, 2.0]}, r"x and y must have the same length"),
    ],
)
def test_rate_check_rejects_bad_arguments(kwargs, pattern):
    arguments = {"name": "claim", "x": X, "y": power_law(X, 1.0, -2.0), "expected": -2.0, "tolerance": 0.1}
    arguments.update(kwargs)
    name, x, y = arguments.pop("name"), arguments.pop("x"), arguments.pop("y")
    with pytest.raises(ValueError, match=pattern):
        rate_check(name, x, y, **arguments)


@pytest.mark.parametrize(
    ("kwargs", "pattern"),
    [
        ({"tolerance": "0.1"}, r"tolerance must be a real number, got '0\.1' \(str\)"),
        ({"tolerance": True}, r"tolerance must be a real number, got True \(bool\)"),
        ({"expected": None}, r"expected must be a real number, got None"),
        ({"expected": "-2"}, r"expected must be a real number, got '-2' \(str\)"),
    ],
)
def test_rate_check_rejects_non_numbers(kwargs, pattern):
    arguments = {"expected": -2.0, "tolerance": 0.1, **kwargs}
    with pytest.raises(TypeError, match=pattern):
        rate_check("claim", X, power_law(X, 1.0, -2.0), **arguments)


def test_rate_check_accepts_numpy_scalars():
    check = rate_check("claim", X, power_law(X, 1.0, -2.0), expected=np.int64(-2), tolerance=np.float32(0.1))
    assert check.passed and check.expected == -2.0


def test_from_dict_restores_the_check():
    check = rate_check("toy", [1.0, 2.0, 4.0], [1.0, 0.25, 0.0625], expected=-2.0, tolerance=0.1, sense="<=",
                       requirements={"a requirement": True}, notes={"values": [0.5, 0.25]})
    again = RateCheck.from_dict(check.to_dict())
    assert again == check
    assert again.report() == check.report()


def test_report_prints_an_exact_zero_in_exponent_form():
    """An exact 0.0 here is round-off on another CPU: printed as 0.0e+00, the sanitizer reads ROUNDOFF."""
    check = rate_check("zero", [1.0, 2.0], [1.0, 0.5], expected=0.0, tolerance=1e-12, sense="<=", measured=0.0,
                       quantity="largest barrier", notes={"barriers": [0.0, 1e-3], "barrier": 0.0})
    report = check.report()
    assert "largest barrier = 0.0e+00, required at most 1e-12" in report
    assert "barriers: [0.0e+00, 0.001]" in report
    assert "barrier: 0.0e+00" in report


@pytest.mark.parametrize(("sense", "words", "compact"), [
    ("==", "-2 ± 0.1", "-2 ± 0.1"),
    ("<=", "at most -1.9 (expected -2, one-sided)", "≤ -1.9 (expected -2)"),
    (">=", "at least -2.1 (expected -2, one-sided)", "≥ -2.1 (expected -2)"),
])
def test_requirement_in_words_and_compact(sense, words, compact):
    check = rate_check("c", X, [x**-2.0 for x in X], expected=-2.0, tolerance=0.1, sense=sense)
    assert check.requirement() == words
    assert check.requirement(compact=True) == compact


def test_fold_keeps_each_lines_indent_and_the_page_width():
    text = "verdict " + "word " * 40 + "\n  [ok] " + "requirement " * 20 + "\nshort"
    lines = fold(text).splitlines()
    assert all(len(line) <= SUMMARY_WIDTH for line in lines)
    assert lines[1].startswith("    ") and not lines[1].startswith("     ")  # hanging 4 under no indent
    ok = lines.index(next(line for line in lines if line.startswith("  [ok]")))
    assert lines[ok + 1].startswith(" " * 6) and lines[-1] == "short"
    assert fold("a " * 60, hanging=2).splitlines()[1].startswith("  a")
    assert " ".join(fold(text).split()) == " ".join(text.split())  # nothing lost
