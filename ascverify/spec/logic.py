"""Boolean and arithmetic helpers that work on plain Python values, numpy arrays and Z3 terms.

A rule is written once with these helpers and evaluates in three ways: on one concrete case
(plain Python ints and bools), on a batch of cases (numpy columns, the fast path of `check`)
and symbolically (Z3 terms, for synthesis and explanations). Python's ``and``/``or``/``not``,
chained comparisons and ``if`` on values never appear inside a rule: they cannot see Z3 terms.

This module does not import Z3: a Z3 term exists only once something (the solver's engines) has imported
``z3``, so the helpers look for terms only then (`_z3`), and ``check`` starts without loading the solver.
"""

from __future__ import annotations

import sys
from functools import reduce
from typing import TYPE_CHECKING, Any, Iterable, Sequence

import numpy as np

if TYPE_CHECKING:
    import z3

PY, NP, SYM = 0, 1, 2


def _z3() -> Any:
    """The ``z3`` module when some code has imported it (only then can a Z3 term exist), else None."""
    return sys.modules.get("z3")


#: Types that are never a column or a term: `_mode` passes over them without asking further (the concrete path
#: evaluates every rule of a case with plain ints and bools).
_PLAIN = frozenset({int, bool, float})


def _mode(args: Iterable[Any]) -> int:
    mode = PY
    for a in args:
        if type(a) in _PLAIN:
            continue
        if isinstance(a, np.ndarray):
            mode = NP
            continue
        z = _z3()
        if z is not None and isinstance(a, z.ExprRef):
            return SYM
    return mode


def is_symbolic(x: Any) -> bool:
    """True for a Z3 term."""
    z = _z3()
    return z is not None and isinstance(x, z.ExprRef)


def _zbool(x: Any) -> z3.BoolRef:
    z3 = _z3()
    if isinstance(x, z3.BoolRef):
        return x
    if isinstance(x, z3.ExprRef):
        raise TypeError(f"expected a Boolean term, got {x.sort()}: {x}")
    return z3.BoolVal(bool(x))


def _zint(x: Any) -> z3.ArithRef:
    z3 = _z3()
    if isinstance(x, z3.ExprRef):
        return x
    return z3.IntVal(int(x))


def And(*xs: Any) -> Any:
    """Conjunction."""
    for x in xs:  # plain values (a concrete case) go straight through: the checks of one case call this most
        if type(x) not in _PLAIN:
            break
    else:
        return all(xs)
    mode = _mode(xs)
    if mode == SYM:
        z3 = _z3()
        return z3.And([_zbool(x) for x in xs])
    if mode == NP:
        return _fold(np.logical_and, xs)
    return all(bool(x) for x in xs)


def Or(*xs: Any) -> Any:
    """Disjunction."""
    for x in xs:
        if type(x) not in _PLAIN:
            break
    else:
        return any(xs)
    mode = _mode(xs)
    if mode == SYM:
        z3 = _z3()
        return z3.Or([_zbool(x) for x in xs])
    if mode == NP:
        return _fold(np.logical_or, xs)
    return any(bool(x) for x in xs)


def _fold(op: np.ufunc, xs: Sequence[Any]) -> np.ndarray:
    """``op`` over the columns and values ``xs`` (at least one a numpy array), as a bool array."""
    acc = xs[0]
    for x in xs[1:]:
        acc = op(acc, x)
    return np.asarray(acc, dtype=bool) if len(xs) > 1 else op(acc, acc)


def Not(x: Any) -> Any:
    """Negation."""
    mode = _mode((x,))
    if mode == SYM:
        z3 = _z3()
        return z3.Not(_zbool(x))
    if mode == NP:
        return np.logical_not(x)
    return not x


def Implies(a: Any, b: Any) -> Any:
    """a implies b."""
    return Or(Not(a), b)


def If(c: Any, a: Any, b: Any) -> Any:
    """a where c holds, else b (both branches are evaluated)."""
    if type(c) in _PLAIN and type(a) in _PLAIN and type(b) in _PLAIN:
        return a if c else b
    mode = _mode((c, a, b))
    if mode == SYM:
        z3 = _z3()
        ca, cb = a, b
        if isinstance(a, (bool, np.bool_)) or isinstance(b, (bool, np.bool_)) or isinstance(a, z3.BoolRef) or isinstance(b, z3.BoolRef):
            return z3.If(_zbool(c), _zbool(a), _zbool(b))
        return z3.If(_zbool(c), _zint(ca), _zint(cb))
    if mode == NP:
        return np.where(c, a, b)
    return a if c else b


def Between(lo: Any, x: Any, hi: Any) -> Any:
    """lo <= x <= hi, without a chained comparison."""
    if type(x) in _PLAIN and type(lo) in _PLAIN and type(hi) in _PLAIN:
        return lo <= x <= hi
    return And(lo <= x, x <= hi)


