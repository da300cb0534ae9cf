"""The JSON Schema of case files, generated from the registered models.

`case_schema()` builds a JSON Schema (draft 2020-12) for one case, a list of cases (a JSON Lines
file is one case per line) or a program (shared tensors and calls). One subschema per API is selected by
the ``api`` name (any accepted name or alias) and lists that API's arguments and tensors; a program's
calls take their API's arguments. `validate(doc)` checks a parsed
document against it and returns one message per problem, each naming the JSON path.

`ascverify.cases.parse` stays the authority (and the fast path of ``check``); the schema is published
for editors and other tools, and the tests cross-check the two. Both take the arguments in any of an
API's spellings (`ApiModel.arg_spellings`, one throughout), the tensors under their other names
(`ApiModel.tensor_aliases`) and a mask's placeholder. Where they differ the schema is the stricter:
it lists API and product names in their canonical spelling (ascverify also accepts any letter case),
types ``name`` and ``comment`` as strings. It takes the other forms a model's ``normalize_args`` reads where
the model describes them (`ApiModel.argument_forms`: Load3DBitMode's LoadData3DParamsV2 members, packed words,
pyasc keywords; `ApiModel.flat_struct`: SetFmatrix's members directly in ``args``), each key with its JSON type:
what ties keys together there (the page's names of one form, a feature map given once) is the reader's to check.
"""

from __future__ import annotations

import re

from functools import lru_cache
from typing import Any, Mapping, Sequence

import orjson

from ..spec.citations import cite
from ..spec.dtypes import dtype_names
from ..spec.model import ApiModel, ArgumentForm
from ..spec.params import ABS_MAX, ABS_MIN, MAX_LEVELS_LIST, BoolType, EnumType, IntType, LevelsArg, MaskArg, StructArg
from ..spec.products import POSITIONS, PRODUCTS, product_names
from ..spec.registers import FILES, GEOMETRIES
from .repeats import ByIdentity
from ..spec.registry import apis
from . import parse, program

DIALECT = "https://json-schema.org/draft/2020-12/schema"
SCHEMA_ID = "urn:ascverify:case-file"

_INTEGER_NOTE = (f"an integer in [{ABS_MIN}, {ABS_MAX}] written without fraction or exponent (1.0 is refused); "
                 "values outside the parameter's own C type are read, then reported as rule violations")


def _integer(description: str) -> dict[str, Any]:
    return {"type": "integer", "minimum": ABS_MIN, "maximum": ABS_MAX, "description": description}


def _arg_schema(model: ApiModel, decl: Any) -> dict[str, Any]:
    doc = getattr(decl, "doc", "") or ""
    source = getattr(decl, "source", "") or ""
    if isinstance(decl, MaskArg):
        word = {"$ref": "#/$defs/integer"}
        forms: list[dict[str, Any]] = [word, {"type": "array", "items": word, "maxItems": parse.MAX_MASK_LIST}]
        placeholder = ""
        if decl.placeholder:  # the mask an earlier call set (`parse`: the ``.placeholder`` field)
            forms.append({"const": decl.placeholder})
            flag = f" (with {decl.placeholder_flag} false)" if decl.placeholder_flag else ""
            placeholder = f"; or the string {decl.placeholder!r}{flag}: the mask an earlier call set"
        return {
            "description": (f"{doc or 'vector mask'}; contiguous mode: an integer (the number of leading "
                            f"elements), bitwise mode: a list of 64-bit words, mask[0] holding the low 64 elements"
                            f"{placeholder} ({source})"),
            "anyOf": forms,
        }
    if isinstance(decl, LevelsArg):
        keys = list(decl.keys)
        return {
            "type": "object", "additionalProperties": False, "required": keys,
            "description": (f"{doc} ({source}); lists of integers with one entry per level "
                            f"(1 to {decl.max_levels}; {' and '.join(keys)} of equal length)"
                            f"{'; optional' if decl.optional else ''}"),
            "properties": {k: {"type": "array", "items": {"$ref": "#/$defs/integer"}, "maxItems": MAX_LEVELS_LIST,
                               "description": f"{t.name} values, level 0 first"} for k, _, t in decl.lists},
        }
    if isinstance(decl, StructArg):
        props: dict[str, Any] = {}
        for m in decl.members:
            one = _arg_schema(model, m)
            n = decl.list_length(m.name)
            props[m.name] = one if n is None else {"type": "array", "items": one, "minItems": n, "maxItems": n,
                                                   "description": f"{n} values: {one.get('description', '')}"}
        out = {"type": "object", "additionalProperties": False, "properties": props,
               "description": f"{doc} ({source}){'; optional' if decl.optional else ''}"}
        required = [m.name for m in decl.members if m.default is None]
        if required:
            out["required"] = required
        return out
    t = decl.type
    if isinstance(t, BoolType):
        return {"type": "boolean", "description": f"{doc} ({source})".strip()}
    if isinstance(t, EnumType):
        return _enum_schema(t, f"{t.name}: {doc} ({source})".strip())
    if isinstance(t, IntType):
        return _integer(f"{t.name} [{t.lo}, {t.hi}]: {doc} ({source}); {_INTEGER_NOTE}")
    raise TypeError(f"{model.name}: no schema for the type of argument {decl.name!r}: {t!r}")  # pragma: no cover


