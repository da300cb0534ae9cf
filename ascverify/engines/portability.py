"""Portability across products: one case checked on every product (`check_on_products`): the case as given, moved
to each product (same arguments, tensors and element types), checked there; for each product, whether the API
supports it with the case's element type, whether the case is valid, and which rules it breaks there but not on its
own product, or the other way round. The rule differences of two products are `engines.product_diff`'s (solver).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

from ..cases.case import Case
from ..cases.retarget import retarget, retarget_program
from ..checking.checker import Result, check_case, check_cases
from ..checking.program import check_program
from ..spec.errors import one_line
from ..spec.model import ApiModel
from ..spec.products import PRODUCT_IDS
from .report import location


def supports(model: ApiModel, product: str, dtype: str) -> bool:
    return dtype in model.support.get(product, ())


def calls_of(r: Result) -> list[Case]:
    """The cases a result is about: the case, or a program's calls."""
    if r.program is not None:
        return [c.case for c in r.program.calls]
    return [r.case] if r.case is not None else []


def retarget_result(r: Result, product: str) -> Result:
    """The result's case (or program) checked on another product."""
    if r.program is not None:
        return check_program(retarget_program(r.program, product), file=r.file, index=r.index)
    return check_case(retarget(r.case, product), file=r.file, index=r.index)


@dataclass
class ProductVerdict:
    """One case on one product."""

    product: str
    result: Result
    supported: bool
    given: bool
    only_here: list[str] = field(default_factory=list)
    only_given: list[str] = field(default_factory=list)
    #: not supported (modelled) there, but documented by the vendor: checked by the rules in force there
    not_modelled: bool = False

    def to_json(self) -> dict[str, Any]:
        doc = self.result.to_json()
        doc.update({"product": self.product, "supported": self.supported, "not_modelled": self.not_modelled,
                    "given_product": self.given,
                    "differs": {"broken_only_here": self.only_here, "broken_only_on_given_product": self.only_given}})
        return doc


@dataclass
class Portability:
    """One case on every product."""

    file: str
    index: int
    result: Result
    verdicts: list[ProductVerdict]

    @property
    def case(self) -> Case:
        """The case (a program's first call)."""
        return calls_of(self.result)[0]

    @property
    def given_product(self) -> str:
        return self.result.product

    @property
    def portable(self) -> bool:
        """Valid on every product that supports the API with the case's element type."""
        return all(v.result.valid for v in self.verdicts if v.supported)

    def to_json(self) -> dict[str, Any]:
        return {"file": self.file, "index": self.index, "api": self.result.api, "given_product": self.given_product,
                "dtype": self.case.dtype.name, "portable": self.portable,
                "products": [v.to_json() for v in self.verdicts]}


def check_on_products(results: Sequence[Result], products: Sequence[str] = PRODUCT_IDS) -> list[Portability]:
    """Every readable case of ``results`` checked on each of ``products`` (one batch for all of them)."""
    readable = [r for r in results if r.error is None and calls_of(r)]
    per_product: dict[str, list[Result | None]] = {p: [None] * len(readable) for p in products}
    single = [k for k, r in enumerate(readable) if r.program is None]
    # one batch for every product: a case's products form one family of the checker (`checking.families`); a case
    # object that several results share (a repeated line) is moved once per product, so that it is checked once
    moved: dict[tuple[int, str], Any] = {}  # the results hold their cases meanwhile: an id names one case
    got = check_cases([moved[key] if (key := (id(readable[k].case), p)) in moved else
                       moved.setdefault(key, retarget(readable[k].case, p)) for p in products for k in single])
    for j, p in enumerate(products):
        mine = per_product[p]
        for k, g in zip(single, got[j * len(single):(j + 1) * len(single)]):
            g.file, g.index = readable[k].file, readable[k].index
            mine[k] = g
        for k, r in enumerate(readable):
            if r.program is not None:
                mine[k] = retarget_result(r, p)
    out = []
    for k, r in enumerate(readable):
        own = {v.id for v in r.violations}
        verdicts = []
        for p in products:
            g = per_product[p][k]
            ids = [v.id for v in g.violations]
            ok = all(supports(c.model, p, c.dtype.name) for c in calls_of(r))
            unmodelled = not ok and all(supports(c.model, p, c.dtype.name) or
                                        c.model.documented_unmodelled(p, c.dtype.name) for c in calls_of(r))
            verdicts.append(ProductVerdict(p, g, ok, p == r.product,
                                           [i for i in ids if i not in own],
                                           [v.id for v in r.violations if v.id not in set(ids)],  # in rule order
                                           unmodelled))
        out.append(Portability(r.file, r.index, r, verdicts))
    return out


def portability_lines(rows: Sequence[Portability]) -> list[str]:
    """``FILE:case N: PRODUCT: ok`` / ``... : error: [rule] message (source)`` per product, differences marked."""
    lines: list[str] = []
    for row in rows:
        loc = location(row.file, row.index)
        for v in row.verdicts:
            tag = " (the case's product)" if v.given else ""
            if not v.supported:
                missing = [c for c in calls_of(row.result) if not supports(c.model, v.product, c.dtype.name)]
                if v.not_modelled:
                    names = ", ".join(dict.fromkeys(c.model.name for c in missing))
                    lines.append(f"{loc}: {v.product}: not modelled ({names}: documented there, not modelled; "
                                 f"{'valid' if v.result.valid else 'invalid'} by the rules in force there){tag}")
                    lines += _violation_lines(loc, v) if not v.result.valid else []
                    continue
                c = missing[0]
                reason = (f"{c.model.name}" if row.result.program is not None else "the API") \
                    if not c.model.support.get(v.product) else f"T={c.dtype.name}"
                lines.append(f"{loc}: {v.product}: not supported ({reason} is not supported there){tag}")
                continue
            if v.result.valid:
                extra = f"; valid here but not on {row.given_product}" if v.only_given and not v.given else ""
                lines.append(f"{loc}: {v.product}: ok{tag}{extra}")
                continue
            lines.append(f"{loc}: {v.product}: invalid{tag}")
            lines += _violation_lines(loc, v)
            for rid in v.only_given:
                lines.append(f"{loc}: {v.product}: note: [{rid}] broken on {row.given_product} holds here [differs]")
    return lines


def _violation_lines(loc: str, v: ProductVerdict) -> list[str]:
    """One ``error:`` line per rule the case breaks on the verdict's product, rules it keeps elsewhere marked."""
    lines = []
    for viol in v.result.violations:
        mark = " [differs]" if viol.id in v.only_here else ""
        call = f"call {viol.call}: " if viol.call is not None else ""
        lines.append(f"{loc}: {v.product}: {call}error: [{viol.id}] {one_line(viol.message)} "
                     f"({viol.rule.citation}){mark}")
    return lines


def portability_summary(rows: Sequence[Portability], unreadable: int, products: Sequence[str]) -> str:
    """The summary line of ``check --product all`` for ``rows`` and ``unreadable`` cases."""
    portable = sum(1 for r in rows if r.portable)
    return portability_tally(portable, len(rows) - portable, unreadable, products)


def portability_tally(portable: int, not_portable: int, unreadable: int, products: Sequence[str]) -> str:
    """The summary line of ``check --product all`` from its counts."""
    n = portable + not_portable + unreadable
    return (f"{n} case{'s' if n != 1 else ''} on {len(products)} product{'s' if len(products) != 1 else ''}: "
            f"{portable} portable (valid on every product that supports the API and type), "
            f"{not_portable} not portable, {unreadable} unreadable")
