"""Reading case files: one case, a list of cases or JSON Lines; validation with one-line errors."""

from __future__ import annotations

import io
import math
import os
import re
import stat
import sys
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, Mapping

import numpy as np
import orjson

from . import jsonread
from .bounded_read import LineReader, NotRegular, file_kind, open_regular, opened_path, read_at_most
from .dtypes import DType, dtype_names, lookup_dtype
from .errors import InputError, did_you_mean
from .model import ApiModel
from .params import ABS_MAX, ABS_MIN, MASK_WORDS as MASK_WORDS_SLOTS, MAX_LEVELS_LIST, Arg, BoolType, EnumType, \
    LevelsArg, MaskArg, StructArg
from .products import POSITIONS, lookup_product, product_names
from .registry import get_api
from .rules import POSITION_NAMES
from .case import Case

#: Files larger than this are refused (a case file is text; a multi-GiB file is a mistake).
MAX_FILE_BYTES = 1 << 30
#: A bitwise mask longer than this is not a mask.
MAX_MASK_LIST = 64
#: Inline data longer than this belongs in a .npy/.bin file.
MAX_INLINE_DATA = 1 << 22

CASE_KEYS = ("api", "product", "dtype", "args", "tensors", "name", "comment", "expect", "registers")
TENSOR_KEYS = ("position", "addr", "size", "dtype", "data")


@dataclass
class Entry:
    """One item of a case file: its index and either a parsed case or the input error it raised."""

    index: int
    case: Case | None
    error: InputError | None
    raw: Any = None
    #: a program (a document with "calls") instead of a single case
    program: Any = None


# -- where data files may be, and how much is read ----------------------------------------------------------------

@dataclass(frozen=True)
class ReadLimits:
    """What reading a case may touch: data files only under ``data_root`` (None: the case file's folder), and
    no input file larger than ``max_bytes``."""

    data_root: Path | None = None
    max_bytes: int = MAX_FILE_BYTES


_LIMITS: ContextVar[ReadLimits] = ContextVar("ascverify_read_limits", default=ReadLimits())


@contextmanager
def read_limits(*, data_root: str | os.PathLike | None = None, max_bytes: int | None = None) -> Iterator[ReadLimits]:
    """Within the block, data files must lie under ``data_root`` (instead of the folder of their case file) and
    no data file may be larger than ``max_bytes``. The CLI's ``--data-root`` and ``--max-bytes`` set these."""
    current = _LIMITS.get()
    limits = ReadLimits(Path(os.path.realpath(data_root)) if data_root is not None else current.data_root,
                        max_bytes if max_bytes is not None else current.max_bytes)
    token = _LIMITS.set(limits)
    try:
        yield limits
    finally:
        _LIMITS.reset(token)


class DataPath(str):
    """A tensor's ``data`` path as the case gives it (a ``str``: messages and relative paths stay as written),
    with the file it resolves to (symbolic links followed) and the root it was confined to."""

    __slots__ = ("resolved", "root", "named")

    resolved: Path
    root: Path | None
    #: the root is a data root given (``--data-root``), not the case file's folder
    named: bool


def _root_for(base_dir: Path | None, data_root: Path | None = None) -> tuple[Path | None, bool]:
    """The folder data files must lie under, and whether it was named (else it is the case file's folder)."""
    root = data_root if data_root is not None else _LIMITS.get().data_root
    if root is not None:
        return root, True
    return (Path(os.path.realpath(base_dir)) if base_dir is not None else None), False


def _outside(root: Path, given: str, named: bool) -> str:
    """The refusal of a data path outside ``root``: what was given and the rule, nothing about the target."""
    where = f"the data root {_path_text(str(root))}" if named else "the folder of the case file"
    return (f"data file {_path_text(given)} is outside {where}; data files are read only from there "
            "(--data-root DIR names another folder)")


def _path_text(p: str) -> str:
    """A path as a message shows it: quoted, whole unless very long."""
    s = repr(p)
    return s if len(s) <= 240 else s[:237] + "..."


