"""Chapter 1's constant-depth network: forward throughput and build time, side by side, in one run.

For each resolution K the two-scale GELU network (degree k, dimension d) is built and evaluated on a
batch of points, and compared, on the same device and in the same process, with

* the machine's limit: a dense float64 matmul of the same FLOP count (2 x weights per point), so the
  ratio is the fraction of the dense matmul rate that the network's forward pass reaches;
* the peer (d = 1): the same piecewise polynomial evaluated directly, by locating the fine cell
  (``floor(x/h)``) and summing the local polynomial, from the very table the network stores;
* its build time, against K (the construction is vectorised: it should grow like the number of
  parameters, ~K^(2d)).

Ratios are printed and written as JSON with provenance; absolute times vary between runs, ratios much
less. Run: ``python benchmarks/smooth_throughput.py --out results.json``.
"""

from __future__ import annotations

import argparse
import sys

import numpy as np
import torch

from nnproofs import device as book_device
from nnproofs import smooth
from timing import best_time, dense_matmul_time, write_results



def piecewise_polynomial(f, K: int, k: int, dev: torch.device):
    """The network's own table (grid 0), evaluated directly: ``x -> Σ_a c_a[cell(x)] u(x)^a``."""
    table = smooth.local_polynomials(f, K, k, 1, (0.0,), device=dev)  # (k+1, K+2, K)
    h = 1.0 / K**2

    def evaluate(x: torch.Tensor) -> torch.Tensor:
        fine = torch.clamp(torch.floor(x[:, 0] / h), 0, K**2 - 1).long()
        u = x[:, 0] / h - fine
        coefficients = table[:, fine // K + 1, fine % K]  # (k+1, n)
        value = coefficients[-1]
        for a in range(k - 1, -1, -1):  # Horner
            value = value * u + coefficients[a]
        return value

    return evaluate



def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", help="write the results as JSON here")
    parser.add_argument("--k", type=int, default=2, help="local polynomial degree (default 2)")
    args = parser.parse_args(argv)
    dev = book_device.setup()
    f = smooth.chapter_target
    rows = []
    settings = [(1, K) for K in book_device.sizes(ci=(4, 8, 16, 32), full=(8, 16, 32, 64, 128))]
    settings += [(2, K) for K in book_device.sizes(ci=(2, 3), full=(3, 4, 5, 6))]
    for d, K in settings:
        n = book_device.sizes(ci=1 << 13, full=1 << 18) if d == 1 else book_device.sizes(ci=1 << 11, full=1 << 15)
        x = torch.rand(n, d, dtype=torch.float64, device=dev)
        t_build = best_time(lambda: smooth.constant_depth_network(f, k=args.k, K=K, d=d, device=dev), dev, repeats=2)
        net = smooth.constant_depth_network(f, k=args.k, K=K, d=d, device=dev)
        weights = sum(m.weight.numel() for m in net if isinstance(m, torch.nn.Linear))
        params = sum(p.numel() for p in net.parameters())
        flops = 2.0 * weights * n
        with torch.no_grad():
            t_net = best_time(lambda: net(x), dev)
        t_matmul = dense_matmul_time(flops, dev)
        row = {"d": d, "K": K, "k": args.k, "parameters": params, "points": n, "build_s": t_build,
               "points_per_s": n / t_net, "gflops_per_s": flops / t_net / 1e9,
               "network_over_matmul_rate": t_matmul / t_net}
        line = (f"d={d} K={K:3d} N={params:>10,d}  build {t_build:7.3f} s  network {n / t_net:10.3e} pts/s"
                f"  = {row['gflops_per_s']:7.2f} GFLOP/s, x{row['network_over_matmul_rate']:6.3f} of dense matmul")
        if d == 1:
            lookup = piecewise_polynomial(f, K, args.k, dev)
            with torch.no_grad():
                net_error = float((net(x)[:, 0] - f(x)).abs().max())
            lookup_error = float((lookup(x) - f(x)).abs().max())
            # the network blends two shifted grids near breakpoints, the lookup uses grid 0 only: both are O(h^(k+1))
            assert net_error <= 2 * lookup_error + 1e-9, (net_error, lookup_error)
            t_lookup = best_time(lambda: lookup(x), dev)
            row["network_over_lookup"] = t_lookup / t_net
            row["network_error"], row["lookup_error"] = net_error, lookup_error
            line += f", x{row['network_over_lookup']:8.4f} of the direct lookup"
        rows.append(row)
        print(line, flush=True)
    for d in (1, 2):
        sub = [r for r in rows if r["d"] == d]
        if len(sub) >= 2:
            slope = float(np.polyfit(np.log([r["K"] for r in sub]), np.log([r["build_s"] for r in sub]), 1)[0])
            n_slope = float(np.polyfit(np.log([r["K"] for r in sub]), np.log([r["parameters"] for r in sub]), 1)[0])
            print(f"d={d}: build time grows like K^{slope:.2f}; parameters like K^{n_slope:.2f} (asymptotically K^{2 * d})")
            for r in sub:
                r["build_slope_in_K"] = slope
    write_results(args.out, dev, smooth_throughput=rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
