"""fuzz: campaign throughput, worker scaling, and how fast a default campaign kills realistic buggy kernels.

Figures:

- **examples/s, 1 worker and N workers** (N = the machine's cores): ``ascverify fuzz --examples E --seed 0
  --database none --no-shrink -q`` (invariants and negative units of every API and product; quick: every API on
  atlas-a2 only) as a subprocess. Examples per second = the report's total cases / its elapsed seconds.
- **differential examples/s against Hypothesis alone**, per API that can be a target: one item of a differential
  campaign (the correct kernel of `bench.mutants` as the target: core run, target call, comparison, coverage
  classification) against Hypothesis drawing the same choices (the same strategy: boundary-biased valid cases
  with specified outputs, a seed, a value plan; the same seed and example count) with a trivial test body, in
  alternation in this process. Target: the campaign at least half as fast (ratio >= 0.5).
- **time to kill**: per buggy kernel of `bench.mutants` (52, every API that can be a target), a default campaign
  ``ascverify fuzz API --target FILE:FUNCTION --time 60 --seed S`` as a subprocess; the seconds from its start
  (interpreter start-up included) until its first finding is printed (shrinking included), next to the campaign's
  examples/s. Target: every kernel killed within 60 s. The correct kernels run the same campaign and must get no
  finding. Quick: a representative subset with a shorter budget; tiny scales: one kernel, a few seconds.

``python -m bench.fuzz_bench --kill [--seconds 60] [--seed 0] [--only NAME,...]`` prints the time-to-kill table
alone; ``python -m bench.fuzz_bench --throughput [--api API,...] [--examples N] [--reps R]`` the differential
examples/s table alone (against Hypothesis drawing the same choices).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # python bench/fuzz_bench.py
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    __package__ = "bench"

from .common import Config, Figure, at_least, at_most, interleaved, note, safe_ratio  # noqa: E402

NAME = "fuzz"
ROOT = Path(__file__).resolve().parents[1]
#: The kill budget of a default campaign (the issue's "within a minute").
KILL_SECONDS = 60.0
#: Mutants of the quick run: one or two per API family.
QUICK_KILLS = ("bilinear.rounds_once_at_the_end", "bilinear.mask_words_swapped", "block_reduce.min_ignores_nan",
               "block_reduce.min_masked_block_stored", "reg.load_align_ds_keeps_odd", "reg.mask_gen_b32_as_b16",
               "img2col.dilation_ignored", "img2col.repeat_time_short")


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


# -- throughput without a target: 1 and N workers --------------------------------------------------------------------

def campaign(workers: int, examples: int, scope: list[str], tmp: Path, tag: str) -> dict[str, Any]:
    """One campaign; its report's cases and elapsed seconds, and the wall time."""
    report = tmp / f"report-{tag}.json"
    cmd = [sys.executable, "-m", "ascverify", "fuzz", *scope, "--examples", str(examples), "--seed", "0",
           "--workers", str(workers), "--database", "none", "--findings", str(tmp / f"findings-{tag}"),
           "--report", str(report), "--no-shrink", "-q"]
    t0 = time.perf_counter()
    r = subprocess.run(cmd, cwd=str(tmp), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - t0
    if r.returncode not in (0, 1) or not report.exists():
        raise RuntimeError(f"ascverify fuzz exited {r.returncode}: {(r.stderr or r.stdout)[-400:]}")
    doc = json.loads(report.read_text())
    totals = doc.get("totals", {})
    return {"cases": int(totals.get("cases", 0)), "elapsed": float(doc.get("elapsed_seconds", wall)), "wall": wall,
            "findings": int(totals.get("findings", 0)), "items": int(totals.get("items", 0))}


def worker_figures(cfg: Config) -> list[Figure]:
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


def timed_worker_figures(cfg: Config) -> list[Figure]:
    """A timed differential campaign (BlockReduceMin, its correct kernel) with 1 and N workers: examples/s."""
    from .mutants import correct

    n_workers = max(2, os.cpu_count() or 1)
    seconds = 30.0 if not cfg.quick else 8.0
    kernel = next(k for k in correct() if k.api == "BlockReduceMin")
    rates: dict[int, list[float]] = {1: [], n_workers: []}
    with tempfile.TemporaryDirectory(prefix="ascverify-bench-workers-") as d:
        for rep in range(1 if cfg.quick else 2):
            for w in (1, n_workers):
                report = Path(d) / f"r{w}-{rep}.json"
                cmd = [sys.executable, "-m", "ascverify", "fuzz", kernel.api, "--target", kernel.spec, "--time",
                       f"{seconds:g}", "--seed", str(rep), "--workers", str(w), "--database", "none", "--findings",
                       str(Path(d) / f"f{w}-{rep}"), "--report", str(report), "-q"]
                subprocess.run(cmd, cwd=d, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                doc = json.loads(report.read_text())
                rates[w].append(doc["totals"]["cases"] / max(doc["elapsed_seconds"], 1e-9))
    r1, rn = statistics.median(rates[1]), statistics.median(rates[n_workers])
    return [Figure(NAME, f"timed differential campaign examples/s, {n_workers} workers", rn, "ex/s", "1 worker", r1,
                   "ex/s", safe_ratio(rn, r1),
                   detail=f"ascverify fuzz BlockReduceMin --target {kernel.name} --time {seconds:g} (6 products); "
                          f"ratio = speed-up over 1 worker (ideal {n_workers} on idle cores); per run: 1 worker "
                          f"{', '.join(f'{x:.1f}' for x in rates[1])}, {n_workers} workers "
                          f"{', '.join(f'{x:.1f}' for x in rates[n_workers])}",
                   samples=rates[n_workers], baseline_samples=rates[1])]


# -- differential throughput against Hypothesis alone ----------------------------------------------------------------

class _Quiet:
    def start(self, *a: Any) -> None: ...
    def advance(self, *a: Any, **k: Any) -> None: ...
    def finding(self, *a: Any) -> None: ...
    def done(self, *a: Any) -> None: ...


def differential_figures(cfg: Config, apis: list[str] | None = None, reps: int | None = None) -> list[Figure]:
    """Per API with a correct kernel (``apis``: only those): one differential item against Hypothesis drawing the
    same choices (``reps`` runs of each, in alternation)."""
    from hypothesis import HealthCheck, Phase, given, settings, strategies as st
    from hypothesis import seed as hseed

    from ascverify.engines.fuzz.plan import Unit, derive_seed
    from ascverify.engines.fuzz.runner import SEEDS, ItemRunner, RunOptions, _plans, open_target
    from ascverify.strategies import cases

    from .mutants import correct

    n = cfg.size(150, 30, minimum=4)
    reps = reps or (3 if not cfg.quick else 1)
    kernels = correct() if not cfg.quick or cfg.scale >= 0.1 else correct()[1:2]
    if apis:
        kernels = [k for k in correct() if k.api in apis]
    figures: list[Figure] = []
    for kernel in kernels:
        from ascverify import get_api

        model = get_api(kernel.api)
        product = model.supported_products()[0]
        unit = Unit(kernel.api, product, "differential")
        opts = RunOptions(seed=1, examples=n, findings=None, database="none",
                          target={"kind": "python", "spec": kernel.spec}, cwd=str(ROOT), shrink=False)
        target = open_target(opts)
        counted: dict[str, int] = {}

        def run_campaign() -> int:
            res = ItemRunner(unit, opts, _Quiet(), target).run()
            if res.findings:
                raise RuntimeError(f"{kernel.name}: a finding on a correct kernel: {res.findings[0]['message']}")
            counted["campaign"] = res.cases
            return res.cases

        def run_trivial() -> int:
            got = [0]
            # the strategy is built afresh per run, as each campaign item builds its own
            base = cases(model, product=product, bias=True, specified=True)
            plain = st.tuples(base, SEEDS).flatmap(lambda cs: st.tuples(st.just(cs[0]), st.just(cs[1]),
                                                                        _plans(cs[0].ctx.dtype.name)))

            @hseed(derive_seed(opts.seed, unit.key, 0))
            @settings(max_examples=n, database=None, deadline=None, suppress_health_check=list(HealthCheck),
                      phases=[Phase.explicit, Phase.generate, Phase.target])
            @given(plain)
            def trivial(drawn: Any) -> None:
                got[0] += 1

            trivial()
            counted["trivial"] = got[0]
            return got[0]

        try:
            # a warm-up run of each first (imports, caches and the target's first call are no part of a campaign's rate)
            timed = interleaved({"campaign": (run_campaign, None), "trivial": (run_trivial, None)}, reps,
                                warmup=True)
        finally:
            target.close()
        t_c, s_c, n_c = timed["campaign"]
        t_t, s_t, n_t = timed["trivial"]
        rate_c, rate_t = n_c / t_c, n_t / t_t
        figures.append(at_least(Figure(
            NAME, f"{kernel.api}: differential campaign examples/s", rate_c, "ex/s",
            "Hypothesis drawing the same choices, trivial body", rate_t, "ex/s", safe_ratio(rate_c, rate_t),
            detail=f"{product}; target {kernel.name} (correct); {n} examples, median of {reps} after a warm-up run of "
                   f"each; the campaign runs "
                   f"the core, the target (its own process), the comparison and the rule classification per case; "
                   f"target: >= 0.5x", samples=s_c, baseline_samples=s_t), 0.5))
    return figures


# -- time to kill --------------------------------------------------------------------------------------------------

def kill_run(kernel: Any, seconds: float, seed: int, tmp: Path) -> dict[str, Any]:
    """A default campaign against ``kernel``: when its first finding was printed (None: none within ``seconds``)."""
    tag = kernel.name.replace(".", "-")
    report, findings = tmp / f"report-{tag}.json", tmp / f"findings-{tag}"
    cmd = [sys.executable, "-m", "ascverify", "fuzz", kernel.api, "--target", kernel.spec, "--time", f"{seconds:g}",
           "--seed", str(seed), "--database", "none", "--findings", str(findings), "--report", str(report), "-q"]
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=str(tmp), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    first: float | None = None
    line = ""
    assert proc.stdout is not None
    for raw in proc.stdout:  # findings, one per line, and nothing else
        if raw.strip():
            first = time.perf_counter() - t0
            line = raw.strip()
            proc.send_signal(signal.SIGINT)  # the campaign stops cleanly and writes its report
            break
    try:
        _, err = proc.communicate(timeout=seconds + 60)
    except subprocess.TimeoutExpired:
        proc.kill()
        _, err = proc.communicate()
    wall = time.perf_counter() - t0
    doc = json.loads(report.read_text()) if report.exists() else {}
    totals = doc.get("totals", {})
    elapsed = float(doc.get("elapsed_seconds") or wall)
    found = doc.get("findings") or []
    return {"kernel": kernel.name, "api": kernel.api, "bug": kernel.bug, "killed": first is not None,
            "seconds": first, "campaign_seconds": found[0].get("seconds") if found else None,
            "detected_seconds": found[0].get("detected_seconds") if found else None, "wall": wall,
            "cases": int(totals.get("cases", 0)), "elapsed": elapsed,
            "rate": int(totals.get("cases", 0)) / elapsed if elapsed > 0 else 0.0,
            "finding": line[:300] or (found[0]["message"][:300] if found else ""),
            "shrunk": bool(found[0].get("shrunk")) if found else None, "exit": proc.returncode,
            "stderr": (err or "")[-300:] if proc.returncode not in (0, 1, 130) else ""}


def kill_table(kernels: list[Any], seconds: float, seed: int) -> list[dict[str, Any]]:
    out = []
    with tempfile.TemporaryDirectory(prefix="ascverify-bench-kill-") as d:
        for k in kernels:
            r = kill_run(k, seconds, seed, Path(d))
            state = (f"killed in {r['seconds']:.1f} s" if r["killed"] else
                     f"ERROR (exit {r['exit']}): {r['stderr'][-200:]}" if r["stderr"] else f"SURVIVED {seconds:g} s")
            note(f"fuzz: {k.name}: {state} ({r['cases']} cases, {r['rate']:.0f} ex/s)")
            out.append(r)
    return out


def kill_figures(cfg: Config) -> list[Figure]:
    from .mutants import correct, mutants

    everything = mutants()
    if cfg.scale < 0.1:  # the smoke test: one kernel whose bug shows on the first product, a few seconds
        kernels, seconds = [k for k in everything if k.name == "reg.load_align_ds_keeps_odd"], 10.0
    elif cfg.quick:
        kernels, seconds = [k for k in everything if k.name in QUICK_KILLS], KILL_SECONDS
    else:
        kernels, seconds = everything, KILL_SECONDS
    rows = kill_table(kernels, seconds, seed=0)
    figures = []
    for r in rows:
        value = r["seconds"] if r["killed"] else seconds
        figures.append(at_most(Figure(
            NAME, f"time to kill {r['kernel']} ({r['api']})", value, "s", "campaign examples/s", r["rate"], "ex/s",
            None, detail=f"{r['bug']}; default campaign --time {seconds:g} --seed 0; "
                         + (f"first finding printed after {r['seconds']:.1f} s wall (start-up and shrinking "
                            f"included; {r['campaign_seconds']} s into the campaign, the bug first seen at "
                            f"{r['detected_seconds']} s), {r['cases']} cases, "
                            f"{'shrunk' if r['shrunk'] else 'not shrunk'}: {r['finding'][:160]}" if r["killed"]
                            else f"SURVIVED: no finding in {seconds:g} s ({r['cases']} cases)"),
            samples=[value]), seconds, on="value"))
    killed = sum(r["killed"] for r in rows)
    figures.append(at_least(Figure(NAME, "buggy kernels killed within the budget", 100.0 * killed / max(1, len(rows)),
                                   "%", detail=f"{killed}/{len(rows)} killed within {seconds:g} s each; median time "
                                               f"to kill {statistics.median([r['seconds'] for r in rows if r['killed']] or [0]):.1f} s"),
                            100.0, on="value"))
    good = correct() if not cfg.quick else correct()[:2]
    if cfg.scale < 0.1:
        good = [k for k in correct() if k.api == "LoadAlign"]
    budget = seconds if not cfg.quick else min(seconds, 20.0 if cfg.scale >= 0.1 else 5.0)
    rows_ok = kill_table(good, budget, seed=0)
    wrong = [r for r in rows_ok if r["killed"]]
    figures.append(at_most(Figure(NAME, "findings on correct kernels", float(len(wrong)), "findings",
                                  detail=f"{len(good)} correct kernels ({', '.join(k.name for k in good)}), --time "
                                         f"{budget:g} each; " + (f"false findings: {[r['finding'] for r in wrong]}"
                                                                 if wrong else "none")), 0, on="value"))
    return figures


def run(cfg: Config) -> list[Figure]:
    if not _has_module():
        note("fuzz: not yet available (ascverify.engines.fuzz does not exist; issue 7 adds it)")
        return []
    if not _has_command():
        note("fuzz: not yet available (ascverify.engines.fuzz exists but there is no `ascverify fuzz` campaign command yet)")
        return []
    out = worker_figures(cfg)
    if cfg.scale >= 0.1:
        out += timed_worker_figures(cfg)
    out += differential_figures(cfg)
    out += kill_figures(cfg)
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.fuzz_bench", description=__doc__.split("\n\n")[0])
    p.add_argument("--kill", action="store_true", help="only the time-to-kill table")
    p.add_argument("--seconds", type=float, default=KILL_SECONDS)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--only", metavar="NAME,...", help="kernels by name (e.g. bilinear.mask_words_swapped)")
    p.add_argument("--correct", action="store_true", help="the correct kernels instead of the buggy ones")
    p.add_argument("--json", metavar="FILE", help="write the rows as JSON")
    p.add_argument("--throughput", action="store_true",
                   help="only the differential examples/s table (campaign against Hypothesis alone)")
    p.add_argument("--api", metavar="API,...", help="--throughput: only these APIs")
    p.add_argument("--examples", type=int, default=150, help="--throughput: examples per run")
    p.add_argument("--reps", type=int, default=3, help="--throughput: runs of each, in alternation (median)")
    args = p.parse_args(argv)
    if args.throughput:
        return throughput_main(args)
    from .mutants import correct, mutants

    kernels = correct() if args.correct else mutants()
    if args.only:
        wanted = set(args.only.split(","))
        kernels = [k for k in kernels if k.name in wanted or k.function in wanted]
    rows = kill_table(kernels, args.seconds, args.seed)
    for r in rows:
        state = f"{r['seconds']:6.1f} s" if r["killed"] else "   -    "
        print(f"{r['kernel']:45s} {r['api']:22s} {state}  {r['rate']:7.1f} ex/s  {r['cases']:6d} cases")
    killed = sum(r["killed"] for r in rows)
    print(f"{'found' if args.correct else 'killed'}: {killed}/{len(rows)}")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2) + "\n")
    return 0


def throughput_main(args: argparse.Namespace) -> int:
    """The differential examples/s table alone (``--throughput``)."""
    cfg = Config(quick=False, scale=args.examples / 150)
    apis = args.api.split(",") if args.api else None
    figures = differential_figures(cfg, apis, args.reps)
    for f in figures:
        print(f"{f.figure.split(':')[0]:22s} campaign {f.value:7.1f} ex/s   Hypothesis alone {f.baseline_value:7.1f} "
              f"ex/s   ratio {f.ratio:.2f}x  {'met' if f.met else 'NOT met'}")
    if args.json:
        Path(args.json).write_text(json.dumps([f.to_json() for f in figures], indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
