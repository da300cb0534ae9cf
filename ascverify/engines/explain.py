"""Why a case is invalid, and the nearest valid case: minimal conflicts and repairs from the solver.

*Explain.* For each error rule ``r`` a case breaks, a conflict is a pair (values, rules): a set of the
case's field values and a set of rules, ``r`` among them, that cannot hold together, minimal in both
(dropping any value or any rule makes them satisfiable). The other rules of a conflict are rules
the case *satisfies*; so the conflict says "with these values, ``r`` cannot hold unless one of the
other rules breaks": changing at least one of the values is necessary to satisfy ``r`` while
staying legal otherwise. The values are minimized first (with every satisfied rule in force), then
the rules (STYLE.md 9: one indicator literal per rule and per value, then deletion-based shrinking
of the unsat core). A conflict without values means ``r`` cannot hold in the context at all (e.g.
an API the product does not support).

*Fix.* The nearest valid case: fewest changed fields, then the smallest sum of absolute changes,
with Z3's optimizer (soft constraints ``field == old value``, then a distance objective).
Fields held with ``--keep`` are hard constraints; when no valid case keeps them, the minimal set of
kept values and rules that conflict is reported.

Rules on tensor contents are outside the solver: they are listed, not explained.

*Undecided.* Every query has a timeout (and commands may set an overall time budget,
`ascverify.engines.interrupts.time_budget`). A query the solver gives up on never becomes an answer: a broken
rule whose conflict cannot be found is *undecided* (`Conflict.undecided`), and a repair the solver
cannot find or rule out is ``Repair.status == "undecided"``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Sequence

import z3

from ..cases.case import Case
from ..cases.pointers import json_pointer
from ..checking.checker import Violation, check_case
from ..spec.errors import InputError, did_you_mean
from ..spec.model import ApiModel
from ..spec.params import EnumType
from ..spec.rules import Rule
from . import interrupts
from .solver import Fix, Space, Undecided

#: Milliseconds one solver query of an explanation or repair may take.
QUERY_TIMEOUT_MS = 5_000


# -- helpers shared with gen and lint ---------------------------------------------------------------------------------

def value_term(var: z3.ExprRef, value: Any) -> z3.BoolRef:
    """``var == value`` for a Bool or Int constant."""
    return var == (z3.BoolVal(bool(value)) if z3.is_bool(var) else z3.IntVal(int(value)))


def check(s: z3.Solver, lits: Iterable[z3.BoolRef] = ()) -> str:
    """'sat', 'unsat' or 'unknown' (timeout, incomplete theory or the time budget spent); raises
    `ascverify.engines.interrupts.Interrupted` on Ctrl-C or SIGTERM (see `ascverify.engines.interrupts.decide`)."""
    return interrupts.decide(s, list(lits))


def core_names(s: z3.Solver) -> set[str]:
    return {str(c) for c in s.unsat_core()}


def space_for(case_or_model: Case | ApiModel, ctx: Any = None, *, timeout_ms: int = QUERY_TIMEOUT_MS,
              include_warnings: bool = False) -> Space:
    """A Space for a case's (or a model's) context with a per-query timeout. Its no-op warnings are held (a repair
    or a core does not make the call a no-op to get out of an error) but those the case itself draws."""
    if isinstance(case_or_model, Case):
        return Space(case_or_model.model, case_or_model.ctx, timeout_ms=timeout_ms, include_warnings=include_warnings,
                     leave_out=own_noops(case_or_model))
    return Space(case_or_model, ctx, timeout_ms=timeout_ms, include_warnings=include_warnings)


def own_noops(case: Case) -> list[str]:
    """The no-op warnings (`Rule.noop`) the case draws: a case that is a no-op is explained and repaired as one."""
    noops = {r.id for r in case.model.rules if r.noop}
    return [w.id for w in check_case(case).warnings if w.id in noops] if noops else []


def field_display(model: ApiModel, name: str, value: Any) -> str:
    """``name=value`` as a case file spells the value (positions by name, bools lowercase)."""
    f = model.field_by_name.get(name)
    if f is not None and isinstance(f.type, EnumType):
        v = int(value)
        shown = f.type.choices[v] if 0 <= v < len(f.type.choices) else str(v)
    elif isinstance(value, bool):
        shown = "true" if value else "false"
    else:
        shown = str(value)
    return f"{name}={shown}"


def value_text(value: Any) -> str:
    """A value as a case file writes it: true/false, numbers, names, lists and objects in JSON ("absent": None)."""
    if value is None:
        return "absent"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple, dict)):
        return json.dumps(value, ensure_ascii=False, default=str)
    return str(value)


def spelled_params(model: ApiModel, raw: Any) -> dict[str, str]:
    """Each parameter (argument or tensor) of ``model`` -> the name the case file ``raw`` gives it (pyasc names stay
    pyasc names); parameters the case leaves out keep their documented names."""
    out: dict[str, str] = {}
    if not isinstance(raw, Mapping):
        return out
    args = raw.get("args")
    for k in args if isinstance(args, Mapping) else ():
        canon = model.arg_names.get(k, (None,))[0]
        if canon is not None:
            out.setdefault(canon, k)
    tensors = raw.get("tensors")
    normalize = getattr(model, "normalize_tensors", None)
    for k in tensors if isinstance(tensors, Mapping) else ():
        try:
            canon = next(iter(normalize({k: None}))) if normalize is not None else k
        except (InputError, StopIteration):
            canon = k
        out.setdefault(canon, k)
    return out


def user_values(case: Case, names: Iterable[str], spelled: Mapping[str, str] | None = None) -> dict[str, Any]:
    """Fields of the case as the user wrote them: ``{"mask": 200}`` for ``mask.count``, ``{"dst.size": 200}``,
    ``{"fmatrix.padList": [300, 1, 1, 1]}`` for ``fmatrix.padList0``; names in the case file's spelling."""
    model = case.model
    spelled = spelled or {}
    out: dict[str, Any] = {}
    for name in names:
        param = name.split(".")[0]
        kind = model.param_kinds.get(param)
        shown = spelled.get(param, param)
        if kind == "tensor":
            rest = name.split(".", 1)[1] if "." in name else ""
            if rest == "present":
                out[shown] = "given" if case.env[name] else "absent"
            else:
                out[f"{shown}.{rest}"] = _jsonable(model, name, case.env[name])
        elif kind == "struct":
            value = case.arg(param)
            member = struct_member(model, name)
            if member is None or value is None:
                out[shown] = value
            else:
                out[f"{shown}.{member}"] = value.get(member)
        elif kind in ("mask", "levels"):
            out[shown] = case.arg(param)
        elif param in model.param_kinds:
            out[shown] = case.arg(param)
        else:
            out[name] = case.env[name]
    return out


