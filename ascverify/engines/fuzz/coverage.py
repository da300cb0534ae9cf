"""Where a case sits in each rule's constraint space: interior, on the boundary, violated, or not applicable.

Structured rules say it from their domain: a range ``[lo, hi]`` (with the field's step, from the
domains the strategies draw from) is on the boundary within one step of ``lo`` or ``hi``; a minimum
size is on the boundary when the tensor is exactly as large as needed; a tensor is on the boundary
of its buffer when less than one alignment unit is left; two disjoint tensors are on the boundary
when adjacent. A relational rule (a custom predicate) is on the boundary when moving one of its
integer fields by one step breaks it; its distance is the fewest steps that do (probed at 1, 2, 8 and
`PROBE_STEPS` steps; relational rules are classified on one case in `SAMPLE_EVERY`, see `_relational_point`).
Alignment, multiple-of and one-of rules are satisfied (interior) or violated.

Each classification is emitted as a Hypothesis event (``rule-id: boundary``) and, where a distance
exists, as ``hypothesis.target(-distance, label=rule-id)``, so Hypothesis (and coverage-guided tools
reading its observations) steer cases towards the boundaries.
"""

from __future__ import annotations

import zlib
from collections import defaultdict
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Iterable, Mapping

import numpy as np

from ...cases.case import Case
from ...spec.domains import field_domains
from ...spec.params import INT64
from ...spec.products import POSITION_BUFFER
from ...spec.registry import get_api
from ...spec.rules import ERROR, POSITION_NAMES, Context, FrozenValues, Rule, Values, buffer_alignment, domain_value

INTERIOR, BOUNDARY, VIOLATED, NA = "interior", "boundary", "violated", "n/a"
STATUSES: tuple[str, ...] = (INTERIOR, BOUNDARY, VIOLATED, NA)
#: Largest number of steps a relational rule is probed for (at `LEVELS`: 1 tells the boundary, the others a distance).
PROBE_STEPS = 64
LEVELS = (1, 2, 8, PROBE_STEPS)
#: Field name endings that are flags or shapes, never probed.
_NOT_PROBED = (".position", ".present", ".bitwise", ".nwords", ".placeholder", ".levels")


@dataclass(frozen=True)
class Point:
    """One rule's verdict on one case: status, and distance in steps to the nearest boundary (None: unmeasured)."""

    status: str
    distance: float | None = None

    def to_json(self) -> dict[str, Any]:
        return {"status": self.status, "distance": self.distance}



@lru_cache(maxsize=512)
def _steps(model_name: str, ctx: Context) -> Mapping[str, int]:
    doms = field_domains(get_api(model_name), ctx, conditional=True)
    return {name: max(1, int(d.step)) for name, d in doms.items()}


def _tensor_align(case: Case, tensor: str) -> int:
    decl = case.model.tensor(tensor)
    buf = POSITION_BUFFER[POSITION_NAMES[int(case.env[f"{tensor}.position"])]]
    m = decl.align(case.ctx) if callable(decl.align) else decl.align
    if getattr(decl, "align_exact", False):
        return max(1, int(m))
    return buffer_alignment(case.ctx, buf, int(m))


def _range_point(value: int, lo: int, hi: int, step: int) -> Point:
    if value < lo:
        return Point(VIOLATED, -(lo - value) / step)
    if value > hi:
        return Point(VIOLATED, -(value - hi) / step)
    d = min(value - lo, hi - value)
    return Point(BOUNDARY if d < step else INTERIOR, d / step)


def _holds(rule: Rule, env: Mapping[str, Any], case: Case) -> bool:
    return bool(rule.holds(Values(env, case.ctx, case.model), case.ctx))


@lru_cache(maxsize=4096)
def _rule_fields(model_name: str, ctx: Context, rule_id: str) -> tuple[tuple[str, int, int, int], ...]:
    """(field, step, lo, hi) of the integer fields of a rule's parameters (an address's step is its alignment)."""
    model = get_api(model_name)
    rule = model.rule_by_id[rule_id]
    steps = _steps(model_name, ctx)
    out = []
    for f in model.fields:
        if f.param not in rule.params or f.type.kind in ("bool", "enum") or f.name.endswith(_NOT_PROBED):
            continue
        out.append((f.name, steps.get(f.name, 1), f.type.lo, f.type.hi))
    return tuple(out)