def resolve_data_path(given: str, base_dir: Path | None, field: str, data_root: Path | None = None) -> DataPath:
    """The data file ``given`` names (relative to ``base_dir``), confined to the data root: InputError naming
    ``field`` when it resolves (through symbolic links) outside, without looking at the file itself."""
    if "\x00" in given:
        raise InputError(f"data file {_short(given)}: not a file name", field=field)
    path = Path(given)
    if not path.is_absolute():
        path = (base_dir if base_dir is not None else Path.cwd()) / path
    resolved = Path(os.path.realpath(path))
    root, named = _root_for(base_dir, data_root)
    if root is not None and not resolved.is_relative_to(root):
        raise InputError(_outside(root, given, named), field=field)
    out = DataPath(given)
    out.resolved = resolved
    out.root = root
    out.named = named
    return out


# -- reading case files -------------------------------------------------------------------------------------------

def _open_source(path: str, max_bytes: int) -> LineReader:
    """A bounded line reader of the case file ``path`` ('-': standard input); InputError when it cannot be read."""
    if path == "-":
        return LineReader(sys.stdin.buffer, max_bytes, path)
    try:
        fd, st = open_regular(path)
    except NotRegular as exc:
        if exc.kind == "a directory":
            raise InputError("is a directory, not a case file", where=path) from None
        raise InputError(f"is not a regular file ({exc.kind}); only regular files and - are read", where=path) from None
    except FileNotFoundError:
        raise InputError("no such file", where=path) from None
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", where=path) from None
    if st.st_size > max_bytes:
        os.close(fd)
        raise InputError(f"file is {st.st_size} bytes; the limit is {max_bytes}", where=path)
    return LineReader(fd, max_bytes, path)


def read_bytes(path: str, max_bytes: int = MAX_FILE_BYTES) -> bytes:
    """The file's bytes ('-' is standard input), at most ``max_bytes``; InputError when missing, not a regular
    file, or too large."""
    reader = _open_source(path, max_bytes)
    try:
        return reader.read_all()
    finally:
        reader.close()


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
    reader = _open_source(path, max_bytes)
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
    program_parser = None
    for index, doc, err in docs:
        if err is not None:
            yield Entry(index, None, err)
            continue
        raw = doc if keep_raw else None
        try:
            if isinstance(doc, dict) and "calls" in doc:
                if program_parser is None:
                    from .program import parse_program as program_parser
                token = _LIMITS.set(ReadLimits(data_root, _LIMITS.get().max_bytes)) if data_root is not None else None
                try:
                    program = program_parser(doc, base_dir=base, origin=f"{path}:case {index}")
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


# -- one case ---------------------------------------------------------------------------------------------------

def _type_name(x: Any) -> str:
    if x is None:
        return "null"
    if isinstance(x, bool):
        return "a boolean"
    if isinstance(x, int):
        return "an integer"
    if isinstance(x, float):
        return "a number"
    if isinstance(x, str):
        return "a string"
    if isinstance(x, list):
        return "a list"
    if isinstance(x, dict):
        return "an object"
    return type(x).__name__


def _int(x: Any, field: str) -> int:
    if type(x) is int:
        if ABS_MIN <= x <= ABS_MAX:
            return x
        raise InputError(f"{x} is outside any representable integer range", field=field)
    if isinstance(x, float) and x == x and not (ABS_MIN <= x <= ABS_MAX):
        raise InputError(f"{x:g} is outside any representable integer range", field=field)
    raise InputError(f"expected an integer, got {_type_name(x)} ({_short(x)})", field=field)


def _short(x: Any) -> str:
    s = repr(x)
    return s if len(s) <= 40 else s[:37] + "..."


def _key(k: str) -> str:
    """A user's key as it can stand in a one-line message."""
    return k if k.isprintable() and len(k) <= 60 else _short(k)


def _check_keys(obj: Mapping[str, Any], allowed: tuple[str, ...], field: str, what: str) -> None:
    for k in obj:
        if k not in allowed:
            raise InputError(f"unknown {what} {k!r}{did_you_mean(k, allowed)}", field=f"{field}.{_key(k)}" if field else _key(k))


