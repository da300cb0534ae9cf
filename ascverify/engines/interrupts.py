"""Stopping solver work cleanly: Ctrl-C and SIGTERM, an overall time budget, and undecided answers.

Z3 spends most of a solver-heavy command inside ``check()``, in C, where Python's signal handlers do
not run; and by default Z3 takes SIGINT itself while it checks: the query returns ``unknown``
("canceled", which is also how its optimizer reports a timeout) and the program never hears of the
signal. So every solver the toolkit makes leaves SIGINT to Python (`set_timeout`: ``ctrl_c`` off), and:

- `decide` is the one way the toolkit asks a solver: it returns 'sat', 'unsat' or 'unknown' and
  raises `Interrupted` when the query was cut short by a signal (whatever Z3 reports), never
  'unknown' for an interrupt. A query whose answer is 'unknown' is *undecided*: callers report it
  as such (`UNDECIDED`), never as valid, invalid or impossible.
- `solver_region` (entered around solver work, in the main thread) installs SIGINT and SIGTERM
  handlers that only record the signal, and a watcher thread, woken through `signal.set_wakeup_fd`
  by Python's C-level handler, that interrupts the running Z3 query (`Context.interrupt`) at once
  and keeps interrupting queries until the region ends (a query that was about to start is cut
  too). It interrupts only while a query runs: an interrupt that reaches Z3 between queries stays
  pending and spoils later work (models that break the rules); one that lands as a query ends is
  cleared when the region ends (`_clear_z3_interrupt`). The next `decide` or `checkpoint` raises
  `Interrupted`. Handlers never raise inside the region: an exception raised from a handler
  while Z3's objects are being freed would be swallowed.
- `command_signals` (entered by the command line around each command) makes SIGTERM raise
  `Interrupted` like SIGINT does outside solver regions, so that every command keeps what it has
  produced and exits 130. A command's second signal (an impatient second Ctrl-C) is ignored, so that it
  cannot cut short what the command writes as it stops; a third one stops it at once (a stop that hangs).
- `time_budget` sets a deadline for every query in its scope: each query's timeout is cut to the
  time left, and once it is spent queries return 'unknown' at once and `budget_exhausted` is true
  (commands then stop and report what is undecided).

A forked child inherits the handlers but not the watcher: there a signal ends it quietly
(`SystemExit`); pool workers install `worker_signals` (Ctrl-C is their parent's to handle).
"""

from __future__ import annotations

import os
import select
import signal
import sys
import threading
import time
from contextlib import contextmanager
from typing import Any, Callable, Iterator

from ..spec.errors import InputError

#: The longest any single wait may be (seconds): a target's answer to one case, a solver query. One day; a longer
#: one overflows the clocks that threads and pipes wait on ("timestamp too large to convert to C _PyTime_t").
MAX_TIMEOUT = 86400.0

#: Exit status of a command stopped by SIGINT or SIGTERM (the shell's 128 + SIGINT, as `fuzz` uses).
EXIT_INTERRUPTED = 130
#: Exit status when the answer depends on a query the solver could not decide (or the time budget ran out).
EXIT_UNDECIDED = 2
#: How every command words an undecided answer.
UNDECIDED = "undecided: the solver gave up (timeout/resource limit)"
_SIGNALS = (signal.SIGINT, signal.SIGTERM)


class Interrupted(KeyboardInterrupt):
    """The work was asked to stop (Ctrl-C or SIGTERM)."""

    def __init__(self, signum: int = signal.SIGINT) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


class _State:
    pid = os.getpid()
    requested: int | None = None
    depth = 0  # solver regions entered (main thread)
    deadline: float | None = None  # time.monotonic() when the budget runs out
    budget_s: float | None = None
    exhausted = False
    wake_r = -1
    wake_w = -1
    watcher: threading.Thread | None = None
    commands = 0  # command_signals() entered
    worker = False  # a pool worker: its parent handles the signals (`worker_signals`)
    in_check = False  # the main thread is inside a solver query (`decide`)
    z3_interrupted = False  # the watcher interrupted the Z3 context in this region (`_clear_z3_interrupt`)
    hold = 0  # `deferred()` sections entered
    ignored = 0  # signals a stopping command let pass (`_handler`: the next one after `FORCE_AFTER` stops it)
    handled = False  # the command dealt with `requested` and goes on to write what it has (`handled`)


