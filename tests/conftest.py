"""Shared test setup: the book's numerical policy for the whole session, hypothesis without clocks, and GPU
tests skipped without CUDA."""

from __future__ import annotations

import pytest
import torch

import nnproofs.device

try:  # the GPU check runs with torch, numpy and pytest only
    from hypothesis import HealthCheck, settings
except ImportError:
    settings = None
if settings is not None:
    # No test may depend on how busy the machine is: hypothesis's per-example deadline (200 ms by default) and
    # its "too slow" health check both read a clock, so they are off for every property test. Examples are
    # drawn from a fixed seed (derandomize), so a run repeats the previous one's examples exactly.
    settings.register_profile("book", deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
    settings.load_profile("book")


@pytest.fixture(autouse=True, scope="session")
def book_policy():
    """float64 by default, TF32 off, every generator seeded: what each chapter does first."""
    nnproofs.device.setup()
    yield


# Families of parametrized tests whose further variants (another scaling, dimension, statistic or seed of the
# same control) run in `make test-sweeps` only: `make test` keeps the variants named here, so each family's
# near miss and each kind of control still run in CI. `None`: the whole test runs in the sweeps only.
FURTHER_VARIANTS_SLOW = {
    "test_barrier.py::test_an_understated_certificate_is_rejected": {r"\xd70.9", "mean of sides"},
    "test_barrier.py::test_trained_check_on_other_targets": {"2-huber-0"},
    "test_barrier.py::test_a_merge_that_rescales_the_output_weights_is_rejected": {"1.1"},
    "test_barrier_joints.py::test_a_certificate_on_another_statistic_or_side_is_rejected": {
        r"\xd70.9", r"\xd71.1", r"\u03bc_A alone", r"geometric mean \u2016x\u2016"},
    "test_barrier_loss_resolution.py::test_a_spiked_loss_is_never_passed": {
        "1e-06-1e-08-0.3335", "1e-06-1e-08--2.71", "1e-06-1e-08-250.0001"},
    "test_barrier_loss_resolution.py::test_a_spike_between_the_probes_and_the_samples_is_not_passed": {
        "0.0-2e-07", "0.0001-2e-07", "-0.00031-2e-07"},
    "test_cluster.py::test_a_two_worker_cluster_gives_the_serial_outcomes_bit_for_bit": None,
    "test_fused.py::test_fused_network_a_equals_eager": {"3-4-2-True", "4-3-2-False"},
    "test_korobov.py::test_level_check_verdicts_on_held_out_targets_and_near_misses": {"2", "3"},
    "test_korobov.py::test_super_approximation_verdicts_on_held_out_targets": {"sin(pi x) e^x", "kink at 0.41"},
    "test_korobov_class.py::test_every_check_refuses_a_target_that_changes_within_the_call": {"2-1000000000"},
    "test_korobov_class.py::test_a_kink_larger_than_the_lattice_radius_is_never_passed_wherever_it_sits": {"3-1"},
    "test_korobov_class.py::test_the_w1_checks_reject_kinks_as_the_lp_check_does": {"0.375"},
    "test_korobov_class.py::test_second_differences_are_bounded_in_the_class_and_grow_outside": {"1", "2"},
    "test_korobov_soundness.py::test_a_spot_of_a_deep_layer_is_read_exactly": {"0"},
    "test_representation_explicit_bound.py::test_explicit_kernel_is_the_projection_of_the_sharpened_one": {
        "2-degrees0-1.0-41", "3-degrees1-0.7-42", "4-degrees2-1.5-43", "6-degrees4-0.7-45", "3-degrees5-1.5-46"},
    "test_representation_unbiasedness.py::test_held_out_polynomials_pass_both_checks_and_their_near_misses_fail": {"3"},
    "test_representation_unbiasedness.py::test_a_build_of_another_polynomial_fails_every_check": {
        "0.75 f", "f + 5", "f - 1/10", "variables reversed"},
    "test_representation_unbiasedness.py::test_dimension_stability_probes_every_width_a_sampled_check_draws": {"1000"},
    "test_representation_unbiasedness.py::test_a_build_cannot_raise_its_own_thresholds": {"1.0-11", "1.08-13"},
    "test_smooth_soundness.py::test_errors_that_do_not_fall_overall_fail": {"0.9", "0.98"},
    "test_smooth_soundness.py::test_a_build_with_float32_rounded_weights_does_not_pass": {"sigmoid-1", "gelu-2"},
    "test_smooth.py::test_smooth_targets_pass_with_activation_aware_sizes": {"2-gelu", "3-silu", "0-tanh", "1-sigmoid"},
    "test_smooth.py::test_targets_outside_the_class_are_rejected": {
        "|x - a|^2.7, k = 2-gelu", "f + 1e-4|x - a|, k = 2-gelu", "|x - a|^1.3, k = 1-gelu"},
    "test_smooth.py::test_high_frequency_passes_once_resolved": {"1-gelu", "2-tanh"},
    "test_smooth.py::test_an_analytic_target_is_passed_or_pre_asymptotic_at_k1": {"gelu", "tanh"},
    "test_smooth.py::test_a_hoelder_part_fails_the_class_whatever_the_end_slopes": {"<lambda>-2-Ks3", "<lambda>-3-None"},
    "test_smooth.py::test_constant_depth_rate_on_three_targets": {"chapter", "runge"},
    "test_smooth.py::test_relu_floor_on_other_targets": {"<lambda>-2.0"},
    "test_korobov.py::test_super_approximation_rejects_scaled_coefficients": {
        "chapter-2-WL1-1.1", "chapter-2-WL1-0.8", "bubble_exp-1-WL0-1.2"},
    "test_korobov.py::test_level_check_rejects_targets_outside_the_class_in_every_dimension": {
        "kink-3", "square_root_kink-2", "kink-4"},
    "test_korobov.py::test_control_dropped_level_fails": {"sine_product-3-levels1", "bubble_exp-2-levels0"},
    "test_korobov.py::test_partitioned_network_w1_rate": {"f"},
    "test_korobov.py::test_level_rates_in_three_dimensions": {"L2-scaled_bubble", "H1-bubble_exp"},
    "test_representation.py::test_second_moments_against_a_large_monte_carlo_estimate": {
        "sharpened_representation-sphere"},
    "test_representation_unbiasedness.py::test_a_large_constant_term_costs_no_digits": {"1e+16"},
}


@pytest.hookimpl(tryfirst=True)  # before -m selects: the marks added here decide what `make test` runs
def pytest_collection_modifyitems(config, items):
    families = {}
    for item in items:
        key = f"{item.path.name}::{getattr(item, 'originalname', item.name)}"
        if key in FURTHER_VARIANTS_SLOW:
            kept = FURTHER_VARIANTS_SLOW[key]
            variant = item.callspec.id if hasattr(item, "callspec") else None
            families.setdefault(key, set()).add(variant)
            if kept is None or variant not in kept:
                item.add_marker(pytest.mark.slow)
    for key, variants in families.items():  # a renamed variant must not silently leave make test
        missing = (FURTHER_VARIANTS_SLOW[key] or set()) - variants
        if missing:
            raise pytest.UsageError(f"{key}: the variants {sorted(missing)} kept for make test no longer exist;"
                                    f" its variants are {sorted(map(str, variants))}")
    if torch.cuda.is_available():
        return
    skip = pytest.mark.skip(reason="needs CUDA (torch.cuda.is_available() is false)")
    for item in items:
        if item.get_closest_marker("gpu") is not None:
            item.add_marker(skip)
