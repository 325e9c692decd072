"""Sampling and evaluating sharpened-representation networks, side by side with the machine's matmul rate.

For each width n the chapter's polynomial (degrees 1..4, d variables, inputs on the sphere) is turned
into a width-n network by ``SharpenedRepresentation.sample`` and evaluated at a batch of points, and
in the same process, on the same device, a dense float64 matmul with the same FLOP count is timed
(forward FLOPs: 2·d·n per point for the first layer, n for the ReLU-free output sum counted as 2·n).
Printed and written as ratios (network rate / matmul rate), which are stable where absolute times are
not. The representation's set-up (sympy heat flow, M_k estimates) is timed separately: it is paid once
per polynomial. Run: ``python benchmarks/representation_sampling.py --out results.json``.
"""

from __future__ import annotations

import argparse
import sys
import time

import torch

from nnproofs import device as book_device
from nnproofs import measure
from nnproofs import representation as rep
from timing import best_time, dense_matmul_time, write_results

CHUNK = 1024  # points per forward chunk: the hidden activations of width 1e5 stay below 1 GB



def evaluate(net: torch.nn.Module, x: torch.Tensor) -> torch.Tensor:
    """``net(x)`` in chunks of ``CHUNK`` points."""
    with torch.no_grad():
        return torch.cat([net(x[i : i + CHUNK]) for i in range(0, x.shape[0], CHUNK)])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", help="write the results as JSON here")
    args = parser.parse_args(argv)
    dev = book_device.setup()
    d = book_device.sizes(ci=10, full=50)
    points = book_device.sizes(ci=2_000, full=10_000)
    widths = book_device.sizes(ci=(1_000, 10_000, 20_000), full=(1_000, 10_000, 100_000))
    start = time.perf_counter()
    poly, variables = rep.default_target(d)
    representation = rep.sharpened_representation(poly, variables, device=dev)
    setup_s = time.perf_counter() - start
    generator = torch.Generator(device=dev).manual_seed(0)
    x = measure.sample_inputs(points, d, "sphere", generator=generator)
    rows = []
    print(f"device {dev}, d = {d}, {points} points; set-up of the representation {setup_s:.2f} s")
    for n in widths:
        t_sample = best_time(lambda: representation.sample(n, generator=generator), dev)
        net = representation.sample(n, generator=generator)
        t_eval = best_time(lambda: evaluate(net, x), dev)
        flops = 2.0 * points * n * (d + 1)
        t_matmul = dense_matmul_time(flops, dev)
        rmse = float(((evaluate(net, x).reshape(-1) - representation.target(x)) ** 2).mean().sqrt())
        row = {"width": n, "points": points, "d": d, "sample_s": t_sample, "evaluate_s": t_eval,
               "forward_gflops": flops / t_eval / 1e9, "forward_over_matmul_rate": t_matmul / t_eval,
               "sample_over_evaluate": t_sample / t_eval, "rms_error": rmse,
               "predicted_rms": representation.predicted_mse(n) ** 0.5}
        rows.append(row)
        print(f"n={n:7d}  sample {t_sample:8.4f} s  evaluate {t_eval:8.4f} s  ({row['forward_gflops']:7.2f} GFLOP/s,"
              f" x{row['forward_over_matmul_rate']:5.3f} of dense matmul)  RMS {rmse:.3g} (predicted {row['predicted_rms']:.3g})")
    write_results(args.out, dev, setup_s=setup_s, representation_sampling=rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