#: Held while `in_check` changes and while a query is interrupted: Z3 must only be interrupted during a query.
#: An interrupt that reaches the context between queries stays pending inside it and silently spoils later
#: work (model evaluation and simplification give up half-way: models that break the rules they satisfy).
_check_lock = threading.Lock()


_state = _State()


def _clear_request() -> None:
    """No stop asked for (and none being dealt with)."""
    _state.requested, _state.handled = None, False


def _reset_if_forked() -> None:
    if _state.pid != os.getpid():  # a forked child: the parent's regions, watcher and budget are not ours
        _state.pid = os.getpid()
        _clear_request()
        _state.depth = 0
        _state.watcher = None
        _state.wake_r = _state.wake_w = -1
        _state.commands = 0
        _state.worker = False


def worker_signals() -> None:
    """Initializer of a worker process (a `multiprocessing` pool's): Ctrl-C is the parent's to handle (it
    terminates the pool), SIGTERM ends the worker at once, and solver regions install no handlers: a worker
    never prints a traceback for a signal."""
    _reset_if_forked()
    _state.worker = True
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    try:
        signal.set_wakeup_fd(-1)  # a parent's solver region's, if it forked inside one
    except (ValueError, OSError):
        pass


def requested() -> int | None:
    """The signal that asked the work to stop, if any."""
    return _state.requested if _state.pid == os.getpid() else None


def stop_received() -> int | None:
    """The signal that asked the work to stop while one of this module's handlers is installed (in a command, a
    solver region or a deferred section), if any; outside them None (an earlier interrupt is the caller's)."""
    if _state.commands or _state.depth or _state.hold:
        return requested()
    return None


def checkpoint() -> None:
    """Raise `Interrupted` if a stop was asked for (call between steps of long solver work), unless the command has
    dealt with it already (`handled`)."""
    if requested() is not None and not _state.handled:
        raise Interrupted(_state.requested or signal.SIGINT)


def handled() -> None:
    """The stop that was asked for has been dealt with: the command stops its work and now writes what it has (`gen`
    writes the cases it found), so `checkpoint()` no longer raises for it. A second signal is let pass as before
    (`FORCE_AFTER`) and the one after it stops the writing too."""
    if requested() is not None:
        _state.handled = True


def _main_thread() -> bool:
    return threading.current_thread() is threading.main_thread()


#: How long after a swallowed interrupt the signal is sent again (seconds; see `swallowed_interrupts_redelivered`).
REDELIVERY_DELAY = 0.005


def deliver_again(signum: int) -> None:
    """Send ``signum`` to the main thread a moment later, from a thread; its handler then runs anew where Python next
    handles signals. To the main thread itself: sent to the process, another thread may take it, and a main thread
    waiting in ``time.sleep`` or ``select`` would not wake up."""
    timer = threading.Timer(REDELIVERY_DELAY, signal.pthread_kill, (threading.main_thread().ident, signum))
    timer.daemon = True
    timer.start()


@contextmanager
def swallowed_interrupts_redelivered(forget: Callable[[], None] = lambda: None) -> Iterator[None]:
    """While the body runs, an interrupt Python swallowed is delivered again instead of printed. A handler's
    `KeyboardInterrupt` raised inside code the garbage collector runs (a `gc.callbacks` entry, such as Hypothesis's
    timing of collections; a weakref callback; a finalizer) does not propagate: Python prints it ("Exception ignored
    in ...", a traceback) and drops it, and the command went on. Here ``forget()`` lets the handler take the signal
    anew and the main thread gets it again a moment later (`deliver_again`)."""
    previous = sys.unraisablehook

    def hook(unraisable: Any) -> None:
        exc = unraisable.exc_value
        if not isinstance(exc, KeyboardInterrupt):
            previous(unraisable)
            return
        signum = getattr(exc, "signum", signal.SIGINT)
        while True:
            try:
                forget()
                deliver_again(signum)
                return
            except KeyboardInterrupt as again:
                # the signal sent again came while this hook still ran (starting the timer's thread waits for it,
                # and on a loaded machine longer than the delay): raised here, Python would print and drop it too
                signum = getattr(again, "signum", signum)

    sys.unraisablehook = hook
    try:
        yield
    finally:
        sys.unraisablehook = previous


