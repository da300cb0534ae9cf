"""Rules: small named constraints that describe themselves and evaluate on values, columns or Z3 terms.

A rule's predicate receives a `Values` view (``v.hRepeat``, ``v.mask.bitwise``, ``v.dst.addr``) and
the evaluation `Context` (product, element types), and must use only the helpers of
`ascverify.spec.logic` for Boolean structure. The factories below build the common shapes (range,
multiple-of, one-of, alignment, fits-in-buffer, minimum size, disjointness) and record their
*domain* so that strategies can draw values valid by construction.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from math import gcd
from typing import Any, Callable, Iterable, Mapping, Sequence

from .citations import cite
from .dtypes import DType
from .logic import And, Between, Div, Implies, InSet, Mod, Or
from .params import POSITION, EnumType
from .products import BUFFERS, BUFFER_ALIGNMENT, POSITION_BUFFER, Product

ERROR = "error"
WARNING = "warning"


@dataclass(frozen=True)
class Context:
    """What is fixed while a rule evaluates: the product and every tensor's element type."""

    product: Product
    dtype: DType
    tensor_dtypes: tuple[tuple[str, DType], ...]

    def tensor_dtype(self, tensor: str) -> DType:
        for name, t in self.tensor_dtypes:
            if name == tensor:
                return t
        return self.dtype

    def sizeof(self, tensor: str | None = None) -> int:
        """Bytes per element of ``tensor`` (of T when None)."""
        got = self._sizes.get(tensor)
        return self.dtype.size if got is None else got

    def subbyte_bits(self, tensor: str | None = None) -> int:
        """Bits per element of ``tensor`` when its type is narrower than a byte (int4b_t), else 0."""
        bits = self.tensor_dtype(tensor).bits if tensor is not None else self.dtype.bits
        return bits if bits < 8 else 0

    @functools.cached_property
    def _sizes(self) -> dict[str | None, int]:
        """`sizeof` of T (key None) and of each tensor given a type of its own (a rule asks for every evaluation)."""
        sizes: dict[str | None, int] = {None: self.dtype.size}
        for name, t in self.tensor_dtypes:
            sizes.setdefault(name, t.size)  # the first entry of a name, as `tensor_dtype` finds it
        return sizes

    @property
    def key(self) -> tuple:
        return (self.product.id, self.dtype.name, tuple((n, t.name) for n, t in self.tensor_dtypes))


#: a tensor's name -> the keys of its fields in an env (the names are the models' tensors: a few dozen)
_TENSOR_KEYS: dict[str, tuple[str, str, str, str]] = {}


class TensorView:
    """The fields of one tensor, plus derived quantities in bytes."""

    __slots__ = ("name", "addr", "size", "position", "present", "elem", "bits")

    def __init__(self, name: str, env: Mapping[str, Any], ctx: Context, optional: bool) -> None:
        keys = _TENSOR_KEYS.get(name)
        if keys is None:
            keys = _TENSOR_KEYS[name] = (f"{name}.addr", f"{name}.size", f"{name}.position", f"{name}.present")
        self.name = name
        self.addr = env[keys[0]]
        self.size = env[keys[1]]
        self.position = env[keys[2]]
        self.present = env[keys[3]] if optional else True
        self.elem = ctx.sizeof(name)
        #: bits per element when under a byte (int4b_t: two elements per byte), else 0
        self.bits = ctx.subbyte_bits(name)

    @property
    def nbytes(self) -> Any:
        """Bytes the tensor spans (a sub-byte type's elements packed: ceil(size * bits / 8))."""
        if self.bits:
            return Div(self.size * self.bits + 7, 8)
        return self.size * self.elem

    @property
    def end(self) -> Any:
        """One past the tensor's last byte."""
        return self.addr + self.nbytes

    def in_buffer(self, buffer: str) -> Any:
        """The tensor's position maps to ``buffer``."""
        return InSet(self.position, buffer_position_codes(buffer))

    def position_name(self) -> str:
        """The position's name (concrete values only)."""
        return POSITION_NAMES[int(self.position)]

    def __format__(self, spec: str) -> str:
        return f"{self.name}"