def _probe_fields(case: Case, rule: Rule) -> list[tuple[str, int, int, int]]:
    """(field, step, lo, hi) of the integer fields of the rule's parameters."""
    out = []
    for name, step, lo, hi in _rule_fields(case.model.name, case.ctx, rule.id):
        if name not in case.env:
            continue
        if name.endswith(".addr"):
            step = max(step, _tensor_align(case, name[:-5]))
        out.append((name, step, lo, hi))
    return out


#: Relational rules (custom predicates) are classified on one case in `SAMPLE_EVERY` (chosen by the case's values, so
#: that the same case is always treated alike and a seed replays a campaign exactly; unclassified on the others: the
#: coverage table counts them on fewer cases), probed 1, 2, 8 and 64 steps away, or one step away only when they have
#: more than `FEW_FIELDS` integer fields (the quantifiers over repeats and iterations, costly to evaluate).
SAMPLE_EVERY = 4
FEW_FIELDS = 3


def _sampled(case: Case) -> bool:
    return zlib.crc32(repr(tuple(case.env.values())).encode()) % SAMPLE_EVERY == 0


def _relational_point(case: Case, rule: Rule, holds: bool | None = None, sampled: bool | None = None,
                      v: Values | None = None) -> Point | None:
    """Fewest steps of one field that flip the rule (1 = on the boundary), probed as `SAMPLE_EVERY` says (None: not
    classified on this case). ``holds``: the rule's verdict on the case (None: evaluated here, when sampled, on ``v``,
    the case's values)."""
    if sampled is None:
        sampled = _sampled(case)
    if not sampled:
        return None
    fields = _probe_fields(case, rule)
    if holds is None:
        holds = bool(rule.predicate(case.values() if v is None else v, case.ctx))
    limit = 1 if len(fields) > FEW_FIELDS else PROBE_STEPS
    best, _ = _probe(case, rule, holds, fields, limit)
    if not holds:
        return Point(VIOLATED, -(best or 0.0))
    if best is None:
        return Point(INTERIOR, float(2 * limit) if fields and limit == PROBE_STEPS else None)
    if best > 1 and limit < PROBE_STEPS:
        return Point(INTERIOR, None)
    return Point(BOUNDARY if best <= 1 else INTERIOR, best - 1)


def _probe(case: Case, rule: Rule, holds: bool, fields: list[tuple[str, int, int, int]],
           limit: int) -> tuple[float | None, int]:
    """(the fewest steps up to ``limit`` that flip the rule or None, the evaluations made). Every neighbour at once
    on numpy columns (one evaluation of the rule, as `check` evaluates a batch); one by one (`_probe_each`) when the
    rule does not evaluate on columns."""
    probes = [(k, name, base + sign * k * step)
              for k in LEVELS if k <= limit
              for name, step, lo, hi in fields
              for base in (int(case.env[name]),)
              for sign in (1, -1) if lo <= base + sign * k * step <= hi]
    if not probes:
        return None, 0
    try:
        flipped = _flips(case, rule, holds, probes)
    except Exception:  # noqa: BLE001 - a rule that needs plain values (or a column numpy cannot hold): one by one
        return _probe_each(case, rule, holds, fields, limit)
    best = min((float(k) for (k, _, _), f in zip(probes, flipped) if f), default=None)
    return best, len(probes)


def _flips(case: Case, rule: Rule, holds: bool, probes: list[tuple[int, str, int]]) -> list[bool]:
    """Per probe (level, field, value): the rule's verdict with that one field moved differs from ``holds``."""
    n = len(probes)
    cols = _Columns(case.env, n)
    for i, (_, name, value) in enumerate(probes):
        col = cols[name]
        if col.dtype == np.int64 and not _INT64_MIN <= value <= _INT64_MAX:
            col = cols[name] = col.astype(object)
        elif col.dtype != np.int64 and col.dtype != object:
            raise TypeError(name)
        col[i] = value
    with np.errstate(all="raise"):  # a division by zero raises as on plain values (and falls back to them)
        ok = np.asarray(rule.holds(Values(cols, case.ctx, case.model), case.ctx), dtype=bool)
    return (np.broadcast_to(ok, (n,)) != holds).tolist()


_INT64_MIN, _INT64_MAX = INT64.lo, INT64.hi


class _Columns(dict):
    """A case's fields as columns of ``n`` rows, each made when a rule first reads it (`_column`): a rule reads a
    few of a case's dozens of fields."""

    def __init__(self, env: Mapping[str, Any], n: int) -> None:
        super().__init__()
        self.env, self.n = env, n

    def __missing__(self, key: str) -> np.ndarray:
        col = self[key] = _column(self.env[key], self.n, key)
        return col

    def __contains__(self, key: object) -> bool:
        return key in self.env

    def get(self, key: str, default: Any = None) -> Any:
        return self[key] if key in self.env else default


