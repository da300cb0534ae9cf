"""Concrete checking: which rules a case breaks. Never calls the solver.

`check_case` evaluates one case on plain Python values; `check_cases` groups cases by API and
context and evaluates every rule once per group on numpy columns (the fast path of `check`).
Both evaluate the same rule predicates.
"""

from __future__ import annotations

import functools
from collections import defaultdict
from dataclasses import dataclass, field
from operator import itemgetter
from typing import Any, Callable, Iterable, Mapping, Protocol, Sequence

import numpy as np

from ..cases.case import Case
from ..cases.columnar import Block, RowCase
from ..spec.citations import cite
from ..spec.errors import InputError, shown_path
from ..spec.rules import WARNING, FrozenValues, Rule, Values, no_problems
from .families import blind, blind_verdicts, family_key, shared_rules

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


@dataclass(frozen=True)
class Unchecked:
    """A rule that could not be checked, and why (read-only: one note may be shared by many results)."""

    rule_id: str
    reason: str
    source: str = ""
    call: int | None = None

    def to_json(self) -> dict[str, Any]:
        out = {"rule": self.rule_id, "reason": self.reason, "source": cite(self.source)}
        if self.call is not None:
            out["call"] = self.call
        return out


@dataclass(slots=True)
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

    def repeated(self) -> "Result":
        """The same verdict for another occurrence of the same case. The lists are shared: a result's lists are
        not changed once checked (`promote_warnings` makes new ones)."""
        return Result(self.file, self.index, self.case, self.violations, self.warnings, self.unchecked, self.error,
                      self.program)

    def promote_warnings(self) -> "Result":
        """Count every warning as an error (``check --strict``); returns self. New lists: another result may share
        the old ones (`repeated`)."""
        if self.warnings:
            for w in self.warnings:
                w.promoted = True
            self.violations = self.violations + self.warnings
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
        out: dict[str, Any] = {"file": shown_path(self.file) if self.file else self.file, "index": self.index, "api": self.api, "product": self.product,
                               "valid": self.valid,
                               "violations": [v.to_json() for v in self.violations],
                               "warnings": [v.to_json() for v in self.warnings],
                               "unchecked": [u.to_json() for u in self.unchecked]}
        if self.error is not None:
            out["error"] = self.error.line()
        return out


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
            result.unchecked.append(_order_note(r))
        return
    missing = tuple(t for t in r.requires_data if not case.has_data(t))
    if missing:
        result.unchecked.append(_no_data_note(r, missing))
        return
    problems = r.data_check(case, case.ctx)
    if problems:
        shown = "; ".join(problems[:3]) + (f"; and {len(problems) - 3} more" if len(problems) > 3 else "")
        _add(result, r, f"{r.message}: {shown}")


@functools.lru_cache(maxsize=None)
def _order_note(r: Rule) -> Unchecked:
    """The note of an order rule that applies to a single call (one per rule, shared: notes are read-only)."""
    return Unchecked(r.id, "depends on earlier calls: check it in a program", r.source)


@functools.lru_cache(maxsize=1024)
def _no_data_note(r: Rule, missing: tuple[str, ...]) -> Unchecked:
    """The note of a rule that reads the contents of tensors ``missing`` when none were given (shared, as
    `_order_note`)."""
    return Unchecked(r.id, f"no data given for {', '.join(missing)}", r.source)


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
    gathered = _gathered(cases)
    if gathered is not None:
        return gathered
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


