"""Reading case files: one case, a list of cases or JSON Lines; validation with one-line errors."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, Mapping

import numpy as np
import orjson

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


def read_bytes(path: str, max_bytes: int = MAX_FILE_BYTES) -> bytes:
    """The file's bytes ('-' is standard input); InputError when missing, a folder or too large."""
    if path == "-":
        data = sys.stdin.buffer.read(max_bytes + 1)
    else:
        p = Path(path)
        if not p.exists():
            raise InputError("no such file", where=path)
        if p.is_dir():
            raise InputError("is a directory, not a case file", where=path)
        try:
            size = p.stat().st_size
            if size > max_bytes:
                raise InputError(f"file is {size} bytes; the limit is {max_bytes}", where=path)
            data = p.read_bytes()
        except OSError as exc:
            raise InputError(f"cannot read: {exc.strerror or exc}", where=path) from None
    if len(data) > max_bytes:
        raise InputError(f"input is larger than the limit of {max_bytes} bytes", where=path)
    return data


def _decode_error(exc: Exception) -> str:
    msg = str(exc)
    return msg[:200]


def iter_documents(data: bytes, where: str) -> Iterator[tuple[int, Any, InputError | None]]:
    """(index, JSON value, error) for every case in a file: one object, a list, or JSON Lines."""
    if b"\x00" in data[:65536]:
        raise InputError("binary content, not a JSON case file", where=where)
    stripped = data.strip()
    if not stripped:
        raise InputError("empty file: expected a case, a list of cases or JSON Lines", where=where)
    try:
        doc = orjson.loads(stripped)
    except orjson.JSONDecodeError as exc:
        if stripped[:1] == b"{" and b"\n" in stripped:
            yield from _iter_lines(stripped, where)
            return
        raise InputError(f"invalid JSON: {_decode_error(exc)}", where=where) from None
    if isinstance(doc, list):
        for i, item in enumerate(doc):
            yield i, item, None
    else:
        yield 0, doc, None


def _iter_lines(data: bytes, where: str, first_line: int = 0) -> Iterator[tuple[int, Any, InputError | None]]:
    index = 0
    for lineno, line in enumerate(data.split(b"\n"), first_line + 1):
        line = line.strip()
        if not line:
            continue
        try:
            yield index, orjson.loads(line), None
        except orjson.JSONDecodeError as exc:
            yield index, None, InputError(f"line {lineno}: invalid JSON: {_decode_error(exc)}")
        index += 1


def read_cases(path: str, max_bytes: int = MAX_FILE_BYTES) -> Iterator[Entry]:
    """Every case of a file, parsed; an entry carries its InputError instead when it cannot be read.

    File-level problems (missing, binary, not JSON at all) raise InputError.
    """
    return cases_from_bytes(read_bytes(path, max_bytes), path)


def _base_dir(path: str) -> Path:
    return Path(path).resolve().parent if path != "-" else Path.cwd()


