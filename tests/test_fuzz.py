"""Every public callable of the chapter packages, called with bad values for each parameter in turn.

The harness is ``tests/fuzz.py`` (what counts as a pass); the valid calls are ``tests/fuzz_<package>.py``
(``CASES``: a cheap valid call per callable; ``EXEMPT``: result types that readers do not call, with the
reason). A callable of a package's ``__all__`` in neither table fails ``test_every_public_callable_is_covered``.
Hypothesis draws one bad value per parameter per example from a fixed seed (``tests/conftest.py``):
``make test`` runs :data:`EXAMPLES` examples per callable, ``make test-sweeps`` :data:`LONG_EXAMPLES`.
"""

from __future__ import annotations

import importlib
import inspect
import random

import numpy as np
import pytest
import torch
from hypothesis import Phase, given, settings
from hypothesis import strategies as st

import fuzz

PACKAGES = ("smooth", "korobov", "representation", "barrier")
EXAMPLES = 3
LONG_EXAMPLES = 40


def _package(package: str):
    return importlib.import_module(f"nnproofs.{package}")


def _tables(package: str) -> tuple[dict, dict]:
    try:
        module = importlib.import_module(f"fuzz_{package}")
    except ModuleNotFoundError:
        return {}, {}
    return module.CASES, module.EXEMPT


def public_callables(package: str) -> dict[str, object]:
    module = _package(package)
    return {name: getattr(module, name) for name in module.__all__
            if callable(getattr(module, name)) and not inspect.ismodule(getattr(module, name))}


def pytest_generate_tests(metafunc):
    if "name" in metafunc.fixturenames:
        metafunc.parametrize("name", sorted(_tables(metafunc.cls.package)[0]))


@pytest.fixture(autouse=True)
def same_generators():
    """A call may seed or draw from the global generators: the tests that follow on this worker must not notice."""
    states = torch.get_rng_state(), np.random.get_state(), random.getstate()
    yield
    torch.set_rng_state(states[0])
    np.random.set_state(states[1])
    random.setstate(states[2])


def _fuzz(package: str, name: str, examples: int) -> None:
    function = getattr(_package(package), name)
    cases = _tables(package)[0]
    problem = fuzz.call(function, cases[name]())
    assert problem is None, problem

    @settings(max_examples=examples, phases=[Phase.generate], database=None)
    @given(data=st.data())
    def one_bad_value_per_parameter(data):
        valid = cases[name]()
        problems = []
        for parameter, value in fuzz.parameters(function, valid).items():
            label, bad = data.draw(st.sampled_from(fuzz.bad_values(value)), label=parameter)
            found = fuzz.call(function, {**valid, parameter: bad}, parameter, label)
            if found:
                problems.append(found)
        assert not problems, "\n".join(problems)

    one_bad_value_per_parameter()


class _Package:
    package = ""

    def test_every_public_callable_is_covered(self):
        cases, exempt = _tables(self.package)
        public = public_callables(self.package)
        assert cases or exempt, f"tests/fuzz_{self.package}.py is missing (CASES and EXEMPT)"
        assert not set(cases) & set(exempt), f"both called and exempt: {sorted(set(cases) & set(exempt))}"
        assert not set(public) - set(cases) - set(exempt), \
            f"public callables of nnproofs.{self.package} that the fuzz test does not call: " \
            f"{sorted(set(public) - set(cases) - set(exempt))}"
        assert not (set(cases) | set(exempt)) - set(public), \
            f"not public callables of nnproofs.{self.package}: {sorted((set(cases) | set(exempt)) - set(public))}"
        functions = sorted(name for name in exempt if inspect.isroutine(inspect.unwrap(public[name])))
        assert not functions, f"functions are called by readers and are never exempt: {functions}"
        assert all(isinstance(why, str) and why.strip() for why in exempt.values())

    def test_refuses_or_answers(self, name):
        _fuzz(self.package, name, EXAMPLES)

    @pytest.mark.slow
    def test_refuses_or_answers_long(self, name):
        _fuzz(self.package, name, LONG_EXAMPLES)


class TestSmooth(_Package):
    package = "smooth"


class TestKorobov(_Package):
    package = "korobov"


class TestRepresentation(_Package):
    package = "representation"


class TestBarrier(_Package):
    package = "barrier"
