"""Parsing many cases at once into columns: the cases of a block of JSON documents that share an API, product,
type and key layout are read field by field (one list and one numpy array per field) instead of case by case.

`parse_block` handles the common shape only (the shape `parse._parse_common` reads) and leaves every other
document, and every row of a column that is not plainly valid, to `parse.parse_case`, which words every error:
both ways give the same case. A case read here is a `RowCase`: its fields live in its block's columns and become a
dict only when something asks for ``case.env``; the batched checker reads the columns directly.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from ..spec.dtypes import lookup_dtype
from ..spec.errors import InputError
from ..spec.params import ABS_MAX, ABS_MIN
from ..spec.products import lookup_product
from ..spec.registry import lookup_api
from .case import Case
from ..spec.params import MASK_WORDS as MASK_WORDS_SLOTS, Arg, BoolType, EnumType, MaskArg, StructArg
from .parse import _BOOL, _ENUM, _INT, _MASK, MAX_MASK_LIST, POSITION_CODES, _plan, _readers_for, _set_arg, _struct_plan, _UNSEEN

#: Columns whose values all lie within this bound are int64, others hold Python ints (as the checker's columns).
INT64_SAFE = 2**31

_TOP_KEYS = frozenset(("api", "product", "dtype", "args", "tensors", "name", "comment"))
_TENSOR_KEYS = frozenset(("position", "addr", "size", "dtype"))
_ENV_SLOT = Case.__dict__["env"]  # the slot RowCase fills when its fields are first asked for


class Block:
    """The cases of one API and key layout read from one block of documents, as columns."""

    __slots__ = ("model", "columns", "_rows", "names", "size")

    def __init__(self, model: Any, columns: dict[str, np.ndarray], size: int) -> None:
        self.model = model
        self.size = size
        #: every field of the model, one value per case of the block (bool, int64, or Python ints)
        self.columns = columns
        self.names = tuple(columns)
        self._rows: list[tuple] | None = None

    def __len__(self) -> int:
        return self.size

    def env(self, row: int) -> dict[str, Any]:
        """The fields of one case as `parse_case` sets them (Python bools and ints)."""
        rows = self._rows
        if rows is None:
            rows = self._rows = (list(zip(*[c.tolist() for c in self.columns.values()])) if self.columns
                                 else [()] * self.size)  # an API without fields (SetMaskCount): empty rows
        return dict(zip(self.names, rows[row]))


class RowCase(Case):
    """A case read by `parse_block`: one row of a `Block`; ``env`` is built on first use."""

    __slots__ = ("block", "row", "fresh")

    def __init__(self, block: Block, row: int, ctx: Any, origin: str, base_dir: Path | None) -> None:  # noqa: D107
        self.model = block.model
        self.ctx = ctx
        self.data_sources = {}
        self.origin = origin
        self.base_dir = base_dir
        self._data = {}
        self.registers = {}
        self.block = block
        self.row = row
        #: ``env`` was never asked for nor set: the block's row is the case's fields
        self.fresh = True

    @property  # type: ignore[override]
    def env(self) -> dict[str, Any]:  # noqa: D102
        self.fresh = False  # the caller may change the dict: the block's row no longer says it all
        try:
            return _ENV_SLOT.__get__(self, RowCase)
        except AttributeError:
            env = self.block.env(self.row)
            _ENV_SLOT.__set__(self, env)
            return env

    @env.setter
    def env(self, value: dict[str, Any]) -> None:
        self.fresh = False
        _ENV_SLOT.__set__(self, value)


_NONE: dict[str, Any] = {}


def parse_block(docs: Sequence[Any], origins: Sequence[str], base_dir: Path | None) -> list[Case | None]:
    """Per document, its case read column-wise, or None where `parse_case` must read it (another shape, or a
    value that is not plainly valid)."""
    out: list[Case | None] = [None] * len(docs)
    groups: dict[tuple, list[int]] = defaultdict(list)
    none = _NONE
    for i, doc in enumerate(docs):  # grouped by key layout (a million documents may come through here)
        if type(doc) is not dict:
            continue
        args, tensors = doc.get("args", none), doc.get("tensors")
        if type(args) is not dict or type(tensors) is not dict:
            continue
        try:
            groups[(tuple(doc), doc.get("api"), tuple(args), tuple(tensors))].append(i)
        except TypeError:  # an API name that is not hashable
            continue
    for key, rows in groups.items():
        _read_group(key, rows, docs, origins, base_dir, out)
    return out


def _read_group(key: tuple, rows: list[int], docs: Sequence[Any], origins: Sequence[str], base_dir: Path | None,
                out: list[Case | None]) -> None:
    top, api, arg_keys, tensor_names = key
    if not frozenset(top) <= _TOP_KEYS or type(api) is not str:
        return
    model = lookup_api(api)
    if model is None or (model.overloads and not model.overloads.keys().isdisjoint(arg_keys)):
        return  # another overload's call: `parse_case` picks that overload's model
    plan = _plan(model)
    group = [docs[i] for i in rows]
    for k in ("name", "comment"):
        if k in top and any(type(d[k]) is not str for d in group):
            return
    ctxs = _contexts(model, plan, group, "dtype" in top)
    argss = [d.get("args", _NONE) for d in group]
    tensorss = [d["tensors"] for d in group]
    if plan.normalizes and not model.keeps_layout(arg_keys, tensor_names):
        _normalized_groups(model, plan, ctxs, rows, argss, tensorss, origins, base_dir, out)
        return
    for tshape, sel in _tensor_layouts(tensor_names, tensorss):
        if sel is None:
            _read_columns(model, plan, ctxs, rows, arg_keys, argss, tensor_names, tshape, tensorss, origins,
                          base_dir, out)
        else:
            _read_columns(model, plan, [ctxs[j] for j in sel], [rows[j] for j in sel], arg_keys,
                          [argss[j] for j in sel], tensor_names, tshape, [tensorss[j] for j in sel], origins,
                          base_dir, out)


def _tensor_layouts(names: tuple[str, ...], tensorss: list[dict[str, Any]]) -> list[tuple[tuple, list[int] | None]]:
    """The cases of a group by the keys of each of their tensors: (per tensor its keys, the cases' positions, None
    for all of them); a case with a tensor that is not an object is left out (`parse_case` words it)."""
    layout = []
    for name in names:
        ts = [t[name] for t in tensorss]
        if set(map(type, ts)) != {dict}:
            break
        keys = set(map(tuple, ts))
        if len(keys) != 1:
            break
        layout.append(next(iter(keys)))
    else:
        return [(tuple(layout), None)]
    split: dict[tuple, list[int]] = defaultdict(list)
    for j, tensors in enumerate(tensorss):
        values = tuple(tensors.values())
        if all(type(t) is dict for t in values):
            split[tuple(map(tuple, values))].append(j)
    return list(split.items())


def _contexts(model: Any, plan: Any, group: list[dict[str, Any]], typed: bool) -> list[Any]:
    """Per case, the model's context for its product and type (None when either is unknown or not a string)."""
    products = [d.get("product") for d in group]
    types = [d["dtype"] for d in group] if typed else [model.default_dtype] * len(group)
    try:
        keys = list(zip(products, types))
        known = dict.fromkeys(keys)
    except TypeError:  # a product or type that is not hashable: that case is read by `parse_case`
        keys = [(p, t) if type(p) is str and type(t) is str else None for p, t in zip(products, types)]
        known = dict.fromkeys(keys)
    for key in known:
        if key is None or type(key[0]) is not str or type(key[1]) is not str:
            continue
        product, dt = lookup_product(key[0]), lookup_dtype(key[1])
        if product is not None and dt is not None:
            ctx = plan.contexts.get((product.id, dt.name))
            if ctx is None:
                ctx = plan.contexts[(product.id, dt.name)] = model.context(product, dt.name, None)
            known[key] = ctx
    return list(map(known.__getitem__, keys))