#: Signals a stopping command lets pass before it obeys the next one (Ctrl-C three times stops it at once).
FORCE_AFTER = 1


def _handler(signum: int, frame: Any) -> None:
    if _state.pid != os.getpid():  # inherited by a forked child (a worker starting up): end it, quietly
        raise SystemExit(128 + signum)
    if _state.requested is not None and _state.commands and _state.ignored < FORCE_AFTER:
        # the command is stopping already (its first signal raised `Interrupted`, or `checkpoint()` will): a second
        # Ctrl-C must not cut short what it writes as it stops (a partial document closed, a report of what ran);
        # a third one is obeyed at once (a stop that hangs must still be stoppable from the keyboard)
        _state.ignored += 1
        return
    if _state.requested is None:
        _state.requested = signum
    if _state.depth > 0 or _state.hold > 0:
        return  # inside solver work (the watcher interrupts the query) or a deferred section: checkpoint() raises
    raise Interrupted(signum)


def _interrupt_z3() -> None:
    """Interrupt the running query, if one runs (see `_check_lock`)."""
    with _check_lock:
        if not _state.in_check:
            return
        try:
            import z3

            z3.main_ctx().interrupt()
            _state.z3_interrupted = True
        except Exception:  # noqa: BLE001 - nothing to interrupt
            pass


def _clear_z3_interrupt() -> None:
    """Undo an interrupt the Z3 context may still hold. One that reaches it as a query ends stays pending until the
    next query starts, and meanwhile Z3's simplifier and tactics give up at once, returning their input: solver
    work begun after an interrupted region (a library caller that goes on) then built models that break the rules
    (measured: the first sampling after it, 8 of 8 cases). A query starting clears it: one on an empty solver."""
    import z3

    z3.Solver().check()


def _watch(r: int) -> None:
    """Read the signal numbers Python's C handler writes to the wakeup pipe; interrupt Z3 until the region ends."""
    while True:
        timeout = 0.05 if _state.requested is not None else None
        try:
            ready, _, _ = select.select([r], [], [], timeout)
        except (OSError, ValueError):
            return
        if ready:
            try:
                data = os.read(r, 64)
            except OSError:
                return
            if not data:  # the region closed the pipe
                return
            sigs = [b for b in data if b in _SIGNALS]
            if sigs and _state.requested is None:
                _state.requested = sigs[0]
        if _state.requested is not None:
            _interrupt_z3()


@contextmanager
def solver_region() -> Iterator[None]:
    """Solver work that a signal must stop within a second (see the module docstring); nests."""
    _reset_if_forked()
    if not _main_thread() or _state.worker:
        yield
        return
    if _state.depth > 0:
        _state.depth += 1
        try:
            yield
        finally:
            _state.depth -= 1
        return
    if _state.commands == 0:  # used as a library: an earlier interrupt was dealt with by the caller
        _clear_request()
    old = {s: signal.getsignal(s) for s in _SIGNALS}
    r, w = os.pipe()
    os.set_blocking(w, False)
    try:
        old_fd = signal.set_wakeup_fd(w, warn_on_full_buffer=False)
    except (ValueError, OSError):
        os.close(r)
        os.close(w)
        old_fd = None
    if old_fd is not None:
        _state.wake_r, _state.wake_w = r, w
        _state.watcher = threading.Thread(target=_watch, args=(r,), name="ascverify-interrupt", daemon=True)
        _state.watcher.start()
    for s in _SIGNALS:
        signal.signal(s, _handler)
    _state.depth = 1
    failed = False
    try:
        yield
    except Exception as exc:
        failed = True
        import z3

        if isinstance(exc, z3.Z3Exception) and _state.requested is not None:  # a Z3 call cut short by the interrupt
            raise Interrupted(_state.requested) from None
        raise
    except BaseException:
        failed = True
        raise
    finally:
        _state.depth = 0
        for s, h in old.items():
            signal.signal(s, h if h is not None else signal.SIG_DFL)
        if old_fd is not None:
            signal.set_wakeup_fd(old_fd)
            os.close(w)  # the watcher reads EOF and ends
            if _state.watcher is not None:
                _state.watcher.join(timeout=1.0)
            os.close(r)
            _state.watcher = None
            _state.wake_r = _state.wake_w = -1
        with _check_lock:  # no query runs now, and the watcher interrupts only during one
            if _state.z3_interrupted:
                _state.z3_interrupted = False
                _clear_z3_interrupt()
    if not failed and _state.requested is not None:
        # the work finished as the signal came: the caller (outside the region) still has to stop
        raise Interrupted(_state.requested)


