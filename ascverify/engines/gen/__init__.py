"""Test-case generation: valid, boundary and rule-breaking cases with inputs, golden outputs and a manifest.

Three modes, for any registered API (nothing here is API-specific):

- ``random``: valid cases spread over the legal space (`construct`: the strategies' builder driven
  by a seeded random source, placement spread over the buffers; the solver's random pivots when
  the builder cannot serve), with a diversity report (distinct values per argument, domain ends hit);
- ``boundary``: every field's extremes and both sides of every rule's boundary (`targets`), with
  the targets no case can reach and why;
- ``negative``: for each rule, cases that break it and no other rule; rules that cannot be broken
  alone come with the minimal set of rules they drag along.

Every solver query has a timeout; a target whose queries the solver gives up on is ``unknown`` with the
reason "undecided: the solver gave up (timeout/resource limit)", never ``impossible``. ``time_budget``
caps the run's solver work (the targets left are undecided), and with ``on_interrupt="return"`` a
Ctrl-C or SIGTERM stops the solving and returns what was found (``report["stopped"]``), for the
command line to write.

Inputs are drawn by the model (`ApiModel.input_data`, else the core's random values) from a seed
per case, tensors that share bytes given the same bytes there (`shared_bytes`: `run` refuses a case whose
data differ there); golden outputs come from the core (`run_case`, strict). A case meant valid whose every data
drawn breaks a rule on tensor contents is written as the failing case it is (`_data_keeping_valid`; the boundary
mode first asks for another case, `_keeping_data_rules`). `ascverify.engines.gen.output` writes
each case as a directory and the manifest. The same seed gives the same cases in a fresh process
(Z3 replays its answers for the same sequence of queries).
"""

from __future__ import annotations

import random
import signal
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, Sequence

import numpy as np

from ...cases.case import Case
from ...checking.checker import check_case, check_cases
from ...core.memory import Fault
from ...core.run import prepare, random_values, run_case
from ...spec.domains import field_domains
from ...spec.errors import InputError
from ...spec.model import ApiModel
from ...spec.registry import get_api
from ...spec.rules import Context
from .. import interrupts
from ..explain import value_term
from ..interrupts import checkpoint, start_pool
from ..solver import SampleStats, Space
from .construct import Unsupported, build_batch, quiet_assumptions, spread_placement
from .shared_bytes import draw_inputs, make_agree
from .solving import Solving
from .targets import Target, describe_core, field_targets, negative_targets, rule_targets, solve_target
from .written import written_form

MODES = ("random", "boundary", "negative")

#: Rule kinds whose violation keeps a case off the core (absurd sizes, tensors outside their buffer).
UNRUNNABLE = ("type", "fits")


@dataclass
class GenCase:
    """One generated case: what it should show and what it does."""

    case: Case
    expect: str  # "success" or "failed"
    covers: list[str] = field(default_factory=list)
    note: str = ""
    breaks: list[str] = field(default_factory=list)
    warns: list[str] = field(default_factory=list)
    #: the rules its illegal targets say it breaks (each must be an error of its verdict)
    rules: list[str] = field(default_factory=list)
    data_seed: int = 0
    inputs: dict[str, np.ndarray] = field(default_factory=dict)
    golden: dict[str, np.ndarray] = field(default_factory=dict)
    unspecified: dict[str, np.ndarray] = field(default_factory=dict)
    faults: list[str] = field(default_factory=list)
    not_run: str = ""
    problem: str = ""


@dataclass
class Generation:
    """The cases of one run and the report that goes into the manifest."""

    model: ApiModel
    ctx: Context
    mode: str
    seed: int
    requested: int | None
    cases: list[GenCase] = field(default_factory=list)
    report: dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0
    #: cases written to the output folder so far: None while the folder is untouched (`output.write_generation`)
    written: int | None = None


def case_key(case: Case) -> tuple:
    return tuple(sorted(case.env.items()))


def data_seed(seed: int, index: int) -> int:
    return (seed * 1_000_003 + index * 7919 + 1) % (2**32)


# -- the three modes --------------------------------------------------------------------------------------------------

#: Cases `gen --mode random` writes when -n is not given.
RANDOM_DEFAULT = 100