def _enum_schema(t: EnumType, description: str) -> dict[str, Any]:
    """A choice of ``t``, bare or qualified by the enum's name as code spells it (``MaskMode::COUNTER``,
    ``AscendC::Reg::LoadDist::DIST_NORM``, pyasc's ``asc.MaskMode.COUNTER``), as `EnumType.lookup` reads it."""
    names = "|".join(re.escape(c) for c in t.choices)
    qualified = rf"^(?:[A-Za-z_][A-Za-z0-9_]*(?:::|\.))*{re.escape(t.name)}(?:::|\.)(?:{names})$"
    return {"anyOf": [{"enum": list(t.choices)}, {"type": "string", "pattern": qualified}],
            "description": description}


def _tensor_schema(model: ApiModel, decl: Any) -> dict[str, Any]:
    dtype = decl.dtype or f"T (the case's dtype, default {model.default_dtype})"
    return _tensor_object(
        f"{decl.role} tensor, element type {dtype}, positions {', '.join(decl.positions)}"
        f"{' (optional)' if decl.optional else ''}. {decl.doc} ({cite(decl.source)})".strip(),
        f"TPosition (default {decl.positions[0]}); allowed here: {', '.join(decl.positions)}",
        f"element type (default {dtype})")


def _tensor_object(description: str, position: str, dtype: str) -> dict[str, Any]:
    """A tensor: position, addr, size, and optionally its element type and data."""
    return {
        "type": "object",
        "description": description,
        "additionalProperties": False,
        "required": ["addr", "size"],
        "properties": {
            "position": {"enum": list(POSITIONS), "description": position},
            "addr": {"$ref": "#/$defs/integer", "description": "byte offset inside the physical buffer of the position"},
            "size": {"$ref": "#/$defs/integer", "description": "number of elements (like LocalTensor::GetSize())"},
            "dtype": {"$ref": "#/$defs/dtype", "description": dtype},
            "data": {"$ref": "#/$defs/data"},
        },
    }


def _named_object(props: dict[str, Any], names: Mapping[str, Sequence[str]], required: Sequence[str],
                  together: Mapping[str, set[str]]) -> dict[str, Any]:
    """An object whose members may go by several names: ``props`` under every name; ``names``: each member's names
    (its own first); ``required``: the members that must be given (under one of their names); ``together``: the
    names a name may go with (none of its member's other names: a member is given once)."""
    out: dict[str, Any] = {"type": "object", "additionalProperties": False, "properties": props}
    plain = [n for n in required if len(names[n]) == 1]
    spelled = [n for n in required if len(names[n]) > 1]
    out["required"] = plain
    if spelled:
        out["allOf"] = [{"anyOf": [{"required": [k]} for k in names[n]]} for n in spelled]
    if together:
        out["dependentSchemas"] = {k: {"propertyNames": {"enum": sorted(ok)}} for k, ok in together.items()}
    return out


