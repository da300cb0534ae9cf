"""Parsing one case: a JSON object into a `Case` (arguments in any of the model's spellings, tensors, registers),
with one-line errors naming the field."""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field as dataclass_field
from pathlib import Path
from typing import Any, Mapping

from ..spec.errors import InputError, closest, did_you_mean
from ..spec.model import ApiModel
from ..spec.params import ABS_MAX, ABS_MIN, MASK_WORDS as MASK_WORDS_SLOTS, MAX_LEVELS_LIST, Arg, BoolType, EnumType, \
    LevelsArg, MaskArg, POSITION, StructArg
from ..spec.products import lookup_product
from ..spec.dtypes import lookup_dtype
from ..spec.registry import get_api, lookup_api, overload_for
from ..spec.rules import POSITION_NAMES
from .bounded_read import file_kind
from .case import Case
from .fields import enum_refusal, expected_number, read_dtype, read_int, read_product, short, type_name, unknown_position
from .registers import parse_registers
from .sources import SharedValues, resolve_data_path

#: A bitwise mask longer than this is not a mask.
MAX_MASK_LIST = 64
#: Inline data longer than this belongs in a .npy/.bin file.
MAX_INLINE_DATA = 1 << 22

CASE_KEYS = ("api", "product", "dtype", "args", "tensors", "name", "comment", "expect", "registers")
TENSOR_KEYS = ("position", "addr", "size", "dtype", "data")


def _key(k: str) -> str:
    """A user's key as it can stand in a one-line message."""
    return k if k.isprintable() and len(k) <= 60 else short(k)


def _check_keys(obj: Mapping[str, Any], allowed: tuple[str, ...], field: str, what: str) -> None:
    for k in obj:
        if k not in allowed:
            raise InputError(f"unknown {what} {k!r}{did_you_mean(k, allowed)}", field=f"{field}.{_key(k)}" if field else _key(k))


def misplaced_key_hint(k: Any, obj: Mapping[str, Any], keys: tuple[str, ...] = CASE_KEYS) -> str:
    """The hint for an unknown key of a case (or of a program's call, whose ``keys`` are fewer): an argument or
    tensor of the object's API given at its top level (or misspelt there) belongs under ``args`` / ``tensors``;
    else the closest of ``keys`` (a misspelt ``prodcut``)."""
    api = obj.get("api")
    model = lookup_api(api) if isinstance(api, str) else None
    if model is None or not isinstance(k, str):
        return did_you_mean(k, keys)
    places = {a.name: "args" for a in model.args}
    for spelling in model.arg_spellings.values():
        places.update({name: "args" for name in spelling.values()})
    places.update({t.name: "tensors" for t in model.tensors})
    places.update({name: "tensors" for name in model.tensor_aliases})
    exact = next((n for n in places if n.lower() == k.lower()), None)
    if exact is not None:
        return f" ({exact!r} is {'an argument' if places[exact] == 'args' else 'a tensor'} of {model.name}: put it " \
               f"under {places[exact]}, as {places[exact]}.{exact})"
    near = closest(k, [*keys, *places])
    if near is None:
        return ""
    return f" (did you mean {places[near]}.{near}?)" if near not in keys else f" (did you mean {near!r}?)"


def parse_case(obj: Any, *, base_dir: Path | None = None, origin: str = "", data_root: Path | None = None) -> Case:
    """A Case from one JSON object; InputError naming the field on anything malformed.

    Data file paths are relative to ``base_dir`` and must lie under ``data_root`` (default: the one `read_limits`
    sets, else ``base_dir``; with neither, they are not confined: the caller built the object itself)."""
    fast = _parse_common(obj, base_dir, origin)
    if fast is not None:
        return fast
    return _parse_general(obj, base_dir, origin, data_root)