def parse_case(obj: Any, *, base_dir: Path | None = None, origin: str = "", data_root: Path | None = None) -> Case:
    """A Case from one JSON object; InputError naming the field on anything malformed.

    Data file paths are relative to ``base_dir`` and must lie under ``data_root`` (default: the one `read_limits`
    sets, else ``base_dir``; with neither, they are not confined: the caller built the object itself)."""
    if not isinstance(obj, dict):
        raise InputError(f"a case must be a JSON object, got {_type_name(obj)}")
    for k in obj:
        if k not in CASE_KEYS:
            raise InputError(f"unknown key {_short(k)}{did_you_mean(k, CASE_KEYS)}", field=_key(k))
    for k in ("name", "comment"):
        if k in obj and not isinstance(obj[k], str):
            raise InputError(f"expected a string, got {_type_name(obj[k])}", field=k)
    api = obj.get("api")
    if api is None:
        raise InputError("missing", field="api")
    if not isinstance(api, str):
        raise InputError(f"expected an API name, got {_type_name(api)}", field="api")
    model = get_api(api)
    pname = obj.get("product")
    if pname is None:
        raise InputError("missing", field="product")
    if not isinstance(pname, str):
        raise InputError(f"expected a product name, got {_type_name(pname)}", field="product")
    product = lookup_product(pname)
    if product is None:
        raise InputError(f"unknown product {_short(pname)}{did_you_mean(pname, product_names())}", field="product")
    dtype = _dtype(obj.get("dtype", model.default_dtype), "dtype")
    args = obj.get("args", {})
    if not isinstance(args, dict):
        raise InputError(f"expected an object, got {_type_name(args)}", field="args")
    args = model.normalize_args(args)  # another form of the arguments (ApiModel.normalize_args)
    tensors = obj.get("tensors")
    if tensors is None and not model.tensors:
        tensors = {}  # an API without tensor operands (a Reg API call on registers only)
    if tensors is None:
        raise InputError("missing", field="tensors")
    if not isinstance(tensors, dict):
        raise InputError(f"expected an object, got {_type_name(tensors)}", field="tensors")
    normalize_tensors = getattr(model, "normalize_tensors", None)
    if normalize_tensors is not None:  # other names of the tensors (e.g. pyasc's), as the model declares them
        tensors = normalize_tensors(tensors)

    plan = _plan(model)
    env = dict(plan.default_env)
    given: dict[str, str] = {}  # name in model.args -> the key the case used
    allowed, fixed_by = plan.all_spellings, ""  # spellings still possible; the first key that narrowed them
    single_spelling = len(allowed) == 1
    for k, value in args.items():
        decl = plan.args.get(k)
        if decl is None:
            raise InputError(f"unknown argument {_short(k)} of {model.name}{did_you_mean(k, plan.args)}",
                             field=f"args.{_key(k)}")
        if decl.name in given:
            raise InputError(f"{k!r} and {given[decl.name]!r} are two spellings of one argument; give it once",
                             field=f"args.{k}")
        if not single_spelling:
            labels = plan.spellings[k]
            if not labels & allowed:
                raise InputError(f"{k!r} is the {' / '.join(sorted(labels))} spelling but {fixed_by!r} is the "
                                 f"{' / '.join(sorted(allowed))} one; use one spelling of {model.name}'s arguments",
                                 field=f"args.{k}")
            if not allowed <= labels:
                allowed, fixed_by = allowed & labels, fixed_by or k
        given[decl.name] = k
        if type(value) is int and decl.__class__ is Arg and decl.type.kind == "int" and ABS_MIN <= value <= ABS_MAX \
                and not decl.optional:
            env[decl.name] = value  # the common case, without the general path's bookkeeping
        else:
            _set_arg(env, decl, value, f"args.{k}")
    for name in plan.required_args:
        if name not in given:
            raise InputError(f"missing argument of {model.name}", field=f"args.{name}")

    data_sources: dict[str, Any] = {}
    tensor_dtypes: dict[str, str] = {}
    for k, t in tensors.items():
        decl = plan.tensors.get(k)
        if decl is None:
            raise InputError(f"unknown tensor {_short(k)} of {model.name}{did_you_mean(k, plan.tensors)}",
                             field=f"tensors.{_key(k)}")
        f, f_pos, f_addr, f_size = plan.tensor_fields[k]
        if not isinstance(t, dict):
            raise InputError(f"expected an object with position, addr, size; got {_type_name(t)}", field=f)
        for tk in t:
            if tk not in TENSOR_KEYS:
                _check_keys(t, TENSOR_KEYS, f, "tensor key")
        pos = t.get("position", decl.positions[0])
        code = POSITION_CODES.get(pos) if isinstance(pos, str) else None
        if code is None:
            raise InputError(f"unknown TPosition {_short(pos)}{did_you_mean(pos, POSITIONS)}", field=f"{f}.position")
        env[f_pos] = code
        addr, size = t.get("addr"), t.get("size")
        if addr is None or size is None:
            raise InputError("missing", field=f"{f}.addr" if addr is None else f"{f}.size")
        env[f_addr] = addr if type(addr) is int and 0 <= addr <= ABS_MAX else _int(addr, f"{f}.addr")
        env[f_size] = size if type(size) is int and 0 <= size <= ABS_MAX else _int(size, f"{f}.size")
        if "dtype" in t:
            tensor_dtypes[k] = _dtype(t["dtype"], f"{f}.dtype").name
        if decl.optional:
            env[f"{k}.present"] = True
        if "data" in t:
            data_sources[k] = _data_source(t["data"], f"{f}.data", base_dir, data_root)
    for decl in model.tensors:
        if decl.name not in tensors:
            if decl.optional:
                env[f"{decl.name}.present"] = False
            else:
                raise InputError(f"missing tensor of {model.name}", field=f"tensors.{decl.name}")
    ctx = model.context(product, dtype.name, tensor_dtypes)
    registers = obj.get("registers")
    if registers is not None:
        from .core.registers import parse_registers

        registers = parse_registers(registers, product, base_dir=base_dir)
    case = Case(model, ctx, env, data_sources, origin, base_dir, registers)
    return case


