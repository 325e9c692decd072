"""prop-explicit-bound: the Gaussian explicit kernel is the L²(γ) projection of the sharpened one onto P_k, so
E[g_k²] <= E[q_k²] = σ^(2k)‖f_k‖_F² and the ceiling C_k bounds the explicit representation in every d (issue 26)."""

import pytest
import sympy

from nnproofs import representation as rep
from nnproofs.representation import symbolic as sym

# (d, degrees, σ, seed): polynomials of our own, none of them the chapter's
CASES = [(2, (2, 3, 6), 1.0, 41), (3, (2, 4, 5), 0.7, 42), (4, (3, 4), 1.5, 43), (5, (2, 5, 6), 1.0, 44),
         (6, (2, 3), 0.7, 45), (3, (2, 3, 4, 5, 6), 1.5, 46)]


def _case(d, degrees, seed):
    v = sympy.symbols(f"x1:{d + 1}", real=True)
    return rep.ridge_polynomial(v, degrees, seed=seed, constant=-0.3), v


@pytest.mark.parametrize(("d", "degrees", "sigma", "seed"), CASES)
def test_explicit_kernel_is_the_projection_of_the_sharpened_one(d, degrees, sigma, seed):
    poly, v = _case(d, degrees, seed)
    check = rep.check_explicit_kernel_bound([poly], v, sigma=sigma)
    assert check.passed, check.report()
    assert all(0 < r <= 1 for r in check.notes["E[h²] / E[q_k²]"])
    # the sharpened kernel itself is the equality case
    assert rep.check_explicit_kernel_bound([poly], v, sigma=sigma, kernel="sharpened").measured == 1.0


def test_projection_identities_by_an_independent_route():
    """E[g²] + E[(q − g)²] = E[q²] and E[g(q − g)] = 0 by expanded products and Gaussian moments, not Fischer norms."""
    poly, v = _case(3, (2, 4), 7)
    s = sympy.Rational(7, 10)
    for k, part in sym.homogeneous_parts(poly, v).items():
        if k < 2:
            continue
        q = sym.sharpen(part, v, s)
        g = rep.KERNELS["explicit"](part, v, k, s**2)
        assert sym.expectation(g * (q - g), v, "gaussian", s) == 0
        assert sym.expectation(q**2, v, "gaussian", s) == s ** (2 * k) * sym.fischer_inner(part, part, v)
        assert sym.gaussian_inner(g, g, v, s) == sym.expectation(g**2, v, "gaussian", s)


@pytest.mark.parametrize("kernel", ["unsharpened", "forward heat", 1.2, 0.8])
def test_kernels_that_do_not_represent_f_fail_the_orthogonality(kernel):
    poly, v = _case(3, (2, 3, 4), 8)
    if isinstance(kernel, float):
        scale = sympy.nsimplify(kernel)

        def kernel(part, variables, k, s2):  # a near miss: the explicit kernel scaled by 20%
            return scale * rep.KERNELS["explicit"](part, variables, k, s2)
    check = rep.check_explicit_kernel_bound([poly], v, kernel=kernel)
    assert not check.passed
    assert not check.requirements["q_k − h ⟂ every homogeneous polynomial of degree k (exact)"]


def test_dimension_stability_passes_on_the_explicit_build_and_fails_on_sphere_weights():
    explicit = rep.check_dimension_stability(rep.default_target, [2, 5, 10], build=rep.explicit_representation)
    assert explicit.passed, explicit.report()
    sphere = rep.check_dimension_stability(rep.default_target, [2, 5, 10], build=rep.explicit_sphere_representation)
    assert not sphere.passed and not sphere.rate_holds


def test_explicit_kernel_bound_refuses_what_it_cannot_judge():
    x = sympy.symbols("x1:3", real=True)
    with pytest.raises(ValueError, match="kernel"):
        rep.check_explicit_kernel_bound([x[0] ** 2], x, kernel="explicit sphere")
    with pytest.raises(ValueError, match="degree >= 2"):
        rep.check_explicit_kernel_bound([x[0] + 1], x)
    with pytest.raises(TypeError, match="polys"):
        rep.check_explicit_kernel_bound(x[0] ** 2, x)
