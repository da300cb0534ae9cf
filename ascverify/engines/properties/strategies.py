"""Hypothesis strategies built from the models: valid cases by construction, and cases breaking one rule.

Valid cases (STYLE.md 3): ranges, multiples and choices come from the structured rules' domains;
integer arguments are drawn below the largest value whose minimal tensors still fit the product's
buffers (a search over the model's minimum-size rules, which are nondecreasing in the arguments: a
secant on the buffers' slack for one construction, numpy columns for many at once; remembered per
layout); tensors get at least their minimum size and
are packed, aligned and disjoint, into their buffers. The rules this does not make hold by itself
(relational rules such as the vertical overlap, guarded rules the domains do not settle, rules on
fields the model's own construction hook sets) are checked as a safety net (`_Layout.checked_rules`).

The construction (`construction`) is a generator that asks for each largest feasible value (`Need`):
`drive` answers one construction (Hypothesis's ``draw``), `build_many` answers many at once (the seeded
generation of `ascverify.engines.gen.construct`).
"""

from __future__ import annotations

import random
from bisect import bisect_right
from functools import lru_cache
from math import lcm
from typing import Any, Callable, Generator, Mapping, Sequence

import numpy as np
from hypothesis import assume, strategies as st
from hypothesis.errors import InvalidArgument, UnsatisfiedAssumption

from ...cases.case import Case
from ...cases.fields import read_dtype, read_product, read_supported_type
from ...cases.parse import read_args
from ...checking.checker import check_case
from ...models.drawing import packed_indices
from ...models.vector_common import lanes_per_repeat, mask_word_count
from ...spec.domains import Domain, field_domains
from ...spec.errors import InputError, did_you_mean
from ...spec.model import ApiModel
from ...spec.params import LevelsArg, MaskArg, StructArg
from ...spec.products import POSITION_BUFFER, get_product
from ...spec.registry import apis, get_api
from ...spec.rules import ERROR, POSITION_NAMES, Context, FrozenValues, Rule, Values, buffer_alignment, domain_value
from ..interrupts import decide, set_timeout, solver_region
from ..solver import Space, Undecided, core_ids
from .arguments import refused_as_invalid
from .choice_bytes import ChoiceBytes, binary
from .seeded import SeededDraw
from .values import ValuePlan, realize, tensor_seed, value_plans


def _model(api: str | ApiModel) -> ApiModel:
    # every model loaded first: what a seeded strategy draws must not depend on which models this process happened
    # to import before. Hypothesis biases its draws towards the literal constants of the local modules loaded
    # (hypothesis.internal.conjecture.providers._get_local_constants), and the registry imports a model only when
    # it is first named: importing load3d changed BilinearInterpolation's seeded draws.
    apis()
    if isinstance(api, ApiModel):
        return api
    with refused_as_invalid():
        return get_api(api)


def _products(model: ApiModel, product: str | Sequence[str] | None) -> list[str]:
    if product is None:
        return list(model.supported_products())
    names = [product] if isinstance(product, str) else list(product)
    with refused_as_invalid():
        return [read_product(name, "product").id for name in names]


def _supported_context(model: ApiModel, product: str | Sequence[str] | None,
                       dtype: str | None) -> tuple[list[str], str | None]:
    """The products to draw on and the element type named (its canonical name): the products named, each of which
    must support the API and the type (no valid case could be drawn otherwise: `InvalidArgument` says which does
    not), or by default every product that supports both."""
    t = None
    if dtype is not None:
        with refused_as_invalid():
            t = read_dtype(dtype, "dtype").name
    products = _products(model, product)
    if product is None and t is not None:
        products = [p for p in products if t in model.support.get(p, ())]
    if not products:
        raise InvalidArgument(f"{model.name} is supported on no product given ({product!r})"
                              if t is None or product is not None else f"no product supports {model.name} with T={t}")
    with refused_as_invalid():
        for p in products:
            read_supported_type(model, get_product(p), t, "product", "dtype")
    return products, t