def InSet(x: Any, values: Iterable[Any]) -> Any:
    """x equals one of values."""
    values = tuple(values)
    mode = _mode((x,))
    if mode == SYM:
        z3 = _z3()
        return z3.Or([x == v for v in values]) if values else z3.BoolVal(False)
    if mode == NP:
        if not values:
            return np.zeros(np.shape(x), dtype=bool)
        if len(values) <= 16:   # a few equalities are much faster than np.isin's sort
            return _fold(np.logical_or, [x == v for v in values])
        return np.isin(x, np.asarray(values, dtype=x.dtype if x.dtype != object else object))
    return x in values


def Mod(a: Any, b: Any) -> Any:
    """a mod b for b > 0; a when b == 0 (never raises)."""
    mode = _mode((a, b))
    if mode == SYM:
        z3 = _z3()
        return z3.If(_zint(b) == 0, _zint(a), _zint(a) % _zint(b))
    if mode == NP:
        b_arr = np.asarray(b)
        safe = np.where(b_arr == 0, 1, b_arr)
        return np.where(b_arr == 0, a, np.mod(a, safe))
    return a % b if b else a


def Div(a: Any, b: Any) -> Any:
    """Floor division for b > 0; 0 when b == 0 (never raises)."""
    if type(a) in _PLAIN and type(b) in _PLAIN:
        return a // b if b else 0
    mode = _mode((a, b))
    if mode == SYM:
        z3 = _z3()
        return z3.If(_zint(b) == 0, z3.IntVal(0), _zint(a) / _zint(b))
    if mode == NP:
        b_arr = np.asarray(b)
        safe = np.where(b_arr == 0, 1, b_arr)
        return np.where(b_arr == 0, 0, np.floor_divide(a, safe))
    return a // b if b else 0


def Min(*xs: Any) -> Any:
    """Smallest of xs."""
    mode = _mode(xs)
    if mode == SYM:
        z3 = _z3()
        return reduce(lambda p, q: z3.If(_zint(p) <= _zint(q), _zint(p), _zint(q)), xs)
    if mode == NP:
        return reduce(np.minimum, xs)
    return min(xs)


def Max(*xs: Any) -> Any:
    """Largest of xs."""
    mode = _mode(xs)
    if mode == SYM:
        z3 = _z3()
        return reduce(lambda p, q: z3.If(_zint(p) >= _zint(q), _zint(p), _zint(q)), xs)
    if mode == NP:
        return reduce(np.maximum, xs)
    return max(xs)


def Sum(xs: Iterable[Any]) -> Any:
    """Sum of xs (0 when empty)."""
    return reduce(lambda p, q: p + q, xs, 0)


def AllOf(items: Iterable[Any]) -> Any:
    """And over an iterable."""
    return And(*tuple(items))


def AnyOf(items: Iterable[Any]) -> Any:
    """Or over an iterable."""
    return Or(*tuple(items))


_fresh = [0]


def Exists(bounds: "list[tuple[Any, Any]]", body: "Any", *, where: Any = True, consts: "Sequence[Any]" = ()) -> Any:
    """Some integers x_i with lo_i <= x_i <= hi_i make ``body(*xs, *consts)`` true.

    ``bounds`` and ``consts`` may hold values, columns or terms; the body must take its case values
    from ``consts`` (not from a closure), so that on numpy columns each case is evaluated with its
    own scalars. On Z3 terms this is a bounded existential quantifier; on concrete values the body
    is evaluated on a numpy grid of every combination (keep the ranges small: a few hundred thousand
    points at most). On columns only the cases where ``where`` holds are evaluated (elsewhere the
    result is False), so a cheap vectorized guard keeps the batch path fast.
    """
    consts = tuple(consts)
    mode = _mode([x for b in bounds for x in b] + list(consts) + [where])
    if mode == SYM:
        z3 = _z3()
        _fresh[0] += 1
        xs = [z3.Int(f"__exists{_fresh[0]}_{i}") for i in range(len(bounds))]
        rng = [And(_zint(lo) <= x, x <= _zint(hi)) for x, (lo, hi) in zip(xs, bounds)]
        return z3.And(_zbool(where), z3.Exists(xs, z3.And(*[_zbool(r) for r in rng], _zbool(body(*xs, *consts)))))
    if mode == NP:
        n = max(np.size(x) for x in [x for b in bounds for x in b] + list(consts) + [where])
        out = np.zeros(n, dtype=bool)
        guard = np.broadcast_to(np.asarray(where, dtype=bool), (n,))
        cols = [(np.broadcast_to(lo, (n,)), np.broadcast_to(hi, (n,))) for lo, hi in bounds]
        ccols = [np.broadcast_to(np.asarray(c), (n,)) for c in consts]
        for i in np.flatnonzero(guard):
            out[i] = _exists_py([(int(lo[i]), int(hi[i])) for lo, hi in cols], body, [int(c[i]) for c in ccols])
        return out
    if not where:
        return False
    return _exists_py([(int(lo), int(hi)) for lo, hi in bounds], body, [int(c) for c in consts])


def _exists_py(bounds: "list[tuple[int, int]]", body: "Any", consts: "Sequence[int]" = ()) -> bool:
    if any(hi < lo for lo, hi in bounds):
        return False
    grids = np.meshgrid(*[np.arange(lo, hi + 1, dtype=np.int64) for lo, hi in bounds], indexing="ij", sparse=True)
    return bool(np.any(body(*grids, *consts)))
