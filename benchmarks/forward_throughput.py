"""Forward-pass throughput of Yarotsky's square, side by side with two references, in one run.

For each depth m the network f_m (width 5, m hidden layers) is evaluated on a batch of points and
compared, on the same device and in the same process, with

* the peer: the same function as a piecewise-linear interpolant of x^2 at j/2^m
  (``torch`` searchsorted + lerp on the device; ``numpy.interp`` on the CPU), and
* the machine's limit: a dense float64 matmul of the same FLOP count (2 * parameters per point).

Printed and written as ratios (network / reference), which are stable across noisy machines where
absolute times are not. Run: ``python benchmarks/forward_throughput.py --out results.json``.
"""

from __future__ import annotations

import argparse
import sys

import numpy as np
import torch

from nnproofs import device as book_device
from nnproofs.gadgets import yarotsky_square
from timing import best_time, dense_matmul_time, write_results
from nnproofs.networks import architecture



def interpolant(m: int, x: torch.Tensor) -> torch.Tensor:
    """The piecewise-linear interpolant of x^2 at j/2^m, evaluated with searchsorted and lerp."""
    nodes = torch.linspace(0, 1, 2**m + 1, dtype=x.dtype, device=x.device)
    j = torch.searchsorted(nodes, x.reshape(-1)).clamp(1, 2**m)
    left, right = nodes[j - 1], nodes[j]
    return torch.lerp(left**2, right**2, (x.reshape(-1) - left) / (right - left))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", help="write the results as JSON here")
    args = parser.parse_args(argv)
    dev = book_device.setup()
    n = book_device.sizes(ci=1 << 16, full=1 << 22)
    x = torch.rand(n, 1, device=dev)
    rows = []
    for m in book_device.sizes(ci=(4, 8, 12), full=(4, 8, 12, 16)):
        net = yarotsky_square(m, device=dev)
        flops = 2 * architecture(net).parameters * n
        with torch.no_grad():
            assert torch.allclose(net(x).reshape(-1), interpolant(m, x), atol=1e-12), "network != interpolant"
            t_net = best_time(lambda: net(x), dev)
        t_interp = best_time(lambda: interpolant(m, x), dev)
        t_matmul = dense_matmul_time(flops, dev)
        row = {"m": m, "points": n, "points_per_s": n / t_net, "interpolant_points_per_s": n / t_interp,
               "network_over_interpolant": t_interp / t_net, "network_over_matmul_rate": t_matmul / t_net}
        if dev.type == "cpu":
            xs = x.reshape(-1).numpy()
            nodes = np.linspace(0, 1, 2**m + 1)
            t_np = best_time(lambda: np.interp(xs, nodes, nodes**2), dev)
            row["network_over_numpy_interp"] = t_np / t_net
        rows.append(row)
        print(f"m={m:2d}  network {n / t_net:10.3e} pts/s   vs interpolant x{t_interp / t_net:6.2f}"
              f"   vs dense-matmul rate x{t_matmul / t_net:7.4f}"
              + (f"   vs numpy.interp x{row['network_over_numpy_interp']:6.2f}" if "network_over_numpy_interp" in row else ""))
    write_results(args.out, dev, forward_throughput=rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