# -- explain ------------------------------------------------------------------------------------------------------------

@dataclass
class Conflict:
    """A broken rule, the minimal set of the case's values that rule out satisfying it, and the rules involved."""

    rule: Rule
    message: str
    values: dict[str, Any]
    rules: list[Rule]
    minimal: bool = True
    #: the solver gave up before finding any conflict: ``values`` and ``rules`` say nothing
    undecided: bool = False

    def others(self) -> list[Rule]:
        """The rules of the conflict besides the broken one (rules the case satisfies)."""
        return [r for r in self.rules if r.id != self.rule.id]

    def to_json(self, model: ApiModel) -> dict[str, Any]:
        if self.undecided:
            return {"rule": self.rule.id, "message": self.message, "source": self.rule.citation, "undecided": True,
                    "values": None, "pointers": [], "with_rules": [], "minimal": False}
        return {"rule": self.rule.id, "message": self.message, "source": self.rule.citation, "undecided": False,
                "values": {k: _jsonable(model, k, v) for k, v in self.values.items()},
                "pointers": sorted({json_pointer(model, k) for k in self.values}),
                "with_rules": [{"rule": r.id, "requires": r.help or r.message, "source": r.citation} for r in self.others()],
                "minimal": self.minimal}


def _jsonable(model: ApiModel, name: str, value: Any) -> Any:
    f = model.field_by_name.get(name)
    if f is not None and isinstance(f.type, EnumType):
        return f.type.choices[int(value)] if 0 <= int(value) < len(f.type.choices) else int(value)
    return value