def generate(model: ApiModel, ctx: Context, mode: str, n: int | None, seed: int = 0, *,
             progress: Callable[[str], None] | None = None, jobs: int = 1, time_budget: float | None = None,
             on_interrupt: str = "raise") -> Generation:
    """The cases of one run (not yet given data: see `materialize_many`).

    ``time_budget``: seconds for the whole run's solver work; the targets left when it runs out are undecided
    (``report["stopped"]``). ``on_interrupt``: "raise" (Ctrl-C and SIGTERM raise
    `ascverify.engines.interrupts.Interrupted`) or "return" (they stop the solving within a second and the cases found
    so far are returned, ``report["stopped"]`` saying why, ``report["interrupted"]`` naming the signal)."""
    if mode not in MODES:
        raise InputError(f"unknown mode {mode!r}; one of {', '.join(MODES)}", field="--mode")
    gen = Generation(model, ctx, mode, seed, n)
    t0 = time.perf_counter()
    try:
        with interrupts.time_budget(time_budget):
            if mode == "random":
                _random(gen, n if n is not None else RANDOM_DEFAULT, jobs)
            else:
                with interrupts.solver_region():
                    if mode == "boundary":
                        _boundary(gen, n)
                    else:
                        _negative(gen, n)
            if interrupts.budget_exhausted():
                gen.report["stopped"] = interrupts.budget_text()
    except KeyboardInterrupt as exc:
        if on_interrupt != "return":
            raise
        name = stop_generation(gen, exc)
        if mode != "random":
            gen.report.setdefault("targets", [])  # interrupted before the targets were listed
        else:  # the report of the cases kept
            gen.report.setdefault("technique", "construction (interrupted)")
            gen.report.setdefault("constructed", {"drawn": 0, "built": 0, "valid": 0, "kept": len(gen.cases),
                                                  "valid_share": None})
            gen.report.setdefault("construction_seconds", 0.0)
            gen.report.setdefault("diversity", diversity(model, ctx, [g.case for g in gen.cases]))
        _unsolved(gen, f"undecided: interrupted ({name}) before this target was solved")
    gen.seconds = time.perf_counter() - t0
    return gen


def stop_generation(gen: Generation, exc: BaseException) -> str:
    """Record that Ctrl-C or SIGTERM (``exc``) stopped the generation (``report["interrupted"]``, ``["stopped"]``)
    and that the stop is dealt with: the caller writes the cases found, its checkpoints do not stop it again (a
    second signal is let pass, a third stops the writing: `interrupts.handled`). Returns the signal's name."""
    name = signal.Signals(getattr(exc, "signum", signal.SIGINT)).name
    interrupts.handled()
    gen.report["interrupted"] = name
    gen.report["stopped"] = f"interrupted ({name})"
    return name


def _unsolved(gen: Generation, reason: str) -> None:
    """Mark the targets not solved yet (``pending``) as undecided, with ``reason``."""
    for t in gen.report.get("targets", []):
        if t.status == "pending":
            t.status, t.reason = "unknown", reason


def _undecided_reason() -> str:
    return f"undecided: {interrupts.budget_text()}" if interrupts.budget_exhausted() else interrupts.UNDECIDED


#: Random mode draws in chunks of this many cases, each from its own seeded source: the cases of a seed are the
#: same whether the chunks run in one process or in several.
CHUNK = 256


def _chunk(model_name: str, product: str, dtype: str, seed: int, k: int) -> tuple[list[dict[str, Any]], dict[str, int], str]:
    """Chunk ``k``: up to CHUNK constructed valid cases (their fields), the counts, and '' or why the builder failed."""
    model = get_api(model_name)
    ctx = model.context(product, dtype)
    rng = random.Random(f"{seed}:{k}")
    counts = {"drawn": 0, "built": 0, "valid": 0}
    sources = [random.Random(rng.getrandbits(64)) for _ in range(CHUNK)]  # one per case: built together
    with quiet_assumptions():
        try:
            built = build_batch(model, ctx, sources, own_mask=True)  # the others are left out (mask_set_elsewhere)
        except Unsupported as exc:
            return [], counts, str(exc)
    counts["drawn"] = CHUNK
    batch = [spread_placement(c, rng) if rng.random() < 0.9 else c for c in built if c is not None]
    counts["built"] = len(batch)
    envs = []
    for c, res in zip(batch, check_cases(batch) if batch else []):
        if res.valid:
            counts["valid"] += 1
            envs.append(c.env)
    return envs, counts, ""