def _parse_general(obj: Any, base_dir: Path | None, origin: str, data_root: Path | None) -> Case:
    """`parse_case` for any input: every check, every error worded."""
    if not isinstance(obj, dict):
        raise InputError(f"a case must be a JSON object, got {type_name(obj)}")
    for k in obj:
        if k not in CASE_KEYS:
            raise InputError(f"unknown key {short(k)}{misplaced_key_hint(k, obj)}", field=_key(k))
    for k in ("name", "comment"):
        if k in obj and not isinstance(obj[k], str):
            raise InputError(f"expected a string, got {type_name(obj[k])}", field=k)
    api = obj.get("api")
    if api is None:
        raise InputError("missing" if "api" not in obj else "expected an API name, got null", field="api")
    if not isinstance(api, str):
        raise InputError(f"expected an API name, got {type_name(api)}", field="api")
    model = overload_for(get_api(api), obj.get("args"))
    pname = obj.get("product")
    if pname is None:
        raise InputError("missing", field="product")
    if not isinstance(pname, str):
        raise InputError(f"expected a product name, got {type_name(pname)}", field="product")
    product = read_product(pname, "product")
    dtype = read_dtype(obj.get("dtype", model.default_dtype), "dtype")
    args = obj.get("args", {})
    if not isinstance(args, dict):
        raise InputError(f"expected an object, got {type_name(args)}", field="args")
    args = model.normalize_args(args)  # another form of the arguments (ApiModel.normalize_args)
    tensors = obj.get("tensors")
    if tensors is None and not model.tensors:
        tensors = {}  # an API without tensor operands (a Reg API call on registers only)
    if tensors is None:
        raise InputError("missing", field="tensors")
    if not isinstance(tensors, dict):
        raise InputError(f"expected an object, got {type_name(tensors)}", field="tensors")
    normalize_tensors = getattr(model, "normalize_tensors", None)
    if normalize_tensors is not None:  # other names of the tensors (e.g. pyasc's), as the model declares them
        tensors = normalize_tensors(tensors)

    plan = _plan(model)
    env = dict(plan.default_env)
    given = _set_args(model, plan, env, args, "args")
    for name in plan.required_args:
        if name not in given:
            raise InputError(f"missing argument of {model.name}", field=f"args.{name}")

    data_sources: dict[str, Any] = {}
    tensor_dtypes: dict[str, str] = {}
    for k, t in tensors.items():
        decl = plan.tensors.get(k)
        if decl is None:
            raise InputError(f"unknown tensor {short(k)} of {model.name}{did_you_mean(k, plan.tensors)}",
                             field=f"tensors.{_key(k)}")
        f, f_pos, f_addr, f_size = plan.tensor_fields[k]
        if not isinstance(t, dict):
            raise InputError(f"expected an object with position, addr, size; got {type_name(t)}", field=f)
        for tk in t:
            if tk not in TENSOR_KEYS:
                _check_keys(t, TENSOR_KEYS, f, "tensor key")
        pos = t.get("position", decl.positions[0])
        code = POSITION_CODES.get(pos) if isinstance(pos, str) else None
        if code is None:
            code = POSITION.lookup(pos)  # TPosition::VECIN, AscendC::TPosition::VECIN
        if code is None:
            raise InputError(unknown_position(pos), field=f"{f}.position")
        env[f_pos] = code
        addr, size = t.get("addr"), t.get("size")
        if addr is None or size is None:
            raise InputError("missing", field=f"{f}.addr" if addr is None else f"{f}.size")
        env[f_addr] = addr if type(addr) is int and 0 <= addr <= ABS_MAX else read_int(addr, f"{f}.addr")
        env[f_size] = size if type(size) is int and 0 <= size <= ABS_MAX else read_int(size, f"{f}.size")
        if "dtype" in t:
            tensor_dtypes[k] = read_dtype(t["dtype"], f"{f}.dtype").name
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
        registers = parse_registers(registers, product, base_dir=base_dir)
    case = Case(model, ctx, env, data_sources, origin, base_dir, registers)
    return case


