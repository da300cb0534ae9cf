"""What a campaign runs: units (one API, product and kind each), their partitions, shards and seeds.

A *unit* is one Hypothesis run: ``invariants`` (valid cases against the models' invariants),
``negative`` (cases breaking exactly one rule, model against core) or ``differential`` (valid cases,
core against a target). An *item* is a partition of a unit (its own seed and share of the examples).

``--shard K/N`` keeps every N-th item of the sorted list, starting at item K-1: the N shards are a
partition of the items, the same on every machine for the same arguments. When there are fewer units
than shards, each unit is split into ``ceil(N / units)`` partitions first so that every shard works.
"""

from __future__ import annotations

import hashlib
import math
import random
import re
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Iterable, Sequence

from ...cases.fields import read_product
from ...core.memory import Trace
from ...core.run import prepare
from ...spec.errors import InputError
from ...spec.model import ApiModel
from ...spec.products import lookup_product
from ...spec.registers import GEOMETRIES
from ...spec.registry import apis, get_api
from ..gen.construct import Unsupported, builder, quiet_assumptions

KINDS: tuple[str, ...] = ("invariants", "negative", "differential")


@dataclass(frozen=True, order=True)
class Unit:
    """One Hypothesis run of a campaign (``part`` of ``parts`` when a unit is split)."""

    api: str
    product: str
    kind: str
    part: int = 0
    parts: int = 1
    sub: int = 0
    subs: int = 1

    @property
    def name(self) -> str:
        """API/product/kind: the key of its examples in the database, the same for every partition."""
        return f"{self.api}/{self.product}/{self.kind}"

    @property
    def key(self) -> str:
        """The unit with its partition (unique within a campaign)."""
        k = self.name
        if self.parts > 1:
            k += f"#{self.part + 1}of{self.parts}"
        if self.subs > 1:
            k += f".{self.sub + 1}of{self.subs}"
        return k

    def to_json(self) -> dict[str, object]:
        return {"api": self.api, "product": self.product, "kind": self.kind, "key": self.key,
                "part": self.part, "parts": self.parts}


#: The most shards a campaign is split into: every (API, product, kind) unit is cut into about N / units parts
#: before shard K takes its own (`--shard 1/99999999999999999` cut them without end).
MAX_SHARDS = 4096


def parse_shard(text: str | None) -> tuple[int, int]:
    """``K/N`` (1 <= K <= N <= `MAX_SHARDS`) -> (K, N); None -> (1, 1)."""
    if text is None or text == "":
        return 1, 1
    m = re.fullmatch(r"\s*(\d+)\s*/\s*(\d+)\s*", str(text))
    if not m:
        raise InputError(f"{text!r} is not of the form K/N (e.g. 2/4)", field="--shard")
    k, n = int(m.group(1)), int(m.group(2))
    if n < 1 or not 1 <= k <= n:
        raise InputError(f"{text!r}: K must be between 1 and N", field="--shard")
    if n > MAX_SHARDS:
        raise InputError(f"{text!r}: N must be at most {MAX_SHARDS}", field="--shard")
    return k, n


def has_outputs(model: ApiModel) -> bool:
    """The API can be a differential target: its calls write output tensors or Reg API registers."""
    return any(t.role in ("out", "inout") for t in model.tensors) or writes_registers(model.name)


@lru_cache(maxsize=None)
def writes_registers(api: str) -> bool:
    """Some valid call of the API writes a Reg API register (probed: a few constructed cases run on the core)."""
    model = get_api(api)
    for product in model.supported_products():
        if lookup_product(product) is None or not _has_register_file(product):
            continue
        for dtype in model.support.get(product, ()) or (model.default_dtype,):
            try:
                build = builder(model, model.context(product, dtype))
            except Unsupported:
                return False
            rng = random.Random(0)
            with quiet_assumptions():
                for _ in range(20):
                    try:
                        case = build(rng)
                    except Exception:  # noqa: BLE001 - a builder that cannot draw here says nothing
                        case = None
                    if case is None:
                        continue
                    try:
                        memory, _ = prepare(case, seed=0)
                        trace = Trace(memory, strict=False)
                        model.execute(case, trace)
                    except Exception:  # noqa: BLE001
                        continue
                    if any(k == "write" for k, *_ in trace.register_records):
                        return True
                    break
            break
    return False


def _has_register_file(product: str) -> bool:
    return product in GEOMETRIES


def negative_rules(model: ApiModel, product: str) -> list[str]:
    """The rules a negative campaign breaks one at a time on ``product``: symbolic error rules (support rules
    cannot be broken with the product and type held fixed)."""
    return [r.id for r in model.rules_for(product) if r.symbolic and r.severity == "error"
            and not r.id.endswith(".support")]


def plan_units(models: Sequence[ApiModel], products: Sequence[str] | None, kinds: Sequence[str]) -> list[Unit]:
    """Every (API, product, kind) unit: products supported by the API among those given (all by default)."""
    wanted = [read_product(p, "--product").id for p in products] if products else None
    units: list[Unit] = []
    for m in models:
        for pid in m.supported_products():
            if wanted is not None and pid not in wanted:
                continue
            for kind in kinds:
                if kind == "differential" and not has_outputs(m):
                    continue
                if kind == "negative" and not negative_rules(m, pid):
                    continue
                units.append(Unit(m.name, pid, kind))
    return units


def partition(units: Sequence[Unit], shards: int) -> list[Unit]:
    """The items of a campaign over ``shards`` machines: each unit split so that every shard gets work."""
    if not units:
        return []
    parts = max(1, math.ceil(shards / len(units)))
    return sorted(replace(u, part=p, parts=parts) for u in units for p in range(parts))


def shard(items: Sequence[Unit], k: int, n: int) -> list[Unit]:
    """Shard K of N (1-based): items K-1, K-1+N, ... of the sorted items."""
    ordered = sorted(items)
    return [it for i, it in enumerate(ordered) if i % n == k - 1]


def split_for_workers(items: Sequence[Unit], workers: int) -> list[Unit]:
    """Split each item further so that ``workers`` processes all have work (fewer items than workers)."""
    if workers <= 1 or len(items) >= workers or not items:
        return list(items)
    subs = math.ceil(workers / len(items))
    return [replace(it, sub=s, subs=subs) for it in items for s in range(subs)]


def examples_for(item: Unit, examples: int) -> int:
    """The item's share of a unit's examples (at least 1)."""
    return max(1, math.ceil(examples / (item.parts * item.subs)))


def weight(item: Unit, negative_share: float) -> float:
    """The item's share of what a campaign gives each item (cases, time): ``negative_share`` for a negative item."""
    return negative_share if item.kind == "negative" else 1.0


def item_examples(item: Unit, examples: int, negative_share: float) -> int:
    """The cases the item runs when the campaign asks ``examples`` per unit (at least 1)."""
    return max(1, round(examples_for(item, examples) * weight(item, negative_share)))


def derive_seed(seed: int, *parts: object) -> int:
    """A 64-bit seed from the campaign seed and the parts named (stable across runs and machines)."""
    h = hashlib.sha256(repr((int(seed), *map(str, parts))).encode()).digest()
    return int.from_bytes(h[:8], "little")


def select_models(names: Iterable[str]) -> list[ApiModel]:
    """The models named (every registered one when none is), without repeats, in registry order."""
    names = list(names)
    if not names:
        return list(apis())
    chosen = {get_api(n).name for n in names}
    return [m for m in apis() if m.name in chosen]
