"""A fuzz campaign: plan the items, run them (in this process or in worker processes), report.

``run_campaign(config)`` is what ``ascverify fuzz`` calls. It plans the units (`plan`), splits them for
the shard and the workers, runs the items (`runner.run_items`), shows progress (`progress`), writes the JSON and
JUnit reports (`reports`) and returns a `CampaignResult` whose ``exit_status`` follows the command-line
contract: 0 no finding, 1 findings, 3 a harness error, 130 interrupted (the findings saved and the
reports written for what ran).

Interruption: SIGINT or SIGTERM stops the running item (its findings are saved, unshrunk if Hypothesis
had no time to shrink them), workers are told to stop (SIGTERM; they ignore SIGINT from their start, so that a
terminal's Ctrl-C, which reaches them too, prints nothing) and their partial results collected (they get
`WORKER_GRACE` seconds), then the reports are written.

Processes: workers stop (as on SIGTERM) when the campaign's process dies, even by SIGKILL, and end
at the latest `WORKER_GRACE` seconds later; every process a target starts carries the campaign's
token and is killed when its call ends, and again by a sweep when the campaign ends (`procs`).

Outputs: a finding that cannot be written (a full disk, a read-only folder) is kept, printed in full on
standard error and put in the reports, and the campaign exits with status 2; so does one whose
reports cannot be written (the path and the OS error in one line). Temporary finding folders that a
killed campaign left are removed when the next one starts (`reproducers.clean_stale`).
"""

from __future__ import annotations

import os
import queue
import random
import signal
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from ...spec.errors import InputError
from ..interrupts import how_it_ended
from ..outputs import OutputError, check_file_path, make_dir, os_error, shown_output
from . import procs, signals
from .coverage import Coverage
from .database import describe as describe_database, open_database
from .plan import KINDS, Unit, item_examples, partition, plan_units, select_models, shard, split_for_workers
from .progress import Display
from .reports import coverage_lines, json_report, junit_xml, observed_totals, write_bytes, write_json
from .checks import Differential
from .reproducers import PRIVATE, clean_stale
from .runner import ItemResult, RunOptions, Sink, open_target, run_items
from .storage import campaign_hypothesis, without_mined_constants

#: Seconds workers get to save their findings and report after being told to stop.
WORKER_GRACE = 15.0
#: Seconds past a --time deadline after which the workers still running are stopped as on SIGTERM (their results so
#: far kept): a worker busy inside Hypothesis's target phase never reaches its own deadline check (audit 20: a 90 s
#: campaign ran 400 s until killed).
DEADLINE_GRACE = 10.0
EXIT_INTERRUPTED = 130
DEFAULT_FINDINGS = "ascverify-findings"


@dataclass
class CampaignConfig:
    """Everything a campaign needs (the options of ``ascverify fuzz``)."""

    apis: tuple[str, ...] = ()
    products: tuple[str, ...] = ()
    kinds: tuple[str, ...] | None = None     # default: invariants+negative, or differential with a target
    target: dict[str, str] | None = None     # {"kind": "python"|"command", "spec": ...}
    examples: int | None = 100
    time_budget: float | None = None
    seed: int | None = None
    rtol: float | None = None
    atol: float | None = None
    error_ratio: float | None = None
    timeout: float = 10.0
    findings: str | None = DEFAULT_FINDINGS
    database: str | None = None              # None: FINDINGS/.examples; "none": in memory only
    workers: int = 1
    shard: tuple[int, int] = (1, 1)
    shrink: bool = True
    stop_on_first: bool = False
    negative_share: float = 0.25
    junit: str | None = None
    report: str | None = None
    exact: bool = False                      # differential: every output bit for bit (--exact)
    keep_unspecified: bool = False           # differential: also cases whose outputs the core leaves unspecified

    def resolved_kinds(self) -> tuple[str, ...]:
        if self.kinds:
            bad = [k for k in self.kinds if k not in KINDS]
            if bad:
                raise InputError(f"unknown campaign kind {bad[0]!r} (one of {', '.join(KINDS)})", field="--kind")
            if "differential" in self.kinds and not self.target:
                raise InputError("a differential campaign needs --target or --target-cmd", field="--kind")
            return tuple(self.kinds)
        return ("differential",) if self.target else ("invariants", "negative")

    def database_spec(self) -> str | None:
        if self.database is not None:
            return self.database
        return str(Path(self.findings) / ".examples") if self.findings else None


