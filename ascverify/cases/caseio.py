"""Reading case files: one case, a list of cases or JSON Lines; validation with one-line errors."""

from __future__ import annotations

import io
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

import orjson

from ..spec.errors import InputError
from . import jsonread
from .bounded_read import LineReader
from .case import Case
from .parse import parse_case
from .program import parse_program
from .sources import MAX_FILE_BYTES, _LIMITS, ReadLimits, open_source


@dataclass
class Entry:
    """One item of a case file: its index and either a parsed case or the input error it raised."""

    index: int
    case: Case | None
    error: InputError | None
    raw: Any = None
    #: a program (a document with "calls") instead of a single case
    program: Any = None


# -- reading case files -------------------------------------------------------------------------------------------

#: Non-empty lines after an unreadable first line that decide between JSON Lines and one multi-line document.
VOTE_LINES = 16


def _stream_documents(reader: LineReader, where: str) -> Iterator[tuple[int, Any, InputError | None]]:
    """(index, JSON value, error) for every case read from ``reader``: one value, a list, or JSON Lines.

    JSON Lines are read one line at a time (constant memory); one document (a value on one line, or spread
    over lines) is read whole, within the reader's limit. A first line that is not JSON by itself starts
    either a multi-line document or JSON Lines with a bad first line: the following lines decide (JSON Lines
    when most of them are JSON objects by themselves). In JSON Lines each line is its own case: a bad line is
    one unreadable case."""
    head = reader.peek_head(65536)
    if b"\x00" in head:
        raise InputError("binary content, not a JSON case file", where=where)
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as exc:
        if len(head) < 65536 or exc.start < len(head) - 4:  # not a character cut at the end of the head
            raise InputError(f"not UTF-8 text (byte {exc.start}): binary content, not a JSON case file",
                             where=where) from None
    lines = reader.lines()
    blank = 0
    for lineno, first in lines:
        if first.strip():
            break
        blank += 1
    else:
        raise InputError("empty file: expected a case, a list of cases or JSON Lines", where=where)
    try:
        value = orjson.loads(first)
        ok = True
    except orjson.JSONDecodeError:
        value, ok = None, False
    buffered: list[tuple[int, bytes]] = [(lineno, first)]
    if ok:
        for lineno2, line in lines:
            if line.strip():
                buffered.append((lineno2, line))
                break
        else:  # one document on one line
            yield from _document(first, value, where, blank + 1)
            return
    else:
        tried = votes = 0
        for lineno2, line in lines:
            buffered.append((lineno2, line))
            if not line.strip():
                continue
            tried += 1
            try:
                votes += isinstance(orjson.loads(line), dict)
            except orjson.JSONDecodeError:
                pass
            if tried >= VOTE_LINES:
                break
        if not votes * 2 > tried:  # one document over several lines
            rest = [line for _, line in lines]
            raw = b"\n" * blank + b"\n".join([line for _, line in buffered] + rest)
            del rest, buffered
            try:
                value = orjson.loads(raw)
            except orjson.JSONDecodeError as exc:
                yield from _unreadable_document(raw, exc, where)
                return
            yield from _document(raw, value, where, 1)
            return
    index = 0
    for lineno, line in buffered:
        if line.strip():
            yield index, *_one_line(line, lineno, value if index == 0 and ok else _UNPARSED)
            index += 1
    loads, dumps, deep = orjson.loads, orjson.dumps, jsonread.MAX_DEPTH
    for lineno, line in lines:  # the common path inlined: a million lines go through here
        if not line or line.isspace():
            continue
        try:
            value = loads(line)
        except orjson.JSONDecodeError:
            yield index, *_one_line(line, lineno)
            index += 1
            continue
        # what orjson lets through (duplicate keys, deep nesting): `jsonread.checked`, only when the cheap exact
        # test (colons of the text vs of the re-serialization, no \u escape, few brackets) is not conclusive
        if line.count(b"[") + line.count(b"{") > deep or b"\\u" in line or \
                dumps(value).count(b":") != line.count(b":"):
            err = jsonread.checked(value, line)
            if err is not None:
                yield index, None, err
                index += 1
                continue
        yield index, value, None
        index += 1


_UNPARSED = object()


def _one_line(line: bytes, lineno: int, value: Any = _UNPARSED) -> tuple[Any, InputError | None]:
    """One line of a JSON Lines file: (value, None) or (None, its error)."""
    if value is _UNPARSED:
        try:
            value = orjson.loads(line)
        except orjson.JSONDecodeError as exc:
            _, err = jsonread.syntax_error(line, exc, lineno)
            return None, err or InputError(f"line {lineno}: invalid JSON: {jsonread.decode_message(exc)}")
    err = jsonread.checked(value, line)
    return (None, err) if err is not None else (value, None)


def _document(raw: bytes, value: Any, where: str, first_line: int) -> Iterator[tuple[int, Any, InputError | None]]:
    """The cases of one document orjson read: the items of a list (each released once handed out), or the value."""
    if isinstance(value, list):
        problems = jsonread.document_problems(value, raw)
        del raw
        for i in range(len(value)):
            item, value[i] = value[i], None
            err = problems.get(i)
            yield i, (None if err else item), err
        return
    err = jsonread.checked(value, raw)
    yield 0, (None if err else value), err