POSITION_CODES = {p: i for i, p in enumerate(POSITION_NAMES)}


def _data_source(d: Any, field: str, base_dir: Path | None, data_root: Path | None = None) -> Any:
    """Tensor data as given: a list of numbers, or the path of a regular file under the data root (a `DataPath`)."""
    if isinstance(d, list):
        if len(d) > MAX_INLINE_DATA:
            raise InputError(f"inline data of {len(d)} values; use a .npy or .bin file", field=field)
        for i, x in enumerate(d):
            if type(x) not in (int, float) or x != x:
                raise InputError(f"expected a number, got {_type_name(x)} ({_short(x)})", field=f"{field}[{i}]")
        return d
    if isinstance(d, str):
        path = resolve_data_path(d, base_dir, field, data_root)
        try:
            st = os.stat(path.resolved)
        except FileNotFoundError:
            raise InputError(f"data file {_short(d)} not found", field=field) from None
        except OSError as exc:
            raise InputError(f"cannot read data file {_short(d)}: {exc.strerror or exc}", field=field) from None
        if not stat.S_ISREG(st.st_mode):
            raise InputError(f"data file {_short(d)} is not a regular file ({file_kind(st.st_mode)})", field=field)
        return path
    raise InputError(f"expected a list of numbers or a file path, got {_type_name(d)}", field=field)


def _dtype(name: Any, field: str) -> DType:
    t = lookup_dtype(name)
    if t is None:
        if not isinstance(name, str):
            raise InputError(f"expected an element type name, got {_type_name(name)}", field=field)
        raise InputError(f"unknown element type {_short(name)}{did_you_mean(name, dtype_names())}", field=field)
    return t