@dataclass
class Explanation:
    """The conflicts of an invalid case (empty for a valid one) and the broken rules the solver cannot see."""

    case: Case
    conflicts: list[Conflict] = field(default_factory=list)
    data_violations: list[Violation] = field(default_factory=list)
    warnings: list[Violation] = field(default_factory=list)

    @property
    def valid(self) -> bool:
        return not self.conflicts and not self.data_violations

    @property
    def undecided(self) -> list[str]:
        """The broken rules whose conflict the solver could not find (the rules are broken all the same)."""
        return [c.rule.id for c in self.conflicts if c.undecided]


def explain_case(case: Case, *, timeout_ms: int = QUERY_TIMEOUT_MS) -> Explanation:
    """One minimal conflict per error rule the case breaks (see the module docstring).

    Whether the case is valid is decided without the solver (`check_case`); a conflict the solver cannot find
    is marked ``undecided``. Ctrl-C or SIGTERM raises `ascverify.engines.interrupts.Interrupted` within a second."""
    with interrupts.solver_region():
        return _explain_case(case, timeout_ms)


def _explain_case(case: Case, timeout_ms: int) -> Explanation:
    verdict = check_case(case)
    if verdict.error is not None:
        raise verdict.error
    out = Explanation(case, warnings=list(verdict.warnings))
    broken = [v for v in verdict.violations if v.rule.symbolic]
    out.data_violations = [v for v in verdict.violations if not v.rule.symbolic]
    if not broken:
        return out
    space = space_for(case, timeout_ms=timeout_ms)
    broken_ids = {v.rule.id for v in broken}
    s = space.solver(tracked=True)
    field_lits: dict[str, z3.BoolRef] = {}
    for name, var in space.vars.items():
        lit = z3.Bool(f"value:{name}")
        s.add(z3.Implies(lit, value_term(var, case.env[name])))
        field_lits[name] = lit
    satisfied = [r for r in space.rules if r.id not in broken_ids]
    for v in broken:
        out.conflicts.append(_conflict(space, s, field_lits, case.env, v, satisfied))
    return out


def _conflict(space: Space, s: z3.Solver, field_lits: dict[str, z3.BoolRef], env: dict[str, Any], v: Violation,
              satisfied: Sequence[Rule]) -> Conflict:
    r = v.rule
    ind = space.indicators
    minimal = True
    background = [ind[r.id]] + [ind[x.id] for x in satisfied]
    # values: those the rule reads are tried last, so that the values kept are the rule's own where possible
    own = set(r.params)
    order = sorted(field_lits, key=lambda n: (n.split(".")[0] in own, list(field_lits).index(n)))
    res = check(s, background + [field_lits[n] for n in order])
    if res != "unsat":  # cannot happen for a rule the case breaks, unless the solver gave up
        return Conflict(r, v.message, {}, [r], minimal=False, undecided=True)
    core = core_names(s)
    kept = [n for n in order if str(field_lits[n]) in core]
    i = 0
    while i < len(kept):
        trial = kept[:i] + kept[i + 1:]
        res = check(s, background + [field_lits[n] for n in trial])
        if res == "unsat":
            core = core_names(s)
            kept = [n for n in trial if str(field_lits[n]) in core]
            continue
        if res == "unknown":
            minimal = False
        i += 1
    fixed = [field_lits[n] for n in kept]
    rules = [x for x in satisfied if str(ind[x.id]) in core]
    i = 0
    while i < len(rules):
        trial = rules[:i] + rules[i + 1:]
        res = check(s, fixed + [ind[r.id]] + [ind[x.id] for x in trial])
        if res == "unsat":
            core = core_names(s)
            rules = [x for x in trial if str(ind[x.id]) in core]
            continue
        if res == "unknown":
            minimal = False
        i += 1
    values = {n: env[n] for n in sorted(kept, key=list(space.vars).index)}
    return Conflict(r, v.message, values, [r] + rules, minimal)


def r_fields(space: Space, r: Rule) -> list[str]:
    """The fields a rule's term reads."""
    names = {str(c) for c in term_constants(space.terms[r.id])}
    return [n for n in space.vars if n in names]


def has_quantifier(term: z3.ExprRef) -> bool:
    """The term holds a quantifier (bounded existentials of `ascverify.spec.logic.Exists`)."""
    seen: set[int] = set()
    stack = [term]
    while stack:
        t = stack.pop()
        if z3.is_quantifier(t):
            return True
        if t.get_id() in seen:
            continue
        seen.add(t.get_id())
        stack.extend(t.children())
    return False