def _set_args(model: ApiModel, plan: "_Plan", env: dict[str, Any], args: Mapping[str, Any],
              field: str) -> dict[str, str]:
    """Each argument of ``args`` (a case's ``args`` object, normalized) into its fields in ``env``; the arguments
    given (name in model.args -> the key used). One spelling of the arguments throughout."""
    given: dict[str, str] = {}  # name in model.args -> the key the case used
    allowed, fixed_by = plan.all_spellings, ""  # spellings still possible; the first key that narrowed them
    single_spelling = len(allowed) == 1
    for k, value in args.items():
        decl = plan.args.get(k)
        if decl is None:
            why = model.unmodelled_args.get(k) if type(k) is str else None
            raise InputError(f"{short(k)}: {why}" if why else
                             f"unknown argument {short(k)} of {model.name}{did_you_mean(k, plan.args)}",
                             field=f"{field}.{_key(k)}")
        if decl.name in given:
            raise InputError(f"{k!r} and {given[decl.name]!r} are two spellings of one argument; give it once",
                             field=f"{field}.{k}")
        if not single_spelling:
            labels = plan.spellings[k]
            if not labels & allowed:
                raise InputError(f"{k!r} is the {' / '.join(sorted(labels))} spelling but {fixed_by!r} is the "
                                 f"{' / '.join(sorted(allowed))} one; use one spelling of {model.name}'s arguments",
                                 field=f"{field}.{k}")
            if not allowed <= labels:
                allowed, fixed_by = allowed & labels, fixed_by or k
        given[decl.name] = k
        if type(value) is int and decl.__class__ is Arg and decl.type.kind == "int" and ABS_MIN <= value <= ABS_MAX \
                and not decl.optional:
            env[decl.name] = value  # the common case, without the general path's bookkeeping
        else:
            _set_arg(env, decl, value, f"{field}.{k}")
    return given


def read_args(model: ApiModel, args: Any, field: str = "args") -> dict[str, Any]:
    """Arguments written as in a case's ``args`` object (a mask as a count, a list of words or its placeholder; an
    enum by name; levels and structs as objects), read into the fields they set: what `strategies.cases` holds
    fixed. Raises `InputError` naming the field for what a case file could not hold either."""
    if not isinstance(args, Mapping):
        raise InputError(f"expected an object, got {type_name(args)}", field=field)
    env: dict[str, Any] = {}
    if args:  # (a model's normalize_args may fill in what a whole case leaves out)
        _set_args(model, _plan(model), env, model.normalize_args(dict(args)), field)
    return env


POSITION_CODES = {p: i for i, p in enumerate(POSITION_NAMES)}

_COMMON_KEYS = frozenset(("api", "product", "dtype", "args", "tensors", "name", "comment"))
_PLAIN_TENSOR_KEYS = frozenset(("position", "addr", "size", "dtype"))


