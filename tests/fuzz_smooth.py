"""Valid, cheap calls of every public callable of nnproofs.smooth, for tests/test_fuzz.py."""

import torch

from nnproofs import smooth


def _net():
    return smooth.constant_depth_network(smooth.chapter_target, k=1, K=2)


def _relu_net():
    return torch.nn.Sequential(torch.nn.Linear(1, 3, dtype=torch.float64), torch.nn.ReLU(),
                               torch.nn.Linear(3, 1, dtype=torch.float64))


_BUILD = dict(f=smooth.chapter_target, k=1, K=2)

# name in __all__ -> a function of no arguments returning the keyword arguments of a valid call that finishes in well
# under a second at ci scale (the harness fuzzes these and every defaulted parameter).
CASES = {
    "affine_maps": lambda: dict(net=_net()),
    "base_point": lambda: dict(activation="gelu", order=2),
    "chapter_target": lambda: dict(x=torch.rand(8, 1, dtype=torch.float64)),
    "chebyshev_smoothness": lambda: dict(f=smooth.chapter_target),
    "check_constant_depth_rate": lambda: dict(f=smooth.chapter_target, k=0, Ks=[2, 3, 4]),
    "check_curvature": lambda: dict(f=smooth.convex_target, mu=1.0),
    "check_gadget_rate": lambda: dict(activation="gelu", deltas=[1e-2, 3e-3, 1e-3], points=101),
    "check_learning_curve": lambda: dict(f=smooth.learning_target, activation="gelu", ns=[50, 60, 70], seeds=1,
                                         iterations=5),
    "check_relu_bottleneck": lambda: dict(f=smooth.convex_target, mu=1.0, widths=[2, 3], hidden_layers=(1,),
                                          iterations=5),
    "constant_depth_network": lambda: dict(_BUILD),
    "convex_target": lambda: dict(x=torch.rand(8, 1, dtype=torch.float64)),
    "critical_points": lambda: dict(K=3),
    "default_Ks": lambda: dict(k=1),
    "default_bottleneck_widths": lambda: dict(),
    "derivative": lambda: dict(activation="gelu", order=2, at=0.5),
    "evaluation_points": lambda: dict(K=2, d=1),
    "exact_derivative": lambda: dict(activation="gelu", order=2),
    "float32_network": lambda: dict(_BUILD),
    "holder_target": lambda: dict(alpha=1.5),
    "identity_gadget": lambda: dict(activation="gelu"),
    "interpolation_smoothness": lambda: dict(f=smooth.chapter_target),
    "learning_curve": lambda: dict(f=smooth.learning_target, activation="gelu", ns=[50, 60], seeds=1, iterations=5),
    "learning_target": lambda: dict(x=torch.rand(8, 1, dtype=torch.float64)),
    "local_polynomials": lambda: dict(f=smooth.chapter_target, K=2, k=1, d=1, shifts=(0.0,)),
    "local_slopes": lambda: dict(Ks=[2, 4, 8], errors=[1.0, 0.25, 0.0625]),
    "one_degree_short_network": lambda: dict(_BUILD),
    "padded_network": lambda: dict(_BUILD),
    "product_gadget": lambda: dict(activation="gelu", delta=1e-2),
    "read_class": lambda: dict(f=smooth.chapter_target, k=1),
    "parameter_bits": lambda: dict(reading=smooth.read_network(_net())),
    "read_network": lambda: dict(net=_net()),
    "relu_piece_count": lambda: dict(net=_relu_net()),
    "relu_swapped_network": lambda: dict(_BUILD),
    "round_off_floor": lambda: dict(activation="gelu", f=smooth.chapter_target,
                                    x=torch.rand(16, 1, dtype=torch.float64)),
    "square_gadget": lambda: dict(activation="gelu", delta=1e-2),
    "step_reach": lambda: dict(activation="gelu"),
    "without_coarse_factor_network": lambda: dict(_BUILD),
}
# name in __all__ -> why it is not called by the fuzz test (a result type built by the checks, a module, a constant).
EXEMPT = {
    "ClassReading": "a result type, built by read_class()",
    "ExponentReading": "a result type, built by chebyshev_smoothness() and interpolation_smoothness()",
    "NetworkReading": "a result type, built by read_network()",
}
