"""Running one campaign item: a Hypothesis run (or a series of them, for a time budget) and its findings.

The test body classifies the case against every rule (coverage events and targets), runs the item's
checks and, when one fails, remembers the failing example under its key. Hypothesis then shrinks each
key's failure and replays the minimal example once more, marked final: that replay saves the finding at
once. Failures that never got their final replay (the run was interrupted, or the failure was flaky)
are saved unshrunk when the run ends, so no failure that was seen is lost.
"""

from __future__ import annotations

import os
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping

from hypothesis import HealthCheck, Phase, Verbosity, event, given, settings, strategies as st
from hypothesis import seed as hypothesis_seed
from hypothesis.errors import Unsatisfiable

from ...cases.case import Case
from ...spec.registry import get_api
from ..outputs import OutputError
from ..properties.strategies import cases, invalid_cases
from . import signals
from .checks import Differential, Failure, core_outputs, run_invariants, run_negative
from .coverage import Coverage, Point, classify, emit
from .database import UnitDatabase, open_database
from .plan import Unit, derive_seed, examples_for, negative_rules
from .reproducers import finding_id, finding_meta, save_finding
from .targets import Target, make_target

SEEDS = st.integers(0, 2**32 - 1)
#: Examples of the first batch of a time-budgeted item; later batches aim at `BATCH_SECONDS`.
FIRST_BATCH = 8
BATCH_SECONDS = 10.0


@dataclass
class RunOptions:
    """What every item of a campaign shares (picklable: it travels to worker processes)."""

    seed: int
    examples: int | None = 100
    time_share: float | None = None          # seconds per item (time budget), instead of examples
    deadline: float | None = None            # wall-clock end of the campaign (time.time())
    target: dict[str, str] | None = None
    timeout: float = 10.0
    rtol: float | None = None
    atol: float | None = None
    error_ratio: float | None = None
    findings: str | None = "ascverify-findings"
    database: str | None = None
    shrink: bool = True
    stop_on_first: bool = False              # selftest: end an item at its first failure, unshrunk
    negative_share: float = 0.25             # negative items run this share of the examples
    cwd: str | None = None
    token: str | None = None                 # marks the target's processes (`procs.sweep` at the campaign's end)

    def overrides(self) -> dict[str, Any]:
        return {"rtol": self.rtol, "atol": self.atol, "error_ratio": self.error_ratio, "timeout": self.timeout}


@dataclass
class ItemResult:
    """What one item did (plain data: it travels back from worker processes)."""

    unit: Unit
    status: str = "passed"                   # passed, failed, interrupted, error, skipped
    cases: int = 0
    elapsed: float = 0.0
    checks: dict[str, int] = field(default_factory=dict)
    findings: list[dict[str, Any]] = field(default_factory=list)
    coverage: dict[str, Any] = field(default_factory=dict)
    observed: dict[str, dict[str, int]] = field(default_factory=dict)
    error: str | None = None
    batches: int = 0


class Sink:
    """Where an item reports progress (the campaign's display, or the queue of a worker process)."""

    def start(self, unit: Unit, total: int | None, seconds: float | None) -> None: ...
    def advance(self, unit: Unit, n: int = 1) -> None: ...
    def finding(self, summary: Mapping[str, Any]) -> None: ...
    def done(self, result: ItemResult) -> None: ...


_DATABASES: dict[str | None, Any] = {}


def _database(spec: str | None) -> Any:
    if spec not in _DATABASES:
        _DATABASES[spec] = open_database(spec)
    return _DATABASES[spec]


def _is_final() -> bool:
    try:
        from hypothesis.control import current_build_context

        return bool(getattr(current_build_context(), "is_final", False))
    except Exception:  # noqa: BLE001 - outside a test, or an older Hypothesis
        return False


def _leaves(exc: BaseException) -> list[BaseException]:
    inner = getattr(exc, "exceptions", None)  # an exception group (built in from Python 3.11)
    if isinstance(inner, (tuple, list)):
        out: list[BaseException] = []
        for e in inner:
            out.extend(_leaves(e))
        return out
    return [exc]


@dataclass
class _Pending:
    failure: Failure
    case: Case
    seed: int
    rule: str | None
    points: Mapping[str, Point]
    saved: bool = False


