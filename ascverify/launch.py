"""The program ``ascverify`` (the console script and ``python -m ascverify``): Ctrl-C and SIGTERM stop it with one
line and exit status 130 from its first instant to its last.

The commands hold signals themselves while they run (`ascverify.engines.interrupts.command_signals`: what was
written stays written). Before a command starts (the imports, about a quarter of a second, and reading the options)
and after it ends, nothing is being written: a signal then ends the program at once, where Python would print a
`KeyboardInterrupt` traceback (SIGINT) or die without a word (SIGTERM). So this module, which imports nothing of
ascverify but its (empty) package, installs that handler before it imports the command line.

Once the command line has chosen the exit status, Python exits: it joins threads, runs the exit handlers (the
worker pools' clean-up) and then, in its finalization, puts back the default action of every signal it handled,
which kills the process (a second Ctrl-C moments after the first ended the program "killed by SIGINT" instead of
exit status 130). So from there a signal is only recorded (`_exiting`), and the last exit handler (`_last`) ignores
both signals for the rest of the exit and makes a signal that came after the command the exit status 130.
"""

from __future__ import annotations

import atexit
import gc
import os
import signal
import sys
from types import FrameType
from typing import Any

#: The exit status of an interrupted command (`ascverify.engines.interrupts.EXIT_INTERRUPTED`).
EXIT_INTERRUPTED = 130
_SIGNALS = (signal.SIGINT, signal.SIGTERM)


class _Exit:
    """The program's exit: its process, the status the command line chose, a signal that came after it."""

    pid: int | None = None
    status: Any = None
    late: int | None = None


_exit = _Exit()


def _stop(signum: int, frame: FrameType | None) -> None:
    """Ctrl-C or SIGTERM outside a command: one line, exit status 130."""
    sys.stderr.write(f"ascverify: interrupted ({signal.Signals(signum).name})\n")
    raise SystemExit(EXIT_INTERRUPTED)


def _exiting(signum: int, frame: FrameType | None) -> None:
    """Ctrl-C or SIGTERM while Python exits (threads joined, exit handlers run): recorded for `_last`; raising here
    would print a traceback from an exit handler."""
    if _exit.late is None:
        _exit.late = signum


def _last() -> None:
    """The last exit handler (registered before the command line's): SIGINT and SIGTERM are ignored for the rest of
    the exit (Python's finalization would put back their default action: death by the signal), and a signal that came
    after the command ended makes the exit status 130 (one line), unless it is 130 already."""
    if _exit.pid != os.getpid():  # a forked child that exits through Python: not the program's exit
        return
    for s in _SIGNALS:
        if signal.getsignal(s) is not signal.SIG_IGN:
            signal.signal(s, signal.SIG_IGN)
    if _exit.late is None or _exit.status == EXIT_INTERRUPTED:
        return
    try:
        sys.stderr.write(f"ascverify: interrupted ({signal.Signals(_exit.late).name})\n")
        for stream in (sys.stdout, sys.stderr):
            if stream is not None:
                stream.flush()
    except (OSError, ValueError):  # a closed stream: the status still says it
        pass
    os._exit(EXIT_INTERRUPTED)


def main() -> None:
    """Run the command line (``sys.argv``) with `_stop` for SIGINT and SIGTERM around it (a signal the caller
    ignores, as a shell does for a background job's SIGINT, stays ignored), and `_exiting` once it has ended."""
    for s in _SIGNALS:
        if signal.getsignal(s) is not signal.SIG_IGN:
            signal.signal(s, _stop)
    if _exit.pid is None:
        atexit.register(_last)  # before the command line's exit handlers: it runs after them
    _exit.pid = os.getpid()
    gc.disable()  # the command line's modules are imported with the cyclic GC paused (see ascverify/__init__.py)
    from .cli import main as run  # imported here, once the handler is in place: that is this module's point
    gc.freeze()  # what the imports made lives until the process exits: later collections need not scan it again
    gc.enable()
    try:
        run(prog_name="ascverify")
    except SystemExit as exc:
        _exit.status = exc.code
        raise
    finally:
        for s in _SIGNALS:
            if signal.getsignal(s) is _stop:
                signal.signal(s, _exiting)
