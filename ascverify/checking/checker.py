"""Concrete checking: which rules a case breaks. Never calls the solver.

`check_case` evaluates one case on plain Python values; `check_cases` groups cases by API and
context and evaluates every rule once per group on numpy columns (the fast path of `check`).
Both evaluate the same rule predicates.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from operator import itemgetter
from typing import Any, Callable, Iterable, Mapping, Sequence

import numpy as np

from ..cases.case import Case
from ..spec.citations import cite
from ..spec.errors import InputError
from ..spec.rules import WARNING, Rule, Values, no_problems

#: Columns whose values all lie within this bound are int64 (products of two such values and small
#: constants stay exact); other columns hold Python ints (object arrays), exact at any size.
INT64_SAFE = 2**31


@dataclass
class Violation:
    """A rule a case breaks, with the message for its values."""

    rule: Rule
    message: str
    #: in a program: the index of the call that breaks it
    call: int | None = None
    #: a warning counted as an error (``check --strict``)
    promoted: bool = False

    @property
    def id(self) -> str:
        return self.rule.id

    @property
    def severity(self) -> str:
        return "error" if self.promoted else self.rule.severity

    def to_json(self) -> dict[str, Any]:
        out = {"rule": self.rule.id, "params": list(self.rule.params), "message": self.message,
               "source": _citation(self.rule), "severity": self.severity}
        if self.call is not None:
            out["call"] = self.call
        if self.promoted:
            out["promoted"] = "warning made an error by --strict"
        return out


_CITATIONS: dict[int, tuple[Rule, str]] = {}


def _citation(rule: Rule) -> str:
    """``rule.citation``, worded once per rule."""
    got = _CITATIONS.get(id(rule))
    if got is None or got[0] is not rule:
        got = _CITATIONS[id(rule)] = (rule, rule.citation)
    return got[1]


@dataclass
class Unchecked:
    """A rule that could not be checked, and why."""

    rule_id: str
    reason: str
    source: str = ""
    call: int | None = None

    def to_json(self) -> dict[str, Any]:
        out = {"rule": self.rule_id, "reason": self.reason, "source": cite(self.source)}
        if self.call is not None:
            out["call"] = self.call
        return out


@dataclass
class Result:
    """The verdict on one case (or the input error that kept it from being read)."""

    file: str
    index: int
    case: Case | None
    violations: list[Violation] = field(default_factory=list)
    warnings: list[Violation] = field(default_factory=list)
    unchecked: list[Unchecked] = field(default_factory=list)
    error: InputError | None = None
    #: set when the result is a whole program's (its calls' findings carry their call index)
    program: Any = None

    @property
    def valid(self) -> bool:
        return self.error is None and not self.violations

    def promote_warnings(self) -> "Result":
        """Count every warning as an error (``check --strict``); returns self."""
        for w in self.warnings:
            w.promoted = True
        self.violations.extend(self.warnings)
        self.warnings = []
        return self

    @property
    def api(self) -> str | None:
        if self.program is not None:
            return "program"
        return self.case.model.name if self.case else None

    @property
    def product(self) -> str | None:
        if self.program is not None:
            return self.program.product.id
        return self.case.product if self.case else None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"file": self.file, "index": self.index, "api": self.api, "product": self.product,
                               "valid": self.valid,
                               "violations": [v.to_json() for v in self.violations],
                               "warnings": [v.to_json() for v in self.warnings],
                               "unchecked": [u.to_json() for u in self.unchecked]}
        if self.error is not None:
            out["error"] = self.error.line()
        return out


class _Frozen(Values):
    """`Values` over fields that do not change while it is read (a case being checked, a batch's columns): each
    parameter's view is built once."""

    __slots__ = ("_views",)

    def __init__(self, env: Any, ctx: Any, model: Any) -> None:
        super().__init__(env, ctx, model)
        self._views: dict[str, Any] = {}

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):  # our own slots before they are set, and the dunder probes of copy and pickle
            raise AttributeError(name)
        views = self._views
        got = views.get(name, _MISSING)
        if got is _MISSING:
            got = views[name] = Values.__getattr__(self, name)
        return got


_MISSING = object()


def _data_rules(case: Case, rules: Sequence[Rule], result: Result) -> None:
    for r in rules:
        if r.predicate is None:
            _data_rule(case, r, result)


def _data_rule(case: Case, r: Rule, result: Result, applies: bool | None = None) -> None:
    """Check one rule that reads data or earlier calls (an order rule: noted unchecked where it applies, which
    ``applies`` says when known)."""
    if r.domain.get("kind") == "order":
        if applies is None:
            applies = r.when is None or bool(r.when(case.values(), case.ctx))
        if applies:
            result.unchecked.append(Unchecked(r.id, "depends on earlier calls: check it in a program", r.source))
        return
    missing = [t for t in r.requires_data if not case.has_data(t)]
    if missing:
        result.unchecked.append(Unchecked(r.id, f"no data given for {', '.join(missing)}", r.source))
        return
    problems = r.data_check(case, case.ctx)
    if problems:
        shown = "; ".join(problems[:3]) + (f"; and {len(problems) - 3} more" if len(problems) > 3 else "")
        _add(result, r, f"{r.message}: {shown}")


