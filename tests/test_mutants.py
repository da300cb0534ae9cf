"""The buggy kernels of bench/mutants against differential campaigns: a representative subset is killed by a short
campaign, and the correct kernels get no finding (the full set, with the time to kill of each under a default
``--time 60`` campaign, is `python -m bench.fuzz_bench --kill`; bench/RESULTS.md records it).

The campaigns here run the kernels in this process (an in-process target) with a fixed seed and a number of examples,
so that they are fast and deterministic; the command-line campaign runs them in a child process the same way.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from ascverify import apis
from ascverify.engines.fuzz.plan import Unit, has_outputs
from ascverify.engines.fuzz.runner import ItemRunner, RunOptions
from ascverify.engines.fuzz.targets import Target, TargetError, _check_outputs, limit_answer, load_callable

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from bench.mutants import correct, mutants  # noqa: E402

sys.path.remove(str(ROOT))

#: One or two kernels per family of the set, each with the product its bug shows on.
SUBSET = {
    "bilinear.rounds_once_at_the_end": "atlas-a2",
    "bilinear.mask_words_swapped": "atlas-350",
    "block_reduce.min_ignores_nan": "atlas-350",
    "block_reduce.min_masked_block_stored": "atlas-a2",
    "reg.load_align_ds_keeps_odd": "atlas-350",
    "reg.mask_gen_b32_as_b16": "atlas-350",
    "img2col.dilation_ignored": "atlas-350",
    "img2col.repeat_time_short": "atlas-350",
}


class InProcess(Target):
    kind = "python"

    def __init__(self, spec: str) -> None:
        self.spec = spec
        self.fn = load_callable(spec)

    def run(self, case_doc, inputs, outputs, timeout):
        try:
            answer = self.fn(json.loads(json.dumps(case_doc)), dict(inputs))
        except Exception as exc:  # as the command line's child process reports a kernel that raises: a crash
            raise TargetError("crash", f"raised {type(exc).__name__}: {exc}") from None
        return _check_outputs(limit_answer(answer, outputs), outputs)


class Quiet:
    def start(self, *a): ...
    def advance(self, *a, **k): ...
    def finding(self, *a): ...
    def done(self, *a): ...


def _campaign(kernel, product: str, examples: int, seed: int = 0):
    opts = RunOptions(seed=seed, examples=examples, findings=None, database="none", shrink=False, stop_on_first=True)
    return ItemRunner(Unit(kernel.api, product, "differential"), opts, Quiet(), InProcess(kernel.spec)).run()


def test_the_set_covers_every_api_that_can_be_a_target():
    ms = mutants()
    assert len(ms) >= 40 and len({m.name for m in ms}) == len(ms)
    covered = {m.api for m in ms}
    implemented = {k.api for k in correct()}
    assert implemented <= covered                                   # every correct kernel has buggy variants
    known = {"BilinearInterpolation", "BlockReduceMin", "LoadAlign", "MaskGenWithRegTensor", "Load3DBitMode",
             "LoadDataWithStride"}
    assert known <= {m.name for m in apis() if has_outputs(m)} and known <= covered
    assert {"LoadAlign", "MaskGenWithRegTensor"} <= covered        # the register APIs
    assert all(m.bug for m in ms)


@pytest.mark.parametrize("name", sorted(SUBSET))
def test_a_short_campaign_kills_the_representative_kernels(name):
    kernel = next(m for m in mutants() if m.name == name)
    res = _campaign(kernel, SUBSET[name], examples=60)
    assert res.findings, f"{name} survived {res.cases} cases"
    assert res.findings[0]["check"] == "differential"


@pytest.mark.parametrize("kernel", correct(), ids=lambda k: f"{k.api}:{k.name}")
def test_correct_kernels_get_no_finding(kernel):
    from ascverify import get_api

    for product in get_api(kernel.api).supported_products()[:2]:
        res = _campaign(kernel, product, examples=25, seed=1)
        assert not res.findings, res.findings[0]["message"]
        assert res.status == "passed" and res.cases == 25, res.error