@contextmanager
def deferred() -> Iterator[None]:
    """A section a signal must not cut in half (starting worker processes: a `KeyboardInterrupt` half-way through
    `multiprocessing.Pool()` leaves workers that nothing stops): the signal is recorded, and `checkpoint()`
    after the section raises it."""
    _reset_if_forked()
    if _state.commands == 0 and _state.depth == 0 and _state.hold == 0:
        _clear_request()  # used as a library: an earlier interrupt was dealt with by the caller
    _state.hold += 1
    try:
        yield
    finally:
        _state.hold -= 1


def start_pool(context: Any, processes: int) -> "WatchedPool":
    """A `multiprocessing` pool of ``context`` whose workers leave Ctrl-C to this process (`worker_signals`), as a
    `WatchedPool` (a worker that dies ends a wait with `WorkerDied` instead of leaving it waiting for good).

    A Ctrl-C while the processes start ends the pool and raises `Interrupted` once they are all up (never a pool
    half started, never an error of a broken pool). SIGINT is blocked meanwhile, so that the processes begin
    with it blocked: a forkserver imports its preloaded modules before it ignores SIGINT, and a worker unpickles
    its initializer before it runs, so the terminal's Ctrl-C (sent to the whole process group) would kill them
    with a traceback."""
    import multiprocessing
    from multiprocessing import resource_tracker  # stdlib, loaded when a pool starts: `check` starts without it

    if context.get_start_method() != "fork":
        resource_tracker.ensure_running()  # started later, it would unblock SIGINT here (it restores by unblocking)
    before = set(multiprocessing.active_children())
    if not _main_thread() or not hasattr(signal, "pthread_sigmask"):
        return WatchedPool(context.Pool(processes, initializer=worker_signals), before)
    _reset_if_forked()
    old_handler = signal.signal(signal.SIGINT, _handler)  # inside `deferred()` it records the signal
    pool = None
    try:
        with deferred():
            old_mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
            try:
                pool = context.Pool(processes, initializer=worker_signals)
            finally:
                signal.pthread_sigmask(signal.SIG_SETMASK, old_mask)  # a pending Ctrl-C is delivered (recorded)
                _deliver()
            if requested() is not None:
                raise Interrupted(_state.requested or signal.SIGINT)
    except BaseException:
        if pool is not None:
            pool.terminate()
        if requested() is not None:
            raise Interrupted(_state.requested or signal.SIGINT) from None  # the interrupt broke the start
        raise
    finally:
        signal.signal(signal.SIGINT, old_handler)
    return WatchedPool(pool, before)


#: How often a wait for a pool's results looks at its worker processes (seconds).
WORKER_CHECK_SECONDS = 0.25


_SIGNAL_NUMBERS = frozenset(int(s) for s in signal.Signals)


def how_it_ended(exitcode: int | None) -> str:
    """A process's exit code in words: ``killed by SIGKILL`` (a negative code, as `multiprocessing` gives it) or
    ``exit status N``."""
    if exitcode is not None and exitcode < 0 and -exitcode in _SIGNAL_NUMBERS:
        return f"killed by {signal.Signals(-exitcode).name}"
    return f"exit status {exitcode}"


