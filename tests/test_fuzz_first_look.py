"""A campaign's first look: every item runs its first `FIRST_LOOK` cases before any item runs the rest, so that a
bug of one product (one item) is found within seconds however many items come before it in the plan.

Before, the items ran one after the other: a BlockReduceMin kernel wrong on atlas-a2 and atlas-a3 only waited
about 20 s for the items of the products ahead of them (bench/RESULTS.md, the slowest kill of `fuzz_bench --kill`).
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from click.testing import CliRunner

from ascverify.cli import main
from ascverify.engines.fuzz import runner as runner_module
from ascverify.engines.fuzz.campaign import CampaignConfig, plan, run_campaign
from ascverify.engines.fuzz.plan import Unit
from ascverify.engines.fuzz.progress import Display
from ascverify.engines.fuzz.runner import FIRST_LOOK, ItemRunner, RunOptions, Sink, run_items

from bilinear_targets import write_wrong_on

ROOT = Path(__file__).resolve().parents[1]


class Recorder(Display):
    """A quiet display that records the order of what it is told."""

    def __init__(self, items: int) -> None:
        super().__init__(items=items, quiet=True)
        self.events: list[tuple[str, str]] = []

    def start(self, unit, total, seconds) -> None:
        self.events.append(("start", unit.key))
        super().start(unit, total, seconds)

    def finding(self, summary) -> None:
        self.events.append(("finding", str(summary.get("product"))))
        super().finding(summary)

    def done(self, result) -> None:
        self.events.append(("done", result.unit.key))
        super().done(result)


def test_a_bug_of_the_last_product_is_found_before_any_item_runs_the_rest_of_its_cases(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    config = CampaignConfig(apis=("BilinearInterpolation",), target={"kind": "python", "spec": "wrong_on_last.py:f"},
                            examples=200, seed=3, findings=str(tmp_path / "f"), database="none")
    items = plan(config)
    last = items[-1].product
    assert len(items) >= 3 and all(u.product != last for u in items[:-1])  # the buggy product comes last
    write_wrong_on(tmp_path, (last,), "wrong_on_last")
    display = Recorder(len(items))
    result = run_campaign(config, display=display, print_coverage=False)
    assert result.exit_status == 1 and {f["product"] for f in result.findings} == {last}
    kinds = [k for k, _ in display.events]
    # `start` marks an item's second run: the failing item's comes first (it shrinks the failure its look found),
    # and the finding is saved before any other item runs the rest of its cases (without the first look, the first
    # item starts first and runs its 200 cases before the last item begins)
    others = [n for n, (k, key) in enumerate(display.events) if k == "start" and key != items[-1].key]
    assert display.events[0] == ("start", items[-1].key)
    assert kinds.index("finding") < others[0]
    cases = {r.unit.product: r.cases for r in result.results}
    assert all(cases[u.product] >= 200 for u in items[:-1])  # and the items ahead still ran all their cases


def items_of(api: str, kind: str = "invariants", products=("atlas-a2", "atlas-a3", "atlas-350")) -> list[Unit]:
    return [Unit(api, p, kind) for p in products]


class Sunk(Sink):
    def __init__(self) -> None:
        self.started: list[str] = []
        self.results: list = []

    def start(self, unit, total, seconds) -> None:
        self.started.append(unit.key)

    def done(self, result) -> None:
        self.results.append(result)


def test_each_item_runs_its_cases_in_two_runs_and_a_small_item_in_its_look_alone():
    sink = Sunk()
    opts = RunOptions(seed=0, examples=40, findings=None, database=None)
    run_items(items_of("BlockReduceMax"), opts, sink, None)
    assert [r.unit.product for r in sink.results] == ["atlas-a2", "atlas-a3", "atlas-350"]
    for r in sink.results:
        assert r.status == "passed" and r.batches == 2 and r.cases >= 40 and not r.timed_out
    small = Sunk()
    run_items(items_of("BlockReduceMax"), RunOptions(seed=0, examples=FIRST_LOOK, findings=None, database=None),
              small, None)
    assert small.started == []  # nothing left after the look: no second run
    assert all(r.batches == 1 and r.cases >= FIRST_LOOK for r in small.results)


def test_one_item_has_no_first_look():
    sink = Sunk()
    run_items(items_of("BlockReduceMax")[:1], RunOptions(seed=0, examples=40, findings=None, database=None), sink,
              None)
    assert [r.batches for r in sink.results] == [1]


class Clock:
    """time.time() under the test's control; the rest of the time module as it is."""

    def __init__(self, now: float) -> None:
        self.now = now
        self.monotonic = time.monotonic
        self.perf_counter = time.perf_counter

    def time(self) -> float:
        return self.now