def _parse_common(obj: Any, base_dir: Path | None, origin: str) -> Case | None:
    """`parse_case` for the common shape of a readable case, in one pass with few checks: known API and product
    by exact name, arguments as plain integers, Booleans, enum names and masks, tensors as position, addr and
    size. None for anything else (any doubt at all): `parse_case` then reads the case its general way, which
    also words every error, so both ways give the same case or the same error."""
    if type(obj) is not dict or not obj.keys() <= _COMMON_KEYS:
        return None
    api, pname, args, tensors = obj.get("api"), obj.get("product"), obj.get("args", {}), obj.get("tensors")
    if type(api) is not str or type(pname) is not str or type(args) is not dict or type(tensors) is not dict:
        return None
    for k in ("name", "comment"):
        if k in obj and type(obj[k]) is not str:
            return None
    model = lookup_api(api)
    product = lookup_product(pname)
    if model is None or product is None or (model.overloads and not model.overloads.keys().isdisjoint(args)):
        return None  # another overload's call: the general way picks that overload's model
    dt = lookup_dtype(obj.get("dtype", model.default_dtype))
    if dt is None:
        return None
    plan = _plan(model)
    if plan.normalizes:
        try:
            args = model.normalize_args(args)
            normalize_tensors = getattr(model, "normalize_tensors", None)
            if normalize_tensors is not None:
                tensors = normalize_tensors(tensors)
        except InputError:
            return None
        if type(args) is not dict or type(tensors) is not dict:
            return None
    env = dict(plan.default_env)
    keys = tuple(args)
    readers = plan.by_keys.get(keys, _UNSEEN)
    if readers is _UNSEEN:
        readers = _readers_for(plan, keys)
    if readers is None:
        return None
    for value, (k, how, name, extra) in zip(args.values(), readers):
        t = type(value)
        if how == _INT:
            if t is not int or not ABS_MIN <= value <= ABS_MAX:
                return None
            env[name] = value
        elif how == _BOOL:
            if t is not bool:
                return None
            env[name] = value
        elif how == _ENUM:
            code = extra.get(value) if t is str else None
            if code is None:
                return None
            env[name] = code
        elif how == _MASK and t is int and ABS_MIN <= value <= ABS_MAX:
            env.update(extra)
            env[name] = value
        else:
            try:
                _set_arg(env, plan.args[k], value, f"args.{k}")
            except InputError:
                return None
    for name in tensors:
        if name not in plan.tensors:
            return None
    codes = POSITION_CODES
    tensor_dtypes: dict[str, str] | None = None
    for name, f_pos, f_addr, f_size, f_present in plan.tensor_keys:
        t = tensors.get(name)
        if t is None:
            if not f_present or name in tensors:  # an explicit null: the general path words the error
                return None
            env[f_present] = False
            continue
        if type(t) is not dict or not t.keys() <= _PLAIN_TENSOR_KEYS:
            return None
        pos, addr, size = t.get("position", plan.tensors[name].positions[0]), t.get("addr"), t.get("size")
        code = codes.get(pos) if type(pos) is str else None
        if code is None or type(addr) is not int or type(size) is not int or not 0 <= addr <= ABS_MAX \
                or not 0 <= size <= ABS_MAX:
            return None
        env[f_pos], env[f_addr], env[f_size] = code, addr, size
        if f_present:
            env[f_present] = True
        if "dtype" in t:
            tdt = lookup_dtype(t["dtype"])
            if tdt is None:
                return None
            if tensor_dtypes is None:
                tensor_dtypes = {}
            tensor_dtypes[name] = tdt.name
    if tensor_dtypes is None:  # the model's context for (product, T), kept by the plan too: one lookup
        ctx = plan.contexts.get((product.id, dt.name))
        if ctx is None:
            ctx = plan.contexts[(product.id, dt.name)] = model.context(product, dt.name, None)
    else:
        ctx = model.context(product, dt.name, tensor_dtypes)
    return Case(model, ctx, env, None, origin, base_dir, None)


_UNSEEN = object()
#: at most this many argument key lists are remembered per API (`_Plan.by_keys`): memory stays bounded
MAX_KEY_LISTS = 1024


def _readers_for(plan: "_Plan", keys: tuple[str, ...]) -> tuple[tuple[str, int, str, Any], ...] | None:
    """How `_parse_common` reads arguments given under ``keys`` (in that order): per key (key, how, field, extra);
    None when the keys are not the common shape (an unknown key, two spellings of one argument, spellings mixed, a
    required argument missing). Remembered per key list."""
    readers = plan.readers
    seen: set[str] = set()
    allowed = plan.all_spellings
    single = len(allowed) == 1
    out: list[tuple[str, int, str, Any]] | None = []
    for k in keys:
        reader = readers.get(k)
        if reader is None:
            return None  # an unknown key: not remembered (the key lists remembered are made of known keys)
        how, arg, name, extra = reader
        if arg in seen:
            out = None
            break
        seen.add(arg)
        if not single:
            labels = plan.spellings[k]
            if not allowed <= labels:
                allowed = allowed & labels
                if not allowed:
                    out = None
                    break
        out.append((k, how, name, extra))
    if out is not None and any(name not in seen for name in plan.required_args):
        out = None
    got = tuple(out) if out is not None else None
    if len(plan.by_keys) < MAX_KEY_LISTS:
        plan.by_keys[keys] = got
    return got


