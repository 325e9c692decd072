"""The ledger on a local Dask cluster against the serial run, side by side, in one run.

Both runs execute the same claims at the same scale in float64 on one thread per process:

* serial: :func:`nnproofs.ledger.run_claims`, one claim after another in this process;
* cluster: :func:`nnproofs.cluster.gather` on a ``LocalCluster`` of ``--workers`` single-threaded worker
  processes, one task per claim; the cluster is started and every chapter imported on every worker (as in
  this process already) before the clock runs, and its start-up is timed apart.

Reported: the speed-up (serial wall time / cluster wall time), the ideal for that many workers (the serial
time over the longest single claim bounds it too: one task cannot be split), the cluster's start-up, and its
per-task overhead: the mean wall time of a no-op task submitted and gathered in a batch. The load average at
the start and end is recorded, since other work on the machine shares the cores.
Run: ``python benchmarks/ledger_cluster.py --out results.json [--workers 2] [--only KEY ...]``.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import torch
from timing import write_results

from nnproofs import cluster, ledger
from nnproofs import device as book_device

NOOP_TASKS = 200


def _noop(i: int) -> int:
    return i


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--only", nargs="+", metavar="KEY")
    args = parser.parse_args(argv)
    device = book_device.setup(threads=1)
    keys = [c.key for c in ledger.selected(args.only)]
    load_start = os.getloadavg()

    start = time.perf_counter()
    serial = ledger.run_claims(keys)
    serial_seconds = time.perf_counter() - start

    start = time.perf_counter()
    with cluster.client("local", workers=args.workers) as client:
        startup = time.perf_counter() - start
        client.run(ledger.claims)  # every chapter imported on every worker, as in this process already
        client.gather(client.map(_noop, range(10), pure=False))  # warm the workers' connections
        start = time.perf_counter()
        client.gather(client.map(_noop, range(NOOP_TASKS), pure=False))
        overhead = (time.perf_counter() - start) / NOOP_TASKS
        start = time.perf_counter()
        spread = cluster.gather(client, keys)
        cluster_seconds = time.perf_counter() - start
    same = all(a.check.to_dict() == b.check.to_dict() for a, b in zip(serial, spread, strict=True))
    longest = max(o.seconds for o in serial)
    ideal = min(args.workers, serial_seconds / longest)
    results = {
        "claims": len(keys), "workers": args.workers, "threads_per_worker": 1,
        "serial_seconds": serial_seconds, "cluster_seconds": cluster_seconds,
        "speedup (serial / cluster)": serial_seconds / cluster_seconds,
        "ideal speedup (min(workers, serial / longest claim))": ideal,
        "longest claim seconds": longest, "cluster startup seconds": startup,
        "per-task overhead seconds (no-op, batch of 200)": overhead,
        "outcomes equal to the serial run's": same,
        "load average (1 min) at start, end": [load_start[0], os.getloadavg()[0]],
        "cpu count": os.cpu_count(), "torch threads": torch.get_num_threads(),
    }
    for name, value in results.items():
        print(f"{name:55} {value:.4g}" if isinstance(value, float) else f"{name:55} {value}")
    write_results(args.out, device, ledger_cluster=results)
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
