"""The rates ledger: every claim of the book, registered once, run on demand.

Each chapter module registers its claims with :func:`claim`; a claim is a function that runs the
chapter's own check at the chapter's own sizes (which follow ``BOOK_SCALE``) and returns a
:class:`~nnproofs.rates.RateCheck`. Negative controls are registered with ``control=True``: for
them the check must *fail*.

Two ways to obtain outcomes:

* a chapter, when it executes a claim's check, calls :func:`record`; the outcomes go to one JSON file
  per chapter in the build folder (``_build/ledger/<chapter>.json``), and the book's ledger page
  renders them with :func:`recorded_outcomes`, which fails when a registered claim was not recorded
  or is not as asserted. So the ledger shows this build's values without re-running a single check;
* :func:`run_claims` runs claims on demand: the GPU check, the tests and the command line.

Command line (needs only torch, numpy and this package; ``--cluster`` needs ``dask`` and ``distributed``)::

    python -m nnproofs.ledger --out results.json [--only KEY ...] [--chapter PAGE ...] [--scale ci|full]
                              [--cluster MODE]

``--cluster`` runs one task per claim on a Dask cluster (:mod:`nnproofs.cluster`): ``local`` (one
single-threaded worker process per core), ``cuda`` (one worker per visible GPU, with ``dask-cuda``) or the
address of a running scheduler (``tcp://host:8786``). Without it the claims run one after another here.
Either way each claim runs through :func:`run_claim`, so the outcomes are the same.
"""

from __future__ import annotations

import argparse
import datetime
import importlib
import json
import os
import platform
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import torch

from .rates import RateCheck, format_measured

CHAPTER_MODULES = (
    "nnproofs.squaring",
    "nnproofs.smooth",
    "nnproofs.korobov",
    "nnproofs.representation",
    "nnproofs.barrier",
)
_CLAIMS: dict[str, Claim] = {}
_RECORDED: dict[str, dict[str, dict]] = {}  # chapter -> key -> record, for this kernel's chapter
LEDGER_DIR = "BOOK_LEDGER_DIR"  # environment variable: where record() writes, recorded_outcomes() reads


@dataclass(frozen=True)
class Claim:
    """One executable claim: where the book states it and how to run it."""

    key: str
    chapter: str  # the chapter's document name, e.g. "book/00_prelude"
    label: str  # the theorem's label in that chapter
    statement: str
    run: Callable[[], RateCheck]
    control: bool = False  # a negative control: the check must fail


@dataclass(frozen=True)
class Outcome:
    """A claim, the check it produced, and whether that is what the book asserts."""

    claim: Claim
    check: RateCheck
    seconds: float | None = None  # None: recorded by its chapter, not timed by the ledger
    where: dict | None = None  # which process ran it: worker, device, torch (None: recorded by its chapter)

    @property
    def as_asserted(self) -> bool:
        """A claim holds when its check passes; a control holds when its check fails (not when it is inconclusive)."""
        return as_asserted(self.check, self.claim.control)


def as_asserted(check: RateCheck, control: bool) -> bool:
    """``PASSED`` for a claim, ``FAILED`` for a negative control: an INCONCLUSIVE control has not been rejected."""
    return check.verdict == ("FAILED" if control else "PASSED")


def claim(key: str, *, chapter: str, label: str, statement: str, control: bool = False):
    """Register the decorated zero-argument function as the claim ``key`` of ``chapter``."""

    def register(run: Callable[[], RateCheck]) -> Callable[[], RateCheck]:
        if key in _CLAIMS:
            raise ValueError(f"claim key {key!r} is registered twice")
        _CLAIMS[key] = Claim(key, chapter, label, statement, run, control)
        return run

    return register


def claims() -> list[Claim]:
    """Every registered claim, in the book's order (chapter modules are imported on first use)."""
    for module in CHAPTER_MODULES:
        importlib.import_module(module)
    return list(_CLAIMS.values())


def selected(keys: Sequence[str] | None = None) -> list[Claim]:
    """The registered claims named by ``keys`` (default: all), in that order; a ``ValueError`` names unknown keys."""
    known = {c.key: c for c in claims()}
    if keys is None:
        return list(known.values())
    unknown = [k for k in keys if k not in known]
    if unknown:
        raise ValueError(f"unknown claim keys {unknown}; known keys: {sorted(known)}")
    return [known[k] for k in keys]