class _Layout:
    """What one (model, context) needs for construction: domains, minimum sizes, alignments."""

    def __init__(self, model: ApiModel, ctx: Context) -> None:
        self.model = model
        self.ctx = ctx
        self.domains = field_domains(model, ctx)
        self.min_rules: dict[str, list[Rule]] = {t.name: [] for t in model.tensors}
        for r in model.rules_for(ctx.product.id):
            if r.domain.get("kind") == "min_size":  # warnings too: a drawn case holds what the call writes
                self.min_rules[r.domain["tensor"]].append(r)
        self.required = {t.name for t in model.tensors
                          if not t.optional or ctx.product.id in t.required_on}
        self.optional = tuple(t.name for t in model.tensors if t.optional)
        self.defaults = model.default_env()
        # the arguments by kind, once: the construction walks them for every case
        self.flags = {a.placeholder_flag for a in model.args if isinstance(a, MaskArg) and a.placeholder_flag}
        self.optional_args = [a.name for a in model.args if getattr(a, "optional", False)]
        self.plain_args = [a for a in model.args if not isinstance(a, (MaskArg, LevelsArg, StructArg))]
        self.placeholder_masks = [a for a in model.args if isinstance(a, MaskArg) and a.placeholder_flag]
        self.outputs = any(d.role in ("out", "inout") for d in model.tensors)
        # the fields the construction draws from their domains (`checked_rules`): plain arguments, the members of
        # structs that are always given, the tensors' positions; and the tensors' addresses and sizes for their types
        self.drawn = {a.name for a in self.plain_args} | {f"{t.name}.position" for t in model.tensors} \
            | {f.name for a in model.args if isinstance(a, StructArg) and not getattr(a, "optional", False)
               for f in _struct_fields(a)}
        self.drawn_types = {f"{t.name}.{k}" for t in model.tensors for k in ("addr", "size")}
        #: each mask argument's fields, to the mask's name (rules on a mask `_mask_strategy` draws hold)
        self.mask_of = {f.name: a.name for a in model.args if isinstance(a, MaskArg)
                        for f in model.fields if f.param == a.name}
        self._checked: dict[frozenset[str], tuple[Rule, ...]] = {}
        self._aligns: dict[tuple[str, str], int] = {}
        self.sizeof = {t.name: ctx.sizeof(t.name) for t in model.tensors}
        self._skip: frozenset[str] | None = None
        self._hook_writes: frozenset[str] = frozenset()
        self.hooked = type(model).construct_args is not ApiModel.construct_args
        self._reads: tuple[str, ...] | bool | None = None  # False: not known
        self.memo: dict[tuple, int | None] = {}
        #: per tensor, the env keys its minimum-size rules read (`min_sizes`; False: not known) and its sizes by them
        self._size_reads: dict[str, tuple[str, ...]] | bool | None = None
        self._size_memo: dict[str, dict[tuple, int]] = {t.name: {} for t in model.tensors}

    def skip(self) -> frozenset[str]:
        """The fields the model's construct_args sets without reading them first: drawing them before it would be
        wasted (they stay at their minimum). Probed once per layout: `LEARN` calls of the hook with seeded draws on a
        minimal env, keeping the fields written before any read in every call (the same answer in every process)."""
        if self._skip is None:
            self._skip, self._hook_writes = self._probe_construct()
        return self._skip

    def memo_key(self, env: Mapping[str, Any], name: str, positions: Mapping[str, str]) -> tuple | None:
        """What `_max_feasible` of ``name`` depends on: the values of the fields the minimum sizes read (learned by
        evaluating them on a recording env; rules hold no branch on values, so the fields are the same every time),
        the tensors' buffers and presence. None when the fields are not known."""
        if self._reads is None:
            rec = _Recorder(env)
            try:
                with np.errstate(all="ignore"):
                    self.fits(rec, positions)
            except Exception:  # noqa: BLE001 - nothing is remembered then
                self._reads = False
                return None
            self._reads = tuple(sorted(rec.read))
        if self._reads is False:
            return None
        return (name, tuple(POSITION_BUFFER[p] for p in positions.values()),
                *[env.get(k) for k in self._reads if k != name])

    def known(self, env: Mapping[str, Any], name: str, positions: Mapping[str, str]) -> Any:
        """`_max_feasible`'s answer when remembered (`memo_key`), else `_UNSET`."""
        key = self.memo_key(env, name, positions)
        return _UNSET if key is None else self.memo.get(key, _UNSET)

    def remember(self, env: Mapping[str, Any], name: str, positions: Mapping[str, str], top: int | None) -> None:
        key = self.memo_key(env, name, positions)
        if key is not None:
            _remember(self.memo, key, top)

    def hook_writes(self) -> frozenset[str]:
        """The fields the model's construct_args has set: those it wrote in the probe calls (`skip`) and those it
        changed in any construction of this process since (`saw_hook`)."""
        self.skip()
        return self._hook_writes

    def saw_hook(self, before: Mapping[str, Any], after: Mapping[str, Any]) -> None:
        """Record the fields construct_args changed (``before`` and ``after`` the call): rules on them are checked."""
        new = {k for k, x in after.items() if before.get(k, _UNSET) is not x} - self.hook_writes()
        if new:
            self._hook_writes = self._hook_writes | new
            self._checked.clear()

    def _probe_construct(self) -> tuple[frozenset[str], frozenset[str]]:
        import warnings

        model, ctx = self.model, self.ctx
        if type(model).construct_args is ApiModel.construct_args:
            return frozenset(), frozenset()
        base = model.default_env()
        for decl in model.tensors:
            base[f"{decl.name}.position"] = POSITION_NAMES.index(decl.positions[0])
        for a in model.args:
            if isinstance(a, StructArg):
                _struct_minimum(a, self.domains, base)
            elif isinstance(a, MaskArg):
                base.update({f"{a.name}.bitwise": False, f"{a.name}.count": 1})
            elif isinstance(a, LevelsArg):  # given, every level at its minimum: what the hook does with each
                if a.optional:
                    base[f"{a.name}.present"] = True
                base[f"{a.name}.levels"] = a.max_levels
                for k in range(a.max_levels):
                    for _, stem, _ in a.lists:
                        base[f"{a.name}.{stem}{k}"] = self.domains[f"{a.name}.{stem}{k}"].nth(0)
            else:
                d = self.domains[a.name]
                base[a.name] = d.nth(0) if d.choices is None else _choices(d)[0]
        found: set[str] | None = None
        written: set[str] = set()
        for k in range(LEARN):
            rec = _Recorder(base)
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    model.construct_args(SeededDraw(random.Random(k)), ctx, rec)
            except Exception:  # noqa: BLE001 - a hook that cannot run on the minimal env tells nothing
                continue
            got = rec.written - rec.read
            found = got if found is None else found & got
            written |= rec.written
        # a hook that could not run on the minimal env may write anything: then no field counts as drawn here
        return frozenset(found or ()), frozenset(written) if found is not None else frozenset(model.field_by_name)

    def checked_rules(self, given: frozenset[str]) -> tuple[Rule, ...]:
        """The error rules the construction does not make hold by itself, which `cases` checks as its safety net
        (STYLE.md 3): the relational ones, and those on fields the construction does not draw from their domains
        (levels, the fields the model's hook writes, the arguments ``given``). Left out (each claim tested in
        tests/test_construction_guarantees.py): the type, range, multiple-of and one-of rules of fields drawn from
        their domains (a guarded one where every value of the domain meets it); the tensors' alignment, fit, minimum
        size and disjointness, which the packing makes hold (an alignment rule only where the packing's alignment is
        a multiple of the rule's); the rules that read no field and hold in this context (product and type
        support); the rules of a mask `_mask_strategy` draws (domain ``mask``); hazards that need two tensors the
        packing keeps apart to overlap (domain ``overlap``); the rules the model's hook claims to make hold
        (`ApiModel.construction_holds`) when the caller holds none of the fields they read."""
        got = self._checked.get(given)
        if got is None:
            got = self._checked[given] = tuple(r for r in self.model.rules_for(self.ctx.product.id)
                                               if r.severity == ERROR and r.predicate is not None
                                               and not self._guaranteed(r, given))
        return got

    def _guaranteed(self, r: Rule, given: frozenset[str]) -> bool:
        dom = r.domain
        kind = dom.get("kind")
        if r.id.removeprefix(f"{self.model.prefix}.") in self.model.construction_holds and not set(r.params) & given:
            return True
        if kind in ("fits", "min_size", "disjoint"):
            return True
        if kind == "align":
            decl = self.model.tensor(dom["tensor"])
            m = domain_value(dom.get("minimum", 1), self.ctx)
            # an exact rule asks for its own alignment only, the others for the buffer's as well
            return all(self.align(decl.name, b) % (m if dom.get("exact") else buffer_alignment(self.ctx, b, m)) == 0
                       for b in {POSITION_BUFFER[p] for p in decl.positions})
        if self._context_verdict(r):  # reads no field: true for every case of this layout
            return True
        if "mask" in dom:  # a mask rule, which every mask `_mask_strategy` draws holds
            return self._mask_drawn(dom["mask"], given)
        if "overlap" in dom:  # a hazard that needs the tensors, at their minimum sizes or more, to overlap, which the
            # packing never lets them
            return not any(f"{t}.{k}" in self.hook_writes() for t in dom["overlap"] for k in ("addr", "position"))
        name = dom.get("field")
        if kind == "type" and name in given:
            return False
        if kind == "type" and (name in self.drawn_types or self._mask_drawn(self.mask_of.get(name), given)):
            return True
        if kind not in ("type", "range", "multiple", "one_of") or name not in self.drawn or name in given \
                or name in self.hook_writes():
            return False
        return kind == "type" or r.when is None or self._within(r)

    def _context_verdict(self, r: Rule) -> bool:
        """The rule reads no field (only the product and types, as the support rules do) and holds for this
        layout's context: then it holds for every case the layout builds."""
        holds, read = _judged(r, self.defaults, self.ctx, self.model)
        return holds is True and not read

    def _mask_drawn(self, mask: str | None, given: frozenset[str]) -> bool:
        """Mask argument ``mask`` is drawn by `_mask_strategy` (not given, not set by the model's hook)."""
        if mask is None or mask in given:
            return False
        return not any(self.mask_of.get(f) == mask for f in self.hook_writes() | given)

    def _within(self, r: Rule) -> bool:
        """Every value of the field's domain (what the construction draws from) meets the range or one-of rule r,
        so r holds whatever its guard (``when``) says."""
        dom, d = r.domain, self.domains[r.domain["field"]]
        values = d.choices
        if dom["kind"] == "one_of":
            return values is not None and set(values) <= set(dom["codes"](self.ctx))
        if dom["kind"] == "range":
            lo, hi = domain_value(dom["lo"], self.ctx), domain_value(dom["hi"], self.ctx)
            if values is not None:
                return all(lo <= x <= hi for x in values)
            return lo <= d.lo and d.hi <= hi
        return False

    def align(self, tensor: str, buffer: str) -> int:
        got = self._aligns.get((tensor, buffer))
        if got is None:
            got = self._aligns[(tensor, buffer)] = self._align(tensor, buffer)
        return got

    def _align(self, tensor: str, buffer: str) -> int:
        decl = self.model.tensor(tensor)
        m = domain_value(decl.align, self.ctx)
        pack = getattr(decl, "pack_align", None) or 1  # more than the rule asks, for a relational rule's sake
        if getattr(decl, "align_exact", False):
            return lcm(max(1, m), pack)
        return lcm(buffer_alignment(self.ctx, buffer, m), pack)

    def min_sizes(self, env: dict[str, Any]) -> dict[str, int]:
        """Each tensor's minimum size (elements) given the fields in env; fills env's sizes in order. Remembered per
        tensor for the values of the env keys its rules read (`_tensor_reads`): the size search varies one field at a
        time, which leaves the other tensors' sizes as they were."""
        out = {}
        reads = self._tensor_reads(env)
        # one view for every tensor's rules (each parameter looked up once for all of them); a tensor's rules may read
        # the sizes set for the tensors before it, so its own view is dropped once its size is set
        v = FrozenValues(env, self.ctx, self.model)
        for t in self.model.tensors:
            key = None
            if reads:
                key = tuple([env.get(k) for k in reads[t.name]])
                need = _remembered(self._size_memo[t.name], key)
            if key is None or need is None:
                need = self._rules_need(t.name, v)
                if key is not None:
                    _remember(self._size_memo[t.name], key, need)
            env[f"{t.name}.size"] = need
            v.forget(t.name)
            out[t.name] = need
        return out

    def _rules_need(self, tensor: str, v: Values) -> int:
        """The largest of ``tensor``'s minimum-size rules on ``v`` (elements; 0 without any)."""
        need = 0
        for r in self.min_rules[tensor]:
            need = max(need, int(r.domain["elems"](v, self.ctx)))
        return need

    def _tensor_reads(self, env: Mapping[str, Any]) -> dict[str, tuple[str, ...]] | bool:
        """Per tensor, the env keys its minimum-size rules read (the sizes of the tensors before it included), learned
        once on a recording env as `memo_key` learns its fields (rules hold no branch on values); False when the
        rules cannot be evaluated on plain values there (nothing is remembered then)."""
        if self._size_reads is None:
            trial = dict(env)
            reads: dict[str, tuple[str, ...]] = {}
            try:
                with np.errstate(all="ignore"):
                    for t in self.model.tensors:
                        rec = _Recorder(trial)
                        trial[f"{t.name}.size"] = self._rules_need(t.name, Values(rec, self.ctx, self.model))
                        reads[t.name] = tuple(sorted(rec.read))
                self._size_reads = reads
            except Exception:  # noqa: BLE001 - nothing is remembered then
                self._size_reads = False
        return self._size_reads

    def fits(self, env: dict[str, Any], positions: Mapping[str, str]) -> bool:
        return self.slack(env, positions) >= 0

    def slack(self, env: dict[str, Any], positions: Mapping[str, str]) -> int:
        """The bytes left in the fullest buffer with every tensor at its minimum size, packed aligned (negative:
        they do not fit; `NO_TENSOR_SLACK` when no tensor is present). Fills env's sizes (`min_sizes`)."""
        sizes = self.min_sizes(env)
        used: dict[str, int] = {}
        for t in self.model.tensors:
            if not env.get(f"{t.name}.present", True):
                continue
            buf = POSITION_BUFFER[positions[t.name]]
            a = self.align(t.name, buf)
            used[buf] = -(-used.get(buf, 0) // a) * a + sizes[t.name] * self.sizeof[t.name]
        return min((self.ctx.product.buffer_size(b) - n for b, n in used.items()), default=NO_TENSOR_SLACK)

    def fits_many(self, env: dict[str, Any], name: str, values: np.ndarray,
                  positions: Mapping[str, str]) -> np.ndarray | None:
        """`fits` for many values of field ``name`` at once (the rules' minimum sizes on numpy columns); None when a
        minimum-size rule does not take columns."""
        trial = dict(env)
        trial[name] = values
        v = Values(trial, self.ctx, self.model)
        n = values.shape[0]
        used: dict[str, Any] = {}
        try:
            with np.errstate(all="ignore"):
                for t in self.model.tensors:
                    need = np.zeros(n, dtype=np.int64)
                    for r in self.min_rules[t.name]:
                        need = np.maximum(need, np.asarray(r.domain["elems"](v, self.ctx), dtype=np.int64))
                    trial[f"{t.name}.size"] = need
                    if not env.get(f"{t.name}.present", True):
                        continue
                    buf = POSITION_BUFFER[positions[t.name]]
                    a = self.align(t.name, buf)
                    used[buf] = -(-used.get(buf, 0) // a) * a + need * self.sizeof[t.name]
        except Exception:  # noqa: BLE001 - a rule written for plain values only: the caller probes one by one
            return None
        ok = np.ones(n, dtype=bool)
        for b, u in used.items():
            ok &= np.asarray(u) <= self.ctx.product.buffer_size(b)
        return ok


#: construct_args calls a layout probes (`_Layout.skip`).
LEARN = 8
#: `_Layout.slack` when no tensor is present: every value fits.
NO_TENSOR_SLACK = 2**62
_UNSET = object()


def _remembered(memo: dict[tuple, int], key: tuple) -> int | None:
    """``memo``'s entry for ``key``; None when there is none or the key holds a value that is not hashable."""
    try:
        return memo.get(key)
    except TypeError:  # a column or a term among the values: not remembered
        return None


def _remember(memo: dict[tuple, Any], key: tuple, value: Any) -> None:
    """Store ``value`` under ``key`` (nothing for a key that is not hashable); start over past `MEMO` entries."""
    if len(memo) >= MEMO:
        memo.clear()
    try:
        memo[key] = value
    except TypeError:
        pass


class _Recorder(dict):
    """The env handed to construct_args: records which keys it reads before writing them, and which it writes."""

    def __init__(self, env: Mapping[str, Any]) -> None:
        super().__init__(env)
        self.read: set[str] = set()
        self.written: set[str] = set()

    def __getitem__(self, key: str) -> Any:
        if key not in self.written:
            self.read.add(key)
        return super().__getitem__(key)

    def get(self, key: str, default: Any = None) -> Any:
        if key not in self.written:
            self.read.add(key)
        return super().get(key, default)

    def __contains__(self, key: object) -> bool:
        if key not in self.written:
            self.read.add(key)  # type: ignore[arg-type]
        return super().__contains__(key)

    def __setitem__(self, key: str, value: Any) -> None:
        self.written.add(key)
        super().__setitem__(key, value)

    def update(self, *args: Any, **kw: Any) -> None:  # type: ignore[override]
        for k, v in dict(*args, **kw).items():
            self[k] = v

    def setdefault(self, key: str, default: Any = None) -> Any:  # type: ignore[override]
        if key not in self:
            self[key] = default
        return super().__getitem__(key)


def _judged(r: Rule, env: Mapping[str, Any], ctx: Context, model: ApiModel) -> tuple[bool | None, set[str]]:
    """Whether rule ``r`` holds on ``env`` (None when it cannot be evaluated there), and the fields it read."""
    rec = _Recorder(env)
    try:
        with np.errstate(all="ignore"):
            return bool(r.holds(Values(rec, ctx, model), ctx)), rec.read
    except Exception:  # noqa: BLE001 - a rule that cannot run on these values
        return None, rec.read


@lru_cache(maxsize=256)
def _layout(model_name: str, ctx: Context) -> _Layout:
    return _Layout(get_api(model_name), ctx)


class Need:
    """What a construction asks for (`construction`): the largest value of field ``name`` (domain ``domain``) whose
    tensors still fit, the other fields as in ``env`` (read before the construction resumes)."""

    __slots__ = ("layout", "env", "name", "domain", "positions")

    def __init__(self, layout: _Layout, env: dict[str, Any], name: str, domain: Domain,
                 positions: Mapping[str, str]) -> None:
        self.layout, self.env, self.name, self.domain, self.positions = layout, env, name, domain, positions

    def group(self) -> tuple:
        """Needs answered together on columns share the layout, the field, the tensors' buffers and presence (the
        positions themselves are columns of the env)."""
        env = self.env
        return (id(self.layout), self.name, tuple(POSITION_BUFFER[p] for p in self.positions.values()),
                tuple(bool(env.get(f"{t}.present", True)) for t in self.layout.optional))


#: A construction (`construction`): yields `Need`s, is sent their answers, returns the case.
Construction = Generator[Need, "int | None", Case]


def _assume(condition: object) -> None:
    """`hypothesis.assume` without its bookkeeping (the construction runs outside tests too, thousands of times per
    second): an unusable draw raises `UnsatisfiedAssumption`, which a test's engine counts as an invalid example."""
    if not condition:
        raise UnsatisfiedAssumption()


def drive(gen: Construction) -> Case:
    """Run one construction, answering each `Need` with `_max_feasible`."""
    try:
        need = next(gen)
        while True:
            need = gen.send(_max_feasible(need.layout, need.env, need.name, need.domain, need.positions))
    except StopIteration as stop:
        return stop.value


def build_many(constructions: Sequence[Construction]) -> list[Case | None]:
    """Run many constructions together (None for those whose draws lead nowhere): in each round the waiting
    constructions' `Need`s are answered at once, a group per field and layout, on numpy columns
    (`_max_feasible_rows`). Each construction draws from its own source, so its case does not depend on the others."""
    out: list[Case | None] = [None] * len(constructions)
    waiting: list[tuple[int, Construction, Need]] = []

    def resume(i: int, gen: Construction, answer: int | None) -> None:
        try:
            need = gen.send(answer)
        except StopIteration as stop:
            out[i] = stop.value
        except UnsatisfiedAssumption:
            pass
        else:
            waiting.append((i, gen, need))

    for i, gen in enumerate(constructions):
        resume(i, gen, None)
    while waiting:
        groups: dict[tuple, list[tuple[int, Construction, Need]]] = {}
        for item in waiting:
            groups.setdefault(item[2].group(), []).append(item)
        waiting = []
        for items in groups.values():
            need = items[0][2]
            tops = _max_feasible_rows(need.layout, [it[2].env for it in items], need.name, need.domain,
                                      need.positions)
            for (i, gen, asked), top in zip(items, tops):
                need.layout.remember(asked.env, asked.name, asked.positions, top)
                resume(i, gen, top)
    return out


def _mask_word(draw: Callable, top: int, bias: bool) -> int:
    """A mask word: with boundary bias, often 0, all ones, one bit, or a regular pattern."""
    if not bias:
        return draw(_ints(0, top))
    mode = draw(_MODES)
    if mode <= 1:
        return top
    if mode == 2:
        return 0
    if mode == 3:
        return 1 << draw(_ints(0, top.bit_length() - 1))
    if mode == 4:
        return (0x5555555555555555 if draw(_BOOLS) else 0xAAAAAAAAAAAAAAAA) & top
    if mode == 5:
        return (1 << draw(_ints(1, top.bit_length()))) - 1  # the low lanes
    return draw(_ints(0, top))


def _mask_strategy(draw: Callable, arg: MaskArg, ctx: Context, env: dict[str, Any], bias: bool = False) -> None:
    n = arg.name
    bitwise = draw(_BOOLS)
    env[f"{n}.bitwise"] = bitwise
    if not bitwise:
        env[f"{n}.count"] = _draw_int(draw, 1, lanes_per_repeat(ctx), bias)
        return
    k = mask_word_count(ctx)
    top = 2**32 - 1 if ctx.dtype.bits == 64 else 2**64 - 1
    words = [_mask_word(draw, top, bias) for _ in range(k)]
    if not any(words):
        words[draw(_ints(0, k - 1))] = 1 << draw(_ints(0, min(63, top.bit_length() - 1)))
    env[f"{n}.nwords"] = k
    for i, w in enumerate(words):
        env[f"{n}.w{i}"] = w


def _levels_strategy(draw: Callable, arg: LevelsArg, layout: "_Layout", env: dict[str, Any],
                     positions: Mapping[str, str], bias: bool = False,
                     skip: frozenset[str] = frozenset()) -> Construction:
    """1..max_levels levels (none when the optional argument is absent); level by level, each entry from its
    field's domain below the largest value whose minimal tensors still fit (the entries not drawn yet at 0). The
    fields in ``skip`` (the model's hook sets them without reading them) stay at 0; ``levels`` in ``skip``: none."""
    n = arg.name
    present = env.get(f"{n}.present", True) and f"{n}.levels" not in skip
    levels = draw(_ints(1, arg.max_levels)) if present else 0
    env[f"{n}.levels"] = levels
    for k in range(arg.max_levels):
        for _, stem, _ in arg.lists:
            env[f"{n}.{stem}{k}"] = 0
    for k in range(levels):
        for _, stem, _ in arg.lists:
            name, d = f"{n}.{stem}{k}", layout.domains[f"{n}.{stem}{k}"]
            if name in skip:
                continue
            top = layout.known(env, name, positions)  # remembered: no need to ask
            if top is _UNSET:
                top = yield Need(layout, env, name, d, positions)
            _assume(top is not None)
            env[name] = _draw_value(draw, d, top, bias)


def _struct_fields(arg: StructArg) -> list[Any]:
    return [f for m in arg.members for f in arg.member_fields(m)]


def _struct_minimum(arg: StructArg, doms: Mapping[str, Domain], env: dict[str, Any]) -> None:
    """Every member field at its domain's minimum when the struct is present (drawn with the optional
    arguments), else at its default; `_struct_draw` then draws them like scalar arguments."""
    present = env.get(f"{arg.name}.present", True)
    for f in _struct_fields(arg):
        env[f.name] = (bool(doms[f.name].nth(0)) if f.type.kind == "bool" else doms[f.name].nth(0)) if present \
            else f.default


def _struct_draw(draw: Callable, arg: StructArg, layout: "_Layout", env: dict[str, Any],
                 positions: Mapping[str, str], bias: bool = False, skip: frozenset[str] = frozenset()) -> Construction:
    """The members of a present struct, each below the largest value that still fits (as scalar arguments)."""
    if not env.get(f"{arg.name}.present", True):
        return
    for f in _struct_fields(arg):
        if f.name in skip:
            continue
        d = layout.domains[f.name]
        if f.type.kind in ("bool", "enum"):
            env[f.name] = bool(_draw_value(draw, d)) if f.type.kind == "bool" else _draw_value(draw, d, None, bias)
            continue
        top = layout.known(env, f.name, positions)  # remembered: no need to ask
        if top is _UNSET:
            top = yield Need(layout, env, f.name, d, positions)
        _assume(top is not None)
        env[f.name] = _draw_value(draw, d, top, bias)


#: With boundary bias, each bounded draw first picks a mode: 0-1 the lowest value, 2-3 the highest, 4 the second
#: lowest, 5 the second highest, else uniform (so each end comes 1 draw in 8, its neighbour 1 in 16; shrinking goes
#: to the lowest value).
_MODES = st.integers(0, 15)
_BOOLS = st.booleans()


@lru_cache(maxsize=8192)
def _ints(lo: int, hi: int) -> st.SearchStrategy[int]:
    """``st.integers(lo, hi)``, built once per bounds (building a strategy costs more than drawing from it)."""
    return st.integers(lo, hi)


@lru_cache(maxsize=1024)
def _sampled(values: tuple) -> st.SearchStrategy[Any]:
    return st.sampled_from(values)


_SORTED: dict[int, tuple[Domain, tuple[int, ...]]] = {}


def _choices(d: Domain) -> tuple[int, ...]:
    """The domain's choices in increasing order (cached per domain object: the layouts keep them alive)."""
    got = _SORTED.get(id(d))
    if got is None or got[0] is not d:
        got = _SORTED[id(d)] = (d, tuple(sorted(d.choices or ())))
    return got[1]


def _pick(draw: Callable, count: int, bias: bool) -> int:
    """An index in [0, count) (uniform, or with boundary bias, see `_MODES`)."""
    if count <= 1:
        return 0
    if bias:
        mode = draw(_MODES)
        if mode <= 1:
            return 0
        if mode <= 3:
            return count - 1
        if mode == 4:
            return 1
        if mode == 5:
            return count - 2
    return draw(_ints(0, count - 1))


def _draw_int(draw: Callable, lo: int, hi: int, bias: bool = False) -> int:
    return lo + _pick(draw, hi - lo + 1, bias)


#: Bit widths whose edges (2^k - 1, 2^k) a biased draw aims at: where a field held in a narrower integer wraps (the
#: vendor's repeat-parameter structs keep strides and counts in uint8 members; offsets in uint16).
_WRAP_BITS = (8, 15, 16, 31, 32)


def _edge_or_small(draw: Callable, d: Domain, hi: int | None) -> int | None:
    """With boundary bias, one draw in 16 a value at a width's edge inside the domain (`_WRAP_BITS`: 255, 256,
    65535...), one in 16 a small count past the first two values (the 3rd to 10th: two to nine repeats, small
    enough that a large stride still fits); else None (the usual draw). The highest modes, so that shrinking
    leaves them for the usual draw's lowest value."""
    mode = draw(_MODES)
    if mode < 14:
        return None
    first, top = d._first(), d.hi if hi is None else min(d.hi, hi)
    if top < first:
        return None
    if mode == 15:
        k = draw(_ints(2, 9))
        v = first + k * d.step
        return v if v <= top else None
    edges = [v for b in _WRAP_BITS for v in (2**b - 1, 2**b)
             if first < v < top and (v - first) % d.step == 0]
    return edges[draw(_ints(0, len(edges) - 1))] if edges else None


def _draw_value(draw: Callable, d: Domain, hi: int | None = None, bias: bool = False) -> int:
    if bias and d.choices is None:
        got = _edge_or_small(draw, d, hi)
        if got is not None:
            return got
    if d.choices is not None:
        ch = _choices(d)
        if hi is not None:
            ch = ch[:bisect_right(ch, hi)]
        if not ch:
            raise IndexError(f"no choice of {d.field} below {hi}")
        return ch[_pick(draw, len(ch), bias)]
    count = d.values_count() if hi is None else max(0, (min(d.hi, hi) - d._first()) // d.step + 1)
    return d.nth(_pick(draw, count, bias))


#: Values of a field tried at once per step of `_max_feasible` (each step narrows the bracket this many times).
PROBES = 256


def _max_feasible(layout: _Layout, env: dict[str, Any], name: str, d: Domain, positions: Mapping[str, str]) -> int | None:
    """The largest value of field ``name`` (others as in env) whose minimal tensors fit: the minimum sizes grow with
    the field, so the fitting values are a prefix of the domain, whose end `_max_feasible_search` finds. Remembered per
    layout for the values of the fields the minimum sizes read (`_Layout.memo_key`). Where a minimum size does not grow
    with the field (BilinearInterpolation's sharedTmpBuffer in vRepeat: 4 repeats need more than 5), the value found
    ends a run of fitting values that some value below it may interrupt; a case drawn there does not pack and is
    rejected (`_assume`), like any other draw that leads nowhere."""
    got = layout.known(env, name, positions)
    if got is _UNSET:
        got = _max_feasible_search(layout, env, name, d, positions)
        layout.remember(env, name, positions, got)
    return got


#: Answers of `_max_feasible` a layout remembers (then it starts over).
MEMO = 50_000


def _max_feasible_search(layout: _Layout, env: dict[str, Any], name: str, d: Domain,
                         positions: Mapping[str, str]) -> int | None:
    """The largest fitting value by a search on the buffers' slack (`_Layout.slack`, one value at a time): the slack
    does not grow with the field and is close to affine in it (sizes are sums of the arguments times strides, rounded
    up to alignments), so the secant through the bracket's ends lands on or next to the last fitting value, and that
    value and its neighbour close the bracket: 4 or 5 evaluations where the probes on columns took a scalar one and
    two or three of 256 values. A secant step that does not halve the bracket is followed by a bisection, so a slack
    far from affine still takes O(log n) steps. A minimum-size rule that raises on plain values (a division by a
    field at 0) is searched on columns instead (`_max_feasible_probes`)."""
    count = d.values_count()
    if count == 0:
        return None
    ch = _choices(d) if d.choices is not None else None
    first, step = d._first(), d.step
    trial = dict(env)

    def value(i: int) -> int:
        return ch[i] if ch is not None else first + i * step

    def slack(i: int) -> int:
        trial[name] = value(i)
        return layout.slack(trial, positions)

    def narrow(i: int) -> bool:
        """Evaluate value i and move the bracket's end on its side to it; whether it fits."""
        nonlocal lo, s_lo, hi, s_hi
        s = slack(i)
        if s >= 0:
            lo, s_lo = i, s
        else:
            hi, s_hi = i, s
        return s >= 0

    try:
        hi = count - 1
        s_hi = slack(hi)
        if s_hi >= 0:  # the common case: the whole domain fits
            return value(hi)
        lo, s_lo = 0, slack(0)
        if s_lo < 0:
            return None
        secant = True
        while hi - lo > 1:  # slack(lo) >= 0 > slack(hi)
            width = hi - lo
            if secant:
                fits = narrow(min(max(lo + width * s_lo // (s_lo - s_hi), lo + 1), hi - 1))
                if hi - lo > 1:  # its neighbour on the other side closes the bracket when the secant was exact
                    narrow(lo + 1 if fits else hi - 1)
            else:
                narrow((lo + hi) // 2)
            secant = 2 * (hi - lo) <= width
        return value(lo)
    except ArithmeticError:
        return _max_feasible_probes(layout, env, name, d, positions)


def _max_feasible_probes(layout: _Layout, env: dict[str, Any], name: str, d: Domain,
                         positions: Mapping[str, str]) -> int | None:
    """`_max_feasible` on numpy columns: `PROBES` values at once, narrowing the bracket, 2 to 4 evaluations for the
    widest domains (the rules evaluated with numpy's arithmetic, where a division by 0 does not raise)."""
    count = d.values_count()
    if count == 0:
        return None
    last = d.nth(count - 1)
    if count > 2**40 or not -2**62 < d.nth(0) <= last < 2**62:  # 64-bit fields: one value at a time
        return _max_feasible_scalar(layout, env, name, d, positions)
    ch = np.asarray(_choices(d), dtype=np.int64) if d.choices is not None else None

    def value(idx: np.ndarray) -> np.ndarray:
        return ch[idx] if ch is not None else d._first() + idx.astype(np.int64) * d.step

    def spread(a: int, b: int) -> np.ndarray:
        """At most PROBES indices from a to b (both included), increasing, in integer arithmetic."""
        k = min(b - a + 1, PROBES)
        return a + (np.arange(k, dtype=np.int64) * (b - a)) // max(k - 1, 1)  # strictly increasing (k - 1 <= b - a)

    trial = dict(env)
    trial[name] = last
    if layout.fits(trial, positions):  # the common case: the whole domain fits
        return last
    lo, hi = -1, count - 1  # ok(lo) (lo = -1: nothing known), not ok(hi)
    probe = spread(0, count - 2) if count > 1 else np.zeros(0, dtype=np.int64)
    for _ in range(64):  # each step narrows the bracket PROBES times: 64 steps are never needed
        if hi - lo <= 1:
            return None if lo < 0 else int(value(np.array([lo]))[0])
        ok = layout.fits_many(env, name, value(probe), positions)
        if ok is None:
            return _max_feasible_scalar(layout, env, name, d, positions)
        bad = np.flatnonzero(~ok)
        first_bad = int(bad[0]) if bad.size else probe.size
        if first_bad > 0:
            lo = int(probe[first_bad - 1])
        if first_bad < probe.size:
            hi = int(probe[first_bad])
        if hi - lo <= 1:
            return None if lo < 0 else int(value(np.array([lo]))[0])
        probe = spread(lo + 1, hi - 1)
    return _max_feasible_scalar(layout, env, name, d, positions)


def _max_feasible_scalar(layout: _Layout, env: dict[str, Any], name: str, d: Domain,
                         positions: Mapping[str, str]) -> int | None:
    """`_max_feasible` by bisection, one value at a time."""
    def ok(i: int) -> bool:
        trial = dict(env)
        trial[name] = d.nth(i)
        return layout.fits(trial, positions)

    count = d.values_count()
    if count == 0 or not ok(0):
        return None
    lo, hi = 0, count - 1
    if ok(hi):
        return d.nth(hi)
    while lo + 1 < hi:
        mid = (lo + hi) // 2
        if ok(mid):
            lo = mid
        else:
            hi = mid
    return d.nth(lo)


#: Values of a field tried per row and step when many constructions are answered at once (`_max_feasible_rows`):
#: a domain of 65,536 values takes 4 steps.
ROW_PROBES = 32


def _columns(envs: Sequence[Mapping[str, Any]]) -> dict[str, Any] | None:
    """The envs as one env of columns: a field equal in every env stays a value, the others become numpy arrays
    (None when the envs do not have the same fields)."""
    n = len(envs)
    out: dict[str, Any] = {}
    try:
        for key, first in envs[0].items():
            values = [e[key] for e in envs]
            if values.count(first) == n:
                out[key] = first
                continue
            try:
                out[key] = np.array(values, dtype=bool if isinstance(first, (bool, np.bool_)) else np.int64)
            except (OverflowError, TypeError, ValueError):
                out[key] = np.array(values, dtype=object)
    except KeyError:
        return None
    return out


def _max_feasible_rows(layout: _Layout, envs: Sequence[dict[str, Any]], name: str, d: Domain,
                       positions: Mapping[str, str]) -> list[int | None]:
    """`_max_feasible` for many envs at once (the same positions and tensors present): the envs are columns, and each
    row's bracket narrows `ROW_PROBES` times per evaluation (one evaluation for all rows)."""
    n = len(envs)
    count = d.values_count()
    cols = _columns(envs) if n > 1 and 0 < count <= 2**40 and -2**62 < d.nth(0) <= d.nth(count - 1) < 2**62 else None
    if cols is None:
        return [_max_feasible(layout, e, name, d, positions) for e in envs]
    ch = np.asarray(_choices(d), dtype=np.int64) if d.choices is not None else None

    def value(idx: np.ndarray) -> np.ndarray:
        return ch[idx] if ch is not None else d._first() + idx.astype(np.int64) * d.step

    last = count - 1
    ok_last = layout.fits_many(cols, name, value(np.full(n, last, dtype=np.int64)), positions)
    if ok_last is None:
        return [_max_feasible(layout, e, name, d, positions) for e in envs]
    lo = np.where(ok_last, last, -1).astype(np.int64)  # ok(lo) (-1: nothing known)
    hi = np.full(n, last, dtype=np.int64)  # not ok(hi) where lo < hi
    k = ROW_PROBES
    j = np.arange(k, dtype=np.int64)
    for _ in range(64):  # each step narrows every bracket k - 1 times: 64 steps are never needed
        rows = np.flatnonzero(hi - lo > 1)
        if rows.size == 0:
            break
        a, b = lo[rows] + 1, hi[rows] - 1  # the values left, both ends included
        idx = a[:, None] + (j[None, :] * (b - a)[:, None]) // (k - 1)  # increasing, from a to b
        sub = {key: (v[rows].repeat(k) if isinstance(v, np.ndarray) else v) for key, v in cols.items()}
        ok = layout.fits_many(sub, name, value(idx.ravel()), positions)
        if ok is None:
            return [_max_feasible(layout, e, name, d, positions) for e in envs]
        bad = ~np.asarray(ok, dtype=bool).reshape(rows.size, k)
        first_bad = np.where(bad.any(axis=1), bad.argmax(axis=1), k)
        at = np.arange(rows.size)
        lo[rows] = np.where(first_bad > 0, idx[at, np.maximum(first_bad - 1, 0)], lo[rows])
        hi[rows] = np.where(first_bad < k, idx[at, np.minimum(first_bad, k - 1)], hi[rows])
    else:
        return [_max_feasible(layout, e, name, d, positions) for e in envs]
    tops = value(np.maximum(lo, 0))
    return [None if i < 0 else int(t) for i, t in zip(lo.tolist(), tops.tolist())]


def _draw_order(draw: Callable, names: Sequence[str]) -> list[str]:
    """A uniform random order of ``names``: the swaps of ``st.permutations`` (Fisher-Yates, identity when every
    choice is 0), packed into one choice where they fit (`packed_indices`)."""
    order = list(names)
    n = len(order)
    if n < 2:
        return order
    for i, d in enumerate(packed_indices(draw, range(n, 1, -1))):
        order[i], order[i + d] = order[i + d], order[i]
    return order


#: The widest random gap between two tensors of a buffer, in alignment units.
GAP_UNITS = 4


def _roomy(cap: int, spans: Sequence[int], aligns: Sequence[int]) -> bool:
    """Every gap of a buffer packed in this order can be 0..GAP_UNITS alignment units whatever the gaps before it:
    the buffer holds the tensors, each with up to one alignment unit of padding and the widest gap."""
    return sum(spans) + (1 + GAP_UNITS) * sum(aligns) <= cap


def _flag(draw: Callable, usually: bool) -> bool:
    """A Boolean that is ``usually`` 15 times in 16 (and shrinks to it)."""
    return usually if draw(_MODES) != 15 else not usually


def _placeholder_flag(draw: Callable, own_mask: bool, specified: bool) -> bool:
    """A mask's placeholder flag (isSetMask): true when the call sets its own mask (``own_mask``); with
    ``specified`` true 15 times in 16 (a mask set elsewhere leaves every result unspecified); else a coin."""
    return True if own_mask else _flag(draw, True) if specified else bool(draw(_BOOLS))


@st.composite
def _valid_case(draw: Callable, model: ApiModel, products: Sequence[str], dtype: str | None,
                fixed: Mapping[str, Any] | None, bias: bool = False, specified: bool = False,
                checked: frozenset[str] | None = None) -> Case:
    """One constructed case (``fixed``: the fields held fixed, `read_args`); with ``checked`` (the arguments and
    fields held fixed), only one that passes `_holds` (an
    assumption in the draw rather than a ``.filter``, whose retries and spans every example paid for). The
    construction reads its numbers from bytes Hypothesis draws (`ChoiceBytes`: a choice per chunk of bytes, most
    cases one, rather than one per field, which Hypothesis charges for; each field keeps bytes of its own, which
    shrink towards its minimum)."""
    first = _first_chunk(model.name, tuple(products), dtype, bias, specified)
    source = ChoiceBytes(lambda n: draw(binary(n)), first)
    case = drive(construction(SeededDraw(source), model, products, dtype, fixed, bias, specified))
    if checked is not None:
        _assume(_holds(case, checked))
    return case


#: Seeded constructions `_first_chunk` runs to size the first chunk of bytes.
CHUNK_PROBES = 16


@lru_cache(maxsize=1024)
def _first_chunk(api: str, products: tuple[str, ...], dtype: str | None, bias: bool, specified: bool) -> int:
    """The size of the first chunk of bytes the construction reads: the most that `CHUNK_PROBES` seeded
    constructions read (seeds 0, 1, ...: the same size every run, so that Hypothesis replays a case it stored),
    rounded up to 8. A larger chunk holds more cases whole (one choice, which costs more than its bytes), a
    smaller one leaves a test drawing many cases more of Hypothesis's 8 KiB an example."""
    model = get_api(api)
    most = 0
    for seed in range(CHUNK_PROBES):
        source = ChoiceBytes(random.Random(seed).randbytes, 0)
        try:
            drive(construction(SeededDraw(source), model, products, dtype, None, bias, specified))
        except (UnsatisfiedAssumption, InputError, IndexError):
            pass  # a draw that leads nowhere read bytes too
        most = max(most, source.consumed)
    return max(8, -(-most // 8) * 8)


def construction(draw: Callable, model: ApiModel, products: Sequence[str], dtype: str | None,
                 fixed: Mapping[str, Any] | None, bias: bool = False, specified: bool = False, *,
                 own_mask: bool = False) -> Construction:
    """The construction of one valid case with ``draw``, as a generator: it yields a `Need` wherever it needs the
    largest value of a field that still fits, is sent that value (None: none fits), and returns the case (raises
    `UnsatisfiedAssumption` when its draw leads nowhere). `drive` answers one construction; `build_many` answers
    many at once, on numpy columns (the seeded generation). ``fixed``: fields held fixed (the arguments a caller
    gives, read by `read_args`), kept whatever the model's hook does. ``own_mask``: the call always sets its mask
    (never the placeholder of a mask an earlier call set)."""
    # (one product or type is no choice: taken without a draw, which would make none but cost as much as one)
    product = products[0] if len(products) == 1 else draw(_sampled(tuple(products)))
    supported = model.support.get(product, ())
    if dtype is not None:
        t = dtype
    elif supported:
        t = supported[0] if len(supported) == 1 else draw(_sampled(tuple(supported)))
    else:
        t = model.default_dtype
    ctx = model.context(product, t)
    layout = _layout(model.name, ctx)
    fixed = fixed or {}
    given = {model.field_by_name[f].param for f in fixed}  # the arguments held fixed
    env = dict(layout.defaults)
    env.update(fixed)
    doms = layout.domains
    flags = layout.flags

    # tensor positions and presence first: capacity depends on which buffer each lands in (several to a choice)
    positions: dict[str, str] = {}
    place_choices = [_choices(doms[f"{decl.name}.position"]) for decl in model.tensors]
    optional_drawn = [decl.name for decl in model.tensors if decl.optional and decl.name not in layout.required]
    digits = iter(packed_indices(draw, [len(ch) for ch in place_choices] + [2] * len(optional_drawn)))
    for decl, ch in zip(model.tensors, place_choices):
        positions[decl.name] = POSITION_NAMES[ch[next(digits)]]
        env[f"{decl.name}.position"] = POSITION_NAMES.index(positions[decl.name])
    for decl in model.tensors:
        if decl.optional:
            env[f"{decl.name}.present"] = decl.name in layout.required or bool(next(digits))

    # optional arguments: those of one prototype (ApiModel.forms), or each at random without forms (an optional
    # argument without forms is one a call may leave to an earlier call's state: with ``specified``, usually given)
    optional = layout.optional_args
    if optional:
        if model.forms:  # a prototype that has every optional argument held fixed (if none has: the safety net)
            forms = tuple(f for f in model.forms if given.intersection(optional) <= set(f)) or tuple(model.forms)
            form = set(draw(_sampled(forms)))
        elif specified:
            form = {n for n in optional if _flag(draw, True)}
        else:
            form = {n for n in optional if draw(_BOOLS)}
        for n in optional:
            if n not in given:
                env[f"{n}.present"] = n in form

    # arguments, each below the largest value that still fits (the rest at their minimum)
    # a mask's placeholder flag (isSetMask) comes with the mask: a mask an earlier call set (flag false) is not
    # drawn, since the placeholder replaces it below (drawing it made choices that change nothing, and duplicates)
    drawn_flags: dict[str, bool] = {}
    for a in model.args:
        if isinstance(a, MaskArg):
            flag = a.placeholder_flag
            if a.name in given:  # held fixed: its flag says the same (the placeholder: a mask set elsewhere)
                if flag and flag not in given:
                    drawn_flags[flag] = not fixed.get(f"{a.name}.placeholder", False)
                continue
            if flag and flag not in layout.hook_writes():
                if flag in given:
                    on = bool(fixed[flag])
                else:
                    on = drawn_flags[flag] = _placeholder_flag(draw, own_mask, specified)
                if not on:
                    continue
            _mask_strategy(draw, a, ctx, env, bias)
            continue
        if isinstance(a, LevelsArg):  # drawn below, once the scalar arguments are at their minimum
            continue
        if isinstance(a, StructArg) and a.name not in given:
            _struct_minimum(a, doms, env)
    for a in layout.plain_args:
        if a.name not in given:
            env[a.name] = doms[a.name].nth(0) if doms[a.name].choices is None else _choices(doms[a.name])[0]
    env.update(drawn_flags)
    # boundary bias, one case in four: a *focus* argument at an end of its domain (as far as the buffers allow with
    # the others at their minimum), drawn first, the others leaning to their minimum, so that an extreme that only
    # fits when the other arguments are small (vRepeat = 255) comes too
    focus: str | None = None
    skip = layout.skip()
    scalars = [a.name for a in layout.plain_args
               if a.name not in given and a.type.kind not in ("bool", "enum") and a.name not in skip]
    if bias and scalars and draw(_MODES) < 4:
        focus = scalars[draw(_ints(0, len(scalars) - 1))]
        d = doms[focus]
        top = layout.known(env, focus, positions)  # remembered: no need to ask
        if top is _UNSET:
            top = yield Need(layout, env, focus, d, positions)
        _assume(top is not None)
        ch = _choices(d) if d.choices is not None else None
        if draw(_MODES) >= 4:  # its largest fitting value three times in four (shrinking to its minimum)
            env[focus] = ch[bisect_right(ch, top) - 1] if ch is not None else d.nth(
                Domain(d.field, d.lo, min(d.hi, top), d.step).values_count() - 1)
        else:
            env[focus] = ch[0] if ch is not None else d.nth(0)
    for a in model.args:
        if isinstance(a, LevelsArg) and a.name not in given:
            yield from _levels_strategy(draw, a, layout, env, positions, bias, skip)
            continue
        if isinstance(a, StructArg) and a.name not in given:
            yield from _struct_draw(draw, a, layout, env, positions, bias, skip)
            continue
        if isinstance(a, (MaskArg, LevelsArg, StructArg)) or a.name in given or a.name in skip or a.name in drawn_flags:
            continue
        d = doms[a.name]
        if a.type.kind in ("bool", "enum"):
            if a.type.kind == "bool":  # a placeholder flag comes here only when the hook writes it (else: above)
                env[a.name] = _placeholder_flag(draw, own_mask, specified) if a.name in flags else bool(draw(_BOOLS))
            else:
                env[a.name] = _draw_value(draw, d)
            continue
        if a.name == focus:
            continue
        if focus is not None and draw(_BOOLS):
            continue  # leaning to the minimum, where the focus argument's extreme fits
        top = layout.known(env, a.name, positions)  # remembered: no need to ask
        if top is _UNSET:
            top = yield Need(layout, env, a.name, d, positions)
        _assume(top is not None)
        env[a.name] = _draw_value(draw, d, top, bias)
    if layout.hooked:
        before = dict(env)
        model.construct_args(draw, ctx, env)  # relational rules among arguments, by construction
        layout.saw_hook(before, env)
    # the hook may also have moved a tensor (a data path ties positions together): pack where env says
    positions = {decl.name: POSITION_NAMES[int(env[f"{decl.name}.position"])] for decl in model.tensors}
    for a in layout.placeholder_masks:  # a mask set elsewhere (isSetMask=false) is the placeholder
        if not env[a.placeholder_flag]:
            env[f"{a.name}.placeholder"] = True
            env[f"{a.name}.bitwise"] = False
            for k in ("count", "nwords", *(f"w{i}" for i in range(model.mask_words))):
                env[f"{a.name}.{k}"] = 0
    env.update(fixed)  # what the caller holds fixed stays, whatever the hook did (the safety net checks the rest)

    # sizes in declaration order (a minimum may depend on earlier tensors' sizes), then pack each
    # buffer in a random order, aligned, with small random gaps (with boundary bias: often none, exact minimum
    # sizes, and the last tensor now and then at the buffer's end); the order and, in a roomy buffer, the gaps are
    # drawn several to a choice (`packed_indices`: Hypothesis's cost is per choice)
    v = Values(env, ctx, model)
    sizeof = layout.sizeof
    for decl in model.tensors:
        need = 0
        for r in layout.min_rules[decl.name]:
            need = max(need, int(r.domain["elems"](v, ctx)))
        headroom = model.size_headroom(ctx, env, decl.name, need, 256 // sizeof[decl.name])
        room = ctx.product.buffer_size(POSITION_BUFFER[positions[decl.name]]) // sizeof[decl.name] - need
        extra = _draw_int(draw, 0, max(0, min(headroom, room)), bias)  # not past its buffer's end
        env[f"{decl.name}.size"] = need + extra
    by_buffer: dict[str, list[str]] = {}
    for decl in model.tensors:
        if env.get(f"{decl.name}.present", True):
            by_buffer.setdefault(POSITION_BUFFER[positions[decl.name]], []).append(decl.name)
    if any(sum(env[f"{n}.size"] * sizeof[n] + layout.align(n, buf) for n in names) > ctx.product.buffer_size(buf)
           for buf, names in by_buffer.items()):
        # the extra elements overflow a buffer the minimal tensors fit in: every tensor at its minimum size (in
        # declaration order, as a minimum may depend on an earlier tensor's size)
        for decl in model.tensors:
            env[f"{decl.name}.size"] = max([0] + [int(r.domain["elems"](v, ctx)) for r in layout.min_rules[decl.name]])
    for buf, names in by_buffer.items():
        cap = ctx.product.buffer_size(buf)
        order = _draw_order(draw, names)
        spans = [env[f"{n}.size"] * sizeof[n] for n in order]
        aligns = [layout.align(n, buf) for n in order]
        rest = sum(spans) + sum(aligns)  # what the tensors after this one take at most
        used = 0
        # with room for the widest gaps everywhere, each gap is 0..GAP_UNITS whatever came before: drawn together
        gaps = None if bias or not _roomy(cap, spans, aligns) else \
            iter(packed_indices(draw, [GAP_UNITS + 1] * len(order)))
        for i, name in enumerate(order):
            a, nbytes = aligns[i], spans[i]
            rest -= nbytes + a
            start = -(-used // a) * a
            slack = cap - rest - start - nbytes  # room for a gap (the tensors after it counted with their alignment)
            if gaps is not None:
                gap = next(gaps) * a
            elif slack < 0:
                gap = 0  # no room to spare: packed tight (the buffer's end decides below)
            elif bias and i == len(order) - 1 and draw(_MODES) == 0:
                gap = slack // a * a  # the last tensor ends at (or just before) the buffer's end
            else:
                gap = _draw_int(draw, 0, min(slack, GAP_UNITS * a) // a, bias) * a
            env[f"{name}.addr"] = start + gap
            used = start + gap + nbytes
        _assume(used <= cap)
    case = Case(model, ctx, env, origin="strategy")
    if specified:
        # a call whose rules depend on what an earlier call set (reported as not checked: isSetMask=false, no
        # feature map) leaves its results unspecified; a call that stores nothing compares nothing
        unchecked = getattr(model, "unchecked", None)
        _assume(unchecked is None or next(iter(unchecked(case)), None) is None)
        if layout.outputs:
            _assume(any(model.footprint(case).values()))
    return case


def cases(api: str | ApiModel, *, product: str | Sequence[str] | None = None, dtype: str | None = None,
          args: Mapping[str, Any] | None = None, bias: bool = False, specified: bool = False,
          data: bool = False) -> st.SearchStrategy[Case]:
    """Valid cases of ``api`` (every error rule holds), drawn by construction.

    ``product``: one product or several (default: every product that supports the API); ``dtype``:
    the element type T (default: drawn among the supported ones); ``args``: arguments held fixed, written as
    in a case file's ``args`` (a mask as a count, a list of words or its placeholder; an enum by name; levels and
    structs as objects; another spelling the format accepts, such as LoadData3DParamsV2's names, is read whole:
    the arguments it leaves out take its defaults). `InvalidArgument` for a value a case could not hold, and for
    arguments that break a rule by themselves.
    ``bias``: boundary bias: every field's extremes (and the values next to them), masks of all ones,
    one bit or one zero word, exact minimum sizes, adjacent tensors and tensors at a buffer's end come
    early and often (about one draw in four). ``specified``: mostly cases whose outputs the core specifies
    (a mask set here rather than by an earlier SetVectorMask, optional state arguments given, something
    stored). ``data``: every tensor the call reads gets contents from `ascverify.engines.properties.values`
    (ordinary values mixed with ±0, ±inf, NaN, subnormals, the largest values, values needing rounding),
    except those whose contents a rule constrains (the model fills those when the case runs).
    """
    model = _model(api)
    products, dtype = _supported_context(model, product, dtype)
    fixed = _fixed(model, args)
    given = frozenset(fixed) | {model.field_by_name[f].param for f in fixed}
    _fixed_break_no_rule(model, products, dtype, fixed, given)
    base = _valid_case(model, products, dtype, fixed, bias, specified, given)
    return base.flatmap(_with_data) if data else base


def _fixed_break_no_rule(model: ApiModel, products: Sequence[str], dtype: str | None, fixed: Mapping[str, Any],
                         given: frozenset[str]) -> None:
    """`InvalidArgument` when the arguments held fixed break an error rule that reads nothing else (no field the
    construction draws: checked by recording what the rule reads), in every product and type the strategy could
    draw: no valid case has them (rather than every draw rejected, and Hypothesis's Unsatisfiable)."""
    if not fixed:
        return
    # a mask held fixed holds its placeholder flag too, as the construction draws it: isSetMask=true with a mask
    # given, false with the placeholder (a mask rule that reads the flag judges the mask alone)
    fixed = {**{a.placeholder_flag: not fixed.get(f"{a.name}.placeholder", False) for a in model.args
                if isinstance(a, MaskArg) and a.placeholder_flag and a.name in given and a.placeholder_flag not in fixed},
             **fixed}
    rules = [r for r in model.rules if r.severity == ERROR and r.predicate is not None and set(r.params) & given]
    first: str | None = None
    for p in products:
        for t in ([dtype] if dtype is not None else model.support.get(p, ())):
            ctx = model.context(p, t)
            constants = {k: x for k, x in model.construction_constants.items() if k not in fixed}
            env = {**_layout(model.name, ctx).defaults, **constants, **fixed}
            broken = None
            for r in rules:
                if not r.applies(p):
                    continue
                holds, read = _judged(r, env, ctx, model)
                if holds is False and read <= fixed.keys() | constants.keys():  # (None: the draws will judge)
                    broken = f"[{r.id}] {r.explain(Values(env, ctx, model), ctx)}"
                    break
            if broken is None:
                return  # some context takes the arguments
            first = first or broken
    raise InvalidArgument(f"{model.name}: the arguments held fixed break a rule on every product and type drawn: "
                          f"{first}")


def _holds(case: Case, given: frozenset[str]) -> bool:
    """`cases`' safety net: the error rules the construction does not make hold by itself (`_Layout.checked_rules`)
    hold. The same verdict as ``check_case(case).valid`` on a constructed case, for a fraction of the rules."""
    ctx = case.ctx
    rules = _layout(case.model.name, ctx).checked_rules(given)
    if not rules:
        return True
    v = FrozenValues(case.env, ctx, case.model)  # the case is built: each parameter's view made once
    try:
        return all(r.holds(v, ctx) for r in rules)
    except InputError:
        return False


def raw_cases(api: str | ApiModel, **kw: Any) -> st.SearchStrategy[Case]:
    """The construction of `cases` without the model's final check (for measuring its valid rate)."""
    model = _model(api)
    products, dtype = _supported_context(model, kw.get("product"), kw.get("dtype"))
    return _valid_case(model, products, dtype, _fixed(model, kw.get("args")), kw.get("bias", False),
                       kw.get("specified", False))


def _fixed(model: ApiModel, args: Mapping[str, Any] | None) -> dict[str, Any]:
    """The fields of the arguments ``args`` (as a case file's ``args``) hold; `InvalidArgument` for what a case
    could not hold."""
    with refused_as_invalid(f"{model.name}: "):
        return read_args(model, args or {})


def data_tensors(case: Case) -> list[str]:
    """The tensors whose contents value strategies fill: inputs and outputs' old contents, except temporaries and
    tensors whose contents a rule constrains (offsets and the like, which the model builds)."""
    structural = {t for r in case.model.rules for t in r.requires_data}
    return [d.name for d in case.model.tensors if d.role != "tmp" and d.name not in structural]


def _with_data(case: Case) -> st.SearchStrategy[Case]:
    def fill(plan: ValuePlan) -> Case:
        c = case.with_fields()
        for name in data_tensors(c):
            t = c.tensor(name)
            if t.present and t.size >= 0 and not c.has_data(name):
                c.set_data(name, realize(tensor_seed(plan, name), t.dtype, t.size))
        return c
    return value_plans(case.ctx.dtype).map(fill)


@lru_cache(maxsize=128)
def _negation_space(model_name: str, ctx: Context, rule_id: str) -> list[Any]:
    """[the Space, its solver with ``rule_id`` broken]: a list, so that `breaking` can put a new solver in place of
    one that gave up on a query."""
    space = Space(get_api(model_name), ctx)
    return [space, _negation_solver(space, rule_id)]


def _negation_solver(space: Space, rule_id: str) -> Any:
    """A solver holding every rule of ``space`` but ``rule_id``, and ``rule_id`` broken."""
    import z3

    s = space.solver(skip=(rule_id,))
    s.add(z3.Not(space.terms[rule_id]))
    return s


#: Milliseconds for each query of `breaking` that keeps some of the drawn case's values (a nicety: the case found is
#: nearer); the query keeping none has the solver's whole timeout.
NEAR_QUERY_MS = 2000


def breaking(case: Case, rule_id: str, *, seed: int = 0) -> Case | None:
    """A case close to ``case`` that breaks ``rule_id`` and no other error rule (None when no case does).

    The solver keeps as many of the case's field values as it can (the values in the unsat core are
    released one at a time, argument fields last, each such query within `NEAR_QUERY_MS`); when keeping
    values makes a query too hard for that time, it is asked once more with none kept (any case breaking
    the rule alone, within the solver's whole timeout). ``seed`` is its random seed. Raises `Undecided`
    when a query the answer depends on is not decided (an unknown is neither a case nor "none"), and
    `Interrupted` on Ctrl-C or SIGTERM.
    """
    import z3

    _rule(case.model, rule_id)
    held = _negation_space(case.model.name, case.ctx, rule_id)
    space, s = held
    s.set("random_seed", seed)
    tensor_names = {t.name for t in case.model.tensors}
    order = sorted(space.vars, key=lambda f: (f.split(".")[0] not in tensor_names, f))
    active = {}
    for name in order:
        var = space.vars[name]
        val = case.env[name]
        active[name] = var == (z3.BoolVal(bool(val)) if z3.is_bool(var) else z3.IntVal(int(val)))
    with solver_region():
        for _ in range(len(active) + 1):
            if active:
                set_timeout(s, min(NEAR_QUERY_MS, space.timeout_ms))
            r = decide(s, list(active.values()))
            set_timeout(s, space.timeout_ms)
            if r == "unknown" and active:
                # keeping the drawn values made the query hard (LoadDataWithStride on atlas-350 with most arguments
                # kept: 10 s, unknown): any case breaking the rule alone will do, asked of a new solver (the
                # incremental one, after a query it gave up on, left even that query undecided once in a CI run;
                # the new one replaces it for later calls)
                active = {}
                s = held[1] = _negation_solver(space, rule_id)
                s.set("random_seed", seed)
                r = decide(s)
            if r == "sat":
                return space.case_from(s.model(), origin=f"breaks {rule_id}")
            if r != "unsat":
                raise Undecided(f"whether {rule_id} can be broken alone near {case.origin or 'the case'}")
            core = core_ids(s)
            dropped = [k for k, t in active.items() if t.get_id() in core]
            if not dropped:
                return None
            del active[min(dropped, key=order.index)]
    return None


def _rule(model: ApiModel, rule_id: str) -> Rule:
    """The model's rule ``rule_id``; `InvalidArgument` with the ids that come close for an unknown one."""
    got = model.rule_by_id.get(rule_id)
    if got is None:
        raise InvalidArgument(f"{model.name} has no rule {rule_id!r}{did_you_mean(str(rule_id), model.rule_by_id)}")
    return got


def invalid_cases(api: str | ApiModel, rule: str, *, product: str | Sequence[str] | None = None,
                  dtype: str | None = None) -> st.SearchStrategy[Case]:
    """Cases that break ``rule`` and no other error rule, near a drawn valid case (solver-built)."""
    model = _model(api)
    r = _rule(model, rule)
    if not r.symbolic:
        raise InvalidArgument(f"{rule} reads tensor contents; break it by drawing data instead")
    products, dtype = _supported_context(model, product, dtype)
    products = [p for p in products if r.applies(p)]
    if not products:
        raise InvalidArgument(f"{rule} applies to none of the products given")

    def build(case: Case) -> Case:
        try:
            broken = breaking(case, rule)
        except Undecided:  # the solver could not tell near this case: another draw
            broken = None
        assume(broken is not None)
        return broken

    return cases(model, product=products, dtype=dtype).map(build)


def rules_broken(case: Case) -> list[str]:
    """Ids of the error rules a case breaks."""
    return [v.id for v in check_case(case).violations]
