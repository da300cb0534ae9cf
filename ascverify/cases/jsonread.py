"""Strict JSON for case files: orjson's speed, plus what orjson lets through or reports without a field.

- **Duplicate keys** are refused, naming the key and where it sits (orjson keeps the last value silently: a
  second ``"product"`` would switch the product). The check is exact and cheap: with no ``\\u`` escape in
  the text, the colons of the text and of orjson's re-serialization of what it parsed are equal exactly when
  no key was dropped (every key is followed by one colon; strings keep theirs; a dropped key takes its colon
  and any colons of its strings with it). Otherwise, and whenever the counts differ, the text is parsed again
  with the standard library's ``object_pairs_hook`` to find the key. For JSON Lines the counts are summed
  over a batch of lines, with one re-serialization for the batch (`lines_problems`).
- **Nesting** deeper than `MAX_DEPTH` levels is refused with the field it starts under, before any code walks
  the value recursively (deep lists used to hit Python's recursion limit).
- **NaN, Infinity, -Infinity** are not JSON; orjson refuses them with a line and column. The text is parsed
  again with the standard library, which accepts them, to name the field the literal sits in. So is a number
  beyond a double's range (a 400-digit integer, 1e999), which orjson refuses the same way.

Errors are `InputError` with ``field`` set to the path (``args.hRepeat``, ``tensors.src0.data[3]``).
"""

from __future__ import annotations

import json
import re
from typing import Any, Iterable, Iterator

import numpy as np
import orjson

from ..spec.errors import InputError

#: A case (or program) nested deeper than this is refused; real ones are 6 levels deep at most.
MAX_DEPTH = 64

_POSITION = re.compile(r"line (\d+) column (\d+)")
_NON_FINITE = (b"NaN", b"Infinity")
#: orjson's words for a number beyond a double's range
_TOO_LARGE = "number is infinity when parsed as double"


class _Dict(dict):
    """A JSON object from the standard library's parser, with the first key it saw twice (or None)."""

    __slots__ = ("duplicate",)


class _NonFinite:
    """A NaN / Infinity / -Infinity literal, where the standard library's parser met it."""

    __slots__ = ("literal",)

    def __init__(self, literal: str) -> None:
        self.literal = literal

    @property
    def problem(self) -> str:
        return f"{self.literal} is not a JSON number"


class _HugeNumber(_NonFinite):
    """A number too large for a double (orjson: "number is infinity when parsed as double"), where the standard
    library's parser met it: a file's 100,000-digit value is refused naming its field."""

    __slots__ = ()

    @property
    def problem(self) -> str:
        text = self.literal
        shown = text if len(text) <= 24 else f"{text[:12]}...{text[-6:]} ({len(text):,} characters)"
        return f"{shown} is outside any representable number range"


#: Integer literals longer than this are not converted: beyond a double's range (10^308) orjson refuses them, and
#: Python converts at most 4,300 digits; no field takes one.
_MAX_INT_DIGITS = 300


def _int_or_huge(text: str) -> Any:
    return _HugeNumber(text) if len(text) > _MAX_INT_DIGITS else int(text)


def _float_or_huge(text: str) -> Any:
    value = float(text)
    return _HugeNumber(text) if value in (float("inf"), float("-inf")) else value


def _pairs(pairs: list[tuple[str, Any]]) -> _Dict:
    d = _Dict(pairs)
    d.duplicate = None
    if len(d) != len(pairs):
        seen: set[str] = set()
        for k, _ in pairs:
            if k in seen:
                d.duplicate = k
                break
            seen.add(k)
    return d


def _stdlib(raw: bytes) -> Any:
    """The standard library's reading, with `_Dict` objects and `_NonFinite` markers; None when it fails too."""
    try:
        return json.loads(raw, object_pairs_hook=_pairs, parse_constant=_NonFinite, parse_int=_int_or_huge,
                          parse_float=_float_or_huge)
    except (ValueError, RecursionError):
        return None


def is_object_text(line: bytes) -> bool:
    """Whether ``line`` is the text of one JSON object, by orjson or else by the standard library's reading, which
    also takes what orjson refuses and the checks then name (a number beyond a double, a NaN literal)."""
    try:
        return isinstance(orjson.loads(line), dict)
    except orjson.JSONDecodeError as exc:  # the standard library (slower) only where it may read what orjson does not
        if not any(lit in line for lit in _NON_FINITE) and _TOO_LARGE not in str(exc):
            return False
        return isinstance(_stdlib(line), dict)


def key_text(k: str) -> str:
    """A key as it can stand in a one-line message."""
    if k.isprintable() and len(k) <= 60:
        return k
    s = repr(k)
    return s if len(s) <= 40 else s[:37] + "..."


def path_text(path: tuple) -> str:
    """``args.hRepeat``, ``tensors.src0.data[3]`` from a path of keys and indices."""
    out = ""
    for p in path:
        out += f"[{p}]" if isinstance(p, int) else (f".{key_text(p)}" if out else key_text(p))
    return out


