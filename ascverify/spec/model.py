"""The base of every API model: parameters, rules (declared and derived), spec notes and semantics."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, ClassVar, Iterable, Mapping

import numpy as np

from .dtypes import DType, get_dtype
from .errors import ModelDefinitionError
from .logic import And, Between, Mod, Not, Or
from .params import MASK_WORDS, Arg, BoolType, EnumType, Field, LevelsArg, MaskArg, StructArg, TensorDecl
from .products import POSITION_BUFFER, PRODUCT_IDS, PRODUCTS, get_product
from .rules import (
    ERROR,
    WARNING,
    Context,
    Rule,
    Values,
    domain_value,
    rule,
    tensor_aligned,
    tensor_in_allocatable,
    tensor_in_buffer,
    tensor_positions,
)

if TYPE_CHECKING:  # pragma: no cover
    from ..core.memory import Trace
    from ..cases.case import Case


@dataclass(frozen=True)
class ArgumentForm:
    """Another form of a case's ``args`` that `ApiModel.normalize_args` reads, described for the JSON Schema: each
    key with its JSON kind -- "integer", "boolean", "integers:N" (a list of N integers) or "arg" (the model's own
    argument of that name) -- and the keys the form requires."""

    label: str
    keys: Mapping[str, str]
    required: tuple[str, ...] = ()


@dataclass(frozen=True)
class SpecNote:
    """A place where the pages are silent or contradict each other, and the reading the model takes."""

    id: str
    title: str
    reading: str
    why: str
    sources: tuple[str, ...] = ()
    rules: tuple[str, ...] = ()


#: The products whose runtime keeps bytes above a buffer's allocatable size (`Product.reserved`), and those buffers:
#: a tensor reaching into them draws the warning ``PREFIX.TENSOR.reserved`` there
RESERVING_PRODUCTS: tuple[str, ...] = tuple(p.id for p in PRODUCTS if p.reserved)
RESERVED_BUFFERS: frozenset[str] = frozenset(b for p in PRODUCTS for b in p.reserved)


class ApiModel:
    """One API: subclasses declare the class attributes and `api_rules`, and implement `execute`."""

    name: ClassVar[str]
    aliases: ClassVar[tuple[str, ...]] = ()
    prefix: ClassVar[str]
    seed: ClassVar[str]
    summary: ClassVar[str] = ""
    #: product id -> element types supported there (products absent are not supported)
    support: ClassVar[Mapping[str, tuple[str, ...]]]
    support_source: ClassVar[str] = ""
    #: Products where the vendor documents the API but ascverify does not model it, with the source that says so:
    #: a call there is not refused (its type and range rules still hold), it draws the warning ``PREFIX.product.modelled``
    unmodelled: ClassVar[Mapping[str, str]] = {}
    #: Argument names of an overload the model does not cover (LoadAlign into a RegTensor: ``dstReg``) -> why a case
    #: that gives one is refused (said instead of "unknown argument")
    unmodelled_args: ClassVar[Mapping[str, str]] = {}
    #: Argument names only another overload of the same call takes -> the name of the model of that overload (a
    #: ``LoadAlign`` case with ``dstReg`` is read by ``LoadAlignRegTensor``: `registry.overload_for`)
    overloads: ClassVar[Mapping[str, str]] = {}
    #: The element types the vendor documents on an ``unmodelled`` product (absent: any type is let through there)
    unmodelled_types: ClassVar[Mapping[str, tuple[str, ...]]] = {}
    #: False for an API without an element type (its ``support`` names a stand-in): a case's other T draws a
    #: warning (the type is ignored), not an error
    typed: ClassVar[bool] = True
    default_dtype: ClassVar[str]
    args: ClassVar[tuple[Arg | MaskArg, ...]] = ()
    tensors: ClassVar[tuple[TensorDecl, ...]] = ()
    notes: ClassVar[tuple[SpecNote, ...]] = ()
    mask_words: ClassVar[int] = MASK_WORDS
    #: arguments the model reads and that have no effect on the call (a warning says so when a case gives one):
    #: SetLoadDataRepeat's dstStride on atlas-350. The core's mutants leave them alone (equivalent mutants).
    ignored_args: ClassVar[tuple[str, ...]] = ()
    #: fields the construction of valid cases (`construct_args`) always sets to these values unless the case's
    #: arguments give them: `strategies.cases` judges arguments held fixed with them (Load3DBitMode: the bit-mode form)
    construction_constants: ClassVar[Mapping[str, Any]] = {}
    #: the error rules (ids after the model's prefix: ``window.m_bounds``) that `construct_args`, with the strategies'
    #: packing of the tensors at their minimum sizes, makes hold by itself: `strategies.cases` leaves them out of its
    #: safety net unless the caller holds a field they read fixed (tests/test_construction_guarantees.py evaluates
    #: every claim on constructed cases of every context)
    construction_holds: ClassVar[tuple[str, ...]] = ()
    #: semantic invariants ``f(case, seed)`` that hold on every valid case (AssertionError otherwise)
    invariants: ClassVar[tuple[Callable[..., None], ...]] = ()
    #: other spellings of the argument names: spelling label -> {name in ``args``: name in that spelling};
    #: an argument not listed keeps its name. A case uses one spelling throughout; the rules use ``args``' names.
    arg_spellings: ClassVar[Mapping[str, Mapping[str, str]]] = {}
    #: the label of the spelling of ``args``' own names
    canonical_spelling: ClassVar[str] = "Ascend C"
    #: other names of the tensors (e.g. pyasc's): other name -> name in ``tensors``; a case may give each tensor
    #: under either name, not both (the model's ``normalize_tensors`` reads them)
    tensor_aliases: ClassVar[Mapping[str, str]] = {}
    #: how a differential campaign compares the float outputs (`engines.fuzz.checks.Differential`): "arithmetic"
    #: (within the per-type tolerances: a rounding difference may be legitimate), "selects" (each output is one of
    #: the inputs, chosen, as a maximum: tolerances), "moves" (the bytes are copied: bit for bit, NaN payloads too);
    #: the sign of a written zero counts where `zero_sign_specified` says the pages fix it
    output_comparison: ClassVar[str] = "arithmetic"
    #: lint findings that are expected, each explained by one of ``notes``: ``RULE_ID`` or ``KIND:RULE_ID`` (kind:
    #: vacuous, redundant, contradiction, no-legal-case) -> spec note id (see `ascverify.engines.lint`)
    lint_expected: ClassVar[Mapping[str, str]] = {}
    #: the prototypes of an API with optional arguments (``Arg(optional=True)``, `LevelsArg`), each as the set
    #: of optional arguments it takes (``()``: none); a case gives exactly one set (derived rule ``PREFIX.form``).
    #: Empty: the optional arguments combine freely.
    forms: ClassVar[tuple[tuple[str, ...], ...]] = ()
    #: where the prototypes are documented (the form rule's source; default: the seed page's Prototype)
    forms_source: ClassVar[str] = ""
    #: what one iteration number of the core's `Trace` is for this API ("repeat", "fractal"...): the memory maps of
    #: ``ascverify show`` label their per-iteration rows with it (negative numbers are steps the core orders before
    #: the first iteration). Default: "iteration".
    iteration_label: ClassVar[str] = "iteration"

    def __init__(self) -> None:
        self._check_definition()
        self.fields: tuple[Field, ...] = tuple(f for p in (*self.args, *self.tensors) for f in p.fields())
        self.field_by_name: dict[str, Field] = {f.name: f for f in self.fields}
        self.param_kinds: dict[str, str] = {}
        for a in self.args:
            self.param_kinds[a.name] = "mask" if isinstance(a, MaskArg) else "levels" if isinstance(a, LevelsArg) \
                else "struct" if isinstance(a, StructArg) else "arg"
        for t in self.tensors:
            self.param_kinds[t.name] = "tensor"
        self._tensor_by_name = {t.name: t for t in self.tensors}
        self._arg_by_name = {a.name: a for a in self.args}
        #: every accepted argument name -> (the name in ``args``, the spellings that use it)
        self.arg_names: dict[str, tuple[str, frozenset[str]]] = self._spelled_names()
        for a in self.args:
            flag = getattr(a, "placeholder_flag", "")
            if flag and not (isinstance(self._arg_by_name.get(flag), Arg) and isinstance(self._arg_by_name[flag].type, BoolType)
                             and a.placeholder):
                raise ModelDefinitionError(f"{self.name}: {a.name}.placeholder_flag {flag!r} must name a bool argument "
                                           "of a mask that declares a placeholder")
        rules = (*self._derived_rules(), *self.api_rules())
        ids = [r.id for r in rules]
        dup = {i for i in ids if ids.count(i) > 1}
        if dup:
            raise ModelDefinitionError(f"{self.name}: duplicate rule ids {sorted(dup)}")
        for r in rules:
            if not r.source:
                raise ModelDefinitionError(f"{self.name}: rule {r.id} cites no source")
            if not r.id.startswith(self.prefix + "."):
                raise ModelDefinitionError(f"{self.name}: rule {r.id} must start with {self.prefix}.")
            unknown = [p for p in r.params if p not in self.param_kinds and p not in ("product", "dtype")]
            if unknown:
                raise ModelDefinitionError(f"{self.name}: rule {r.id} names unknown parameters {unknown}")
        note_ids = {n.id for n in self.notes}
        for r in rules:
            missing = [n for n in r.notes if n not in note_ids]
            if missing:
                raise ModelDefinitionError(f"{self.name}: rule {r.id} cites unknown spec notes {missing}")
        self.rules: tuple[Rule, ...] = tuple(rules)
        self.rule_by_id: dict[str, Rule] = {r.id: r for r in rules}
        self._rules_for: dict[str, tuple[Rule, ...]] = {}
        self._contexts: dict[tuple, Context] = {}

    # -- definition -------------------------------------------------------------------------------------------

    def _check_definition(self) -> None:
        for attr in ("name", "prefix", "seed", "support", "default_dtype"):
            if not hasattr(self, attr):
                raise ModelDefinitionError(f"{type(self).__name__} does not define {attr!r}")
        for pid, types in self.support.items():
            if pid not in PRODUCT_IDS:
                raise ModelDefinitionError(f"{self.name}: unknown product {pid!r} in support")
            for t in types:
                get_dtype(t)
        names = [p.name for p in (*self.args, *self.tensors)]
        if len(set(names)) != len(names):
            raise ModelDefinitionError(f"{self.name}: parameter names repeat: {names}")
        optional = {a.name for a in self.args if getattr(a, "optional", False)}
        for form in self.forms:
            if not set(form) <= optional:
                raise ModelDefinitionError(f"{self.name}: form {form} names arguments that are not optional: "
                                           f"{sorted(set(form) - optional)}")

    def _spelled_names(self) -> dict[str, tuple[str, frozenset[str]]]:
        labels = (self.canonical_spelling, *self.arg_spellings)
        if len(set(labels)) != len(labels):
            raise ModelDefinitionError(f"{self.name}: spelling labels repeat: {labels}")
        for label, names in self.arg_spellings.items():
            unknown = [n for n in names if n not in self._arg_by_name]
            if unknown:
                raise ModelDefinitionError(f"{self.name}: spelling {label!r} renames unknown arguments {unknown}")
        table: dict[str, tuple[str, set[str]]] = {}
        for a in self.args:
            for label in labels:
                spelled = a.name if label == self.canonical_spelling else self.arg_spellings[label].get(a.name, a.name)
                canonical, used = table.setdefault(spelled, (a.name, set()))
                if canonical != a.name:
                    raise ModelDefinitionError(f"{self.name}: argument name {spelled!r} means both {canonical} and {a.name}")
                used.add(label)
        return {n: (c, frozenset(ls)) for n, (c, ls) in table.items()}

    def api_rules(self) -> Iterable[Rule]:
        """The API's own rules (besides the derived type, support and tensor-placement rules)."""
        return ()

    def _derived_rules(self) -> list[Rule]:
        p, seed = self.prefix, self.seed
        support_src = self.support_source or f"{seed} Applicability"
        out: list[Rule] = [
            rule(f"{p}.product.support", ("product",),
                 lambda v, ctx: ctx.product.id in self.support or ctx.product.id in self.unmodelled,
                 f"{self.name} is not supported on {{product}}", support_src,
                 help="the product supports the API"),
            # on a product without the API the product rule says it all: no second error for the type
            rule(f"{p}.dtype.support", ("dtype",),
                 lambda v, ctx: ctx.dtype.name in self.documented_types(ctx.product.id, ctx.dtype.name),
                 "T={dtype} is not supported on {product} (supported: {supported})" if self.typed else
                 f"{self.name} takes no element type: T={{dtype}} is ignored (the stand-in is {{supported}})",
                 support_src, severity=ERROR if self.typed else WARNING,
                 facts=lambda v, ctx: {"supported": ", ".join(self.documented_types(ctx.product.id, None)) or "none"},
                 help="the element type is supported on the product"),
        ]
        if self.unmodelled:
            modelled = ", ".join(self.supported_products())
            out.append(rule(f"{p}.product.modelled", ("product",), lambda v, ctx: ctx.product.id not in self.unmodelled,
                            f"{self.name} on {{product}} is not modelled: only the rules the vendor states for it there "
                            f"are checked, and `run` computes no result of it (it is modelled on {modelled})",
                            "; ".join(dict.fromkeys(self.unmodelled.values())),
                            severity=WARNING, help="the API is modelled on the product"))
        for f in self.fields:
            if isinstance(f.type, (BoolType, EnumType)) or f.name.endswith((".bitwise", ".nwords", ".levels")):
                continue
            out.append(_type_rule(p, f, self._param_source(f.param)))
        if self.forms:
            out.append(_form_rule(self))
        for t in self.tensors:
            src = t.source or f"{seed} Table 2, {t.name}"
            out.append(rule(f"{p}.{t.name}.dtype", ("dtype", t.name),
                            (lambda name: lambda v, ctx: ctx.tensor_dtype(name).name == self.expected_dtype(name, ctx).name)(t.name),
                            f"{t.name} has element type {{actual}}; {self.name} needs {{expected}}", src,
                            facts=(lambda name: lambda v, ctx: {"actual": ctx.tensor_dtype(name).name,
                                                                "expected": self.expected_dtype(name, ctx).name})(t.name),
                            help=f"{t.name} element type"))
            out.append(tensor_positions(f"{p}.{t.name}.position", t.name, t.positions, src))
            if getattr(t, "align_exact", False):
                out.append(_exact_aligned(f"{p}.{t.name}.align", t.name, src, t.align))
            else:
                out.append(tensor_aligned(f"{p}.{t.name}.align", t.name,
                                          src + "; HARDWARE_NOTES.md Units and alignment",
                                          minimum=getattr(t, "align", 1)))
            out.append(tensor_in_buffer(f"{p}.{t.name}.bounds", t.name, "HARDWARE_NOTES.md Products (buffer sizes)"))
            if RESERVING_PRODUCTS and any(POSITION_BUFFER[pos] in RESERVED_BUFFERS for pos in t.positions):
                out.append(tensor_in_allocatable(
                    f"{p}.{t.name}.reserved", t.name, "HARDWARE_NOTES.md Products (UB: 248 KiB by default, 256 KiB "
                    "with compile options); asc-devkit impl/basic_api/utils/kernel_utils_constants.h (TMP_UB_OFFSET)",
                    RESERVING_PRODUCTS))
            if t.optional and t.required_on:
                out.append(rule(f"{p}.{t.name}.required", (t.name, "product"),
                                (lambda name: lambda v, ctx: getattr(v, name).present)(t.name),
                                f"{t.name} is required on {{product}}", src, products=t.required_on,
                                help=f"{t.name} given"))
        return out

    def _param_source(self, param: str) -> str:
        decl = self._arg_by_name.get(param) or self._tensor_by_name.get(param)
        return (decl.source if decl is not None and decl.source else f"{self.seed} Prototype, {param}")

    def expected_dtype(self, tensor: str, ctx: Context) -> DType:
        """The element type the tensor must have."""
        decl = self._tensor_by_name[tensor]
        return get_dtype(decl.dtype) if decl.dtype else ctx.dtype

    # -- lookups ----------------------------------------------------------------------------------------------

    def tensor(self, name: str) -> TensorDecl:
        return self._tensor_by_name[name]

    def arg(self, name: str) -> Arg | MaskArg:
        return self._arg_by_name[name]

    def rules_for(self, product_id: str) -> tuple[Rule, ...]:
        """The rules in force on a product."""
        got = self._rules_for.get(product_id)
        if got is None:
            got = tuple(r for r in self.rules if r.applies(product_id))
            self._rules_for[product_id] = got
        return got

    def documented_types(self, product_id: str, dtype: str | None) -> tuple[str, ...]:
        """The element types the API takes on a product: ``support``'s, an unmodelled product's documented ones (any,
        ``dtype`` included, when none are listed), none where the API is not supported (the product rule says so)."""
        if product_id in self.support:
            return self.support[product_id]
        if product_id in self.unmodelled_types:
            return self.unmodelled_types[product_id]
        return (dtype,) if dtype is not None else ()

    def documented_unmodelled(self, product_id: str, dtype: str) -> bool:
        """The vendor documents the API on the product with T ``dtype`` but ascverify does not model it there
        (`unmodelled`): checked by the rules in force there, its results not computed."""
        return product_id in self.unmodelled and dtype in self.documented_types(product_id, dtype)

    def supported_products(self) -> tuple[str, ...]:
        return tuple(pid for pid in PRODUCT_IDS if pid in self.support)

    def context(self, product: Any, dtype: str | None = None, tensor_dtypes: Mapping[str, str] | None = None) -> Context:
        """The evaluation context for a product, T and per-tensor element types (defaults: as declared)."""
        pid = product if isinstance(product, str) else product.id
        key = (pid, dtype, tuple(sorted(tensor_dtypes.items())) if tensor_dtypes else ())
        got = self._contexts.get(key)
        if got is not None:
            return got
        prod = get_product(product) if isinstance(product, str) else product
        t = get_dtype(dtype or self.default_dtype)
        given = dict(tensor_dtypes or {})
        tds = []
        for decl in self.tensors:
            name = given.get(decl.name) or decl.dtype
            tds.append((decl.name, get_dtype(name) if name else t))
        got = Context(prod, t, tuple(tds))
        self._contexts[key] = got
        return got

    def default_env(self) -> dict[str, Any]:
        """Every field at its default value."""
        return {f.name: f.default for f in self.fields}

    # -- semantics --------------------------------------------------------------------------------------------

    def execute(self, case: "Case", trace: "Trace") -> None:
        """Run the API on the core: record reads, then writes, on ``trace``."""
        raise NotImplementedError

    def zero_sign_specified(self, case: "Case") -> bool:
        """Whether the pages (or the spec notes' reading of them) fix the sign of a zero the call writes in this
        context: a differential campaign then counts a zero of the other sign as a wrong value (default: not)."""
        return False

    def input_data(self, case: "Case", tensor: str, rng: np.random.Generator) -> np.ndarray | None:
        """Random contents for an input tensor that obey the model's data rules (None: any values)."""
        return None

    def input_registers(self, case: "Case") -> Iterable[tuple[str, int]]:
        """The registers (file, index) the call reads (`core.registers`): a run fills those the case's
        ``registers`` object does not give with random bytes, like tensors without data (default: none)."""
        return ()

    def legal_register(self, case: "Case", file: str, index: int, raw: np.ndarray) -> np.ndarray:
        """Random bytes drawn for an input register the case does not give, made to obey what the model's rules
        leave to the register (as `input_data` for tensors; default: unchanged)."""
        return raw

    def construct_args(self, draw: Callable[..., Any], ctx: Context, env: dict[str, Any]) -> None:
        """Strategies call this after drawing every argument from its domain: adjust ``env`` so that relational
        rules among arguments hold by construction (default: nothing). ``draw(strategy)`` answers as Hypothesis's
        does for the strategies `engines.properties.seeded.SeededDraw` imitates (integers, booleans, sampled_from,
        permutations, one_of, tuples, bounded lists, map, filter): ``strategies.cases`` and ``gen`` both draw
        through it (from Hypothesis's bytes, or from a seed)."""

    def size_headroom(self, ctx: Context, env: Mapping[str, Any], tensor: str, need: int, default: int) -> int:
        """Strategies give ``tensor`` ``need`` elements (its minimum) plus up to this many more (default:
        ``default``); lower it where a rule also bounds the size from above."""
        return default

    def keeps_layout(self, arg_keys: tuple[str, ...], tensor_keys: tuple[str, ...]) -> bool:
        """`normalize_args` (and ``normalize_tensors``, when the model has one) return the arguments and tensors of
        a case given under these keys unchanged, whatever their values: the column-wise reader
        (`cases.columnar`) then reads them without calling either. Default: true for a model that rewrites
        neither; a model that rewrites says for which keys it does not."""
        return type(self).normalize_args is ApiModel.normalize_args and getattr(self, "normalize_tensors", None) is None

    #: the name of a struct argument that a case may also give flat, its members directly in ``args`` (SetFmatrix's
    #: ``l1H, l1W, padList``): `normalize_args` gathers them, and the JSON Schema takes both forms
    flat_struct: str = ""
    #: the other forms of ``args`` `normalize_args` reads (Load3DBitMode's LoadData3DParamsV2 members, packed
    #: words, pyasc keywords), for the JSON Schema
    argument_forms: tuple[ArgumentForm, ...] = ()

    def normalize_args(self, args: Mapping[str, Any]) -> Mapping[str, Any]:
        """A case's ``args`` object as `caseio` reads it: another form of the arguments (packed register words,
        another struct's field names) rewritten into the names of ``args``, before they are read. Raise
        `InputError` (field ``args.NAME``) for what cannot be read. Default: unchanged."""
        return args

    # -- programs (ascverify.checking.program, ascverify.core.program) --------------------------------------------

    def apply_state(self, case: "Case", state: dict[str, Any]) -> None:
        """Record in a program's state what this call configures (SetVectorMask, SetFmatrix...)."""

    #: Tensor parameters that are a pointer the call may move (a Reg load's ``__ubuf__ T*& srcAddr``): in a program
    #: such a parameter starts where earlier calls' PostUpdate moves left that tensor's pointer; another API's call on
    #: the tensor (a LocalTensor, not the pointer) does not move (`cases.program.moved_case`)
    pointer_params: ClassVar[tuple[str, ...]] = ()

    def pointer_moves(self, case: "Case") -> Mapping[str, int]:
        """The tensor parameters whose pointer the call moves, and by how many bytes (a PostUpdate load's srcAddr +=
        offset): in a program, the next call that names the same tensor starts there (`cases.program.moved_case`)."""
        return {}

    def with_state(self, case: "Case", state: Mapping[str, Any]) -> "Case":
        """The call as it executes given the state earlier calls set (default: unchanged)."""
        return case

    def check_variants(self, case: "Case") -> tuple["Case", ...]:
        """The cases a program's call (as `with_state` gives it) is checked as, their findings merged: the call
        itself, unless one case cannot describe what it accesses (BlockReduce after a Counter-mode count)."""
        return (case,)

    def state_warnings(self, case: "Case", state: Mapping[str, Any]) -> list[tuple[Rule, str]]:
        """Findings that depend on the program's state (e.g. a load made a no-op by an earlier call), each with its
        `state_rule`: a warning, or an error when the rule's severity is one (a Counter-mode count out of range)."""
        return []

    def footprint(self, case: "Case") -> Mapping[str, list[tuple[int, int]]]:
        """Byte intervals per tensor that a valid call may write, as the model predicts them."""
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"<ApiModel {self.name}>"