def _set_arg(env: dict[str, Any], decl: Arg | MaskArg, value: Any, field: str) -> None:
    if isinstance(decl, MaskArg):
        n = decl.name
        if decl.placeholder:
            env[f"{n}.placeholder"] = False
        if isinstance(value, str):
            if not decl.placeholder or value != decl.placeholder:
                accepted = f", a list of words or {decl.placeholder!r}" if decl.placeholder else " or a list of words"
                hint = did_you_mean(value, (decl.placeholder,)) if decl.placeholder else ""
                raise InputError(f"expected an integer count{accepted}; got {_short(value)}{hint}", field=field)
            env[f"{n}.placeholder"] = True
            env[f"{n}.bitwise"] = False
            env[f"{n}.count"] = 0
            env[f"{n}.nwords"] = 0
            for i in range(MASK_WORDS_SLOTS):
                env[f"{n}.w{i}"] = 0
            return
        if isinstance(value, list):
            if len(value) > MAX_MASK_LIST:
                raise InputError(f"a bitwise mask of {len(value)} words", field=field)
            words = [_int(w, f"{field}[{i}]") for i, w in enumerate(value)]
            env[f"{n}.bitwise"] = True
            env[f"{n}.count"] = 0
            env[f"{n}.nwords"] = len(words)
            for i in range(MASK_WORDS_SLOTS):
                env[f"{n}.w{i}"] = words[i] if i < len(words) else 0
            return
        env[f"{n}.bitwise"] = False
        env[f"{n}.count"] = _int(value, field) if not isinstance(value, bool) else _reject_bool(value, field)
        env[f"{n}.nwords"] = 0
        for i in range(MASK_WORDS_SLOTS):
            env[f"{n}.w{i}"] = 0
        return
    if isinstance(decl, LevelsArg):
        _set_levels(env, decl, value, field)
        return
    if isinstance(decl, StructArg):
        _set_struct(env, decl, value, field)
        return
    if getattr(decl, "optional", False):
        env[f"{decl.name}.present"] = True
    t = decl.type
    if isinstance(t, BoolType):
        if not isinstance(value, bool):
            raise InputError(f"expected true or false, got {_type_name(value)} ({_short(value)})", field=field)
        env[decl.name] = value
    elif isinstance(t, EnumType):
        if not isinstance(value, str) or value not in t.choices:
            raise InputError(f"expected one of {', '.join(t.choices)}; got {_short(value)}{did_you_mean(value, t.choices)}",
                             field=field)
        env[decl.name] = t.choices.index(value)
    else:
        env[decl.name] = _int(value, field)


def _set_levels(env: dict[str, Any], decl: LevelsArg, value: Any, field: str) -> None:
    """An object of equal-length integer lists (``{"strides": [...], "indices": [...]}``) into its flat fields."""
    keys = decl.keys
    if not isinstance(value, dict):
        raise InputError(f"expected an object with {' and '.join(keys)} (lists of integers), got {_type_name(value)}",
                         field=field)
    for k in value:
        if k not in keys:
            raise InputError(f"unknown key {_short(k)}{did_you_mean(k, keys)}; expected {' and '.join(keys)}",
                             field=f"{field}.{_key(k)}")
    lengths = {}
    for key, stem, _ in decl.lists:
        items = value.get(key)
        if items is None:
            raise InputError("missing", field=f"{field}.{key}")
        if not isinstance(items, list):
            raise InputError(f"expected a list of integers, got {_type_name(items)}", field=f"{field}.{key}")
        if len(items) > MAX_LEVELS_LIST:
            raise InputError(f"a list of {len(items)} levels (at most {MAX_LEVELS_LIST} are read)", field=f"{field}.{key}")
        lengths[key] = len(items)
        for i, x in enumerate(items):
            if isinstance(x, bool):
                raise InputError("expected an integer, got a boolean", field=f"{field}.{key}[{i}]")
            x = _int(x, f"{field}.{key}[{i}]")
            if i < decl.max_levels:
                env[f"{decl.name}.{stem}{i}"] = x
        for i in range(len(items), decl.max_levels):
            env[f"{decl.name}.{stem}{i}"] = 0
    if len(set(lengths.values())) > 1:
        shown = ", ".join(f"{k} has {n}" for k, n in lengths.items())
        raise InputError(f"the lists must have one entry per level; {shown}", field=field)
    env[f"{decl.name}.levels"] = next(iter(lengths.values()))
    if decl.optional:
        env[f"{decl.name}.present"] = True