def _column(value: Any, n: int, key: str) -> np.ndarray:
    """``value`` repeated ``n`` times as the column-wise reader holds a field: int64, or Python ints in an object
    column past int64 (a mask word), bool, float64; anything else raises."""
    t = type(value)
    if t is bool:
        return np.full(n, value, dtype=bool)
    if t is int:
        if _INT64_MIN <= value <= _INT64_MAX:
            return np.full(n, value, dtype=np.int64)
        col = np.empty(n, dtype=object)
        col[:] = value
        return col
    if t is float:
        return np.full(n, value, dtype=np.float64)
    raise TypeError(key)


def _probe_each(case: Case, rule: Rule, holds: bool, fields: list[tuple[str, int, int, int]],
                limit: int) -> tuple[float | None, int]:
    """`_probe` one neighbour at a time on plain values, stopping at the first that flips the rule."""
    best: float | None = None
    done = 0
    for k in LEVELS:
        if k > limit or best is not None:
            break
        for name, step, lo, hi in fields:
            base = int(case.env[name])
            for sign in (1, -1):
                value = base + sign * k * step
                if not lo <= value <= hi:
                    continue
                env = dict(case.env)
                env[name] = value
                done += 1
                try:
                    flipped = _holds(rule, env, case) != holds
                except Exception:  # noqa: BLE001 - a neighbour a predicate cannot evaluate is no boundary
                    flipped = False
                if flipped:
                    best = float(k)
                    break
            if best is not None:
                break
    return best, done


def classify_rule(case: Case, rule: Rule, sampled: bool | None = True, *, valid: bool = False,
                  v: Values | None = None) -> Point | None:
    """The case's point for one rule (None for rules on tensor contents, which are not classified, and for a costly
    relational rule on the cases it skips). ``valid``: the case is known to satisfy every error rule (drawn by
    `ascverify.engines.properties.strategies.cases`), so an error rule in force holds without evaluating it."""
    if rule.predicate is None:
        return None
    ctx, env = case.ctx, case.env
    if v is None:
        v = case.values()
    if rule.when is not None and not bool(rule.when(v, ctx)):
        return Point(NA)
    dom = rule.domain
    kind = dom.get("kind")
    # the predicate is evaluated only where the verdict needs it (ranges, sizes, fits and disjointness are measured
    # from the values; a relational rule only on the cases it is classified on)
    if kind in ("range", "type") and dom.get("field") in env:
        name = dom["field"]
        step = _steps(case.model.name, ctx).get(name, 1)
        return _range_point(int(env[name]), int(domain_value(dom["lo"], ctx)), int(domain_value(dom["hi"], ctx)), step)
    if kind == "min_size":
        t = getattr(v, dom["tensor"])
        slack = int(t.size) - int(dom["elems"](v, ctx))
        if slack < 0:
            return Point(VIOLATED, float(slack))
        return Point(BOUNDARY if slack == 0 else INTERIOR, float(slack))
    if kind == "fits":
        tensor = dom["tensor"]
        t = getattr(v, tensor)
        buf = POSITION_BUFFER[t.position_name()]
        slack = ctx.product.physical_size(buf) - int(t.end)
        unit = _tensor_align(case, tensor)
        if slack < 0:
            return Point(VIOLATED, slack / unit)
        return Point(BOUNDARY if slack < unit else INTERIOR, slack / unit)
    if kind == "disjoint":
        a_name, b_name = dom["tensors"]
        a, b = getattr(v, a_name), getattr(v, b_name)
        if not (a.present and b.present) or int(a.size) <= 0 or int(b.size) <= 0 \
                or POSITION_BUFFER[a.position_name()] != POSITION_BUFFER[b.position_name()]:
            return Point(NA)
        gap = max(int(b.addr) - int(a.end), int(a.addr) - int(b.end))
        unit = 32
        if gap < 0:
            return Point(VIOLATED, gap / unit)
        return Point(BOUNDARY if gap < unit else INTERIOR, gap / unit)
    known = True if valid and rule.severity == ERROR else None
    if kind in ("align", "multiple", "one_of"):
        return Point(INTERIOR if known or rule.predicate(v, ctx) else VIOLATED)
    return _relational_point(case, rule, known, sampled, v)