class ItemRunner:
    """Runs one item; ``target`` is the live target of this process for differential items."""

    def __init__(self, unit: Unit, opts: RunOptions, sink: Sink, target: Target | None = None) -> None:
        self.unit = unit
        self.opts = opts
        self.sink = sink
        self.model = get_api(unit.api)
        self.result = ItemResult(unit)
        self.coverage = Coverage()
        self.pending: dict[str, _Pending] = {}
        self.seen_ids: set[str] = set()
        self.rules = self.model.rule_by_id
        self.differential: Differential | None = None
        if unit.kind == "differential":
            if target is None:
                raise ValueError("a differential item needs a target")
            self.differential = Differential(target, timeout=opts.timeout, rtol=opts.rtol, atol=opts.atol,
                                             error_ratio=opts.error_ratio)

    # -- strategy and body ------------------------------------------------------------------------------------

    def strategy(self) -> st.SearchStrategy:
        u, m = self.unit, self.model
        if u.kind == "negative":
            rules = negative_rules(m, u.product)
            return st.sampled_from(rules).flatmap(
                lambda r: st.tuples(st.just(r), invalid_cases(m, r, product=u.product), SEEDS))
        return st.tuples(st.none(), cases(m, product=None if u.product == "*" else u.product), SEEDS)

    def body(self, drawn: tuple[str | None, Case, int]) -> None:
        rule, case, seed = drawn
        self.result.cases += 1
        self.sink.advance(self.unit)
        points = classify(case)
        emit(points, self.rules)
        self.coverage.add(case.model.name, points)
        try:
            if self.unit.kind == "invariants":
                run_invariants(case, seed, self.result.checks)
            elif self.unit.kind == "negative":
                what = run_negative(rule, case, seed, self.result.checks).observed
                event(f"{rule}: core {what}")
                obs = self.result.observed.setdefault(rule, {})
                obs[what] = obs.get(what, 0) + 1
            else:
                assert self.differential is not None
                self.differential.run(case, seed, self.result.checks)
        except Failure as f:
            p = _Pending(f, case, seed, rule, points)
            self.pending[f.key] = p
            if _is_final():
                self._save(p, shrunk=self.opts.shrink and not self.opts.stop_on_first)
            raise

    # -- findings ---------------------------------------------------------------------------------------------

    def _save(self, p: _Pending, *, shrunk: bool) -> None:
        p.saved = True
        f = p.failure
        summary: dict[str, Any] = {
            "api": self.unit.api, "product": p.case.product, "kind": self.unit.kind, "unit": self.unit.key,
            "check": f.check, "key": f.key, "message": f.message, "seed": p.seed, "rule": p.rule,
            "shrunk": shrunk, "case": p.case.to_json(),
        }
        if self.opts.findings:
            with signals.critical():
                try:
                    inputs, expected, defined, _ = core_outputs(p.case, p.seed)
                except Exception:  # noqa: BLE001 - an invalid case the core cannot even lay out
                    inputs, expected, defined = {}, {}, {}
                if not f.expected:
                    f.expected, f.defined = expected, defined

                target = {**self.opts.target, "cwd": self.opts.cwd or os.getcwd()} if self.opts.target else None
                tolerances = self.differential.tolerances(p.case) if self.differential else None
                overrides = self.opts.overrides() if self.differential else None
                try:
                    saved = save_finding(
                        Path(self.opts.findings), unit=self.unit, failure=f, case=p.case, seed=p.seed, inputs=inputs,
                        points=p.points, rule=p.rule, target=target, tolerances=tolerances, overrides=overrides,
                        shrunk=shrunk, campaign_seed=self.opts.seed)
                    summary.update(id=saved.id, path=str(saved.path), new=saved.new)
                except OutputError as exc:
                    # the folder cannot be written (a full disk, a read-only folder): the finding is kept in memory,
                    # printed in full and put in the reports; the campaign ends with exit status 2
                    fid = finding_id(self.unit.api, p.case.product, f.key, p.case.to_json(), p.seed, p.rule)
                    meta = finding_meta(fid, unit=self.unit, failure=f, case=p.case, seed=p.seed, rule=p.rule,
                                        target=target, tolerances=tolerances, overrides=overrides, shrunk=shrunk,
                                        campaign_seed=self.opts.seed)
                    summary.update(id=fid, path=None, new=True, unsaved=exc.line(), finding=meta)
        else:
            fid = finding_id(self.unit.api, p.case.product, f.key, p.case.to_json(), p.seed, p.rule)
            summary.update(id=fid, path=None, new=True)
        if summary["id"] in self.seen_ids:
            return
        self.seen_ids.add(summary["id"])
        self.result.findings.append(summary)
        self.sink.finding(summary)

    def _flush(self) -> None:
        """Save every failure seen but not yet saved (interrupted or flaky: unshrunk)."""
        for p in self.pending.values():
            if not p.saved:
                self._save(p, shrunk=False)

    # -- running ----------------------------------------------------------------------------------------------

    def _settings(self, n: int, first: bool) -> settings:
        db = _database(self.opts.database)
        phases = [Phase.explicit, Phase.generate, Phase.target]
        if first and not self.opts.stop_on_first:
            phases.insert(1, Phase.reuse)
        if self.opts.shrink and not self.opts.stop_on_first:
            phases.append(Phase.shrink)
        return settings(max_examples=max(1, n), deadline=None, database=UnitDatabase(db, self.unit.name) if db else None,
                        phases=phases, verbosity=Verbosity.quiet, suppress_health_check=list(HealthCheck),
                        report_multiple_bugs=not self.opts.stop_on_first, print_blob=False, derandomize=False)

    def _batch(self, n: int, index: int) -> None:
        runner = self

        @settings(self._settings(n, index == 0))
        @hypothesis_seed(derive_seed(self.opts.seed, self.unit.key, index))
        @given(self.strategy())
        def fuzz(drawn: Any) -> None:
            runner.body(drawn)

        self.pending = {}
        try:
            from hypothesis.reporting import with_reporter

            with with_reporter(lambda *_: None):
                fuzz()
        except Unsatisfiable as exc:
            if not self.result.cases:
                self.result.status = "error"
                self.result.error = f"no case could be drawn: {str(exc)[:300]}"
        except KeyboardInterrupt:
            raise
        except Exception as exc:  # noqa: BLE001 - our failures (one or a group), or a bug of the harness
            for leaf in _leaves(exc):
                if isinstance(leaf, Failure):
                    continue
                # a flaky failure (it did not fail again) keeps its Failure inside: saved by _flush
                inner = [e for e in _leaves(getattr(leaf, "__cause__", None) or leaf) if isinstance(e, Failure)]
                if inner or type(leaf).__name__.startswith("Flaky"):
                    continue
                self.result.status = "error"
                self.result.error = f"{type(leaf).__name__}: {str(leaf)[:500]}\n" + "".join(
                    traceback.format_exception(type(leaf), leaf, leaf.__traceback__, limit=6))[-2000:]
        finally:
            self._flush()
            self.result.batches += 1

    def run(self) -> ItemResult:
        opts, u = self.opts, self.unit
        share = opts.negative_share if u.kind == "negative" else 1.0
        total = None if opts.examples is None else max(1, round(examples_for(u, opts.examples) * share))
        budget = None if opts.time_share is None else opts.time_share * (share if u.kind == "negative" else 1.0)
        self.sink.start(u, total, budget)
        start = time.monotonic()
        try:
            if total is not None:
                self._batch(total, 0)
            else:
                index = 0
                n = FIRST_BATCH
                while True:
                    self._batch(n, index)
                    index += 1
                    spent = time.monotonic() - start
                    left = (budget or 0) - spent
                    if opts.deadline is not None:
                        left = min(left, opts.deadline - time.time())
                    # like one long Hypothesis run, an item ends with the batch that found a failure: later
                    # batches would mostly find and shrink the same failure again
                    if left <= 0.5 or signals.requested() or self.result.status == "error" or self.result.findings:
                        break
                    per_case = spent / max(1, self.result.cases)
                    n = int(max(4, min(2000, min(left, BATCH_SECONDS) / max(per_case, 1e-4))))
        except KeyboardInterrupt:
            self.result.status = "interrupted"
            raise
        finally:
            self.result.elapsed = time.monotonic() - start
            self.result.coverage = self.coverage.to_json()
            if self.result.status == "passed" and self.result.findings:
                self.result.status = "failed"
            self.sink.done(self.result)
        return self.result


def run_item(unit: Unit, opts: RunOptions, sink: Sink, target: Target | None = None) -> ItemResult:
    """Run one item (see `ItemRunner`); Interrupted propagates after the item's findings are saved."""
    return ItemRunner(unit, opts, sink, target).run()


def open_target(opts: RunOptions) -> Target | None:
    """The target of a campaign, started (InputError when it cannot be loaded)."""
    t = make_target(opts.target, cwd=opts.cwd, token=opts.token)
    if t is not None and hasattr(t, "start"):
        t.start()
    return t


Runner = Callable[[Unit, RunOptions, Sink, "Target | None"], ItemResult]
