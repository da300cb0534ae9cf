"""Per-field domains read off the structured rules: bounds, steps and choices, for drawing by construction."""

from __future__ import annotations

from dataclasses import dataclass
from math import lcm
from typing import Any

from .model import ApiModel
from .params import BoolType, EnumType
from .products import POSITION_BUFFER
from .rules import POSITION_NAMES, Context, domain_value


@dataclass(frozen=True)
class Domain:
    """The values a field may take as far as its unconditional structured rules say."""

    field: str
    lo: int
    hi: int
    step: int = 1
    choices: tuple[int, ...] | None = None

    @property
    def empty(self) -> bool:
        if self.choices is not None:
            return not self.choices
        return self._first() > self.hi

    def _first(self) -> int:
        return -(-self.lo // self.step) * self.step

    def values_count(self) -> int:
        if self.choices is not None:
            return len(self.choices)
        return max(0, (self.hi - self._first()) // self.step + 1)

    def nth(self, i: int) -> int:
        """The i-th value of the domain in increasing order."""
        if self.choices is not None:
            return sorted(self.choices)[i]
        return self._first() + i * self.step

    def clip(self, hi: int) -> "Domain":
        return Domain(self.field, self.lo, min(self.hi, hi), self.step,
                      None if self.choices is None else tuple(c for c in self.choices if c <= hi))



def field_domains(model: ApiModel, ctx: Context, *, conditional: bool = False) -> dict[str, Domain]:
    """Domains of every field: the type's range narrowed by the applicable range, multiple-of and one-of
    rules (those without a ``when`` guard, unless ``conditional``), and tensor addresses and sizes
    bounded by the largest buffer the tensor's positions allow."""
    out: dict[str, Domain] = {}
    for f in model.fields:
        if isinstance(f.type, BoolType):
            out[f.name] = Domain(f.name, 0, 1)
        elif isinstance(f.type, EnumType):
            out[f.name] = Domain(f.name, 0, len(f.type.choices) - 1, 1, tuple(range(len(f.type.choices))))
        else:
            out[f.name] = Domain(f.name, f.type.lo, f.type.hi)
    for t in model.tensors:
        cap = max((ctx.product.buffer_size(POSITION_BUFFER[p]) for p in t.positions), default=0)
        d = out[f"{t.name}.addr"]
        out[d.field] = Domain(d.field, d.lo, min(d.hi, cap))
        d = out[f"{t.name}.size"]
        out[d.field] = Domain(d.field, d.lo, min(d.hi, cap // ctx.sizeof(t.name)))
        out[f"{t.name}.position"] = Domain(f"{t.name}.position", 0, len(POSITION_NAMES) - 1, 1,
                                           tuple(POSITION_NAMES.index(p) for p in t.positions))
    for r in model.rules_for(ctx.product.id):
        if r.when is not None and not conditional:
            continue
        dom = r.domain
        kind = dom.get("kind")
        name = dom.get("field")
        if name not in out:
            continue
        d = out[name]
        if kind == "range":
            lo, hi = domain_value(dom["lo"], ctx), domain_value(dom["hi"], ctx)
            out[name] = Domain(name, max(d.lo, lo), min(d.hi, hi), d.step, d.choices)
        elif kind == "multiple":
            out[name] = Domain(name, d.lo, d.hi, lcm(d.step, int(domain_value(dom["step"], ctx))), d.choices)
        elif kind == "one_of":
            codes = tuple(dom["codes"](ctx))
            if d.choices is None:
                keep = codes
            else:  # a set to look the codes up in: two rules of 12,287 channel counts each took 2 s as tuples
                allowed = frozenset(codes)
                keep = tuple(c for c in d.choices if c in allowed)
            out[name] = Domain(name, d.lo, d.hi, d.step, keep)
    return out
