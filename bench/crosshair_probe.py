"""Hypothesis's CrossHair backend (hypothesis-crosshair) against the default backend on a boundary-heavy campaign.

Not part of ``python -m bench.run`` (hypothesis-crosshair is not a dependency): run it where the backend is installed,
``python bench/crosshair_probe.py [--seconds 60]``. Per buggy kernel of `bench.mutants` whose bug lives at a
boundary, and per backend: one differential item (in this process, the kernel called in process) with that time
budget; examples/s and the seconds to the first failure (None: survived). The conclusion is recorded in
bench/RESULTS.md.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

#: Bugs at a boundary: a contiguous mask of 128 lanes, masks with one word zero, fully masked blocks, DIST modes.
KERNELS = {"bilinear.contiguous_mask_one_extra": "atlas-a2", "block_reduce.min_masked_block_stored": "atlas-a2",
           "block_reduce.min_mask_words_swapped": "atlas-a2", "reg.load_align_us_tiles": "atlas-350"}


def run(kernel, product: str, backend: str, seconds: float) -> dict:
    from hypothesis import settings

    from ascverify.engines.fuzz import runner as runner_mod
    from ascverify.engines.fuzz.plan import Unit
    from ascverify.engines.fuzz.runner import ItemRunner, RunOptions
    from ascverify.engines.fuzz.targets import Target, _check_outputs, limit_answer, load_callable

    class InProcess(Target):
        def __init__(self, spec):
            self.fn = load_callable(spec)

        def run(self, doc, inputs, outputs, timeout):
            return _check_outputs(limit_answer(self.fn(json.loads(json.dumps(doc)), dict(inputs)), outputs), outputs)

    class Quiet:
        def start(self, *a): ...
        def advance(self, *a, **k): ...
        def finding(self, *a): ...
        def done(self, *a): ...

    original = runner_mod.ItemRunner._settings

    def with_backend(self, n, first):
        return settings(original(self, n, first), backend=backend)

    runner_mod.ItemRunner._settings = with_backend
    try:
        t0 = time.time()
        opts = RunOptions(seed=0, examples=None, time_share=seconds, findings=None, database="none", shrink=False,
                          stop_on_first=True, campaign_start=t0)
        res = ItemRunner(Unit(kernel.api, product, "differential"), opts, Quiet(), InProcess(kernel.spec)).run()
    finally:
        runner_mod.ItemRunner._settings = original
    found = res.findings[0].get("detected_seconds") if res.findings else None
    return {"kernel": kernel.name, "backend": backend, "cases": res.cases, "elapsed": res.elapsed,
            "rate": res.cases / res.elapsed if res.elapsed else 0.0, "killed_after": found,
            "error": (res.error or "").splitlines()[0] if res.error else ""}


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--seconds", type=float, default=60.0)
    args = p.parse_args()
    from bench.mutants import mutants

    by_name = {m.name: m for m in mutants()}
    for name, product in KERNELS.items():
        for backend in ("hypothesis", "crosshair"):
            r = run(by_name[name], product, backend, args.seconds)
            print(json.dumps(r), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