def _walk(value: Any, path: tuple = ()) -> Iterator[tuple[tuple, Any]]:
    """(path, node) for every object, list and marker under ``value``, in document order, without recursion."""
    stack: list[tuple[tuple, Any]] = [(path, value)]
    while stack:
        p, node = stack.pop()
        yield p, node
        if isinstance(node, dict):
            children = [(p + (k,), v) for k, v in node.items() if isinstance(v, (dict, list, _NonFinite))]
        elif isinstance(node, list):
            children = [(p + (i,), v) for i, v in enumerate(node) if isinstance(v, (dict, list, _NonFinite))]
        else:
            continue
        stack.extend(reversed(children))


def _marker_error(value: Any, position: str = "") -> InputError | None:
    """The error for the first duplicate key or non-finite literal under a value the standard library read."""
    for p, node in _walk(value):
        if isinstance(node, _NonFinite):
            return InputError(f"{node.problem}{position}", field=path_text(p))
        if isinstance(node, _Dict) and node.duplicate is not None:
            k = node.duplicate
            return InputError(f"duplicate key {key_text(k)!r} (a key may appear once in an object)",
                              field=path_text(p + (k,)))
    return None


def too_deep(value: Any, limit: int = MAX_DEPTH) -> InputError | None:
    """The error for a value nested deeper than ``limit`` levels (objects and lists), naming the field it is under."""
    stack: list[tuple[Any, int, tuple]] = [(value, 1, ())]
    while stack:
        node, depth, path = stack.pop()
        if depth > limit:
            keys = []
            for p in path:  # the leading keys: the field the nesting starts under
                if isinstance(p, int) or len(keys) == 3:
                    break
                keys.append(p)
            return InputError(f"nested deeper than {limit} levels", field=path_text(tuple(keys)))
        items = node.items() if isinstance(node, dict) else enumerate(node)
        for k, v in items:
            if isinstance(v, (dict, list)):
                stack.append((v, depth + 1, path + (k,) if len(path) < 4 else path))
    return None


def _depth_bound(raw: bytes) -> int:
    """An upper bound of the nesting depth of ``raw``: its opening brackets (some may sit in strings)."""
    return raw.count(b"[") + raw.count(b"{")


def _may_have_duplicates(value: Any, raw: bytes) -> bool:
    if b"\\u" in raw:
        return True  # an escaped key may equal another; an escaped colon would upset the count
    colons = raw.count(b":")
    if not colons:
        return False
    return orjson.dumps(value).count(b":") != colons


def checked(value: Any, raw: bytes, *, item: bool = False) -> InputError | None:
    """The problem orjson let through in ``value`` parsed from ``raw`` (too deep, a duplicate key), or None.

    ``item``: ``raw`` holds more than ``value`` (a list of cases, one of which is ``value``): the duplicate
    check is then the caller's (`document_problems`)."""
    if _depth_bound(raw) > MAX_DEPTH:
        err = too_deep(value)
        if err is not None:
            return err
    if not item and _may_have_duplicates(value, raw):
        return _marker_error(_stdlib(raw))
    return None


def line_unchecked(value: Any, line: bytes) -> bool:
    """Whether ``value``, orjson's reading of the JSON Lines line ``line``, may hold what orjson lets through:
    `checked` then decides. False is exact: few opening brackets bound the depth, and with no \\u escape the
    colons of the text and of orjson's re-serialization are equal exactly when no key was dropped."""
    return line.count(b"[") + line.count(b"{") > MAX_DEPTH or b"\\u" in line or \
        orjson.dumps(value).count(b":") != line.count(b":")


_OPEN_OBJECT, _COLON = ord("{"), ord(":")


def lines_problems(lines: list[bytes], values: list, buf: bytes, start: int, end: int) -> dict[int, InputError]:
    """Per line of JSON Lines orjson read (``values[i]`` from ``lines[i]``; ``buf[start:end]`` is their text
    ``b"\\n".join(lines)``): `checked` of every line where `line_unchecked`, decided for most blocks of lines
    by a few passes over their whole text.

    Lines that may be nested too deep (over `MAX_DEPTH` opening brackets) or hold a backslash (a \\u escape)
    are tested one by one. For the others, the colons of their text and of one re-serialization of all their
    values are counted: line by line, orjson's re-serialization of what it read from a text without \\u
    escapes has at most the colons of that text. JSON has colons only after keys and inside strings; each
    key it writes is a key of the text, written with the one colon after it; each string it writes is a
    string of the text, with the same colons (only a \\u escape writes a colon that was not in the text; other
    escapes never stand for one); numbers and literals have none, and the brackets and commas of the list
    of values add none. A dropped duplicate key removes at least its own colon. So equal sums mean equal
    counts on every line: no line dropped a key (the test `line_unchecked` makes line by line); unequal sums
    send those lines to the one-by-one test as well."""
    text = np.frombuffer(buf, np.uint8, end - start, start)
    suspects: list[int] = []
    brackets = np.flatnonzero((text | 0x20) == _OPEN_OBJECT)  # "[" is 0x5B, "{" 0x7B: no other byte | 0x20 is 0x7B
    # a line with over MAX_DEPTH opening brackets holds MAX_DEPTH + 1 of them within its length: where the
    # brackets of the text are never that close together, no line holds that many
    if len(brackets) > MAX_DEPTH and \
            int((brackets[MAX_DEPTH:] - brackets[:-MAX_DEPTH]).min()) < max(map(len, lines)):
        suspects = [i for i, line in enumerate(lines) if line.count(b"[") + line.count(b"{") > MAX_DEPTH]
    if buf.find(b"\\", start, end) >= 0:
        suspects = sorted(set(suspects).union(i for i, line in enumerate(lines) if b"\\" in line))
    problems: dict[int, InputError] = {}
    for i in suspects:
        _line_problem(values[i], lines[i], i, problems)
    colons = int(np.count_nonzero(text == _COLON))
    if suspects:
        skip = set(suspects)
        rest: Iterable[int] = [i for i in range(len(lines)) if i not in skip]
        colons -= sum(lines[i].count(b":") for i in suspects)
        rest_values = [values[i] for i in rest]
    else:
        rest, rest_values = range(len(lines)), values
    try:
        same = int(np.count_nonzero(np.frombuffer(orjson.dumps(rest_values), np.uint8) == _COLON)) == colons
    except orjson.JSONEncodeError:  # the test line by line says the same
        same = False
    if not same:
        for i in rest:
            _line_problem(values[i], lines[i], i, problems)
    return problems


