"""Smoke test of the benchmarks: each runs at a tiny size and yields finite figures and the JSON file.

No timing is asserted here: performance is measured by `python -m bench.run`, not by tests.
"""

from __future__ import annotations

import importlib
import json
import math
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from ascverify import check_case, get_api, parse_case

ROOT = Path(__file__).resolve().parents[1]
RATE_UNITS = {"cases/s", "ex/s", "s"}


def _check_figure(f: dict) -> None:
    assert isinstance(f["value"], (int, float)) and math.isfinite(f["value"]), f
    if f["unit"] in RATE_UNITS:
        assert f["value"] > 0, f
    if f["ratio"] is not None:
        assert math.isfinite(f["ratio"]) and f["ratio"] > 0, f
    if f["baseline_value"] is not None:
        assert math.isfinite(f["baseline_value"]) and f["baseline_value"] >= 0, f


def test_bench_run_quick_tiny(tmp_path: Path) -> None:
    out = tmp_path / "results.json"
    proc = subprocess.run(
        [sys.executable, "-m", "bench.run", "--quick", "--scale", "0.02", "--only", "check,strategies,core,fuzz",
         "--json", str(out)],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    doc = json.loads(out.read_text())
    assert doc["errors"] == {}
    assert doc["machine"]["cpu"] and doc["machine"]["python"]
    figures = doc["figures"]
    benches = {f["bench"] for f in figures}
    assert {"check", "strategies", "core"} <= benches
    for f in figures:
        _check_figure(f)
    for name in benches:  # the table names every benchmark that produced figures
        assert name in proc.stdout
    for f in figures:  # the core's vectorized path matches the Python loop bit for bit
        if f["bench"] == "core" and "bit-identical" in f["figure"]:
            assert f["met"] is True, f


def _bench(name: str) -> Any:
    """A module of the bench package (at the repository's root, not installed)."""
    sys.path.insert(0, str(ROOT))
    try:
        return importlib.import_module(f"bench.{name}")
    finally:
        sys.path.remove(str(ROOT))


def test_gen_bench_tiny() -> None:
    gen_bench, common = _bench("gen_bench"), _bench("common")
    figures = gen_bench.bench_api(get_api("BlockReduceMin"), common.Config(quick=True, scale=0.02))
    assert figures
    for f in figures:
        _check_figure(f.to_json())


def test_bench_only_rejects_unknown(tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "bench.run", "--only", "nosuch", "--json", str(tmp_path / "r.json")],
                          cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert "unknown benchmark" in proc.stderr


FAKE_VALGRIND = """#!{python}
import sys
# cachegrind's summary line, with a count chosen by the command it was given (what `bench` reads off stderr)
cmd = " ".join(sys.argv[1:])
if "orjson" in cmd:
    count = 150_000_000 if "empty.jsonl" in cmd else 1_650_000_000
else:
    count = 660_000_000 if "one.jsonl" in cmd else 15_800_000_000
sys.stderr.write("==1== Cachegrind, a high-precision tracing profiler\\n")
sys.stderr.write(f"==1== I   refs:      {{count:,}}\\n")
"""


def _stand_in_valgrind(tmp_path: Path, monkeypatch: Any, script: str) -> None:
    """Put a `valgrind` running ``script`` (a template taking the Python interpreter) first on PATH."""
    fake = tmp_path / "bin" / "valgrind"
    fake.parent.mkdir()
    fake.write_text(script.format(python=sys.executable))
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake.parent}{os.pathsep}{os.environ['PATH']}")


def test_instruction_figure_reads_cachegrind_and_takes_the_ratio(tmp_path: Path, monkeypatch) -> None:
    """The instruction figure of the check benchmark: the counts as cachegrind prints them, the ratio of the whole
    processes and the per-case counts (startup taken off), with a stand-in valgrind on PATH."""
    _stand_in_valgrind(tmp_path, monkeypatch, FAKE_VALGRIND)
    check_bench = _bench("check_bench")
    one = tmp_path / "one.jsonl"
    one.write_text("{}\n")
    cases = tmp_path / "cases.jsonl"
    cases.write_text("{}\n" * 10)
    n = 100_000
    fig = check_bench._instruction_figure(cases, one, n, tmp_path)
    assert fig is not None
    # 15.8 G against 1.65 G for the whole processes: 9.58x, above the 6x target
    assert math.isclose(fig.value, 15.8) and math.isclose(fig.baseline_value, 1.65)
    assert math.isclose(fig.ratio, 15.8 / 1.65) and fig.met is False
    # per case: (15.8 G - 0.66 G) / 99,999 = 151k for check, (1.65 G - 0.15 G) / 100,000 = 15.0k for orjson
    assert "per case 151k instructions against orjson's 15.0k (10.1x)" in fig.detail


