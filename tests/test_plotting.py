"""The book's log-log figure: measured points, the predicted-slope reference line, the fitted slope."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pytest

from nnproofs.plotting import REFERENCE_OFFSET, loglog_check, new_axes
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


def test_reference_line_has_expected_slope_and_runs_above_every_point(check):
    line = reference_line(loglog_check(check))
    lx, ly = np.log(line.get_xdata()), np.log(line.get_ydata())
    assert (lx[0], lx[-1]) == pytest.approx((np.log(X.min()), np.log(X.max())))
    slope = (ly[-1] - ly[0]) / (lx[-1] - lx[0])
    assert slope == pytest.approx(check.expected, abs=1e-12)
    at_points = np.exp(np.interp(np.log(X), lx, ly))
    assert np.all(at_points >= REFERENCE_OFFSET * Y * (1 - 1e-12))  # never hides the data
    assert np.min(at_points / Y) == pytest.approx(REFERENCE_OFFSET)  # and stays close to it


def test_reference_is_labelled_beside_the_line_and_the_legend_gives_fitted_slopes(check):
    ax = loglog_check(check, label="sup error")
    texts = [t.get_text() for t in ax.get_legend().get_texts()]
    assert texts == [f"sup error (fitted slope {check.fit.slope:.2f})"]
    assert f"{check.fit.slope:.2f}" != "-2.00"  # the legend really shows the fit, not the prediction
    assert [t.get_text() for t in ax.texts] == ["slope -2"]


def test_bound_is_drawn_with_its_constant(check):
    ax = loglog_check(check, bound=("bound $10x^{-2}$", lambda x: 10 * x**-2.0))
    (line,) = [line for line in ax.get_lines() if line.get_gid() == "bound"]
    np.testing.assert_allclose(line.get_ydata(), 10 * np.asarray(line.get_xdata()) ** -2.0)
    assert "bound $10x^{-2}$" in [t.get_text() for t in ax.get_legend().get_texts()]


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


def test_every_text_of_the_log_log_figure_is_legible_at_the_page_width(check):
    from nnproofs.plotting import MIN_TEXT_PT, text_sizes_on_page

    fig, ax = new_axes()
    loglog_check(check, ax, xlabel="width $N$", ylabel="sup error")
    sizes = text_sizes_on_page(fig)
    assert len(sizes) > 10 and min(size for size, _ in sizes) >= MIN_TEXT_PT, sorted(sizes)[:3]


def test_a_wide_figure_with_small_text_is_measured_as_illegible():
    from nnproofs.plotting import MIN_TEXT_PT, text_sizes_on_page

    fig, ax = plt.subplots(figsize=(14, 3), dpi=100)
    ax.plot([1, 2], [1, 2], label="a series")
    ax.legend(fontsize=9)
    assert min(size for size, _ in text_sizes_on_page(fig)) < MIN_TEXT_PT
    fig.set_size_inches(6, 3)
    assert min(size for size, _ in text_sizes_on_page(fig)) == pytest.approx(
        min(t.get_fontsize() for t in fig.findobj(matplotlib.text.Text) if t.get_text().strip() and t.get_visible())
        * 100 / 96)


def test_show_refuses_a_figure_whose_text_a_page_would_shrink_below_the_minimum(monkeypatch):
    from nnproofs import plotting

    shown = []
    monkeypatch.setattr(plt, "show", lambda: shown.append(True))
    fig, ax = plt.subplots(figsize=(14, 3), dpi=100)
    ax.plot([1, 2], [1, 2], label="a series")
    ax.legend(fontsize=9)
    with pytest.raises(ValueError, match="fig: .*smaller than 8.0 pt.*a series"):
        plotting.show(fig)
    assert not shown
    fig.set_size_inches(6, 3)
    plotting.show(fig)
    assert shown == [True]


def test_the_reference_line_is_drawn_above_the_points(check):
    ax = loglog_check(check)
    assert reference_line(ax).get_zorder() > ax.get_lines()[0].get_zorder()
