"""The program ``ascverify`` (the console script and ``python -m ascverify``): Ctrl-C and SIGTERM stop it with one
line and exit status 130 from its first instant to its last.

The commands hold signals themselves while they run (`ascverify.engines.interrupts.command_signals`: what was
written stays written). Before a command starts (the imports, about a quarter of a second, and reading the options)
and after it ends, nothing is being written: a signal then ends the program at once, where Python would print a
`KeyboardInterrupt` traceback (SIGINT) or die without a word (SIGTERM). So this module, which imports nothing of
ascverify but its (empty) package, installs that handler before it imports the command line.
"""

from __future__ import annotations

import gc
import signal
import sys
from types import FrameType

#: The exit status of an interrupted command (`ascverify.engines.interrupts.EXIT_INTERRUPTED`).
EXIT_INTERRUPTED = 130


def _stop(signum: int, frame: FrameType | None) -> None:
    """Ctrl-C or SIGTERM outside a command: one line, exit status 130."""
    sys.stderr.write(f"ascverify: interrupted ({signal.Signals(signum).name})\n")
    raise SystemExit(EXIT_INTERRUPTED)


def main() -> None:
    """Run the command line (``sys.argv``) with `_stop` for SIGINT and SIGTERM around it (a signal the caller
    ignores, as a shell does for a background job's SIGINT, stays ignored)."""
    for s in (signal.SIGINT, signal.SIGTERM):
        if signal.getsignal(s) is not signal.SIG_IGN:
            signal.signal(s, _stop)
    gc.disable()  # the command line's modules are imported with the cyclic GC paused (see ascverify/__init__.py)
    from .cli import main as run  # imported here, once the handler is in place: that is this module's point
    gc.freeze()  # what the imports made lives until the process exits: later collections need not scan it again
    gc.enable()
    run(prog_name="ascverify")