class _Gather:
    """The columns of cases read column-wise (`RowCase`, of one API): their blocks' columns joined once; the
    columns of any subset are then taken by position (`take`)."""

    __slots__ = ("fields", "pos", "joined", "plain")

    def __init__(self, cases: Sequence[Case]) -> None:
        blocks: dict[int, int] = {}  # id(block) -> its position in `order`
        order: list[Block] = []
        which: list[int] = []
        rows: list[int] = []
        for c in cases:
            b = c.block  # type: ignore[attr-defined]
            k = blocks.get(id(b))
            if k is None:
                k = blocks[id(b)] = len(order)
                order.append(b)
            which.append(k)
            rows.append(c.row)  # type: ignore[attr-defined]
        self.fields = cases[0].model.fields
        sizes = np.array([len(b) for b in order], dtype=np.int64)
        starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
        #: per case, its row in the joined columns
        self.pos = starts[np.array(which, dtype=np.int64)] + np.array(rows, dtype=np.int64)
        self.joined = {f.name: (order[0].columns[f.name] if len(order) == 1 else
                                np.concatenate([b.columns[f.name] for b in order])) for f in self.fields}
        #: fields whose joined column is already typed as `columns` types any subset of it (bool, or int64 within
        #: the safe range): `take` then only indexes it (a window has hundreds of groups, each taking every field)
        self.plain = {f.name for f in self.fields if _plain(self.joined[f.name], f.type.kind == "bool")}

    def take(self, positions: np.ndarray | None = None) -> dict[str, np.ndarray]:
        """The columns of the cases at ``positions`` (of those given; all when None), typed as `columns` types
        them."""
        take = self.pos if positions is None else self.pos[positions]
        out: dict[str, np.ndarray] = {}
        plain = self.plain
        for f in self.fields:
            col = self.joined[f.name][take]
            if f.name in plain:
                out[f.name] = col
                continue
            if f.type.kind == "bool":
                out[f.name] = col.astype(bool, copy=False)
                continue
            if col.dtype == object:  # some value beyond int64 in a block: int64 after all when all are small here
                try:
                    col = np.array(col.tolist(), dtype=np.int64)
                except OverflowError:
                    out[f.name] = col
                    continue
            if col.size and (col.min() <= -INT64_SAFE or col.max() >= INT64_SAFE):
                col = np.array(col.tolist(), dtype=object)
            out[f.name] = col
        return out


def _plain(col: np.ndarray, is_bool: bool) -> bool:
    """A column that `_Gather.take` may hand out as it is: bool for a bool field, else int64 with every value
    within the safe range (then so is any part of it)."""
    if is_bool:
        return col.dtype == bool
    return col.dtype == np.int64 and (not col.size or (-INT64_SAFE < int(col.min()) and int(col.max()) < INT64_SAFE))


def _all_fresh_rows(cases: Sequence[Case]) -> bool:
    """Every case was read column-wise and its fields are its block's row: its env was never asked for, or it
    still holds the row's values (with their types)."""
    for c in cases:
        if c.__class__ is not RowCase:
            return False
        if not c.fresh and not _unchanged(c):  # type: ignore[attr-defined]
            return False
    return True


def _unchanged(case: RowCase) -> bool:
    env, row = case.env, case.block.env(case.row)
    if len(env) != len(row):
        return False
    for k, v in row.items():
        got = env.get(k, _MISSING)
        if type(got) is not type(v) or got != v:
            return False
    return True


def _gathered(cases: Sequence[Case]) -> dict[str, np.ndarray] | None:
    """`columns` of cases read column-wise, from their blocks; None when some case is not such a case."""
    return _Gather(cases).take() if cases and _all_fresh_rows(cases) else None


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

    def recorded(self, r: Rule, case: Case) -> tuple[str, tuple[str, ...] | None]:
        """``r``'s message for the case and the fields it read (None: it looked at them all)."""
        reads = _Reads(_fields(case))
        text = r.explain(FrozenValues(reads, self.ctx, self.model), self.ctx)
        return text, (None if reads.whole else tuple(reads.read))

    def message(self, r: Rule, case: Case) -> str:
        env = case.env
        got = self.lookup(r, env)
        if got is not _MISSING:
            return got
        reads = _Reads(env)
        text = r.explain(FrozenValues(reads, self.ctx, self.model), self.ctx)
        if not reads.whole:
            self.remember(r, env, tuple(reads.read), text)
        return text


