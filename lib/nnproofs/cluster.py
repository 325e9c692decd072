"""The ledger's claims on a Dask cluster, one task per claim (``python -m nnproofs.ledger --cluster MODE``).

``MODE`` is

* ``local``: a :class:`distributed.LocalCluster` of single-threaded worker processes, one per core (a
  workstation's default);
* ``cuda``: a :class:`dask_cuda.LocalCUDACluster`, one worker per visible GPU (``pip install dask-cuda``, an
  optional extra);
* an address such as ``tcp://host:8786``: any running scheduler, for example one that dask-jobqueue started
  on a Slurm cluster.

Each task runs :func:`nnproofs.ledger.run_claim` on one worker thread: the same function the serial runner
calls, with the book's numerical policy applied afresh, so on the CPU the values and verdicts equal the
serial run's bit for bit (``tests/test_cluster.py``). The scale (``BOOK_SCALE``) travels with each task.
A task that raises is retried once; a worker that dies has its task rescheduled by Dask; a claim that still
has no outcome ends the run with :class:`ClaimsWithoutOutcome`, which names it and says why.

Example
-------
>>> from nnproofs import cluster
>>> outcomes = cluster.run_claims(["prelude/square"], "local", workers=2)  # doctest: +SKIP
>>> outcomes[0].where["worker"]  # doctest: +SKIP
'tcp://127.0.0.1:40123'
"""

from __future__ import annotations

import contextlib
import os
import re
import uuid
from collections.abc import Callable, Iterator, Sequence

from . import ledger
from .device import scale

ADDRESS = re.compile(r"^(tcp|tls|ucx|inproc|ws|wss)://\S+$")
MODES = ("local", "cuda")
RETRIES = 1
# Limits that only stop a cluster that can no longer answer: a busy machine must never reach them.
PATIENCE = {"distributed.comm.timeouts.connect": "300s", "distributed.comm.timeouts.tcp": "300s",
            "distributed.deploy.lost-worker-timeout": "300s"}


class ClaimsWithoutOutcome(RuntimeError):
    """Some claims have no outcome after their retry: ``missing`` maps each key to why."""

    def __init__(self, missing: dict[str, str]):
        self.missing = missing
        lines = "\n".join(f"  {key}: {why}" for key, why in missing.items())
        super().__init__(f"{len(missing)} claim(s) without an outcome after {RETRIES} retry:\n{lines}")


def check_mode(mode: str) -> str:
    """``mode`` if it is ``local``, ``cuda`` or a scheduler address, else a ``ValueError`` naming ``--cluster``."""
    if not isinstance(mode, str) or not (mode in MODES or ADDRESS.match(mode)):
        raise ValueError(f"--cluster (mode) must be 'local', 'cuda' or a scheduler address such as "
                         f"'tcp://host:8786', got {mode!r}")
    return mode


@contextlib.contextmanager
def client(mode: str, *, workers: int | None = None) -> Iterator:
    """A :class:`distributed.Client` for ``mode`` (a cluster it starts is closed on exit).

    ``workers`` sets the number of worker processes of a ``local`` cluster (default: one per core).
    """
    check_mode(mode)
    import dask
    from distributed import Client, LocalCluster

    with dask.config.set(PATIENCE):
        if mode == "local":
            n = workers or os.cpu_count() or 1
            with LocalCluster(n_workers=n, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
                    Client(cluster) as c:
                yield c
        elif mode == "cuda":
            try:
                from dask_cuda import LocalCUDACluster
            except ImportError as error:
                raise ModuleNotFoundError("--cluster cuda needs dask-cuda: pip install dask-cuda") from error
            with LocalCUDACluster(threads_per_worker=1, dashboard_address=None) as cluster, Client(cluster) as c:
                yield c
        else:
            with Client(mode) as c:
                yield c


def _task(key: str, book_scale: str) -> tuple:
    """One claim on a worker: the scale of the submitting process, one thread, :func:`ledger.run_claim`."""
    import torch
    from distributed import get_worker

    os.environ["BOOK_SCALE"] = book_scale
    torch.set_num_threads(1)
    return ledger.run_claim(key, worker=get_worker().address)


def gather(c, keys: Sequence[str], task: Callable = _task) -> list[ledger.Outcome]:
    """Submit one ``task(key, scale)`` per claim to the client ``c`` and collect the outcomes in ``keys``' order.

    Raises :class:`ClaimsWithoutOutcome` naming every claim whose task failed twice or was lost.
    """
    from distributed import wait

    claims = ledger.selected(keys)
    # A task key names the claim and this submission: Dask returns the result it holds for a key it has seen,
    # so a key reused across runs on one cluster would return an earlier run's outcome.
    run = uuid.uuid4().hex[:8]
    futures = {cl.key: c.submit(task, cl.key, scale(), key=f"claim-{cl.key}-{run}", pure=False, retries=RETRIES)
               for cl in claims}
    wait(list(futures.values()))
    outcomes, missing = [], {}
    for cl in claims:
        future = futures[cl.key]
        if future.status == "finished":
            check, seconds, where = future.result()
            outcomes.append(ledger.Outcome(cl, check, seconds, where))
        elif future.status == "error":
            missing[cl.key] = f"{type(future.exception()).__name__}: {future.exception()}"
        else:
            missing[cl.key] = f"task {future.status}"
    if missing:
        raise ClaimsWithoutOutcome(missing)
    return outcomes


def run_claims(keys: Sequence[str] | None, mode: str, *, workers: int | None = None) -> list[ledger.Outcome]:
    """Run the claims named by ``keys`` (default: all) on the cluster ``mode``, one task each.

    Parameters
    ----------
    keys : registered claim keys, or ``None`` for every claim (a ``ValueError`` names unknown keys).
    mode : ``local``, ``cuda`` or a scheduler address (:func:`check_mode`).
    workers : worker processes of a ``local`` cluster (default: one per core).

    Returns
    -------
    The outcomes in the book's order (or ``keys``' order), each with ``where`` naming the worker.
    """
    check_mode(mode)
    keys = [cl.key for cl in ledger.selected(keys)]
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int) or workers < 1):
        raise ValueError(f"workers must be a positive int or None, got {workers!r}")
    with client(mode, workers=workers) as c:
        return gather(c, keys)
