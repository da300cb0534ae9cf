"""The symbolic side: an API's rules as Z3 constraints, for synthesis and minimal explanations.

`Space` holds one API's constraint space in one context (product, element types): a Z3 constant
per field and a Boolean term per rule, each guarded by an indicator literal named after the rule
so that unsat cores map back to rule ids (STYLE.md 9, after Z3's marco example).
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Iterator, Mapping, Sequence

import z3

from ..cases.case import Case
from ..cases.fields import unknown_position
from ..cases.parse import _set_arg
from ..spec.domains import field_domains
from ..spec.errors import InputError, did_you_mean
from ..spec.model import ApiModel
from ..spec.params import BoolType, EnumType, MaskArg, StructArg
from ..spec.products import POSITIONS
from ..spec.rules import ERROR, POSITION_NAMES, Context, Rule, Values
from . import interrupts
from .interrupts import UNDECIDED, decide

#: Milliseconds one solver call may take before it is abandoned.
DEFAULT_TIMEOUT_MS = 10_000
#: Whether a space has a valid case is asked with these random seeds in turn, each with this share of the query's
#: timeout, until one decides. Z3's time on these spaces is heavy-tailed: BilinearInterpolation's answer takes
#: 0.03-0.5 s with most seeds, and once went past the whole 10 s in a busy test process.
EXISTENCE_TRIES = ((0, 0.25), (7919, 0.25), (15838, 0.5))
#: `Space.iter_sample` asks a new solver (the same rules and fixes) every this many tries: an incremental solver's
#: learned lemmas make each later query slower (synth BlockReduceMax -n 300: 33 s with one solver, 7.5 s renewed every
#: 100 tries; -n 1000: over 10 minutes, 23 s; bench/RESULTS.md)
FRESH_SOLVER_EVERY = 100


def _var(name: str, kind: str) -> z3.ExprRef:
    return z3.Bool(name) if kind == "bool" else z3.Int(name)


@dataclass(frozen=True)
class Fix:
    """A field held at a value (from ``--fix name=value``)."""

    field: str
    value: Any
    given: str

    def term(self, var: z3.ExprRef) -> z3.BoolRef:
        return var == (z3.BoolVal(bool(self.value)) if z3.is_bool(var) else z3.IntVal(int(self.value)))


class Unsatisfiable(Exception):
    """No case satisfies the rules together with the fixed values; ``rules`` and ``fixes`` are a minimal core
    (``undecided``: the solver proved that no case exists but gave up finding the core; both lists are empty)."""

    def __init__(self, rules: Sequence[Rule], fixes: Sequence[Fix], *, undecided: bool = False) -> None:
        self.rules = list(rules)
        self.fixes = list(fixes)
        self.undecided = undecided
        super().__init__(", ".join(r.id for r in self.rules) or "(core undecided)")


class Undecided(InputError):
    """A solver query the answer depends on was not decided (timeout, resource limit or the time budget): the
    answer is unknown, not yes or no. An `InputError`, so that the command line reports it in one line and exits
    2 ("could not decide")."""

    def __init__(self, what: str) -> None:
        reason = interrupts.budget_text() if interrupts.budget_exhausted() else ""
        head = f"undecided: {reason}" if reason else UNDECIDED
        super().__init__(f"{head}: {what}" if what else head)
        self.what = what


@dataclass
class SampleStats:
    """What a sampling run asked and got: cases found, queries undecided, whether the time budget ran out."""

    asked: int = 0
    found: int = 0
    tries: int = 0
    undecided: int = 0
    budget_exhausted: bool = False


class Space:
    """One API's constraint space in one context: its error rules (with ``include_warnings`` its warnings too), less
    the rules ``leave_out`` names. With ``assume_noops`` (the default without the warnings) the no-op warnings
    (`Rule.noop`) are assumptions instead: a case found does something, and a conflict names the rules the case
    breaks, not "the call could be a no-op"."""

    def __init__(self, model: ApiModel, ctx: Context, *, include_warnings: bool = False,
                 timeout_ms: int = DEFAULT_TIMEOUT_MS, leave_out: Iterable[str] = (),
                 assume_noops: bool | None = None) -> None:
        self.model = model
        self.ctx = ctx
        self.timeout_ms = timeout_ms
        self.vars: dict[str, z3.ExprRef] = {f.name: _var(f.name, f.type.kind) for f in model.fields}
        self.values = Values(self.vars, ctx, model)
        left_out = set(leave_out)  # rules not held (warnings a case is allowed to draw)
        in_force = [r for r in model.rules_for(ctx.product.id) if r.symbolic and r.id not in left_out]
        assumed = not include_warnings if assume_noops is None else assume_noops
        self.rules: list[Rule] = [r for r in in_force if (include_warnings or r.severity == ERROR)
                                  and not (assumed and r.noop)]
        self.terms: dict[str, z3.BoolRef] = {}
        for r in self.rules:
            self.terms[r.id] = self.term_of(r)
        self.indicators: dict[str, z3.BoolRef] = {r.id: z3.Bool(f"rule:{r.id}") for r in self.rules}
        #: what every case of the space meets besides its rules: the assumed no-op warnings, the fields' shapes
        self.background: list[z3.BoolRef] = [self.term_of(r) for r in in_force if r.noop and assumed]
        for f in model.fields:
            if isinstance(f.type, EnumType):
                v = self.vars[f.name]
                self.background.append(z3.And(v >= 0, v <= len(f.type.choices) - 1))
        for a in model.args:
            if isinstance(a, MaskArg):
                self.background.extend(mask_shape(self.vars, a, model.mask_words))
            elif isinstance(a, StructArg) and not a.optional:  # a required struct is always given (as parsing says)
                self.background.append(self.vars[f"{a.name}.present"])

    def term_of(self, r: Rule) -> z3.BoolRef:
        """The rule's term over the space's variables."""
        t = r.holds(self.values, self.ctx)
        return t if isinstance(t, z3.BoolRef) else z3.BoolVal(bool(t))

    # -- solvers ----------------------------------------------------------------------------------------------

    def solver(self, *, seed: int = 0, tracked: bool = False, skip: Iterable[str] = ()) -> z3.Solver:
        """A solver holding every rule (as ``indicator -> term`` when tracked) except those in ``skip``.

        Ask it with `ascverify.engines.interrupts.decide` (or `decide` here): 'sat', 'unsat' or 'unknown', and
        Ctrl-C, SIGTERM and the time budget honoured."""
        s = z3.Solver()
        s.set("random_seed", seed)
        interrupts.set_timeout(s, self.timeout_ms)
        s.add(*self.background)
        skip = set(skip)
        for r in self.rules:
            if r.id in skip:
                continue
            if tracked:
                s.add(z3.Implies(self.indicators[r.id], self.terms[r.id]))
            else:
                s.add(self.terms[r.id])
        return s

    def is_satisfiable(self, fixes: Sequence[Fix] = ()) -> bool:
        """Some case satisfies every rule and the fixes (raises `Undecided` when the solver cannot tell)."""
        with interrupts.solver_region():
            _, res = self._exists(0, [f.term(self.vars[f.field]) for f in fixes])
        if res == "unknown":
            raise Undecided("whether a valid case exists")
        return res == "sat"

    def _exists(self, seed: int, terms: Sequence[z3.BoolRef]) -> tuple[z3.Solver, str]:
        """A solver holding every rule and ``terms``, and whether it has a model: asked with the seeds of
        `EXISTENCE_TRIES` in turn (each with its share of the timeout) until one decides; the last solver asked."""
        for offset, share in EXISTENCE_TRIES:
            s = self.solver(seed=seed + offset)
            interrupts.set_timeout(s, max(1, int(self.timeout_ms * share)))
            s.add(*terms)
            res = decide(s)
            if res != "unknown" or interrupts.budget_exhausted():
                break
        interrupts.set_timeout(s, self.timeout_ms)  # the solver goes on with the whole timeout per query
        return s, res

    def case_from(self, m: z3.ModelRef, origin: str = "synth") -> Case:
        """The case a Z3 model describes (fields the rules leave free take their defaults)."""
        env = self.model.default_env()
        for name, var in self.vars.items():
            val = m.eval(var, model_completion=False)
            if z3.is_true(val):
                env[name] = True
            elif z3.is_false(val):
                env[name] = False
            elif z3.is_int_value(val):
                env[name] = val.as_long()
        for f in self.model.fields:
            if f.type.kind == "bool":
                env[f.name] = bool(env[f.name])
        _normalize(self.model, env)
        return Case(self.model, self.ctx, env, origin=origin)

    # -- explanations -----------------------------------------------------------------------------------------

    def explain(self, fixes: Sequence[Fix] = (), *, extra: Mapping[str, z3.BoolRef] | None = None
                ) -> tuple[list[Rule], list[Fix]]:
        """A minimal set of rules and fixes that cannot hold together ([] when they can; `Undecided` when the
        solver cannot tell; an element whose removal it cannot decide stays in the set)."""
        with interrupts.solver_region():
            return self._explain(fixes, extra)

    def _explain(self, fixes: Sequence[Fix], extra: Mapping[str, z3.BoolRef] | None) -> tuple[list[Rule], list[Fix]]:
        s = self.solver(tracked=True)
        items: list[tuple[str, Any, z3.BoolRef]] = []
        for r in self.rules:
            items.append(("rule", r, self.indicators[r.id]))
        for i, f in enumerate(fixes):
            lit = z3.Bool(f"fix:{i}:{f.given}")
            s.add(z3.Implies(lit, f.term(self.vars[f.field])))
            items.append(("fix", f, lit))
        for name, term in (extra or {}).items():
            lit = z3.Bool(f"extra:{name}")
            s.add(z3.Implies(lit, term))
            items.append(("extra", name, lit))
        lits = [lit for _, _, lit in items]
        res = decide(s, lits)
        if res == "unknown":
            raise Undecided("which rules conflict")
        if res == "sat":
            return [], []
        core = core_ids(s)
        current = [it for it in items if it[2].get_id() in core]
        # deletion-based minimization: drop each element whose removal keeps the set unsat
        i = 0
        while i < len(current):
            trial = current[:i] + current[i + 1:]
            if decide(s, [lit for _, _, lit in trial]) == "unsat":
                core = core_ids(s)
                current = [it for it in trial if it[2].get_id() in core]
                i = 0 if len(current) < len(trial) else i
                continue
            i += 1
        rules = [obj for kind, obj, _ in current if kind == "rule"]
        fixes_out = [obj for kind, obj, _ in current if kind == "fix"]
        return rules, fixes_out

    # -- sampling ---------------------------------------------------------------------------------------------

    def sample(self, n: int, *, seed: int = 0, fixes: Sequence[Fix] = (), max_tries: int | None = None,
               stats: SampleStats | None = None) -> list[Case]:
        """Up to n distinct valid cases spread over the space (see `iter_sample`)."""
        with interrupts.solver_region():
            return list(self.iter_sample(n, seed=seed, fixes=fixes, max_tries=max_tries, stats=stats))

    def iter_sample(self, n: int, *, seed: int = 0, fixes: Sequence[Fix] = (), max_tries: int | None = None,
                    stats: SampleStats | None = None) -> Iterator[Case]:
        """Up to n distinct valid cases spread over the space (random pivots, dropped on conflict), each yielded
        as soon as it is found.

        Each case draws a random target for every field within its feasible bounds and asks the
        solver for a case meeting them; targets in the unsat core are dropped until it is satisfiable.
        Raises Unsatisfiable (with a minimal core) when no valid case meets the fixes, `Undecided` when the
        solver cannot tell whether one does. Queries the solver gives up on are counted in ``stats``
        (``undecided``); the sampling stops when the time budget runs out (``stats.budget_exhausted``).
        Run it inside `ascverify.engines.interrupts.solver_region` so that Ctrl-C stops it at once.
        """
        st = stats if stats is not None else SampleStats()
        st.asked = n
        rng = random.Random(seed)
        fix_terms = [f.term(self.vars[f.field]) for f in fixes]
        s, res = self._exists(seed, fix_terms)
        if res == "unsat":
            try:
                rules, fx = self.explain(fixes)
            except Undecided:
                raise Unsatisfiable([], [], undecided=True) from None
            raise Unsatisfiable(rules, fx)
        if res != "sat":
            st.undecided += 1
            st.budget_exhausted = interrupts.budget_exhausted()
            raise Undecided("whether any valid case exists" + (" with these --fix values" if fixes else ""))
        fixed = {f.field for f in fixes}

        domains = {name: d for name, d in field_domains(self.model, self.ctx, conditional=True).items()
                   if name not in fixed and not d.empty and d.values_count() > 1}
        tensor_names = {t.name for t in self.model.tensors}
        seen: set[tuple] = set()
        found = 0
        limit = max_tries if max_tries is not None else max(50, 20 * n)
        while found < n and st.tries < limit:
            if interrupts.budget_exhausted():
                st.budget_exhausted = True
                break
            st.tries += 1
            if st.tries % FRESH_SOLVER_EVERY == 0:  # a new solver: the old one's learned lemmas slow every query
                s, _ = self._exists(seed, fix_terms)
            # arguments first, tensor placement last: on a conflict the last drawn target goes first
            arg_fields = [k for k in domains if k.split(".")[0] not in tensor_names]
            tensor_fields = [k for k in domains if k.split(".")[0] in tensor_names]
            rng.shuffle(arg_fields)
            rng.shuffle(tensor_fields)
            order = arg_fields + tensor_fields
            active = {}
            for name in order:
                d = domains[name]
                value = d.nth(_pick(rng, 0, d.values_count() - 1))
                active[name] = self.vars[name] == _as_term(self.vars[name], value)
            m = None
            for _ in range(len(active) + 1):
                r = decide(s, list(active.values()))
                if r == "sat":
                    m = s.model()
                    break
                if r != "unsat":
                    st.undecided += 1
                    break
                core = core_ids(s)
                dropped = [k for k, t in active.items() if t.get_id() in core]
                if not dropped:
                    break
                # drop the conflicting target that was drawn last (earlier draws keep priority)
                last = max(dropped, key=order.index)
                del active[last]
            if m is None:
                continue
            case = self.case_from(m, origin=f"synth:{found}")
            key = json.dumps(case.to_json(), sort_keys=True)  # distinct as written (fields a form leaves out unseen)
            if key in seen:
                continue
            seen.add(key)
            found += 1
            st.found = found
            yield case
        st.budget_exhausted = st.budget_exhausted or interrupts.budget_exhausted()


def iter_sample_quiet(model: ApiModel, ctx: Context, n: int, *, seed: int = 0, fixes: Sequence[Fix] = (),
                      stats: SampleStats | None = None,
                      warned: Callable[[list[Rule]], None] = lambda rules: None) -> Iterator[Case]:
    """`Space.iter_sample` with the warning rules held too (cases that draw no warning), but for the warnings the
    fixes leave no case without: each such set is passed to ``warned`` and let go. A no-op warning is let go only
    when the fixes alone make the call a no-op, not to dodge an error. An error conflict raises as
    `Space.iter_sample` does."""
    left_out: list[str] = []
    assume, assumed_conflict = True, None  # the no-op warnings assumed first (`Space`), then, if need be, as rules
    while True:
        space = Space(model, ctx, include_warnings=True, leave_out=left_out, assume_noops=assume)
        try:
            yield from space.iter_sample(n, seed=seed, fixes=fixes, stats=stats)
            return
        except Unsatisfiable as exc:
            if exc.undecided:
                raise  # which rules conflict is not known
            warnings = [r for r in exc.rules if r.severity != ERROR]
            # a no-op that would only dodge an error is no way out; one the fixes ask for alone is
            dodge = any(r.noop for r in warnings) and any(r.severity == ERROR for r in exc.rules)
            if not warnings or dodge:
                if assume:  # do the fixes themselves make the call a no-op? the no-op warnings as rules say
                    assume, assumed_conflict = False, exc
                    continue
                raise assumed_conflict or exc  # the error rules conflict
            warned(warnings)
            left_out += [r.id for r in warnings]


def mask_shape(vars: Mapping[str, z3.ExprRef], arg: MaskArg, nwords: int) -> list[z3.BoolRef]:
    """What parsing guarantees of a mask's fields: one mode's fields at a time, words past the list's end 0."""
    n = arg.name
    bitwise, count, length = vars[f"{n}.bitwise"], vars[f"{n}.count"], vars[f"{n}.nwords"]
    words = [vars[f"{n}.w{i}"] for i in range(nwords)]
    out = [z3.Implies(bitwise, count == 0),
           z3.Implies(z3.Not(bitwise), z3.And(length == 0, *[w == 0 for w in words])),
           length >= 0, length <= 64]
    out += [z3.Implies(length <= i, w == 0) for i, w in enumerate(words)]
    placeholder = vars.get(f"{n}.placeholder")
    if placeholder is not None:
        out.append(z3.Implies(placeholder, z3.And(z3.Not(bitwise), count == 0)))
    return out


