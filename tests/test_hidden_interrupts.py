"""A stop (Ctrl-C, SIGTERM, the time budget) that another library turns into an error of its own stops the work; it
is never reported as an error of the harness or an internal error.

- Hypothesis catches whatever leaves its engine and, before looking at it, asserts that its runner exists: a signal
  that arrives while the runner is being made turns into that assertion's AssertionError, with the interrupt only
  in its context. `selftest` printed "error (0 cases)" for the mutant it was running and went on (found by the CI's
  interrupted-selftest test).
- ctypes (Z3's bindings go through it) turns an exception raised while it converts an argument into
  ``ArgumentError("argument 2: Interrupted: SIGTERM")``, linked to nothing: a fuzz worker stopped by its parent
  reported "fuzz: error in BilinearInterpolation/atlas-a3/negative: ArgumentError: argument 2: Interrupted: SIGTERM"
  (found by interrupting campaigns at random moments).

Here the signal is raised, deterministically, where those libraries would meet it.
"""

from __future__ import annotations

import ctypes
import signal

import hypothesis.core
import pytest
from click.testing import CliRunner

from ascverify.cli import check_cmd, main
from ascverify.engines.fuzz import runner as runner_module, signals
from ascverify.engines.fuzz.mutants import _NullSink
from ascverify.engines.fuzz.plan import Unit
from ascverify.engines.fuzz.runner import RunOptions, run_item
from ascverify.engines.fuzz.signals import Interrupted, TimeUp

pytestmark = pytest.mark.skipif(not hasattr(signal, "raise_signal") or not hasattr(signal, "SIGTERM"),
                                reason="POSIX signals")


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


def signal_under_ctypes(signum: int) -> None:
    """What ctypes does with an interrupt raised while it converts a call's argument: an ArgumentError that names
    it and is linked to nothing (raised here after the handler's exception is gone, as ctypes does)."""
    message = "argument 2: no signal handler raised"
    try:
        signal.raise_signal(signum)
    except KeyboardInterrupt as exc:
        message = f"argument 2: {type(exc).__name__}: {exc}"
    raise ctypes.ArgumentError(message)


def runner_constructor_calling(monkeypatch, body) -> None:
    real = hypothesis.core.ConjectureRunner
    calls: list[int] = []

    def constructor(*a, **k):
        calls.append(1)
        if len(calls) == 1:
            body()
        return real(*a, **k)

    monkeypatch.setattr(hypothesis.core, "ConjectureRunner", constructor)


def test_an_interrupt_that_ctypes_turned_into_an_error_stops_the_item(monkeypatch):
    """In a campaign (its handlers installed): the worker's SIGTERM from its parent, met inside a Z3 call."""
    runner_constructor_calling(monkeypatch, lambda: signal_under_ctypes(signal.SIGTERM))
    with signals.interruptible():
        with pytest.raises(KeyboardInterrupt) as stopped:
            run_item(Unit("BlockReduceMax", "*", "invariants"), small_run(), _NullSink())
    assert stopped.value.signum == signal.SIGTERM


def test_an_error_after_an_earlier_campaign_was_interrupted_is_still_an_error(monkeypatch):
    """The stop a finished campaign received is not taken for the cause of a later item's error (used as a
    library, in one process)."""
    runner_constructor_calling(monkeypatch, lambda: signal_under_ctypes(signal.SIGTERM))
    with signals.interruptible():
        with pytest.raises(KeyboardInterrupt):
            run_item(Unit("BlockReduceMax", "*", "invariants"), small_run(), _NullSink())

    def broken():
        raise ctypes.ArgumentError("argument 2: a real bug")

    runner_constructor_calling(monkeypatch, broken)
    result = run_item(Unit("BlockReduceMax", "*", "invariants"), small_run(), _NullSink())
    assert result.status == "error" and "a real bug" in result.error


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_command_whose_interrupt_ctypes_turned_into_an_error_exits_interrupted(monkeypatch, tmp_path, signum):
    case = tmp_path / "case.json"
    case.write_text("{}")

    def checking(*a, **k):
        signal_under_ctypes(signum)
        yield from ()

    monkeypatch.setattr(check_cmd, "checked_sources", checking)
    got = CliRunner().invoke(main, ["check", str(case)])
    assert got.exit_code == 130, got.output
    assert f"ascverify: interrupted ({signal.Signals(signum).name})" in got.output
    assert "internal error" not in got.output


def test_the_same_error_without_a_signal_is_an_internal_error(monkeypatch, tmp_path):
    case = tmp_path / "case.json"
    case.write_text("{}")

    def checking(*a, **k):
        raise ctypes.ArgumentError("argument 2: a real bug")
        yield

    monkeypatch.setattr(check_cmd, "checked_sources", checking)
    got = CliRunner().invoke(main, ["check", str(case)])
    assert got.exit_code == 3, got.output
    assert "internal error: ArgumentError: argument 2: a real bug" in got.output


def test_an_interrupt_swallowed_as_an_error_still_stops_the_item_at_its_next_case(monkeypatch):
    """A stop whose interrupt became an error that was then caught (a case the coverage cannot place, say) is not
    lost: the item stops before its next case, instead of running its examples out."""
    ran: list[int] = []
    real_classify = runner_module.classify

    def classify(case, **kw):
        ran.append(1)
        if len(ran) == 3:
            try:
                signal_under_ctypes(signal.SIGTERM)
            except ctypes.ArgumentError:
                pass  # swallowed, as a broad `except Exception` would
        return real_classify(case, **kw)

    monkeypatch.setattr(runner_module, "classify", classify)
    opts = RunOptions(seed=0, examples=50, findings=None, database=None, shrink=False, stop_on_first=True)
    with signals.interruptible():
        with pytest.raises(KeyboardInterrupt):
            run_item(Unit("BlockReduceMax", "*", "invariants"), opts, _NullSink())
    assert len(ran) == 3