def run_claim(key: str, worker: str = "serial") -> tuple[RateCheck, float, dict]:
    """Run the claim ``key`` in this process: its check, its seconds, and where it ran.

    The book's numerical policy is applied afresh first (:func:`nnproofs.device.setup`: float64, TF32 off,
    every generator seeded), so a claim's outcome does not depend on the claims run before it in the same
    process: the serial runner and each task of a cluster (:mod:`nnproofs.cluster`) call this alike.
    """
    from .device import setup

    claim_ = selected([key])[0]
    device = setup()
    start = time.perf_counter()
    check = claim_.run()
    seconds = time.perf_counter() - start
    where = {"worker": worker, "host": platform.node(), "device": device_name(device), "torch": torch.__version__,
             "threads": torch.get_num_threads()}
    return check, seconds, where


def run_claims(keys: Sequence[str] | None = None) -> list[Outcome]:
    """Run the claims named by ``keys`` (default: all) one after another here, and time each."""
    outcomes = []
    for c in selected(keys):
        check, seconds, where = run_claim(c.key)
        outcomes.append(Outcome(c, check, seconds, where))
    return outcomes


def records_dir() -> Path | None:
    """Where chapters record their claims: ``$BOOK_LEDGER_DIR``, else ``_build/ledger`` of the book.

    The book is found by walking up from the working directory to the folder holding ``_toc.yml``
    (chapters execute in ``book/``, their twins in ``notebooks/``). ``None`` outside a book checkout
    (a notebook opened elsewhere): then :func:`record` keeps the outcome in memory only.
    """
    if os.environ.get(LEDGER_DIR):
        return Path(os.environ[LEDGER_DIR])
    for folder in (Path.cwd(), *Path.cwd().parents):
        if (folder / "_toc.yml").is_file():
            return folder / "_build" / "ledger"
    return None


def record(key: str, check: RateCheck) -> None:
    """Record ``check`` as this execution's outcome of the registered claim ``key``.

    A chapter calls this where it executes the claim's check (with the same target and sizes as the
    claim's ``run``). The chapter's records are rewritten to ``records_dir()/<chapter>.json`` at each
    call, so the file always holds everything the chapter has executed so far.
    """
    known = {c.key: c for c in claims()}
    if key not in known:
        raise ValueError(f"key={key!r} is not a registered claim; known keys: {sorted(known)}")
    if not isinstance(check, RateCheck):
        raise TypeError(f"check for {key!r} must be a RateCheck, got {type(check).__name__}")
    c = known[key]
    from .device import device

    records = _RECORDED.setdefault(c.chapter, {})
    records[key] = {"key": key, "control": c.control, "as_asserted": as_asserted(check, c.control),
                    "check": check.to_dict()}
    folder = records_dir()
    if folder is None:
        return
    folder.mkdir(parents=True, exist_ok=True)
    document = {"chapter": c.chapter, "provenance": provenance(device()), "claims": list(records.values())}
    path = folder / f"{c.chapter.split('/')[-1]}.json"
    path.write_text(json.dumps(document, indent=1, ensure_ascii=False), encoding="utf-8")


def recorded_outcomes(folder: str | Path | None = None) -> list[Outcome]:
    """Every registered claim's outcome as its chapter recorded it, in the book's order.

    Raises ``ValueError`` naming the claims that no chapter recorded (a chapter that did not run, or
    a claim whose chapter forgot to call :func:`record`) and records of unknown claims.
    """
    folder = Path(folder) if folder is not None else records_dir()
    if folder is None or not folder.is_dir():
        raise ValueError(f"no ledger records in {folder}: execute the chapters first (make book)")
    recorded = {}
    for path in sorted(folder.glob("*.json")):
        for item in json.loads(path.read_text(encoding="utf-8"))["claims"]:
            recorded[item["key"]] = RateCheck.from_dict(item["check"])
    known = claims()
    missing = [c.key for c in known if c.key not in recorded]
    unknown = sorted(set(recorded) - {c.key for c in known})
    if missing or unknown:
        raise ValueError(f"ledger records in {folder} do not match the registered claims: not recorded"
                         f" {missing}, unknown {unknown}")
    return [Outcome(c, recorded[c.key]) for c in known]