def _data_source(d: Any, field: str, base_dir: Path | None, data_root: Path | None = None) -> Any:
    """Tensor data as given: a list of numbers, or the path of a regular file under the data root (a `DataPath`)."""
    if isinstance(d, SharedValues):  # a program's shared tensor: checked when the program was read
        return d
    if isinstance(d, list):
        if len(d) > MAX_INLINE_DATA:
            raise InputError(f"inline data of {len(d)} values; use a .npy or .bin file", field=field)
        for i, x in enumerate(d):
            if type(x) not in (int, float) or x != x:
                raise InputError(expected_number(x), field=f"{field}[{i}]")
        return d
    if isinstance(d, str):
        path = resolve_data_path(d, base_dir, field, data_root)
        try:
            st = os.stat(path.resolved)
        except FileNotFoundError:
            raise InputError(f"data file {short(d)} not found", field=field) from None
        except OSError as exc:
            raise InputError(f"cannot read data file {short(d)}: {exc.strerror or exc}", field=field) from None
        if not stat.S_ISREG(st.st_mode):
            raise InputError(f"data file {short(d)} is not a regular file ({file_kind(st.st_mode)})", field=field)
        return path
    raise InputError(f"expected a list of numbers or a file path, got {type_name(d)}", field=field)


def shared_data(d: Any, field: str) -> Any:
    """The data of a program's shared tensor as its calls' cases take it: an inline list checked once here, as
    `SharedValues` (each call's case then neither checks nor converts it again); a file path as given (each case
    resolves it)."""
    if type(d) is not list:
        return d
    return SharedValues(_data_source(d, field, None))


def _set_arg(env: dict[str, Any], decl: Arg | MaskArg, value: Any, field: str) -> None:
    if isinstance(decl, MaskArg):
        n = decl.name
        if decl.placeholder:
            env[f"{n}.placeholder"] = False
        if isinstance(value, str):
            if not decl.placeholder or value != decl.placeholder:
                accepted = f", a list of words or {decl.placeholder!r}" if decl.placeholder else " or a list of words"
                hint = did_you_mean(value, (decl.placeholder,)) if decl.placeholder else ""
                raise InputError(f"expected an integer count{accepted}; got {short(value)}{hint}", field=field)
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
            words = [read_int(w, f"{field}[{i}]") for i, w in enumerate(value)]
            env[f"{n}.bitwise"] = True
            env[f"{n}.count"] = 0
            env[f"{n}.nwords"] = len(words)
            for i in range(MASK_WORDS_SLOTS):
                env[f"{n}.w{i}"] = words[i] if i < len(words) else 0
            return
        env[f"{n}.bitwise"] = False
        env[f"{n}.count"] = read_int(value, field) if not isinstance(value, bool) else _reject_bool(value, field)
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
            raise InputError(f"expected true or false, got {type_name(value)} ({short(value)})", field=field)
        env[decl.name] = value
    elif isinstance(t, EnumType):
        code = t.lookup(value)
        if code is None:
            raise InputError(enum_refusal(t, value), field=field)
        env[decl.name] = code
    else:
        env[decl.name] = read_int(value, field)