def _args_schema(model: ApiModel) -> dict[str, Any]:
    """The ``args`` object: the arguments under the names of one spelling throughout (`ApiModel.arg_spellings`:
    Ascend C's or pyasc's), each argument given once, as `parse` reads them."""
    labels: dict[str, Mapping[str, str]] = {model.canonical_spelling: {}, **model.arg_spellings}
    spelt = {label: {a.name: renames.get(a.name, a.name) for a in model.args} for label, renames in labels.items()}
    names = {a.name: list(dict.fromkeys(spelt[label][a.name] for label in labels)) for a in model.args}
    props: dict[str, Any] = {a.name: _arg_schema(model, a) for a in model.args}  # the own names first
    for a in model.args:
        for k in names[a.name][1:]:
            one = _arg_schema(model, a)
            users = " and ".join(label for label in labels if spelt[label][a.name] == k)
            one["description"] = f"{a.name} in the {users} spelling: {one.get('description', '')}"
            props[k] = one
    together: dict[str, set[str]] = {}
    for a in model.args:
        for k in names[a.name]:
            users = [label for label in labels if spelt[label][a.name] == k]
            if len(users) < len(labels):  # a name that is not every spelling's: the others of its spellings only
                ok = {n for label in users for n in spelt[label].values()}
                together[k] = ok - (set(names[a.name]) - {k})
    out = _named_object(props, names, _required_args(model), together)
    forms = [out]
    if model.flat_struct:  # the struct's members directly in args, instead of args = {struct: {...}}
        struct = next(a for a in model.args if a.name == model.flat_struct)
        flat = dict(_arg_schema(model, struct), description=f"{struct.name}'s members given flat in args")
        flat["properties"] = {**flat["properties"],
                              **{a.name: _arg_schema(model, a) for a in model.args if a is not struct}}
        forms.append(flat)
    forms += [_form_schema(model, form) for form in model.argument_forms]
    return out if len(forms) == 1 else {"anyOf": forms}


def _form_schema(model: ApiModel, form: ArgumentForm) -> dict[str, Any]:
    """``args`` in another form `normalize_args` reads (`ApiModel.argument_forms`)."""
    own = {a.name: a for a in model.args}
    props: dict[str, Any] = {}
    for key, kind in form.keys.items():
        if kind == "arg":
            props[key] = _arg_schema(model, own[key])
        elif kind.startswith("integers:"):
            n = int(kind.split(":")[1])
            props[key] = {"type": "array", "items": {"$ref": "#/$defs/integer"}, "minItems": n, "maxItems": n}
        else:
            props[key] = {"$ref": "#/$defs/integer"} if kind == "integer" else {"type": kind}
    out = {"type": "object", "additionalProperties": False, "properties": props,
           "description": f"the arguments as {form.label}s"}
    if form.required:
        out["required"] = list(form.required)
    return out


def _required_args(model: ApiModel) -> list[str]:
    """The arguments a case must give: no default, not optional (a required struct whose members all have defaults
    is filled in by the model's `normalize_args`: LoadDataWithStride's defaultConfig)."""
    return [a.name for a in model.args if getattr(a, "default", None) is None and not getattr(a, "optional", False)
            and not (isinstance(a, StructArg) and all(m.default is not None for m in a.members))]


def _tensors_schema(model: ApiModel) -> dict[str, Any]:
    """The ``tensors`` object: each tensor under its name or another (`ApiModel.tensor_aliases`), not both."""
    names = {t.name: [t.name, *(k for k, v in model.tensor_aliases.items() if v == t.name)] for t in model.tensors}
    props: dict[str, Any] = {t.name: _tensor_schema(model, t) for t in model.tensors}  # the own names first
    for t in model.tensors:
        for k in names[t.name][1:]:
            one = _tensor_schema(model, t)
            one["description"] = f"{t.name} under another name: {one['description']}"
            props[k] = one
    together = {k: set(props) - (set(names[t.name]) - {k}) for t in model.tensors if len(names[t.name]) > 1
                for k in names[t.name]}
    return _named_object(props, names, [t.name for t in model.tensors if not t.optional], together)