def core_ids(s: z3.Solver) -> set[int]:
    """The AST ids of the last unsat core's assumptions (comparing ids, not printed terms, which is slow)."""
    return {c.get_id() for c in s.unsat_core()}


def _as_term(var: z3.ExprRef, value: int) -> z3.ExprRef:
    return z3.BoolVal(bool(value)) if z3.is_bool(var) else z3.IntVal(value)


def _pick(rng: random.Random, lo: int, hi: int) -> int:
    """A target in [lo, hi]: uniform, or log-uniform over wide ranges, with the ends now and then."""
    r = rng.random()
    if r < 0.05:
        return lo
    if r < 0.10:
        return hi
    if hi - lo > 4096 and r < 0.55:
        span = hi - lo
        return lo + min(span, int(2 ** rng.uniform(0, span.bit_length())))
    return rng.randint(lo, hi)


def _normalize(model: ApiModel, env: dict[str, Any]) -> None:
    """Clear fields that the case's shape leaves unused (mask fields of the other mode)."""
    for a in model.args:
        if isinstance(a, MaskArg):
            n = a.name
            if env.get(f"{n}.placeholder"):
                continue
            if env[f"{n}.bitwise"]:
                env[f"{n}.count"] = 0
                for i in range(int(env[f"{n}.nwords"]), model.mask_words):
                    env[f"{n}.w{i}"] = 0
            else:
                env[f"{n}.nwords"] = 0
                for i in range(model.mask_words):
                    env[f"{n}.w{i}"] = 0