def term_constants(term: z3.ExprRef) -> set[z3.ExprRef]:
    """The uninterpreted constants (the fields) a term mentions, bound variables of quantifiers excluded."""
    seen: set[int] = set()
    out: set[z3.ExprRef] = set()
    stack = [term]
    while stack:
        t = stack.pop()
        key = t.get_id()
        if key in seen:
            continue
        seen.add(key)
        if z3.is_quantifier(t):
            stack.append(t.body())
            continue
        if z3.is_const(t) and t.decl().kind() == z3.Z3_OP_UNINTERPRETED:
            out.add(t)
            continue
        stack.extend(t.children())
    return out


# -- fix ----------------------------------------------------------------------------------------------------------------

@dataclass
class Repair:
    """The nearest valid case, or (when ``--keep`` rules every valid case out) the conflict that says why."""

    case: Case
    fixed: Case | None
    changed: list[str]
    distance: int
    conflict_rules: list[Rule] = field(default_factory=list)
    conflict_fixes: list[Fix] = field(default_factory=list)
    still_broken: list[Violation] = field(default_factory=list)
    method: str = "optimize"
    #: what the solver gave up on ('' when nothing): with status 'undecided', whether any valid case exists (that
    #: keeps the --keep values); with 'conflict', which values and rules conflict; with 'fixed', whether a nearer
    #: valid case exists
    undecided: str = ""

    @property
    def status(self) -> str:
        """'valid' (nothing to change), 'data' (only rules on tensor contents broken), 'fixed', 'conflict' (no valid
        case keeps the --keep values) or 'undecided' (the solver could not find a valid case nor rule one out)."""
        if self.fixed is None:
            if self.conflict_rules or self.conflict_fixes or (self.undecided and self.method == "conflict"):
                return "conflict"
            return "undecided" if self.undecided else "data"
        if not self.changed:
            return "valid" if not self.still_broken else "data"
        return "fixed"


def keep_fields(model: ApiModel, names: Sequence[str]) -> list[str]:
    """The fields named by ``--keep``: an argument (any spelling; a mask is all its fields), a tensor (all its
    fields) or one tensor field (``dst.addr``)."""
    out: list[str] = []
    for raw in names:
        name = raw.strip()
        if not name:
            continue
        if name in model.field_by_name:
            out.append(name)
            continue
        canon = model.arg_names.get(name, (None,))[0] if hasattr(model, "arg_names") else None
        if canon is None and name in model.param_kinds:
            canon = name
        if canon is not None:
            out.extend(f.name for f in model.fields if f.param == canon)
            continue
        if name in ("product", "dtype"):
            continue  # the context is fixed anyway
        choices = list(model.arg_names) + [t.name for t in model.tensors] + \
            [f.name for f in model.fields if "." in f.name and model.param_kinds.get(f.param) == "tensor"]
        raise InputError(f"unknown parameter {name!r} of {model.name}{did_you_mean(name, choices)}", field="--keep")
    return list(dict.fromkeys(out))


def _distance(var: z3.ExprRef, value: Any) -> z3.ArithRef:
    if z3.is_bool(var):
        return z3.If(var == z3.BoolVal(bool(value)), 0, 1)
    v = int(value)
    return z3.If(var >= v, var - v, v - var)


def fix_case(case: Case, keep: Sequence[str] = (), *, timeout_ms: int = 20_000) -> Repair:
    """The valid case nearest to ``case``: fewest changed fields, then smallest total change.

    When the solver gives up, the repair says so (``status`` 'undecided', or ``undecided`` naming what is not
    known); it is never 'valid'. Ctrl-C or SIGTERM raises `ascverify.engines.interrupts.Interrupted` within a second."""
    with interrupts.solver_region():
        return _fix_case(case, keep, timeout_ms)


def _fix_case(case: Case, keep: Sequence[str], timeout_ms: int) -> Repair:
    verdict = check_case(case)
    if verdict.error is not None:
        raise verdict.error
    if not [v for v in verdict.violations if v.rule.symbolic]:
        return Repair(case, case if verdict.valid else None, [], 0, still_broken=list(verdict.violations), method="none")
    plain = _repair(case, keep, space_for(case, timeout_ms=timeout_ms))
    if plain.fixed is None:
        return plain
    had = {w.id for w in verdict.warnings}
    if not [w for w in check_case(_with_data_that_fits(plain.fixed)).warnings if w.id not in had]:
        return plain
    # the nearest valid case trades an error for a new warning (turning isSetMask off makes a bad mask 'no effect':
    # one field, the least change, and no repair): the nearest that draws no new warning, when there is one
    quiet = _repair(case, keep, _quiet_space(case, verdict, timeout_ms))
    return quiet if quiet.fixed is not None and not quiet.still_broken else plain