def _exact_aligned(id: str, tensor: str, source: str, align: Any) -> Rule:
    """The tensor's start is aligned to exactly the page's ``align`` (it replaces the position's general rule)."""

    def size(ctx: Context) -> int:
        return domain_value(align, ctx)

    def pred(v: Values, ctx: Context) -> Any:
        return Mod(getattr(v, tensor).addr, size(ctx)) == 0

    return Rule(id, (tensor,), pred, f"{tensor}.addr={{{tensor}.addr}} is not {{align}}-byte aligned", source, ERROR,
                None, lambda v, ctx: getattr(v, tensor).present, lambda v, ctx: {"align": size(ctx)},
                {"kind": "align", "tensor": tensor, "minimum": align, "exact": True}, (), None, (),
                f"{tensor} start address aligned to the API's own alignment (not the position's general one)")


def _form_rule(model: ApiModel) -> Rule:
    """The optional arguments a case gives are exactly those of one prototype (``ApiModel.forms``)."""
    optional = [a.name for a in model.args if getattr(a, "optional", False)]
    shown = "; ".join(" + ".join(f) or "none of " + ", ".join(optional) for f in model.forms)

    def pred(v: Values, ctx: Context) -> Any:
        return Or(*(And(*(v[f"{n}.present"] if n in form else Not(v[f"{n}.present"]) for n in optional))
                    for form in model.forms))

    def facts(v: Values, ctx: Context) -> Mapping[str, Any]:
        return {"given": ", ".join(n for n in optional if v[f"{n}.present"]) or "none of " + ", ".join(optional)}

    return rule(f"{model.prefix}.form", tuple(optional), pred,
                f"optional arguments given: {{given}}; that is no prototype of {model.name} (one of: {shown})",
                model.forms_source or f"{model.seed} Prototype", facts=facts,
                help=f"the arguments of one prototype ({shown})")


def _type_rule(prefix: str, f: Field, source: str) -> Rule:
    lo, hi = f.type.lo, f.type.hi

    def pred(v: Values, ctx: Context) -> Any:
        return Between(lo, v[f.name], hi)

    return Rule(f"{prefix}.{f.name}.type", (f.param,), pred,
                f"{f.name}={{value}} does not fit {f.type.name} [{lo}, {hi}]", source, ERROR, None, None,
                lambda v, ctx: {"value": v[f.name]},
                {"kind": "type", "field": f.name, "lo": lo, "hi": hi}, (), None, (),
                f"{f.name} representable as {f.type.name}")
