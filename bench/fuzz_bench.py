"""fuzz: examples per second of a campaign with no target, 1 worker and N workers (N = the machine's cores).

``ascverify fuzz --examples E --seed 0 --database none --no-coverage -q`` (invariants and negative
units of every API and product; quick: every API on atlas-a2 only) as a subprocess, with
``--workers 1`` (the baseline) and ``--workers N``. Examples per second = the report's total cases /
its elapsed seconds (campaign time, without interpreter startup); the wall time with startup is in
the details. Each campaign runs for seconds, so each is run ``1`` (quick) or ``2`` times (median).
Prints "not yet available" when there is no ``ascverify fuzz`` command.
"""

from __future__ import annotations

import importlib.util
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from .common import Config, Figure, note, safe_ratio

NAME = "fuzz"
ROOT = Path(__file__).resolve().parents[1]


def _has_module() -> bool:
    try:
        return importlib.util.find_spec("ascverify.engines.fuzz") is not None
    except (ImportError, ValueError):
        return False


def _has_command() -> bool:
    try:
        from ascverify.cli import main
    except Exception:  # noqa: BLE001 - the CLI in progress elsewhere must not fail the benchmarks
        return False
    return "fuzz" in getattr(main, "commands", {})


def available() -> bool:
    return _has_module() and _has_command()


def campaign(workers: int, examples: int, scope: list[str], tmp: Path, tag: str) -> dict[str, Any]:
    """One campaign; its report's cases and elapsed seconds, and the wall time."""
    report = tmp / f"report-{tag}.json"
    cmd = [sys.executable, "-m", "ascverify", "fuzz", *scope, "--examples", str(examples), "--seed", "0",
           "--workers", str(workers), "--database", "none", "--findings", str(tmp / f"findings-{tag}"),
           "--report", str(report), "--no-coverage", "--no-shrink", "-q"]
    t0 = time.perf_counter()
    r = subprocess.run(cmd, cwd=str(tmp), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - t0
    if r.returncode not in (0, 1) or not report.exists():
        raise RuntimeError(f"ascverify fuzz exited {r.returncode}: {(r.stderr or r.stdout)[-400:]}")
    doc = json.loads(report.read_text())
    totals = doc.get("totals", {})
    return {"cases": int(totals.get("cases", 0)), "elapsed": float(doc.get("elapsed_seconds", wall)), "wall": wall,
            "findings": int(totals.get("findings", 0)), "items": int(totals.get("items", 0))}


def run(cfg: Config) -> list[Figure]:
    if not _has_module():
        note("fuzz: not yet available (ascverify.engines.fuzz does not exist; issue 7 adds it)")
        return []
    if not _has_command():
        note("fuzz: not yet available (ascverify.engines.fuzz exists but there is no `ascverify fuzz` campaign command yet)")
        return []
    n_workers = max(2, os.cpu_count() or 1)
    examples = cfg.size(10, 5, minimum=2)
    scope = ["-p", "atlas-a2"] if cfg.quick else []
    reps = 1 if cfg.quick else 2
    runs: dict[int, list[dict[str, Any]]] = {1: [], n_workers: []}
    with tempfile.TemporaryDirectory(prefix="ascverify-bench-fuzz-") as d:
        tmp = Path(d)
        for rep in range(reps):
            for w in (1, n_workers):
                runs[w].append(campaign(w, examples, scope, tmp, f"{w}-{rep}"))

    def rate(w: int) -> tuple[float, list[float]]:
        rates = [r["cases"] / r["elapsed"] for r in runs[w] if r["elapsed"] > 0]
        return statistics.median(rates), [r["elapsed"] for r in runs[w]]

    r1, s1 = rate(1)
    per_run = {w: ", ".join(f"{r['cases'] / r['elapsed']:.1f}" for r in runs[w]) for w in runs}
    rn, sn = rate(n_workers)
    last1, lastn = runs[1][-1], runs[n_workers][-1]
    what = ("every API on atlas-a2" if scope else "every API and product") + \
        f", --examples {examples}, invariants + negative units, no target"
    return [
        Figure(NAME, "campaign examples/s, 1 worker", r1, "ex/s",
               detail=f"{what}; {last1['cases']} cases in {last1['items']} items, {last1['elapsed']:.2f} s "
                      f"(wall with startup {last1['wall']:.2f} s); findings {last1['findings']}; ex/s per run: "
                      f"{per_run[1]}", samples=s1),
        Figure(NAME, f"campaign examples/s, {n_workers} workers", rn, "ex/s", "1 worker", r1, "ex/s",
               safe_ratio(rn, r1), detail=f"{what}; {lastn['cases']} cases, {lastn['elapsed']:.2f} s (wall "
                                          f"{lastn['wall']:.2f} s); ratio = speed-up over 1 worker (ideal "
                                          f"{n_workers}); ex/s per run: {per_run[n_workers]}", samples=sn,
               baseline_samples=s1),
    ]
