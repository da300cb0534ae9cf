"""Running campaign items: per item a Hypothesis run (two when the campaign first looks at every item, `run_items`)
and its findings.

The test body classifies the case against every rule (coverage events and targets), runs the item's
checks and, when one fails, remembers the failing example under its key. Hypothesis then shrinks each
key's failure and replays the minimal example once more, marked final: that replay saves the finding at
once. A failure of a first look is not shrunk there: it waits (`DeferredShrinking`) until every item has had its
look, then a run that only replays and shrinks it saves it. Failures that never got their final replay (the run
was interrupted, or the failure was flaky) are saved unshrunk when the run ends, so no failure that was seen is lost.
"""

from __future__ import annotations

import os
import time
import traceback
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from hypothesis import HealthCheck, Phase, Verbosity, event, given, reject, settings, strategies as st
from hypothesis import seed as hypothesis_seed
from hypothesis.errors import Unsatisfiable

from ...cases.case import Case
from ...spec.registry import get_api
from ..outputs import OutputError
from ..properties.strategies import cases, invalid_cases
from ..properties.values import ValuePlan, value_plans
from . import signals
from .allocator import keep_freed_memory
from .signals import TimeUp
from .checks import Differential, Failure, Unspecified, core_outputs, run_invariants, run_negative
from .coverage import Coverage, Point, classify, emit, field_events
from .database import DeferredShrinking, UnitDatabase, open_database
from .plan import Unit, derive_seed, item_examples, negative_rules, weight
from .reproducers import finding_id, finding_meta, save_finding
from .targets import Target, make_target

SEEDS = st.integers(0, 2**32 - 1)
#: max_examples of a time-budgeted item: one Hypothesis run that the clock ends (`TimeUp`), not the count.
TIMED_EXAMPLES = 1_000_000
#: With a time budget, shrinking a failure takes at most this share of the item's budget (at least SHRINK_MIN s);
#: a failure found in the first look shrinks in the second pass, within the item's whole share (at least SHRINK_MIN s).
SHRINK_SHARE = 0.25
SHRINK_MIN = 5.0
#: Cases each item of a campaign runs in its first look, a pass over every item before any runs the rest of its
#: cases: a bug that shows on one product (one item) shows within seconds, however many items come before it.
FIRST_LOOK = 16
#: With a time budget, the share of an item's time its first look may spend drawing cases.
FIRST_LOOK_TIME = 0.2




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
    exact: bool = False                      # differential: every output bit for bit
    keep_unspecified: bool = False           # differential: also run cases whose outputs are all unspecified
    campaign_start: float | None = None      # time.time() when the campaign started (findings record their time)
    first_look: int = FIRST_LOOK             # cases per item in the first pass over the items (0: no first look)

    def overrides(self) -> dict[str, Any]:
        return {"rtol": self.rtol, "atol": self.atol, "error_ratio": self.error_ratio, "timeout": self.timeout,
                "exact": self.exact}


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
    unspecified: int = 0                     # differential: cases drawn again, the core leaving every output unspecified
    timed_out: bool = False                  # the time budget ended the item (possibly while shrinking)
    #: the case (1-based, counted as drawn) that first failed; ``cases`` also counts the shrinker's attempts
    first_failed_at: int | None = None
    #: differential: cases that passed only by the tolerance, their bit-different written elements, largest ULP
    excused: dict[str, int] = field(default_factory=dict)


_PLANS: dict[str, st.SearchStrategy] = {}


def _plans(dtype: str) -> st.SearchStrategy[ValuePlan]:
    if dtype not in _PLANS:
        _PLANS[dtype] = value_plans(dtype)
    return _PLANS[dtype]


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


def _stop_behind(exc: BaseException) -> BaseException | None:
    """The interrupt or `TimeUp` an exception was raised while handling, if any. Hypothesis can hide one: a signal
    that lands while it sets up its engine leaves its own ``assert state._runner is not None`` failing, and the
    AssertionError, not the interrupt, comes out of the test function."""
    seen: set[int] = set()
    todo = _leaves(exc)
    while todo:
        e = todo.pop()
        if id(e) in seen:
            continue
        seen.add(id(e))
        if isinstance(e, (KeyboardInterrupt, TimeUp)):
            return e
        for behind in (e.__cause__, e.__context__):
            if behind is not None:
                todo.extend(_leaves(behind))
    return None