@dataclass
class CampaignResult:
    config: CampaignConfig
    seed: int
    items: list[Unit]
    results: list[ItemResult]
    findings: list[dict[str, Any]]
    coverage: dict[str, Any]
    observed: dict[str, Any]
    interrupted: bool
    elapsed: float
    exit_status: int
    report: dict[str, Any] = field(default_factory=dict)


def plan(config: CampaignConfig) -> list[Unit]:
    """The items this machine runs (after the shard split and the split for the workers)."""
    models = select_models(config.apis)
    units = plan_units(models, config.products or None, config.resolved_kinds())
    k, n = config.shard
    items = shard(partition(units, n), k, n)
    return split_for_workers(items, max(1, config.workers))


def _options(config: CampaignConfig, seed: int, items: Sequence[Unit], start: float,
             token: str | None = None) -> RunOptions:
    share = None
    deadline = None
    if config.time_budget is not None:
        deadline = start + config.time_budget
        slots = max(1, config.workers)
        share = max(1.0, config.time_budget * min(slots, len(items) or 1) / max(1, len(items)))
    return RunOptions(seed=seed, examples=None if config.time_budget is not None else config.examples,
                      time_share=share, deadline=deadline, target=config.target, timeout=config.timeout,
                      rtol=config.rtol, atol=config.atol, error_ratio=config.error_ratio, findings=config.findings,
                      database=config.database_spec(), shrink=config.shrink, stop_on_first=config.stop_on_first,
                      negative_share=config.negative_share, cwd=os.getcwd(), token=token, exact=config.exact,
                      keep_unspecified=config.keep_unspecified, campaign_start=start)


# -- in this process -----------------------------------------------------------------------------------------------

def _run_here(items: Sequence[Unit], opts: RunOptions, sink: Sink) -> None:
    needs_target = any(u.kind == "differential" for u in items)
    target = open_target(opts) if needs_target else None
    try:
        run_items(items, opts, sink, target)
    finally:
        if target is not None:
            target.close()


# -- in worker processes -------------------------------------------------------------------------------------------

class _QueueSink(Sink):
    """A worker's sink: progress batched (every 0.25 s), findings and results at once."""

    def __init__(self, q: Any) -> None:
        self.q = q
        self.pending: dict[str, tuple[Unit, int]] = {}
        self.last = time.monotonic()

    def _flush(self) -> None:
        for unit, n in self.pending.values():
            self.q.put(("advance", unit, n))
        self.pending.clear()
        self.last = time.monotonic()

    def start(self, unit: Unit, total: int | None, seconds: float | None) -> None:
        self.q.put(("start", unit, total, seconds))

    def advance(self, unit: Unit, n: int = 1) -> None:
        u, m = self.pending.get(unit.key, (unit, 0))
        self.pending[unit.key] = (u, m + n)
        if time.monotonic() - self.last > 0.25:
            self._flush()

    def finding(self, summary: Mapping[str, Any]) -> None:
        self._flush()
        self.q.put(("finding", dict(summary)))

    def done(self, result: ItemResult) -> None:
        self._flush()
        self.q.put(("done", result))