class StructView:
    """The fields of a struct argument (`params.StructArg`): ``present``, each member by name (a tuple for a list)."""

    __slots__ = ("_decl", "_env")

    def __init__(self, decl: Any, env: Mapping[str, Any]) -> None:
        self._decl = decl
        self._env = env

    def __getattr__(self, member: str) -> Any:
        d = self._decl
        if member == "present":
            return self._env[f"{d.name}.present"]
        if d.list_length(member) is not None:
            return tuple(self._env[f"{d.name}.{member}{i}"] for i in range(d.list_length(member)))
        if f"{d.name}.{member}" in self._env:
            return self._env[f"{d.name}.{member}"]
        raise AttributeError(f"{d.name} has no member {member!r}")

    def __format__(self, spec: str) -> str:
        return self._decl.name


class MaskView:
    """The fields of a mask argument."""

    __slots__ = ("bitwise", "count", "nwords", "words")

    def __init__(self, name: str, env: Mapping[str, Any], nwords: int) -> None:
        self.bitwise = env[f"{name}.bitwise"]
        self.count = env[f"{name}.count"]
        self.nwords = env[f"{name}.nwords"]
        self.words = tuple(env[f"{name}.w{i}"] for i in range(nwords))

    def __format__(self, spec: str) -> str:
        if self.bitwise:
            return "[" + ", ".join(str(int(w)) for w in self.words[: max(int(self.nwords), 0)]) + "]"
        return str(self.count)


POSITION_NAMES = POSITION.choices


@functools.lru_cache(maxsize=None)
def buffer_position_codes(buffer: str) -> tuple[int, ...]:
    """The codes of the positions that map to ``buffer`` (a fixed table: computed once per buffer; every tensor's
    in-buffer test of every rule evaluation asks)."""
    return tuple(POSITION.code(p) for p, b in POSITION_BUFFER.items() if b == buffer)


class Values:
    """Attribute access to a model's fields: args by name, masks and tensors as views."""

    __slots__ = ("_env", "_ctx", "_model")

    def __init__(self, env: Mapping[str, Any], ctx: Context, model: Any) -> None:
        self._env = env
        self._ctx = ctx
        self._model = model

    def __getattr__(self, name: str) -> Any:
        kind = self._model.param_kinds.get(name)
        if kind == "tensor":
            return TensorView(name, self._env, self._ctx, self._model.tensor(name).optional)
        if kind == "mask":
            return MaskView(name, self._env, self._model.mask_words)
        if kind == "arg":
            return self._env[name]
        if kind == "struct":
            return StructView(self._model.arg(name), self._env)
        raise AttributeError(f"{self._model.name} has no parameter {name!r}")

    def __getitem__(self, field_name: str) -> Any:
        return self._env[field_name]


class FrozenValues(Values):
    """`Values` over fields that do not change while it is read (a case being checked, a batch's columns): each
    parameter (and each member of a struct) is looked up once, then read as a plain attribute."""

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):  # our own slots before they are set, and the dunder probes of copy and pickle
            raise AttributeError(name)
        got = Values.__getattr__(self, name)
        if type(got) is StructView:
            got = _FrozenStruct(got._decl, got._env)
        self.__dict__[name] = got  # found there from now on, without this method
        return got

    def forget(self, name: str) -> None:
        """Drop parameter ``name``'s view if one was made: its fields changed (a tensor's size just set), and the
        next read looks them up again."""
        self.__dict__.pop(name, None)


class _FrozenStruct(StructView):
    """A `StructView` of `FrozenValues`: each member looked up once."""

    def __getattr__(self, member: str) -> Any:
        if member.startswith("_"):
            raise AttributeError(member)
        got = self.__dict__[member] = StructView.__getattr__(self, member)
        return got



Predicate = Callable[[Values, Context], Any]

#: The bounds of a rule's domain, per kind (`Rule.bound_by_context`).
_BOUNDS = {"range": ("lo", "hi"), "multiple": ("step",)}