def cpu_name() -> str:
    """The CPU's model name (``/proc/cpuinfo`` on Linux), else what :mod:`platform` knows."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def source_commit() -> str:
    """The library's git commit (short hash, ``+changes`` when the tree differs from it), or ``unknown``."""
    here = Path(__file__).resolve().parent

    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=here, capture_output=True, text=True, timeout=10,
                              check=True).stdout.strip()

    try:
        commit = git("rev-parse", "--short", "HEAD")
        return commit + ("+changes" if git("status", "--porcelain", "--untracked-files=no") else "")
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def device_name(device: torch.device) -> str:
    """The GPU's name, or ``cpu (<model>)``."""
    return torch.cuda.get_device_name(device) if device.type == "cuda" else f"cpu ({cpu_name()})"


def provenance(device: torch.device) -> dict:
    """Where, when and from which sources results were produced."""
    from . import __version__
    from .device import scale

    return {
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "device": device_name(device),
        "torch": torch.__version__,
        "nnproofs": __version__,
        "commit": source_commit(),
        "python": platform.python_version(),
        "scale": scale(),
    }


def chapter_outcomes(chapter: str) -> list[Outcome]:
    """The outcomes that this kernel recorded for ``chapter`` (e.g. ``"book/02_korobov"``), in the book's order.

    A chapter's closing mini-ledger: raises ``ValueError`` naming the chapter's registered claims that
    were not recorded, so the table cannot silently leave a claim out.
    """
    mine = [c for c in claims() if c.chapter == chapter]
    if not mine:
        chapters = sorted({c.chapter for c in claims()})
        raise ValueError(f"chapter={chapter!r} registers no claim; chapters with claims: {chapters}")
    records = _RECORDED.get(chapter, {})
    missing = [c.key for c in mine if c.key not in records]
    if missing:
        raise ValueError(f"{chapter} has not recorded {missing} in this kernel: run the whole chapter first")
    return [Outcome(c, RateCheck.from_dict(records[c.key]["check"])) for c in mine]


def markdown_table(outcomes: Sequence[Outcome], *, headings: bool = True) -> str:
    """The ledger in MyST: per chapter, a table of its claims, then a table of its negative controls.

    Each row reads verdict first, then the claim with a ``{prf:ref}`` link to its theorem, whose
    number is the link text ("Theorem 2.1"; the statement is not: a ``<`` in it would end a title), the
    quantity measured,
    the measured value beside the required one, and the further requirements that held. Rendered with
    ``nb_render_markdown_format: myst``, so a link to a label that does not exist fails the book build
    (``-n -W``) instead of leaving a dead link. ``headings=False`` leaves out each chapter's title (a
    chapter's own mini-ledger).
    """

    def cell(text: str) -> str:
        return text.replace("|", "\\|")

    def table(rows: Sequence[Outcome], verdicts: tuple[str, str]) -> list[str]:
        lines = ["| verdict | claim (quantity measured) | measured | required | further requirements |",
                 "|---|---|---|---|---|"]
        for o in rows:
            k = o.check
            held = sum(k.requirements.values())
            further = f"{held} of {len(k.requirements)} hold" if k.requirements else "none"
            lines.append("| " + " | ".join([
                verdicts[0] if o.as_asserted else verdicts[1],
                f"{cell(o.claim.statement)} ({{prf:ref}}`{o.claim.label}`; *{cell(k.quantity)}*)",
                format_measured(k.measured),
                cell(k.requirement(compact=True)),
                further,
            ]) + " |")
        return lines

    parts = []
    for chapter in dict.fromkeys(o.claim.chapter for o in outcomes):
        mine = [o for o in outcomes if o.claim.chapter == chapter]
        if headings:
            parts.append(f"**{{doc}}`/{chapter}`**")
        claims_ = [o for o in mine if not o.claim.control]
        controls = [o for o in mine if o.claim.control]
        if claims_:
            parts.append("\n".join(table(claims_, ("holds", "**BROKEN**"))))
        if controls:
            parts.append("Negative controls: each must be rejected by the same check.")
            parts.append("\n".join(table(controls, ("rejected", "**NOT REJECTED**"))))
    return "\n\n".join(parts)


