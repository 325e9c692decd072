"""Design.md rule 9 in chapter 3: the checks evaluate the maps they count and read nothing else of a reader's build.

The referee's wrong verdicts (session 5): a sampled network with an extra output layer and one with a Softplus
activation passed both sampled checks (only net[0] and net[2] were read, with a ReLU of their own); a representation
whose ``centred_target`` scaled the reference like its networks passed (the reference came from the reader's object);
``check_dimension_stability`` said "the build represents f" of a sampler with the wrong bias law (it read the kernels
only)."""

import math

import pytest
import sympy
import torch
from torch import nn

from nnproofs import neuron_statistics as ns
from nnproofs import representation as rep
from nnproofs.representation.checks import DIMENSION_REPRESENTS
from nnproofs.representation.reading import library_copy, library_sampler
from nnproofs.representation.sampling import SharpenedRepresentation

X = sympy.symbols("x1:5", real=True)
F = 3 * X[0] ** 2 * X[1] - X[2] ** 3 + 2 * X[3] * X[0] + 5
SMALL = {"width": 1000, "replicates": 20, "test_points": 20}


def _subclass_build(cls, **fields):
    def build(poly, variables, *, sigma=1.0, inputs="sphere"):
        g = rep.sharpened_representation(poly, variables, sigma=sigma, inputs=inputs)
        return cls(g.variables, g.sigma, g.beta, g.constant, g.parts, g.kernels, inputs, **fields)
    build.__name__ = cls.__name__
    return build


class ExtraLayer(SharpenedRepresentation):
    """Networks f_0 + 0.85(f_n − f_0): an output layer after the counted ones."""

    def sample(self, n, *, generator=None):
        last = nn.Linear(1, 1).double()
        with torch.no_grad():
            last.weight.fill_(0.85)
            last.bias.fill_(0.15 * self.constant)
        return nn.Sequential(*super().sample(n, generator=generator), last)


class Softplus(SharpenedRepresentation):
    def sample(self, n, *, generator=None):
        net = super().sample(n, generator=generator)
        return nn.Sequential(net[0], nn.Softplus(beta=50), net[2])


class Liar(SharpenedRepresentation):
    """Every method a check could read, wrong: the reference scaled like the networks, predictions ×10, identities
    claimed."""

    def centred_target(self, x):
        return 0.85 * super().centred_target(x)

    def target(self, x):
        return 0.85 * super().target(x)

    def predicted_mse(self, n, inputs="sphere"):
        return 10 * super().predicted_mse(n, inputs)

    def target_variance(self, inputs="sphere"):
        return 10 * super().target_variance(inputs)

    def represents_target(self):
        return True


class WrongBias(SharpenedRepresentation):
    """Biases −S with S ~ β χ_k instead of β χ_(k−1) (the referee's dof = 1), output weights of the correct law."""

    def sample(self, n, *, generator=None):
        net = super().sample(n, generator=generator)
        with torch.no_grad():
            net[0].bias.mul_(1.3)
        return net


@pytest.mark.parametrize("cls, layers", [(ExtraLayer, "Linear, ReLU, Linear, Linear"),
                                         (Softplus, "Linear, Softplus, Linear")])
def test_a_network_other_than_linear_relu_linear_is_refused_by_both_sampled_checks(cls, layers):
    build = _subclass_build(cls)
    exactly = r"exactly nn.Sequential\(nn.Linear\(d, n\), nn.ReLU\(\), nn.Linear\(n, 1\)\).*got Sequential\("
    with pytest.raises(TypeError, match=exactly + layers):
        rep.check_unbiasedness(F, X, **SMALL, build=build)
    with pytest.raises(TypeError, match=exactly + layers):
        rep.check_monte_carlo_rate(F, X, ns=[1000, 4000], replicates=10, test_points=20, build=build)


