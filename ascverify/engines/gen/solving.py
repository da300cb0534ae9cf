"""The solver side of generation: one tracked solver per context, targets as literals, release sets.

Every rule (warnings included) is guarded by its indicator literal (`Space`); a generation target
(``hRepeat == 1``, ``dst.size == need - 1``, ``not rule``) is one more literal. A query activates
the indicators of the rules that must hold and the target's literal, so one incremental solver
answers every question of a run (and Z3 replays the same answers for the same sequence of calls).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence

import z3

from ...cases.case import Case
from ...spec.domains import Domain, field_domains
from ...spec.model import ApiModel
from ...spec.rules import ERROR, Context, Rule, Values
from .. import interrupts
from ..explain import check, core_names, term_constants, value_term
from ..solver import Space, _pick, core_ids
from .written import file_terms

#: Milliseconds one generation query may take (then it counts as "unknown": undecided, never "unsat").
TIMEOUT_MS = 4_000


@dataclass
class Outcome:
    """A query's answer: the case found (or None), what had to be released, and why it failed."""

    status: str  # "sat", "unsat" or "unknown"
    case: Case | None = None
    released: list[str] = field(default_factory=list)
    core: list[str] = field(default_factory=list)


class Solving:
    """A tracked solver over one model and context, with cached target literals."""

    def __init__(self, model: ApiModel, ctx: Context, *, seed: int = 0, timeout_ms: int = TIMEOUT_MS) -> None:
        self.model = model
        self.ctx = ctx
        self.space = Space(model, ctx, include_warnings=True, timeout_ms=timeout_ms)
        self.errors: list[Rule] = [r for r in self.space.rules if r.severity == ERROR]
        self.warnings: list[Rule] = [r for r in self.space.rules if r.severity != ERROR]
        self.error_ids = [r.id for r in self.errors]
        self.seed = seed
        #: what a case file holds (`written.file_terms`): every query's cases are ones a file can carry
        self.file_terms = file_terms(model, self.space.vars)
        self.s = self._new_solver()
        self.rng = random.Random(seed)
        self.domains: dict[str, Domain] = field_domains(model, ctx, conditional=True)
        self._lits: dict[str, z3.BoolRef] = {}
        self._lit_names: dict[str, str] = {}
        self.queries = 0
        self.unknown = 0

    def fresh(self) -> None:
        """Start a new solver (per target): Z3's incremental state degrades after hard nonlinear queries, and
        every later query would then time out; a fresh solver keeps each target's queries independent."""
        self.s = self._new_solver()
        self._lits.clear()
        self._lit_names.clear()

    def _new_solver(self) -> z3.Solver:
        """A tracked solver of every rule, holding only what a case file can (`file_terms`)."""
        s = self.space.solver(seed=self.seed, tracked=True)
        s.add(*self.file_terms)
        return s

    def holds(self, term: z3.BoolRef, env: dict[str, Any]) -> bool:
        """Whether ``term`` is true of the case ``env`` (False when it cannot be evaluated there, or the solver cannot
        decide a quantified term: a closed formula is true exactly when it is satisfiable)."""
        subst = [(var, z3.BoolVal(bool(env[n])) if z3.is_bool(var) else z3.IntVal(int(env[n])))
                 for n, var in self.space.vars.items()]
        try:
            val = z3.simplify(z3.substitute(term, *subst))
        except z3.Z3Exception:
            return False
        if z3.is_true(val) or z3.is_false(val):
            return z3.is_true(val)
        s = z3.Solver()
        interrupts.set_timeout(s, self.space.timeout_ms)
        s.add(val)
        return check(s) == "sat"

    # -- literals ---------------------------------------------------------------------------------------------------

    def lit(self, key: str, term: z3.BoolRef) -> z3.BoolRef:
        """The literal standing for ``term`` (added once as ``lit -> term``)."""
        got = self._lits.get(key)
        if got is None:
            got = z3.Bool(f"target:{key}")
            self.s.add(z3.Implies(got, term))
            self._lits[key] = got
            self._lit_names[str(got)] = key
        return got

    def ind(self, rule_ids: Iterable[str]) -> list[z3.BoolRef]:
        return [self.space.indicators[r] for r in rule_ids]

    def query(self, lits: Sequence[z3.BoolRef]) -> str:
        self.queries += 1
        res = check(self.s, lits)
        if res == "unknown":
            self.unknown += 1
        return res

    def rules_in_core(self) -> list[str]:
        core = core_names(self.s)
        return [r for r in self.space.indicators if str(self.space.indicators[r]) in core]

    # -- cases ------------------------------------------------------------------------------------------------------

    def case_from(self, m: z3.ModelRef, origin: str) -> Case:
        """The case of a model; fields the constraints leave free take their defaults."""
        return self.space.case_from(m, origin=origin)

    def pivots(self, fraction: float = 0.6) -> dict[str, z3.BoolRef]:
        """Random targets for a random part of the fields (assumptions dropped on conflict)."""
        out: dict[str, z3.BoolRef] = {}
        for name, d in self.domains.items():
            if d.empty or d.values_count() < 2 or self.rng.random() > fraction:
                continue
            value = d.nth(_pick(self.rng, 0, d.values_count() - 1))
            out[name] = value_term(self.space.vars[name], value)
        return out

    def solve(self, rules: Sequence[str], lits: Sequence[z3.BoolRef] = (), *, spread: bool = False,
              origin: str = "gen") -> Outcome:
        """A case satisfying ``rules`` and ``lits``. With ``spread`` (or when the plain query times out, which
        nonlinear rules make common) random pivots steer the search: most fields get a random target value,
        conflicting targets are dropped (from the unsat core), and the nearly concrete problem is easy."""
        base = self.ind(rules) + list(lits)
        if not spread:
            res = self.query(base)
            if res == "sat":
                return Outcome("sat", self.case_from(self.s.model(), origin))
            if res == "unsat":
                return Outcome("unsat", core=self.rules_in_core())
        active = self.pivots()
        for _ in range(len(active) + 1):
            res = self.query(base + list(active.values()))
            if res == "sat":
                return Outcome("sat", self.case_from(self.s.model(), origin))
            if res != "unsat" or not active:
                break
            core = core_ids(self.s)  # AST ids: printing each pivot term to compare is slow (as in lint)
            dropped = [k for k, t in active.items() if t.get_id() in core]
            if not dropped:
                if spread:  # no pivot is to blame: the plain question is unsat
                    return Outcome("unsat", core=self.rules_in_core())
                break
            for k in dropped[: max(1, len(dropped) // 2)]:
                del active[k]
        if spread:
            return self.solve(rules, lits, origin=origin)
        return Outcome("unknown")

    def break_rule(self, rule_id: str, target: z3.BoolRef, *, spread: bool = False, origin: str = "gen",
                   hold: Sequence[str] | None = None, forced: Sequence[str] = ()) -> Outcome:
        """A case meeting ``target`` (which breaks ``rule_id``) with every other error rule in force if possible;
        otherwise with a minimal set of other rules released (``Outcome.released``).

        ``hold``: the rules to keep (default: every error rule but ``rule_id``); ``forced``: rules the target
        breaks by itself (known without the solver), released from the start.
        """
        forced = [r for r in forced if r != rule_id]
        others = [r for r in (self.error_ids if hold is None else hold) if r != rule_id and r not in forced]
        out = self.solve(others, [target], spread=spread, origin=origin)
        if out.status == "sat":
            out.released = list(forced)
        if out.status != "unsat":
            return out
        # the target alone (with the parsing constraints only) may be impossible
        alone = self.query([target])
        if alone != "sat":
            return Outcome(alone, core=[])
        core = [r for r in out.core if r in others]
        # the rules that read the same fields as the broken one first: the natural company of a broken rule

        mine = {str(c) for c in term_constants(self.space.terms[rule_id])} if rule_id in self.space.terms else set()
        overlap = {r: len(mine & {str(c) for c in term_constants(self.space.terms[r])}) for r in core}
        core.sort(key=lambda r: -overlap[r])
        unknown = 0
        for c in core:  # one rule released is the common case
            trial = [r for r in others if r != c]
            res = self.query(self.ind(trial) + [target])
            if res == "sat":
                return Outcome("sat", self.case_from(self.s.model(), origin), released=list(forced) + [c])
            if res == "unknown":
                unknown += 1
                if unknown >= 3:
                    return Outcome("unknown")
        # a maximal set of the other rules that can hold with the target, grown in order (core rules last):
        # its complement is a minimal set to release
        keep: list[str] = []
        order = [r for r in others if r not in core] + core
        for r in order:
            res = self.query(self.ind(keep + [r]) + [target])
            if res == "sat":
                keep.append(r)
            elif res == "unknown":
                return Outcome("unknown")
        res = self.query(self.ind(keep) + [target])
        if res != "sat":
            return Outcome(res)
        return Outcome("sat", self.case_from(self.s.model(), origin),
                       released=list(forced) + [r for r in others if r not in keep])

    def minimize(self, core: Sequence[str], lits: Sequence[z3.BoolRef], *, max_queries: int = 24) -> list[str]:
        """A minimal subset of the rules ``core`` that is unsat with ``lits`` (deletion-based; a rule whose
        removal the solver cannot decide stays)."""
        current = list(core)
        i = 0
        spent = 0
        while i < len(current) and spent < max_queries:
            trial = current[:i] + current[i + 1:]
            spent += 1
            if self.query(self.ind(trial) + list(lits)) == "unsat":
                names = core_names(self.s)
                current = [r for r in trial if str(self.space.indicators[r]) in names]
                continue
            i += 1
        return current

    def forced_by(self, field_name: str, value: Any) -> list[str]:
        """Error rules on ``field_name`` alone (unguarded range, type, multiple, one-of) that ``value`` breaks."""
        env = self.model.default_env()
        env[field_name] = value
        vals = Values(env, self.ctx, self.model)
        out = []
        for r in self.errors:
            if r.domain.get("field") == field_name and r.when is None and r.domain.get("kind") in (
                    "range", "type", "multiple", "one_of"):
                try:
                    if not r.holds(vals, self.ctx):
                        out.append(r.id)
                except Exception:  # noqa: BLE001 - a rule that needs more than the field: the solver decides
                    continue
        return out

    def extreme(self, name: str, lo: int, hi: int, rules: Sequence[str], *, largest: bool) -> tuple[int | None, bool]:
        """The largest (smallest) legal value of an integer field within [lo, hi], by bisection on models, and
        whether it is proven: (None, True) no legal value; (None, False) the solver gave up before finding one;
        (v, False) a legal value, the bisection undecided beyond it."""
        var = self.space.vars[name]
        first = self.query(self.ind(rules) + [var >= lo, var <= hi])
        if first != "sat":
            return None, first == "unsat"
        best = self.s.model().eval(var, model_completion=True).as_long()
        a, b = (best, hi) if largest else (lo, best)
        for _ in range(80):
            if a >= b:
                break
            if largest:
                mid = (a + b + 1) // 2
                res = self.query(self.ind(rules) + [var >= mid, var <= hi])
                if res == "sat":
                    a = self.s.model().eval(var, model_completion=True).as_long()
                elif res == "unsat":
                    b = mid - 1
                else:
                    return a, False
            else:
                mid = (a + b) // 2
                res = self.query(self.ind(rules) + [var <= mid, var >= lo])
                if res == "sat":
                    b = self.s.model().eval(var, model_completion=True).as_long()
                elif res == "unsat":
                    a = mid + 1
                else:
                    return b, False
        if a < b:  # 80 steps were not enough: the value is legal, not proven extreme
            return (a if largest else b), False
        return (a if largest else b), True
