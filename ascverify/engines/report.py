"""Formatting check results: compiler-style text lines and the one JSON document of ``check``.

Text (one line per finding; ``FILE:case N`` locates the case, N counting from 0):

    FILE:case N: error: [rule-id] message (source)
    FILE:case N: warning: [rule-id] message (source)
    FILE:case N: note: not checked: [rule-id] reason
    FILE:case N: field: message           (the case could not be read)
    FILE: message                          (the file could not be read)

Findings go to standard output, input errors and the summary to standard error. These functions
build plain strings (no rich objects, no per-case I/O): the caller joins and writes them at once.
`add_result_lines` and `add_result_json` append a case's text in pieces, the pieces that depend only on a rule
and a message worded once and remembered: ``check`` on a large file repeats the same findings again and again.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Callable, Iterable, Sequence

import orjson

from ..checking.checker import Result, Unchecked, Violation
from .interrupts import EXIT_INTERRUPTED
from ..spec.errors import InputError, one_line, shown_path

#: Output formats of ``check`` (and the listing commands); tests iterate over this tuple.
FORMATS: tuple[str, ...] = ("text", "json")
#: Output formats of ``check``: the listing formats, JSON Lines (one object per case, written as each is checked)
#: and SARIF 2.1.0 (`ascverify.engines.sarif`), a log of findings.
CHECK_FORMATS: tuple[str, ...] = FORMATS + ("jsonl", "sarif")


def location(file: str, index: int | None) -> str:
    """``FILE:case N``, or ``FILE`` for a problem with the file as a whole; a file name's control characters
    escaped (a name from someone else never breaks or forges a line)."""
    file = one_line(shown_path(file))
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
    parts: list[str] = []
    add_result_lines(parts, r, verbose=verbose)
    return [parts[i] + parts[i + 1] for i in range(0, len(parts), 3)]


def add_result_lines(parts: list[str], r: Result, *, verbose: bool = False) -> None:
    """Append the lines of `result_lines` to ``parts``, each as three pieces: its location, the rest, a new line
    (``"".join(parts)`` is the text; no piece is made twice: most are remembered)."""
    violations, warnings = r.violations, r.warnings
    if not (violations or warnings or verbose):
        return
    file = _FILES.get(r.file)
    if file is None:
        file = _remember(_FILES, r.file, one_line(shown_path(r.file)))
    loc = file if r.index is None else f"{file}:case {r.index}"  # `location`
    if verbose and not violations:
        if r.program is not None:
            parts += (loc, f": ok (program of {len(r.program.calls)} calls on {r.product})", "\n")
        elif r.case is not None:
            key = (r.case.model.name, r.case.product)
            text = _OKS.get(key)
            if text is None:
                text = _remember(_OKS, key, f": ok ({key[0]} on {key[1]})")
            parts += (loc, text, "\n")
    unchecked = r.unchecked if violations or verbose else ()
    lists = (id(violations), id(warnings), id(unchecked))
    got = _FINDINGS.get(lists)
    if got is None or got[0] is not violations or got[1] is not warnings or got[2] is not unchecked:
        # a repeated case's result shares its lists with the first occurrence's (`Result.repeated`): its lines'
        # texts are looked up once for all of them
        if len(_FINDINGS) >= _MEMO_MAX:
            _FINDINGS.clear()
        got = _FINDINGS[lists] = (violations, warnings, unchecked, _finding_texts(violations, warnings, unchecked))
    for call, text in got[3]:
        parts += (loc if call is None else f"{loc}: call {call}", text, "\n")


def _finding_texts(violations: list, warnings: list, unchecked: Iterable) -> tuple[tuple[int | None, str], ...]:
    """Per line of a result's findings, its call (None: a single case's) and the text after the location."""
    # the text after the location, remembered (a message that is not a str is neither looked up nor remembered:
    # no value that equals another but prints otherwise, as 1 and True)
    out: list[tuple[int | None, str]] = []
    for v in violations:
        out.append((v.call, _worded(_ERRORS, (v.rule, v.message, v.promoted), type(v.message) is str,
                                    lambda v=v: f": error: [{v.rule.id}] {one_line(v.message)} ({v.rule.citation})"
                                                + (" [warning made an error by --strict]" if v.promoted else ""))))
    for v in warnings:
        out.append((v.call, _worded(_WARNINGS, (v.rule, v.message), type(v.message) is str,
                                    lambda v=v: f": warning: [{v.rule.id}] {one_line(v.message)} ({v.rule.citation})")))
    for u in unchecked:
        out.append((u.call, _worded(_NOTES, (u.rule_id, u.reason), type(u.reason) is str,
                                    lambda u=u: f": note: not checked: [{u.rule_id}] {one_line(u.reason)}")))
    return tuple(out)


def _worded(memo: dict, key: tuple, remembered: bool, word: Callable[[], str]) -> str:
    """The text ``word()`` makes, looked up in and kept in ``memo`` under ``key`` when ``remembered``."""
    text = memo.get(key) if remembered else None
    if text is None:
        text = word()
        if remembered:
            _remember(memo, key, text)
    return text


# Text that depends only on a rule and a message (a file's cases break the same rules with the same messages again
# and again) is worded once and remembered. A memo's key holds everything its text is made of (rules are frozen);
# a memo starts over when full, so memory stays flat on any input.

#: most entries of one memo
_MEMO_MAX = 1 << 14

#: file name -> the name as printed (`location`)
_FILES: dict[str, str] = {}
#: (API, product) -> ``: ok (API on product)``
_OKS: dict[tuple, str] = {}
#: (rule, message, promoted) -> ``: error: [rule-id] message (source)`` and the --strict mark of a promoted warning
_ERRORS: dict[tuple, str] = {}
#: (rule, message) -> ``: warning: [rule-id] message (source)``
_WARNINGS: dict[tuple, str] = {}
#: (rule id, reason) -> ``: note: not checked: [rule-id] reason``
_NOTES: dict[tuple, str] = {}
#: ids of a result's lists of violations, warnings and notes shown -> the lists (held: their ids name them alone)
#: and `_finding_texts` of them
_FINDINGS: dict[tuple, tuple] = {}


def _remember(memo: dict, key: Any, text: str) -> str:
    if len(memo) >= _MEMO_MAX:
        memo.clear()
    memo[key] = text
    return text


def result_json(r: Result, *, indent: bool = False) -> str:
    """The text orjson writes for ``r.to_json()``: compact (a JSON Lines line, without its newline), or ``indent``-ed
    as an entry of the ``results`` list of `json_document` (the object 4 spaces deep, its first line indented too).

    Built from remembered pieces (each finding's object per rule, message and call): the same text, a fraction of
    the work. Tests compare it with orjson's text of ``r.to_json()`` on every kind of result."""
    parts: list[str] = []
    add_result_json(parts, r, indent=indent)
    return "".join(parts)


def add_result_json(parts: list[str], r: Result, *, indent: bool = False, depth: int = 4, close: bool = True) -> None:
    """Append the text of `result_json` to ``parts``, in pieces (most remembered: none is made twice). Indented, the
    object may sit ``depth`` spaces deep (its keys 2 deeper); without ``close`` its closing brace is left out, for
    the caller to add keys after ``unchecked`` (and ``error``) as orjson writes them, then `result_json_close`."""
    (_indented_layout(depth) if indent else _COMPACT).add(parts, r, close)


def result_json_close(depth: int = 4) -> str:
    """The text that closes an indented result object ``depth`` spaces deep (see `add_result_json`)."""
    return "\n" + " " * depth + "}"


@lru_cache(maxsize=None)
def _indented_layout(depth: int) -> "_Layout":
    return _Layout(True, depth)


class _Layout:
    """A result's object as orjson writes it, compact or indented ``depth`` spaces deep (the ``results`` entries of
    `json_document`: an entry at 4 spaces, its keys at 6, its findings at 8), with the memos of its pieces."""

    def __init__(self, indent: bool, depth: int = 4) -> None:
        self.indent = indent
        self.pad = " " * (depth + 4)  # a finding's lines
        keys = " " * (depth + 2)
        comma, colon = (",\n" + keys, ": ") if indent else (",", ":")
        #: each key as written after the value before it (``,"index":``)
        key = {name: comma + _dumps(name) + colon for name in ("file", "index", "api", "product", "valid",
                                                               "violations", "warnings", "unchecked", "error")}
        self.open = (" " * depth + "{\n" + keys if indent else "{") + key["file"][len(comma):]
        self.key = key
        self.key_warnings, self.key_unchecked = key["warnings"], key["unchecked"]
        self.close = result_json_close(depth) if indent else "}"
        #: a list of findings: before the first, between two, after the last
        self.first, self.sep, self.last = ("[\n", ",\n", "\n" + keys + "]") if indent else ("[", ",", "]")
        #: file -> the text up to the index; (api, product, valid) -> the text from the index to the violations;
        #: a finding's fields -> its object's text
        self.heads: dict[str, str] = {}
        self.mids: dict[tuple, str] = {}
        self.findings: dict[tuple, str] = {}
        #: id(note) -> (the note, its text): an `Unchecked` is read-only and one is shared by many results (a rule's
        #: note, a model's notes for the same values), so its text is found by identity, without making its key
        self.notes: dict[int, tuple[Unchecked, str]] = {}

    def add(self, parts: list[str], r: Result, close: bool = True) -> None:
        """Append the pieces of ``r``'s text to ``parts`` (``close``: its closing brace too)."""
        file = r.file
        head = self.heads.get(file)
        if head is None:
            head = _remember(self.heads, file, self.open + _dumps(shown_path(file) if file else file) + self.key["index"])
        index = r.index
        error = r.error
        violations = r.violations
        valid = error is None and not violations  # `Result.valid`
        case = r.case
        if case is not None and r.program is None:  # `Result.api` and `Result.product`, read directly
            api, product = case.model.name, case.ctx.product.id
        else:
            api, product = r.api, r.product
        mid = self.mids.get((api, product, valid))
        if mid is None:
            key = self.key
            mid = _remember(self.mids, (api, product, valid),
                            key["api"] + _dumps(api) + key["product"] + _dumps(product) + key["valid"]
                            + ("true" if valid else "false") + key["violations"])
        parts += (head, str(index) if type(index) is int else _dumps(index), mid)
        if violations:
            self._violations(parts, violations)
        else:
            parts.append("[]")
        parts.append(self.key_warnings)
        if r.warnings:
            self._violations(parts, r.warnings)
        else:
            parts.append("[]")
        parts.append(self.key_unchecked)
        if r.unchecked:
            self._unchecked(parts, r.unchecked)
        else:
            parts.append("[]")
        if error is not None:
            parts.append(self.key["error"] + _dumps(error.line()))
        if close:
            parts.append(self.close)

    # A finding's key holds every field its text is made of (its rule is frozen). Only a finding whose message or
    # reason is a str and whose call is an int or None (the declared types) is remembered: no value that equals
    # another but prints otherwise (1 and True) is ever one of its fields.

    def _violations(self, parts: list[str], group: list[Violation]) -> None:
        self._group(parts, group, _violation_key)

    def _unchecked(self, parts: list[str], group: list[Unchecked]) -> None:
        notes, append, sep = self.notes, parts.append, self.first
        for u in group:
            got = notes.get(id(u))
            if got is None or got[0] is not u:
                text, remember = self._text(u, _unchecked_key)
                got = _remember(notes, id(u), (u, text)) if remember else (u, text)
            append(sep)
            append(got[1])
            sep = self.sep
        append(self.last)

    def _group(self, parts: list[str], group: list[Any], describe: Callable[[Any], tuple[tuple, bool]]) -> None:
        """Append a list of findings' texts; ``describe(x)`` gives a finding's key and whether it may be remembered."""
        append, sep = parts.append, self.first
        for x in group:
            append(sep)
            append(self._text(x, describe)[0])
            sep = self.sep
        append(self.last)

    def _text(self, x: Violation | Unchecked, describe: Callable[[Any], tuple[tuple, bool]]) -> tuple[str, bool]:
        """A finding's text (looked up by its key, or made) and whether it may be remembered."""
        key, remember = describe(x)
        try:
            got = self.findings.get(key)
        except TypeError:  # a field that is not hashable: not remembered
            got = None
        return (got if got is not None else self._finding(x, key, remember)), remember

    def _finding(self, x: Violation | Unchecked, key: tuple, remember: bool) -> str:
        """The text of ``x.to_json()`` at its depth."""
        doc = x.to_json()
        if self.indent:
            text = self.pad + orjson.dumps(doc, option=orjson.OPT_INDENT_2).decode().replace("\n", "\n" + self.pad)
        else:
            text = _dumps(doc)
        return _remember(self.findings, key, text) if remember else text


def _violation_key(v: Violation) -> tuple[tuple, bool]:
    return (v.rule, v.message, v.call, v.promoted), type(v.message) is str and (v.call is None or type(v.call) is int)


def _unchecked_key(u: Unchecked) -> tuple[tuple, bool]:
    return (u.rule_id, u.reason, u.source, u.call), (type(u.rule_id) is str and type(u.reason) is str
                                                     and type(u.source) is str and (u.call is None or type(u.call) is int))


def _dumps(value: Any) -> str:
    return orjson.dumps(value).decode()


_COMPACT = _Layout(False)
_INDENTED = _indented_layout(4)  # the results entries of `json_document`


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

    def to_json(self, interrupted: bool = False) -> dict[str, Any]:
        """The summary of ``check --format json``; ``interrupted``: of a document closed early by Ctrl-C or SIGTERM
        (these counts are the cases written, ``exit_status`` 130, and ``"interrupted": true``)."""
        doc: dict[str, Any] = {"cases": self.total, "valid": self.valid, "invalid": self.invalid,
                               "unreadable": self.unreadable, "unreadable_files": self.files,
                               "exit_status": EXIT_INTERRUPTED if interrupted else self.exit_code}
        if interrupted:
            doc["interrupted"] = True
        return doc

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