def _api_schema(model: ApiModel) -> dict[str, Any]:
    required_args = _required_args(model)
    args = _args_schema(model)
    tensors = _tensors_schema(model)
    support = "; ".join(f"{p}: {', '.join(ts)}" for p, ts in model.support.items())
    out: dict[str, Any] = {
        "description": f"{model.name} ({model.seed}). {model.summary} Supported: {support}.".replace("  ", " "),
        "properties": {
            "dtype": {"$ref": "#/$defs/dtype", "description": f"T, default {model.default_dtype}"},
            "args": args,
            "tensors": tensors,
        },
    }
    if required_args:
        out["required"] = ["args"]
    if model.tensors:  # an API without tensor operands may leave "tensors" out
        out["required"] = out.get("required", []) + ["tensors"]
    return out


def _registers_schema() -> dict[str, Any]:
    """The ``registers`` object: initial Reg API register contents (`ascverify.core.registers`)."""
    spec = next(iter(GEOMETRIES.values()))
    props: dict[str, Any] = {}
    for f in spec.files:
        index = "^(" + "|".join(str(i) for i in range(f.count)) + ")$"
        if f.json == "uint32":
            value: dict[str, Any] = {"type": "integer", "minimum": 0, "maximum": 2**32 - 1,
                                     "description": f"the {f.title}'s offset (unsigned 32-bit)"}
        else:
            value = {"anyOf": [
                {"type": "array", "items": {"type": "integer", "minimum": 0, "maximum": 255},
                 "minItems": f.nbytes, "maxItems": f.nbytes,
                 "description": f"the {f.title}'s {f.nbytes} bytes, byte 0 first (mask bit i = bit i%8 of byte i//8)"},
                {"type": "object", "additionalProperties": False, "required": ["dtype", "data"],
                 "description": f"the {f.title} as {f.nbytes}/sizeof(dtype) elements, like a tensor's data",
                 "properties": {"dtype": {"$ref": "#/$defs/dtype"}, "data": {"$ref": "#/$defs/data"}}}]}
        props[f.name] = {"type": "object", "additionalProperties": False, "patternProperties": {index: value},
                         "description": f"{f.title} index (0..{f.count - 1}) -> contents"}
    assert tuple(props) == FILES
    return {"type": "object", "additionalProperties": False, "properties": props,
            "description": ("initial contents of Reg API registers (products with a register file: "
                            f"{', '.join(GEOMETRIES)}); registers not given are uninitialized, except those the call "
                            "reads, which a run fills from its seed")}


def _registers_product() -> dict[str, Any]:
    """A case with ``registers`` is on a product that has a register file."""
    names = [n for p in PRODUCTS if p.id in GEOMETRIES for n in (p.id, *p.aliases)]
    return {"if": {"required": ["registers"]}, "then": {"properties": {"product": {"enum": names}}}}


def _names(model: ApiModel) -> list[str]:
    return list(dict.fromkeys((model.name, *model.aliases)))


