"""A stop (Ctrl-C, SIGTERM, the time budget) that lands while Hypothesis sets up its engine stops the item; it is
never reported as an error of the harness.

Hypothesis catches whatever leaves its engine and, before looking at it, asserts that its runner exists: a signal
that arrives while the runner is being made turns into that assertion's AssertionError, with the interrupt only in
its context. `selftest` printed "error (0 cases)" for the mutant it was running and went on (found by the CI's
interrupted-selftest test). Here the signal is raised, deterministically, from the runner's constructor.
"""

from __future__ import annotations

import hypothesis.core
import pytest

from ascverify.engines.fuzz.mutants import _NullSink
from ascverify.engines.fuzz.plan import Unit
from ascverify.engines.fuzz.runner import RunOptions, run_item
from ascverify.engines.fuzz.signals import Interrupted, TimeUp


def runner_constructor_raising(monkeypatch, exc: BaseException) -> list[int]:
    """Make Hypothesis's first engine constructor raise ``exc`` (later ones work); returns the calls seen."""
    real = hypothesis.core.ConjectureRunner
    calls: list[int] = []

    def constructor(*a, **k):
        calls.append(1)
        if len(calls) == 1:
            raise exc
        return real(*a, **k)

    monkeypatch.setattr(hypothesis.core, "ConjectureRunner", constructor)
    return calls


def small_run() -> RunOptions:
    return RunOptions(seed=0, examples=5, findings=None, database=None, shrink=False, stop_on_first=True)


def test_the_engine_hides_an_interrupt_behind_its_own_assertion(monkeypatch):
    """What the harness must see through: without it, this is an AssertionError (if Hypothesis ever lets the
    interrupt through itself, this test says so and the workaround can go)."""
    runner_constructor_raising(monkeypatch, Interrupted())

    @hypothesis.settings(database=None, max_examples=1)
    @hypothesis.given(hypothesis.strategies.integers())
    def body(_):
        pass

    with pytest.raises(AssertionError) as caught:
        body()
    assert isinstance(caught.value.__context__, Interrupted)


def test_an_interrupt_while_the_engine_starts_stops_the_item(monkeypatch):
    calls = runner_constructor_raising(monkeypatch, Interrupted())
    with pytest.raises(KeyboardInterrupt):
        run_item(Unit("BlockReduceMax", "*", "invariants"), small_run(), _NullSink())
    assert calls == [1]  # stopped: no second batch, no other engine started


def test_the_time_budget_running_out_while_the_engine_starts_is_a_time_out(monkeypatch):
    runner_constructor_raising(monkeypatch, TimeUp())
    result = run_item(Unit("BlockReduceMax", "*", "invariants"), small_run(), _NullSink())
    assert result.timed_out
    assert result.status != "error" and not result.error