@dataclass(frozen=True, eq=False)
class Rule:
    """One documented constraint of an API.

    ``predicate(v, ctx)`` is true when the rule holds. ``message`` is a template formatted with the
    case's parameters (``{hRepeat}``, ``{dst.addr}``) and with ``facts(v, ctx)``. ``domain``
    describes structured rules for strategies (``kind``: range, multiple, one_of, type, align, fits,
    min_size, disjoint... or custom; a custom rule may add ``mask``: a rule on that mask argument which
    every well-formed mask meets, or ``overlap``: tensors that must overlap for the rule to break);
    ``requires_data`` names tensors whose contents the rule reads (such a rule is checked only on
    concrete data).
    """

    id: str
    params: tuple[str, ...]
    predicate: Predicate | None
    message: str
    source: str
    severity: str = ERROR
    products: frozenset[str] | None = None
    when: Predicate | None = None
    facts: Callable[[Values, Context], Mapping[str, Any]] | None = None
    domain: Mapping[str, Any] = field(default_factory=dict)
    requires_data: tuple[str, ...] = ()
    data_check: Callable[..., Any] | None = None
    notes: tuple[str, ...] = ()
    help: str = ""
    #: a warning that the call is a no-op (it moves nothing): legal, but no way out of an error, so the engines that
    #: look for a case that meets the rules (fix, synth, explain's cores: `engines.solver.Space`) assume it; the
    #: strategies and `gen` still draw no-ops (a boundary an implementation must get right)
    noop: bool = False

    def applies(self, product_id: str) -> bool:
        """The rule is in force on ``product_id``."""
        return self.products is None or product_id in self.products

    def holds(self, v: Values, ctx: Context) -> Any:
        """True (or a Boolean term / array) when the rule is satisfied."""
        if self.predicate is None:
            return True
        if self.when is None:
            return self.predicate(v, ctx)
        return Implies(self.when(v, ctx), self.predicate(v, ctx))

    def requirement(self, contexts: Sequence[Context] = ()) -> str:
        """What the rule requires, in a few words (``help``, else ``message``). A bound that depends on the context
        (the product, the element type) is given for each of ``contexts`` (``... (T=half); ... (T=float)``) or,
        with none, said to depend on them."""
        text = self.help or self.message
        kind = self.domain.get("kind")
        bounds = _BOUNDS.get(str(kind), ())
        if not self.bound_by_context:
            return text
        if not contexts:
            return text + " (the bound depends on the product and the element type: give a product)"
        field_name = self.domain["field"]
        shown: dict[str, list[str]] = {}
        for ctx in contexts:
            vals = [domain_value(self.domain[b], ctx) for b in bounds]
            words = (f"{field_name} in [{vals[0]}, {vals[1]}]" if kind == "range" else
                     f"{field_name} a multiple of {vals[0]}")
            shown.setdefault(words, []).append(ctx.dtype.name)
        if len(shown) == 1:
            return next(iter(shown))
        return "; ".join(f"{words} (T={', '.join(types)})" for words, types in shown.items())

    @property
    def bound_by_context(self) -> bool:
        """A range or multiple whose bound is a function of the context (the product, the element type): its help
        shows the bound as "…" (`requirement` gives it per context)."""
        return any(callable(self.domain.get(b)) for b in _BOUNDS.get(str(self.domain.get("kind")), ()))

    @property
    def symbolic(self) -> bool:
        """The rule can be evaluated on Z3 terms (it does not read tensor contents)."""
        return self.predicate is not None

    def explain(self, v: Values, ctx: Context, extra: Mapping[str, Any] | None = None) -> str:
        """The message for concrete values."""
        env: dict[str, Any] = {"product": ctx.product.id, "dtype": ctx.dtype.name}
        if self.facts is not None:
            env.update(self.facts(v, ctx))
        if extra:
            env.update(extra)
        for name in _template_names(self.message):
            if name not in env:
                try:
                    env[name] = getattr(v, name)
                except AttributeError:
                    pass
        for name, value in env.items():  # a flag as the case file writes it (true, not Python's True)
            if type(value).__name__ in ("bool", "bool_"):  # Python's, or a numpy scalar's (no numpy import here)
                env[name] = "true" if value else "false"
        try:
            return self.message.format(**env)
        except (KeyError, AttributeError, IndexError, ValueError) as exc:  # a model bug, kept visible
            return f"{self.message} [message could not be formatted: {exc!r}]"

    @property
    def citation(self) -> str:
        """The source as users read it: the documentation page's title and section, in English."""
        return cite(self.source)

    def describe(self) -> str:
        """One line: id, what it requires, source."""
        return f"[{self.id}] {self.help or self.message} ({self.citation})"

    def __repr__(self) -> str:
        return f"<Rule {self.id}>"


_TEMPLATE_NAMES: dict[str, tuple[str, ...]] = {}


def _template_names(template: str) -> tuple[str, ...]:
    """The root names a message template refers to (``{dst.addr}`` -> ``dst``)."""
    got = _TEMPLATE_NAMES.get(template)
    if got is None:
        import string

        names = []
        for _, field_name, _, _ in string.Formatter().parse(template):
            if field_name:
                root = field_name.split(".")[0].split("[")[0]
                if root not in names:
                    names.append(root)
        got = _TEMPLATE_NAMES[template] = tuple(names)
    return got


