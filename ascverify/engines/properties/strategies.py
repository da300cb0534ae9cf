"""Hypothesis strategies built from the models: valid cases by construction, and cases breaking one rule.

Valid cases (STYLE.md 3): ranges, multiples and choices come from the structured rules' domains;
integer arguments are drawn below the largest value whose minimal tensors still fit the product's
buffers (binary search over the model's minimum-size rules, which are nondecreasing in the
arguments); tensors get at least their minimum size and are packed, aligned and disjoint, into
their buffers. Relational rules (e.g. the vertical overlap) are checked by the model as a safety net.
"""

from __future__ import annotations

from functools import lru_cache
from math import lcm
from typing import Any, Callable, Mapping, Sequence

from hypothesis import assume, strategies as st
from hypothesis.errors import InvalidArgument

from ...cases.case import Case
from ...checking.checker import check_case
from ...models.vector_common import lanes_per_repeat, mask_word_count
from ...spec.domains import Domain, field_domains
from ...spec.errors import did_you_mean
from ...spec.model import ApiModel
from ...spec.params import LevelsArg, MaskArg, StructArg
from ...spec.products import POSITION_BUFFER, get_product
from ...spec.registry import get_api
from ...spec.rules import ERROR, POSITION_NAMES, Context, Rule, Values, buffer_alignment
from ..solver import Space, core_ids


def _model(api: str | ApiModel) -> ApiModel:
    return api if isinstance(api, ApiModel) else get_api(api)


def _products(model: ApiModel, product: str | Sequence[str] | None) -> list[str]:
    if product is None:
        return list(model.supported_products())
    names = [product] if isinstance(product, str) else list(product)
    return [get_product(p).id for p in names]


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

    def align(self, tensor: str, buffer: str) -> int:
        decl = self.model.tensor(tensor)
        m = decl.align(self.ctx) if callable(decl.align) else decl.align
        pack = getattr(decl, "pack_align", None) or 1  # more than the rule asks, for a relational rule's sake
        if getattr(decl, "align_exact", False):
            return lcm(max(1, m), pack)
        return lcm(buffer_alignment(self.ctx, buffer, m), pack)

    def min_sizes(self, env: dict[str, Any]) -> dict[str, int]:
        """Each tensor's minimum size (elements) given the fields in env; fills env's sizes in order."""
        out = {}
        v = Values(env, self.ctx, self.model)
        for t in self.model.tensors:
            need = 0
            for r in self.min_rules[t.name]:
                need = max(need, int(r.domain["elems"](v, self.ctx)))
            env[f"{t.name}.size"] = need
            out[t.name] = need
        return out

    def fits(self, env: dict[str, Any], positions: Mapping[str, str]) -> bool:
        sizes = self.min_sizes(env)
        used: dict[str, int] = {}
        for t in self.model.tensors:
            if not env.get(f"{t.name}.present", True):
                continue
            buf = POSITION_BUFFER[positions[t.name]]
            a = self.align(t.name, buf)
            used[buf] = -(-used.get(buf, 0) // a) * a + sizes[t.name] * self.ctx.sizeof(t.name)
        return all(n <= self.ctx.product.buffer_size(b) for b, n in used.items())


@lru_cache(maxsize=256)
def _layout(model_name: str, ctx: Context) -> _Layout:
    return _Layout(get_api(model_name), ctx)


def _mask_strategy(draw: Callable, arg: MaskArg, ctx: Context, env: dict[str, Any]) -> None:
    n = arg.name
    bitwise = draw(st.booleans())
    env[f"{n}.bitwise"] = bitwise
    if not bitwise:
        env[f"{n}.count"] = draw(st.integers(1, lanes_per_repeat(ctx)))
        return
    k = mask_word_count(ctx)
    top = 2**32 - 1 if ctx.dtype.bits == 64 else 2**64 - 1
    words = [draw(st.integers(0, top)) for _ in range(k)]
    if not any(words):
        words[draw(st.integers(0, k - 1))] = 1 << draw(st.integers(0, min(63, top.bit_length() - 1)))
    env[f"{n}.nwords"] = k
    for i, w in enumerate(words):
        env[f"{n}.w{i}"] = w


def _levels_strategy(draw: Callable, arg: LevelsArg, layout: "_Layout", env: dict[str, Any],
                     positions: Mapping[str, str]) -> None:
    """1..max_levels levels (none when the optional argument is absent); level by level, each entry from its
    field's domain below the largest value whose minimal tensors still fit (the entries not drawn yet at 0)."""
    n = arg.name
    levels = draw(st.integers(1, arg.max_levels)) if env.get(f"{n}.present", True) else 0
    env[f"{n}.levels"] = levels
    for k in range(arg.max_levels):
        for _, stem, _ in arg.lists:
            env[f"{n}.{stem}{k}"] = 0
    for k in range(levels):
        for _, stem, _ in arg.lists:
            name, d = f"{n}.{stem}{k}", layout.domains[f"{n}.{stem}{k}"]
            top = _max_feasible(layout, env, name, d, positions)
            assume(top is not None)
            env[name] = _draw_value(draw, d, top)


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
                 positions: Mapping[str, str]) -> None:
    """The members of a present struct, each below the largest value that still fits (as scalar arguments)."""
    if not env.get(f"{arg.name}.present", True):
        return
    for f in _struct_fields(arg):
        d = layout.domains[f.name]
        if f.type.kind in ("bool", "enum"):
            env[f.name] = bool(_draw_value(draw, d)) if f.type.kind == "bool" else _draw_value(draw, d)
            continue
        top = _max_feasible(layout, env, f.name, d, positions)
        assume(top is not None)
        env[f.name] = _draw_value(draw, d, top)


