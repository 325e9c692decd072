"""Valid, cheap calls of every public callable of nnproofs.representation, for tests/test_fuzz.py."""

import sympy
import torch

X = sympy.symbols("x1:4", real=True)
POLY = X[0] ** 2 * X[1] - X[2] / 2 + 1  # degrees 1 and 3, d = 3
SMALL = X[0] * X[1] + X[1] / 2  # degrees 1 and 2


def _target(d):
    v = sympy.symbols(f"x1:{d + 1}", real=True)
    return v[0] * v[-1] + v[0], v


def _build(**extra):
    return lambda: dict(poly=SMALL, variables=X[:2], **extra)


# name in __all__ -> a function of no arguments returning the keyword arguments of a valid call that finishes in
# well under a second at ci scale (the harness fuzzes these and every defaulted parameter).
CASES = {
    "SharpenedRepresentation": lambda: dict(
        variables=X[:2], sigma=1.0, beta=2.0, constant=0.0, parts={1: X[1] / 2, 2: X[0] * X[1]},
        kernels={1: X[1] / 2, 2: X[0] * X[1]}),
    "bias_sign_control": _build(),
    "check_dimension_stability": lambda: dict(target=_target, ds=[2, 3]),
    "check_eigenvalues": lambda: dict(ds=[2, 3], k_max=3),
    "check_explicit_kernel_bound": lambda: dict(polys=[POLY], variables=X),
    "check_fischer_identity": lambda: dict(polys=[POLY], variables=X),
    "check_monte_carlo_rate": lambda: dict(poly=SMALL, variables=X[:2], ns=[1000, 4000], replicates=10,
                                           test_points=50),
    "check_unbiasedness": lambda: dict(poly=SMALL, variables=X[:2], width=1000, replicates=20, test_points=20),
    "compare_constants": lambda: dict(target=_target, ds=[2, 3]),
    "default_comparison_dimensions": lambda: dict(),
    "default_dimension": lambda: dict(),
    "default_dimensions": lambda: dict(),
    "default_ns": lambda: dict(),
    "default_replicates": lambda: dict(),
    "default_target": lambda: dict(d=3),
    "default_unbiasedness_sizes": lambda: dict(),
    "dimension_free_constant": lambda: dict(k=3),
    "dimension_free_limit": lambda: dict(k=3),
    "detection_power": lambda: dict(law=torch.linspace(-1, 1, 60, dtype=torch.float64).reshape(6, 10).cos(),
                                    target=torch.ones(10, dtype=torch.float64), threshold=4.0, variance=0.5,
                                    replicates=20),
    "explicit_representation": _build(),
    "explicit_sphere_representation": _build(),
    "fischer_norm": lambda: dict(poly=POLY, variables=X),
    "forward_heat_control": _build(),
    "funk_hecke_eigenvalue": lambda: dict(k=4, j=2, d=3),
    "heavy_tail": lambda: dict(draws=[[1.0, 0.8, 1.2]], predictions=[1.0], failed=True),
    "markov_median_limit": lambda: dict(count=20),
    "mean_scaled_control": lambda: dict(scale=1.1),
    "radial_second_moment": lambda: dict(k=3, j=2, d=4),
    "relu_square_integral": lambda: dict(k=3, t=torch.linspace(0, 1, 5, dtype=torch.float64), beta=2.0),
    "representation_quadrature": lambda: dict(poly=SMALL, variables=X[:2], point=[0.3, -0.2]),
    "ridge_polynomial": lambda: dict(variables=X, degrees=[1, 2]),
    "sharpened_representation": _build(),
    "sphere_weight_moment": lambda: dict(k=3, d=4),
    "squared_norm_target": lambda: dict(d=3),
    "unsharpened_control": _build(),
}

# name in __all__ -> why it is not called by the fuzz test (a result type built by the checks, a module, a constant
# table). Callables that readers call are never exempt.
EXEMPT = {}
