"""Reading case files: one case, a list of cases or JSON Lines; validation with one-line errors."""

from __future__ import annotations

import io
import os
import re
from dataclasses import dataclass
from pathlib import Path
from itertools import chain, repeat
from typing import Any, Iterable, Iterator

import orjson

from ..spec.errors import InputError
from . import jsonread
from .bounded_read import LineBlock, LineCursor, LineReader
from .case import Case
from .columnar import parse_block
from .parse import parse_case
from .program import parse_program
from .repeats import Repeats
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

    JSON Lines are read a block of lines at a time (constant memory); one document (a value on one line, or
    spread over lines) is read whole, within the reader's limit. A first line that is not JSON by itself starts
    either a multi-line document or JSON Lines with a bad first line: the following lines decide (JSON Lines
    when most of them are JSON objects by themselves). In JSON Lines each line is its own case: a bad line is
    one unreadable case."""
    return chain.from_iterable(_stream_batches(reader, where))


Documents = Iterable[tuple[int, Any, InputError | None]]


def _wide_text(head: bytes) -> str | None:
    """The name of the wide Unicode encoding the bytes are text in (UTF-16 or UTF-32, as some Windows tools save a
    file), or None: the head must decode in it and read as text that opens a JSON value (raw numbers, as a .bin data
    file holds, do not)."""
    boms = ((b"\xff\xfe\x00\x00", "utf-32"), (b"\x00\x00\xfe\xff", "utf-32"), (b"\xff\xfe", "utf-16"),
            (b"\xfe\xff", "utf-16"))
    tries = [enc for bom, enc in boms if head.startswith(bom)][:1] or ["utf-32-le", "utf-32-be", "utf-16-le",
                                                                       "utf-16-be"]
    for enc in tries:
        width = 4 if "32" in enc else 2
        try:
            text = head[: len(head) // width * width].decode(enc)
        except UnicodeDecodeError:
            continue
        body = text.lstrip("\ufeff \t\r\n")
        shown = sum(ch.isprintable() or ch in "\t\r\n" for ch in text)
        if body[:1] in ("{", "[") and shown >= 0.95 * len(text):
            return "UTF-32" if "32" in enc else "UTF-16"
    return None


def _not_utf8_hint(head: bytes) -> str:
    """What a byte that is not UTF-8 most likely means: text in a legacy encoding (printable ASCII and high bytes, no
    control bytes), or no text at all."""
    sample = head[:4096]
    control = sum(b < 32 and b not in (9, 10, 13) or b == 127 for b in sample)
    if control == 0:
        return "text in another encoding (Latin-1, GBK, ...)? save the case file as UTF-8 (JSON text is UTF-8)"
    return "binary content, not a JSON case file"


def _stream_batches(reader: LineReader, where: str, repeats: Repeats | None = None) -> Iterator[Documents]:
    """`_stream_documents` in batches: a batch of (index, value, error) a block of lines at a time (the items
    are handed out by `itertools.chain`, not by a Python loop)."""
    head = reader.peek_head(65536)
    if b"\x00" in head:
        wide = _wide_text(head)
        if wide is not None:
            raise InputError(f"{wide} text, not UTF-8: save the case file as UTF-8 (JSON text is UTF-8)", where=where)
        raise InputError("binary content, not a JSON case file", where=where)
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as exc:
        whole = reader.at_end and len(head) < 65536  # the head is the whole stream
        if whole or exc.start < len(head) - 4:  # not a character cut at the end of the head
            raise InputError(f"not UTF-8 text (byte {exc.start}, 0x{head[exc.start]:02x}): "
                             f"{_not_utf8_hint(head)}", where=where) from None
    lines = LineCursor(reader.line_blocks())
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
    if ok and isinstance(value, dict):
        pass  # a case on the first line: JSON Lines, or one document of one case, read the same (a pipe's first
        # case is then not held until a second line comes)
    elif ok:
        for lineno2, line in lines:
            if line.strip():
                buffered.append((lineno2, line))
                break
        else:  # one document on one line
            yield _document(first, value, where, blank + 1)
            return
    else:
        tried = votes = 0
        for lineno2, line in lines:
            buffered.append((lineno2, line))
            if not line.strip():
                continue
            tried += 1
            votes += jsonread.is_object_text(line)  # a line of huge numbers is a case too (audit 23)
            if tried >= VOTE_LINES:
                break
        if not votes * 2 > tried:  # one document over several lines
            rest = [line for block in lines.rest() for line in block.lines]
            raw = b"\n" * blank + b"\n".join([line for _, line in buffered] + rest)
            del rest, buffered
            try:
                value = orjson.loads(raw)
            except orjson.JSONDecodeError as exc:
                yield _unreadable_document(raw, exc, where)
                return
            yield _document(raw, value, where, 1)
            return
    firsts: list[tuple[int, Any, InputError | None]] = []
    for lineno, line in buffered:
        if line.strip():
            index = len(firsts)
            got = _one_line(line, lineno, value if index == 0 and ok else _UNPARSED)
            if repeats is not None and got[1] is None:
                repeats.remember_value(line, got[0])
                got = (repeats.values.get(line, got[0]), None)
            firsts.append((index, *got))
    yield firsts
    yield from _json_lines(lines.rest(), len(firsts), repeats)


#: Lines of JSON Lines read, checked and handed out together (a few hundred KB: in the CPU's caches meanwhile).
BATCH_LINES = 512


def _json_lines(blocks: Iterable[LineBlock], index: int, repeats: Repeats | None = None) -> Iterator[Documents]:
    """The (index, JSON value, error) of the non-blank lines of JSON Lines, numbered from ``index``, in batches.

    A million lines go through here: a batch of lines orjson all reads is checked for what orjson lets through
    with a few passes over its whole text (`jsonread.lines_problems`); a batch with a blank or bad line is read
    line by line first (`_lines_one_by_one`). With ``repeats``, a line seen before gives the value read then."""
    loads = orjson.loads
    for block in blocks:
        if not block.lines:  # the reader waits for a pipe's writer: an empty batch (`LineReader.line_blocks`)
            yield []
            continue
        all_lines, buf, start = block.lines, block.buf, block.start
        for at in range(0, len(all_lines), BATCH_LINES):
            lines = all_lines[at:at + BATCH_LINES] if len(all_lines) > BATCH_LINES else all_lines
            end = start + sum(map(len, lines)) + len(lines) - 1
            if repeats is not None and not repeats.active:
                repeats = None  # too few repeats in this file: read as if none were remembered
            if repeats is not None and repeats.values:
                known = repeats.seen(lines)
                if known.count(None) < len(known):
                    batch = _partly_known(lines, known, block.first + at, index, repeats)
                    yield batch
                    index += len(batch)
                    start = end + 1
                    continue
            try:
                if repeats is None:
                    values = [loads(line) for line in lines]
                else:  # a line twice in the batch is read once too
                    read: dict[bytes, Any] = {}
                    values = [read[line] if line in read else read.setdefault(line, loads(line)) for line in lines]
            except orjson.JSONDecodeError:
                batch = _lines_one_by_one(lines, block.first + at, index, repeats)
                yield batch
                index += len(batch)
            else:
                n = len(values)
                problems = jsonread.lines_problems(lines, values, buf, start, end)
                if repeats is not None:
                    remember = repeats.remember_value
                    for i, (line, value) in enumerate(zip(lines, values)):
                        if i not in problems:
                            remember(line, value)
                if problems:
                    yield [(index + i, None, problems[i]) if i in problems else (index + i, value, None)
                           for i, value in enumerate(values)]
                else:
                    yield zip(range(index, index + n), values, repeat(None))
                index += n
            start = end + 1


def _partly_known(lines: list[bytes], known: list[Any], first_lineno: int, index: int, repeats: Repeats
                  ) -> list[tuple[int, Any, InputError | None]]:
    """`_lines_one_by_one` of a batch some of whose lines were seen before (``known``: their values, None for the
    others): only the others are read."""
    fresh = [(lineno, line) for lineno, (line, value) in enumerate(zip(lines, known), first_lineno)
             if value is None and line and not line.isspace()]
    read = iter(_numbered_one_by_one(fresh, index, repeats))
    out: list[tuple[int, Any, InputError | None]] = []
    for line, value in zip(lines, known):
        if value is not None:
            out.append((index, value, None))
        elif line and not line.isspace():
            _, value, err = next(read)
            out.append((index, value, err))
        else:
            continue
        index += 1
    return out


def _lines_one_by_one(lines: list[bytes], first_lineno: int, index: int, repeats: Repeats | None = None
                      ) -> list[tuple[int, Any, InputError | None]]:
    """(index, JSON value, error) of the non-blank ``lines``, numbered from ``index``, read one at a time; the
    lines orjson reads then checked together (`jsonread.lines_problems`)."""
    return _numbered_one_by_one([(lineno, line) for lineno, line in enumerate(lines, first_lineno)
                                 if line and not line.isspace()], index, repeats)


def _numbered_one_by_one(numbered: list[tuple[int, bytes]], index: int, repeats: Repeats | None
                         ) -> list[tuple[int, Any, InputError | None]]:
    """`_lines_one_by_one` of non-blank lines given with their line numbers."""
    out: list[tuple[int, Any, InputError | None]] = []
    read: list[bytes] = []
    values: list[Any] = []
    again: dict[bytes, Any] = {}  # with repeats: a line twice among these is read once
    for lineno, line in numbered:
        try:
            if repeats is None:
                values.append(orjson.loads(line))
            elif line in again:
                values.append(again[line])
            else:
                values.append(again.setdefault(line, orjson.loads(line)))
        except orjson.JSONDecodeError:
            out.append((index, *_one_line(line, lineno)))
        else:
            read.append(line)
            out.append((index, _READ, None))
        index += 1
    if read:
        text = b"\n".join(read)
        problems = jsonread.lines_problems(read, values, text, 0, len(text))
        k = 0
        for i, (at, value, _) in enumerate(out):
            if value is _READ:
                err = problems.get(k)
                out[i] = (at, None, err) if err is not None else (at, values[k], None)
                if err is None and repeats is not None:
                    repeats.remember_value(read[k], values[k])
                k += 1
    return out


_READ = object()  # a line orjson read, its value and problems yet to be filled in

_UNPARSED = object()


def _one_line(line: bytes, lineno: int, value: Any = _UNPARSED) -> tuple[Any, InputError | None]:
    """One line of a JSON Lines file: (value, None) or (None, its error)."""
    if value is _UNPARSED:
        try:
            value = orjson.loads(line)
        except orjson.JSONDecodeError as exc:
            _, err = jsonread.syntax_error(line, exc, lineno)
            return None, err or InputError(f"line {lineno}: invalid JSON: "
                                           f"{jsonread.decode_message(exc, line, one_line=True)}")
    err = jsonread.checked(value, line)
    return (None, err) if err is not None else (value, None)


def _document(raw: bytes, value: Any, where: str, first_line: int) -> Iterator[tuple[int, Any, InputError | None]]:
    """The cases of one document orjson read: the items of a list (each released once handed out), or the value."""
    if isinstance(value, list):
        if not value:  # as an empty file is: nothing checked must not read as "all valid" (exit 0)
            raise InputError("an empty list: no case in it (expected a case, a list of cases or JSON Lines)",
                             where=where)
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
        raise InputError(f"invalid JSON: {jsonread.decode_message(exc, raw)}", where=where)
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


def _iter_lines(data: bytes, where: str, first_line: int = 0, repeats: Repeats | None = None
                ) -> Iterator[tuple[int, Any, InputError | None]]:
    """The cases of lines of a JSON Lines file (``first_line`` lines come before them)."""
    reader = LineReader(io.BytesIO(data), max(len(data), 1), where)
    reader.lineno = first_line
    return chain.from_iterable(_json_lines(reader.line_blocks(), 0, repeats))


def read_cases(path: str, max_bytes: int = MAX_FILE_BYTES, *, data_root: str | os.PathLike | None = None,
               keep_raw: bool = True, repeats: bool = False) -> Iterator[Entry]:
    """Every case of a file, parsed, read as it goes (JSON Lines in constant memory); an entry carries its
    InputError instead when it cannot be read.

    File-level problems (missing, not a regular file, binary, not JSON at all, larger than ``max_bytes``) raise
    InputError when iterating. Data files must lie under ``data_root`` (default: the case file's folder; for
    standard input the current folder). ``keep_raw=False`` drops each entry's JSON document (``Entry.raw``).
    ``repeats=True``: a line seen before gives the same JSON value and, for a plain case, the same `Case` object
    as then (`repeats.Repeats`; only for readers that do not change the cases they get)."""
    root = Path(os.path.realpath(data_root)) if data_root is not None else None
    memo = Repeats() if repeats else None
    flow = Flow()
    return _entries(iter(()), path, root, keep_raw, batches=read_document_batches(path, max_bytes, memo, flow),
                    repeats=memo, flow=flow)


class Flow:
    """How far the entries of a stream have come (`read_cases`): the entries handed out so far, and whether the
    reader waits for a pipe's writer. A consumer that has taken them all while the writer pauses
    (`drained`) can deal with them now instead of waiting for more: `(kernel trace) | ascverify check -`."""

    __slots__ = ("reader", "handed_out")

    def __init__(self) -> None:
        self.reader: LineReader | None = None
        self.handed_out = 0

    @property
    def live(self) -> bool:
        """The stream is a pipe, terminal or socket (known once reading has started)."""
        return self.reader is not None and self.reader.live

    def idle(self) -> bool:
        """The reader has handed out what it read and would wait for the writer now."""
        return self.reader is not None and self.reader.idle()

    def drained(self, taken: int) -> bool:
        """``taken`` entries are every entry handed out so far, and the writer pauses."""
        return taken >= self.handed_out and self.idle()


class Entries(chain):
    """The entries of a file (an iterator: `itertools.chain`'s speed), with its `Flow` (``flow``) and what it
    remembers of its repeated lines (``repeats``, when read with them)."""

    flow: Flow | None = None
    repeats: Repeats | None = None


class Flowing:
    """Entries of a file passed through a filter that gives one entry for each it gets (`retarget.on_product`, the
    schema check), with the file's `Flow`: a consumer still sees when the writer of a pipe pauses."""

    __slots__ = ("entries", "flow")

    def __init__(self, entries: Iterable[Entry], flow: Flow | None) -> None:
        self.entries = entries
        self.flow = flow

    def __iter__(self) -> Iterator[Entry]:
        return iter(self.entries)


def read_documents(path: str, max_bytes: int) -> Iterator[tuple[int, Any, InputError | None]]:
    """(index, JSON value, error) for every case of the file ``path`` ('-': standard input), read as it goes:
    one value, a list, or JSON Lines (in constant memory, a block of lines at a time).

    ``error`` (an InputError, ``value`` then None) is a case that cannot be read: a line that is not JSON, a
    duplicate key, nesting deeper than `jsonread.MAX_DEPTH`, a NaN / Infinity literal. File-level problems
    (missing, not a regular file, binary, not JSON at all, larger than ``max_bytes``) raise InputError when
    iterating."""
    return chain.from_iterable(read_document_batches(path, max_bytes))


def read_document_batches(path: str, max_bytes: int, repeats: Repeats | None = None,
                          flow: Flow | None = None) -> Iterator[Documents]:
    """`read_documents` a batch at a time: each batch an iterable (to be read once) of (index, value, error),
    of at most `BATCH_LINES` lines of JSON Lines holding at most one read block of text (1 MiB) or one line;
    one document comes as one batch. ``flow`` gets the reader (`Flow.idle`)."""
    reader = open_source(path, max_bytes)
    if flow is not None:
        flow.reader = reader
    try:
        yield from _stream_batches(reader, path, repeats)
    finally:
        reader.close()


_read_documents = read_documents


def _base_dir(path: str) -> Path:
    if path == "-":
        return Path.cwd()
    try:
        return Path(path).resolve().parent
    except (RuntimeError, OSError):  # a loop of symbolic links (RuntimeError before Python 3.13): not a file to read
        raise InputError("cannot read: a loop of symbolic links", where=path) from None


def cases_from_bytes(data: bytes, path: str) -> Iterator[Entry]:
    """The cases of a file's contents (see `read_cases`)."""
    return _entries(iter_documents(data, path), path)


def _entries(docs: Iterator[tuple[int, Any, InputError | None]], path: str, data_root: Path | None = None,
             keep_raw: bool = True, batches: Iterator[Iterable[tuple[int, Any, InputError | None]]] | None = None,
             repeats: Repeats | None = None, flow: Flow | None = None) -> Iterator[Entry]:
    """The entries of the documents read (``docs``, or the reader's ``batches`` of them), a block at a time: the
    common shape column-wise (`parse_block`), the rest (and every error) case by case. A block holds at most
    `PARSE_BLOCK` documents and `PARSE_BATCHES` of the reader's batches (each at most 1 MiB of text: memory stays
    bounded however long the lines). A problem with the file as a whole comes after the entries before it."""
    # the blocks' lists chained in C: a million entries pass through here, and a Python generator's step per entry
    # (two of them nested) cost about as much as making the entry
    out = Entries.from_iterable(_entry_blocks(docs, path, data_root, keep_raw, batches, repeats, flow))
    out.flow = flow
    out.repeats = repeats
    return out


def _entry_blocks(docs: Iterator[tuple[int, Any, InputError | None]], path: str, data_root: Path | None,
                  keep_raw: bool, batches: Iterator[Iterable[tuple[int, Any, InputError | None]]] | None,
                  repeats: Repeats | None = None, flow: Flow | None = None) -> Iterator[list[Entry]]:
    """`_entries` a block at a time (each a list); a block ends early when a pipe's writer pauses (``flow``)."""
    base = _base_dir(path)
    source = iter(batches) if batches is not None else _chunked(docs, PARSE_BLOCK)
    while True:
        block: list[tuple[int, Any, InputError | None]] = []
        failure: InputError | None = None
        taken = 0
        try:
            for batch in source:
                block.extend(batch)
                taken += 1
                if len(block) >= PARSE_BLOCK or taken >= PARSE_BATCHES or (flow is not None and flow.idle()):
                    break
        except InputError as exc:
            failure = exc
        if block:
            entries = _block_entries(block, path, base, data_root, keep_raw, repeats)
            if flow is not None:
                flow.handed_out += len(entries)
            yield entries
        if failure is not None:
            raise failure
        if not taken:
            return


def _chunked(docs: Iterable[Any], n: int) -> Iterator[list[Any]]:
    """``docs`` in lists of ``n``; a reading error comes after the list of the documents read before it."""
    it = iter(docs)
    while True:
        chunk: list[Any] = []
        try:
            for item in it:
                chunk.append(item)
                if len(chunk) >= n:
                    break
        except InputError:
            if chunk:
                yield chunk
            raise
        if chunk:
            yield chunk
        if len(chunk) < n:
            return


#: Documents parsed together by `parse_block` (bounded: entries stream in constant memory).
PARSE_BLOCK = 4096
#: A block of fewer documents is read case by case (`parse_case`, the same cases): columns cost about 300 µs per
#: key layout, reading one case about 27 µs (measured; a folder of one-case files, as `gen` writes them, read 10x
#: faster). Checked together with cases read column-wise, such cases check as fast.
COLUMNAR_MIN_DOCS = 32
#: ... coming from at most this many of the reader's batches (`read_document_batches`).
PARSE_BATCHES = 16


def _block_entries(block: list[tuple[int, Any, InputError | None]], path: str, base: Path,
                   data_root: Path | None, keep_raw: bool, repeats: Repeats | None = None) -> list[Entry]:
    if repeats is not None and not repeats.active and not repeats.has_cases():
        repeats = None
    if repeats is None or not repeats.has_cases():
        return _fresh_entries(block, path, base, data_root, keep_raw, repeats)
    # lines seen before give their case as it was read then: only the others are read (a kernel's trace: most)
    known = repeats.cases_of([doc if err is None else None for _, doc, err in block])
    out: list[Entry | None] = [None if case is None else Entry(index, case, None, doc if keep_raw else None)
                               for (index, doc, _), case in zip(block, known)]
    todo = [i for i, case in enumerate(known) if case is None]
    if todo:
        for i, entry in zip(todo, _fresh_entries([block[i] for i in todo], path, base, data_root, keep_raw,
                                                 repeats)):
            out[i] = entry
    return out  # type: ignore[return-value]


def _fresh_entries(block: list[tuple[int, Any, InputError | None]], path: str, base: Path,
                   data_root: Path | None, keep_raw: bool, repeats: Repeats | None) -> list[Entry]:
    """The entries of documents no case is remembered for yet: the common shape read column-wise, the rest case
    by case (with ``repeats``, each case read is remembered; a value twice in the block is read once)."""
    origins = [f"{path}:case {index}" for index, _, _ in block]
    if len(block) >= COLUMNAR_MIN_DOCS:
        docs = [doc if err is None else None for _, doc, err in block]
        again: list[int] | None = None
        if repeats is not None:  # a value that comes again in the block (the same object) is read at its first
            first: dict[int, int] = {}
            again = [first.setdefault(id(doc), i) for i, doc in enumerate(docs)]
            docs = [doc if at == i else None for i, (doc, at) in enumerate(zip(docs, again))]
        fast = parse_block(docs, origins, base)
        if again is not None:
            fast = [fast[at] for at in again]
    else:
        fast = [None] * len(block)
    out: list[Entry] = []
    add = out.append
    remember = repeats.remember_case if repeats is not None else None
    for (index, doc, err), case, origin in zip(block, fast, origins):
        if err is not None:
            add(Entry(index, None, err))
            continue
        raw = doc if keep_raw else None
        if case is None and repeats is not None:  # read case by case: seen earlier in this block?
            case = repeats.case(doc)
        elif remember is not None:
            remember(doc, case)
        if case is not None:
            add(Entry(index, case, None, raw))
            continue
        try:
            if isinstance(doc, dict) and "calls" in doc:
                token = _LIMITS.set(ReadLimits(data_root, _LIMITS.get().max_bytes)) if data_root is not None else None
                try:
                    program = parse_program(doc, base_dir=base, origin=origin)
                finally:
                    if token is not None:
                        _LIMITS.reset(token)
                add(Entry(index, None, None, doc, program))
                continue
            case = parse_case(doc, base_dir=base, origin=origin, data_root=data_root)
            if remember is not None:
                remember(doc, case)
            add(Entry(index, case, None, raw))
        except InputError as exc:
            add(Entry(index, None, exc, raw))
    return out


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
                     data_root: str | os.PathLike | None = None, keep_raw: bool = True, repeats: bool = False
                     ) -> Iterator[Entry]:
    """The cases of a chunk of a JSON Lines file whose first case has index ``first_index`` (``repeats``: as
    `read_cases`)."""
    root = Path(os.path.realpath(data_root)) if data_root is not None else None
    memo = Repeats() if repeats else None
    return _entries(((i + first_index, doc, err) for i, doc, err in _iter_lines(chunk, path, first_line, memo)),
                    path, root, keep_raw, repeats=memo)