@dataclass
class _Pending:
    failure: Failure
    case: Case
    seed: int
    rule: str | None
    points: Mapping[str, Point] | None
    values: ValuePlan | None = None
    saved: bool = False
    detected: float | None = None             # time.time() when the failure was first seen
    deferred: bool = False                    # seen in a first look: shrunk in the second pass, saved then



class ItemRunner:
    """Runs one item; ``target`` is the live target of this process for differential items."""

    def __init__(self, unit: Unit, opts: RunOptions, sink: Sink, target: Target | None = None) -> None:
        keep_freed_memory()  # a case's large arrays reuse the last case's memory (no page faults per case)
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
                                             error_ratio=opts.error_ratio, exact=opts.exact,
                                             keep_unspecified=opts.keep_unspecified, deadline=opts.deadline)
        self.deadline: float | None = opts.deadline
        self.budget: float | None = None
        self.draw_deadline: float | None = None  # the first look's: no new case is drawn after it
        self.looked = 0                          # cases asked of the first look (its Hypothesis run is batch 0)
        #: in a first look, a failure is kept (in the example database) and shrunk in the second pass, after every
        #: item had its look: one item's shrinking no longer takes the time the looks of the items after it need
        self.deferring = False
        self.deferral: DeferredShrinking | None = None  # the look's examples, its failures held for their shrinking

    # -- strategy and body ------------------------------------------------------------------------------------

    def strategy(self) -> st.SearchStrategy:
        """What an item draws: (rule broken or None, case, seed, value plan or None). Valid cases come with boundary
        bias; differential cases also with a value plan for their tensors' contents and, unless unspecified outputs
        are wanted, biased towards cases whose outputs the core specifies."""
        u, m = self.unit, self.model
        if u.kind == "negative":
            rules = negative_rules(m, u.product)
            return st.sampled_from(rules).flatmap(
                lambda r: st.tuples(st.just(r), invalid_cases(m, r, product=u.product), SEEDS, st.none()))
        product = None if u.product == "*" else u.product
        if u.kind != "differential":
            # half of the cases biased to specified outputs (a mask the call sets, the state an earlier call set):
            # the invariants of what a call computes need them; the other half keep the unknown-state paths drawn
            valid = st.one_of(cases(m, product=product, bias=True, specified=True), cases(m, product=product, bias=True))
            return st.tuples(st.none(), valid, SEEDS, st.none())
        base = cases(m, product=product, bias=True, specified=not self.opts.keep_unspecified)
        return self._differential_cases(base)

    def _differential_cases(self, base: st.SearchStrategy) -> st.SearchStrategy:
        """A valid case, a seed, a value plan for its element type, and the core's run of it: a case whose outputs the
        core leaves wholly unspecified is drawn again (unless wanted): it would compare nothing."""
        runner = self

        @st.composite
        def draw_case(draw: Any) -> tuple[None, Case, int, ValuePlan, Any]:
            runner._check_time()
            case = draw(base)
            seed = draw(SEEDS)
            plan = draw(_plans(case.ctx.dtype.name))
            runner._check_time()
            # the target (in its own process) gets the case as soon as its inputs are laid out: it computes while
            # the core runs and the body classifies the case (not while a failure shrinks: the shrinker's attempts
            # are often rejected below, and the target's answer to a rejected case would only be waited for)
            hand_over = runner.differential.prefetch(case, seed, plan) \
                if runner.differential is not None and not runner.pending else None
            core = core_outputs(case, seed, plan, before_execute=hand_over)
            if not runner.opts.keep_unspecified and not core.faults and not core.compares_something():
                runner.result.unspecified += 1
                reject()
            return None, case, seed, plan, core

        return draw_case()

    def _check_time(self) -> None:
        """Before each case: stop when the item's time is up, or when a stop was asked for and its interrupt went
        astray (ctypes made it an ArgumentError that some ``except Exception`` took for a case it cannot judge)."""
        now = time.time()
        if self.deadline is not None and now >= self.deadline:
            raise TimeUp()
        if self.draw_deadline is not None and not self.pending and now >= self.draw_deadline:
            raise TimeUp()
        asked = signals.signal_received()
        if asked is not None:
            raise signals.Interrupted(asked)

    def body(self, drawn: tuple[Any, ...]) -> None:
        rule, case, seed, values = drawn[:4]
        core = drawn[4] if len(drawn) > 4 else None
        self._check_time()
        self.result.cases += 1
        self.sink.advance(self.unit)
        points: Mapping[str, Point] | None = None
        if not self.pending:  # once a failure is pending Hypothesis shrinks it: no coverage of the shrinker's attempts
            points = classify(case, valid=self.unit.kind != "negative")  # other units draw valid cases
            emit(points, self.rules)
            field_events(case)
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
                self.differential.run(case, seed, self.result.checks, values, core=core)
        except Unspecified:
            reject()
        except Failure as f:
            if self.result.first_failed_at is None:
                self.result.first_failed_at = self.result.cases
            first = self.pending.get(f.key)
            p = _Pending(f, case, seed, rule, points, values,
                         detected=first.detected if first is not None else time.time())
            self.pending[f.key] = p
            if first is None and not self.deferring and self.deadline is not None and self.budget is not None:
                # with a time budget, shrinking gets a bounded share of it: the finding is reported soon after it is
                # seen (shrunk as far as that share allowed), and the budget stays a bound
                cap = time.time() + max(SHRINK_MIN, SHRINK_SHARE * self.budget)
                self.deadline = min(self.deadline, cap)
                if self.differential is not None:
                    self.differential.deadline = self.deadline
            if self.deferring:
                p.deferred = True      # saved after the second pass shrinks it (or unshrunk, by `_flush`)
            elif _is_final():
                self._save(p, shrunk=self.opts.shrink and not self.opts.stop_on_first)
            raise

    # -- findings ---------------------------------------------------------------------------------------------

    def _save(self, p: _Pending, *, shrunk: bool) -> None:
        """Save a failure as a finding and report it (`Sink.finding`) in one critical section: a stop that arrives
        meanwhile is raised once the finding is reported, never between its folder being written and its report
        (a worker's finding folder was once missing from the campaign's report and output)."""
        with signals.critical():
            self._save_and_report(p, shrunk=shrunk)

    def _save_and_report(self, p: _Pending, *, shrunk: bool) -> None:
        p.saved = True
        f = p.failure
        summary: dict[str, Any] = {
            "api": self.unit.api, "product": p.case.product, "kind": self.unit.kind, "unit": self.unit.key,
            "check": f.check, "key": f.key, "message": f.message, "seed": p.seed, "rule": p.rule,
            "shrunk": shrunk, "shrink_off": not self.opts.shrink or self.opts.stop_on_first, "case": p.case.to_json(),
        }
        if self.opts.campaign_start is not None:
            summary["seconds"] = round(time.time() - self.opts.campaign_start, 3)
            if p.detected is not None:
                summary["detected_seconds"] = round(p.detected - self.opts.campaign_start, 3)
        if self.opts.findings:
            with signals.critical():
                try:
                    core = core_outputs(p.case, p.seed, p.values)
                    inputs, expected, defined = core.inputs, core.outputs, core.defined
                    case = p.case
                    if core.registers_in:  # the registers the call read are part of the reproducer
                        case = p.case.with_fields()
                        case.registers = {file: dict(r) for file, r in (p.case.registers or {}).items()}
                        for file, regs in core.registers_in.items():
                            case.registers.setdefault(file, {}).update(regs)
                        p.case = case
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
                        points=p.points if p.points is not None else classify(p.case), rule=p.rule, target=target,
                        tolerances=tolerances, overrides=overrides,
                        shrunk=shrunk, campaign_seed=self.opts.seed, shrink_off=summary["shrink_off"])
                    summary.update(id=saved.id, path=str(saved.path), new=saved.new)
                except OutputError as exc:
                    # the folder cannot be written (a full disk, a read-only folder): the finding is kept in memory,
                    # printed in full and put in the reports; the campaign ends with exit status 2
                    fid = finding_id(self.unit.api, p.case.product, f.key, p.case.to_json(), p.seed, p.rule)
                    meta = finding_meta(fid, unit=self.unit, failure=f, case=p.case, seed=p.seed, rule=p.rule,
                                        target=target, tolerances=tolerances, overrides=overrides, shrunk=shrunk,
                                        campaign_seed=self.opts.seed, shrink_off=summary["shrink_off"])
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
        """Save every failure seen but not yet saved (interrupted or flaky: unshrunk); a stop waits until all are."""
        with signals.critical():
            for p in self.pending.values():
                if not p.saved:
                    self._save(p, shrunk=False)

    def has_deferred(self) -> bool:
        """A failure of the first look waits for its shrinking (the item's second pass)."""
        return any(p.deferred and not p.saved for p in self.pending.values())

    def close_unrun(self, status: str | None) -> None:
        """An item looked at and never run further (the clock or a stop ended the campaign): its failures saved as
        they are, its result closed."""
        self.deferring = False
        self._flush()
        if status == "interrupted":
            self.result.status = "interrupted"
        else:
            self.result.timed_out = True
        self.finish()

    # -- running ----------------------------------------------------------------------------------------------

    def _examples_database(self, shrink_only: bool) -> Any:
        db = _database(self.opts.database)
        unit_db = UnitDatabase(db, self.unit.name) if db is not None else None
        if self.deferring:
            self.deferral = DeferredShrinking(unit_db)
            return self.deferral
        if shrink_only and self.deferral is not None:
            self.deferral.replaying = True
            return self.deferral
        return unit_db

    def _settings(self, n: int, first: bool, shrink_only: bool = False) -> settings:
        """The Hypothesis settings of a run: ``first`` replays the database's failures first; a first look that
        defers its shrinking has no shrink phase; ``shrink_only`` replays the look's failure and shrinks it."""
        phases = [Phase.explicit, Phase.generate, Phase.target]
        if first and not self.opts.stop_on_first:
            phases.insert(1, Phase.reuse)
        if self.opts.shrink and not self.opts.stop_on_first and not self.deferring:
            phases.append(Phase.shrink)
        if shrink_only:
            phases = [Phase.reuse, Phase.shrink]
        return settings(max_examples=max(1, n), deadline=None, database=self._examples_database(shrink_only),
                        phases=phases, verbosity=Verbosity.quiet, suppress_health_check=list(HealthCheck),
                        report_multiple_bugs=not self.opts.stop_on_first, print_blob=False, derandomize=False)

    def _batch(self, n: int, index: int, shrink_only: bool = False) -> None:
        runner = self

        @settings(self._settings(n, index == 0, shrink_only))
        @hypothesis_seed(derive_seed(self.opts.seed, self.unit.key, index))
        @given(self.strategy())
        def fuzz(drawn: Any) -> None:
            runner.body(drawn)

        self.pending = {k: p for k, p in self.pending.items() if not p.saved}  # a deferred failure stays
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
        except TimeUp:
            self.result.timed_out = True
        except Exception as exc:  # noqa: BLE001 - our failures (one or a group), or a bug of the harness
            stop = _stop_behind(exc)
            if isinstance(stop, KeyboardInterrupt):
                raise stop from None
            asked = signals.signal_received()
            if asked is not None:  # an error the stop caused where nothing chains to it (see `signal_received`)
                raise signals.Interrupted(asked) from None
            if stop is not None:
                self.result.timed_out = True
            for leaf in _leaves(exc):
                if isinstance(_stop_behind(leaf), TimeUp):
                    continue
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
            if self.deadline is not None and time.time() >= self.deadline:
                # the clock ended the run, even where Hypothesis swallowed the TimeUp (a shrink step that ran out
                # of time is to it just an attempt that did not fail the same way)
                self.result.timed_out = True
            if not self.deferring:
                self._flush()
            self.result.batches += 1

    def _total(self) -> int | None:
        """The item's cases (None: as many as its time allows)."""
        opts = self.opts
        return None if opts.examples is None else item_examples(self.unit, opts.examples, opts.negative_share)

    def _budget(self, time_share: float | None) -> float | None:
        if time_share is None:
            return None
        return time_share * weight(self.unit, self.opts.negative_share)

    def first_look(self, time_share: float | None = None) -> bool:
        """The item's part of a campaign's first pass: its first ``opts.first_look`` cases, drawn for at most
        `FIRST_LOOK_TIME` of ``time_share`` (the item's share of the time left, when there is a budget). A failure
        found is not shrunk here but kept for `run` (the second pass shrinks it, then saves it): the looks of the
        items after this one come first. True when the item is done (an error, or all its cases run with no
        failure waiting): then `finish` it, otherwise `run` runs the rest (or shrinks its failure)."""
        total = self._total()
        n = self.opts.first_look if total is None else min(self.opts.first_look, total)
        self.looked = n
        self.budget = self._budget(time_share)
        if self.budget is not None:
            self.draw_deadline = time.time() + FIRST_LOOK_TIME * self.budget
        if self.differential is not None:
            self.differential.deadline = self.deadline
        self.deferring = self.opts.shrink and not self.opts.stop_on_first
        start = time.monotonic()
        try:
            self._batch(n, 0)
        except KeyboardInterrupt:
            self.result.elapsed += time.monotonic() - start
            self.result.status = "interrupted"
            self.deferring = False
            self._flush()
            self.finish()
            raise
        finally:
            self.deferring = False
        self.result.elapsed += time.monotonic() - start
        self.draw_deadline = None
        if self.result.timed_out and (self.opts.deadline is None or time.time() < self.opts.deadline):
            self.result.timed_out = False  # the first look's time ran out, not the campaign's
        if self.has_deferred():
            return False
        return bool(self.result.findings) or self.result.status == "error" or (total is not None and n >= total)

    def run(self) -> ItemResult:
        """Run the item: ``examples`` cases, or (time budget) one Hypothesis run that the item's deadline ends, also
        while it shrinks: the same seed draws the same cases in the same order, however far a run gets. After a
        `first_look`, the cases it did not run, as a second Hypothesis run; or, when the look found a failure,
        a run that replays it from the example database and shrinks it (within the item's share of the time
        left), then saves it."""
        opts, u = self.opts, self.unit
        total = self._total()
        if total is not None:
            total -= self.looked
        budget = self._budget(opts.time_share)
        self.sink.start(u, total, budget)
        start = time.monotonic()
        self.budget = budget
        if budget is not None:
            end = time.time() + max(budget, SHRINK_MIN if self.has_deferred() else 0.0)
            self.deadline = end if self.deadline is None else min(self.deadline, end)
        if self.differential is not None:
            self.differential.deadline = self.deadline
        index = 1 if self.looked else 0
        try:
            if self.has_deferred():
                self._batch(1, index, shrink_only=True)
            elif total is None:
                self._batch(TIMED_EXAMPLES, index)
            elif total > 0:
                self._batch(total, index)
        except KeyboardInterrupt:
            self.result.status = "interrupted"
            raise
        finally:
            self.result.elapsed += time.monotonic() - start
            self._flush()  # a failure of the look that a stop kept from its shrinking run: saved as it is
            self.finish()
        return self.result

    def finish(self) -> ItemResult:
        """Close the item's result (its coverage, its status) and report it done."""
        self.result.coverage = self.coverage.to_json()
        d = self.differential
        if d is not None and d.excused_cases:
            self.result.excused = {"cases": d.excused_cases, "elements": d.excused_elements, "max_ulp": d.excused_ulp}
        if self.result.status == "passed" and self.result.findings:
            self.result.status = "failed"
        self.sink.done(self.result)
        return self.result