def _set_levels(env: dict[str, Any], decl: LevelsArg, value: Any, field: str) -> None:
    """An object of equal-length integer lists (``{"strides": [...], "indices": [...]}``) into its flat fields."""
    keys = decl.keys
    if not isinstance(value, dict):
        raise InputError(f"expected an object with {' and '.join(keys)} (lists of integers), got {type_name(value)}",
                         field=field)
    for k in value:
        if k not in keys:
            raise InputError(f"unknown key {short(k)}{did_you_mean(k, keys)}; expected {' and '.join(keys)}",
                             field=f"{field}.{_key(k)}")
    lengths = {}
    for key, stem, _ in decl.lists:
        items = value.get(key)
        if items is None:
            raise InputError("missing", field=f"{field}.{key}")
        if not isinstance(items, list):
            raise InputError(f"expected a list of integers, got {type_name(items)}", field=f"{field}.{key}")
        if len(items) > MAX_LEVELS_LIST:
            raise InputError(f"a list of {len(items)} levels (at most {MAX_LEVELS_LIST} are read)", field=f"{field}.{key}")
        lengths[key] = len(items)
        for i, x in enumerate(items):
            if isinstance(x, bool):
                raise InputError("expected an integer, got a boolean", field=f"{field}.{key}[{i}]")
            x = read_int(x, f"{field}.{key}[{i}]")
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
    members, rows = _struct_plan(decl)
    if not isinstance(value, dict):
        raise InputError(f"expected an object with {', '.join(members)}, got {type_name(value)}", field=field)
    for k in value:
        if k not in members:
            raise InputError(f"unknown member {short(k)} of {decl.name}{did_you_mean(k, members)}",
                             field=f"{field}.{_key(k)}")
    for mname, required, n, names, defaults, kind, t in rows:
        x = value.get(mname, _ABSENT)
        if x is _ABSENT:
            if required:
                raise InputError(f"missing member of {decl.name}", field=f"{field}.{mname}")
            env.update(defaults)
            continue
        if n is None:
            if kind == _INT and type(x) is int and ABS_MIN <= x <= ABS_MAX:
                env[names[0]] = x
            else:
                _set_scalar(env, names[0], t, x, f"{field}.{mname}")
            continue
        if not isinstance(x, list) or len(x) != n:
            got = f"{len(x)} values" if isinstance(x, list) else type_name(x)
            raise InputError(f"expected a list of {n} values, got {got}", field=f"{field}.{mname}")
        for i, (f, item) in enumerate(zip(names, x)):
            if kind == _INT and type(item) is int and ABS_MIN <= item <= ABS_MAX:
                env[f] = item
            else:
                _set_scalar(env, f, t, item, f"{field}.{mname}[{i}]")
    env[f"{decl.name}.present"] = True


_ABSENT = object()
_STRUCT_PLANS: dict[int, tuple[StructArg, dict[str, Arg], tuple[tuple[Any, ...], ...]]] = {}


def _struct_plan(decl: StructArg) -> tuple[dict[str, Arg], tuple[tuple[Any, ...], ...]]:
    """Per struct declaration, once: its members by name, and per member (name, required, list length or None,
    field names, {field: default}, how it is read (_INT for a plain integer), type)."""
    got = _STRUCT_PLANS.get(id(decl))
    if got is None or got[0] is not decl:
        rows = []
        for m in decl.members:
            fields = decl.member_fields(m)
            kind = _INT if not isinstance(m.type, (BoolType, EnumType)) else _OTHER
            rows.append((m.name, m.default is None, decl.list_length(m.name), tuple(f.name for f in fields),
                         {f.name: f.default for f in fields}, kind, m.type))
        got = _STRUCT_PLANS[id(decl)] = (decl, {m.name: m for m in decl.members}, tuple(rows))
    return got[1], got[2]


def _set_scalar(env: dict[str, Any], name: str, t: Any, value: Any, field: str) -> None:
    """One field of a bool, enum or integer type, with the same checks as a scalar argument."""
    if isinstance(t, BoolType):
        if not isinstance(value, bool):
            raise InputError(f"expected true or false, got {type_name(value)} ({short(value)})", field=field)
        env[name] = value
    elif isinstance(t, EnumType):
        code = t.lookup(value)
        if code is None:
            raise InputError(enum_refusal(t, value), field=field)
        env[name] = code
    else:
        if isinstance(value, bool):
            raise InputError("expected an integer, got a boolean", field=field)
        env[name] = read_int(value, field)


def _reject_bool(value: Any, field: str) -> int:
    raise InputError(f"expected an integer count or a list of words, got {type_name(value)}", field=field)