def _hooked(kind):
    def build(poly, variables, *, sigma=1.0, inputs="sphere"):
        representation = rep.sharpened_representation(poly, variables, sigma=sigma, inputs=inputs)
        plain = representation.sample

        def sample(n, *, generator=None):
            net = plain(n, generator=generator)
            if kind == "hook":
                net[2].register_forward_hook(lambda module, args, out: 0.85 * out)
            elif kind == "pre-hook":
                net.register_forward_pre_hook(lambda module, args: (0.85 * args[0],))
            elif kind == "forward":
                net[1].forward = lambda t: torch.nn.functional.softplus(t, beta=50)
            else:  # "bias": a plain network of another bias law
                with torch.no_grad():
                    net[0].bias.mul_(1.3)
            return net

        representation.sample = sample
        return representation
    return build


@pytest.mark.parametrize("kind", ["hook", "pre-hook", "forward"])
def test_hooks_and_a_replaced_forward_are_refused(kind):
    with pytest.raises(TypeError, match="forward hooks or a forward set on an instance"):
        rep.check_unbiasedness(F, X, **SMALL, build=_hooked(kind))


def test_a_global_forward_hook_is_refused():
    handle = nn.modules.module.register_module_forward_hook(lambda module, args, out: out)
    try:
        with pytest.raises(TypeError, match=r"forward set on an instance \(global hooks\)"):
            rep.check_unbiasedness(F, X, **SMALL)
    finally:
        handle.remove()
    assert rep.check_unbiasedness(F, X, **SMALL).verdict in ("PASSED", "INCONCLUSIVE")


def test_the_reference_and_the_predictions_come_from_poly_and_the_library_never_from_the_builds_object():
    """Liar's networks are the near-miss control's (outputs ×0.85); its methods say they are right. Both checks give
    what they give the control, to the last digit: no method of the object is read."""
    liar, control = _subclass_build(Liar, output_scale=0.85), rep.mean_scaled_control(0.85)
    unbiased = [rep.check_unbiasedness(F, X, test_points=100, seed=41, build=b) for b in (liar, control)]
    assert unbiased[0].verdict == unbiased[1].verdict == "FAILED", unbiased[0].report()
    # the liar's sampler is not the library's own, so it is also ranked against the reference law, which it equals
    rank = "rank test p (MSE above the reference law's)"
    assert unbiased[0].notes.pop(rank) > 0.01 and unbiased[1].notes.pop(rank) == 1.0
    assert unbiased[0].measured == unbiased[1].measured and unbiased[0].notes == unbiased[1].notes
    rate = [rep.check_monte_carlo_rate(F, X, ns=[1000, 4000], replicates=10, test_points=50, seed=41, build=b)
            for b in (liar, control)]
    assert rate[0].notes.pop(rank) > 0.01 and rate[1].notes.pop(rank) == 1.0
    assert rate[0].measured == rate[1].measured and rate[0].notes == rate[1].notes


def _target(d):
    v = sympy.symbols(f"x1:{d + 1}", real=True)
    return v[0] ** 3 - v[1] * v[d - 1] + 2 * v[d - 1], v


def test_dimension_stability_reads_the_sampler_it_speaks_of():
    """The dimension check computes B from the fields; a sampler that draws other networks than the library's of
    those fields is not what it read: INCONCLUSIVE, naming it. The same fields with the library's sampler pass."""
    ds = [3, 4, 5]
    assert rep.check_dimension_stability(_target, ds).verdict == "PASSED"
    wrong = rep.check_dimension_stability(_target, ds, build=_subclass_build(WrongBias))
    assert wrong.verdict == "INCONCLUSIVE" and "does not draw the library's networks" in wrong.inconclusive
    assert not wrong.requirements[DIMENSION_REPRESENTS]  # it says "... which the build uses"
    replaced = rep.check_dimension_stability(_target, ds, build=_hooked("bias"))  # sample set on the instance
    assert replaced.verdict == "INCONCLUSIVE" and "does not draw the library's networks" in replaced.inconclusive
    with pytest.raises(TypeError, match="forward hooks"):
        rep.check_dimension_stability(_target, ds, build=_hooked("hook"))
    lying = rep.check_dimension_stability(_target, ds, build=_subclass_build(Liar, output_scale=0.85))
    assert lying.verdict == "FAILED" and not lying.requirements[DIMENSION_REPRESENTS]
    # the wrong bias law is seen by the check that reads the sampler
    wrong = rep.check_unbiasedness(*_target(4), test_points=100, seed=3, build=_subclass_build(WrongBias))
    assert wrong.verdict == "FAILED", wrong.report()


