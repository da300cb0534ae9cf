"""Run the benchmarks: ``python -m bench.run [--quick] [--only NAME,...] [--json FILE]`` (from the repo root).

Prints a table (benchmark, figure, value, baseline, ratio, target) and writes every figure, its
samples and the machine to a JSON file (default ``bench/results.json``). Each figure is a ratio
against a baseline measured in the same run; times are medians of repeated measurements.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import math
import os
import sys
import time
import traceback
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # `python bench/run.py`
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    __package__ = "bench"

from bench import check_bench, core_bench, fuzz_bench, gen_bench, strategies_bench  # noqa: E402
from bench.common import SKIPPED, Config, Figure, fmt_number, fmt_value, machine_info, note  # noqa: E402

BENCHMARKS = {
    "check": check_bench,
    "gen": gen_bench,
    "strategies": strategies_bench,
    "core": core_bench,
    "fuzz": fuzz_bench,
}
ALIASES = {"synth": "gen"}
DEFAULT_JSON = Path(__file__).resolve().parent / "results.json"
HEADERS = ("benchmark", "figure", "value", "baseline", "ratio", "target", "met")


def _ratio(x: float | None) -> str:
    if x is None or not math.isfinite(x):
        return "-"
    return f"{fmt_number(x)}x"


def rows(figures: list[Figure]) -> list[tuple[str, ...]]:
    out = []
    for f in figures:
        base = "-"
        if f.baseline:
            base = f"{f.baseline}: {fmt_value(f.baseline_value, f.baseline_unit)}"
        met = "-" if f.met is None else ("yes" if f.met else "NO")
        out.append((f.bench, f.figure, fmt_value(f.value, f.unit), base, _ratio(f.ratio), f.target or "-", met))
    return out


def _plain_table(table: list[tuple[str, ...]]) -> str:
    widths = [len(h) for h in HEADERS]
    for r in table:
        widths = [max(w, len(c)) for w, c in zip(widths, r)]
    lines = ["  ".join(c.ljust(w) for c, w in zip(HEADERS, widths)).rstrip()]
    lines.append("  ".join("-" * w for w in widths))
    for r in table:
        lines.append("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip())
    return "\n".join(lines)


def print_report(figures: list[Figure], machine: dict[str, Any], *, stream: Any = None) -> None:
    stream = stream or sys.stdout
    table = rows(figures)
    head = (f"Machine: {machine['cpu']}, {machine['cores']} cores ({machine['usable_cores']} usable); "
            f"Python {machine['python']}, numpy {machine['numpy']}, z3 {machine['z3']}, "
            f"hypothesis {machine['hypothesis']}; load average {machine.get('load_average')} at the start, "
            f"{machine.get('load_average_end')} at the end")
    if stream.isatty():
        from rich import box
        from rich.console import Console
        from rich.table import Table

        t = Table(title=head, box=box.SIMPLE_HEAD, title_justify="left")
        for h in HEADERS:
            t.add_column(h, justify="right" if h in ("value", "ratio") else "left",
                         no_wrap=h not in ("figure", "baseline"), ratio=3 if h == "figure" else None)
        for r in table:
            style = "red" if r[-1] == "NO" else None
            t.add_row(*r, style=style)
        Console(file=stream).print(t)
    else:
        print(head, file=stream)
        print(_plain_table(table), file=stream)
    if SKIPPED:
        print("\nSkipped:", file=stream)
        for b, a, r in SKIPPED:
            print(f"  [{b}] {a}: {r}", file=stream)
    print("\nDetails:", file=stream)
    for f in figures:
        if f.detail:
            print(f"  [{f.bench}] {f.figure}: {f.detail}", file=stream)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m bench.run", description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="small sizes and few repeats (CI; well under a minute)")
    p.add_argument("--only", metavar="NAME,...", help=f"run only these benchmarks ({', '.join(BENCHMARKS)})")
    p.add_argument("--json", metavar="FILE", default=str(DEFAULT_JSON), help="where to write the results "
                   "(default: bench/results.json)")
    p.add_argument("--scale", type=float, default=1.0, help=argparse.SUPPRESS)  # tests: shrink every size
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    names = list(BENCHMARKS)
    if args.only:
        names = []
        for raw in args.only.split(","):
            n = ALIASES.get(raw.strip(), raw.strip())
            if n not in BENCHMARKS:
                print(f"bench: unknown benchmark {raw!r}; choose among {', '.join(BENCHMARKS)}", file=sys.stderr)
                return 2
            if n not in names:
                names.append(n)
    cfg = Config(quick=args.quick, scale=args.scale)
    machine = machine_info()
    started = _dt.datetime.now(_dt.timezone.utc)
    figures: list[Figure] = []
    timings: dict[str, float] = {}
    errors: dict[str, str] = {}
    for name in names:
        note(f"== {name}")
        t0 = time.perf_counter()
        try:
            figures.extend(BENCHMARKS[name].run(cfg))
        except Exception as exc:  # noqa: BLE001 - one broken benchmark must not hide the others
            errors[name] = f"{type(exc).__name__}: {exc}"
            note(f"{name}: FAILED: {errors[name]}")
            traceback.print_exc(file=sys.stderr)
        timings[name] = time.perf_counter() - t0
        note(f"   {name} took {timings[name]:.1f} s")
    try:
        machine["load_average_end"] = [round(x, 2) for x in os.getloadavg()]
    except (AttributeError, OSError):
        pass
    print_report(figures, machine)
    try:
        import resource

        usage = {who: round(getattr(resource.getrusage(w), "ru_utime") + getattr(resource.getrusage(w), "ru_stime"), 2)
                 for who, w in (("self", resource.RUSAGE_SELF), ("children", resource.RUSAGE_CHILDREN))}
    except (ImportError, OSError):
        usage = {}
    doc = {
        "cpu_seconds": usage,
        "command": " ".join(["python", "-m", "bench.run", *(argv if argv is not None else sys.argv[1:])]),
        "quick": cfg.quick, "scale": cfg.scale, "started": started.isoformat(timespec="seconds"),
        "machine": machine, "benchmarks": names, "seconds": timings, "errors": errors,
        "skipped": [{"bench": b, "api": a, "reason": r} for b, a, r in SKIPPED],
        "figures": [f.to_json() for f in figures],
    }
    out = Path(args.json)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(doc, indent=2, default=float) + "\n")
    note(f"wrote {out} ({len(figures)} figures, {sum(timings.values()):.1f} s wall, CPU {usage})")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