class WorkerDied(InputError):
    """A worker process of a pool ended while the pool ran (the system's out-of-memory killer, a ``kill -9``)."""

    def __init__(self, exitcode: int) -> None:
        super().__init__(f"a worker process ended unexpectedly ({how_it_ended(exitcode)}; the system may be short of "
                         "memory): run again with fewer --workers", field="--workers")


class WatchedPool:
    """A started `multiprocessing` pool (`start_pool`) whose waits end when one of its worker processes dies.

    `multiprocessing.Pool` replaces a worker that dies but loses the task it was running: waiting for that task's
    result never ended (``check --workers 2`` hung for good when the out-of-memory killer took a worker). Its workers
    only end with the pool, so each wait here looks at the workers it started every `WORKER_CHECK_SECONDS` and
    raises `WorkerDied` (one line, exit status 2) once one has ended."""

    def __init__(self, pool: Any, before: set[Any]) -> None:
        import multiprocessing  # (stdlib, loaded when a pool starts: `check` starts without it)

        self.pool = pool
        self.workers = [p for p in multiprocessing.active_children() if p not in before]
        self._timeout = multiprocessing.TimeoutError

    def check(self) -> None:
        """Raise `WorkerDied` if a worker has ended."""
        for p in self.workers:
            code = p.exitcode
            if code is not None:
                raise WorkerDied(code)

    def wait(self, result: Any) -> Any:
        """The value of the pool's ``result`` (an `AsyncResult`), looking at the workers while it comes."""
        while True:
            try:
                return result.get(WORKER_CHECK_SECONDS)
            except self._timeout:
                self.check()

    def apply_async(self, fn: Callable[..., Any], args: tuple = ()) -> "_Pending":
        return _Pending(self, self.pool.apply_async(fn, args))

    def map(self, fn: Callable[[Any], Any], items: Any, chunksize: int | None = None) -> list[Any]:
        return self.wait(self.pool.map_async(fn, items, chunksize))

    def starmap(self, fn: Callable[..., Any], items: Any) -> list[Any]:
        return self.wait(self.pool.starmap_async(fn, items))

    def imap_unordered(self, fn: Callable[[Any], Any], items: Any) -> Iterator[Any]:
        """The values of ``fn`` over ``items`` as they come, looking at the workers while they come."""
        results = self.pool.imap_unordered(fn, items)
        while True:
            try:
                yield results.next(WORKER_CHECK_SECONDS)
            except self._timeout:
                self.check()
            except StopIteration:
                return

    def close(self) -> None:
        self.pool.close()

    def terminate(self) -> None:
        self.pool.terminate()

    def join(self) -> None:
        self.pool.join()

    def __enter__(self) -> "WatchedPool":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.pool.terminate()


class _Pending:
    """A task of a `WatchedPool`: ``get()`` waits for its value, looking at the workers."""

    def __init__(self, owner: WatchedPool, result: Any) -> None:
        self.owner, self.result = owner, result

    def get(self) -> Any:
        return self.owner.wait(self.result)


def _deliver() -> None:
    """A Python call: the interpreter runs the handlers of signals that arrived (it checks on calls)."""


def _forget() -> None:
    """A signal whose `Interrupted` Python swallowed (see `swallowed_interrupts_redelivered`): taken anew when it comes
    again (a command's later signals are otherwise ignored: `_handler`)."""
    _clear_request()
    _state.ignored = 0


@contextmanager
def command_signals() -> Iterator[None]:
    """For a whole command: SIGINT and SIGTERM raise `Interrupted` (solver regions inside hold them back)."""
    _reset_if_forked()
    if not _main_thread():
        yield
        return
    old = {s: signal.getsignal(s) for s in _SIGNALS}
    _clear_request()
    _state.ignored = 0
    _state.commands += 1
    for s in _SIGNALS:
        signal.signal(s, _handler)
    try:
        with swallowed_interrupts_redelivered(_forget):
            yield
    finally:
        _state.commands -= 1
        for s, h in old.items():
            signal.signal(s, h if h is not None else signal.SIG_DFL)