def _random(gen: Generation, n: int, jobs: int = 1) -> None:
    model, ctx = gen.model, gen.ctx
    seen: set[tuple] = set()
    stats = None
    technique = "construction"
    totals = {"drawn": 0, "built": 0, "valid": 0}
    skipped = 0
    t0 = time.perf_counter()
    max_chunks = max(8, 40 * n // CHUNK + 1)
    k = 0
    pool = None
    if jobs > 1 and n > CHUNK:
        import multiprocessing

        # forkserver, not fork: forking a process that runs threads (a test runner, a progress display) can copy a
        # held lock into the child, which then hangs; a Ctrl-C while the workers start is raised once they are up
        mp = multiprocessing.get_context("forkserver")
        mp.set_forkserver_preload(["ascverify.engines.gen"])
        pool = start_pool(mp, jobs)
    finished = False
    try:
        checkpoint()
        while len(gen.cases) < n and k < max_chunks:
            want = max(1, min(max_chunks - k, -(-(n - len(gen.cases)) // CHUNK) + (1 if k else 0)))
            args = [(model.name, ctx.product.id, ctx.dtype.name, gen.seed, k + i) for i in range(want)]
            k += want
            failed = ""
            # in chunk order (the same cases for any number of processes), each chunk's cases kept as it comes: a
            # Ctrl-C keeps those of the chunks done
            for envs, counts, why in _chunks_in_order(pool, args):
                for key_, v in counts.items():
                    totals[key_] += v
                failed = failed or why
                for env in envs:
                    if len(gen.cases) >= n:
                        break
                    key = tuple(sorted(env.items()))
                    if key in seen:
                        continue
                    if mask_set_elsewhere(model, env):
                        skipped += 1
                        continue
                    seen.add(key)
                    gen.cases.append(GenCase(Case(model, ctx, env, origin=f"gen:{len(gen.cases)}"), "success",
                                             note="constructed"))
                _construction_report(gen, totals, t0)
            if failed:
                technique = f"solver pivots ({failed})"
                break
            if totals["valid"] == 0 and k >= 8:
                break
        finished = True
    finally:
        if pool is not None:
            if finished:
                pool.close()
            else:  # interrupted (the workers got the terminal's Ctrl-C too): a closed pool would wait for them forever
                pool.terminate()
            pool.join()
    construct_s = time.perf_counter() - t0
    constructed = len(gen.cases)
    if len(gen.cases) < n:  # the builder could not serve (or the legal space is small): the solver's pivots

        technique = technique if constructed == 0 or technique != "construction" else technique + " + solver pivots"

        space = Space(model, ctx)
        stats = SampleStats()
        for c in space.sample(n - len(gen.cases) + 8, seed=gen.seed, stats=stats):
            if len(gen.cases) >= n:
                break
            key = case_key(c)
            if key in seen or mask_set_elsewhere(model, c.env) or not check_case(c).valid:
                continue
            seen.add(key)
            c.origin = f"gen:{len(gen.cases)}"
            gen.cases.append(GenCase(c, "success", note="solver pivots"))
    gen.report["technique"] = technique
    gen.report["constructed"] = {**totals, "kept": constructed,
                                 "valid_share": round(totals["valid"] / totals["built"], 3) if totals["built"] else None}
    gen.report["construction_seconds"] = construct_s
    if skipped:
        gen.report["left_out"] = (f"{skipped} drawn cases whose mask is set by an earlier call (the placeholder): "
                                  "alone, such a call's outputs are unspecified")
    gen.report["diversity"] = diversity(model, ctx, [g.case for g in gen.cases])
    if len(gen.cases) < n:
        gen.report["shortfall"] = f"{len(gen.cases)} distinct valid cases found of the {n} asked for"
        if stats is not None and (stats.undecided or stats.budget_exhausted):
            gen.report["shortfall"] += f"; {_undecided_reason()} ({stats.undecided} undecided queries)"


def _chunks_in_order(pool: Any, args: list[tuple]) -> Iterator[tuple[list[dict[str, Any]], dict[str, int], str]]:
    """`_chunk` of each of ``args``, in their order, each yielded as soon as it and those before it are done (in the
    pool's processes when there is a pool and more than one chunk)."""
    if pool is None or len(args) < 2:
        for a in args:
            yield _chunk(*a)
        return
    pending = [pool.apply_async(_chunk, a) for a in args]
    for p in pending:
        yield p.get()


def _construction_report(gen: Generation, totals: dict[str, int], t0: float) -> None:
    """The construction's counts so far in the report (what an interrupted run reports)."""
    share = round(totals["valid"] / totals["built"], 3) if totals["built"] else None
    gen.report["constructed"] = {**totals, "kept": len(gen.cases), "valid_share": share}
    gen.report["construction_seconds"] = time.perf_counter() - t0


def mask_set_elsewhere(model: ApiModel, env: dict[str, Any]) -> bool:
    """The case calls the API with the mask placeholder (``isSetMask=false``: the mask an earlier SetVectorMask set):
    on its own such a call reads a mask nobody set, and every output is unspecified. The random mode leaves these
    out (a program with the SetVectorMask first says what they do)."""
    return any(getattr(a, "placeholder", "") and env.get(f"{a.name}.placeholder") for a in model.args
               if type(a).__name__ == "MaskArg")


def diversity(model: ApiModel, ctx: Context, cases: list[Case]) -> dict[str, Any]:
    """Distinct values per argument field and tensor field, and the domain ends (conditional domains) hit."""
    doms = field_domains(model, ctx, conditional=True)
    per_field: dict[str, int] = {}
    ends: dict[str, list[str]] = {"hit": [], "missed": []}
    for f in model.fields:
        values = {c.env[f.name] for c in cases}
        per_field[f.name] = len(values)
        d = doms.get(f.name)
        if d is None or d.empty or d.values_count() < 2 or f.type.kind in ("bool", "enum") \
                or model.param_kinds.get(f.param) == "tensor":
            continue  # tensor fields: their domains ignore the minimum sizes, so their ends say little
        for end, x in (("min", d.nth(0)), ("max", d.nth(d.values_count() - 1))):
            (ends["hit"] if x in values else ends["missed"]).append(f"{f.name}.{end}={x}")
    args = [f.name for f in model.fields if model.param_kinds.get(f.param) != "tensor"]
    counts = sorted(per_field[a] for a in args) or [0]
    return {"cases": len(cases), "distinct_values": per_field,
            "median_distinct_per_argument_field": counts[len(counts) // 2],
            "domain_ends_hit": len(ends["hit"]), "domain_ends": len(ends["hit"]) + len(ends["missed"]),
            "ends_missed": ends["missed"]}


def _limit_reached(gen: Generation, limit: int | None, t: Any) -> bool:
    """With -n N, the targets left once N cases exist are not solved (reported as such)."""
    if limit is None or len(gen.cases) < limit:
        return False
    t.status, t.reason = "not_written", f"-n {limit}: the first {limit} cases were written"
    return True


def _settled(gen: Generation, sv: Solving, t: Target, limit: int | None) -> bool:
    """Whether target ``t`` is settled without the solver (and marked so): its rule is constant in this context, the
    -n limit is reached, or the time budget is spent."""
    if t.rule is not None and _constant(sv, t.rule):
        t.status, t.reason = "context", _CONTEXT_REASON.format(p=gen.ctx.product.id, t=gen.ctx.dtype.name)
        return True
    if _limit_reached(gen, limit, t):
        return True
    if interrupts.budget_exhausted():
        t.status, t.reason = "unknown", _undecided_reason() + " before this target was solved"
        return True
    return False


def _boundary(gen: Generation, limit: int | None = None) -> None:
    sv = Solving(gen.model, gen.ctx, seed=gen.seed)
    targets = field_targets(sv) + rule_targets(sv)
    gen.report["targets"] = targets
    seen: dict[tuple, GenCase] = {}
    near: dict[str, Case | None] = {}
    near_undecided: set[str] = set()  # relational rules whose broken side is undecided
    legal = sv.error_ids
    # illegal targets first, so that the relational rules' broken cases are there for their "nearest valid" side
    order = [t for t in targets if t.kind != "custom-near"] + [t for t in targets if t.kind == "custom-near"]
    for t in order:
        if t.status != "pending" or _settled(gen, sv, t, limit):
            continue
        if t.kind == "custom-near" and t.rule in near_undecided:
            t.status, t.reason = "unknown", _undecided_reason() + " (for the broken side this case is near to)"
            continue
        out = solve_target(sv, t, origin=f"boundary:{t.id}", near=near)
        if out.status == "unsat" and t.kind == "field" and "end" in t.extra:
            # an end of the domain no legal case reaches: cover the legal extreme instead
            f = t.field
            d = sv.domains[f]
            lo, hi = d.nth(0), d.nth(d.values_count() - 1)
            best, proven = sv.extreme(f, lo, hi, legal, largest=t.extra["end"] == "max")
            t.reason = describe_core(sv, out.core, t)
            if best is None:
                if proven:
                    t.status = "impossible"
                    t.reason += "; no legal case at all"
                else:
                    t.status = "unknown"
                    t.reason += f"; the legal extreme is {_undecided_reason()}"
                continue
            t.extra["legal_extreme"] = best
            if not proven:
                t.extra["legal_extreme_proven"] = False
                t.reason += f"; a legal value, maybe not the extreme: {_undecided_reason()}"

            out = sv.solve(legal, [sv.lit(f"{t.id}:extreme", value_term(sv.space.vars[f], best))],
                           origin=f"boundary:{t.id}")
            if out.status != "sat":
                t.status = "impossible" if out.status == "unsat" else "unknown"
                if out.status != "sat" and out.status != "unsat":
                    t.reason += f"; {_undecided_reason()}"
                continue
            t.status = "clipped"
        elif out.status == "unsat":
            t.status = "impossible"
            t.reason = describe_core(sv, out.core, t if t.expect == "success" else None) \
                if t.kind != "custom-near" else "no case breaks the rule"
            continue
        elif out.status == "unknown":
            t.status = "unknown"
            t.reason = _undecided_reason()
            if t.rule is not None and t.kind == "custom" and t.expect == "failed":
                near_undecided.add(t.rule)
            continue
        else:
            t.status = "covered"
        case, why = written_showing(sv, t, out.case, _shown_term(sv, t))
        if case is None:
            t.status, t.reason = "skipped", why
            continue
        if t.expect == "success":
            case = _keeping_data_rules(gen, sv, t, case)
        t.released = out.released
        key = case_key(case)
        got = seen.get(key)
        if got is None:
            got = GenCase(case, t.expect, note=t.label)
            seen[key] = got
            gen.cases.append(got)
        got.covers.append(t.id)
        _expect_rule(got, t)
        t.cases.append(len(gen.cases) - 1 if got is gen.cases[-1] else gen.cases.index(got))
        if t.rule is not None and t.expect == "failed" and t.kind == "custom":
            near[t.rule] = case
        # other pending legal targets this case already shows
        if t.expect == "success":
            _cover_others(sv, targets, got, gen.cases.index(got))
    gen.report["targets"] = targets


def _has_data_rules(case: Case) -> bool:
    """The model has rules on tensor contents in force on the case's product."""
    return any(r.requires_data for r in case.model.rules_for(case.ctx.product.id))


def _data_breaks(case: Case, seed: int) -> list[str]:
    """The rules on tensor contents a copy of ``case`` breaks with the inputs drawn from ``seed`` (none where the model
    has no such rule)."""
    if not _has_data_rules(case):
        return []
    trial = case.with_fields()
    draw_inputs(trial, seed)
    return [v.id for v in check_case(trial).violations]


def _keeping_data_rules(gen: Generation, sv: Solving, t: Target, case: Case) -> Case:
    """A legal target's case whose drawn inputs break no rule on tensor contents: the solver's, or, when the data
    drawn for it break one (BilinearInterpolation with src0 under dst: every src0 block stored over before a later
    iteration gathers it), the target solved again with the warnings held too (no overlap), less those the target
    cannot keep (each unsat core's warnings released, `DATA_RETRIES` times at most). The first case stays when no
    query finds a better one (then `_data_keeping_valid` writes it as failing)."""
    seed = data_seed(gen.seed, len(gen.cases))
    if not _data_breaks(case, seed):
        return case
    shown = _shown_term(sv, t)
    warnings = [w.id for w in sv.warnings]
    for _ in range(DATA_RETRIES):
        sv.fresh()
        out = sv.solve(sv.error_ids + warnings, [sv.lit(t.id, shown)] if shown is not None else [],
                       origin=f"boundary:{t.id} (warnings held)")
        if out.status == "unsat":
            released = [r for r in out.core if r in warnings]
            if not released:
                return case
            warnings = [w for w in warnings if w not in released]
            continue
        if out.status != "sat":
            return case
        again, _ = written_showing(sv, t, out.case, shown)
        return again if again is not None and not _data_breaks(again, seed) else case
    return case


def _cover_others(sv: Solving, targets: list, gc: GenCase, index: int) -> None:
    """Mark the pending legal targets the valid case ``gc`` (as its file holds it) shows as covered by it."""
    for t in targets:
        if t.status != "pending" or t.expect != "success" or t.kind == "custom-near":
            continue
        if t.rule is not None and sv.model.rule_by_id[t.rule].severity != "error":
            continue
        if sv.holds(t.term(), gc.case.env):
            t.status = "covered"
            t.cases.append(index)
            gc.covers.append(t.id)


def _shown_term(sv: Solving, t: Target) -> Any:
    """What the case of target ``t`` must show: its term, or for a clipped field extreme the legal extreme."""
    if t.status == "clipped":
        return value_term(sv.space.vars[t.field], t.extra["legal_extreme"])
    return t.term() if t.term is not None else None


def written_showing(sv: Solving, t: Target, case: Case, term: Any) -> tuple[Case | None, str]:
    """The case as its file holds it (`written_form`: written and read back as `check` reads it) when it still shows
    target ``t``: ``term`` true of it and the verdict ``t`` expects (an illegal target's rule an error of its check;
    a legal target no error); else None and why not (the solver's case showed it only through fields its file does
    not hold, or values the reader refuses)."""
    try:
        written = written_form(case)
    except InputError as exc:
        return None, f"its case cannot be written as a case file: {exc}"
    errors = {v.id for v in check_case(written).violations}
    verdict_shown = t.rule in errors if t.expect == "failed" else not errors
    if not verdict_shown or (term is not None and not sv.holds(term, written.env)):
        return None, ("the solver's case shows it only through fields a case file does not hold (an optional "
                      "argument left out, an AddrReg level past its lists): written out it would not")
    return written, ""


def _expect_rule(gc: GenCase, t: Target) -> None:
    """Record the rule an illegal target says its case breaks (`_record` checks the verdict draws it)."""
    if t.expect == "failed" and t.rule is not None and t.rule not in gc.rules:
        gc.rules.append(t.rule)


def _negative(gen: Generation, limit: int | None = None) -> None:
    sv = Solving(gen.model, gen.ctx, seed=gen.seed)
    targets = negative_targets(sv)
    gen.report["targets"] = targets
    seen: set[tuple] = set()
    for t in targets:
        if _settled(gen, sv, t, limit):
            continue
        out = solve_target(sv, t, origin=f"negative:{t.rule}")
        if out.status != "sat":
            t.status = "impossible" if out.status == "unsat" else "unknown"
            t.reason = ("the rule holds for every value of the parameters' types" if not out.core
                        else "conflicts with " + ", ".join(out.core)) if out.status == "unsat" else _undecided_reason()
            continue
        case, why = written_showing(sv, t, out.case, t.term())
        if case is None:
            t.status, t.reason = "impossible", why
            continue
        t.status = "covered"
        t.released = out.released
        key = case_key(case)
        if key in seen:
            continue
        seen.add(key)
        gen.cases.append(GenCase(case, t.expect, covers=[t.id], note=t.label))
        _expect_rule(gen.cases[-1], t)
        t.cases.append(len(gen.cases) - 1)
    # rules on tensor contents: a valid case with random data of the whole element range
    _data_rules(gen, sv, targets)
    gen.report["targets"] = targets


_CONTEXT_REASON = ("the rule reads no field of the case on {p} with T={t}: it is about the product or the element "
                   "types, which a case of this run cannot change")


def _constant(sv: Any, rule_id: str) -> bool:
    import z3

    t = z3.simplify(sv.space.terms[rule_id])
    return z3.is_true(t) or z3.is_false(t)


def _data_rules(gen: Generation, sv: Any, targets: list) -> None:
    model, ctx = gen.model, gen.ctx
    for r in model.rules_for(ctx.product.id):
        if not r.symbolic and r.domain.get("kind") != "data":  # e.g. an order rule: a matter of a program
            targets.append(Target(f"negate:{r.id}", f"[{r.id}] broken", "failed", rule=r.id,
                                  kind=r.domain.get("kind", "custom"), status="skipped",
                                  reason="it depends on earlier calls of a program, not on one case"))
    rules = [r for r in model.rules_for(ctx.product.id)
             if not r.symbolic and r.domain.get("kind") == "data" and r.severity == "error"]
    if not rules:
        return

    base = sv.solve(sv.error_ids, [], origin="negative:data") if not interrupts.budget_exhausted() else None
    for r in rules:
        t = Target(f"negate:{r.id}", f"[{r.id}] broken (tensor contents)", "failed", rule=r.id, kind="data")
        targets.append(t)
        if base is None or base.status == "unknown":
            t.status, t.reason = "unknown", _undecided_reason() + ": no valid case to start from was found"
            continue
        if base.status != "sat":
            t.status, t.reason = "impossible", "no valid case to start from"
            continue
        found = None
        for k in range(16):
            rng = np.random.default_rng(data_seed(gen.seed, 10_000 + k))
            c = Case(model, ctx, dict(base.case.env), origin=f"negative:{r.id}")
            for name in r.requires_data:
                c.set_data(name, random_values(c.tensor(name).dtype, c.tensor(name).size, rng))
            make_agree(c, r.requires_data)  # tensors sharing bytes hold the same bytes there (`shared_bytes`)
            ids = [v.id for v in check_case(c).violations]
            if ids == [r.id]:
                found = c
                break
        if found is None:
            t.status, t.reason = "impossible", "random data over the whole element range never broke it alone"
            continue
        t.status = "covered"
        gen.cases.append(GenCase(found, "failed", covers=[t.id], note=t.label))
        _expect_rule(gen.cases[-1], t)
        t.cases.append(len(gen.cases) - 1)


# -- inputs, goldens, verdicts ----------------------------------------------------------------------------------------

def materialize_many(gcs: Sequence[GenCase], seeds: Sequence[int]) -> None:
    """Give each case its inputs (from its seed), run it on the core, record goldens and the final verdict. The
    rules are checked on all the cases at once (`check_cases`, before the core and again with the data); each case
    runs on the core on its own."""
    pres = check_cases([gc.case for gc in gcs])
    results = [_run_on_core(gc, seed, pre) for gc, seed, pre in zip(gcs, seeds, pres)]
    verdicts = check_cases([gc.case for gc in gcs])  # now with the data: rules on tensor contents are checked too
    for gc, result, verdict in zip(gcs, results, verdicts):
        _record(gc, result, verdict)


def _run_on_core(gc: GenCase, seed: int, pre: Any) -> Any:
    """The case's inputs (from ``seed``) and its run on the core, or why it was not run; its RunResult or None."""
    case = gc.case
    gc.data_seed = seed
    blocking = [v.rule.id for v in pre.violations if v.rule.domain.get("kind") in UNRUNNABLE]
    result = None
    if blocking:
        gc.not_run = "broken: " + ", ".join(blocking) + " (the core needs representable values and tensors in their buffers)"
        try:
            draw_inputs(case, seed)
            _, inputs = prepare(case, seed=seed)
            gc.inputs = {k: np.array(v) for k, v in inputs.items()}
        except Exception:  # noqa: BLE001 - an invalid case may not even lay out
            gc.inputs = {}
    else:
        try:
            # the inputs prepare would draw, made to agree on the bytes tensors share (`run` refuses a case whose
            # data differ there): the golden is then what `run` computes for the written case
            if gc.expect == "success" and not pre.violations:
                seed = _data_keeping_valid(gc, seed)
            else:
                draw_inputs(case, seed)
            result = run_case(case, seed=seed, strict=gc.expect == "success" and not pre.violations)
        except Fault as exc:
            gc.faults = [str(exc)]
            if not pre.violations:
                gc.problem = f"the core faulted on a valid case: {exc}"
        except Exception as exc:  # noqa: BLE001 - the core need not cope with every invalid case
            if not pre.violations:
                raise
            gc.not_run = f"{type(exc).__name__}: {str(exc)[:200]}"
        if result is not None:
            gc.inputs = {k: np.array(v) for k, v in result.inputs.items()}
            gc.faults = [str(f) for f in result.faults]
    return result


#: Draws of a valid case's data (the model's `ApiModel.input_data`) tried before the case is called invalid with data.
DATA_DRAWS = 4
#: Queries `_keeping_data_rules` asks for a legal target whose case no drawn data keeps valid.
DATA_RETRIES = 4


def _data_keeping_valid(gc: GenCase, seed: int) -> int:
    """Give a case meant valid (no rule broken without data) inputs that break no rule on tensor contents; the seed
    used. The model draws such data where it can (`ApiModel.input_data`: BilinearInterpolation's src0Offset picks
    blocks no earlier iteration stored over), but legal parameters may leave none: every src0 block stored over
    before the last iteration reads one. After `DATA_DRAWS` draws breaking such a rule the case is written as the
    failing case it is (``expect`` "failed", the data rules it breaks, the note saying why); the legal targets it
    was to show are then not covered (`output.coverage`)."""
    case = gc.case
    had = {d.name for d in case.model.tensors if case.has_data(d.name)}
    draw_inputs(case, seed)
    if not _has_data_rules(case):
        return seed
    broken: list[str] = []
    for k in range(DATA_DRAWS):
        if k:
            case.forget_data(d.name for d in case.model.tensors if d.name not in had)
            draw_inputs(case, data_seed(seed, k))
        broken = [v.id for v in check_case(case).violations]
        if not broken:
            gc.data_seed = seed if not k else data_seed(seed, k)
            return gc.data_seed
    # written with the data of its own seed (the manifest's data_seed), breaking what that data breaks
    case.forget_data(d.name for d in case.model.tensors if d.name not in had)
    draw_inputs(case, seed)
    broken = [v.id for v in check_case(case).violations]
    gc.expect = "failed"
    gc.rules = broken
    gc.note = (gc.note + "; " if gc.note else "") + (
        f"its arguments are legal, but {DATA_DRAWS} draws of its data all break {', '.join(broken)}: "
        "written as a failing case")
    return seed


def _record(gc: GenCase, result: Any, verdict: Any) -> None:
    """The case's goldens (a valid case the core ran without a fault) and its final verdict."""
    case = gc.case
    gc.breaks = [v.id for v in verdict.violations]
    gc.warns = [v.id for v in verdict.warnings]
    if result is not None and verdict.valid and not gc.faults:
        for decl in case.model.tensors:
            t = case.tensor(decl.name)
            if decl.role in ("out", "inout") and decl.name in result.tensors:
                gc.golden[decl.name] = result.tensors[decl.name]
                poisoned = result.memory.poisoned(t.buffer, t.addr, t.nbytes).reshape(t.size, -1).any(axis=1)
                if poisoned.any():
                    gc.unspecified[decl.name] = poisoned
    if gc.expect == "success" and not verdict.valid and not gc.problem:
        gc.problem = "expected valid but breaks " + ", ".join(gc.breaks)
    if gc.expect == "failed" and verdict.valid and not gc.problem:
        gc.problem = "expected to break a rule but is valid"
    missing = [r for r in gc.rules if r not in gc.breaks]
    if gc.expect == "failed" and missing and not gc.problem:
        gc.problem = "expected to break " + ", ".join(missing) + " but does not"


def summary_counts(gen: Generation) -> dict[str, int]:
    c = Counter(g.expect for g in gen.cases)
    return {"cases": len(gen.cases), "success": c.get("success", 0), "failed": c.get("failed", 0)}
