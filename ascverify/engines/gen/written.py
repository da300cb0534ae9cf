"""What a case file can hold, for the solver and for the cases generation writes.

A generated case is written as a case file (`Case.to_json`) and read back by `check` (`parse_case`). The file
holds less than the model's fields: an optional argument left out holds its default, an AddrReg holds as many
levels as its lists have (up to `MAX_LEVELS_LIST`; the entries past them are 0, those past ``max_levels`` are not
fields and are written as 0), a struct left out holds its members' defaults, a tensor left out its defaults, a
bitwise mask at most the model's words, and every integer lies within [-2^63, 2^64-1] (`ABS_MIN`, `ABS_MAX`: the
reader refuses anything else). `file_terms` says this to the solver, so that the cases it finds are cases a file
holds; `case_json` is the file of a case and `written_form` the case as that file holds it, read back.
"""

from __future__ import annotations

from typing import Any, Mapping

import z3

from ...cases.case import Case
from ...cases.parse import parse_case
from ...spec.model import ApiModel
from ...spec.params import ABS_MAX, ABS_MIN, MAX_LEVELS_LIST, Arg, LevelsArg, MaskArg, StructArg


def holdable(value: int) -> bool:
    """Whether a case file can hold the integer ``value`` (the reader refuses any other)."""
    return ABS_MIN <= value <= ABS_MAX


def representable(vars: Mapping[str, z3.ExprRef]) -> list[z3.BoolRef]:
    """Every integer field within the integers a case file can hold ([-2^63, 2^64-1]: `check` reads no other)."""
    return [z3.And(v >= ABS_MIN, v <= ABS_MAX) for v in vars.values() if z3.is_int(v)]


def _at_default(model: ApiModel, vars: Mapping[str, z3.ExprRef], names: list[str]) -> list[z3.BoolRef]:
    """Each field of ``names`` at its default value."""
    out = []
    for name in names:
        var, default = vars[name], model.field_by_name[name].default
        out.append(var == z3.BoolVal(bool(default)) if z3.is_bool(var) else var == int(default))
    return out


def _levels_shape(model: ApiModel, vars: Mapping[str, z3.ExprRef], a: LevelsArg) -> list[z3.BoolRef]:
    """An AddrReg's file: at most ``max_levels`` levels, the entries past them 0, nothing when left out."""
    n = a.name
    levels = vars[f"{n}.levels"]
    out: list[z3.BoolRef] = [levels >= 0, levels <= MAX_LEVELS_LIST]
    for _, stem, _ in a.lists:
        out += [z3.Implies(levels <= k, vars[f"{n}.{stem}{k}"] == 0) for k in range(a.max_levels)]
    if a.optional:
        out.append(z3.Implies(z3.Not(vars[f"{n}.present"]), levels == 0))
    return out


def _optional_shape(model: ApiModel, vars: Mapping[str, z3.ExprRef], param: str, present: str) -> list[z3.BoolRef]:
    """A parameter left out (its Bool field ``present`` false) holds its other fields at their defaults."""
    others = [f.name for f in model.fields if f.param == param and f.name != present]
    return [z3.Implies(z3.Not(vars[present]), z3.And(*_at_default(model, vars, others)))] if others else []


def _arg_shape(model: ApiModel, vars: Mapping[str, z3.ExprRef], a: Any) -> list[z3.BoolRef]:
    """What the file of argument ``a`` holds (see the module docstring)."""
    if isinstance(a, MaskArg):
        return [vars[f"{a.name}.nwords"] <= model.mask_words]
    if isinstance(a, LevelsArg):
        return _levels_shape(model, vars, a)
    if isinstance(a, (StructArg, Arg)) and getattr(a, "optional", False):
        return _optional_shape(model, vars, a.name, f"{a.name}.present")
    return []


def file_terms(model: ApiModel, vars: Mapping[str, z3.ExprRef]) -> list[z3.BoolRef]:
    """The constraints a case file puts on the model's fields (the solver's ``vars``): a case that meets them is
    written and read back unchanged."""
    out = representable(vars)
    for a in model.args:
        out += _arg_shape(model, vars, a)
    for t in model.tensors:
        if t.optional:
            out += _optional_shape(model, vars, t.name, f"{t.name}.present")
    return out


def case_json(case: Case) -> dict[str, Any]:
    """The case's file: `Case.to_json`, with an AddrReg of more levels than the model's fields hold given all of them
    (the entries past ``max_levels`` 0), so that a case of five levels is written as one (`Case.to_json` writes the
    first ``max_levels``, a case the level rule does not refuse)."""
    doc = case.to_json()
    for a in case.model.args:
        lists = doc["args"].get(a.name) if isinstance(a, LevelsArg) else None
        if isinstance(lists, dict):
            levels = int(case.env[f"{a.name}.levels"])
            for key in a.keys:
                lists[key] = list(lists[key]) + [0] * (levels - len(lists[key]))
    return doc


def written_form(case: Case) -> Case:
    """The case as its file holds it: written (`case_json`) and read back as `check` reads it (InputError when the
    reader refuses the file)."""
    return parse_case(case_json(case), origin=case.origin)