def case_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of a case file document: one case or a list of cases."""
    models = apis()
    all_names = [n for m in models for n in _names(m)]
    defs: dict[str, Any] = {
        "integer": _integer(_INTEGER_NOTE),
        "dtype": {"enum": list(dtype_names()), "description": "element type name (canonical names and aliases)"},
        "product": {"enum": list(product_names()), "description": "product id or alias (see `ascverify products`)"},
        "data": {
            "description": ("tensor contents: a list of numbers, or a path (relative to the case file) to a .npy "
                            "file or a raw little-endian .bin file"),
            "anyOf": [{"type": "array", "items": {"type": "number"}, "maxItems": parse.MAX_INLINE_DATA},
                      {"type": "string", "minLength": 1}],
        },
    }
    dispatch = []
    for m in models:
        key = f"api:{m.name}"
        defs[key] = _api_schema(m)
        dispatch += _dispatch(m, lambda name: {"$ref": f"#/$defs/api:{name}"})
    defs["case"] = {
        "type": "object",
        "description": "one call of one API on one product",
        "additionalProperties": False,
        "required": ["api", "product"],
        "properties": {
            "api": {"enum": all_names, "description": "API name (documented name or pyasc name)"},
            "product": {"$ref": "#/$defs/product"},
            "dtype": {"$ref": "#/$defs/dtype"},
            "args": {"type": "object"},
            "tensors": {"type": "object", "description": "the tensor operands (required by every API that has some)"},
            "name": {"type": "string", "description": "a label for the case"},
            "comment": {"type": "string"},
            "expect": {"description": "free-form; not read by check"},
            "registers": {"$ref": "#/$defs/registers"},
        },
        "allOf": dispatch + [_registers_product()],
    }
    defs["registers"] = _registers_schema()
    assert set(defs["case"]["properties"]) == set(parse.CASE_KEYS), "schema and parse_case disagree on case keys"
    defs["program"] = _program_schema(models, all_names)
    return {
        "$schema": DIALECT,
        "$id": SCHEMA_ID,
        "title": "ascverify case file",
        "description": ("One case, or a list of cases (a JSON Lines file holds one case per line), or a program (an "
                        f"object with calls). Integers are limited to [{ABS_MIN}, {ABS_MAX}]; ascverify reads API and "
                        "product names in any letter case."),
        # a program is the object with calls (`program.is_program`); anything else is a case or a list of them
        "if": {"type": "object", "required": ["calls"]},
        "then": {"$ref": "#/$defs/program"},
        "else": {"anyOf": [{"$ref": "#/$defs/case"}, {"type": "array", "items": {"$ref": "#/$defs/case"}}]},
        "$defs": defs,
    }


def _dispatch(model: ApiModel, then: Any) -> list[dict[str, Any]]:
    """The schema's branches for the calls named like ``model``: its own (``then(model.name)``), and for each other
    overload (`ApiModel.overloads`: a call whose args give one of its arguments) that overload's."""
    api = {"api": {"enum": _names(model)}}
    by_target: dict[str, list[str]] = {}
    for arg, target in model.overloads.items():
        by_target.setdefault(target, []).append(arg)
    if not by_target:
        return [{"if": {"properties": api, "required": ["api"]}, "then": then(model.name)}]
    overloaded = {"anyOf": [{"required": [a]} for args in by_target.values() for a in args]}
    out = [{"if": {"properties": {**api, "args": {"not": overloaded}}, "required": ["api"]}, "then": then(model.name)}]
    earlier: list[str] = []  # the arguments of the overloads before this one (`registry.overload_for`'s order)
    for target, args in by_target.items():
        given = {"anyOf": [{"required": [a]} for a in args]}
        cond = {"allOf": [given, {"not": {"anyOf": [{"required": [a]} for a in earlier]}}]} if earlier else given
        out.append({"if": {"properties": {**api, "args": cond}, "required": ["api", "args"]},
                    "then": then(target)})
        earlier += args
    return out


def _program_schema(models: Sequence[ApiModel], all_names: list[str]) -> dict[str, Any]:
    """A program (`ascverify.cases.program`): shared tensors and calls that name them; each call's ``args`` are
    its API's (as in a case)."""
    dispatch = [branch for m in models for branch in _dispatch(
        m, lambda name: {"properties": {"args": {"$ref": f"#/$defs/api:{name}/properties/args"}}})]
    call = {
        "type": "object",
        "description": "one call: an API, its arguments, its tensor operands by the program's names (or inline)",
        "additionalProperties": False,
        "required": ["api"],
        "properties": {
            "api": {"enum": all_names, "description": "API name (documented name or pyasc name)"},
            "args": {"type": "object"},
            "tensors": {"type": "object", "additionalProperties": {"anyOf": [
                {"type": "string", "description": "the name of one of the program's tensors"},
                _tensor_object("a tensor of this call only", "TPosition", "element type (default T)")]}},
            "dtype": {"$ref": "#/$defs/dtype", "description": "T of this call (default: the program's)"},
            "name": {"type": "string"},
            "comment": {"type": "string"},
        },
        "allOf": dispatch,
    }
    out = {
        "type": "object",
        "description": "a program: calls run one after another on one core, over shared tensors",
        "additionalProperties": False,
        "required": ["product", "calls"],
        "properties": {
            "product": {"$ref": "#/$defs/product"},
            "dtype": {"$ref": "#/$defs/dtype", "description": "T of the calls that take one (default: each API's)"},
            "tensors": {"type": "object", "description": "the tensors the calls share, by name",
                        "additionalProperties": _tensor_object("a shared tensor", "TPosition", "element type (default T)")},
            "calls": {"type": "array", "items": call, "minItems": 1, "maxItems": program.MAX_CALLS},
            "name": {"type": "string"},
            "comment": {"type": "string"},
        },
    }
    assert set(out["properties"]) == set(program.PROGRAM_KEYS), "schema and parse_program disagree on program keys"
    assert set(call["properties"]) == set(program.CALL_KEYS), "schema and parse_program disagree on call keys"
    return out