def _set_struct(env: dict[str, Any], decl: StructArg, value: Any, field: str) -> None:
    """An object of named members (scalars, fixed-length lists) into its flat fields (`StructArg`)."""
    members = {m.name: m for m in decl.members}
    if not isinstance(value, dict):
        raise InputError(f"expected an object with {', '.join(members)}, got {_type_name(value)}", field=field)
    for k in value:
        if k not in members:
            raise InputError(f"unknown member {_short(k)} of {decl.name}{did_you_mean(k, members)}",
                             field=f"{field}.{_key(k)}")
    for m in decl.members:
        fields = decl.member_fields(m)
        if m.name not in value:
            if m.default is None:
                raise InputError(f"missing member of {decl.name}", field=f"{field}.{m.name}")
            for f in fields:
                env[f.name] = f.default
            continue
        x, n = value[m.name], decl.list_length(m.name)
        if n is None:
            _set_scalar(env, fields[0].name, m.type, x, f"{field}.{m.name}")
            continue
        if not isinstance(x, list) or len(x) != n:
            got = f"{len(x)} values" if isinstance(x, list) else _type_name(x)
            raise InputError(f"expected a list of {n} values, got {got}", field=f"{field}.{m.name}")
        for i, (f, item) in enumerate(zip(fields, x)):
            _set_scalar(env, f.name, m.type, item, f"{field}.{m.name}[{i}]")
    env[f"{decl.name}.present"] = True


def _set_scalar(env: dict[str, Any], name: str, t: Any, value: Any, field: str) -> None:
    """One field of a bool, enum or integer type, with the same checks as a scalar argument."""
    if isinstance(t, BoolType):
        if not isinstance(value, bool):
            raise InputError(f"expected true or false, got {_type_name(value)} ({_short(value)})", field=field)
        env[name] = value
    elif isinstance(t, EnumType):
        if not isinstance(value, str) or value not in t.choices:
            raise InputError(f"expected one of {', '.join(t.choices)}; got {_short(value)}{did_you_mean(value, t.choices)}",
                             field=field)
        env[name] = t.choices.index(value)
    else:
        if isinstance(value, bool):
            raise InputError("expected an integer, got a boolean", field=field)
        env[name] = _int(value, field)


def _reject_bool(value: Any, field: str) -> int:
    raise InputError(f"expected an integer count or a list of words, got {_type_name(value)}", field=field)


@dataclass(frozen=True)
class _Plan:
    args: Mapping[str, Arg | MaskArg]  # every accepted spelling -> its declaration
    tensors: Mapping[str, Any]
    required_args: tuple[str, ...]
    spellings: Mapping[str, frozenset[str]]  # every accepted spelling -> the spelling labels using it
    all_spellings: frozenset[str]
    default_env: Mapping[str, Any] = None  # type: ignore[assignment]
    tensor_fields: Mapping[str, tuple[str, str, str, str]] = None  # type: ignore[assignment]


_PLANS: dict[str, _Plan] = {}


def _plan(model: ApiModel) -> _Plan:
    plan = _PLANS.get(model.name)
    if plan is None:
        required = tuple(a.name for a in model.args
                         if getattr(a, "default", None) is None and not getattr(a, "optional", False))
        names = getattr(model, "arg_names", None) or {a.name: (a.name, frozenset(("",))) for a in model.args}
        labels = frozenset().union(*(l for _, l in names.values()))
        plan = _Plan({k: model.arg(c) for k, (c, _) in names.items()}, {t.name: t for t in model.tensors}, required,
                     {k: l for k, (_, l) in names.items()}, labels, model.default_env(),
                     {t.name: (f"tensors.{t.name}", f"{t.name}.position", f"{t.name}.addr", f"{t.name}.size")
                      for t in model.tensors})
        _PLANS[model.name] = plan
    return plan