def _quiet_space(case: Case, verdict: Any, timeout_ms: int) -> Space:
    """The case's space with the error rules and every warning the case does not draw already."""
    return Space(case.model, case.ctx, timeout_ms=timeout_ms, include_warnings=True,
                 leave_out=[w.id for w in verdict.warnings])


def _repair(case: Case, keep: Sequence[str], space: Space) -> Repair:
    """The valid case nearest to ``case`` in ``space`` (its rules hold), keeping the ``keep`` fields."""
    kept = set(keep)
    free = [n for n in space.vars if n not in kept]
    kept_terms = [value_term(space.vars[n], case.env[n]) for n in space.vars if n in kept]
    if check(space.solver(), kept_terms) == "unsat":
        fixes = [Fix(n, case.env[n], field_display(case.model, n, case.env[n])) for n in space.vars if n in kept]
        try:
            rules, fx = space.explain(fixes)
        except Undecided:
            return Repair(case, None, [], 0, method="conflict", undecided="which kept values and rules conflict")
        return Repair(case, None, [], 0, rules, fx)
    model = None
    method = "optimize"
    nearest = True
    if not any(has_quantifier(space.terms[r.id]) for r in space.rules):  # Z3's optimizer takes no quantifiers
        opt = z3.Optimize()
        interrupts.set_timeout(opt, space.timeout_ms)
        opt.add(*space.background)
        opt.add(*[space.terms[r.id] for r in space.rules])
        opt.add(*kept_terms)
        for n in free:
            opt.add_soft(value_term(space.vars[n], case.env[n]), 1, "changed")
        opt.minimize(z3.Sum([_distance(space.vars[n], case.env[n]) for n in free]) if free else z3.IntVal(0))
        if check(opt) == "sat":
            model = opt.model()
    if model is None:  # quantified or nonlinear rules the optimizer gave up on: fewest changes, then distance
        model, nearest = _fallback_search(space, case, free, kept)
        method = "search"
        if model is None:
            return Repair(case, None, [], 0, method=method,
                          undecided="whether a valid case" + (" keeping the --keep values" if kept else "") + " exists")
    fixed = space.case_from(model, origin=f"{case.origin} (fixed)" if case.origin else "fixed")
    env = dict(fixed.env)
    # fields the rules leave free keep their old values (case_from fills defaults)
    for n in space.vars:
        val = model.eval(space.vars[n], model_completion=False)
        if not (z3.is_true(val) or z3.is_false(val) or z3.is_int_value(val)):
            env[n] = case.env[n]
    fixed = Case(case.model, case.ctx, env, case.data_sources, fixed.origin, case.base_dir)
    changed = [n for n in space.vars if _differs(env[n], case.env[n])]
    # a tensor that stays absent: its fields are not part of the case
    changed = [n for n in changed if not _absent_tensor_field(case.model, env, n)]
    # a tensor the case did not give has no old values to measure a change from
    distance = sum(abs(int(env[n]) - int(case.env[n])) for n in changed
                   if not _absent_tensor_field(case.model, case.env, n))
    after = check_case(_with_data_that_fits(fixed))
    return Repair(case, fixed, changed, distance, still_broken=list(after.violations), method=method,
                  undecided="" if nearest else "whether a nearer valid case exists")


