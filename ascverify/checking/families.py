"""Rules evaluated once for several products: the (API, context) groups of a batch whose contexts differ only in
their product form a *family*, and a rule whose evaluation never reads the product gives the same verdicts on every
product of it. Such a rule is evaluated once on the family's columns instead of once per group.

Whether a rule reads the product is observed, not declared: it is evaluated with a context that has the family's
element types and no product (`blind`), where reading ``product`` raises `ProductRead`. An evaluation that never
read it did the same operations it would have done with any product of the family, so its verdicts hold for every
row. One that read it (or raised anything else) is left to the usual evaluation, group by group; a rule seen reading
the product is not tried again.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from ..spec.rules import Context, Rule, Values


class ProductRead(BaseException):
    """A rule read the product of a `blind` context. A BaseException: a rule's own ``except Exception`` (a model
    that falls back on an error) must not take it for an error of its own and answer without the product."""


class _Blind(Context):
    """A context with element types and no product (`blind`)."""

    @property  # type: ignore[override]
    def product(self) -> Any:  # noqa: D102
        raise ProductRead


def blind(ctx: Context) -> Context:
    """A context with the element types of ``ctx`` whose ``product`` cannot be read (it raises `ProductRead`)."""
    out = object.__new__(_Blind)
    object.__setattr__(out, "dtype", ctx.dtype)
    object.__setattr__(out, "tensor_dtypes", ctx.tensor_dtypes)
    return out


def family_key(model_id: int, ctx: Context) -> tuple:
    """What the contexts of one family share: the API (by identity), T and every tensor's element type."""
    return (model_id, ctx.dtype.name, tuple((name, t.name) for name, t in ctx.tensor_dtypes))


#: id(rule) -> the rule: rules seen reading the product (kept alive here, so that an id is never reused)
_READS_PRODUCT: dict[int, Rule] = {}


def shared_rules(rule_lists: Sequence[Sequence[Rule]]) -> list[Rule]:
    """The rules with a predicate in force on every product of a family (``rule_lists``: each product's, by
    identity), in the order of the first, less those seen reading the product."""
    common = set(map(id, rule_lists[0]))
    for rules in rule_lists[1:]:
        common &= set(map(id, rules))
    return [r for r in rule_lists[0] if id(r) in common and r.predicate is not None and id(r) not in _READS_PRODUCT]


def blind_verdicts(rules: Sequence[Rule], v: Values, ctx: Context, n: int) -> dict[int, np.ndarray]:
    """id(rule) -> whether each of the ``n`` rows satisfies it, for the rules whose evaluation on ``v`` (a family's
    columns) with the `blind` context ``ctx`` did not read the product and raised nothing."""
    out: dict[int, np.ndarray] = {}
    for r in rules:
        try:
            ok = np.asarray(r.holds(v, ctx), dtype=bool)
        except ProductRead:
            _READS_PRODUCT[id(r)] = r
            continue
        except Exception:  # noqa: BLE001 - evaluated group by group instead, where the error shows as before
            continue
        out[id(r)] = np.broadcast_to(ok, (n,))
    return out