# -- the time budget ----------------------------------------------------------------------------------------------

@contextmanager
def time_budget(seconds: float | None) -> Iterator[None]:
    """Every solver query in the scope ends by ``seconds`` from now (None: no budget)."""
    if seconds is None:
        yield
        return
    saved = (_state.deadline, _state.budget_s, _state.exhausted)
    deadline = time.monotonic() + seconds
    if _state.deadline is None or deadline < _state.deadline:
        _state.deadline, _state.budget_s = deadline, seconds
    _state.exhausted = False
    try:
        yield
    finally:
        _state.deadline, _state.budget_s, _state.exhausted = saved


def set_deadline(deadline: float | None, seconds: float | None = None) -> None:
    """Set the budget's deadline (``time.monotonic()`` seconds) directly, e.g. in a worker process."""
    _state.deadline, _state.budget_s, _state.exhausted = deadline, seconds, False


def deadline() -> float | None:
    return _state.deadline


def remaining_ms() -> int | None:
    """Milliseconds left of the budget (None: no budget)."""
    if _state.deadline is None:
        return None
    return max(0, int((_state.deadline - time.monotonic()) * 1000))


def budget_exhausted() -> bool:
    """The time budget ran out (queries since return 'unknown' at once)."""
    if _state.deadline is not None and time.monotonic() >= _state.deadline:
        _state.exhausted = True
    return _state.exhausted


def reset_budget_flag() -> None:
    _state.exhausted = False


def budget_text() -> str:
    """'the time budget (N s) ran out' for messages."""
    s = _state.budget_s
    return f"the time budget ({s:g} s) ran out" if s is not None else "the time budget ran out"


# -- asking the solver ----------------------------------------------------------------------------------------------

def set_timeout(s: Any, timeout_ms: int) -> Any:
    """Give solver (or optimizer) ``s`` its per-query timeout (remembered, so that `decide` can cut it to the
    budget), and leave SIGINT to Python: Z3 would otherwise take it during a query and report the query as
    "canceled", which is also how its optimizer reports a timeout: the two could not be told apart."""
    s.set("timeout", int(timeout_ms))
    s.set("ctrl_c", False)
    try:
        s.ascverify_timeout_ms = int(timeout_ms)
    except AttributeError:
        pass
    return s


def decide(s: Any, lits: Any = ()) -> str:
    """'sat', 'unsat' or 'unknown' for solver (or optimizer) ``s`` under the assumptions ``lits``.

    Raises `Interrupted` when a signal asked to stop (before the query, or when it cut the query
    short). With a time budget the query's timeout is cut to the time left; once it is spent the
    answer is 'unknown' without asking.
    """
    import z3

    checkpoint()
    if _state.deadline is not None:
        left = remaining_ms()
        if not left:
            _state.exhausted = True
            return "unknown"
        own = getattr(s, "ascverify_timeout_ms", None)
        s.set("timeout", left if own is None else min(own, left))
    watched = _main_thread()
    if watched:
        with _check_lock:
            _state.in_check = _state.requested is None
        checkpoint()  # a signal came since the first checkpoint: do not start the query
    try:
        r = s.check(*lits)
    finally:
        if watched:
            with _check_lock:
                _state.in_check = False
    if _state.requested is not None and _state.pid == os.getpid():
        # even after sat or unsat: the watcher may have interrupted the context as the query ended, and the
        # interrupt would then cut the model's evaluation short (values that break the rules they satisfy)
        raise Interrupted(_state.requested)
    if r == z3.sat:
        return "sat"
    if r == z3.unsat:
        return "unsat"
    try:
        reason = s.reason_unknown()
    except Exception:  # noqa: BLE001 - no reason to be had
        reason = ""
    if reason == "interrupted from keyboard":  # Z3 took the SIGINT itself: the program never heard of it
        if _state.pid == os.getpid() and _state.requested is None:
            _state.requested = signal.SIGINT
        raise Interrupted(signal.SIGINT)
    if _state.deadline is not None and time.monotonic() >= _state.deadline:
        _state.exhausted = True
    return "unknown"
