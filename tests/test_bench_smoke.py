"""Smoke test of the benchmarks: each runs at a tiny size and yields finite figures and the JSON file.

No timing is asserted here: performance is measured by `python -m bench.run`, not by tests.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

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


def test_gen_bench_tiny() -> None:
    sys.path.insert(0, str(ROOT))
    try:
        from bench import gen_bench
        from bench.common import Config
        from ascverify import get_api
    finally:
        sys.path.remove(str(ROOT))
    figures = gen_bench.bench_api(get_api("BlockReduceMin"), Config(quick=True, scale=0.02))
    assert figures
    for f in figures:
        _check_figure(f.to_json())


def test_bench_only_rejects_unknown(tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "bench.run", "--only", "nosuch", "--json", str(tmp_path / "r.json")],
                          cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert "unknown benchmark" in proc.stderr
