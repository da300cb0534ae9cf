"""Rule-base lint: is each API's rule set sound and free of dead weight, per product and element type?

For every registered API, every product that supports it and every element type it supports there
(a *context*), with the rules as Z3 terms (`ascverify.engines.solver.Space`):

- ``no-legal-case``: no case satisfies every error rule (reported with a minimal set of conflicting rules);
- ``vacuous``: a rule no value of the parameters' C types can break (its negation is unsat with the
  type rules and the case format alone): it checks nothing;
- ``redundant``: a rule the other error rules imply (its negation is unsat with all of them), reported
  with a minimal set of the rules that imply it; for a warning: it never fires on a valid case;
- ``contradiction``: two rules whose conditions (``when``) can hold together but whose requirements
  cannot (unsat with the type rules), or one rule that forbids its own condition. When the whole set
  is satisfiable, two unguarded rules cannot contradict, so only pairs with a condition, or every
  pair of a context with no legal case, are checked; only pairs that read a common field can conflict
  (a rule that conflicts alone is reported as a pair with itself).

Not findings, by design: rules that read no field in a context (product support, element types:
they are about the context, not the case), and type rules implied by a narrower range rule (the type
rule stays so that a value beyond the C type is reported as such).

A finding is *explained* when the model's ``lint_expected`` maps ``RULE`` or ``KIND:RULE`` (kind:
vacuous, redundant, contradiction, no-legal-case) to one of its spec notes; ``lint`` exits 1 on an
unexplained finding. Every query has a timeout; an undecided query is never taken for an answer (no
finding, and no "not a finding" either): it is listed in ``ContextReport.undecided`` ("undecided: the
solver gave up (timeout/resource limit)"), which a CI run can fail on. ``lint(..., deadline=...)`` caps
the whole run: contexts and queries left when it passes are undecided. Ctrl-C or SIGTERM stops a
context within a second (`ascverify.engines.interrupts`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence

import z3

from ..checking.checker import check_cases
from ..spec.model import ApiModel
from ..spec.params import EnumType
from ..spec.registry import get_api
from ..spec.rules import ERROR, Context, Rule, Values
from . import interrupts
from .explain import check, core_names, term_constants, value_term
from .gen.construct import builder, quiet_assumptions
from .solver import Space, core_ids

#: Milliseconds one lint query may take.
QUERY_TIMEOUT_MS = 2_000
KINDS = ("no-legal-case", "vacuous", "redundant", "contradiction")
#: Valid cases whose values pin the fields a redundancy question does not read, tried in turn while Z3 answers
#: "unknown" (one case's pivots can make the question hard where another's make it easy), each for at most
#: FIRST_TRY_MS before the first case's pivots get the whole per-query timeout.
PIVOT_CASES = 3
FIRST_TRY_MS = 5_000


@dataclass
class Finding:
    """One lint finding in one context, and the spec note that explains it (if any)."""

    api: str
    product: str
    dtype: str
    kind: str
    rules: list[str]
    detail: str
    related: list[str] = field(default_factory=list)
    note: str | None = None
    note_title: str = ""

    @property
    def explained(self) -> bool:
        return self.note is not None

    def to_json(self) -> dict[str, Any]:
        return {"api": self.api, "product": self.product, "dtype": self.dtype, "kind": self.kind, "rules": self.rules,
                "detail": self.detail, "related": self.related, "explained_by": self.note}


@dataclass
class ContextReport:
    """Lint of one (API, product, element type)."""

    api: str
    product: str
    dtype: str
    rules: int = 0
    legal: str = "unknown"  # "yes", "no" or "unknown"
    findings: list[Finding] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)
    context_rules: list[str] = field(default_factory=list)
    seconds: float = 0.0
    queries: int = 0
    #: the context whose rules are the same (its lint is reused)
    same_as: str = ""
    #: what looks like a finding but is by design (a rule that bans its condition here, and rules under a ban)
    by_design: list[str] = field(default_factory=list)
    #: the time budget ran out during (or before) this context: what is left is in ``undecided``
    budget_exhausted: bool = False

    @property
    def undecided(self) -> list[str]:
        """The questions the solver could not decide (timeout, resource limit, time budget): neither a finding nor
        the absence of one (the same list as ``unknown``)."""
        return self.unknown

    def to_json(self) -> dict[str, Any]:
        return {"api": self.api, "product": self.product, "dtype": self.dtype, "rules": self.rules,
                "legal_case_exists": self.legal, "findings": [f.to_json() for f in self.findings],
                "unknown": self.unknown, "undecided": len(self.unknown), "undecided_queries": list(self.unknown),
                "budget_exhausted": self.budget_exhausted, "context_rules": self.context_rules,
                "queries": self.queries, "same_rules_as": self.same_as or None, "by_design": self.by_design}


class _Linter:
    """The queries of one context, each on a fresh solver (Z3's incremental state degrades after hard
    nonlinear queries, and every later query would then time out)."""

    def __init__(self, model: ApiModel, ctx: Context, timeout_ms: int) -> None:
        self.model = model
        self.ctx = ctx
        self.timeout_ms = timeout_ms
        self.space = Space(model, ctx, include_warnings=True, timeout_ms=timeout_ms)
        self.terms = self.space.terms
        self.ind = self.space.indicators
        self.queries = 0
        simplified = {r.id: z3.simplify(self.terms[r.id]) for r in self.space.rules}
        self.constant = {rid for rid, t in simplified.items() if z3.is_true(t) or z3.is_false(t)}
        self.rules = [r for r in self.space.rules if r.id not in self.constant]
        self.types = [r.id for r in self.space.rules if r.domain.get("kind") == "type"]
        self.errors = [r.id for r in self.space.rules if r.severity == ERROR]
        #: rules that, in this context, forbid their own condition by design: the requirement is constant false
        #: (e.g. "the AddrReg form takes 8- to 32-bit types" on a 64-bit type), so the rule reads "not the condition"
        self.bans = []
        #: warnings that, in this context, fire whenever they apply by design (a 64-bit T with an AddrReg: the page
        #: lists 8- to 32-bit types, the vendor's code takes 64-bit ones): not a contradiction, and no ban either
        self.always_warned = []
        for r in self.rules:
            if r.when is None or r.predicate is None:
                continue
            pred = r.predicate(self.space.values, ctx)
            pred = pred if isinstance(pred, z3.BoolRef) else z3.BoolVal(bool(pred))
            if z3.is_false(z3.simplify(pred)):
                (self.bans if r.severity == ERROR else self.always_warned).append(r.id)

    def solver(self, rules: Iterable[str] = (), extra: Sequence[z3.BoolRef] = (), *, tracked: bool = False,
               timeout_ms: int | None = None) -> z3.Solver:
        s = z3.Solver()
        interrupts.set_timeout(s, self.timeout_ms if timeout_ms is None else timeout_ms)
        s.add(*self.space.background)
        for r in rules:
            s.add(z3.Implies(self.ind[r], self.terms[r]) if tracked else self.terms[r])
        s.add(*extra)
        return s

    def q(self, rules: Iterable[str], extra: Sequence[z3.BoolRef] = ()) -> str:
        self.queries += 1
        return check(self.solver(rules, extra))

    def core(self, rules: Sequence[str], extra: Sequence[z3.BoolRef] = ()) -> list[str]:
        """A minimal subset of ``rules`` that is unsat with ``extra`` (deletion-based, on unsat cores)."""
        s = self.solver(rules, extra, tracked=True)
        self.queries += 1
        if check(s, [self.ind[r] for r in rules]) != "unsat":
            return list(rules)
        names = core_names(s)
        current = [r for r in rules if str(self.ind[r]) in names]
        i = 0
        while i < len(current):
            trial = current[:i] + current[i + 1:]
            self.queries += 1
            if check(s, [self.ind[r] for r in trial]) == "unsat":
                names = core_names(s)
                current = [r for r in trial if str(self.ind[r]) in names]
                continue
            i += 1
        return current

    def breaks_alone(self, r: Rule, env: dict[str, Any]) -> bool:
        """The case ``env`` (every field given) breaks ``r`` and no other error rule, within the case format: one
        query with nothing left to search."""
        pins = [value_term(v, env[n]) for n, v in self.space.vars.items()]
        self.queries += 1
        return check(self.solver([x for x in self.errors if x != r.id], [z3.Not(self.terms[r.id]), *pins])) == "sat"

    def breakable(self, r: Rule, hold: Sequence[str], pivots: dict[str, z3.BoolRef], *,
                  timeout_ms: int | None = None) -> str:
        """Is there a case with every rule of ``hold`` and not ``r``? Pivots (a valid case's values of the fields
        ``r`` does not read) make the question nearly concrete; those in a core are dropped. 'sat', 'unsat' or
        'unknown' (each query within ``timeout_ms``, by default the linter's)."""
        s = self.solver(hold, [z3.Not(self.terms[r.id])], timeout_ms=timeout_ms)
        active = dict(pivots)
        for _ in range(len(active) + 2):
            self.queries += 1
            res = check(s, list(active.values()))
            if res != "unsat" or not active:
                return res
            ids = core_ids(s)  # AST ids: printing each pivot term to compare was a tenth of lint's time
            dropped = [k for k, t in active.items() if t.get_id() in ids]
            if not dropped:
                return "unsat"
            for k in dropped:
                del active[k]
        return "unknown"

    def guard(self, r: Rule) -> z3.BoolRef:
        if r.when is None:
            return z3.BoolVal(True)
        g = r.when(self.space.values, self.ctx)
        return g if isinstance(g, z3.BoolRef) else z3.BoolVal(bool(g))

    def fingerprint(self) -> str:
        """The context's rule terms and guards as text (bound variables renamed): contexts with the same
        fingerprint (types of one size, products with the same buffers) have the same lint."""
        import hashlib
        import re

        parts = []
        for r in self.space.rules:
            parts.append(f"{r.id}|{r.severity}|{self.terms[r.id].sexpr()}|{self.guard(r).sexpr()}")
        text = re.sub(r"__exists\d+_", "__exists_", "\n".join(parts))
        return hashlib.sha256(text.encode()).hexdigest()


def _sample(model: ApiModel, ctx: Context, first: z3.ModelRef | None, space: Space, n: int = 48) -> list[Any]:
    """Valid cases of the context: the solver's first one and some constructed ones (fast, no solver)."""
    import random

    out = []
    if first is not None:
        out.append(space.case_from(first))
    if n <= 0:
        return out
    try:
        build = builder(model, ctx)
        rng = random.Random(0)
        with quiet_assumptions():
            drawn = [build(rng) for _ in range(n)]
        drawn = [c for c in drawn if c is not None]
        out += [c for c, res in zip(drawn, check_cases(drawn)) if res.valid]
    except Exception:  # noqa: BLE001 - the sample only saves queries; without it the solver decides alone
        pass
    return out


def _pivot_tries(bases: list[Any], timeout_ms: int) -> list[tuple[Any, int]]:
    """The (pivot case, timeout) of each try of a redundancy question: each case for FIRST_TRY_MS, then the first
    for the whole timeout (each for the whole timeout when that is no longer)."""
    short = min(timeout_ms, FIRST_TRY_MS)
    if len(bases) == 1 or short == timeout_ms:
        return [(base, timeout_ms) for base in bases]
    return [(base, short) for base in bases] + [(bases[0], timeout_ms)]


def _tries(value: int, lo: int, hi: int) -> list[int]:
    """Values a field takes in a concrete try at breaking a rule: next to a valid case's value, doubled and
    halved, and at its type's extremes."""
    near = {value - 1, value + 1, value * 2, value // 2, lo, lo + 1, hi - 1, hi, 0, 1}
    return sorted(v for v in near if lo <= v <= hi and v != value)


def _type_range(model: ApiModel, name: str) -> tuple[int, int]:
    f = model.field_by_name[name]
    if isinstance(f.type, EnumType):
        return 0, len(f.type.choices) - 1
    return int(f.type.lo), int(f.type.hi)


def _broken_alone(L: _Linter, sample: Sequence[Any], rules: Sequence[Rule],
                  reads: dict[str, set[str]]) -> dict[str, Any]:
    """Per rule of ``rules``, a case that breaks it while every error rule but it holds, found without the solver:
    the sample's valid cases with one field the rule reads changed (`_tries`), all checked concretely in one
    batch. A candidate still has to be confirmed by the solver (the case format's constraints)."""
    candidates: list[tuple[str, Any]] = []
    for r in rules:
        for c in sample[:PIVOT_CASES]:
            for name in sorted(reads[r.id]):
                value = c.env.get(name)
                if isinstance(value, bool) or not isinstance(value, int):
                    continue
                lo, hi = _type_range(L.model, name)
                candidates += [(r.id, c.with_fields(**{name: v})) for v in _tries(value, lo, hi)]
    if not candidates:
        return {}
    try:
        results = check_cases([case for _, case in candidates])
    except Exception:  # noqa: BLE001 - a candidate the checker cannot take: the solver decides alone
        return {}
    found: dict[str, Any] = {}
    for (rid, case), res in zip(candidates, results):
        if rid in found or res.error is not None:
            continue
        broken = {v.id for v in res.violations}  # the error rules it breaks (warnings may fire too)
        if broken <= {rid} and rid in broken | {w.id for w in res.warnings}:
            found[rid] = case
    return found


_CACHE: dict[str, ContextReport] = {}


def lint_context(model: ApiModel, product: str, dtype: str, *, timeout_ms: int = QUERY_TIMEOUT_MS) -> ContextReport:
    """Lint one API on one product with one element type (Ctrl-C or SIGTERM: `ascverify.engines.interrupts.Interrupted`
    within a second)."""
    with interrupts.solver_region():
        return _lint_context(model, product, dtype, timeout_ms)


def _lint_context(model: ApiModel, product: str, dtype: str, timeout_ms: int) -> ContextReport:
    t0 = time.perf_counter()
    if interrupts.budget_exhausted():
        rep = ContextReport(model.name, product, dtype, budget_exhausted=True,
                            unknown=[f"everything: {interrupts.budget_text()} before this context"])
        return rep
    ctx = model.context(product, dtype)
    L = _Linter(model, ctx, timeout_ms)
    key = f"{model.name}|{timeout_ms}|{L.fingerprint()}"
    if key in _CACHE:
        done = _CACHE[key]
        rep = ContextReport(model.name, product, dtype, done.rules, done.legal,
                            [Finding(model.name, product, dtype, f.kind, f.rules, f.detail, f.related) for f in done.findings],
                            list(done.unknown), list(done.context_rules), same_as=f"{done.product} (T={done.dtype})",
                            by_design=[s.replace(f"on {done.product} with T={done.dtype}", f"on {product} with T={dtype}")
                                       for s in done.by_design])
        _explain(model, rep)
        rep.seconds = time.perf_counter() - t0
        return rep
    rep = ContextReport(model.name, product, dtype, rules=len(L.space.rules), context_rules=sorted(L.constant))
    by_id = {r.id: r for r in L.rules}

    def find(kind: str, rules: list[str], detail: str, related: Sequence[str] = ()) -> None:
        rep.findings.append(Finding(model.name, product, dtype, kind, rules, detail, list(related)))

    # 1. a legal case exists: a constructed valid case shows it; else the solver decides
    sample = _sample(model, ctx, None, L.space)
    res = "sat"
    if not sample:
        s = L.solver(L.errors)
        L.queries += 1
        res = check(s)
        if res == "sat":
            sample = _sample(model, ctx, s.model(), L.space, n=0)
    rep.legal = {"sat": "yes", "unsat": "no"}.get(res, "unknown")
    if res == "unsat":
        core = L.core(L.errors)
        find("no-legal-case", core, "no case satisfies every error rule; these conflict: " + ", ".join(core), core)
    elif res == "unknown":
        rep.unknown.append("whether a legal case exists")
    interrupts.checkpoint()

    # most rules break alone with one field of a valid case moved (`_broken_alone`): such a case, once the solver
    # confirms it with every field pinned (a query decided at once), shows the rule neither vacuous nor redundant
    asked = [r for r in L.rules if r.domain.get("kind") != "type"]
    read_by = {r.id: {str(c) for c in term_constants(L.terms[r.id])} for r in L.rules}
    breaks_alone: set[str] = set()
    for rid, witness in _broken_alone(L, sample, asked, read_by).items():
        if L.breaks_alone(by_id[rid], witness.env):
            breaks_alone.add(rid)
    interrupts.checkpoint()

    # 2. vacuous: unbreakable within the parameters' types and the case format
    for r in asked:
        if r.id in breaks_alone:
            continue
        res = L.q(L.types, [z3.Not(L.terms[r.id])])
        if res == "unsat":
            find("vacuous", [r.id], f"no value of the parameters' C types breaks it ({r.help or r.message})")
        elif res == "unknown":
            rep.unknown.append(f"vacuous {r.id}")
    vacuous = {f.rules[0] for f in rep.findings if f.kind == "vacuous"}

    # 3. redundant: implied by the other error rules (pivots: a valid case's values of the other fields). How hard
    # Z3 finds the question depends on the pivots and on what the process asked before: while undecided, it is
    # asked with up to PIVOT_CASES cases' pivots (`_pivot_tries`)
    if rep.legal != "no":
        bases = [c.env for c in sample[:PIVOT_CASES]] or [None]
        for r in asked:
            if r.id in vacuous or r.id in breaks_alone:
                continue
            reads = read_by[r.id]
            others = [x for x in L.errors if x != r.id]
            for base, timeout_ms in _pivot_tries(bases, L.timeout_ms):
                pivots = {} if base is None else {n: value_term(v, base[n]) for n, v in L.space.vars.items()
                                                  if n not in reads}
                res = L.breakable(r, others, pivots, timeout_ms=timeout_ms)
                if res != "unknown":
                    break
            if res == "unsat":
                why = L.core(others, [z3.Not(L.terms[r.id])])
                if why and set(why) <= set(L.bans):  # its condition is banned here: by design
                    rep.by_design.append(f"{r.id}: never applies on {product} with T={dtype}: {', '.join(why)} forbids "
                                         "its condition here")
                    continue
                what = "never fires on a valid case" if r.severity != ERROR else "implied by the other rules"
                shown = ", ".join(why[:6]) + (f" and {len(why) - 6} more" if len(why) > 6 else "")
                find("redundant", [r.id], f"{what}: {shown or 'the case format'}", why)
            elif res == "unknown":
                rep.unknown.append(f"redundant {r.id}")

    # 4. contradictions: two rules (or one) whose conditions can hold together but whose requirements cannot;
    # a valid case where both conditions hold shows that they can (no solver needed)
    guarded = {r.id for r in L.rules if r.when is not None}
    active: dict[str, int] = {}
    for r in L.rules:
        bits = 0
        for k, c in enumerate(sample):
            try:
                on = True if r.when is None else bool(r.when(Values(c.env, c.ctx, model), c.ctx))
            except Exception:  # noqa: BLE001 - a guard that needs data: no witness from this case
                on = False
            bits |= int(on) << k
        active[r.id] = bits
    ids = [r.id for r in L.rules if r.id not in L.bans and r.id not in L.always_warned]
    for b in L.bans:
        rep.by_design.append(f"{b}: forbids its condition on {product} with T={dtype} (its requirement is false here)")
    for w in L.always_warned:
        rep.by_design.append(f"{w}: a warning whenever it applies on {product} with T={dtype} (its requirement is false "
                             "here)")
    for i, a in enumerate(ids):
        for b in ids[i:]:
            if a != b and not (read_by[a] & read_by[b]):
                continue
            if rep.legal == "yes" and a not in guarded and b not in guarded:
                continue  # a legal case satisfies both
            if rep.legal == "yes" and active[a] & active[b]:
                continue  # a valid case where both apply
            ra, rb = by_id[a], by_id[b]
            both = z3.And(L.guard(ra), L.guard(rb))
            apply = L.q(L.types + L.bans, [both])
            if apply == "unsat":
                continue  # the conditions exclude each other (or a ban excludes one): not a contradiction
            if apply == "unknown":
                rep.unknown.append(f"contradiction {a} / {b} (whether both can apply)")
                continue
            res = L.q(L.types + L.bans + [a, b], [both])
            if res == "unsat":
                pair = [a] if a == b else [a, b]
                text = (f"{a} forbids its own condition" if a == b else
                        f"{a} and {b} cannot both hold where both apply")
                find("contradiction", pair, text)
            elif res == "unknown":
                rep.unknown.append(f"contradiction {a} / {b}")
    rep.queries = L.queries
    rep.budget_exhausted = interrupts.budget_exhausted()
    if not rep.budget_exhausted:  # a budget's undecided queries are this run's, not the context's
        _CACHE[key] = rep
    out = ContextReport(rep.api, rep.product, rep.dtype, rep.rules, rep.legal, list(rep.findings), list(rep.unknown),
                        list(rep.context_rules), queries=rep.queries, by_design=list(rep.by_design),
                        budget_exhausted=rep.budget_exhausted)
    _explain(model, out)
    out.seconds = time.perf_counter() - t0
    return out


def _explain(model: ApiModel, rep: ContextReport) -> None:
    expected = dict(getattr(model, "lint_expected", {}) or {})
    notes = {n.id: n for n in model.notes}
    for f in rep.findings:
        for rid in f.rules:
            note_id = expected.get(f"{f.kind}:{rid}") or expected.get(rid)
            if note_id is not None and note_id in notes:
                f.note, f.note_title = note_id, notes[note_id].title
                break


def contexts(models: Sequence[ApiModel], products: Sequence[str] | None = None) -> list[tuple[ApiModel, str, str]]:
    out = []
    for m in models:
        for p in m.supported_products():
            if products and p not in products:
                continue
            for t in m.support[p]:
                out.append((m, p, t))
    return out


def definition_problems(model: ApiModel) -> list[str]:
    """``lint_expected`` entries that name an unknown rule, kind or note."""
    out = []
    notes = {n.id for n in model.notes}
    for key, note in dict(getattr(model, "lint_expected", {}) or {}).items():
        kind, _, rid = key.rpartition(":") if ":" in key and key.split(":", 1)[0] in KINDS else ("", "", key)
        if kind and kind not in KINDS:
            out.append(f"{model.name}: lint_expected key {key!r}: unknown kind {kind!r}")
        if rid not in model.rule_by_id:
            out.append(f"{model.name}: lint_expected names unknown rule {rid!r}")
        if note not in notes:
            out.append(f"{model.name}: lint_expected maps {key!r} to unknown spec note {note!r}")
    return out


def _worker(job: tuple[list[tuple[str, str, str]], int, float | None, float | None]) -> list[ContextReport]:
    """Lint the contexts of one API in order (its contexts with the same rules reuse one lint)."""
    todo, timeout_ms, deadline, budget_s = job
    saved = interrupts.deadline()
    if deadline is not None:
        interrupts.set_deadline(deadline, budget_s)
    try:
        return [lint_context(get_api(name), product, dtype, timeout_ms=timeout_ms) for name, product, dtype in todo]
    finally:
        if deadline is not None:
            interrupts.set_deadline(saved)


def _indexed_worker(item: tuple[int, tuple]) -> tuple[int, list[ContextReport]]:
    """`_worker` of one API's job, with the job's place in the run (a pool hands results back as they end)."""
    i, job = item
    return i, _worker(job)


def lint(models: Sequence[ApiModel], products: Sequence[str] | None = None, *, timeout_ms: int = QUERY_TIMEOUT_MS,
         jobs: int = 1, time_budget: float | None = None,
         finished: list[ContextReport] | None = None) -> list[ContextReport]:
    """Lint every context of ``models`` (one API per process with ``jobs`` > 1); reports in context order.

    ``time_budget``: seconds for the whole run; the queries and contexts left when it runs out are reported
    undecided (``ContextReport.budget_exhausted``). ``finished``: each API's reports are added to it as soon as
    that API is linted, so that a caller stopped by Ctrl-C or SIGTERM still has them."""
    import time as _time

    per_api: dict[str, list[tuple[str, str, str]]] = {}
    for m, p, t in contexts(models, products):
        per_api.setdefault(m.name, []).append((m.name, p, t))
    deadline = _time.monotonic() + time_budget if time_budget is not None else None
    work = [(todo, timeout_ms, deadline, time_budget) for todo in per_api.values()]
    parts: list[list[ContextReport] | None] = [None] * len(work)

    def keep(i: int, reports: list[ContextReport]) -> None:
        parts[i] = reports
        if finished is not None:
            finished.extend(reports)

    if jobs <= 1 or len(work) < 2:
        for i, w in enumerate(work):
            keep(i, _worker(w))
    else:
        import multiprocessing

        # the largest APIs first, so that the pool's last task is a small one
        order = sorted(range(len(work)), key=lambda i: -len(work[i][0]) * len(get_rules(work[i][0][0][0])))
        # forkserver, not fork: forking a process that runs threads (a test runner, a progress display) can copy
        # a held lock into the child, which then hangs (seen with check under pytest-xdist)
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload(["ascverify.engines.lint"])
        pool = interrupts.start_pool(ctx, min(jobs, len(work)))
        with pool:
            interrupts.checkpoint()
            for i, res in pool.imap_unordered(_indexed_worker, [(i, work[i]) for i in order]):
                keep(i, res)
    return [r for part in parts for r in part]  # type: ignore[union-attr]


def get_rules(name: str) -> tuple[Rule, ...]:
    return get_api(name).rules
