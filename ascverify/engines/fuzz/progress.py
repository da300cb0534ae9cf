"""Showing a campaign as it runs: a live rich display on a terminal, plain lines otherwise.

Progress and the summary go to standard error; each finding is one line on standard output
(``PATH: API on PRODUCT: CHECK: message``) the moment it is saved.
"""

from __future__ import annotations

import sys
import time
from typing import Any, Mapping, TextIO

from ...spec.errors import one_line
from .plan import Unit
from .reproducers import shrink_note
from .runner import ItemResult, Sink

#: Seconds between two plain progress lines.
HEARTBEAT = 30.0


def finding_line(summary: Mapping[str, Any]) -> str:
    """``PATH: API on PRODUCT: CHECK: message`` on one line (control characters in the path, the message or
    anything a target printed are escaped: nothing can start a line of its own)."""
    where = summary.get("path") or summary.get("id")
    known = "" if summary.get("new", True) else " (known)"
    shrunk = shrink_note(summary)
    unsaved = " (not saved)" if summary.get("unsaved") else ""
    msg = " ".join(str(summary.get("message", "")).split())
    if len(msg) > 300:
        msg = msg[:299] + "…"
    return one_line(f"{where}: {summary['api']} on {summary['product']}: {summary['check']}{known}{shrunk}{unsaved}: "
                    f"{msg}")


def unsaved_lines(summary: Mapping[str, Any]) -> list[str]:
    """For a finding whose folder could not be written: the reason, and the finding in full (one JSON line)."""
    import json

    if not summary.get("unsaved"):
        return []
    full = {k: v for k, v in summary.items() if k not in ("path",)}
    return [one_line(f"fuzz: error: finding {summary.get('id')} not saved: {summary['unsaved']}; the finding in full "
                     f"(its case and seed reproduce it):"),
            "fuzz: finding: " + json.dumps(full, sort_keys=True, default=str, ensure_ascii=True)]


def _isatty(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


class Display(Sink):
    """Collects item results and shows progress (``live``: rich on a terminal; None decides by the stream)."""

    def __init__(self, *, items: int = 0, total_cases: int | None = None, seconds: float | None = None,
                 live: bool | None = None, out: TextIO | None = None, err: TextIO | None = None,
                 quiet: bool = False) -> None:
        self.out = out or sys.stdout
        self.err = err or sys.stderr
        self.quiet = quiet
        self.items = items
        self.results: list[ItemResult] = []
        self.findings: list[dict[str, Any]] = []
        self._seen: set[str] = set()
        #: the error that lost a finding line on the results stream (a full disk, a closed pipe): said by the command
        self.lost_output: OSError | None = None
        self.cases = 0
        self.started = time.monotonic()
        self._last_beat = self.started
        if live is None:
            live = _isatty(self.err)
        self.live = bool(live) and not quiet
        self._progress: Any = None
        self._tasks: dict[str, Any] = {}
        self._overall: Any = None
        if self.live:
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, \
                TimeElapsedColumn

            self._progress = Progress(SpinnerColumn(), TextColumn("{task.description}"), BarColumn(),
                                      MofNCompleteColumn(), TimeElapsedColumn(),
                                      TextColumn("{task.fields[note]}"),
                                      console=Console(file=self.err), transient=False, redirect_stdout=False,
                                      redirect_stderr=False)
            self._progress.start()
            total = total_cases if total_cases is not None else (int(seconds) if seconds else None)
            label = "cases" if total_cases is not None else "seconds"
            self._overall = self._progress.add_task(f"campaign ({items} items, {label})", total=total,
                                                    note="0 findings")
            self._time_mode = total_cases is None and seconds is not None

    # -- the Sink interface --------------------------------------------------------------------------------------

    def start(self, unit: Unit, total: int | None, seconds: float | None) -> None:
        if self._progress is not None:
            self._tasks[unit.key] = self._progress.add_task(unit.key, total=total, note="")

    def advance(self, unit: Unit, n: int = 1) -> None:
        self.cases += n
        if self._progress is not None:
            task = self._tasks.get(unit.key)
            if task is not None:
                self._progress.advance(task, n)
            if getattr(self, "_time_mode", False):
                self._progress.update(self._overall, completed=int(time.monotonic() - self.started))
            else:
                self._progress.advance(self._overall, n)
        else:
            self._beat()

    def finding(self, summary: Mapping[str, Any]) -> None:
        fid = str(summary.get("id"))
        if fid in self._seen:
            return
        self._seen.add(fid)
        self.findings.append(dict(summary))
        line = finding_line(summary)
        for extra in unsaved_lines(summary):
            self.note(extra)
        if self._progress is not None:
            self._progress.console.print(line, markup=False, highlight=False, soft_wrap=True)
            n = len(self.findings)
            self._progress.update(self._overall, note=f"{n} finding{'' if n == 1 else 's'}")
            if _isatty(self.out):
                return  # already on the terminal
        self._write_result(line)

    def done(self, result: ItemResult) -> None:
        self.results.append(result)
        if self._progress is not None:
            task = self._tasks.pop(result.unit.key, None)
            if task is not None:
                self._progress.remove_task(task)
            return
        if not self.quiet:
            extra = f" ({result.error.splitlines()[0]})" if result.error else ""
            if result.first_failed_at is not None:  # the rest of the cases were the shrinker's
                extra += f" (first at case {result.first_failed_at})"
            self._write(self.err, one_line(f"fuzz: [{len(self.results)}/{self.items}] {result.unit.key}: {result.cases} "
                                           f"case{'' if result.cases == 1 else 's'} in {result.elapsed:.1f} s, {result.status}{extra}"))

    # -- helpers ---------------------------------------------------------------------------------------------------

    def _beat(self) -> None:
        now = time.monotonic()
        if self.quiet or now - self._last_beat < HEARTBEAT:
            return
        self._last_beat = now
        n = len(self.findings)
        self._write(self.err, f"fuzz: {self.cases} cases, {n} finding{'' if n == 1 else 's'}, "
                              f"{len(self.results)}/{self.items} items done, {now - self.started:.0f} s")

    def _write_result(self, line: str) -> None:
        """A finding line on the results stream; the first error that loses one is kept (`lost_output`) and no
        more is written there (the findings are saved and in the reports; the command says the stream failed)."""
        if self.lost_output is not None:
            return
        try:
            self.out.write(line + "\n")
            self.out.flush()
        except OSError as exc:
            self.lost_output = exc
        except ValueError:  # a closed stream
            self.lost_output = BrokenPipeError("standard output closed")

    def _write(self, stream: TextIO, line: str) -> None:
        try:
            stream.write(line + "\n")
            stream.flush()
        except (OSError, ValueError):
            pass

    def note(self, line: str) -> None:
        """A line of the summary (standard error; control characters escaped)."""
        line = one_line(line)
        if self._progress is not None:
            self._progress.console.print(line, markup=False, highlight=False)
        else:
            self._write(self.err, line)

    def close(self) -> None:
        if self._progress is not None:
            try:
                self._progress.stop()
            except Exception:  # noqa: BLE001 - the display must never hide the campaign's result
                pass
            self._progress = None
