"""Strict JSON for case files: orjson's speed, plus what orjson lets through or reports without a field.

- **Duplicate keys** are refused, naming the key and where it sits (orjson keeps the last value silently: a
  second ``"product"`` would switch the product). The check is exact and cheap: with no ``\\u`` escape in
  the text, the colons of the text and of orjson's re-serialization of what it parsed are equal exactly when
  no key was dropped (every key is followed by one colon; strings keep theirs; a dropped key takes its colon
  and any colons of its strings with it). Otherwise, and whenever the counts differ, the text is parsed again
  with the standard library's ``object_pairs_hook`` to find the key.
- **Nesting** deeper than `MAX_DEPTH` levels is refused with the field it starts under, before any code walks
  the value recursively (deep lists used to hit Python's recursion limit).
- **NaN, Infinity, -Infinity** are not JSON; orjson refuses them with a line and column. The text is parsed
  again with the standard library, which accepts them, to name the field the literal sits in.

Errors are `InputError` with ``field`` set to the path (``args.hRepeat``, ``tensors.src0.data[3]``).
"""

from __future__ import annotations

import json
import re
from typing import Any, Iterator

import orjson

from ..spec.errors import InputError

#: A case (or program) nested deeper than this is refused; real ones are 6 levels deep at most.
MAX_DEPTH = 64

_POSITION = re.compile(r"line (\d+) column (\d+)")
_NON_FINITE = (b"NaN", b"Infinity")


class _Dict(dict):
    """A JSON object from the standard library's parser, with the first key it saw twice (or None)."""

    __slots__ = ("duplicate",)


class _NonFinite:
    """A NaN / Infinity / -Infinity literal, where the standard library's parser met it."""

    __slots__ = ("literal",)

    def __init__(self, literal: str) -> None:
        self.literal = literal


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
        return json.loads(raw, object_pairs_hook=_pairs, parse_constant=_NonFinite)
    except (ValueError, RecursionError):
        return None


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
            return InputError(f"{node.literal} is not a JSON number{position}", field=path_text(p))
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
    Infinity literal (``args.hRepeat: NaN is not a JSON number (line 3, column 14)``)."""
    if not any(lit in raw for lit in _NON_FINITE):
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


def decode_message(exc: Exception) -> str:
    """orjson's words for text it cannot read, shortened; invalid UTF-8 said plainly."""
    msg = str(exc)
    if "UTF-8" in msg:
        return "not UTF-8 text"
    return msg[:200]