def _normalized_groups(model: Any, plan: Any, ctxs: list[Any], rows: list[int], argss: list, tensorss: list,
                       origins: Sequence[str], base_dir: Path | None, out: list[Case | None]) -> None:
    """A model that rewrites its arguments or tensors first: each case rewritten, then grouped by its new layout."""
    normalize_tensors = getattr(model, "normalize_tensors", None)
    again: dict[tuple, tuple[list[int], list, list, list]] = {}
    for row, args, tensors, ctx in zip(rows, argss, tensorss, ctxs):
        try:
            args = model.normalize_args(args)
            if normalize_tensors is not None:
                tensors = normalize_tensors(tensors)
        except InputError:
            continue
        if type(args) is not dict or type(tensors) is not dict or any(type(t) is not dict for t in tensors.values()):
            continue  # a tensor that is not an object (a list holding one: an unhashable key): `parse_case` words it
        key = (tuple(args), tuple(tensors), tuple(map(tuple, tensors.values())))
        got = again.get(key)
        if got is None:
            got = again[key] = ([], [], [], [])
        got[0].append(row)
        got[1].append(args)
        got[2].append(tensors)
        got[3].append(ctx)
    for (arg_keys, tensor_names, tshape), (sub_rows, sub_args, sub_tensors, sub_ctxs) in again.items():
        _read_columns(model, plan, sub_ctxs, sub_rows, arg_keys, sub_args, tensor_names, tshape, sub_tensors,
                      origins, base_dir, out)


