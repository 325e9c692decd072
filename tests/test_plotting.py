"""The book's log-log figure: measured points, the predicted-slope reference line, the fitted slope."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pytest

from nnproofs.plotting import loglog_check, new_axes
from nnproofs.rates import rate_check

X = np.array([2.0, 4.0, 8.0, 16.0, 32.0, 64.0])
# error ~ 5 x^-1.8 with a wobble, checked against the predicted slope -2
Y = 5.0 * X**-1.8 * np.array([1.0, 1.3, 0.9, 1.1, 0.95, 1.05])


@pytest.fixture
def check():
    return rate_check("toy", X, Y, expected=-2.0, tolerance=0.5)


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


def reference_line(ax):
    lines = [line for line in ax.get_lines() if line.get_gid() == "reference"]
    assert len(lines) == 1
    return lines[0]


def test_draws_measured_points(check):
    ax = loglog_check(check)
    measured = ax.get_lines()[0]
    np.testing.assert_array_equal(measured.get_xdata(), X)
    np.testing.assert_array_equal(measured.get_ydata(), Y)
    assert measured.get_marker() == "o"
    assert ax.get_xscale() == "log"
    assert ax.get_yscale() == "log"


def test_reference_line_has_expected_slope_through_log_centroid(check):
    line = reference_line(loglog_check(check))
    lx, ly = np.log(line.get_xdata()), np.log(line.get_ydata())
    assert (lx[0], lx[-1]) == pytest.approx((np.log(X.min()), np.log(X.max())))
    slope = (ly[-1] - ly[0]) / (lx[-1] - lx[0])
    assert slope == pytest.approx(check.expected, abs=1e-12)
    cx, cy = np.log(X).mean(), np.log(Y).mean()
    assert ly[0] + slope * (cx - lx[0]) == pytest.approx(cy, abs=1e-12)


def test_legend_gives_fitted_and_predicted_slopes(check):
    ax = loglog_check(check, label="sup error")
    texts = [t.get_text() for t in ax.get_legend().get_texts()]
    assert texts == [f"sup error (fitted slope {check.fit.slope:.2f})", "predicted slope -2"]
    assert f"{check.fit.slope:.2f}" != "-2.00"  # the legend really shows the fit, not the prediction


def test_draws_on_given_axes_without_reference(check):
    fig, ax = new_axes()
    returned = loglog_check(check, ax, reference=False, xlabel="$2^m$", ylabel="sup error")
    assert returned is ax
    assert len(ax.get_lines()) == 1
    assert all(line.get_gid() != "reference" for line in ax.get_lines())
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("$2^m$", "sup error")
    assert fig.axes == [ax]


def test_new_axes_side_by_side():
    fig, axes = new_axes(ncols=3)
    assert len(axes) == 3
    assert fig.axes == list(axes)
    assert fig.get_size_inches()[0] > new_axes()[0].get_size_inches()[0]


@pytest.mark.parametrize("bad", [None, {"x": [1, 2]}, "check"])
def test_rejects_non_ratecheck(bad):
    with pytest.raises(TypeError, match=r"check must be a RateCheck"):
        loglog_check(bad)