def _line_problem(value: Any, line: bytes, i: int, problems: dict[int, InputError]) -> None:
    if line_unchecked(value, line):
        err = checked(value, line)
        if err is not None:
            problems[i] = err


def document_problems(items: list, raw: bytes) -> dict[int, InputError]:
    """Per item of a list document: the problems orjson let through (too deep, duplicate keys)."""
    problems: dict[int, InputError] = {}
    if _depth_bound(raw) > MAX_DEPTH:
        for i, item in enumerate(items):
            if isinstance(item, (dict, list)):
                err = too_deep(item)
                if err is not None:
                    problems[i] = err
    if problems:  # orjson.dumps cannot re-serialize what is too deep for it: find duplicates the slow way
        slow = True
    else:
        slow = _may_have_duplicates(items, raw)
    if slow:
        again = _stdlib(raw)
        if isinstance(again, list) and len(again) == len(items):
            for i, item in enumerate(again):
                if i not in problems:
                    err = _marker_error(item)
                    if err is not None:
                        problems[i] = err
    return problems


def _position(exc: Exception, first_line: int) -> tuple[int, int] | None:
    m = _POSITION.search(str(exc))
    if m is None:
        return None
    return first_line + int(m.group(1)) - 1, int(m.group(2))


def syntax_error(raw: bytes, exc: orjson.JSONDecodeError, first_line: int = 1) -> tuple[Any, InputError | None]:
    """What to say about text orjson refused: ``(None, None)`` when it is plain invalid JSON (the caller words
    that), else the standard library's reading of it and the error naming the field of its first NaN /
    Infinity literal (``args.hRepeat: NaN is not a JSON number (line 3, column 14)``) or number beyond a
    double's range."""
    if not any(lit in raw for lit in _NON_FINITE) and _TOO_LARGE not in str(exc):
        return None, None
    again = _stdlib(raw)
    if again is None:
        return None, None
    pos = _position(exc, first_line)
    shown = f" (line {pos[0]}, column {pos[1]})" if pos else ""
    err = _marker_error(again, shown)
    if err is None:
        return None, None
    return again, err


def clean_item(item: Any) -> tuple[Any, InputError | None]:
    """An item of a list the standard library read (`syntax_error`), as orjson would have read it, or its error."""
    err = _marker_error(item)
    if err is not None:
        return None, err
    deep = too_deep(item) if isinstance(item, (dict, list)) else None
    if deep is not None:
        return None, deep
    try:
        return orjson.loads(json.dumps(item)), None
    except (ValueError, TypeError, orjson.JSONDecodeError) as exc:
        return None, InputError(f"invalid JSON: {str(exc)[:200]}")


#: The UTF-8 byte order mark some editors put first (JSON forbids it: RFC 8259, section 8.1).
UTF8_BOM = b"\xef\xbb\xbf"


#: orjson's place of an error on the first line of its text (`decode_message` of one line: "line 1" says nothing)
_FIRST_LINE_PLACE = re.compile(r": line 1 column (\d+) \(char \d+\)$")


def decode_message(exc: Exception, text: bytes = b"", *, one_line: bool = False) -> str:
    """orjson's words for ``text`` it cannot read, shortened; invalid UTF-8 and a byte order mark said plainly.
    ``one_line``: the text is one line of JSON Lines, whose number the caller gives: the place is its column."""
    if text.startswith(UTF8_BOM):
        return "the text starts with a UTF-8 byte order mark (BOM), which JSON does not allow: save it without one"
    msg = str(exc)
    if "UTF-8" in msg:
        return "not UTF-8 text"
    if one_line:
        msg = _FIRST_LINE_PLACE.sub(r" (column \1)", msg)
    return msg[:200]
