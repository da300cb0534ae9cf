"""What boundary and negative generation aim at: targets read off the rules' domains, solved one by one.

Boundary targets (each legal or illegal):

- every field's extremes: the ends of its domain (`ascverify.spec.domains.field_domains`, conditional
  rules included), every value of a Boolean and every allowed position; an end no legal case
  reaches is reported with the rules that forbid it, and the legal extreme is covered instead;
- both sides of every rule's boundary, by the rule's kind:

  ======== ============================================ =============================================
  kind     just legal                                   just illegal
  ======== ============================================ =============================================
  range    field = lo, field = hi                       field = lo - 1, field = hi + 1
  type     field = lo, field = hi of the C type         one past either end
  multiple a non-zero multiple of the step              one above / one below a multiple
  one_of   every allowed value                          the neighbouring / other values
  align    a non-zero aligned start                     element-aligned but not start-aligned
  fits     the tensor ends at the buffer's last byte    it ends one element past it
  min_size size = the minimum                           size = the minimum - 1
  disjoint the two tensors touch                        they overlap by at most 32 bytes
  other    the valid case nearest to the illegal one    the rule broken, everything else kept
           (a warning: a case it is in force and silent)
  ======== ============================================ =============================================

Each target holds under the rule's guard (``when``). An illegal target keeps every other rule in
force where it can; otherwise a minimal set of rules it drags along is released and reported. A
value no case file can hold (one past a uint64 or an int64) is skipped, with the reason
(`skip_unholdable`); every query holds only what a case file can (`Solving.file_terms`).

Negative targets: each rule negated, every other rule in force (or a minimal set released).
"""

from __future__ import annotations

from dataclasses import dataclass, field as dc_field
from typing import Any, Callable

import z3

from ...spec.params import ABS_MAX, ABS_MIN, BoolType, EnumType
from ...spec.products import BUFFERS
from ...spec.rules import POSITION_NAMES, Rule, domain_value
from ..explain import fix_case, value_term
from .solving import Outcome, Solving
from .written import holdable


@dataclass
class Target:
    """One thing a generated case must show."""

    id: str
    label: str
    expect: str  # "success" (legal) or "failed" (illegal)
    rule: str | None = None  # the rule whose boundary this is (None: a field extreme)
    field: str | None = None
    term: Callable[[], z3.BoolRef] | None = None  # built lazily (needs the solver's terms)
    kind: str = ""  # the rule's domain kind, or "field"
    status: str = "pending"  # pending, covered, impossible, unknown, skipped
    reason: str = ""
    cases: list[str] = dc_field(default_factory=list)
    released: list[str] = dc_field(default_factory=list)
    extra: dict[str, Any] = dc_field(default_factory=dict)
    #: (field, value) when the target is ``field == value`` (the rules that value breaks alone are known)
    assign: tuple[str, int] | None = None

    def to_json(self) -> dict[str, Any]:
        out = {"id": self.id, "target": self.label, "expect": self.expect, "status": self.status,
               "rule": self.rule, "field": self.field, "cases": self.cases}
        if self.reason:
            out["reason"] = self.reason
        if self.released:
            out["drags_along"] = self.released
        out.update(self.extra)
        return out



def _guard(sv: Solving, r: Rule) -> z3.BoolRef:
    if r.when is None:
        return z3.BoolVal(True)
    g = r.when(sv.space.values, sv.ctx)
    return g if isinstance(g, z3.BoolRef) else z3.BoolVal(bool(g))


def _pred(sv: Solving, r: Rule) -> z3.BoolRef:
    p = r.predicate(sv.space.values, sv.ctx)
    return p if isinstance(p, z3.BoolRef) else z3.BoolVal(bool(p))


def _capacity(t: Any, ctx: Any) -> z3.ArithRef:
    return z3.Sum([z3.If(t.in_buffer(b), ctx.product.physical_size(b), 0) for b in BUFFERS])