def domain_value(x: Any, ctx: Context) -> Any:
    """A bound in a rule's domain (``lo``, ``hi``, ``step``...): ``x``, or ``x(ctx)`` when it depends on the context."""
    return x(ctx) if callable(x) else x


def _products(products: Iterable[str] | None) -> frozenset[str] | None:
    return None if products is None else frozenset(products)


def rule(id: str, params: Sequence[str], predicate: Predicate, message: str, source: str, *,
         severity: str = ERROR, products: Iterable[str] | None = None, when: Predicate | None = None,
         facts=None, notes: Sequence[str] = (), help: str = "", domain: Mapping[str, Any] | None = None,
         noop: bool = False) -> Rule:
    """A rule with an arbitrary predicate (relational rules); ``noop``: a warning that the call is a no-op
    (`Rule.noop`)."""
    return Rule(id, tuple(params), predicate, message, source, severity, _products(products), when, facts,
                dict(domain or {"kind": "custom"}), (), None, tuple(notes), help, noop)


def field_range(id: str, field_name: str, lo: Any, hi: Any, source: str, *, param: str | None = None,
                products: Iterable[str] | None = None, when: Predicate | None = None,
                message: str | None = None, severity: str = ERROR, notes: Sequence[str] = ()) -> Rule:
    """lo <= field <= hi; lo and hi may be functions of the context."""
    param = param or field_name.split(".")[0]

    def pred(v: Values, ctx: Context) -> Any:
        return Between(domain_value(lo, ctx), v[field_name], domain_value(hi, ctx))

    def facts(v: Values, ctx: Context) -> Mapping[str, Any]:
        return {"value": v[field_name], "lo": domain_value(lo, ctx), "hi": domain_value(hi, ctx), "field": field_name}

    return Rule(id, (param,), pred, message or "{field}={value} is outside [{lo}, {hi}]", source, severity,
                _products(products), when, facts,
                {"kind": "range", "field": field_name, "lo": lo, "hi": hi}, (), None, tuple(notes),
                f"{field_name} in [{lo if not callable(lo) else '…'}, {hi if not callable(hi) else '…'}]")


def field_multiple(id: str, field_name: str, step: Any, source: str, *, param: str | None = None,
                   products: Iterable[str] | None = None, when: Predicate | None = None,
                   message: str | None = None, notes: Sequence[str] = ()) -> Rule:
    """field is a multiple of step (step may be a function of the context)."""
    param = param or field_name.split(".")[0]

    def pred(v: Values, ctx: Context) -> Any:
        return Mod(v[field_name], domain_value(step, ctx)) == 0

    def facts(v: Values, ctx: Context) -> Mapping[str, Any]:
        return {"value": v[field_name], "step": domain_value(step, ctx), "field": field_name}

    return Rule(id, (param,), pred, message or "{field}={value} is not a multiple of {step}", source, ERROR,
                _products(products), when, facts, {"kind": "multiple", "field": field_name, "step": step}, (), None,
                tuple(notes), f"{field_name} a multiple of {step if not callable(step) else '…'}")


def field_one_of(id: str, field_name: str, choices: Any, source: str, *, param: str | None = None,
                 type: EnumType | None = None, products: Iterable[str] | None = None,
                 when: Predicate | None = None, message: str | None = None, notes: Sequence[str] = ()) -> Rule:
    """field takes one of ``choices`` (names for an enum ``type``); may be a function of the context."""
    param = param or field_name.split(".")[0]

    def codes(ctx: Context) -> tuple[int, ...]:
        cs = domain_value(choices, ctx)
        return type.codes(cs) if type is not None else tuple(cs)

    def pred(v: Values, ctx: Context) -> Any:
        return InSet(v[field_name], codes(ctx))

    def facts(v: Values, ctx: Context) -> Mapping[str, Any]:
        value = v[field_name]
        shown = type.choices[int(value)] if type is not None and 0 <= int(value) < len(type.choices) else value
        return {"value": shown, "choices": ", ".join(map(str, domain_value(choices, ctx))), "field": field_name}

    return Rule(id, (param,), pred, message or "{field}={value} is not one of {choices}", source, ERROR,
                _products(products), when, facts, {"kind": "one_of", "field": field_name, "codes": codes}, (), None,
                tuple(notes), f"{field_name} one of {', '.join(map(str, choices)) if not callable(choices) else '…'}")


def _present(v: Values, tensor: str) -> Any:
    return getattr(v, tensor).present


