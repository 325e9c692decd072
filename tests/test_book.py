"""nnproofs.book.glue: only plain Python numbers reach the book, rounded so the record is reproducible."""

import math

import numpy as np
import pytest
import torch

from nnproofs import book


@pytest.fixture
def glued(monkeypatch):
    import myst_nb

    records = {}
    monkeypatch.setattr(myst_nb, "glue", lambda key, value, display: records.__setitem__(key, (value, display)))
    return records


def test_floats_are_rounded_to_six_significant_digits(glued):
    book.glue("slope", -5.9910736284551875)
    book.glue("tiny", 2.3841857910156250e-07)
    assert glued == {"slope": (-5.99107, False), "tiny": (2.38419e-07, False)}


def test_ints_and_strings_pass_unchanged(glued):
    book.glue("pieces", 1024)
    book.glue("name", "gelu")
    assert glued == {"pieces": (1024, False), "name": ("gelu", False)}


@pytest.mark.parametrize("value", [np.float64(1.0), torch.tensor(1.0), np.int64(3), True, None, [1.0]])
def test_non_python_numbers_are_refused(value):
    with pytest.raises(TypeError, match="value must be a Python int, float or str"):
        book.glue("key", value)


@pytest.mark.parametrize(("key", "value", "pattern"), [("", 1.0, "key must be a non-empty string"),
                                                       ("k", math.nan, "must be finite"), ("k", math.inf, "must be finite")])
def test_bad_keys_and_non_finite_values_are_refused(key, value, pattern):
    with pytest.raises(ValueError, match=pattern):
        book.glue(key, value)