def _ints(values: list, lo: int, hi: int) -> tuple[np.ndarray | None, np.ndarray | None]:
    """A column of plain integers within [lo, hi]: (array, None) when every value is one, else (None, mask of the
    rows that are)."""
    if set(map(type, values)) == {int}:
        try:
            arr = np.array(values, dtype=np.int64)
        except OverflowError:
            arr = None
        if arr is not None:
            if lo <= int(arr.min()) and int(arr.max()) <= hi:
                return arr, None
    good = np.fromiter((type(v) is int and lo <= v <= hi for v in values), dtype=bool, count=len(values))
    return None, good


def _column(values: list, n: int, good: np.ndarray) -> np.ndarray:
    """Python ints as an int64 column when they fit, else an object column (rows not good hold 0)."""
    if not good.all():
        values = [v if ok else 0 for v, ok in zip(values, good.tolist())]
    try:
        return np.array(values, dtype=np.int64)
    except OverflowError:
        arr = np.empty(n, dtype=object)
        arr[:] = values
        return arr


def _read_columns(model: Any, plan: Any, ctxs: list[Any], rows: list[int], arg_keys: tuple, argss: list,
                  tensor_names: tuple, tshape: tuple, tensorss: list, origins: Sequence[str], base_dir: Path | None,
                  out: list[Case | None]) -> None:
    n = len(rows)
    readers = plan.by_keys.get(arg_keys, _UNSEEN)
    if readers is _UNSEEN:
        readers = _readers_for(plan, arg_keys)
    if readers is None:
        return
    for name in tensor_names:
        if name not in plan.tensors:
            return
    good = np.fromiter((c is not None for c in ctxs), dtype=bool, count=n)
    cols: dict[str, Any] = {}
    others: list[tuple[str, Any]] = []  # arguments read case by case (`_set_arg`)
    for k, how, name, extra in readers:
        values = [a[k] for a in argss]
        if how == _INT or how == _MASK:
            arr, ok = _ints(values, ABS_MIN, ABS_MAX)
            if how == _MASK:
                if ok is None:  # every mask an integer count
                    cols.update(extra)
                    cols[name] = arr
                else:
                    _mask_columns(plan.args[k], values, ok, cols, good)
                continue
            if ok is None:
                cols[name] = arr
            else:
                good &= ok
                cols[name] = (values, ok)
        elif how == _BOOL:
            ok = np.fromiter((type(v) is bool for v in values), dtype=bool, count=n) \
                if set(map(type, values)) != {bool} else None
            if ok is not None:
                good &= ok
                values = [v if o else False for v, o in zip(values, ok.tolist())]
            cols[name] = np.array(values, dtype=bool)
        elif how == _ENUM:
            cols[name] = _coded(values, extra, good)
        elif not _read_special(plan.args[k], values, cols, others, k, good):
            others.append((k, values))
    # tensors: position, addr and size of each; an absent optional tensor is not present
    positions = POSITION_CODES
    given = dict(zip(tensor_names, tshape))
    typed: list[tuple[str, list]] = []  # tensors with a type of their own: (name, per case its type)
    for name, f_pos, f_addr, f_size, f_present in plan.tensor_keys:
        keys = given.get(name)
        if keys is None:
            if not f_present:
                return  # a required tensor missing: the general path words the error
            cols[f_present] = False
            continue
        if not frozenset(keys) <= _TENSOR_KEYS or "addr" not in keys or "size" not in keys:
            return  # data, or a missing field: case by case
        ts = [t[name] for t in tensorss]
        if "position" in keys:
            cols[f_pos] = _coded([t["position"] for t in ts], positions, good)
        else:
            cols[f_pos] = positions[plan.tensors[name].positions[0]]
        for f, member in ((f_addr, "addr"), (f_size, "size")):
            values = [t[member] for t in ts]
            arr, ok = _ints(values, 0, ABS_MAX)
            if ok is None:
                cols[f] = arr
            else:
                good &= ok
                cols[f] = (values, ok)
        if f_present:
            cols[f_present] = True
        if "dtype" in keys:
            typed.append((name, [t["dtype"] for t in ts]))
    if typed:
        ctxs = _typed_contexts(model, ctxs, typed, good)
    # arguments of other forms, case by case (the rows where one is not valid are left to `parse_case`)
    per_row: list[dict[str, Any]] | None = None
    if others:
        per_row = [{} for _ in range(n)]
        for k, values in others:
            decl = plan.args[k]
            field = f"args.{k}"
            for j, value in enumerate(values):
                try:
                    _set_arg(per_row[j], decl, value, field)
                except InputError:
                    good[j] = False
    if not good.any():
        return
    columns = _assemble(model, plan, n, cols, per_row, good)
    block = Block(model, columns, int(good.sum()))
    for j, row in enumerate(np.flatnonzero(good).tolist()):
        i = rows[row]
        out[i] = RowCase(block, j, ctxs[row], origins[i], base_dir)