class _CaseReads:
    """A case seen by a model's ``unchecked`` hook: its fields record what is read (`_Reads`), its other attributes
    which are read."""

    __slots__ = ("_case", "env", "_attrs")

    def __init__(self, case: Case, env: Mapping[str, Any] | None = None) -> None:
        self._case = case
        self.env = _Reads(case.env if env is None else env)
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

    def recorded(self, case: Case) -> tuple[tuple[tuple[str, str, str], ...], tuple[str, ...] | None]:
        """The hook's triples for the case and the fields it read (None: it read more than fields)."""
        seen = _CaseReads(case, _fields(case))
        out = tuple(self.hook(seen))
        if seen._attrs <= _BATCH_ATTRS and not seen.env.whole:  # noqa: SLF001 - our own helper
            return out, tuple(seen.env.read)
        return out, None

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


def _fields(case: Case) -> Mapping[str, Any]:
    """The case's fields; of a case read column-wise, a copy made from its block (its own ``env`` not built)."""
    if case.__class__ is RowCase and case.fresh:
        return case.block.env(case.row)
    return case.env


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


def check_batch(cases: Sequence[Case], exact_columns: Mapping[str, np.ndarray] | None = None,
                known: Mapping[int, np.ndarray] | None = None) -> list[Result]:
    """Check cases of one API and one context at once on numpy columns (``exact_columns``: the cases' fields,
    values and types exactly, already gathered; ``known``: id(rule) -> per case whether it holds, for rules
    already evaluated on the cases, as `check_cases` does for a family's product-blind rules)."""
    if not cases:
        return []
    model, ctx = cases[0].model, cases[0].ctx
    n = len(cases)
    cols = exact_columns if exact_columns is not None else _gathered(cases)
    by_columns = cols is not None  # the columns are the cases' fields exactly (types too): results keyed on them
    if cols is None:
        cols = columns(cases)
    v = FrozenValues(cols, ctx, model)
    results = [Result("", 0, c) for c in cases]
    rules = model.rules_for(ctx.product.id)
    messages = _Messages(ctx, model)
    memo = _ColumnMemo(cols) if by_columns else None
    for r in rules:
        if r.predicate is None:
            continue
        ok = known.get(id(r)) if known is not None else None
        if ok is None:
            ok = np.asarray(r.holds(v, ctx), dtype=bool)
        if ok.ndim == 0:
            if ok:
                continue
            ok = np.broadcast_to(ok, (n,))
        elif ok.all():
            continue
        broken = np.flatnonzero(~ok).tolist()
        if memo is not None:
            texts = memo.results(r, broken, lambda i, r=r: messages.recorded(r, cases[i]))
            for i, text in zip(broken, texts):
                _add(results[i], r, text)
        else:
            for i in broken:
                _add(results[i], r, messages.message(r, cases[i]))
    # the rules checked case by case: those that read data or earlier calls (a state rule cannot break here)
    concrete_only = [r for r in rules if r.predicate is None and r.data_check is not no_problems]
    hook = getattr(model, "unchecked", None)
    if not concrete_only and hook is None:
        return results
    # per rule: where an order rule applies (its `when` on the columns) and its note; None for a rule read case by case
    plan: list[tuple[Rule, list[bool] | None, Unchecked | None]] = []
    for r in concrete_only:
        flags = _order_flags(r, v, ctx, n) if r.domain.get("kind") == "order" else None
        plan.append((r, flags, _order_note(r) if flags is not None else None))
    hook = _Hook(hook) if hook is not None else None
    notes: list[Any] | None = None
    shared: dict[int, tuple[Any, list[Unchecked]]] = {}  # id(notes) -> (notes, their Unchecked), notes kept alive
    if hook is not None and memo is not None:
        notes = memo.results(None, list(range(n)), lambda i: hook.recorded(cases[i]))
    for j, (c, res) in enumerate(zip(cases, results)):
        if plan:
            try:
                for r, flags, note in plan:
                    if note is None:
                        _data_rule(c, r, res)
                    elif flags[j]:
                        res.unchecked.append(note)
            except InputError as exc:
                res.error = exc.at(c.origin)
                res.violations.clear()
        if hook is not None:
            if notes is not None:  # the same notes for many cases: one list of Unchecked per distinct notes
                got = notes[j]
                made = shared.get(id(got))
                if made is None:
                    made = shared[id(got)] = (got, [Unchecked(rule_id, reason, source) for rule_id, reason, source in got])
                res.unchecked.extend(made[1])
            else:
                for rule_id, reason, source in hook(c):
                    res.unchecked.append(Unchecked(rule_id, reason, source))
    return results


