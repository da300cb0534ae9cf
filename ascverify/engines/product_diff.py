"""The rule differences of two products (`diff_api`, ``ascverify diff-products``): for each API, the element types
supported, the sizes of the buffers the API's tensors may use, the rules in force on one product only, and the
rules in force on both whose constraint differs. The last is decided by the solver: the rule's terms on the two
products (over the same fields) are compared, and a difference comes with the limits that differ (range bounds,
steps, choices, buffer capacities) or, for other rules, a witness: field values on which the rule holds on one product
and not on the other. A comparison the solver gives up on is ``undecided`` ("undecided: the solver gave up
(timeout/resource limit)"): neither a difference nor the absence of one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import z3

from ..spec.errors import one_line
from ..spec.model import ApiModel
from ..spec.products import BUFFERS, POSITION_BUFFER, get_product
from ..spec.rules import Context, Rule, domain_value
from . import interrupts
from .explain import field_display, term_constants
from .solver import Space

#: Milliseconds one comparison query may take.
QUERY_TIMEOUT_MS = 3_000


# -- two products --------------------------------------------------------------------------------------------------------

@dataclass
class RuleDiff:
    """A rule whose constraint differs between two products (or that is in force on one only)."""

    rule: Rule
    kind: str  # "only_a", "only_b", "differs", "undecided"
    detail: str = ""
    dtype: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"rule": self.rule.id, "kind": self.kind, "detail": self.detail, "dtype": self.dtype or None,
                "requires": self.rule.help or self.rule.message, "source": self.rule.citation}


@dataclass
class ApiDiff:
    """What differs for one API between products A and B."""

    model: ApiModel
    a: str
    b: str
    support_a: tuple[str, ...]
    support_b: tuple[str, ...]
    buffers: list[tuple[str, int, int]] = field(default_factory=list)
    rules: list[RuleDiff] = field(default_factory=list)

    @property
    def undecided(self) -> list[str]:
        """The rules whose comparison the solver could not decide."""
        return [r.rule.id for r in self.rules if r.kind == "undecided"]

    @property
    def differs(self) -> bool:
        """A difference is established (support, buffers, or a rule decided to differ)."""
        return self.support_a != self.support_b or bool(self.buffers) or \
            any(r.kind != "undecided" for r in self.rules)

    @property
    def same(self) -> bool:
        """No difference, and none undecided."""
        return self.support_a == self.support_b and not self.buffers and not self.rules

    def to_json(self) -> dict[str, Any]:
        return {"api": self.model.name, "a": self.a, "b": self.b,
                "support": {self.a: list(self.support_a), self.b: list(self.support_b)},
                "buffers": [{"buffer": b, self.a: x, self.b: y} for b, x, y in self.buffers],
                "rules": [r.to_json() for r in self.rules], "same": self.same, "undecided": self.undecided}



def _api_buffers(model: ApiModel) -> list[str]:
    used = {POSITION_BUFFER[p] for t in model.tensors for p in t.positions}
    return [b for b in BUFFERS if b in used]


def _limits(rule: Rule, ca: Context, cb: Context, model: ApiModel) -> str:
    """The limits of a structured rule on the two products, when they differ ('' otherwise)."""
    dom = rule.domain
    kind = dom.get("kind")
    a, b = ca.product.id, cb.product.id
    if kind in ("range", "type"):
        la, ha, lb, hb = (domain_value(dom[k], c) for c, k in ((ca, "lo"), (ca, "hi"), (cb, "lo"), (cb, "hi")))
        if (la, ha) != (lb, hb):
            return f"{dom['field']} in [{la}, {ha}] on {a}, [{lb}, {hb}] on {b}"
    if kind == "multiple":
        sa, sb = domain_value(dom["step"], ca), domain_value(dom["step"], cb)
        if sa != sb:
            return f"{dom['field']} a multiple of {sa} on {a}, of {sb} on {b}"
    if kind == "one_of":
        xa, xb = tuple(dom["codes"](ca)), tuple(dom["codes"](cb))
        if xa != xb:
            return f"{dom['field']} one of codes {list(xa)} on {a}, {list(xb)} on {b}"
    if kind == "fits":
        t = model.tensor(dom["tensor"])
        bufs = sorted({POSITION_BUFFER[p] for p in t.positions}, key=BUFFERS.index)
        parts = [f"{buf} {ca.product.physical_size(buf)} vs {cb.product.physical_size(buf)} bytes" for buf in bufs
                 if ca.product.physical_size(buf) != cb.product.physical_size(buf)]
        if parts:
            return f"{dom['tensor']} must fit its buffer: " + ", ".join(parts) + f" ({a} vs {b})"
    return ""


def _witness(space_vars: dict[str, z3.ExprRef], m: z3.ModelRef, names: set[str], model: ApiModel) -> str:
    parts = []
    for n, var in space_vars.items():
        if n not in names:
            continue
        val = m.eval(var, model_completion=True)
        v = True if z3.is_true(val) else False if z3.is_false(val) else val.as_long()
        parts.append(field_display(model, n, v))
    return ", ".join(parts)


def _same_term(ta: z3.BoolRef, tb: z3.BoolRef) -> bool:
    """Syntactically the same after simplification, up to the names of bound variables (each Space names the
    variables of its bounded quantifiers afresh)."""
    import re

    a, b = z3.simplify(ta), z3.simplify(tb)
    if z3.eq(a, b):
        return True
    norm = lambda t: re.sub(r"__exists\d+_", "__exists_", t.sexpr())  # noqa: E731
    return norm(a) == norm(b)


#: rule kinds about a call's parameters themselves (`Rule.domain`), which a no-op is held to as well
PARAMETER_KINDS = ("range", "type", "multiple", "one_of", "align")


def diff_api(model: ApiModel, a: str, b: str, *, timeout_ms: int = QUERY_TIMEOUT_MS) -> ApiDiff:
    """The differences of one API between products ``a`` and ``b`` (Ctrl-C or SIGTERM:
    `ascverify.engines.interrupts.Interrupted` within a second)."""
    with interrupts.solver_region():
        return _diff_api(model, a, b, timeout_ms)


def _diff_api(model: ApiModel, a: str, b: str, timeout_ms: int) -> ApiDiff:
    pa, pb = get_product(a), get_product(b)
    out = ApiDiff(model, pa.id, pb.id, tuple(model.support.get(pa.id, ())), tuple(model.support.get(pb.id, ())))
    for buf in _api_buffers(model) if out.support_a and out.support_b else ():
        if pa.buffer_size(buf) != pb.buffer_size(buf):
            out.buffers.append((buf, pa.buffer_size(buf), pb.buffer_size(buf)))
    ids_a = {r.id for r in model.rules_for(pa.id)}
    ids_b = {r.id for r in model.rules_for(pb.id)}
    for r in model.rules:
        if r.id in ids_a and r.id not in ids_b:
            out.rules.append(RuleDiff(r, "only_a", f"in force on {pa.id} only"))
        elif r.id in ids_b and r.id not in ids_a:
            out.rules.append(RuleDiff(r, "only_b", f"in force on {pb.id} only"))
    common_types = [t for t in out.support_a if t in out.support_b] or \
        ([model.default_dtype] if not out.support_a and not out.support_b else [])
    seen: set[str] = set()
    for t in common_types:
        ca, cb = model.context(pa.id, t), model.context(pb.id, t)
        sa, sb = Space(model, ca, include_warnings=True), Space(model, cb, include_warnings=True)
        # a rule about what the call reads and stores is compared on calls that do something on both products (a
        # no-op is held to its parameters, not to what it would move: docs/severity.md); a rule on the parameters
        # themselves on every call
        doing = [sp.term_of(r) for sp in (sa, sb) for r in sp.rules if r.noop]
        types = [sa.terms[r.id] for r in sa.rules if r.domain.get("kind") == "type"]
        for r in model.rules:
            if r.id in seen or r.id not in sa.terms or r.id not in sb.terms:
                continue
            ta, tb = sa.terms[r.id], sb.terms[r.id]
            if _same_term(ta, tb):
                continue
            s = z3.Solver()
            interrupts.set_timeout(s, timeout_ms)
            s.add(*sa.background, *types, ta != tb)
            if r.domain.get("kind") not in PARAMETER_KINDS:
                s.add(*doing)
            res = interrupts.decide(s)
            if res == "unsat":
                continue
            seen.add(r.id)
            limits = _limits(r, ca, cb, model)
            if res == "sat":
                names = {str(c) for c in term_constants(ta) | term_constants(tb)}
                m = s.model()
                holds_a = z3.is_true(m.eval(ta, model_completion=True))
                detail = limits or (f"e.g. {_witness(sa.vars, m, names, model) or 'any case'}: holds on "
                                    f"{pa.id if holds_a else pb.id}, broken on {pb.id if holds_a else pa.id}")
                out.rules.append(RuleDiff(r, "differs", detail, t))
            else:
                why = f"undecided: {interrupts.budget_text()}" if interrupts.budget_exhausted() else interrupts.UNDECIDED
                out.rules.append(RuleDiff(r, "undecided", why + (f"; the limits: {limits}" if limits else ""), t))
    return out


def _requirement(d: ApiDiff, rd: RuleDiff) -> str:
    """What the rule requires, for its line: a bound that depends on the context (`Rule.requirement`) is left to
    the detail line when that line gives the limits on both products, else given on the product it is in force."""
    words = rd.rule.help or rd.rule.message
    if not rd.rule.bound_by_context:
        return words
    field_name = str(rd.rule.domain.get("field"))
    if rd.kind in ("differs", "undecided") and rd.detail and rd.detail.startswith(f"{field_name} "):
        return ""
    product = d.b if rd.kind == "only_b" else d.a
    types = (rd.dtype,) if rd.dtype else d.model.documented_types(product, d.model.default_dtype)
    return f"{rd.rule.requirement([d.model.context(product, t) for t in types])} on {product}"


def diff_lines(d: ApiDiff) -> list[str]:
    lines = [f"{d.model.name}: {d.a} vs {d.b}"]
    fmt = lambda ts: ", ".join(ts) if ts else "not supported"  # noqa: E731
    if d.support_a != d.support_b:
        lines.append(f"  support: {d.a}: {fmt(d.support_a)}; {d.b}: {fmt(d.support_b)}")
    for buf, x, y in d.buffers:
        lines.append(f"  buffer {buf}: {x} bytes on {d.a}, {y} on {d.b}")
    for rd in d.rules:
        where = {"only_a": f"only on {d.a}", "only_b": f"only on {d.b}", "differs": "differs",
                 "undecided": "undecided"}[rd.kind]
        t = f" (T={rd.dtype})" if rd.dtype and rd.kind in ("differs", "undecided") else ""
        words = _requirement(d, rd)
        lines.append(f"  {where}: [{rd.rule.id}] {words}{' ' if words else ''}({rd.rule.citation})")
        if rd.kind in ("differs", "undecided") and rd.detail:
            lines.append(f"      {rd.detail}{t}")
    if d.same:
        lines.append("  no difference")
    return lines