def _typed_contexts(model: Any, ctxs: list[Any], typed: list[tuple[str, list]], good: np.ndarray) -> list[Any]:
    """Per case, its context with the types its tensors give (`parse_case`'s); a case whose type is not known is
    not good."""
    known: dict[tuple, Any] = {}
    out = []
    for j, ctx in enumerate(ctxs):
        names = tuple(t[j] for _, t in typed)
        key = (id(ctx), names)
        got = known.get(key, _UNSEEN) if all(type(x) is str for x in names) else None
        if got is _UNSEEN:
            dts = [lookup_dtype(x) for x in names]
            got = None if ctx is None or None in dts else \
                model.context(ctx.product, ctx.dtype.name, {name: dt.name for (name, _), dt in zip(typed, dts)})
            known[key] = got
        if got is None:
            good[j] = False
        out.append(got)
    return out


def _assemble(model: Any, plan: Any, n: int, cols: dict[str, Any], per_row: list[dict[str, Any]] | None,
              good: np.ndarray) -> dict[str, np.ndarray]:
    """Every field of the model as a column over the good rows: read values, else the model's defaults."""
    keep = None if good.all() else good
    m = int(good.sum())
    defaults = plan.default_env
    out: dict[str, np.ndarray] = {}
    set_by_row = set().union(*per_row) if per_row is not None else ()
    for f in model.fields:
        name = f.name
        is_bool = f.type.kind == "bool"
        got = cols.get(name, _UNSEEN)
        if name in set_by_row:
            base = got if got is not _UNSEEN else defaults[name]
            if isinstance(base, tuple):
                base = base[0]
            if isinstance(base, np.ndarray):
                base = base.tolist()
            elif not isinstance(base, list):
                base = [base] * n
            values = [r.get(name, b) for r, b in zip(per_row, base)]
            got = _from_values(values, is_bool, good)
        elif got is _UNSEEN:
            value = defaults[name]
            out[name] = np.full(m, value, dtype=bool if is_bool else (np.int64 if _small(value) else object))
            continue
        elif isinstance(got, tuple):
            got = _column(got[0], n, got[1] & good)
        elif not isinstance(got, np.ndarray):
            out[name] = np.full(m, got, dtype=bool if is_bool else (np.int64 if _small(got) else object))
            continue
        out[name] = got if keep is None else got[keep]
    return out


def _coded(values: list, table: dict[str, int], good: np.ndarray) -> np.ndarray:
    """Names (enum choices, positions) as their codes in an int64 column; a row whose value is not a name of
    ``table`` is not good (0 in the column)."""
    if set(map(type, values)) == {str}:
        codes = list(map(table.get, values))
    else:
        codes = [table.get(v) if type(v) is str else None for v in values]
    if None in codes:
        good &= np.fromiter((c is not None for c in codes), dtype=bool, count=len(codes))
        codes = [c if c is not None else 0 for c in codes]
    return np.array(codes, dtype=np.int64)