def _add(result: Result, r: Rule, message: str) -> None:
    (result.warnings if r.severity == WARNING else result.violations).append(Violation(r, message))


def _extra(case: Case, result: Result) -> None:
    hook = getattr(case.model, "unchecked", None)
    if hook is not None:
        for rule_id, reason, source in hook(case):
            result.unchecked.append(Unchecked(rule_id, reason, source))


def check_case(case: Case, *, file: str = "", index: int = 0) -> Result:
    """Every rule the case breaks (scalar evaluation)."""
    result = Result(file, index, case)
    v = case.values()
    rules = case.model.rules_for(case.product)
    try:
        for r in rules:
            if r.predicate is not None and not r.holds(v, case.ctx):
                _add(result, r, r.explain(v, case.ctx))
        _data_rules(case, rules, result)
    except InputError as exc:
        result.error = exc.at(case.origin)
        result.violations.clear()
    _extra(case, result)
    return result


def columns(cases: Sequence[Case]) -> dict[str, np.ndarray]:
    """The cases' fields as numpy columns (one array per field)."""
    model = cases[0].model
    fields = model.fields
    if not fields:
        return {}
    getter = itemgetter(*[f.name for f in fields])
    rows = [getter(c.env) for c in cases]
    table = list(zip(*rows)) if len(fields) > 1 else [tuple(rows)]
    cols: dict[str, np.ndarray] = {}
    for f, values in zip(fields, table):
        name = f.name
        if f.type.kind == "bool":
            cols[name] = np.array(values, dtype=bool)
            continue
        try:
            arr = np.array(values, dtype=np.int64)
        except OverflowError:
            cols[name] = np.array(values, dtype=object)
            continue
        if arr.size and (arr.min() <= -INT64_SAFE or arr.max() >= INT64_SAFE):
            arr = np.array(values, dtype=object)
        cols[name] = arr
    return cols


class _Reads(dict):
    """A case's fields that records, in order, the field names read from it (first reads only)."""

    __slots__ = ("read", "whole")

    def __init__(self, env: Mapping[str, Any]) -> None:
        super().__init__(env)
        self.read: dict[str, None] = {}
        #: every field was looked at (iterated): what was read does not narrow it down
        self.whole = False

    def __getitem__(self, key: str) -> Any:
        self.read[key] = None
        return dict.__getitem__(self, key)

    def get(self, key: str, default: Any = None) -> Any:
        self.read[key] = None
        return dict.get(self, key, default)

    def __contains__(self, key: object) -> bool:
        self.read[key] = None  # type: ignore[index]
        return dict.__contains__(self, key)

    def __iter__(self) -> Any:
        self.whole = True
        return dict.__iter__(self)

    def keys(self) -> Any:
        self.whole = True
        return dict.keys(self)

    def values(self) -> Any:
        self.whole = True
        return dict.values(self)

    def items(self) -> Any:
        self.whole = True
        return dict.items(self)


class _Memo:
    """Results of functions of a case's fields (a rule's message, a model's ``unchecked`` hook), remembered for
    the cases of one API and context per values of the fields the function read.

    Such a function depends only on the context and on the fields it reads. The first time, the fields read are
    recorded (in order); a later case with the same values in those fields reads the same fields and gets the same
    result. A function that read different fields for different values keeps one table per list of fields read."""

    __slots__ = ("tables",)

    def __init__(self) -> None:
        #: per function: [(fields read, their getter, their values -> result)]
        self.tables: dict[Any, list[tuple[tuple[str, ...], Any, dict[tuple, Any]]]] = {}

    def lookup(self, fn: Any, env: Mapping[str, Any]) -> Any:
        """The remembered result of ``fn`` for these fields, or _MISSING."""
        tables = self.tables.get(fn)
        if tables is not None:
            for _, getter, table in tables:
                key = _values_key(env, getter)
                if key is not None:
                    got = table.get(key, _MISSING)
                    if got is not _MISSING:
                        return got
        return _MISSING

    def remember(self, fn: Any, env: Mapping[str, Any], names: tuple[str, ...], result: Any) -> None:
        """``fn`` gave ``result`` reading exactly ``names`` (in that order) of ``env``."""
        tables = self.tables.setdefault(fn, [])
        for seen, getter, table in tables:
            if seen == names:
                break
        else:
            getter = _getter(names)
            table = {}
            tables.append((names, getter, table))
        key = _values_key(env, getter)
        if key is not None:
            table[key] = result


class _Messages(_Memo):
    """`Rule.explain` for the cases of one API and context (a `_Memo` per rule)."""

    __slots__ = ("ctx", "model")

    def __init__(self, ctx: Any, model: Any) -> None:
        super().__init__()
        self.ctx = ctx
        self.model = model

    def message(self, r: Rule, case: Case) -> str:
        env = case.env
        got = self.lookup(r, env)
        if got is not _MISSING:
            return got
        reads = _Reads(env)
        text = r.explain(_Frozen(reads, self.ctx, self.model), self.ctx)
        if not reads.whole:
            self.remember(r, env, tuple(reads.read), text)
        return text


