"""Chapter 2 (nnproofs.korobov): every public function refuses, fast and by name, what it cannot do within its
budget (design.md rule 14; issue 23's measured cases)."""

from __future__ import annotations

import time

import pytest

from nnproofs import korobov

# refused before the work starts: the work refused takes hours, so a generous CPU limit tells the two apart
# without depending on the machine's speed or load (no timed assertion)
HANG_LIMIT = 30.0  # seconds of this process's CPU time


def refused(call, name):
    start = time.process_time()
    with pytest.raises(ValueError, match=rf"\b{name}\b"):
        call()
    assert time.process_time() - start < HANG_LIMIT


@pytest.mark.parametrize("level", [10**6, 10**12, 2**63])
def test_sparse_grid_size_refuses_huge_levels_before_forming_the_sum(level):
    refused(lambda: korobov.sparse_grid_size(level, 2), "level")
    refused(lambda: korobov.sparse_grid_interpolant(korobov.korobov_example(2), d=2, level=level), "level")


def test_a_huge_dimension_is_refused_by_name():
    refused(lambda: korobov.sparse_grid_size(3, 10**9), "d")
    refused(lambda: korobov.level_multi_indices(1, 10**9), "d")
    refused(lambda: korobov.basis_product_network(10**6, 4), "d")


@pytest.mark.parametrize("d", [40, 10**6])
def test_the_class_readings_refuse_a_dimension_beyond_their_budget(d):
    """d = 40 took 25 s before (the readings' cost grows like d^2: pairs of coordinates)."""
    f = korobov.korobov_example(2)
    refused(lambda: korobov.coordinate_differences(f, d), "d")
    refused(lambda: korobov.check_sparse_grid_levels(f, d=d, levels=[3, 4]), "d")


def test_the_chapter_dimensions_are_within_the_readings_budget():
    for d in range(1, 7):
        korobov.smoothness.require_reading(korobov.korobov_example(d), d)


def test_a_billion_words_or_samples_are_refused_before_allocating():
    f1, f2 = korobov.korobov_example(1), korobov.korobov_example(2)
    refused(lambda: korobov.check_bit_extraction([8, 16], words=10**9), "words")
    refused(lambda: korobov.check_sparse_grid_levels(f2, d=2, levels=[3, 4], samples=10**9), "samples")
    refused(lambda: korobov.check_super_approximation(f2, m=2, WL=[(2, 2), (2, 4)], d=2, samples=10**9), "samples")
    refused(lambda: korobov.check_super_approximation_derivative(f1, m=2, WL=[(2, 2), (2, 4)], samples=10**9),
            "samples")
    refused(lambda: korobov.check_partitioned_network(f1, WL=[(2, 2), (2, 4)], samples=10**9), "samples")
    refused(lambda: korobov.check_relu_sparse_grid_network(korobov.basis_sum_target(2, 3), d=2, level=3, ss=[4, 6],
                                                           samples=10**9), "samples")


def test_levels_beyond_the_grid_are_refused_by_name():
    refused(lambda: korobov.check_sparse_grid_levels(korobov.korobov_example(2), d=2, levels=[3, 10**12]), "levels")


@pytest.mark.parametrize("d", [1, 4, 0, True])
def test_default_levels_names_a_dimension_it_has_no_levels_for(d):
    with pytest.raises(ValueError, match=r"\bd\b"):
        korobov.default_levels(d)


def test_default_wl_names_its_arguments():
    with pytest.raises(ValueError, match=r"\bd\b"):
        korobov.default_wl(2, 3)
    with pytest.raises(ValueError, match=r"\bm\b"):
        korobov.default_wl(4)


def test_the_full_scale_sizes_fit_the_full_scale_budgets(monkeypatch):
    """BOOK_SCALE=full multiplies the budgets by 64; the chapter's full-scale sizes are within even the ci ones."""
    monkeypatch.setenv("BOOK_SCALE", "full")
    for d in (2, 3):
        levels = korobov.default_levels(d)
        assert korobov.sparse_grid_size(levels[-1], d) <= korobov.sparsegrid.MAX_POINTS
    monkeypatch.setenv("BOOK_BUDGET_FACTOR", "1")
    for d in range(1, 7):
        korobov.smoothness.require_reading(korobov.korobov_example(d), d)
    korobov.sizes.require_count("samples", korobov.SAMPLES, bytes_each=8 * 8 * 4)