def test_trained_comparisons_read_the_polynomial_and_the_counted_maps():
    """compare_trained trains on f from poly, not on the build's target; with_trained refuses a hooked network."""
    v = X[:3]
    f = v[0] ** 2 - v[1] * v[2]
    sizes = {"width": 16, "points": 64, "steps": 20, "representation_width": 2000, "test_points": 100}
    honest = ns.compare_trained(f, v, **sizes)
    lying = ns.compare_trained(f, v, **sizes, build=_subclass_build(Liar))
    assert lying.relative_mse == honest.relative_mse and torch.equal(lying.test_values, honest.test_values)
    net = rep.sharpened_representation(f, v).sample(16, generator=torch.Generator().manual_seed(0))
    net[0].register_forward_hook(lambda module, args, out: 2 * out)
    with pytest.raises(TypeError, match="forward hooks"):
        honest.with_trained(net)


def test_a_build_in_other_variables_is_refused_by_the_shapes_it_counts():
    """Test points are drawn in the dimension of the variables passed; a network of another input dimension is refused
    (a build in fewer variables used to index the reference beyond its inputs)."""
    def fewer(poly, variables, **options):
        return rep.sharpened_representation(X[0] ** 2, X[:2], **options)
    with pytest.raises(ValueError, match=r"must have maps of shapes \[\(1000, 4\).*got \[\(1000, 2\)"):
        rep.check_unbiasedness(F, X, **SMALL, build=fewer)


def test_a_comparison_subclass_is_refused():
    class Flattering(ns.Comparison):
        def sign_gain(self, weighting):
            return 1.0

    v = X[:3]
    sizes = {"width": 16, "points": 64, "steps": 20, "representation_width": 2000, "test_points": 100}
    honest = ns.compare_trained(v[0] ** 2 - v[1] * v[2], v, **sizes)
    flattering = Flattering(**{f: getattr(honest, f) for f in honest.__dataclass_fields__})
    with pytest.raises(TypeError, match="comparison must be a Comparison .*not a subclass"):
        ns.check_comparison(flattering)


def test_a_library_object_whose_sampler_state_was_changed_is_not_the_library_sampler():
    """A build returning the library's class with its mixture weights set uniform (an instance attribute the sampler
    reads, not a field): the dimension check reads the fields' sampler, so it is INCONCLUSIVE, and the unbiasedness
    check draws the reference law (its notes carry a rank test)."""
    def uniform(poly, variables, *, sigma=1.0, inputs="sphere"):
        built = rep.sharpened_representation(poly, variables, sigma=sigma, inputs=inputs)
        built.weights = {k: 1 / len(built.weights) for k in built.weights}
        return built
    check = rep.check_dimension_stability(_target, [3, 4], build=uniform)
    assert check.verdict == "INCONCLUSIVE" and "does not draw the library's networks" in check.inconclusive
    unbiased = rep.check_unbiasedness(*_target(3), width=1000, replicates=20, test_points=40, seed=5, build=uniform)
    assert unbiased.notes["rank test p (MSE above the reference law's)"] < 1.0


def _with_kernels(build, extra):
    """``build``'s fields with ``extra[k]`` added to kernel ``k``."""
    def built(poly, variables, *, sigma=1.0, inputs="sphere"):
        g = build(poly, variables, sigma=sigma, inputs=inputs)
        kernels = {k: sympy.expand(q + extra.get(k, 0)) for k, q in g.kernels.items()}
        return SharpenedRepresentation(g.variables, g.sigma, g.beta, g.constant, dict(g.parts), kernels, g.inputs,
                                       weight_law=g.weight_law)
    return built


def _degrees(d):
    v = X[:d]
    return 2 * v[0] - v[1] + v[0] * v[1] + v[1] ** 3 / 3 - v[0] ** 2 * v[1], v


@pytest.mark.parametrize("extra", [{1: sympy.Rational(1, 4)}, {2: -X[1] / 3}, {3: X[0] * X[1]}, {1: X[0] ** 2},
                                   {2: X[0] ** 3 / 5}, {3: sympy.Rational(1, 10)}])