@lru_cache(maxsize=1)
def _validator() -> Any:
    from jsonschema import Draft202012Validator, validators

    # JSON Schema counts 1.0 as an integer; ascverify does not (nor booleans, like JSON Schema).
    checker = Draft202012Validator.TYPE_CHECKER.redefine(
        "integer", lambda _checker, x: isinstance(x, int) and not isinstance(x, bool))
    cls = validators.extend(Draft202012Validator, type_checker=checker)
    schema = case_schema()
    Draft202012Validator.check_schema(schema)
    return cls(schema)


def _short(text: str, limit: int = 200) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _messages(error: Any) -> list[tuple[str, str]]:
    """(JSON path, message) pairs for an error; an ``anyOf`` is explained by the branch that fits the value.

    ``{"mask": [1, "a"]}`` reads ``$.args.mask[1]: 'a' is not of type 'integer'`` rather than
    "not valid under any of the given schemas"; a value no branch takes reads "is not of type 'integer' or 'array'".
    """
    if error.validator != "anyOf" or not error.context:
        return [(error.json_path, error.message)]
    branches: dict[Any, list[Any]] = {}
    for e in error.context:
        branches.setdefault(e.relative_schema_path[0] if e.relative_schema_path else None, []).append(e)
    wrong_type = {k: [e for e in errs if e.validator == "type" and e.json_path == error.json_path]
                  for k, errs in branches.items()}
    fitting = [errs for k, errs in branches.items() if not wrong_type[k]]
    if len(fitting) > 1:  # several forms of one object (Load3DBitMode's args): the one whose keys it uses
        keyed = [errs for errs in fitting
                 if not any(e.validator in ("additionalProperties", "required") and e.json_path == error.json_path
                            for e in errs)]
        fitting = keyed or fitting
    if len(fitting) == 1:
        return [m for e in fitting[0] for m in _messages(e)]
    enums = [e for errs in fitting for e in errs if e.validator == "enum" and e.json_path == error.json_path]
    if enums:  # an enum's name, bare or qualified (`_enum_schema`): the choices say it best
        return [(error.json_path, enums[0].message)]
    if not fitting:
        types = list(dict.fromkeys(repr(e.validator_value) for errs in wrong_type.values() for e in errs))
        return [(error.json_path, f"{error.instance!r} is not of type {' or '.join(types)}")]
    return [(error.json_path, error.message)]


def validate(doc: Any) -> list[str]:
    """Problems of a parsed case-file document, one ``$.json.path: message`` each (empty when valid)."""
    v = _validator()
    out = [f"{path}: {_short(msg)}" for error in v.iter_errors(doc) for path, msg in _messages(error)]
    return sorted(dict.fromkeys(out))


#: Documents `RepeatedValidation` remembers at once (then forgets all: memory stays flat) ...
VALIDATED_MOST = 8192
#: ... each at most this long as JSON text (a repeated line is at most `repeats.MOST_LINE_BYTES` long).
VALIDATED_MOST_BYTES = 2048


class RepeatedValidation:
    """`validate` for the documents of one file, where a repeated line gives the same document object
    (`caseio.read_cases` with ``repeats``): such a document is validated once."""

    __slots__ = ("_done",)

    def __init__(self) -> None:
        self._done = ByIdentity(VALIDATED_MOST)  # a document -> its problems

    def __call__(self, doc: Any) -> list[str]:
        got = self._done.get(doc)
        if got is not None:
            return got
        problems = validate(doc)
        try:  # about a thousandth of what validating it cost
            small = len(orjson.dumps(doc)) <= VALIDATED_MOST_BYTES
        except (orjson.JSONEncodeError, TypeError):
            small = False
        if small:
            self._done.put(doc, problems)
        return problems