def tensor_positions(id: str, tensor: str, positions: Sequence[str], source: str, **kw: Any) -> Rule:
    """The tensor's TPosition is one of ``positions``."""
    rule_ = field_one_of(id, f"{tensor}.position", tuple(positions), source, param=tensor, type=POSITION,
                         message=kw.pop("message", None) or f"{tensor} is in {{value}}; allowed: {{choices}}",
                         when=kw.pop("when", None) or (lambda v, ctx: _present(v, tensor)), **kw)
    return rule_


def buffer_alignment(ctx: Context, buffer: str, minimum: int) -> int:
    return max(BUFFER_ALIGNMENT[buffer], minimum)


def tensor_aligned(id: str, tensor: str, source: str, *, minimum: Any = 1, **kw: Any) -> Rule:
    """The tensor's start address is aligned: the larger of the position's alignment and ``minimum``."""

    def pred(v: Values, ctx: Context) -> Any:
        t = getattr(v, tensor)
        m = domain_value(minimum, ctx)
        return And(*(Implies(t.in_buffer(b), Mod(t.addr, buffer_alignment(ctx, b, m)) == 0) for b in BUFFERS))

    def facts(v: Values, ctx: Context) -> Mapping[str, Any]:
        t = getattr(v, tensor)
        buf = POSITION_BUFFER[t.position_name()]
        return {"align": buffer_alignment(ctx, buf, domain_value(minimum, ctx)), "buffer": buf}

    return Rule(id, (tensor,), pred,
                kw.pop("message", None) or f"{tensor}.addr={{{tensor}.addr}} is not {{align}}-byte aligned ({{buffer}})",
                source, ERROR, _products(kw.pop("products", None)), kw.pop("when", None) or (lambda v, ctx: _present(v, tensor)),
                facts, {"kind": "align", "tensor": tensor, "minimum": minimum}, (), None, tuple(kw.pop("notes", ())),
                f"{tensor} start address aligned")


def tensor_in_buffer(id: str, tensor: str, source: str, **kw: Any) -> Rule:
    """The tensor lies inside the physical buffer of its position on the product."""

    def pred(v: Values, ctx: Context) -> Any:
        t = getattr(v, tensor)
        return And(*(Implies(t.in_buffer(b), t.end <= ctx.product.physical_size(b)) for b in BUFFERS))

    def facts(v: Values, ctx: Context) -> Mapping[str, Any]:
        t = getattr(v, tensor)
        buf = POSITION_BUFFER[t.position_name()]
        return {"end": t.end, "buffer": buf, "capacity": ctx.product.physical_size(buf)}

    return Rule(id, (tensor,), pred,
                f"{tensor} spans bytes [{{{tensor}.addr}}, {{end}}) but {{buffer}} has {{capacity}} bytes on {{product}}",
                source, ERROR, _products(kw.pop("products", None)), lambda v, ctx: _present(v, tensor), facts,
                {"kind": "fits", "tensor": tensor}, (), None, tuple(kw.pop("notes", ())), f"{tensor} inside its buffer")


def tensor_in_allocatable(id: str, tensor: str, source: str, products: Iterable[str]) -> Rule:
    """A warning: the tensor ends inside the bytes a kernel allocates, not in those the runtime keeps above them for
    the vendor library's temporaries (`Product.reserved`)."""

    def pred(v: Values, ctx: Context) -> Any:
        t = getattr(v, tensor)
        return And(*(Implies(t.in_buffer(b), t.end <= ctx.product.buffer_size(b)) for b in BUFFERS
                     if ctx.product.reserved.get(b)))

    def facts(v: Values, ctx: Context) -> Mapping[str, Any]:
        t = getattr(v, tensor)
        buf = POSITION_BUFFER[t.position_name()]
        return {"end": t.end, "buffer": buf, "capacity": ctx.product.buffer_size(buf),
                "reserved": ctx.product.reserved.get(buf, 0)}

    return Rule(id, (tensor,), pred,
                f"{tensor} spans bytes [{{{tensor}.addr}}, {{end}}), past the {{capacity}} bytes of {{buffer}} a kernel "
                "allocates on {product}: the {reserved} bytes above them hold the vendor library's temporaries "
                "(TMP_UB_OFFSET), which a library call may overwrite", source, WARNING, _products(products),
                lambda v, ctx: _present(v, tensor), facts, {"kind": "custom"}, (), None, (),
                f"{tensor} inside the bytes a kernel allocates")


