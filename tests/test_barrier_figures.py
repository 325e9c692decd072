"""Chapter 4's figure helpers: legends outside the data, one colour per cover, text readable on the page."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

from nnproofs import barrier, plotting  # noqa: E402


@pytest.fixture(scope="module")
def drawn():
    A, B, x, y = barrier.tight_pair()
    path = barrier.constructive_path(A, B, x, cover="grid")
    return path, barrier.profile(path, x, y, loss="huber", lam=barrier.LAMBDA)


def _outside(ax) -> bool:
    """The axes' legend lies outside its data area (the book's place for legends)."""
    fig = ax.figure
    fig.canvas.draw()
    box, area = ax.get_legend().get_window_extent(), ax.get_window_extent()
    return box.x0 >= area.x1 - 1 or box.y1 <= area.y0 + 1


def test_the_legends_are_outside_the_data(drawn):
    path, profile = drawn
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    barrier.draw_directions(path, ax)
    assert _outside(ax)
    fig, axes = plt.subplots(1, 2, figsize=(9, 4), layout="constrained")
    left, _ = barrier.draw_path_state(path, profile, 0.3, axes=axes)
    assert _outside(left)
    assert barrier.draw_directions(path, legend=False).get_legend() is None
    plt.close("all")


def test_the_profile_takes_its_covers_colour_and_its_texts_are_readable(drawn):
    _, profile = drawn
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    barrier.draw_profile(profile, ax, color=barrier.COVER_COLORS["adaptive"])
    assert ax.lines[0].get_color() == barrier.COVER_COLORS["adaptive"]
    assert min(size for size, _ in plotting.text_sizes_on_page(fig)) >= plotting.MIN_TEXT_PT
    assert len(set(barrier.COVER_COLORS.values())) == len(barrier.COVERS)
    with pytest.raises(TypeError, match="color"):
        barrier.draw_profile(profile, ax, color=3)
    with pytest.raises(TypeError, match="legend"):
        barrier.draw_directions(drawn[0], legend="no")
    plt.close("all")