def _mask_columns(decl: MaskArg, values: list, counts: np.ndarray, cols: dict[str, Any], good: np.ndarray) -> None:
    """A mask argument's fields column-wise, each case's mask in any of its forms (`_set_arg`'s): an integer
    count (``counts`` marks those), the placeholder, or a list of words; any other value is not good."""
    n, slots = decl.name, MASK_WORDS_SLOTS
    count_col = [v if c else 0 for v, c in zip(values, counts.tolist())]
    placeholder = [False] * len(values)
    bitwise = [False] * len(values)
    nwords = [0] * len(values)
    words = [[0] * len(values) for _ in range(slots)]
    for j, (v, c) in enumerate(zip(values, counts.tolist())):
        if c:
            continue
        t = type(v)
        if t is str and decl.placeholder and v == decl.placeholder:
            placeholder[j] = True
        elif t is list and len(v) <= MAX_MASK_LIST and all(type(w) is int and ABS_MIN <= w <= ABS_MAX for w in v):
            bitwise[j] = True
            nwords[j] = len(v)
            for i, w in enumerate(v[:slots]):
                words[i][j] = w
        else:
            good[j] = False  # `_set_arg` words the error
    cols[f"{n}.count"] = _column(count_col, len(values), np.ones(len(values), dtype=bool))
    cols[f"{n}.bitwise"] = np.array(bitwise, dtype=bool)
    cols[f"{n}.nwords"] = np.array(nwords, dtype=np.int64)
    for i in range(slots):
        cols[f"{n}.w{i}"] = _column(words[i], len(values), np.ones(len(values), dtype=bool))
    if decl.placeholder:
        cols[f"{n}.placeholder"] = np.array(placeholder, dtype=bool)


def _read_special(decl: Any, values: list, cols: dict[str, Any], others: list, key: str, good: np.ndarray) -> bool:
    """An optional argument, or a struct argument whose values are objects of the same members, each a plain
    integer or Boolean, column-wise. False: read case by case (`_set_arg`)."""
    if decl.__class__ is Arg and decl.optional:  # given: read as a required one, and present
        t = decl.type
        if isinstance(t, BoolType):
            if set(map(type, values)) != {bool}:
                return False
            cols[decl.name] = np.array(values, dtype=bool)
        elif isinstance(t, EnumType):
            codes = {c: i for i, c in enumerate(t.choices)}
            got = [codes.get(v) if type(v) is str else None for v in values]
            if None in got:
                return False
            cols[decl.name] = np.array(got, dtype=np.int64)
        else:
            arr, ok = _ints(values, ABS_MIN, ABS_MAX)
            if ok is not None:
                return False
            cols[decl.name] = arr
        cols[f"{decl.name}.present"] = True
        return True
    if not isinstance(decl, StructArg) or set(map(type, values)) != {dict}:
        return False
    layouts = set(map(tuple, values))
    if len(layouts) != 1:
        return False
    given = next(iter(layouts))
    members, rows = _struct_plan(decl)
    if not frozenset(given) <= frozenset(members):
        return False
    found: dict[str, Any] = {}
    for mname, required, length, names, defaults, kind, t in rows:
        if mname not in given:
            if required:
                return False
            found.update(defaults)
            continue
        items = [v[mname] for v in values]
        if length is not None:  # a list member: each of its entries a column
            if set(map(type, items)) != {list} or any(len(x) != length for x in items):
                return False
            parts = [(f, [x[i] for x in items]) for i, f in enumerate(names)]
        else:
            parts = [(names[0], items)]
        for f, col in parts:
            if kind == _INT:
                arr, ok = _ints(col, ABS_MIN, ABS_MAX)
                if ok is not None:
                    return False
                found[f] = arr
            elif isinstance(t, BoolType) and set(map(type, col)) == {bool}:
                found[f] = np.array(col, dtype=bool)
            else:
                return False
    cols.update(found)
    cols[f"{decl.name}.present"] = True
    return True


def _small(value: Any) -> bool:
    return type(value) is bool or -2**63 <= value < 2**63


def _from_values(values: list, is_bool: bool, good: np.ndarray) -> np.ndarray:
    if is_bool:
        return np.array([bool(v) if ok else False for v, ok in zip(values, good.tolist())], dtype=bool)
    return _column(values, len(values), good)