def _unreadable_document(raw: bytes, exc: orjson.JSONDecodeError, where: str) -> Iterator[tuple[int, Any, InputError | None]]:
    """A document orjson refused: its cases when the only trouble is NaN / Infinity literals (those naming their
    field), else one error for the file."""
    again, err = jsonread.syntax_error(raw, exc)
    if err is None:
        raise InputError(f"invalid JSON: {jsonread.decode_message(exc)}", where=where)
    if not isinstance(again, list):
        yield 0, None, err
        return
    m = re.match(r"\[(\d+)\]\.?(.*)$", err.field)
    first = int(m.group(1)) if m else -1  # the item orjson stopped in: its error has the line and column
    for i, item in enumerate(again):
        value, item_err = jsonread.clean_item(item)
        if i == first and item_err is not None:
            item_err = InputError(err.message, field=m.group(2))
        yield i, value, item_err


def iter_documents(data: bytes, where: str) -> Iterator[tuple[int, Any, InputError | None]]:
    """(index, JSON value, error) for every case in a file's contents: one object, a list, or JSON Lines."""
    return _stream_documents(LineReader(io.BytesIO(data), max(len(data), 1), where), where)


def _iter_lines(data: bytes, where: str, first_line: int = 0) -> Iterator[tuple[int, Any, InputError | None]]:
    """The cases of lines of a JSON Lines file (``first_line`` lines come before them)."""
    index = 0
    for lineno, line in enumerate(data.split(b"\n"), first_line + 1):
        if not line.strip():
            continue
        yield (index, *_one_line(line, lineno))
        index += 1


def read_cases(path: str, max_bytes: int = MAX_FILE_BYTES, *, data_root: str | os.PathLike | None = None,
               keep_raw: bool = True) -> Iterator[Entry]:
    """Every case of a file, parsed, read as it goes (JSON Lines in constant memory); an entry carries its
    InputError instead when it cannot be read.

    File-level problems (missing, not a regular file, binary, not JSON at all, larger than ``max_bytes``) raise
    InputError when iterating. Data files must lie under ``data_root`` (default: the case file's folder; for
    standard input the current folder). ``keep_raw=False`` drops each entry's JSON document (``Entry.raw``)."""
    root = Path(os.path.realpath(data_root)) if data_root is not None else None
    return _entries(_read_documents(path, max_bytes), path, root, keep_raw)


def _read_documents(path: str, max_bytes: int) -> Iterator[tuple[int, Any, InputError | None]]:
    reader = open_source(path, max_bytes)
    try:
        yield from _stream_documents(reader, path)
    finally:
        reader.close()


def _base_dir(path: str) -> Path:
    return Path(path).resolve().parent if path != "-" else Path.cwd()


def cases_from_bytes(data: bytes, path: str) -> Iterator[Entry]:
    """The cases of a file's contents (see `read_cases`)."""
    return _entries(iter_documents(data, path), path)


def _entries(docs: Iterator[tuple[int, Any, InputError | None]], path: str, data_root: Path | None = None,
             keep_raw: bool = True) -> Iterator[Entry]:
    base = _base_dir(path)
    for index, doc, err in docs:
        if err is not None:
            yield Entry(index, None, err)
            continue
        raw = doc if keep_raw else None
        try:
            if isinstance(doc, dict) and "calls" in doc:
                token = _LIMITS.set(ReadLimits(data_root, _LIMITS.get().max_bytes)) if data_root is not None else None
                try:
                    program = parse_program(doc, base_dir=base, origin=f"{path}:case {index}")
                finally:
                    if token is not None:
                        _LIMITS.reset(token)
                yield Entry(index, None, None, doc, program)
                continue
            yield Entry(index, parse_case(doc, base_dir=base, origin=f"{path}:case {index}", data_root=data_root),
                        None, raw)
        except InputError as exc:
            yield Entry(index, None, exc, raw)


def split_json_lines(data: bytes, parts: int) -> list[tuple[bytes, int, int]] | None:
    """A JSON Lines file's contents cut at line ends into about ``parts`` chunks, each with the index of
    its first case and the number of lines before it; None when the contents are not JSON Lines."""
    stripped = data.lstrip()
    if stripped[:1] != b"{" or b"\n" not in stripped:
        return None
    first_end = stripped.index(b"\n")
    try:
        orjson.loads(stripped[:first_end])
    except orjson.JSONDecodeError:
        return None  # a multi-line document
    chunks: list[tuple[bytes, int, int]] = []
    start, index, lines = 0, 0, 0
    step = max(1, len(data) // parts)
    while start < len(data):
        end = data.find(b"\n", min(len(data), start + step))
        end = len(data) if end < 0 else end + 1
        chunk = data[start:end]
        chunks.append((chunk, index, lines))
        index += sum(1 for line in chunk.split(b"\n") if line.strip())
        lines += chunk.count(b"\n")
        start = end
    return chunks


def cases_from_lines(chunk: bytes, path: str, first_index: int, first_line: int = 0,
                     data_root: str | os.PathLike | None = None, keep_raw: bool = True) -> Iterator[Entry]:
    """The cases of a chunk of a JSON Lines file whose first case has index ``first_index``."""
    root = Path(os.path.realpath(data_root)) if data_root is not None else None
    return _entries(((i + first_index, doc, err) for i, doc, err in _iter_lines(chunk, path, first_line)), path,
                    root, keep_raw)