class _CaseReads:
    """A case seen by a model's ``unchecked`` hook: its fields record what is read (`_Reads`), its other attributes
    which are read."""

    __slots__ = ("_case", "env", "_attrs")

    def __init__(self, case: Case) -> None:
        self._case = case
        self.env = _Reads(case.env)
        self._attrs: set[str] = set()

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        self._attrs.add(name)
        return getattr(self._case, name)


#: attributes of a case that are the same for every case of a batch (one API and context)
_BATCH_ATTRS = frozenset(("model", "ctx", "product", "dtype"))


class _Hook(_Memo):
    """A model's ``unchecked`` hook over the cases of one API and context: its (rule id, reason, source) triples,
    remembered per values of the fields it read when it read nothing else of the case."""

    __slots__ = ("hook",)

    def __init__(self, hook: Any) -> None:
        super().__init__()
        self.hook = hook

    def __call__(self, case: Case) -> tuple[tuple[str, str, str], ...]:
        env = case.env
        got = self.lookup(None, env)
        if got is not _MISSING:
            return got
        seen = _CaseReads(case)
        out = tuple(self.hook(seen))
        if seen._attrs <= _BATCH_ATTRS and not seen.env.whole:  # noqa: SLF001 - our own helper
            self.remember(None, env, tuple(seen.env.read), out)
        return out


def _getter(names: tuple[str, ...]) -> Callable[[Mapping[str, Any]], tuple]:
    """A function of a case's fields that returns the values of ``names`` as a tuple."""
    if len(names) > 1:
        return itemgetter(*names)
    if names:
        name = names[0]
        return lambda env: (env[name],)
    return lambda env: ()


def _values_key(env: Mapping[str, Any], getter: Callable[[Mapping[str, Any]], tuple]) -> tuple | None:
    """The values the getter reads in ``env``, with their types (True and 1 print differently), or None when one
    is missing or not hashable (such a message is not remembered)."""
    try:
        vals = getter(env)
        key = (vals, tuple(map(type, vals)))
        hash(key)
    except (KeyError, TypeError):
        return None
    return key


def check_batch(cases: Sequence[Case]) -> list[Result]:
    """Check cases of one API and one context at once on numpy columns."""
    if not cases:
        return []
    model, ctx = cases[0].model, cases[0].ctx
    n = len(cases)
    v = _Frozen(columns(cases), ctx, model)
    results = [Result("", 0, c) for c in cases]
    rules = model.rules_for(ctx.product.id)
    messages = _Messages(ctx, model)
    for r in rules:
        if r.predicate is None:
            continue
        ok = np.asarray(r.holds(v, ctx), dtype=bool)
        if ok.ndim == 0:
            if ok:
                continue
            ok = np.broadcast_to(ok, (n,))
        elif ok.all():
            continue
        for i in np.flatnonzero(~ok).tolist():
            _add(results[i], r, messages.message(r, cases[i]))
    # the rules checked case by case: those that read data or earlier calls (a state rule cannot break here)
    concrete_only = [r for r in rules if r.predicate is None and r.data_check is not no_problems]
    hook = getattr(model, "unchecked", None)
    if not concrete_only and hook is None:
        return results
    plan = [(r, _order_flags(r, v, ctx, n) if r.domain.get("kind") == "order" else None) for r in concrete_only]
    hook = _Hook(hook) if hook is not None else None
    for j, (c, res) in enumerate(zip(cases, results)):
        if plan:
            try:
                for r, flags in plan:
                    _data_rule(c, r, res, flags[j] if flags is not None else None)
            except InputError as exc:
                res.error = exc.at(c.origin)
                res.violations.clear()
        if hook is not None:
            for rule_id, reason, source in hook(c):
                res.unchecked.append(Unchecked(rule_id, reason, source))
    return results


def _order_flags(r: Rule, v: Values, ctx: Any, n: int) -> list[bool] | None:
    """Per case of a batch: the order rule ``r`` applies (its ``when`` on the columns); None when ``when`` does not
    evaluate on columns (then it is evaluated case by case)."""
    if r.when is None:
        return [True] * n
    try:
        got = np.asarray(r.when(v, ctx), dtype=bool)
        return np.broadcast_to(got, (n,)).tolist()
    except Exception:  # noqa: BLE001 - evaluated case by case instead, where any error shows as before
        return None


def check_cases(cases: Iterable[Case]) -> list[Result]:
    """Every rule each case breaks, in the order given (batched by API and context)."""
    cases = list(cases)
    groups: dict[tuple, list[int]] = defaultdict(list)
    for i, c in enumerate(cases):  # contexts are made once per model and key (ApiModel.context): by identity
        groups[(id(c.model), id(c.ctx))].append(i)
    out: list[Result | None] = [None] * len(cases)
    for idx in groups.values():
        for i, res in zip(idx, check_batch([cases[i] for i in idx])):
            out[i] = res
    return out  # type: ignore[return-value]