def classify(case: Case, *, valid: bool = False) -> dict[str, Point]:
    """Every rule in force on the case's product (but rules on tensor contents) -> the case's point. ``valid``: the
    case satisfies every error rule (see `classify_rule`)."""
    out: dict[str, Point] = {}
    sampled = _sampled(case)
    v = FrozenValues(case.env, case.ctx, case.model)  # the case does not change: each parameter's view made once
    for r in case.model.rules_for(case.product):
        try:
            p = classify_rule(case, r, sampled, valid=valid, v=v)
        except Exception:  # noqa: BLE001 - a rule a case cannot be placed against is simply not classified
            continue
        if p is not None:
            out[r.id] = p
    return out


#: Rule kinds whose distance is reported as a Hypothesis target: the relations the boundary bias cannot aim at by
#: itself (a range's ends, an alignment, a choice are drawn directly; see `ascverify.engines.properties.strategies`).
TARGET_KINDS = frozenset(("custom", "min_size", "fits", "disjoint"))


def emit(points: Mapping[str, Point], rules: Mapping[str, Rule]) -> None:
    """Report the points to Hypothesis: one event per rule, a target per measurable distance of a relational,
    size, fit or disjointness rule (Hypothesis's optimiser climbs towards their boundaries)."""
    from hypothesis import event, target
    from hypothesis.control import currently_in_test_context

    if not currently_in_test_context():
        return
    for rid, p in points.items():
        event(f"{rid}: {p.status}")
        r = rules.get(rid)
        if p.distance is not None and p.status != NA and r is not None \
                and r.domain.get("kind", "custom") in TARGET_KINDS:
            d = float(p.distance)
            if d == d and abs(d) != float("inf"):
                target(-abs(d), label=rid)


@lru_cache(maxsize=512)
def _ends(model_name: str, ctx: Context) -> tuple[tuple[str, int, int], ...]:
    """(field, lowest, highest) of every argument field with more than one value (conditional rules included)."""
    model = get_api(model_name)
    doms = field_domains(model, ctx, conditional=True)
    out = []
    for f in model.fields:
        if model.param_kinds.get(f.param) == "tensor" or f.name.endswith(_NOT_PROBED) or f.type.kind == "bool":
            continue
        d = doms.get(f.name)
        if d is None or d.empty or d.values_count() < 2:
            continue
        out.append((f.name, d.nth(0), d.nth(d.values_count() - 1)))
    return tuple(out)


def field_extremes(case: Case) -> list[str]:
    """``field: lowest`` / ``field: highest`` for each argument field at an end of its domain."""
    env = case.env
    out = []
    for name, lo, hi in _ends(case.model.name, case.ctx):
        x = env.get(name)
        if x is None:
            continue
        if x == lo:
            out.append(f"{name}: lowest")
        elif x == hi:
            out.append(f"{name}: highest")
    return out


def field_events(case: Case) -> None:
    """One Hypothesis event per argument field at an end of its domain (the statistics show how often each came)."""
    from hypothesis import event
    from hypothesis.control import currently_in_test_context

    if not currently_in_test_context():
        return
    for e in field_extremes(case):
        event(e)


class Coverage:
    """Counts of statuses per API and rule (mergeable across units and worker processes)."""

    def __init__(self) -> None:
        self.counts: dict[str, dict[str, dict[str, int]]] = defaultdict(lambda: defaultdict(lambda: dict.fromkeys(STATUSES, 0)))

    def add(self, api: str, points: Mapping[str, Point]) -> None:
        per = self.counts[api]
        for rid, p in points.items():
            per[rid][p.status] += 1

    def merge(self, doc: Mapping[str, Mapping[str, Mapping[str, int]]]) -> None:
        for api, rules in doc.items():
            for rid, counts in rules.items():
                mine = self.counts[api][rid]
                for s, n in counts.items():
                    mine[s] = mine.get(s, 0) + int(n)

    def to_json(self) -> dict[str, dict[str, dict[str, int]]]:
        return {api: {rid: dict(c) for rid, c in rules.items()} for api, rules in self.counts.items()}

    def rows(self, api: str, *, include_types: bool = False, rule_order: Iterable[str] = ()) -> list[tuple[str, ...]]:
        """Table rows (rule, interior, boundary, violated, n/a) in the model's rule order."""
        rules = self.counts.get(api, {})
        order = [r for r in rule_order if r in rules] + sorted(r for r in rules if r not in set(rule_order))
        out = []
        for rid in order:
            if not include_types and rid.endswith(".type"):
                continue
            c = rules[rid]
            out.append((rid, *(str(c.get(s, 0)) for s in STATUSES)))
        return out