# -- tensor contents --------------------------------------------------------------------------------------------

def load_tensor_data(src: Any, dtype: DType, base_dir: Path | None, field: str, size: int) -> np.ndarray:
    """A tensor's contents from an inline list or a .npy / raw little-endian .bin file, refused when it does not
    fit: more values than ``size``, values outside the element type (one rule for inline and file data), a file
    outside the data root, not a regular file or larger than the `read_limits` bound. Sizes come from ``fstat``
    and the .npy header before any data is read, and only the data needed is read."""
    if isinstance(src, list):
        if len(src) > size:
            raise InputError(f"{len(src)} data values for a tensor of size {size}", field=field)
        return _from_list(src, dtype, field)
    if not isinstance(src, DataPath):
        src = resolve_data_path(str(src), base_dir, field)
    shown = _short(str(src))
    try:
        fd, st = open_regular(src.resolved)
    except NotRegular as exc:
        raise InputError(f"data file {shown} is not a regular file ({exc.kind})", field=field) from None
    except FileNotFoundError:
        raise InputError(f"data file {shown} not found", field=field) from None
    except OSError as exc:
        raise InputError(f"cannot read data file {shown}: {exc.strerror or exc}", field=field) from None
    try:
        if src.root is not None:  # what was opened, not what was looked at: a folder swapped for a link meanwhile
            actual = opened_path(fd)
            if actual is not None and not actual.is_relative_to(src.root):
                raise InputError(_outside(src.root, str(src), src.named), field=field)
        limit = _LIMITS.get().max_bytes
        if Path(src).suffix == ".npy":
            arr = _read_npy(fd, st.st_size, shown, dtype, field, size, limit)
        else:
            arr = _read_bin(fd, st.st_size, shown, dtype, field, size, limit)
    finally:
        os.close(fd)
    return arr


def _read_bin(fd: int, nbytes: int, shown: str, dtype: DType, field: str, size: int, limit: int) -> np.ndarray:
    item = dtype.numpy.itemsize
    if nbytes % item:
        raise InputError(f"data file {shown} has {nbytes} bytes, not a whole number of {dtype.name}", field=field)
    n = nbytes // item
    if n > size:
        raise InputError(f"data file {shown} holds {n} {dtype.name} values ({nbytes} bytes); the tensor has {size} "
                         "elements", field=field)
    if nbytes > limit:
        raise InputError(f"data file {shown} is {nbytes} bytes; the limit is {limit}", field=field)
    raw, more = read_at_most(fd, nbytes)
    if more or len(raw) != nbytes:
        raise InputError(f"data file {shown} changed while it was read", field=field)
    return np.frombuffer(raw, dtype=dtype.numpy.newbyteorder("<")).astype(dtype.numpy)


def _read_npy(fd: int, nbytes: int, shown: str, dtype: DType, field: str, size: int, limit: int) -> np.ndarray:
    """A .npy file's values, flat in element order: shape and type from the header first, then only that data."""
    from numpy.lib import format as npy

    with open(fd, "rb", closefd=False) as f:
        try:
            version = npy.read_magic(f)
            if version == (1, 0):
                shape, fortran, stored = npy.read_array_header_1_0(f)
            elif version == (2, 0):
                shape, fortran, stored = npy.read_array_header_2_0(f)
            else:
                raise InputError(f"data file {shown} is .npy format {version[0]}.{version[1]}; 1.0 and 2.0 are read",
                                 field=field)
        except (ValueError, OSError, EOFError) as exc:
            raise InputError(f"cannot read data file {shown}: {str(exc)[:120]}", field=field) from None
        if stored.hasobject:
            raise InputError(f"data file {shown} holds Python objects (a pickle), not numbers", field=field)
        if stored.kind not in "biuf" and stored != dtype.numpy:
            raise InputError(f"data file {shown} holds {stored}, not numbers", field=field)
        count = math.prod(shape)
        if count > size:
            raise InputError(f"data file {shown} holds {count} values; the tensor has {size} elements", field=field)
        need = count * stored.itemsize
        if need > limit:
            raise InputError(f"data file {shown} holds {need} bytes of data; the limit is {limit}", field=field)
        have = nbytes - f.tell()
        if have < need:
            raise InputError(f"data file {shown} is truncated: its header says {count} {stored.name} values "
                             f"({need} bytes), it holds {have} bytes of data", field=field)
        raw = f.read(need)
    if len(raw) != need:
        raise InputError(f"data file {shown} changed while it was read", field=field)
    arr = np.frombuffer(raw, dtype=stored)
    if fortran and len(shape) > 1:
        arr = arr.reshape(shape, order="F").reshape(-1)
    return _fit(arr, dtype, field, shown)