class _ColumnMemo:
    """Results of functions of a case's fields (a rule's message, a model's ``unchecked`` hook) for the cases of
    one batch, keyed on the batch's columns: a result is computed for the first case with new values in the
    fields the function read (as `_Memo`), and every case with the same values there shares it. Only for columns
    that are the cases' fields exactly (`_gathered`)."""

    __slots__ = ("cols", "tables")

    def __init__(self, cols: Mapping[str, np.ndarray]) -> None:
        self.cols = cols
        #: per function: fields read -> their values -> result
        self.tables: dict[Any, dict[tuple[str, ...], dict[tuple, Any]]] = {}

    def results(self, fn: Any, rows: list[int], compute: Callable[[int], tuple[Any, tuple[str, ...] | None]]) -> list:
        """``fn``'s result for each row; ``compute(i)`` gives (result, the fields it read, or None when not
        to be shared). Each new result goes at once to every row with the same values in the fields read."""
        tables = self.tables.setdefault(fn, {})
        keyed: dict[tuple[str, ...], tuple[list[tuple], dict[tuple, list[int]]]] = {}
        out: list[Any] = [_MISSING] * len(rows)
        for p, i in enumerate(rows):
            if out[p] is not _MISSING:
                continue
            got = _MISSING
            for names, table in tables.items():
                keys, _ = self._keyed(keyed, names, rows)
                got = table.get(keys[p], _MISSING)
                if got is not _MISSING:
                    break
            if got is _MISSING:
                got, names = compute(i)
                if names is not None and all(name in self.cols for name in names):
                    keys, alike = self._keyed(keyed, names, rows)
                    key = keys[p]
                    tables.setdefault(names, {})[key] = got
                    for q in alike[key]:
                        if out[q] is _MISSING:
                            out[q] = got
            out[p] = got
        return out

    def _keyed(self, keyed: dict, names: tuple[str, ...], rows: list[int]) -> tuple[list[tuple], dict[tuple, list[int]]]:
        """Per row its values of ``names``, and the rows per values (made once per call and names)."""
        got = keyed.get(names)
        if got is None:
            keys = self._keys(names, rows)
            alike: dict[tuple, list[int]] = defaultdict(list)
            for q, key in enumerate(keys):
                alike[key].append(q)
            got = keyed[names] = (keys, alike)
        return got

    def _keys(self, names: tuple[str, ...], rows: list[int]) -> list[tuple]:
        if not names:
            return [()] * len(rows)
        idx = np.array(rows, dtype=np.int64)
        return list(zip(*[self.cols[name][idx].tolist() for name in names]))


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


class VerdictMemo(Protocol):
    """Verdicts kept between calls of `check_cases` (`repeats.Repeats`: a file's repeated lines give the same case
    object in every window of `check`)."""

    def verdict(self, case: Case) -> "Result | None": ...

    def remember_verdict(self, case: Case, verdict: "Result") -> None: ...


def check_cases(cases: Iterable[Case], verdicts: VerdictMemo | None = None) -> list[Result]:
    """Every rule each case breaks, in the order given (batched by API and context). A case given more than once
    (the same object: `caseio.read_cases` with ``repeats``) is checked once; each further occurrence gets a copy of
    its result. ``verdicts``: the results of cases checked by earlier calls (copied; the cases checked here are
    added)."""
    cases = list(cases)
    first: dict[int, int] = {}
    slots = [first.setdefault(id(c), len(first)) for c in cases]
    if len(first) == len(cases) and verdicts is None:
        return _check_distinct(cases)
    distinct: list[Case | None] = [None] * len(first)
    for c, slot in zip(cases, slots):
        distinct[slot] = c
    checked = _check_remembered(distinct, verdicts)  # type: ignore[arg-type]
    seen = [False] * len(checked)
    out: list[Result] = []
    for slot in slots:
        out.append(checked[slot].repeated() if seen[slot] else checked[slot])
        seen[slot] = True
    return out