def _differs(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return bool(a) != bool(b)
    return int(a) != int(b)


def _absent_tensor_field(model: ApiModel, env: dict[str, Any], name: str) -> bool:
    param = name.split(".")[0]
    if model.param_kinds.get(param) != "tensor" or not model.tensor(param).optional:
        return False
    return not env.get(f"{param}.present", True) and not name.endswith(".present")


def _with_data_that_fits(case: Case) -> Case:
    """The case without the data of tensors whose new size no longer holds it (their rules go unchecked)."""
    keep = {}
    for name, src in case.data_sources.items():
        try:
            arr = case.data(name)
        except InputError:
            continue
        if arr is not None and arr.size <= int(case.env[f"{name}.size"]):
            keep[name] = src
    out = Case(case.model, case.ctx, dict(case.env), keep, case.origin, case.base_dir)
    for name in keep:
        arr = case.data(name)
        if arr is not None:
            out.set_data(name, arr)
    return out


def dropped_data(fixed: Case) -> list[str]:
    """Tensors whose given data no longer fits their (new) size."""
    return sorted(set(fixed.data_sources) - set(_with_data_that_fits(fixed).data_sources))


def _fallback_search(space: Space, case: Case, free: Sequence[str], kept: set[str]
                     ) -> tuple[z3.ModelRef | None, bool]:
    """Fewest changes by increasing a cardinality bound, then the distance by bisection: the model (None: the
    solver gave up before finding a valid case) and whether it is proven nearest."""
    s = space.solver()
    for n in kept:
        s.add(value_term(space.vars[n], case.env[n]))
    changed = [z3.Not(value_term(space.vars[n], case.env[n])) for n in free]
    best = None
    for k in range(len(changed) + 1):
        bound = z3.AtMost(*changed, k) if changed else z3.BoolVal(True)
        r = check(s, [bound])
        if r == "unknown":
            return None, False
        if r == "sat":
            best = s.model()
            s.add(bound)
            break
    if best is None:
        return None, False
    dist = z3.Sum([_distance(space.vars[n], case.env[n]) for n in free]) if free else z3.IntVal(0)
    lo, hi = 0, best.eval(dist, model_completion=True).as_long()
    while lo < hi:
        mid = (lo + hi) // 2
        r = check(s, [dist <= mid])
        if r == "sat":
            best = s.model()
            hi = min(mid, best.eval(dist, model_completion=True).as_long())
        elif r == "unsat":
            lo = mid + 1
        else:
            return best, False
    return best, True


def display_param(case: Case, name: str) -> str:
    """A parameter of a case as its file spells it (an argument's value, or a tensor's placement)."""
    model = case.model
    kind = model.param_kinds.get(name)
    if kind == "tensor":
        t = case.tensor(name)
        return "absent" if not t.present else f"{t.position} addr={t.addr} size={t.size}"
    return value_text(case.arg(name))


def diff_lines(repair: Repair, spelled: Mapping[str, str] | None = None) -> list[str]:
    """``name: old -> new`` per changed argument (a mask or a struct as a whole) and per changed tensor field, in the
    case file's spelling (``spelled``, from `spelled_params`)."""
    assert repair.fixed is not None
    model, old, new = repair.case.model, repair.case, repair.fixed
    spelled = spelled or {}
    lines: list[str] = []
    seen: set[Any] = set()
    for n in sorted(repair.changed, key=lambda n: not n.endswith(".present")):
        param = n.split(".")[0]
        shown = spelled.get(param, param)
        if model.param_kinds.get(param) == "tensor":
            if n.endswith(".present"):
                lines.append(f"{shown}: {'given' if old.env[n] else 'absent'} -> {'given' if new.env[n] else 'absent'}")
                continue
            rest = n.split(".", 1)[1]
            was = "-" if _absent_tensor_field(model, old.env, n) else field_display(model, n, old.env[n]).split("=", 1)[1]
            lines.append(f"{shown}.{rest}: {was} -> {field_display(model, n, new.env[n]).split('=', 1)[1]}")
        elif model.param_kinds.get(param) == "struct" and old.arg(param) is not None and new.arg(param) is not None:
            member = struct_member(model, n)
            if (param, member) not in seen:
                seen.add((param, member))
                lines.append(f"{shown}.{member}: {value_text(old.arg(param).get(member))} -> "
                             f"{value_text(new.arg(param).get(member))}")
        elif param not in seen:
            seen.add(param)
            lines.append(f"{shown}: {display_param(old, param)} -> {display_param(new, param)}")
    return lines


def struct_member(model: ApiModel, name: str) -> str | None:
    """The member of a struct argument a field belongs to (``fmatrix.padList2`` -> ``padList``)."""
    decl = model.arg(name.split(".")[0])
    return next((m.name for m in decl.members for f in decl.member_fields(m) if f.name == name), None)