def _from_list(values: list, dtype: DType, field: str) -> np.ndarray:
    """Inline data: numbers only (integers for an integer type), then the rule every data follows (`_fit`)."""
    integers = dtype.kind in ("int", "uint", "bits")
    for i, x in enumerate(values):
        if type(x) not in (int, float) or (isinstance(x, float) and x != x):
            raise InputError(f"expected a number, got {_type_name(x)} ({_short(x)})", field=f"{field}[{i}]")
        if integers and type(x) is not int:
            raise InputError(f"{_short(x)} is not a {dtype.name} value", field=f"{field}[{i}]")
    try:
        wide = np.array(values, dtype=np.int64 if integers else np.float64)
    except OverflowError:
        wide = np.array(values, dtype=object)
    return _fit(wide, dtype, field, given=values)


def _fit(wide: np.ndarray, dtype: DType, field: str, source: str = "", given: list | None = None) -> np.ndarray:
    """``wide`` converted to ``dtype``, refusing a value the type cannot hold, for inline data and data files alike:
    an integer type takes integral values in its range, a float type any value but a finite one that overflows
    to infinity. The error names the element (``tensors.src0.data[3]``) and, for a file, the file."""
    target = dtype.numpy
    if wide.dtype == target:
        return wide
    where = f" (in {source})" if source else ""

    def _shown(i: int) -> str:  # the value as given: the JSON number, or the file's element
        x = given[i] if given is not None else wide[i]
        return _short(x.item() if isinstance(x, np.generic) else x)

    if dtype.kind in ("int", "uint", "bits"):
        bad = _first_not_integer(wide, target)
        if bad >= 0:
            raise InputError(f"{_shown(bad)} is not a {dtype.name} value{where}", field=f"{field}[{bad}]")
        return wide.astype(target)
    try:
        with np.errstate(over="ignore", invalid="ignore"):
            wide64 = wide.astype(np.float64)
            arr = wide64.astype(target)
    except OverflowError:  # Python integers beyond any float
        for i, x in enumerate(wide):
            try:
                float(x)
            except OverflowError:
                raise InputError(f"{_shown(i)} overflows {dtype.name}{where}", field=f"{field}[{i}]") from None
        raise
    bad = np.flatnonzero(np.isinf(arr.astype(np.float64)) & np.isfinite(wide64))
    if bad.size:
        i = int(bad[0])
        raise InputError(f"{_shown(i)} overflows {dtype.name}{where}", field=f"{field}[{i}]")
    return arr


def _first_not_integer(wide: np.ndarray, target: np.dtype) -> int:
    """The index of the first value of ``wide`` that is not an integer ``target`` holds, or -1."""
    info = np.iinfo(target) if target.kind in "iu" else None
    if wide.dtype == object:
        for i, x in enumerate(wide):
            if not isinstance(x, int) or (info is not None and not info.min <= x <= info.max):
                return i
        return -1
    ok = np.ones(wide.shape, dtype=bool)
    if wide.dtype.kind == "f":
        with np.errstate(invalid="ignore"):
            ok &= np.isfinite(wide) & (np.floor(wide) == wide)
    if info is not None and wide.dtype.kind != "b":
        with np.errstate(invalid="ignore"):
            ok &= (wide >= info.min) & (wide <= info.max)
    bad = np.flatnonzero(~ok)
    return int(bad[0]) if bad.size else -1

