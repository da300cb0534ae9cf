"""Programs: sequences of calls over shared tensors, and parsing them.

A program file::

    {"product": P, "dtype": T, "tensors": {NAME: {position, addr, size, dtype?, data?}, ...},
     "calls": [{"api": ..., "args": {...}, "tensors": {PARAM: NAME | {inline tensor}}, "dtype"?: T}, ...]}

Each call is a case of its API (the program's product; its dtype or the program's). Some rules are
about order, not values: a model lists them as `rules.order_rule` (the state key an earlier call
must have set), sets state in `ApiModel.apply_state` and reads it in `ApiModel.with_state`
(e.g. the mask of SetVectorMask for a BlockReduceMin with isSetMask=false). `parse_program` reads
a program; `ascverify.checking.program.check_program` reports every violation with its call index;
`ascverify.core.program.run_program` executes the calls on one core state.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from ..spec.errors import InputError, did_you_mean
from ..spec.products import Product
from ..spec.registry import lookup_api, overload_for
from ..spec.rules import Rule, rule
from .case import Case
from .fields import read_product, short, type_name
from .parse import CASE_KEYS, misplaced_key_hint, parse_case, shared_data
from .safe_names import check_tensor_names

PROGRAM_KEYS = ("product", "dtype", "tensors", "calls", "name", "comment")
CALL_KEYS = ("api", "args", "tensors", "dtype", "name", "comment")
#: A program longer than this is refused (a program file is written by hand or by a generator).
MAX_CALLS = 100_000


def is_program(doc: Any) -> bool:
    """The JSON document is a program (it has ``calls``), not a single case."""
    return isinstance(doc, dict) and "calls" in doc


@dataclass
class Call:
    """One call of a program: its index, the case it is, and the shared tensors it names."""

    index: int
    case: Case
    shared: dict[str, str]  # the call's tensor parameter -> the program's tensor name


#: A PostUpdate moved a tensor's pointer before the tensor's start (a negative stride or offset): what the call reads
#: there is another tensor's or nothing's. The tensor of a program is the region its pointer may read.
POINTER_BEFORE_START = rule(
    "program.pointer.before_start", (), lambda v, ctx: False,
    "earlier PostUpdate calls moved the pointer of tensor {tensor} {back} bytes before its start: the call reads "
    "outside the tensor",
    "the PostUpdate LoadAlign pages (srcAddr += offset / postUpdateStride after the load); a program's tensor is the "
    "region its pointer may read (HARDWARE_NOTES.md Reg API)",
    help="no PostUpdate loop that steps its pointer before the tensor's start")


def moved_case(call: Call, moved: Mapping[str, int]) -> Case:
    """The call's case with each shared tensor's pointer where earlier calls left it (``moved``: tensor name -> bytes
    its pointer has moved, `record_moves`): the address moves, the elements the pointer may still read shrink; a
    pointer moved before the tensor's start may read nothing of it (size 0: the call's own size rule and the core's
    bounds refuse its reads; `pointer_problems` says why)."""
    fields: dict[str, Any] = {}
    for param, name in call.shared.items():
        delta = moved.get(name, 0) if param in call.case.model.pointer_params else 0
        if delta:
            t = call.case.tensor(param)
            fields[f"{param}.addr"] = t.addr + delta
            fields[f"{param}.size"] = max(0, t.size - delta * 8 // t.dtype.bits) if delta > 0 else 0
    return call.case.with_fields(**fields) if fields else call.case


def pointer_problems(call: Call, moved: Mapping[str, int]) -> list[tuple[Rule, str]]:
    """The call's shared tensors whose pointer earlier calls moved before the tensor's start (`POINTER_BEFORE_START`,
    with its message)."""
    return [(POINTER_BEFORE_START, f"earlier PostUpdate calls moved the pointer of tensor {name!r} {-moved[name]} bytes "
                                   f"before its start: call {call.index} reads outside the tensor")
            for param, name in call.shared.items()
            if param in call.case.model.pointer_params and moved.get(name, 0) < 0]


def record_moves(call: Call, case: Case, moved: dict[str, int]) -> None:
    """Add the pointer moves of ``case`` (the call as it ran, `ApiModel.pointer_moves`) to ``moved``."""
    for param, delta in case.model.pointer_moves(case).items():
        name = call.shared.get(param)
        if name is not None and delta:
            moved[name] = moved.get(name, 0) + int(delta)


@dataclass
class Program:
    """A parsed program."""

    product: Product
    calls: list[Call]
    tensors: dict[str, dict[str, Any]]
    origin: str = ""
    base_dir: Path | None = None
    raw: Any = field(default=None, repr=False)


def _call_key_hint(k: Any, call: Mapping[str, Any]) -> str:
    """The hint for an unknown key of a program's call: the program's own key, a nested program, a single case's
    key, or (`misplaced_key_hint`) an argument or tensor given beside ``api``, or a misspelt call key."""
    if k == "product":
        return f" ({k!r} is the program's: put it beside \"calls\", once for every call)"
    if k == "calls":
        return " (a call is one API call: a program's calls are one list, at its top level)"
    if k in CASE_KEYS:
        return f" ({k!r} is a single case's key; a program's call takes {', '.join(CALL_KEYS)})"
    return misplaced_key_hint(k, call, CALL_KEYS)


def parse_program(doc: Any, *, base_dir: Path | None = None, origin: str = "") -> Program:
    """A Program from its JSON document; InputError naming the field (``calls[3].args.hRepeat``)."""
    if not isinstance(doc, dict):
        raise InputError(f"a program must be a JSON object, got {type_name(doc)}")
    for k in doc:
        if k not in PROGRAM_KEYS:
            where = (f" (read as a program, since it has \"calls\": {k!r} belongs in each call)" if k in CALL_KEYS
                     else did_you_mean(k, PROGRAM_KEYS))
            raise InputError(f"unknown key {k!r}{where}", field=str(k)[:60])
    pname = doc.get("product")
    if not isinstance(pname, str):
        raise InputError("missing" if pname is None else f"expected a product name, got {type_name(pname)}",
                         field="product")
    product = read_product(pname, "product")
    shared = doc.get("tensors", {})
    if not isinstance(shared, dict):
        raise InputError(f"expected an object, got {type_name(shared)}", field="tensors")
    check_tensor_names(shared)  # they become file names under `run -o DIR`
    for name, decl in shared.items():
        if not isinstance(decl, dict):
            raise InputError(f"expected an object with position, addr, size; got {type_name(decl)}", field=f"tensors.{name}")
    calls = doc.get("calls")
    if not isinstance(calls, list) or not calls:
        raise InputError("expected a non-empty list of calls" if calls is not None else "missing", field="calls")
    if len(calls) > MAX_CALLS:
        raise InputError(f"{len(calls)} calls; at most {MAX_CALLS}", field="calls")
    out: list[Call] = []
    decls: dict[str, dict[str, Any]] = {}  # the shared tensors named so far, as their calls' cases take them
    for i, call in enumerate(calls):
        where = f"calls[{i}]"
        if not isinstance(call, dict):
            raise InputError(f"a call must be a JSON object, got {type_name(call)}", field=where)
        for k in call:
            if k not in CALL_KEYS:
                raise InputError(f"unknown key {short(k)}{_call_key_hint(k, call)}", field=f"{where}.{str(k)[:60]}")
        tensors = call.get("tensors", {})
        if not isinstance(tensors, dict):
            raise InputError(f"expected an object, got {type_name(tensors)}", field=f"{where}.tensors")
        resolved: dict[str, Any] = {}
        names: dict[str, str] = {}
        for param, ref in tensors.items():
            if isinstance(ref, str):
                if ref not in shared:
                    raise InputError(f"no tensor {ref!r} in the program{did_you_mean(ref, shared)}",
                                     field=f"{where}.tensors.{param}")
                decl = decls.get(ref)
                if decl is None:  # its inline data checked once, shared by every call that names it
                    decl = decls[ref] = dict(shared[ref])
                    if "data" in decl:
                        decl["data"] = shared_data(decl["data"], f"tensors.{ref}.data")
                resolved[param] = dict(decl)
                names[param] = ref
            else:
                resolved[param] = ref
        case_doc: dict[str, Any] = {"api": call.get("api"), "product": pname, "args": call.get("args", {}),
                                    "tensors": resolved}
        dtype = call.get("dtype")
        if dtype is None and doc.get("dtype") is not None:
            # the program's T applies to the calls that take it; a call without a template type (a
            # configuration call such as SetLoadDataRepeatWithStride) keeps its own default
            model = lookup_api(call.get("api"))
            model = overload_for(model, call.get("args")) if model is not None else None
            supported = model.support.get(product.id, ()) if model is not None else ()
            if model is None or doc["dtype"] in supported or len(supported) != 1:
                dtype = doc["dtype"]
        if dtype is not None:
            case_doc["dtype"] = dtype
        if case_doc["api"] is None:
            raise InputError("missing", field=f"{where}.api")
        try:
            case = parse_case(case_doc, base_dir=base_dir, origin=f"{origin}: call {i}")
        except InputError as exc:
            raise InputError(exc.message, field=f"{where}.{exc.field}" if exc.field else where) from None
        out.append(Call(i, case, names))
    return Program(product, out, dict(shared), origin, base_dir, doc)
