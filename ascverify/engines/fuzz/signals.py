"""Clean interruption: SIGINT and SIGTERM raise `Interrupted` in the main thread, except inside a critical section.

A campaign writes findings and reports inside `critical()`: a signal that arrives there is held back
and raised when the section ends, so no finding or report is ever half written. Only the first signal
counts: the campaign is already stopping when a second one arrives (a worker process gets the
terminal's SIGINT and then its parent's SIGTERM), and the shutdown itself is bounded in time.
"""

from __future__ import annotations

import signal
import threading
from contextlib import contextmanager
from typing import Any, Iterator, Sequence

from .. import interrupts
from ..interrupts import swallowed_interrupts_redelivered


class Interrupted(KeyboardInterrupt):
    """The campaign was asked to stop (Ctrl-C or SIGTERM)."""

    def __init__(self, signum: int = signal.SIGINT) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


class TimeUp(BaseException):
    """A campaign item's share of the time budget is spent: raised from the test body (also while Hypothesis
    shrinks), so that ``--time`` bounds the campaign's wall-clock time; Hypothesis lets it through like an
    interrupt (it is no Exception)."""


class _State:
    depth = 0
    pending: int | None = None
    requested: int | None = None  # the first signal received (the campaign stops at the next occasion)
    installed = 0  # `interruptible()` entered (its handlers in place)


_state = _State()


def requested() -> bool:
    """A stop was asked for (the campaign should not start more work)."""
    return _state.requested is not None


def signal_received() -> int | None:
    """The signal that asked this process to stop, if one came, whichever handler took it (this module's in a
    campaign, `engines.interrupts`' around a command). An interrupt raised inside a ctypes call's argument conversion
    (Z3 goes through ctypes) comes out as ``ctypes.ArgumentError("argument 2: Interrupted: SIGTERM")``, with no link
    to the interrupt: an error raised once a stop was asked for is taken for the stop."""
    if _state.installed and _state.requested is not None:
        return _state.requested
    return interrupts.stop_received()


def _handler(signum: int, frame: Any) -> None:
    if _state.requested is not None:
        return  # already stopping: a second signal (the terminal's and the parent's, or an impatient user) waits
    _state.requested = signum
    if _state.depth:
        _state.pending = signum
        return
    raise Interrupted(signum)


def _forget() -> None:
    """A signal whose `Interrupted` Python swallowed (see `swallowed_interrupts_redelivered`): taken anew when it comes
    again."""
    _state.requested = None


@contextmanager
def interruptible(signums: Sequence[int] = (signal.SIGINT, signal.SIGTERM), *,
                  ignore_after: bool = False) -> Iterator[None]:
    """Install the handlers of ``signums`` for the duration (only possible in the main thread; elsewhere a no-op).

    ``ignore_after``: then ignore them instead of putting the old handlers back (a worker process that is done: a
    signal must not kill it while its queue's thread still writes to the campaign, holding the queue's lock)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    old = {s: signal.getsignal(s) for s in signums}
    _state.requested = None
    _state.pending = None
    _state.depth = 0
    for s in old:
        signal.signal(s, _handler)
    _state.installed += 1
    try:
        with swallowed_interrupts_redelivered(_forget):
            yield
    finally:
        _state.installed -= 1
        for s, h in old.items():
            signal.signal(s, signal.SIG_IGN if ignore_after else h)


@contextmanager
def critical() -> Iterator[None]:
    """Hold signals back while the body runs; raise the held one (if any) after it."""
    _state.depth += 1
    try:
        yield
    finally:
        _state.depth -= 1
    if _state.depth == 0 and _state.pending is not None:
        signum, _state.pending = _state.pending, None
        raise Interrupted(signum)


@contextmanager
def shielded() -> Iterator[None]:
    """Like `critical`, but a held signal is only recorded (for the final steps of an interrupted campaign)."""
    _state.depth += 1
    try:
        yield
    finally:
        _state.depth -= 1
        if _state.depth == 0:
            _state.pending = None
