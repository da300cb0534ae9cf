"""Formatting check results: compiler-style text lines and the one JSON document of ``check``.

Text (one line per finding; ``FILE:case N`` locates the case, N counting from 0):

    FILE:case N: error: [rule-id] message (source)
    FILE:case N: warning: [rule-id] message (source)
    FILE:case N: note: not checked: [rule-id] reason
    FILE:case N: field: message           (the case could not be read)
    FILE: message                          (the file could not be read)

Findings go to standard output, input errors and the summary to standard error. These functions
build plain strings (no rich objects, no per-case I/O): the caller joins and writes them at once.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Sequence

import orjson

from ..checking.checker import Result
from ..spec.errors import InputError, one_line

#: Output formats of ``check`` (and the listing commands); tests iterate over this tuple.
FORMATS: tuple[str, ...] = ("text", "json")
#: Output formats of ``check``: the listing formats, JSON Lines (one object per case, written as each is checked)
#: and SARIF 2.1.0 (`ascverify.engines.sarif`), a log of findings.
CHECK_FORMATS: tuple[str, ...] = FORMATS + ("jsonl", "sarif")


def location(file: str, index: int | None) -> str:
    """``FILE:case N``, or ``FILE`` for a problem with the file as a whole; a file name's control characters
    escaped (a name from someone else never breaks or forges a line)."""
    file = one_line(file)
    return file if index is None else f"{file}:case {index}"


def bare_error(exc: InputError, *locations: str) -> InputError:
    """The error without a location that repeats one of ``locations`` (kept: any other location)."""
    where = exc.where
    shown = one_line(where)  # locations compare as printed: `location` escapes a file name's control characters
    for loc in locations:
        loc = one_line(loc)
        if shown == loc:
            where = ""
            break
        if loc and shown.startswith(loc + ": "):
            where = shown[len(loc) + 2:]
            break
    return InputError(exc.message, where=where, field=exc.field)


def error_line(file: str, index: int | None, exc: InputError) -> str:
    """The one line for an input that could not be read."""
    return one_line(f"{location(file, index)}: {exc.line()}")


def result_lines(r: Result, *, verbose: bool = False) -> list[str]:
    """The text lines of a readable case: errors, warnings, then rules not checked.

    A valid case prints nothing but its warnings, unless ``verbose`` (then an ``ok`` line and its
    notes). The caller prints an unreadable case with `error_line`.
    """
    loc = location(r.file, r.index)
    out: list[str] = []

    def at(call: int | None) -> str:
        return loc if call is None else f"{loc}: call {call}"

    for v in r.violations:
        strict = " [warning made an error by --strict]" if v.promoted else ""
        out.append(f"{at(v.call)}: error: [{v.rule.id}] {one_line(v.message)} ({v.rule.citation}){strict}")
    for v in r.warnings:
        out.append(f"{at(v.call)}: warning: [{v.rule.id}] {one_line(v.message)} ({v.rule.citation})")
    if r.violations or verbose:
        for u in r.unchecked:
            out.append(f"{at(u.call)}: note: not checked: [{u.rule_id}] {one_line(u.reason)}")
    if verbose and not r.violations and r.program is not None:
        out.insert(0, f"{loc}: ok (program of {len(r.program.calls)} calls on {r.product})")
    elif verbose and not r.violations and r.case is not None:
        out.insert(0, f"{loc}: ok ({r.case.model.name} on {r.case.product})")
    return out


#: The format tag of ``check --format json`` (a change of its shape changes the number).
CHECK_JSON_FORMAT = "ascverify-check/2"


@dataclass
class Counts:
    """How many cases were valid, broke a rule, or could not be read; how many files could not be read at all."""

    valid: int = 0
    invalid: int = 0
    unreadable: int = 0
    #: files that could not be read as a whole (missing, a folder, binary, not JSON): no case of theirs counted
    files: int = 0

    def add(self, r: Result) -> None:
        if r.error is not None and r.index is None:
            self.files += 1
        elif r.error is not None:
            self.unreadable += 1
        elif r.violations:
            self.invalid += 1
        else:
            self.valid += 1

    def merge(self, other: "Counts") -> None:
        self.valid += other.valid
        self.invalid += other.invalid
        self.unreadable += other.unreadable
        self.files += other.files

    @property
    def total(self) -> int:
        return self.valid + self.invalid + self.unreadable

    def summary(self) -> str:
        """``N cases: A valid, B invalid, C unreadable``, after ``F files cannot be read; `` when some file could not
        be read at all (it counts as no case: none was read)."""
        word = "case" if self.total == 1 else "cases"
        files = f"{self.files} file{'' if self.files == 1 else 's'} cannot be read; " if self.files else ""
        return f"{files}{self.total} {word}: {self.valid} valid, {self.invalid} invalid, {self.unreadable} unreadable"

    def to_json(self) -> dict[str, int]:
        """The summary of ``check --format json``."""
        return {"cases": self.total, "valid": self.valid, "invalid": self.invalid, "unreadable": self.unreadable,
                "unreadable_files": self.files, "exit_status": self.exit_code}

    @property
    def exit_code(self) -> int:
        """0 every case valid, 1 some case breaks a rule, 2 some input could not be read."""
        if self.unreadable or self.files:
            return 2
        return 1 if self.invalid else 0


def json_document(results: Iterable[Result | dict], counts: Counts | None = None) -> str:
    """``{"format": ..., "results": [...], "summary": {...}}`` with one entry per case (`Result.to_json`), as one
    string; the summary counts ``results`` unless ``counts`` are given."""
    docs, own = [], Counts()
    for r in results:
        docs.append(r if isinstance(r, dict) else r.to_json())
        if not isinstance(r, dict):
            own.add(r)
    summary = (counts or own).to_json()
    return orjson.dumps({"format": CHECK_JSON_FORMAT, "results": docs, "summary": summary},
                        option=orjson.OPT_INDENT_2).decode() + "\n"


def table_text(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """Plain left-aligned columns separated by two spaces (for pipes and files)."""
    widths = [len(h) for h in headers]
    for row in rows:
        for i, cell in enumerate(row):
            widths[i] = max(widths[i], len(cell))
    lines = []
    for row in (headers, *rows):
        lines.append("  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip())
    return "\n".join(lines) + "\n"