def _check_remembered(cases: list[Case], verdicts: VerdictMemo | None) -> list[Result]:
    """`_check_distinct`, with the cases ``verdicts`` knows not checked again (their results copied: a caller sets
    a result's file and index)."""
    if verdicts is None:
        return _check_distinct(cases)
    known = [verdicts.verdict(c) for c in cases]
    todo = [i for i, r in enumerate(known) if r is None]
    out = [r.repeated() if r is not None else None for r in known]
    if todo:
        for i, r in zip(todo, _check_distinct([cases[i] for i in todo])):
            verdicts.remember_verdict(cases[i], r.repeated())
            out[i] = r
    return out  # type: ignore[return-value]


#: A context with at most this many cases in a batch is checked case by case (`check_case`, scalar): numpy's cost
#: per operation on a few rows is above Python's per value (one case alone: about 250 µs on columns, 50 µs scalar).
SCALAR_MOST = 3


def _check_distinct(cases: list[Case]) -> list[Result]:
    """`check_cases` of distinct case objects."""
    groups: dict[tuple, list[int]] = defaultdict(list)
    for i, c in enumerate(cases):  # contexts are made once per model and key (ApiModel.context): by identity
        groups[(id(c.model), id(c.ctx))].append(i)
    out: list[Result | None] = [None] * len(cases)
    if SCALAR_MOST:
        for key in [key for key, idx in groups.items() if len(idx) <= SCALAR_MOST]:
            for i in groups.pop(key):
                out[i] = check_case(cases[i])
    gathers = _gathers(cases, groups)
    known = _family_verdicts(cases, groups, gathers)
    for key, idx in groups.items():
        batch = [cases[i] for i in idx]
        got = gathers.get(key[0])
        cols = got[0].take(got[1][np.array(idx, dtype=np.int64)]) if got is not None else None
        for i, res in zip(idx, check_batch(batch, cols, known.get(key))):
            out[i] = res
    return out  # type: ignore[return-value]


def _family_verdicts(cases: Sequence[Case], groups: Mapping[tuple, list[int]],
                     gathers: Mapping[int, tuple["_Gather", np.ndarray]]) -> dict[tuple, dict[int, np.ndarray]]:
    """Per group (of cases read column-wise) whose family has other groups: the verdicts of the family's
    product-blind rules (`families`), each evaluated once on the columns of the whole family."""
    families: dict[tuple, list[tuple]] = defaultdict(list)
    for key, idx in groups.items():
        if key[0] in gathers:
            families[family_key(key[0], cases[idx[0]].ctx)].append(key)
    out: dict[tuple, dict[int, np.ndarray]] = {}
    for keys in families.values():
        if len(keys) < 2:
            continue
        first = cases[groups[keys[0]][0]]
        model = first.model
        rules = shared_rules([model.rules_for(cases[groups[k][0]].ctx.product.id) for k in keys])
        if not rules:
            continue
        rows = [i for k in keys for i in groups[k]]
        gather, where = gathers[keys[0][0]]
        ctx = blind(first.ctx)
        verdicts = blind_verdicts(rules, FrozenValues(gather.take(where[np.array(rows, dtype=np.int64)]), ctx, model),
                                  ctx, len(rows))
        start = 0
        for k in keys:
            end = start + len(groups[k])
            out[k] = {rid: ok[start:end] for rid, ok in verdicts.items()}
            start = end
    return out


def _gathers(cases: Sequence[Case], groups: Mapping[tuple, list[int]]) -> dict[int, tuple[_Gather, np.ndarray]]:
    """Per API whose cases were all read column-wise: their columns joined once (`_Gather`), and each case's
    position among them (by its index in ``cases``)."""
    by_model: dict[int, list[int]] = defaultdict(list)
    for (model_id, _), idx in groups.items():
        by_model[model_id].extend(idx)
    out: dict[int, tuple[_Gather, np.ndarray]] = {}
    for model_id, idx in by_model.items():
        mine = [cases[i] for i in idx]
        if not mine[0].model.fields or not _all_fresh_rows(mine):
            continue
        where = np.zeros(len(cases), dtype=np.int64)
        where[np.array(idx, dtype=np.int64)] = np.arange(len(idx))
        out[model_id] = (_Gather(mine), where)
    return out