def field_targets(sv: Solving) -> list[Target]:
    """Every field's extreme values (legal side)."""
    out: list[Target] = []
    model = sv.model
    for f in model.fields:
        d = sv.domains.get(f.name)
        var = sv.space.vars[f.name]
        if d is None or d.empty:
            continue
        if isinstance(f.type, BoolType):
            for val in (False, True):
                out.append(Target(f"field:{f.name}={str(val).lower()}", f"{f.name} = {str(val).lower()}", "success",
                                  field=f.name, kind="field", term=(lambda v=var, x=val: value_term(v, x))))
            continue
        if isinstance(f.type, EnumType):
            for code in sorted(d.choices or ()):
                name = f.type.choices[code] if code < len(f.type.choices) else str(code)
                out.append(Target(f"field:{f.name}={name}", f"{f.name} = {name}", "success", field=f.name,
                                  kind="field", term=(lambda v=var, x=code: v == x)))
            continue
        lo, hi = d.nth(0), d.nth(d.values_count() - 1)
        for end, val in (("min", lo), ("max", hi)):
            out.append(Target(f"field:{f.name}:{end}", f"{f.name} = {val} (domain {end})", "success", field=f.name,
                              kind="field", term=(lambda v=var, x=val: v == x), extra={"value": val, "end": end}))
    return out