def test_items_the_clock_ends_after_their_look_are_reported_timed_out(monkeypatch):
    clock = Clock(0.0)
    monkeypatch.setattr(runner_module, "time", clock)
    real_run = ItemRunner.run

    def run_then_time_is_up(self):
        out = real_run(self)
        clock.now = 2000.0  # the campaign's deadline (1000) passes while the first item runs its rest
        return out

    monkeypatch.setattr(ItemRunner, "run", run_then_time_is_up)
    sink = Sunk()
    opts = RunOptions(seed=0, examples=40, findings=None, database=None, deadline=1000.0)
    run_items(items_of("BlockReduceMax"), opts, sink, None)
    got = {r.unit.product: r for r in sink.results}
    assert set(got) == {"atlas-a2", "atlas-a3", "atlas-350"}  # every item that ran a case is reported
    assert got["atlas-a2"].batches == 2 and not got["atlas-a2"].timed_out
    for p in ("atlas-a3", "atlas-350"):
        assert got[p].timed_out and got[p].status == "passed" and got[p].batches == 1 and got[p].cases >= FIRST_LOOK


def test_items_an_interrupt_ends_after_their_look_are_reported_interrupted(monkeypatch):
    real_run = ItemRunner.run

    def run_then_interrupt(self):
        real_run(self)
        raise KeyboardInterrupt

    monkeypatch.setattr(ItemRunner, "run", run_then_interrupt)
    sink = Sunk()
    with pytest.raises(KeyboardInterrupt):
        run_items(items_of("BlockReduceMax"), RunOptions(seed=0, examples=40, findings=None, database=None), sink,
                  None)
    got = {r.unit.product: r.status for r in sink.results}
    assert got == {"atlas-a2": "passed", "atlas-a3": "interrupted", "atlas-350": "interrupted"}


def test_the_help_and_the_docs_say_how_many_cases_the_first_look_runs():
    text = " ".join(CliRunner().invoke(main, ["fuzz", "--help"]).output.split())
    assert f"first {FIRST_LOOK} cases of every item" in text
    assert f"first runs {FIRST_LOOK} cases before any runs the rest" in " ".join((ROOT / "README.md").read_text().split())
    assert f"first runs {FIRST_LOOK} cases of every item" in " ".join((ROOT / "ci" / "README.md").read_text().split())


def test_with_a_time_budget_an_item_done_in_its_look_leaves_its_time_to_the_others(monkeypatch):
    """Three items, 90 s left (the clock stands still): the third finds its bug in its look, so in the second pass
    the first item gets half the time left (the second still to run) and the second all of it."""
    monkeypatch.setattr(runner_module, "time", Clock(0.0))
    looks: list[tuple[str, float]] = []
    runs: list[tuple[str, float]] = []

    def first_look(self, time_share=None):
        looks.append((self.unit.product, time_share))
        return self.unit.product == "atlas-350"  # done: a finding in its first 16 cases

    def run(self):
        runs.append((self.unit.product, self.opts.time_share))
        return self.finish()

    monkeypatch.setattr(ItemRunner, "first_look", first_look)
    monkeypatch.setattr(ItemRunner, "run", run)
    sink = Sunk()
    run_items(items_of("BlockReduceMax"), RunOptions(seed=0, examples=None, deadline=90.0, findings=None,
                                                     database=None), sink, None)
    # the looks: each item's share of what is left is counted over the items still to run
    assert looks == [("atlas-a2", 30.0), ("atlas-a3", 30.0), ("atlas-350", 30.0)]
    assert runs == [("atlas-a2", 45.0), ("atlas-a3", 90.0)]
    assert sorted(r.unit.product for r in sink.results) == ["atlas-350", "atlas-a2", "atlas-a3"]
