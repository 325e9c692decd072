"""nnproofs.book.glue: only plain Python numbers reach the book, rounded so the record is reproducible."""

import math

import numpy as np
import pytest
import torch

from nnproofs import book


@pytest.fixture
def glued(monkeypatch):
    """The records that book.glue displays in a kernel: name -> the glued text."""
    import IPython
    import IPython.display

    records = {}

    def display(data, raw, metadata):
        assert raw
        records[metadata["scrapbook"]["name"]] = data[book.GLUE_PREFIX + "text/plain"]

    monkeypatch.setattr(IPython, "get_ipython", lambda: object())
    monkeypatch.setattr(IPython.display, "display", display)
    return records


def test_floats_are_rounded_to_six_significant_digits(glued):
    book.glue("slope", -5.9910736284551875)
    book.glue("tiny", 2.3841857910156250e-07)
    assert glued == {"slope": "-5.99107", "tiny": "2.38419e-07"}


def test_ints_and_strings_pass_unchanged(glued):
    book.glue("pieces", 1024)
    book.glue("name", "gelu")
    assert glued == {"pieces": "1024", "name": "'gelu'"}


@pytest.mark.parametrize("value", [-5.99107, 1024, "gelu"])
def test_the_record_is_myst_nbs(monkeypatch, value):
    from myst_nb.ext import glue as myst_glue

    theirs = []
    monkeypatch.setattr(myst_glue, "ipy_display", lambda data, raw, metadata: theirs.append((data, raw, metadata)))
    myst_glue.glue("key", value, display=False)
    assert book.GLUE_PREFIX == myst_glue.GLUE_PREFIX
    assert theirs == [(*book.glue_record("key", value)[:1], True, book.glue_record("key", value)[1])]


def test_outside_a_kernel_nothing_is_displayed(monkeypatch):
    import IPython
    import IPython.display

    monkeypatch.setattr(IPython, "get_ipython", lambda: None)
    monkeypatch.setattr(IPython.display, "display", lambda *args, **kwargs: pytest.fail("displayed outside a kernel"))
    book.glue("key", 1.0)


@pytest.mark.parametrize("value", [np.float64(1.0), torch.tensor(1.0), np.int64(3), True, None, [1.0]])
def test_non_python_numbers_are_refused(value):
    with pytest.raises(TypeError, match="value must be a Python int, float or str"):
        book.glue("key", value)


@pytest.mark.parametrize(("key", "value", "pattern"), [("", 1.0, "key must be a non-empty string"),
                                                       ("k", math.nan, "must be finite"), ("k", math.inf, "must be finite")])
def test_bad_keys_and_non_finite_values_are_refused(key, value, pattern):
    with pytest.raises(ValueError, match=pattern):
        book.glue(key, value)