@dataclass(frozen=True)
class _Plan:
    args: Mapping[str, Arg | MaskArg]  # every accepted spelling -> its declaration
    tensors: Mapping[str, Any]
    required_args: tuple[str, ...]
    spellings: Mapping[str, frozenset[str]]  # every accepted spelling -> the spelling labels using it
    all_spellings: frozenset[str]
    default_env: Mapping[str, Any] = None  # type: ignore[assignment]
    tensor_fields: Mapping[str, tuple[str, str, str, str]] = None  # type: ignore[assignment]
    #: every accepted spelling -> how `_parse_common` reads it: (how, argument, field, extra) (see `_readers`)
    readers: Mapping[str, tuple[int, str, str, Any]] = None  # type: ignore[assignment]
    #: the tensors: (name, env key of position, addr, size, of "present" or "" when not optional)
    tensor_keys: tuple[tuple[str, str, str, str, str], ...] = ()
    #: the model rewrites args or tensors before reading them
    normalizes: bool = False
    #: argument key lists seen -> how to read them (`_readers_for`)
    by_keys: dict[tuple[str, ...], Any] = dataclass_field(default_factory=dict)
    #: (product id, T) -> the model's context for them, without per-tensor types
    contexts: dict[tuple[str, str], Any] = dataclass_field(default_factory=dict)


# how `_parse_common` reads an argument
_INT, _BOOL, _ENUM, _MASK, _OTHER = range(5)


def _readers(model: ApiModel, names: Mapping[str, tuple[str, frozenset[str]]]) -> dict[str, tuple[int, str, str, Any]]:
    """Per accepted spelling: (how, argument, the field it sets, extra) for the common shapes; _OTHER goes through
    `_set_arg`."""
    out: dict[str, tuple[int, str, str, Any]] = {}
    for spelled, (canonical, _) in names.items():
        decl = model.arg(canonical)
        if isinstance(decl, MaskArg):
            n = decl.name
            count = {f"{n}.bitwise": False, f"{n}.nwords": 0, **{f"{n}.w{i}": 0 for i in range(MASK_WORDS_SLOTS)}}
            if decl.placeholder:
                count[f"{n}.placeholder"] = False
            out[spelled] = (_MASK, n, f"{n}.count", count)
        elif decl.__class__ is Arg and not decl.optional and isinstance(decl.type, BoolType):
            out[spelled] = (_BOOL, decl.name, decl.name, None)
        elif decl.__class__ is Arg and not decl.optional and isinstance(decl.type, EnumType):
            out[spelled] = (_ENUM, decl.name, decl.name, {c: i for i, c in enumerate(decl.type.choices)})
        elif decl.__class__ is Arg and not decl.optional and decl.type.kind == "int":
            out[spelled] = (_INT, decl.name, decl.name, None)
        else:
            out[spelled] = (_OTHER, decl.name, decl.name, decl)
    return out


_PLANS: dict[str, _Plan] = {}


def _plan(model: ApiModel) -> _Plan:
    plan = _PLANS.get(model.name)
    if plan is None:
        required = tuple(a.name for a in model.args
                         if getattr(a, "default", None) is None and not getattr(a, "optional", False))
        names = getattr(model, "arg_names", None) or {a.name: (a.name, frozenset(("",))) for a in model.args}
        labels = frozenset().union(*(l for _, l in names.values()))
        normalizes = type(model).normalize_args is not ApiModel.normalize_args or \
            getattr(model, "normalize_tensors", None) is not None
        plan = _Plan({k: model.arg(c) for k, (c, _) in names.items()}, {t.name: t for t in model.tensors}, required,
                     {k: l for k, (_, l) in names.items()}, labels, model.default_env(),
                     {t.name: (f"tensors.{t.name}", f"{t.name}.position", f"{t.name}.addr", f"{t.name}.size")
                      for t in model.tensors},
                     _readers(model, names),
                     tuple((t.name, f"{t.name}.position", f"{t.name}.addr", f"{t.name}.size",
                            f"{t.name}.present" if t.optional else "") for t in model.tensors),
                     normalizes)
        _PLANS[model.name] = plan
    return plan
