"""What the solver-heavy commands share: ``--time-budget``, and Ctrl-C / SIGTERM as exit status 130.

Every query of `synth`, `explain`, `fix`, `gen --mode boundary|negative`, `lint` and `diff-products`
has its own timeout; ``--time-budget SECONDS`` caps the whole command: each query's timeout is cut to
the time left, and once it is spent the command stops asking, keeps what it has, and reports what is
undecided (see docs/solver.md for each command's exit status).
"""

from __future__ import annotations

import signal
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Iterator

import click

from ..engines.interrupts import (
    EXIT_INTERRUPTED,
    UNDECIDED,
    budget_exhausted,
    command_signals,
    time_budget,
)
from .common import emit_error
from .options import FiniteFloatRange

TIME_BUDGET_OPTION = click.option(
    "--time-budget", "time_budget", type=FiniteFloatRange(min=0, min_open=True), default=None, metavar="SECONDS",
    help="Stop asking the solver after SECONDS in all (each query also has its own timeout); what is left is "
         "reported as undecided.")


@dataclass
class SolverRun:
    """One command's solver work: its budget, whether the budget ran out, and what an interruption keeps."""

    budget: float | None = None
    exhausted: bool = False
    #: what was kept so far, for the line an interruption prints ("12 cases written")
    kept: str = ""

    def undecided_text(self) -> str:
        """'undecided: the solver gave up (timeout/resource limit)', or that the time budget ran out."""
        if self.exhausted and self.budget is not None:
            return f"undecided: the time budget ({self.budget:g} s) ran out"
        return UNDECIDED


@contextmanager
def solver_command(prog: str, where: str = "", seconds: float | None = None) -> Iterator[SolverRun]:
    """Run a command's solver work: SIGINT and SIGTERM stop it (one line on standard error, exit 130, what was
    written stays written), ``seconds`` caps every query (`ascverify.engines.interrupts.time_budget`)."""
    run = SolverRun(seconds)
    try:
        with command_signals(), time_budget(seconds):
            try:
                yield run
            finally:
                run.exhausted = budget_exhausted()
    except KeyboardInterrupt as exc:  # `Interrupted`, or Python's own for a Ctrl-C outside the handlers
        name = signal.Signals(getattr(exc, "signum", signal.SIGINT)).name
        emit_error(f"{where or prog}: interrupted ({name}){'; ' + run.kept if run.kept else ''}")
        raise click.exceptions.Exit(EXIT_INTERRUPTED) from None