def rule_targets(sv: Solving) -> list[Target]:
    """Both sides of every symbolic rule's boundary (see the module docstring)."""
    out: list[Target] = []
    ctx, vals = sv.ctx, sv.space.values
    for r in sv.space.rules:
        dom = r.domain
        kind = dom.get("kind", "custom")
        ok_expect = "success"
        bad_expect = "failed" if r.severity == "error" else "success"
        W = lambda r=r: _guard(sv, r)  # noqa: E731
        P = lambda r=r: _pred(sv, r)  # noqa: E731

        def add(side: str, label: str, term: Callable[[], z3.BoolRef], r: Rule = r, kind: str = kind,
                assign: tuple[str, int] | None = None) -> None:
            legal = side == "legal"
            t = Target(f"rule:{r.id}:{label}", f"[{r.id}] {label}", ok_expect if legal else bad_expect,
                       rule=r.id, kind=kind, term=term, extra={"side": "just legal" if legal else "just illegal"})
            t.assign = assign
            skip_unholdable(t)
            out.append(t)

        if kind in ("range", "type"):
            name = dom["field"]
            lo, hi = domain_value(dom["lo"], ctx), domain_value(dom["hi"], ctx)
            var = sv.space.vars[name]
            add("legal", f"{name} = {lo} (lower bound)", lambda v=var, x=lo, W=W: z3.And(W(), v == x))
            add("legal", f"{name} = {hi} (upper bound)", lambda v=var, x=hi, W=W: z3.And(W(), v == x))
            add("illegal", f"{name} = {lo - 1} (below)", lambda v=var, x=lo - 1, W=W: z3.And(W(), v == x),
                assign=(name, lo - 1))
            add("illegal", f"{name} = {hi + 1} (above)", lambda v=var, x=hi + 1, W=W: z3.And(W(), v == x),
                assign=(name, hi + 1))
        elif kind == "multiple":
            name = dom["field"]
            step = int(domain_value(dom["step"], ctx))
            var = sv.space.vars[name]
            add("legal", f"{name} a non-zero multiple of {step}", lambda v=var, k=step, W=W: z3.And(W(), v % k == 0, v != 0))
            if step > 1:
                add("illegal", f"{name} = a multiple of {step} + 1", lambda v=var, k=step, W=W: z3.And(W(), v % k == 1))
            if step > 2:
                add("illegal", f"{name} = a multiple of {step} - 1",
                    lambda v=var, k=step, W=W: z3.And(W(), v % k == k - 1))
        elif kind == "one_of":
            name = dom["field"]
            codes = sorted(set(dom["codes"](ctx)))
            f = sv.model.field_by_name[name]
            var = sv.space.vars[name]
            shown = (lambda c, f=f: f.type.choices[c] if isinstance(f.type, EnumType) and 0 <= c < len(f.type.choices) else str(c))
            legal = codes if len(codes) <= 16 else sorted({codes[0], codes[len(codes) // 2], codes[-1]})
            for c in legal:
                add("legal", f"{name} = {shown(c)}", lambda v=var, x=c, W=W: z3.And(W(), v == x))
            lo, hi = f.type.lo, f.type.hi
            if hi - lo < 16:
                others = [c for c in range(lo, hi + 1) if c not in codes]
            elif codes:  # just outside the set, and the first gaps inside it
                gaps = [a + 1 for a, b in zip(codes, codes[1:]) if b > a + 1][:2]
                others = [c for c in (codes[0] - 1, *gaps, codes[-1] + 1) if lo <= c <= hi]
            else:
                others = [lo]
            for c in others:
                add("illegal", f"{name} = {shown(c)}", lambda v=var, x=c, W=W: z3.And(W(), v == x), assign=(name, c))
        elif kind == "align":
            t = getattr(vals, dom["tensor"])
            elem = ctx.sizeof(dom["tensor"])
            add("legal", f"{dom['tensor']}.addr aligned and non-zero", lambda t=t, W=W, P=P: z3.And(W(), P(), t.addr > 0))
            add("illegal", f"{dom['tensor']}.addr element-aligned but not start-aligned",
                lambda t=t, e=elem, W=W, P=P: z3.And(W(), z3.Not(P()), t.addr % e == 0))
        elif kind == "fits":
            t = getattr(vals, dom["tensor"])
            add("legal", f"{dom['tensor']} ends at its buffer's last byte",
                lambda t=t, W=W: z3.And(W(), t.end == _capacity(t, ctx)))
            add("illegal", f"{dom['tensor']} ends one element past its buffer",
                lambda t=t, W=W: z3.And(W(), t.end > _capacity(t, ctx), t.end <= _capacity(t, ctx) + t.elem))
        elif kind == "min_size":
            t = getattr(vals, dom["tensor"])
            elems = dom["elems"]
            add("legal", f"{dom['tensor']}.size = the minimum", lambda t=t, f=elems, W=W: z3.And(W(), t.size == f(vals, ctx)))
            add("illegal", f"{dom['tensor']}.size = the minimum - 1",
                lambda t=t, f=elems, W=W: z3.And(W(), t.size == f(vals, ctx) - 1))
        elif kind == "disjoint":
            a, b = (getattr(vals, n) for n in dom["tensors"])
            same = lambda a=a, b=b: z3.Or([z3.And(a.in_buffer(x), b.in_buffer(x)) for x in BUFFERS])  # noqa: E731
            add("legal", f"{dom['tensors'][0]} and {dom['tensors'][1]} touch",
                lambda a=a, b=b, same=same: z3.And(a.present, b.present, same(), a.size > 0, b.size > 0,
                                                   z3.Or(a.end == b.addr, b.end == a.addr)))

            def overlap(a=a, b=b, P=P):
                lo = z3.If(a.addr >= b.addr, a.addr, b.addr)
                hi = z3.If(a.end <= b.end, a.end, b.end)
                return z3.And(z3.Not(P()), hi - lo <= 32)
            add("illegal", f"{dom['tensors'][0]} and {dom['tensors'][1]} overlap by at most 32 bytes", overlap)
        else:  # relational rules: the illegal side is the rule broken; the legal side the nearest valid case
            add("illegal", "broken, everything else kept", lambda W=W, P=P: z3.And(W(), z3.Not(P())), kind="custom")
            if r.severity == "error":
                add("legal", "the valid case nearest to the broken one", lambda: z3.BoolVal(True), kind="custom-near")
            else:  # the broken side of a warning is valid already (`fix` repairs errors only): a case it is silent on
                add("legal", "in force and silent", lambda W=W, P=P: z3.And(W(), P()))
    return out


def solve_target(sv: Solving, t: Target, *, spread: bool = False, origin: str = "gen",
                 near: dict[str, Any] | None = None) -> Outcome:
    """A case for a target: a legal one with every error rule in force, an illegal one breaking only its rule
    (or a minimal set of rules dragged along)."""
    sv.fresh()
    if t.kind == "custom-near":
        if near is None or near.get(t.rule) is None:
            return Outcome("unsat", core=[])
        rep = fix_case(near[t.rule])
        if rep.fixed is None or not rep.changed:  # the solver gave up (a broken case always has a valid neighbour)
            return Outcome("unknown")
        return Outcome("sat", rep.fixed)
    term = sv.lit(t.id, t.term())
    if t.expect == "success" and (t.rule is None or sv.model.rule_by_id[t.rule].severity == "error"):
        return sv.solve(sv.error_ids, [term], spread=spread, origin=origin)
    if t.expect == "success":  # a warning's illegal side: the warning fires, every error rule holds
        return sv.solve(sv.error_ids, [term], spread=spread, origin=origin)
    forced = sv.forced_by(*t.assign) if t.assign is not None else ()
    return sv.break_rule(t.rule, term, spread=spread, origin=origin, forced=forced)


def skip_unholdable(t: Target) -> None:
    """Skip a target ``field == value`` whose value no case file can hold (one past a uint64 or int64 type: the
    reader refuses the file), with the reason: no case file breaks that end of the rule."""
    if t.assign is None or holdable(t.assign[1]):
        return
    t.status = "skipped"
    t.reason = (f"{t.assign[0]} = {t.assign[1]} is beyond what a case file can hold (integers in [{ABS_MIN}, "
                f"{ABS_MAX}]): no case file breaks the rule at that end")


def negative_targets(sv: Solving) -> list[Target]:
    """Each rule negated (error rules: the case is illegal; warnings: legal, but the warning fires), in the order
    `negative_order` gives. Every query holds only what a case file can (`Solving.file_terms`: every integer field
    within [-2^63, 2^64-1], the forms of the optional arguments), so that a negative case is a case file `check`
    reads and refuses by the rule, not one it cannot read."""
    out = []
    for r in sorted(sv.space.rules, key=negative_order):
        expect = "failed" if r.severity == "error" else "success"
        out.append(Target(f"negate:{r.id}", f"[{r.id}] broken", expect, rule=r.id, kind=r.domain.get("kind", "custom"),
                          term=(lambda r=r: z3.Not(sv.space.terms[r.id]))))
    return out


#: Rule kinds in the order negative cases come: the rules kernel authors get wrong first (tensors overlapping,
#: misaligned, too small or outside their buffer, masks, the API's own relational rules, ranges), the limits of the
#: parameters' C types and the product or type support last.
NEGATIVE_KIND_ORDER = ("disjoint", "align", "min_size", "fits", "mask", "custom", "range", "multiple", "one_of", "type",
                       "support")


def negative_order(rule: Any) -> tuple[int, int]:
    """Sort key of a rule among the negative targets (see `NEGATIVE_KIND_ORDER`); rules about masks come with the
    masks whatever their kind, C-type limits always last."""
    kind = rule.domain.get("kind", "custom")
    rid = rule.id
    if kind == "type" or rid.endswith(".type"):
        rank = NEGATIVE_KIND_ORDER.index("type")
    elif ".support" in rid:
        rank = NEGATIVE_KIND_ORDER.index("support")
    elif "overlap" in rid or "disjoint" in rid or "in_place" in rid or "hazard" in rid:
        rank = 0
    elif ".mask." in rid or rid.endswith(".mask"):
        rank = NEGATIVE_KIND_ORDER.index("mask")
    else:
        rank = NEGATIVE_KIND_ORDER.index(kind) if kind in NEGATIVE_KIND_ORDER else NEGATIVE_KIND_ORDER.index("custom")
    return (rank, 0 if rule.severity == "error" else 1)


def describe_core(sv: Solving, core: list[str], target: Target | None = None) -> str:
    """The rules of a core (minimized against the target's literal when given), for a reason line."""
    if core and target is not None and target.term is not None:
        core = sv.minimize(core, [sv.lit(target.id, target.term())])
    if not core:
        return "the target contradicts the parameter types and the case format alone"
    return "conflicts with " + ", ".join(core)


def position_name(code: int) -> str:
    return POSITION_NAMES[code] if 0 <= code < len(POSITION_NAMES) else str(code)