def tensor_min_size(id: str, tensor: str, elems: Callable[[Values, Context], Any], source: str, *,
                    what: str = "", **kw: Any) -> Rule:
    """The tensor holds at least ``elems(v, ctx)`` elements."""

    def pred(v: Values, ctx: Context) -> Any:
        return getattr(v, tensor).size >= elems(v, ctx)

    def facts(v: Values, ctx: Context) -> Mapping[str, Any]:
        return {"need": elems(v, ctx)}

    params = kw.pop("params", ())
    return Rule(id, (tensor, *params), pred,
                kw.pop("message", None) or f"{tensor}.size={{{tensor}.size}} elements but {what or 'the call'} needs {{need}}",
                source, kw.pop("severity", ERROR), _products(kw.pop("products", None)),
                kw.pop("when", None) or (lambda v, ctx: _present(v, tensor)), facts,
                {"kind": "min_size", "tensor": tensor, "elems": elems}, (), None, tuple(kw.pop("notes", ())),
                f"{tensor} large enough for {what or 'the call'}")


def tensors_disjoint(id: str, a: str, b: str, source: str, **kw: Any) -> Rule:
    """Tensors a and b share no byte (when they are in the same physical buffer)."""

    def pred(v: Values, ctx: Context) -> Any:
        ta, tb = getattr(v, a), getattr(v, b)
        same = Or(*(And(ta.in_buffer(buf), tb.in_buffer(buf)) for buf in BUFFERS))
        return Implies(And(ta.present, tb.present, same, ta.size > 0, tb.size > 0),
                       Or(ta.end <= tb.addr, tb.end <= ta.addr))

    return Rule(id, (a, b), pred,
                kw.pop("message", None) or f"{a} [{{{a}.addr}}, {{{a}.end}}) and {b} [{{{b}.addr}}, {{{b}.end}}) overlap",
                source, kw.pop("severity", ERROR), _products(kw.pop("products", None)), None, None,
                {"kind": "disjoint", "tensors": (a, b)}, (), None, tuple(kw.pop("notes", ())), f"{a} and {b} disjoint")


def data_rule(id: str, tensors: Sequence[str], check: Callable[..., Sequence[str]], message: str, source: str, *,
              params: Sequence[str] = (), products: Iterable[str] | None = None, notes: Sequence[str] = ()) -> Rule:
    """A rule on tensor contents: ``check(case, data, ctx)`` returns the problems found (empty when it holds).

    Checked only when the case gives the data; reported as not checked otherwise.
    """
    return Rule(id, tuple(tensors) + tuple(params), None, message, source, ERROR, _products(products), None, None,
                {"kind": "data"}, tuple(tensors), check, tuple(notes), message)


def elements_per_block(ctx: Context, tensor: str | None = None) -> int:
    """Elements of a 32-byte datablock."""
    return 32 // ctx.sizeof(tensor)


def step_for_bytes(nbytes: int) -> Callable[[Context], int]:
    """The element step that makes ``count * sizeof(T)`` a multiple of ``nbytes``."""
    return lambda ctx: nbytes // gcd(nbytes, ctx.dtype.size)


def order_rule(id: str, key: str, message: str, source: str, *, when: Predicate | None = None,
               params: Sequence[str] = (), products: Iterable[str] | None = None, notes: Sequence[str] = ()) -> Rule:
    """A call needs an earlier call of the program to have set ``key`` of the core's state.

    Checked within a program (`ascverify.checking.program`); a single case reports it as not checked.
    ``when`` (on concrete values) limits it to the calls that need the state.
    """
    return Rule(id, tuple(params), None, message, source, ERROR, _products(products), when, None,
                {"kind": "order", "key": key}, (), None, tuple(notes), message)


def state_rule(id: str, message: str, source: str, *, params: tuple[str, ...] = (), severity: str = WARNING,
               products: Any = None, notes: tuple[str, ...] = ()) -> Rule:
    """A rule about the state the earlier calls of a program set that is not an ordering rule (a load whose own
    feature map differs from the one SetFmatrix set): the model reports it from `ApiModel.state_warnings` with
    its own message, `check_program` tags it with the call. A single case has no state: `check_case` passes it
    (kind ``state``, no predicate, no data to read)."""
    return Rule(id, tuple(params), None, message, source, severity, None if products is None else frozenset(products),
                None, None, {"kind": "state"}, (), no_problems, tuple(notes), message)


def no_problems(case: Any, ctx: Context) -> tuple[str, ...]:
    """The ``data_check`` of a rule a single case cannot break (`state_rule`): no problems, ever."""
    return ()