def summary_table(outcomes: Sequence[Outcome]) -> str:
    """One row per chapter: how many of its claims hold and how many of its controls are rejected."""
    rows = ["| chapter | claims that hold | controls rejected | not as asserted |", "|---|---|---|---|"]
    chapters = dict.fromkeys(o.claim.chapter for o in outcomes)
    for chapter in chapters:
        mine = [o for o in outcomes if o.claim.chapter == chapter]
        claims_, controls = [o for o in mine if not o.claim.control], [o for o in mine if o.claim.control]
        broken = [o.claim.key for o in mine if not o.as_asserted]
        rows.append(f"| {{doc}}`/{chapter}` | {sum(o.as_asserted for o in claims_)} of {len(claims_)} |"
                    f" {sum(o.as_asserted for o in controls)} of {len(controls)} | {', '.join(broken) or 'none'} |")
    return "\n".join(rows)


def main(argv: Sequence[str] | None = None) -> int:
    """Run claims, print one line each, write JSON with provenance; exit 1 if any is broken."""
    from .device import setup

    parser = argparse.ArgumentParser(prog="python -m nnproofs.ledger", description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", help="write the results as JSON to this file")
    parser.add_argument("--only", nargs="+", metavar="KEY", help="run only these claims")
    parser.add_argument("--chapter", nargs="+", metavar="PAGE",
                        help="run only the claims of these pages (01_smooth_constant_depth, 02_korobov_grids, ...)")
    parser.add_argument("--scale", choices=("ci", "full"), help="BOOK_SCALE for this run (default: the environment's)")
    parser.add_argument("--cluster", metavar="MODE",
                        help="run on Dask: 'local' (a worker per core), 'cuda' (a worker per GPU) or a scheduler's"
                             " address (tcp://host:8786); default: one process, one claim after another")
    args = parser.parse_args(argv)
    if args.scale:
        os.environ["BOOK_SCALE"] = args.scale
    known = {c.key for c in claims()}
    unknown = sorted(set(args.only or ()) - known)
    if unknown:
        parser.error(f"unknown claim keys {unknown}; known keys: {sorted(known)}")
    if args.chapter:
        pages = {c.chapter.rsplit("/", 1)[-1] for c in claims()}
        if set(args.chapter) - pages:
            parser.error(f"no claims on pages {sorted(set(args.chapter) - pages)}; pages with claims: {sorted(pages)}")
        args.only = [c.key for c in claims() if c.chapter.rsplit("/", 1)[-1] in args.chapter
                     and (args.only is None or c.key in args.only)]
    device = setup()
    if args.cluster:
        from .cluster import run_claims as run_on_cluster

        outcomes = run_on_cluster(args.only, args.cluster)
    else:
        outcomes = run_claims(args.only)
    for o in outcomes:
        status = "ok" if o.as_asserted else "BROKEN"
        print(f"{status:6} {o.claim.key:32} measured {o.check.measured:#.4g} (expected {o.check.expected:#.4g})"
              f" in {o.seconds:.2f} s on {o.where['worker']}")
    if args.out:
        result = {
            "provenance": provenance(device),
            "claims": [
                {"key": o.claim.key, "chapter": o.claim.chapter, "label": o.claim.label, "control": o.claim.control,
                 "as_asserted": o.as_asserted, "seconds": o.seconds, "where": o.where, "check": o.check.to_dict()}
                for o in outcomes
            ],
        }
        with open(args.out, "w", encoding="utf-8") as handle:
            json.dump(result, handle, indent=1, ensure_ascii=False)
    return 0 if all(o.as_asserted for o in outcomes) else 1


if __name__ == "__main__":
    # Run as a script this file is the module __main__, while the chapter modules register their
    # claims with nnproofs.ledger: call that module's main, or the registry seen here is empty.
    from nnproofs.ledger import main as registered_main

    sys.exit(registered_main())
