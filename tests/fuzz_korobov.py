"""Valid, cheap calls of every public callable of nnproofs.korobov, for tests/test_fuzz.py."""
import torch

from nnproofs import korobov


def _points(n=64, d=2):
    return korobov.uniform_points(n, d, seed=0)


def _interpolant(d=2, level=3, degree=1):
    return korobov.sparse_grid_interpolant(korobov.korobov_example(d), d=d, level=level, degree=degree)


# name in __all__ -> a function of no arguments returning the keyword arguments of a valid call that
# finishes in well under a second at ci scale (the harness fuzzes these and every defaulted parameter).
CASES = {
    "sparse_grid_interpolant": lambda: dict(f=korobov.korobov_example(2), d=2, level=3),
    "sparse_grid_size": lambda: dict(level=5, d=3),
    "level_multi_indices": lambda: dict(level=4, d=3),
    "korobov_example": lambda: dict(d=3),
    "basis_sum_target": lambda: dict(d=2, level=3),
    "read_class": lambda: dict(f=korobov.korobov_example(2), d=2, m=2, interpolant=_interpolant()),
    "coordinate_differences": lambda: dict(f=korobov.korobov_example(2), d=2, order=2),
    "mixed_differences": lambda: dict(f=korobov.korobov_example(2), d=2),
    "mixed_convergence": lambda: dict(f=korobov.korobov_example(2), d=2),
    "lattice_hole": lambda: dict(d=3),
    "higher_mixed_convergence": lambda: dict(f=korobov.korobov_example(3), d=3, orders=(2, 2, 2)),
    "scaled_surplus_maxima": lambda: dict(interpolant=_interpolant()),
    "surplus_growth": lambda: dict(interpolant=_interpolant()),
    "error_trend": lambda: dict(f=korobov.korobov_example(2), interpolant=_interpolant()),
    "basis_product_network": lambda: dict(d=2, s=4),
    "relu_sparse_grid_network": lambda: dict(interpolant=_interpolant(), s=4),
    "bit_extract": lambda: dict(words=korobov.pack_bits(torch.tensor([[1.0, 0.0, 1.0]], dtype=torch.float64)),
                                bits=3),
    "complement_bits": lambda: dict(words=korobov.pack_bits(torch.tensor([[1.0, 0.0, 1.0]], dtype=torch.float64)),
                                    bits=3),
    "pack_bits": lambda: dict(digits=torch.tensor([[1.0, 0.0, 1.0], [0.0, 1.0, 1.0]], dtype=torch.float64)),
    "super_approximation_network": lambda: dict(f=korobov.korobov_example(1), m=2, W=2, L=2),
    "band_profile": lambda: dict(network=korobov.super_approximation_network(korobov.korobov_example(1), m=2, W=2,
                                                                             L=2),
                                 f=korobov.korobov_example(1)),
    "partitioned_network": lambda: dict(f=korobov.korobov_example(1), W=2, L=2),
    "classical_relu_interpolant": lambda: dict(f=korobov.korobov_example(1), K=16),
    "network_b_overtakes": lambda: dict(nonzero=10_000, W=4, L=4),
    "check_sparse_grid_levels": lambda: dict(f=korobov.korobov_example(2), d=2, levels=[3, 4, 5], samples=500),
    "check_relu_sparse_grid_network": lambda: dict(f=korobov.basis_sum_target(2, 3), d=2, level=3, ss=[4, 6],
                                                   samples=256),
    "check_bit_extraction": lambda: dict(bits=[4, 8], words=100),
    "check_super_approximation": lambda: dict(f=korobov.korobov_example(1), m=2, WL=[(2, 2), (2, 4)]),
    "check_super_approximation_derivative": lambda: dict(f=korobov.korobov_example(1), m=2, WL=[(2, 2), (2, 4)],
                                                         samples=256),
    "check_partitioned_network": lambda: dict(f=korobov.korobov_example(1), WL=[(2, 2), (2, 4)], samples=256),
    "clamped_product": lambda: dict(s=4),
    "interpolant_without_level": lambda: dict(f=korobov.korobov_example(2), d=2, level=3),
    "default_levels": lambda: dict(d=2),
    "default_wl": lambda: dict(m=2, d=1),
    "default_wl_partition": lambda: dict(),
}
# name in __all__ -> why it is not called by the fuzz test (a result type built by the checks, a
# module, a constant table). Callables that readers call are never exempt.
EXEMPT = {
    "SparseGridInterpolant": "a result type, built by sparse_grid_interpolant()",
    "ClassReading": "a result type, built by read_class()",
    "ReLUSparseGridNetwork": "a result type, built by relu_sparse_grid_network()",
    "SuperApproximationNetwork": "a result type, built by super_approximation_network()",
    "SparseSuperApproximationNetwork": "a result type, built by super_approximation_network(d=2)",
    "BandProfile": "a result type, built by band_profile()",
    "PartitionedNetwork": "a result type, built by partitioned_network()",
}