# -- fixes from the command line -----------------------------------------------------------------------------------

def parse_fixes(model: ApiModel, specs: Sequence[str]) -> list[Fix]:
    """``name=value`` pairs (arguments by name, tensor keys as ``dst.addr``) as field fixes."""
    import orjson

    out: list[Fix] = []
    for spec in specs:
        if "=" not in spec:
            raise InputError(f"expected name=value, got {spec!r}", field="--fix")
        name, text = spec.split("=", 1)
        name = name.strip()
        try:
            value = orjson.loads(text)
        except orjson.JSONDecodeError:
            value = text
        if name in model.field_by_name and "." in name:
            f = model.field_by_name[name]
            if name.endswith(".position"):
                if value not in POSITIONS:
                    raise InputError(unknown_position(value), field=f"--fix {name}")
                out.append(Fix(name, POSITION_NAMES.index(value), spec))
                continue
            if isinstance(f.type, BoolType):
                if not isinstance(value, bool):
                    raise InputError("expected true or false", field=f"--fix {name}")
            elif type(value) is not int:
                raise InputError(f"expected an integer, got {value!r}", field=f"--fix {name}")
            out.append(Fix(name, value, spec))
            continue
        if name in model.param_kinds and model.param_kinds[name] != "tensor":
            env: dict[str, Any] = {}
            try:
                _set_arg(env, model.arg(name), value, f"--fix {name}")
            except InputError as exc:
                raise InputError(exc.message, field=f"--fix {name}") from None
            for k, v in env.items():
                if k in model.field_by_name:
                    out.append(Fix(k, v, spec))
            continue
        names = [n for n in model.param_kinds if model.param_kinds[n] != "tensor"] + \
                [f.name for f in model.fields if "." in f.name and not f.name.split(".")[0] in
                 [a.name for a in model.args]]
        raise InputError(f"unknown parameter {name!r} of {model.name}{did_you_mean(name, names)}", field="--fix")
    return out