def _worker_main(tasks: Any, results: Any, opts: RunOptions, wid: int,
                 parent_pid: int | None = None) -> None:  # pragma: no cover
    """A worker process: run its items, sending progress, findings and results to ``results``.

    It was born ignoring SIGINT (`procs.start_ignoring_sigint`) and keeps ignoring it: the terminal's Ctrl-C reaches
    the parent too, which stops the workers with SIGTERM. Once its work is done it ignores SIGTERM as well: killed
    while its queue's thread writes, it would leave the queue's lock (shared by the workers) held, and every other
    worker's messages (findings, results) stuck until the parent gave up on them."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # (as born; also when started some other way)
    sink = _QueueSink(results)
    target = None

    def parent_died() -> None:
        results.cancel_join_thread()  # nobody reads the results any more: exiting must not wait on them
        os.kill(os.getpid(), signal.SIGTERM)

    with signals.interruptible((signal.SIGTERM,), ignore_after=True):
        try:
            if parent_pid is not None:
                # the campaign's process died (even by SIGKILL): stop as on SIGTERM, at the latest after the grace
                procs.die_with_parent(parent_pid, signal.SIGTERM, grace=WORKER_GRACE, on_death=parent_died)
            items: list[Unit] = []
            while True:
                item = tasks.get()
                if item is None:
                    break
                items.append(item)
            needs = any(u.kind == "differential" for u in items)
            target = open_target(opts) if needs else None
            with without_mined_constants():  # as in the campaign's own process
                run_items(items, opts, sink, target)
        except KeyboardInterrupt:
            pass
        except InputError as exc:
            results.put(("fatal", exc.line()))
        except BaseException as exc:  # noqa: BLE001 - reported by the main process as a harness error
            import traceback

            results.put(("crash", f"worker {wid}: {type(exc).__name__}: {exc}\n{traceback.format_exc(limit=8)}"))
        finally:
            with signals.shielded():
                if target is not None:
                    target.close()
                sink._flush()
                results.put(("exit", wid))


def _receive(results: Any, handle: Callable[[tuple], None]) -> bool:
    """Read the workers' next message and handle it; False after 0.2 s without one. A signal waits until the
    message is read whole (`signals.critical`): cut half-way through the read, the queue's pipe would be left
    mid-message and every later read garbage (seen once: SIGTERM to a 2-worker campaign, then EOFError "Ran out of
    input" from the next read, and exit 3 instead of 130)."""
    with signals.critical():
        try:
            msg = results.get(timeout=0.2)
        except queue.Empty:
            return False
        handle(msg)
        return True


def _worker_death(i: int, exitcode: int | None) -> str:
    """A harness error: worker ``i`` ended before its items did (its items were not run)."""
    how = how_it_ended(exitcode)
    if how.startswith("killed"):
        return f"worker {i} died: {how} (the system may be short of memory; its items were not run)"
    return f"worker {i} died ({how}; its items were not run)"


def _run_workers(items: Sequence[Unit], opts: RunOptions, display: Display, workers: int) -> list[str]:
    """Run the items on ``workers`` processes (round-robin by expected cost); returns harness errors."""
    import multiprocessing

    ctx = multiprocessing.get_context("spawn")
    results = ctx.Queue()
    queues = [ctx.Queue() for _ in range(workers)]
    for i, item in enumerate(items):  # static round-robin: the items are planned to balance
        queues[i % workers].put(item)
    for q in queues:
        q.put(None)
    workers_ = [ctx.Process(target=_worker_main, args=(queues[i], results, opts, i, os.getpid()),
                            daemon=False, name=f"ascverify-fuzz-{i}") for i in range(workers)]
    errors: list[str] = []
    alive = set(range(workers))
    stop_sent = 0.0

    def handle(msg: tuple) -> None:
        kind = msg[0]
        if kind == "start":
            display.start(msg[1], msg[2], msg[3])
        elif kind == "advance":
            display.advance(msg[1], msg[2])
        elif kind == "finding":
            display.finding(msg[1])
        elif kind == "done":
            display.done(msg[1])
        elif kind == "exit":
            alive.discard(msg[1])
        elif kind == "fatal":
            raise InputError(msg[1])
        elif kind == "crash":
            errors.append(msg[1])

    def stop_workers() -> None:
        for p in workers_:
            if p.is_alive() and p.pid:
                try:
                    os.kill(p.pid, signal.SIGTERM)
                except OSError:
                    pass

    try:
        with signals.critical():  # started whole (a Ctrl-C half way left a child reading an empty pipe: EOFError),
            procs.start_ignoring_sigint(workers_)  # then a Ctrl-C that came meanwhile is taken below, like any other
        while alive:
            if not _receive(results, handle):
                for i, p in enumerate(workers_):
                    if i in alive and not p.is_alive():
                        alive.discard(i)
                        errors.append(_worker_death(i, p.exitcode))
                if stop_sent and time.monotonic() - stop_sent > WORKER_GRACE:
                    break
            if not stop_sent and opts.deadline is not None and time.time() > opts.deadline + DEADLINE_GRACE:
                stop_workers()  # the time is up: what they found so far is kept, as on SIGTERM
                stop_sent = time.monotonic()
    except KeyboardInterrupt:
        with signals.shielded():
            stop_workers()
            stop_sent = time.monotonic()
            while alive and time.monotonic() - stop_sent < WORKER_GRACE:
                try:
                    if not _receive(results, handle):
                        for i, p in enumerate(workers_):
                            if i in alive and not p.is_alive():
                                alive.discard(i)
                except InputError:
                    pass
        raise
    except InputError:
        stop_workers()
        raise
    finally:
        for p in workers_:
            if p.pid is None:  # never started (stopped while the others started)
                continue
            p.join(timeout=2)
            if p.is_alive():
                p.kill()
                p.join(timeout=2)
    return errors


# -- the campaign --------------------------------------------------------------------------------------------------

def run_campaign(config: CampaignConfig, *, display: Display | None = None,
                 print_coverage: bool = True) -> CampaignResult:
    """Run a campaign and write its reports; InputError for bad options. Hypothesis keeps its files in a temporary
    folder meanwhile (`storage.private_hypothesis_storage`), not in the current one, and draws no literal mined from
    source files (`storage.without_mined_constants`)."""
    with campaign_hypothesis():
        return _campaign(config, display, print_coverage)


def _campaign(config: CampaignConfig, display: Display | None, print_coverage: bool) -> CampaignResult:
    started = time.strftime("%Y-%m-%dT%H:%M:%S%z")
    t0 = time.time()
    seed = config.seed if config.seed is not None else random.SystemRandom().randrange(2**32)
    items = plan(config)
    for path, opt in ((config.report, "--report"), (config.junit, "--junit")):
        if path:
            check_report_path(path, opt)
    if config.findings:
        make_dir(Path(config.findings), field="--findings", mode=PRIVATE)
        clean_stale(Path(config.findings), t0)  # temporary folders a killed campaign left
    try:
        known = {p.name.rsplit("-", 1)[-1] for p in Path(config.findings).iterdir()} if config.findings else set()
    except OSError as exc:
        raise os_error(exc, config.findings, field="--findings", action="cannot list") from None
    token = procs.new_token()
    opts = _options(config, seed, items, t0, token)

    if config.database is None and config.findings and os.path.islink(opts.database or ""):
        # the default database lies inside --findings: a link planted there would take its writes elsewhere
        raise InputError("is a symbolic link: the default example database is not followed out of --findings; "
                         "remove the link, or name the folder it points to with --database",
                         where=str(opts.database), field="--database")
    open_database(opts.database)  # a bad --database is an input error before anything runs
    try:
        return _run_campaign(config, opts, seed, items, known, t0, started, display, print_coverage)
    finally:
        procs.sweep(token)  # whatever a target started and a killed worker left behind


def check_report_path(path: str, field: str) -> None:
    """A report can be written at ``path`` (``outputs.check_file_path``), checked before the campaign runs."""
    check_file_path(path, field, probe=True)


def _run_campaign(config: CampaignConfig, opts: RunOptions, seed: int, items: list[Unit], known: set[str], t0: float,
                  started: str, display: Display | None, print_coverage: bool) -> CampaignResult:
    total_cases = None
    if opts.examples is not None:
        total_cases = sum(item_examples(u, opts.examples, opts.negative_share) for u in items)
    own_display = display is None
    display = display or Display(items=len(items), total_cases=total_cases, seconds=config.time_budget)
    interrupted = False
    harness_errors: list[str] = []
    try:
        with signals.interruptible():
            try:
                if any(u.kind == "differential" for u in items) and config.workers > 1:
                    # the workers load it too; a target that cannot load is an input error now (and one being
                    # loaded when the campaign is stopped goes with it)
                    probe = open_target(opts)
                    if probe is not None:
                        probe.close()
                if config.workers <= 1 or len(items) <= 1:
                    _run_here(items, opts, display)
                else:
                    harness_errors = _run_workers(items, opts, display, min(config.workers, len(items)))
            except KeyboardInterrupt:
                interrupted = True
            if signals.requested():
                interrupted = True
            with signals.shielded():
                return _finish(config, seed, items, display, interrupted, t0, started, harness_errors, known,
                               print_coverage)
    finally:
        if own_display:
            display.close()


def _finish(config: CampaignConfig, seed: int, items: Sequence[Unit], display: Display, interrupted: bool,
            t0: float, started: str, harness_errors: list[str], known: set[str], print_coverage: bool) -> CampaignResult:
    done = {r.unit.key: r for r in display.results}
    results = [done.get(u.key) or ItemResult(u, status="skipped") for u in items]
    for err in harness_errors:
        results.append(ItemResult(Unit("campaign", "-", "harness"), status="error", error=err))
    findings = []
    seen = set()
    for f in display.findings:
        if f["id"] in seen:
            continue
        seen.add(f["id"])
        f = dict(f)
        if f["id"] in known:
            f["new"] = False
        findings.append(f)
    coverage = Coverage()
    for r in results:
        coverage.merge(r.coverage)
    observed = observed_totals(results)
    unsaved = [f for f in findings if f.get("unsaved")]
    if interrupted:
        status = EXIT_INTERRUPTED
    elif unsaved:
        status = 2  # the environment kept findings from being written (they are in the output and the reports)
    elif findings:
        status = 1
    elif any(r.status == "error" for r in results):
        status = 3
    else:
        status = 0
    elapsed = time.time() - t0
    cfg = asdict(config)
    cfg.update(seed=seed, database=describe_database(config.database_spec()), shard=f"{config.shard[0]}/{config.shard[1]}",
               kinds=list(config.resolved_kinds()))
    if "differential" in cfg["kinds"]:
        cfg["comparison"] = Differential(None, rtol=config.rtol, atol=config.atol, error_ratio=config.error_ratio,
                                         exact=config.exact).describe()
    real = [r for r in results if r.unit.api != "campaign"]
    report = json_report(config=cfg, results=real, findings=findings, coverage=coverage.to_json(),
                         observed=observed, interrupted=interrupted, elapsed=elapsed, exit_status=status,
                         started=started)
    report["harness_errors"] = harness_errors
    write_errors: list[str] = []
    if config.report:
        try:
            write_json(config.report, report)
        except OutputError as exc:
            write_errors.append(f"--report: {exc.line()}")
    if config.junit:
        props = {"seed": seed, "shard": cfg["shard"], "workers": config.workers, "interrupted": interrupted,
                 "target": (config.target or {}).get("spec"), "database": cfg["database"], "ascverify": report["ascverify"]}
        try:
            write_bytes(config.junit, junit_xml(real, findings, elapsed=elapsed, properties=props,
                                                harness_errors=harness_errors))
        except OutputError as exc:
            write_errors.append(f"--junit: {exc.line()}")
    if write_errors and not interrupted:
        status = report["exit_status"] = 2
    cases = sum(r.cases for r in results)
    if print_coverage and not display.quiet:
        lines = coverage_lines(coverage.to_json(), apis=[m for m in dict.fromkeys(u.api for u in items)])
        if lines:
            display.close()
            display._write(display.out, "\n".join(lines).rstrip("\n"))
    state = "interrupted; " if interrupted else ""
    new = sum(bool(f.get("new", True)) for f in findings)
    display.close()
    if not display.quiet:  # (-q: no summary; errors below still print)
        reports = [shown_output(p) for p in (config.report, config.junit) if p]
        display.note(f"fuzz: {state}{len([r for r in real if r.status != 'skipped'])}/{len(items)} items, {cases} cases, "
                     f"{len(findings)} finding{'' if len(findings) == 1 else 's'} ({new} new), {elapsed:.1f} s, seed {seed}"
                     + (f", shard {config.shard[0]}/{config.shard[1]}" if config.shard != (1, 1) else "")
                     + (f"; reports: {', '.join(reports)}" if reports else ""))
        excused = [r.excused for r in real if getattr(r, "excused", None)]
        if excused:  # a pass the tolerance made: visible, not only on failure (--exact compares bit for bit)
            display.note(f"fuzz: {sum(e['cases'] for e in excused)} passing cases had written elements that differ "
                         f"from the core's bits within the tolerance ({sum(e['elements'] for e in excused)} elements, "
                         f"at most {max(e['max_ulp'] for e in excused)} ULP); --exact compares bit for bit")
    for err in harness_errors:
        display.note(f"fuzz: error: {err.splitlines()[0]}")
    for err in write_errors:
        display.note(f"fuzz: error: cannot write a report: {err}")
    if unsaved:
        display.note(f"fuzz: error: {len(unsaved)} finding(s) could not be saved under {config.findings} "
                     f"({unsaved[0]['unsaved']}); each is printed in full above (\"fuzz: finding: ...\") and in the "
                     f"reports")
    for r in real:
        if r.status == "error" and r.error:
            display.note(f"fuzz: error in {r.unit.key}: {r.error.splitlines()[0]}")
    return CampaignResult(config, seed, list(items), real, findings, coverage.to_json(), observed, interrupted,
                          elapsed, status, report)