def test_instruction_figure_without_valgrind(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # no valgrind here
    check_bench = _bench("check_bench")
    one = tmp_path / "one.jsonl"
    one.write_text("{}\n")
    assert check_bench._instruction_figure(one, one, 1, tmp_path) is None


FAKE_VALGRIND_GEN = """#!{python}
import re, sys
# cachegrind's summary line for `count_run(kind, api, n)`: a start-up count and a count per example by kind
cmd = " ".join(sys.argv[1:])
kind, n = re.search(r"count_run\\('(\\w+)', '\\w*', (\\d+)\\)", cmd).groups()
start, per = (800_000_000, 2_500_000) if kind == "trivial" else (1_000_000_000, 5_000_000)
sys.stderr.write(f"==1== I   refs:      {{start + int(n) * per:,}}\\n")
"""


def test_gen_instruction_figure_takes_the_per_example_counts(tmp_path: Path, monkeypatch) -> None:
    """gen's instruction figure: per example, the difference of two counted runs over the examples between them
    (start-up and warm-up cancel), for `strategies.cases` and for Hypothesis's ceiling; the figure's value is the
    ceiling's timed rate scaled by their ratio, against the 1,000 cases/s target."""
    _stand_in_valgrind(tmp_path, monkeypatch, FAKE_VALGRIND_GEN)
    gen_bench = _bench("gen_bench")
    monkeypatch.setattr(gen_bench, "_TRIVIAL_COUNT", [])
    fig = gen_bench.instruction_figure(get_api("BlockReduceMin"), 1800.0)
    assert fig is not None
    # 5 M instructions per example against 2.5 M: half the ceiling's 1,800/s, 900/s, under the target
    assert math.isclose(fig.ratio, 0.5) and math.isclose(fig.value, 900.0) and fig.met is False
    assert "5.00 M instructions per example against the ceiling's 2.50 M (2.00x" in fig.detail
    assert math.isclose(gen_bench.instruction_figure(get_api("BlockReduceMin"), 2400.0).value, 1200.0)
    monkeypatch.setenv("PATH", str(tmp_path))  # no valgrind: no figure
    monkeypatch.setattr(gen_bench, "_TRIVIAL_COUNT", [])
    assert gen_bench.instruction_figure(get_api("BlockReduceMin"), 1800.0) is None


def test_the_distinct_cases_file_holds_no_two_cases_alike(tmp_path: Path) -> None:
    """`build_distinct_file`: every line a different case (not only a different name), about half of them valid (the
    drawn half) and the rest mostly breaking a rule (a valid case mutated once), every line readable."""
    check_bench = _bench("check_bench")
    path = tmp_path / "unique.jsonl"
    info = check_bench.build_distinct_file(path, 120, seed=3)
    docs = [json.loads(line) for line in path.read_text().splitlines()]
    assert len(docs) == info["cases"] == 120
    assert "name" not in docs[0]
    assert len({json.dumps(d, sort_keys=True) for d in docs}) == 120
    valid = sum(check_case(parse_case(d)).valid for d in docs)
    assert 60 <= valid < 120


def test_spread_counts_an_optional_argument_only_where_it_is_given() -> None:
    """gen's spread (distinct values per argument field, domain ends hit): an optional argument left out has no
    value, so the placeholder a case holds for it counts for nothing, however it varies; where it is given, each value
    counts. SetLoadDataRepeat's dstStride is optional (its ``dstStride.present`` flag)."""
    gen_bench = _bench("gen_bench")
    model = get_api("SetLoadDataRepeat")
    base = {"repeatStride": 1, "repeatTime": 1, "repeatMode": 0}
    absent = [dict(base, dstStride=k, **{"dstStride.present": False}) for k in range(5)]   # 5 placeholders
    given = [dict(base, dstStride=k, **{"dstStride.present": True}) for k in (7, 9, 9)]     # 2 values given
    bounds = {"dstStride": (0, 65535)}
    assert gen_bench.diversity(absent, model, bounds)["per_field"]["dstStride"] == 0
    got = gen_bench.diversity(absent + given, model, bounds)
    assert got["per_field"]["dstStride"] == 2 and got["per_field"]["dstStride.present"] == 2
    assert got["per_field"]["repeatStride"] == 1
    assert sorted(got["missed"]) == ["dstStride.hi", "dstStride.lo"]   # 0 only as a placeholder: not a hit
    assert gen_bench.diversity([dict(base, dstStride=0, **{"dstStride.present": True})], model, bounds)["missed"] \
        == ["dstStride.hi"]