def run_items(items: Sequence[Unit], opts: RunOptions, sink: Sink, target: Target | None) -> None:
    """Run the items in this process: first a look at every item (`ItemRunner.first_look`), then the rest of each
    in order, until they are done, an interruption is requested or the deadline nears. With a time budget each
    item still to run gets an equal share of the time left (negative items their smaller share), so that time an
    item leaves (it found its bug early) goes to the others. An item that had its look and then no time (or was
    interrupted) is reported with the cases it ran, timed out (interrupted)."""
    to_run = set(range(len(items)))  # items with cases still to run

    def share() -> float | None:
        """The time left over the items still to run, per unit of weight (a negative item gets its smaller part)."""
        if opts.deadline is None:
            return None
        return (opts.deadline - time.time()) / max(1e-9, sum(weight(items[j], opts.negative_share) for j in to_run))

    def stopping() -> bool:
        return signals.requested() or (opts.deadline is not None and time.time() >= opts.deadline - 0.2)

    looked: dict[int, ItemRunner] = {}
    interrupted = False
    looking = opts.first_look > 0 and len(items) > 1
    order = list(range(len(items)))
    try:
        if looking:
            for i, item in enumerate(items):
                if stopping():
                    break
                r = ItemRunner(item, opts, sink, target)
                if r.first_look(share()):
                    to_run.discard(i)
                    r.finish()
                else:
                    looked[i] = r
            # the items whose look found a failure shrink it first: their findings are saved (and shown) before
            # the other items run the rest of their cases
            order.sort(key=lambda j: not (j in looked and looked[j].has_deferred()))
        for i in order:
            item = items[i]
            if stopping():
                break
            r = looked.pop(i, None)
            if r is None and looking:
                continue  # done in its first look, or its look never came (the campaign is stopping)
            r = r or ItemRunner(item, opts, sink, target)
            r.opts = replace(opts, time_share=share())
            to_run.discard(i)
            r.run()
    except KeyboardInterrupt:
        interrupted = True
        raise
    finally:
        for r in looked.values():  # looked at, never run further: the clock or a stop ended them
            with signals.shielded():
                r.close_unrun("interrupted" if interrupted or signals.requested() else None)


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
