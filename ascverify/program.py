"""Programs: sequences of calls over shared tensors, with the state that configuration calls set.

A program file::

    {"product": P, "dtype": T, "tensors": {NAME: {position, addr, size, dtype?, data?}, ...},
     "calls": [{"api": ..., "args": {...}, "tensors": {PARAM: NAME | {inline tensor}}, "dtype"?: T}, ...]}

Each call is a case of its API (the program's product; its dtype or the program's). Some rules are
about order, not values: a model lists them as `rules.order_rule` (the state key an earlier call
must have set), sets state in `ApiModel.apply_state` and reads it in `ApiModel.with_state`
(e.g. the mask of SetVectorMask for a BlockReduceMin with isSetMask=false). `check_program`
reports every violation with its call index; `run_program` executes the calls on one core state.

Running: a shared tensor's contents (given or generated) are loaded once, before the first call
that names it, and then persist from call to call; an inline input tensor is loaded before its
call (like a copy in from global memory); an inline output without data keeps whatever earlier
calls left in those bytes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .case import Case
from .checker import Result, Unchecked, Violation, check_case
from .errors import InputError, did_you_mean
from .products import Product, lookup_product, product_names
from .rules import WARNING, Rule
from .safe_names import check_tensor_names

PROGRAM_KEYS = ("product", "dtype", "tensors", "calls", "name", "comment")


def state_rule(id: str, message: str, source: str, *, params: tuple[str, ...] = (), severity: str = WARNING,
               products: Any = None, notes: tuple[str, ...] = ()) -> Rule:
    """A rule about the state the earlier calls of a program set that is not an ordering rule (a load whose own
    feature map differs from the one SetFmatrix set): the model reports it from `ApiModel.state_warnings` with
    its own message, `check_program` tags it with the call. A single case has no state: `check_case` passes it
    (kind ``state``, no predicate, no data to read)."""
    return Rule(id, tuple(params), None, message, source, severity, None if products is None else frozenset(products),
                None, None, {"kind": "state"}, (), lambda case, ctx: (), tuple(notes), message)
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


@dataclass
class Program:
    """A parsed program."""

    product: Product
    calls: list[Call]
    tensors: dict[str, dict[str, Any]]
    origin: str = ""
    base_dir: Path | None = None
    raw: Any = field(default=None, repr=False)


def _kind(x: Any) -> str:
    from .caseio import _type_name

    return _type_name(x)


def parse_program(doc: Any, *, base_dir: Path | None = None, origin: str = "") -> Program:
    """A Program from its JSON document; InputError naming the field (``calls[3].args.hRepeat``)."""
    from .caseio import parse_case

    if not isinstance(doc, dict):
        raise InputError(f"a program must be a JSON object, got {_kind(doc)}")
    for k in doc:
        if k not in PROGRAM_KEYS:
            raise InputError(f"unknown key {k!r}{did_you_mean(k, PROGRAM_KEYS)}", field=str(k)[:60])
    pname = doc.get("product")
    if not isinstance(pname, str):
        raise InputError("missing" if pname is None else f"expected a product name, got {_kind(pname)}",
                         field="product")
    product = lookup_product(pname)
    if product is None:
        raise InputError(f"unknown product {pname!r}{did_you_mean(pname, product_names())}", field="product")
    shared = doc.get("tensors", {})
    if not isinstance(shared, dict):
        raise InputError(f"expected an object, got {_kind(shared)}", field="tensors")
    check_tensor_names(shared)  # they become file names under `run -o DIR`
    for name, decl in shared.items():
        if not isinstance(decl, dict):
            raise InputError(f"expected an object with position, addr, size; got {_kind(decl)}", field=f"tensors.{name}")
    calls = doc.get("calls")
    if not isinstance(calls, list) or not calls:
        raise InputError("expected a non-empty list of calls" if calls is not None else "missing", field="calls")
    if len(calls) > MAX_CALLS:
        raise InputError(f"{len(calls)} calls; at most {MAX_CALLS}", field="calls")
    out: list[Call] = []
    for i, call in enumerate(calls):
        where = f"calls[{i}]"
        if not isinstance(call, dict):
            raise InputError(f"a call must be a JSON object, got {_kind(call)}", field=where)
        for k in call:
            if k not in CALL_KEYS:
                raise InputError(f"unknown key {k!r}{did_you_mean(k, CALL_KEYS)}", field=f"{where}.{str(k)[:60]}")
        tensors = call.get("tensors", {})
        if not isinstance(tensors, dict):
            raise InputError(f"expected an object, got {_kind(tensors)}", field=f"{where}.tensors")
        resolved: dict[str, Any] = {}
        names: dict[str, str] = {}
        for param, ref in tensors.items():
            if isinstance(ref, str):
                if ref not in shared:
                    raise InputError(f"no tensor {ref!r} in the program{did_you_mean(ref, shared)}",
                                     field=f"{where}.tensors.{param}")
                resolved[param] = dict(shared[ref])
                names[param] = ref
            else:
                resolved[param] = ref
        case_doc: dict[str, Any] = {"api": call.get("api"), "product": pname, "args": call.get("args", {}),
                                    "tensors": resolved}
        dtype = call.get("dtype")
        if dtype is None and doc.get("dtype") is not None:
            # the program's T applies to the calls that take it; a call without a template type (a
            # configuration call such as SetLoadDataRepeatWithStride) keeps its own default
            from .registry import lookup_api

            model = lookup_api(call.get("api"))
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


def check_program(program: Program, *, file: str = "", index: int = 0) -> Result:
    """Every rule each call breaks (with the state the earlier calls set), each tagged with its call."""
    result = Result(file, index, None, program=program)
    state: dict[str, Any] = {}
    for call in program.calls:
        model = call.case.model
        effective = model.with_state(call.case, state)
        verdict = check_case(effective)
        if verdict.error is not None:
            raise verdict.error
        for v in verdict.violations:
            result.violations.append(Violation(v.rule, v.message, call.index))
        for v in verdict.warnings:
            result.warnings.append(Violation(v.rule, v.message, call.index))
        for u in verdict.unchecked:
            rule = model.rule_by_id.get(u.rule_id)
            if rule is not None and rule.domain.get("kind") == "order":
                continue  # decided below, with the program's state
            result.unchecked.append(Unchecked(u.rule_id, u.reason, u.source, call.index))
        for rule in model.rules_for(call.case.product):
            if rule.domain.get("kind") != "order":
                continue
            if rule.when is not None and not rule.when(call.case.values(), call.case.ctx):
                continue
            if rule.domain["key"] not in state:
                target = result.warnings if rule.severity == "warning" else result.violations
                target.append(Violation(rule, rule.message, call.index))
        for w in model.state_warnings(call.case, state):
            result.warnings.append(Violation(w[0], w[1], call.index))
        model.apply_state(call.case, state)
    return result


@dataclass
class ProgramRun:
    """What running a program did: each call's RunResult, and the memory after the last call."""

    program: Program
    runs: list[Any]
    memory: Any

    @property
    def faults(self) -> list[Any]:
        return [f for r in self.runs for f in r.faults]