def cases_from_bytes(data: bytes, path: str) -> Iterator[Entry]:
    """The cases of a file's contents (see `read_cases`)."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"not UTF-8 text (byte {exc.start}): binary content, not a JSON case file", where=path) from None
    return _entries(iter_documents(data, path), path)


def _entries(docs: Iterator[tuple[int, Any, InputError | None]], path: str) -> Iterator[Entry]:
    base = _base_dir(path)
    for index, doc, err in docs:
        if err is not None:
            yield Entry(index, None, err)
            continue
        try:
            if isinstance(doc, dict) and "calls" in doc:
                from .program import parse_program

                yield Entry(index, None, None, doc, parse_program(doc, base_dir=base, origin=f"{path}:case {index}"))
                continue
            yield Entry(index, parse_case(doc, base_dir=base, origin=f"{path}:case {index}"), None, doc)
        except InputError as exc:
            yield Entry(index, None, exc, doc)


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


def cases_from_lines(chunk: bytes, path: str, first_index: int, first_line: int = 0) -> Iterator[Entry]:
    """The cases of a chunk of a JSON Lines file whose first case has index ``first_index``."""
    return _entries(((i + first_index, doc, err) for i, doc, err in _iter_lines(chunk, path, first_line)), path)


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


def parse_case(obj: Any, *, base_dir: Path | None = None, origin: str = "") -> Case:
    """A Case from one JSON object; InputError naming the field on anything malformed."""
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
            data_sources[k] = _data_source(t["data"], f"{f}.data", base_dir)
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


def _data_source(d: Any, field: str, base_dir: Path | None) -> Any:
    """Tensor data as given: a list of numbers, or the path of a file that exists."""
    if isinstance(d, list):
        if len(d) > MAX_INLINE_DATA:
            raise InputError(f"inline data of {len(d)} values; use a .npy or .bin file", field=field)
        for i, x in enumerate(d):
            if type(x) not in (int, float) or x != x:
                raise InputError(f"expected a number, got {_type_name(x)} ({_short(x)})", field=f"{field}[{i}]")
        return d
    if isinstance(d, str):
        path = Path(d)
        if not path.is_absolute() and base_dir is not None:
            path = base_dir / path
        if not path.is_file():
            raise InputError(f"data file {d!r} not found", field=field)
        return d
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
    """A tensor's contents from an inline list or a .npy / raw little-endian .bin file."""
    if isinstance(src, list):
        arr = _from_list(src, dtype, field)
    else:
        path = Path(src)
        if not path.is_absolute() and base_dir is not None:
            path = base_dir / path
        if not path.is_file():
            raise InputError(f"data file {src!r} not found", field=field)
        try:
            if path.suffix == ".npy":
                arr = np.load(path, allow_pickle=False)
                if arr.dtype.kind not in "biuf" and arr.dtype != dtype.numpy:
                    raise InputError(f"data file {src!r} holds {arr.dtype}, not numbers", field=field)
                arr = arr.reshape(-1)
                if arr.dtype != dtype.numpy:
                    conv = arr.astype(dtype.numpy)
                    if dtype.kind in ("int", "uint", "bits") and not np.array_equal(conv.astype(np.float64), arr.astype(np.float64)):
                        raise InputError(f"data file {src!r} has values that do not fit {dtype.name}", field=field)
                    arr = conv
            else:
                raw = path.read_bytes()
                if len(raw) % dtype.numpy.itemsize:
                    raise InputError(f"data file {src!r} has {len(raw)} bytes, not a whole number of {dtype.name}",
                                     field=field)
                arr = np.frombuffer(raw, dtype=dtype.numpy.newbyteorder("<")).astype(dtype.numpy)
        except InputError:
            raise
        except (OSError, ValueError) as exc:
            raise InputError(f"cannot read data file {src!r}: {str(exc)[:120]}", field=field) from None
    if arr.size > size:
        raise InputError(f"{arr.size} data values for a tensor of size {size}", field=field)
    return arr


def _from_list(values: list, dtype: DType, field: str) -> np.ndarray:
    for i, x in enumerate(values):
        if type(x) not in (int, float) or (isinstance(x, float) and x != x):
            raise InputError(f"expected a number, got {_type_name(x)} ({_short(x)})", field=f"{field}[{i}]")
    if dtype.kind in ("int", "uint", "bits"):
        info = np.iinfo(dtype.numpy) if dtype.numpy.kind in "iu" else None
        for i, x in enumerate(values):
            if not isinstance(x, int) or (info is not None and not (info.min <= x <= info.max)):
                raise InputError(f"{_short(x)} is not a {dtype.name} value", field=f"{field}[{i}]")
        return np.array(values, dtype=dtype.numpy)
    with np.errstate(over="ignore", invalid="ignore"):
        wide = np.array(values, dtype=np.float64)
        arr = wide.astype(dtype.numpy)
    bad = np.flatnonzero(np.isinf(arr.astype(np.float64)) & np.isfinite(wide))
    if bad.size:
        i = int(bad[0])
        raise InputError(f"{values[i]!r} overflows {dtype.name}", field=f"{field}[{i}]")
    return arr