@pytest.mark.parametrize("weights", ["gaussian", "sphere"])
def test_a_kernel_term_of_the_other_parity_is_not_a_representation(extra, weights):
    """Rule 10 (referee 3c): a term of the other parity keeps E[⟨x, W⟩^k q_k(W)] = k!σ^(2k) f_k, but the neurons
    ρ(⟨W, x⟩ − S) see it: +1/4 in the degree-1 kernel moved the networks' mean by ≈ 0.2 and was PASSED."""
    build = rep.sharpened_representation if weights == "gaussian" else rep.explicit_sphere_representation
    poly, v = _degrees(3)
    assert build(poly, v).represents_target()
    assert not _with_kernels(build, extra)(poly, v).represents_target()
    if weights == "gaussian" and 1 in extra:
        check = rep.check_dimension_stability(_degrees, [2, 3], build=_with_kernels(build, extra))
        assert check.verdict == "FAILED" and not check.requirements[DIMENSION_REPRESENTS]


@pytest.mark.parametrize("sigma", [0.9, 1.1, 2.0])
def test_sphere_weights_tie_sigma_to_the_kernels(sigma):
    """Rule 10 (referee 3c): sphere weights |W| = 1 with the field σ ≠ 1 divide u_k by σ^(2k) (mean off by 18–24% at
    σ = 1.1, PASSED); kernels scaled by σ^(2k) restore the mean f and are a representation."""
    poly, v = _degrees(3)
    g = rep.explicit_sphere_representation(poly, v)
    wrong = SharpenedRepresentation(g.variables, sigma, g.beta * sigma, g.constant, dict(g.parts), dict(g.kernels),
                                    weight_law="sphere")
    assert not wrong.represents_target()
    scaled = {k: sympy.expand(sympy.nsimplify(sigma) ** (2 * k) * q) for k, q in g.kernels.items()}
    right = SharpenedRepresentation(g.variables, sigma, g.beta * sigma, g.constant, dict(g.parts), scaled,
                                    weight_law="sphere")
    assert right.represents_target()
    x = torch.tensor([[0.6, 0.0, 0.8]], dtype=torch.float64)
    f = float(poly.subs(dict(zip(v, x[0].tolist()))))
    for r, off in ((right, False), (wrong, True)):
        with torch.no_grad():
            mean = float(r.sample(200_000, generator=torch.Generator().manual_seed(3))(x))
        assert (abs(mean - f) > 0.1 * abs(f)) is off, (sigma, mean, f)


class _Lying(float):
    """A float that compares equal to ``library`` whatever its own value."""

    def __new__(cls, value, library):
        new = float.__new__(cls, value)
        new.library = library
        return new

    def __eq__(self, other):
        return other == self.library

    __hash__ = float.__hash__


@pytest.mark.parametrize("factor", [1.25, 1.0])
def test_sampler_state_is_compared_by_exact_type_and_bits(factor):
    """Rule 9 (referee 3c): kernel coefficients of a float subclass whose __eq__ lies skipped the bit-for-bit probe
    (PASSED with a mean off by up to 0.2). Any non-float coefficient, or one float bit off, is not the library's
    sampler; the dimension check then probes and is INCONCLUSIVE where the networks differ."""
    def lying(poly, variables, *, sigma=1.0, inputs="sphere"):
        g = rep.sharpened_representation(poly, variables, sigma=sigma, inputs=inputs)
        ev = g._kernel_eval[1]
        ev.terms = [(_Lying(factor * c, c), factors) for c, factors in ev.terms]
        return g

    def nudged(poly, variables, *, sigma=1.0, inputs="sphere"):
        g = rep.sharpened_representation(poly, variables, sigma=sigma, inputs=inputs)
        g.beta = math.nextafter(g.beta, math.inf)
        return g

    poly, v = _degrees(3)
    for build in (lying, nudged):
        built = build(poly, v)
        assert not library_sampler(built, library_copy(built))
    built = rep.sharpened_representation(poly, v)
    assert library_sampler(built, library_copy(built))
    if factor != 1.0:
        check = rep.check_dimension_stability(_degrees, [2, 3], build=lying)
        assert check.verdict == "INCONCLUSIVE" and "does not draw the library's networks" in check.inconclusive