def run_program(program: Program, *, seed: int = 0, strict: bool = True) -> ProgramRun:
    """Execute the calls in order on one core state (buffers and special registers persist)."""
    from .core.memory import Memory
    from .core.run import RunResult, fits, load_tensor, tensors_after
    from .core.memory import Trace

    rng = np.random.default_rng(seed)
    memory = Memory.for_product(program.product)
    filled: set[str] = set()  # shared tensors loaded so far (once, before their first call)
    runs = []
    state: dict[str, Any] = {}
    for call in program.calls:
        case = call.case.model.with_state(call.case, state)
        for decl in case.model.tensors:
            name = call.shared.get(decl.name)
            if name in filled or not fits(case, decl.name, memory):
                continue
            if name is not None:
                filled.add(name)
            elif decl.role == "out" and case.data(decl.name) is None:
                continue  # an inline output without data keeps what earlier calls left there
            generate = not (decl.role == "tmp" or (decl.role == "out" and name is not None))
            load_tensor(case, decl.name, memory, rng, generate=generate)
        trace = Trace(memory, strict=strict)
        case.model.execute(case, trace)
        res = RunResult(case, memory, trace, {})
        res.tensors = tensors_after(case, memory)
        runs.append(res)
        call.case.model.apply_state(call.case, state)
    return ProgramRun(program, runs, memory)