def _draw_value(draw: Callable, d: Domain, hi: int | None = None) -> int:
    dd = d.clip(hi) if hi is not None else d
    if dd.choices is not None:
        return draw(st.sampled_from(sorted(dd.choices)))
    return dd.nth(draw(st.integers(0, dd.values_count() - 1)))


def _max_feasible(layout: _Layout, env: dict[str, Any], name: str, d: Domain, positions: Mapping[str, str]) -> int | None:
    """The largest value of field ``name`` (others as in env) whose minimal tensors fit, by bisection."""
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


@st.composite
def _valid_case(draw: Callable, model: ApiModel, products: Sequence[str], dtype: str | None,
                args: Mapping[str, Any] | None) -> Case:
    product = draw(st.sampled_from(products))
    supported = model.support.get(product, ())
    if dtype is not None:
        t = dtype
    elif supported:
        t = draw(st.sampled_from(supported))
    else:
        t = model.default_dtype
    ctx = model.context(product, t)
    layout = _layout(model.name, ctx)
    env = model.default_env()
    doms = layout.domains

    # tensor positions and presence first: capacity depends on which buffer each lands in
    positions: dict[str, str] = {}
    for decl in model.tensors:
        positions[decl.name] = POSITION_NAMES[_draw_value(draw, doms[f"{decl.name}.position"])]
        env[f"{decl.name}.position"] = POSITION_NAMES.index(positions[decl.name])
        if decl.optional:
            env[f"{decl.name}.present"] = decl.name in layout.required or draw(st.booleans())

    # optional arguments: those of one prototype (ApiModel.forms), or each at random without forms
    optional = [a.name for a in model.args if getattr(a, "optional", False)]
    if optional:
        form = set(draw(st.sampled_from(model.forms))) if model.forms else {n for n in optional if draw(st.booleans())}
        for n in optional:
            env[f"{n}.present"] = n in form

    # arguments, each below the largest value that still fits (the rest at their minimum)
    given = dict(args or {})
    for a in model.args:
        if isinstance(a, MaskArg):
            _mask_strategy(draw, a, ctx, env)
            continue
        if isinstance(a, LevelsArg):  # drawn below, once the scalar arguments are at their minimum
            continue
        if isinstance(a, StructArg):
            _struct_minimum(a, doms, env)
            continue
        if a.name in given:
            env[a.name] = given[a.name]
    for a in model.args:
        if not isinstance(a, (MaskArg, LevelsArg, StructArg)) and a.name not in given:
            env[a.name] = doms[a.name].nth(0) if doms[a.name].choices is None else min(doms[a.name].choices)
    for a in model.args:
        if isinstance(a, LevelsArg) and a.name not in given:
            _levels_strategy(draw, a, layout, env, positions)
            continue
        if isinstance(a, StructArg) and a.name not in given:
            _struct_draw(draw, a, layout, env, positions)
            continue
        if isinstance(a, (MaskArg, LevelsArg, StructArg)) or a.name in given:
            continue
        d = doms[a.name]
        if a.type.kind in ("bool", "enum"):
            env[a.name] = bool(draw(st.booleans())) if a.type.kind == "bool" else _draw_value(draw, d)
            continue
        top = _max_feasible(layout, env, a.name, d, positions)
        assume(top is not None)
        env[a.name] = _draw_value(draw, d, top)
    model.construct_args(draw, ctx, env)  # relational rules among arguments, by construction
    # the hook may also have moved a tensor (a data path ties positions together): pack where env says
    positions = {decl.name: POSITION_NAMES[int(env[f"{decl.name}.position"])] for decl in model.tensors}
    for a in model.args:  # a mask set elsewhere (isSetMask=false) is the placeholder
        if isinstance(a, MaskArg) and a.placeholder_flag and not env[a.placeholder_flag]:
            env[f"{a.name}.placeholder"] = True
            env[f"{a.name}.bitwise"] = False
            for k in ("count", "nwords", *(f"w{i}" for i in range(model.mask_words))):
                env[f"{a.name}.{k}"] = 0

    # sizes in declaration order (a minimum may depend on earlier tensors' sizes), then pack each
    # buffer in a random order, aligned, with small random gaps
    v = Values(env, ctx, model)
    for decl in model.tensors:
        need = 0
        for r in layout.min_rules[decl.name]:
            need = max(need, int(r.domain["elems"](v, ctx)))
        headroom = model.size_headroom(ctx, env, decl.name, need, 256 // ctx.sizeof(decl.name))
        extra = draw(st.integers(0, max(0, headroom)))
        env[f"{decl.name}.size"] = need + extra
    by_buffer: dict[str, list[str]] = {}
    for decl in model.tensors:
        if env.get(f"{decl.name}.present", True):
            by_buffer.setdefault(POSITION_BUFFER[positions[decl.name]], []).append(decl.name)
    for buf, names in by_buffer.items():
        cap = ctx.product.buffer_size(buf)
        order = draw(st.permutations(names))
        used = 0
        for i, name in enumerate(order):
            a = layout.align(name, buf)
            nbytes = env[f"{name}.size"] * ctx.sizeof(name)
            rest = sum(env[f"{n}.size"] * ctx.sizeof(n) + layout.align(n, buf) for n in order[i + 1:])
            start = -(-used // a) * a
            slack = cap - rest - start - nbytes
            assume(slack >= 0)
            gap = draw(st.integers(0, min(slack, 4 * a) // a)) * a
            env[f"{name}.addr"] = start + gap
            used = start + gap + nbytes
    case = Case(model, ctx, env, origin="strategy")
    return case


def cases(api: str | ApiModel, *, product: str | Sequence[str] | None = None, dtype: str | None = None,
          args: Mapping[str, Any] | None = None) -> st.SearchStrategy[Case]:
    """Valid cases of ``api`` (every error rule holds), drawn by construction.

    ``product``: one product or several (default: every product that supports the API); ``dtype``:
    the element type T (default: drawn among the supported ones); ``args``: arguments held fixed.
    """
    model = _model(api)
    products = _products(model, product)
    if not products:
        raise InvalidArgument(f"{model.name} is supported on no product given ({product!r})")
    return _valid_case(model, products, dtype, args).filter(lambda c: check_case(c).valid)


def raw_cases(api: str | ApiModel, **kw: Any) -> st.SearchStrategy[Case]:
    """The construction of `cases` without the model's final check (for measuring its valid rate)."""
    model = _model(api)
    return _valid_case(model, _products(model, kw.get("product")), kw.get("dtype"), kw.get("args"))


@lru_cache(maxsize=128)
def _negation_space(model_name: str, ctx: Context, rule_id: str):
    import z3

    space = Space(get_api(model_name), ctx)
    s = space.solver(skip=(rule_id,))
    s.add(z3.Not(space.terms[rule_id]))
    return space, s


def breaking(case: Case, rule_id: str, *, seed: int = 0) -> Case | None:
    """A case close to ``case`` that breaks ``rule_id`` and no other error rule (None when impossible).

    The solver keeps as many of the case's field values as it can (the values in the unsat core are
    released one at a time, argument fields last).
    """
    import z3

    space, s = _negation_space(case.model.name, case.ctx, rule_id)
    tensor_names = {t.name for t in case.model.tensors}
    order = sorted(space.vars, key=lambda f: (f.split(".")[0] not in tensor_names, f))
    active = {}
    for name in order:
        var = space.vars[name]
        val = case.env[name]
        active[name] = var == (z3.BoolVal(bool(val)) if z3.is_bool(var) else z3.IntVal(int(val)))
    for _ in range(len(active) + 1):
        r = s.check(*active.values())
        if r == z3.sat:
            out = space.case_from(s.model(), origin=f"breaks {rule_id}")
            return out
        if r != z3.unsat:
            return None
        core = core_ids(s)
        dropped = [k for k, t in active.items() if t.get_id() in core]
        if not dropped:
            return None
        del active[min(dropped, key=order.index)]
    return None


def invalid_cases(api: str | ApiModel, rule: str, *, product: str | Sequence[str] | None = None,
                  dtype: str | None = None) -> st.SearchStrategy[Case]:
    """Cases that break ``rule`` and no other error rule, near a drawn valid case (solver-built)."""
    model = _model(api)
    if rule not in model.rule_by_id:
        raise InvalidArgument(f"{model.name} has no rule {rule!r}{did_you_mean(rule, model.rule_by_id)}")
    r = model.rule_by_id[rule]
    if not r.symbolic:
        raise InvalidArgument(f"{rule} reads tensor contents; break it by drawing data instead")
    products = [p for p in _products(model, product) if r.applies(p)]
    if not products:
        raise InvalidArgument(f"{rule} applies to none of the products given")

    def build(case: Case) -> Case:
        broken = breaking(case, rule)
        assume(broken is not None)
        return broken

    return cases(model, product=products, dtype=dtype).map(build)


def rules_broken(case: Case) -> list[str]:
    """Ids of the error rules a case breaks."""
    return [v.id for v in check_case(case).violations]
