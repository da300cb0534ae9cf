"""Load3DBitMode: ``LoadData(dst, src, Load3DBitModeParam)``, img2col from L1 into L0A / L0B.

Page 002_70a359bc6af47a68.txt (Tables 1-5 and the example) + HARDWARE_NOTES.md (sections Load3DBitMode /
LoadData3DParamsV2 / SetFmatrix, Units and alignment, Products).

The call reads the feature map that SetFmatrix described (``fmatrix`` in a case: l1H, l1W, padList,
padValue) from ``src`` (A1/B1, NC1HWC0), forms the img2col matrix (M = Ho*Wo output positions by
K = C1*Kh*Kw*C0), and stores its window [mPos, mPos+mStep) x [kPos, kPos+kStep) into ``dst`` (A2 in NZ
fractals, B2 in ZN fractals). A case gives the config0/config1 fields by the page's names, or the raw
``config0``/``config1`` words, or the LoadData3DParamsV2 member names (`normalize_args`); the bit fields
live in `ascverify.codec`, the numpy img2col in `ascverify.models.img2col`.
"""

from __future__ import annotations

from typing import Any, Iterator, Mapping

import numpy as np

from ..case import Case
from ..codec import BITFIELDS, BY_NAME, BY_V2, NOTES, SEED, V2_DEFAULTS, V2_OTHER_DEFAULTS, CodecError, decode
from ..dtypes import DType
from ..errors import InputError, did_you_mean
from ..logic import And, Between, Div, If, Implies, InSet, Mod, Not, Or
from ..model import ApiModel, SpecNote
from ..params import BOOL, INT64, UINT8, UINT16, Arg, IntType, StructArg, TensorDecl
from ..program import state_rule
from ..registry import register
from ..rules import (
    POSITION_NAMES,
    WARNING,
    Context,
    Values,
    field_multiple,
    field_range,
    rule,
    tensor_min_size,
)
from .img2col import (
    FRACTAL_BYTES,
    FRACTAL_ROWS,
    VECTOR_BYTES,
    Geometry,
    ceil_to,
    fractal_count,
    fractal_elements,
    layout_of,
    nz_matrix,
    padded,
    source,
    window_from_dst,
)

UNITS = "HARDWARE_NOTES.md Units and alignment"
PRODUCTS_NOTE = "HARDWARE_NOTES.md Products"
T3, T4, T5 = f"{SEED} Table 3", f"{SEED} Table 4", f"{SEED} Table 5"
#: The channel counts the page allows, as remainders modulo C0 (elements of a 32-byte vector); besides them
#: every count is at least 4. 32-bit types: 4, 8N, 8N+4; 16-bit: 4, 8, 16N, 16N+4, 16N+8; 8-bit: 4, 8, 16,
#: 32N, 32N+4, 32N+8, 32N+16 (Table 5, sizeChannel).
CHANNEL_REMAINDERS = {8: (0, 4), 16: (0, 4, 8), 32: (0, 4, 8, 16)}
MAX_MPOS_3D = 32767  # the LoadData3D page's mStartPt range (HARDWARE_NOTES)
#: A padded feature map larger than this (elements) is not materialized by the reference invariant.
REFERENCE_LIMIT = 1 << 21


def _bits(width: int) -> IntType:
    return IntType(f"{width}-bit field", 0, (1 << width) - 1)


def _t(name: str) -> str:
    f = BY_NAME[name]
    return f"{SEED} {f.table}, {name}"


def c0_of(ctx: Context) -> int:
    """Elements of one 32-byte vector / columns of one fractal: 16 for half, 32 for 8-bit, 8 for 32-bit types."""
    return VECTOR_BYTES // ctx.dtype.size


def channel_remainders(ctx: Context) -> tuple[int, ...]:
    """sizeChannel mod C0 may be 0 or a power of two from 4 below C0 (the page's lists; any T, so that a case with
    an unsupported T is still checked without error)."""
    c0 = c0_of(ctx)
    return CHANNEL_REMAINDERS.get(c0) or (0, *(r for r in (4, 8, 16) if r < c0))


def channel_values(ctx: Context) -> tuple[int, ...]:
    """Every sizeChannel value the page allows for T, in [4, 65535]."""
    c0, rems = c0_of(ctx), channel_remainders(ctx)
    return tuple(c for c in range(4, 65536) if c % c0 in rems)


def pad_range(ctx: Context) -> tuple[int, int]:
    """The integers padValue may take for T: T's finite range (the raw byte for hifloat8, which numpy cannot
    convert to), clipped to int64."""
    t = ctx.dtype
    if t.name == "hifloat8" or t.kind in ("int", "uint"):
        info = np.iinfo(t.numpy)
        return int(info.min), int(info.max)
    import ml_dtypes

    top = float(ml_dtypes.finfo(t.numpy).max)  # ml_dtypes.finfo knows numpy's floats and its own
    return (-int(top), int(top)) if top < INT64.hi else (INT64.lo, INT64.hi)


def _pad_ok(v: Values, ctx: Context) -> Any:
    """padValue within T's range; simply true where that range is padValue's whole int64 type (float, bfloat16),
    so that the solver is not asked to break what cannot be broken."""
    lo, hi = pad_range(ctx)
    return True if (lo, hi) == (INT64.lo, INT64.hi) else Between(lo, v.fmatrix.padValue, hi)


# -- derived quantities, on values, columns or terms -------------------------------------------------------------

def _kernel_w(v: Values) -> Any:
    return v.Wk + If(v.filterW, 256, 0)


def _kernel_h(v: Values) -> Any:
    return v.Hk + If(v.filterH, 256, 0)


def _c1(v: Values, ctx: Context) -> Any:
    c0 = c0_of(ctx)
    return Div(v.sizeChannel + c0 - 1, c0)


def _fm_ok(v: Values) -> Any:
    """fmatrix given, and what the src footprint reads within the fields' widths (no overflow on columns)."""
    fm = v.fmatrix
    return And(fm.present, Between(0, v.sizeChannel, 65535), Between(0, fm.l1H, 65535), Between(0, fm.l1W, 65535))


def _geom_ok(v: Values) -> Any:
    """fmatrix given and every geometry field within its width, strides >= 1: the img2col matrix is defined."""
    fm = v.fmatrix
    return And(_fm_ok(v), Between(1, v.strideW, 63), Between(1, v.strideH, 63), Between(0, v.Wk, 255),
               Between(0, v.Hk, 255), Between(0, v.dilationW, 255), Between(0, v.dilationH, 255),
               *(Between(0, p, 255) for p in fm.padList))


def _out(size: Any, pad_a: Any, pad_b: Any, kernel: Any, dilation: Any, stride: Any) -> Any:
    """Output positions along one axis: floor(n / stride) + 1 for n = size + pads - dilation*(kernel-1) - 1 >= 0,
    else 0 (the dilated kernel does not fit); for stride >= 1 this is max(0, floor(n / stride) + 1)."""
    n = size + pad_a + pad_b - dilation * (kernel - 1) - 1
    return If(n >= 0, Div(n, stride) + 1, 0)


def ho_wo(v: Values) -> tuple[Any, Any]:
    fm = v.fmatrix
    left, right, top, bottom = fm.padList
    return (_out(fm.l1H, top, bottom, _kernel_h(v), v.dilationH, v.strideH),
            _out(fm.l1W, left, right, _kernel_w(v), v.dilationW, v.strideW))


def m_total(v: Values, ctx: Context) -> Any:
    """Rows of the img2col matrix: Ho * Wo output positions."""
    ho, wo = ho_wo(v)
    return ho * wo


def m_bound(v: Values, ctx: Context) -> Any:
    """The largest mPos + mStep: Ho * Wo rounded up to a whole fractal (16 rows)."""
    return Div(m_total(v, ctx) + FRACTAL_ROWS - 1, FRACTAL_ROWS) * FRACTAL_ROWS


def k_total(v: Values, ctx: Context) -> Any:
    """Columns of the img2col matrix: C1 * Kh * Kw * C0."""
    return _c1(v, ctx) * _kernel_h(v) * _kernel_w(v) * c0_of(ctx)


def covered_m(v: Values, ctx: Context) -> Any:
    """The window reaches the matrix's last row, so its last fractal is the bottom (partial) one."""
    return And(_geom_ok(v), v.mPos + v.mStep >= m_total(v, ctx))


def covered_k(v: Values, ctx: Context) -> Any:
    """The window reaches the matrix's last column (its rightmost fractal)."""
    return And(_geom_ok(v), v.kPos + v.kStep >= k_total(v, ctx))


def dst_elems_needed(v: Values, ctx: Context) -> Any:
    """The window in whole fractals: ceil(mStep / 16) * 16 x ceil(kStep / C0) * C0 elements."""
    c0 = c0_of(ctx)
    return Div(v.mStep + FRACTAL_ROWS - 1, FRACTAL_ROWS) * FRACTAL_ROWS * Div(v.kStep + c0 - 1, c0) * c0


def src_elems_needed(v: Values, ctx: Context) -> Any:
    """The feature map SetFmatrix describes: C1 x l1H x l1W x C0 elements (0 without fmatrix)."""
    fm = v.fmatrix
    return If(fm.present, _c1(v, ctx) * fm.l1H * fm.l1W * c0_of(ctx), 0)


def _positions(v: Values) -> tuple[Any, Any]:
    return v.src.position, v.dst.position


_CODE = {p: i for i, p in enumerate(POSITION_NAMES)}


def _path_ok(v: Values, ctx: Context) -> Any:
    s, d = _positions(v)
    in_sets = And(InSet(s, (_CODE["A1"], _CODE["B1"])), InSet(d, (_CODE["A2"], _CODE["B2"])))
    paired = Or(And(s == _CODE["A1"], d == _CODE["A2"]), And(s == _CODE["B1"], d == _CODE["B2"]))
    return Implies(in_sets, paired)


# -- the argument forms ----------------------------------------------------------------------------------------------

SHARED_NAMES = frozenset(("strideW", "strideH", "filterW", "filterH"))  # in both namings (filterW/H: other fields)
PAGE_ONLY = frozenset(f.name for f in BITFIELDS) - SHARED_NAMES
V2_ONLY = (frozenset(f.v2 for f in BITFIELDS) - SHARED_NAMES) | frozenset(V2_OTHER_DEFAULTS)
RAW_NAMES = ("config0", "config1")
FMATRIX_V2 = ("l1H", "l1W", "padList", "padValue")
FORM_LABELS = {"page": "Load3DBitModeParam field (page 002 Tables 4-5)", "v2": "LoadData3DParamsV2 member",
               "raw": "packed register word"}


def _form_of(name: str) -> str | None:
    if name in RAW_NAMES:
        return "raw"
    if name in PAGE_ONLY:
        return "page"
    if name in V2_ONLY:
        return "v2"
    return None


def _word(args: Mapping[str, Any], name: str) -> int:
    from ..caseio import _int, _type_name

    if name not in args:
        raise InputError("missing: the packed form gives both config0 and config1", field=f"args.{name}")
    x = args[name]
    if isinstance(x, bool):
        raise InputError(f"expected a uint64_t word, got {_type_name(x)}", field=f"args.{name}")
    x = _int(x, f"args.{name}")
    if x < 0:
        raise InputError(f"{x} is negative; {name} is a uint64_t word", field=f"args.{name}")
    return x


def _v2_value(name: str, value: Any) -> Any:
    """A LoadData3DParamsV2 member's value checked for its JSON type (bool for the flags, integers otherwise)."""
    from ..caseio import _int, _type_name

    flag = name in ("enSmallK",) or (name in BY_V2 and BY_V2[name].is_flag)
    if flag:
        if not isinstance(value, bool):
            raise InputError(f"expected true or false, got {_type_name(value)}", field=f"args.{name}")
        return value
    if name == "padList":
        if not isinstance(value, list) or len(value) != 4:
            raise InputError(f"expected a list of 4 integers [left, right, top, bottom], got {_type_name(value)}",
                             field="args.padList")
        return [_v2_value(f"padList[{i}]", x) for i, x in enumerate(value)]
    if isinstance(value, bool):
        raise InputError("expected an integer, got a boolean", field=f"args.{name}")
    return _int(value, f"args.{name}")


def normalize_args(args: Mapping[str, Any], model_name: str = "Load3DBitMode", extra: tuple[str, ...] = ()) -> dict[str, Any]:
    """The page-named arguments of any of the three forms (see the spec note load3d.namings); the ``extra``
    arguments of a model built on this one (LoadDataWithStride's ``repeat``) pass through unchanged."""
    known = PAGE_ONLY | V2_ONLY | SHARED_NAMES | frozenset(RAW_NAMES) | {"fmatrix", *extra}
    first: dict[str, str] = {}
    for k in args:
        if k not in known:
            raise InputError(f"unknown argument {k!r} of {model_name}{did_you_mean(k, sorted(known))}",
                             field=f"args.{k}" if isinstance(k, str) and k.isprintable() else "args")
        form = _form_of(k)
        if form is not None:
            first.setdefault(form, k)
    if len(first) > 1:
        (fa, ka), (fb, kb) = list(first.items())[:2]
        raise InputError(f"{kb!r} is a {FORM_LABELS[fb]} but {ka!r} is a {FORM_LABELS[fa]}; give the arguments "
                         f"in one form", field=f"args.{kb}")
    form = next(iter(first), None)
    if form is None:  # only names both namings share: filterW / filterH given as integers are kernel sizes
        form = "v2" if any(type(args.get(n)) is int for n in ("filterW", "filterH")) else "page"
    if form == "page":
        return dict(args)
    if form == "raw":
        shared = sorted(SHARED_NAMES & set(args))
        if shared:
            raise InputError(f"{shared[0]!r} is a field name but the case gives the packed words; give the arguments "
                             "in one form", field=f"args.{shared[0]}")
        try:
            out: dict[str, Any] = decode(_word(args, "config0"), _word(args, "config1"))
        except CodecError as exc:  # pragma: no cover - _word checks the words first
            raise InputError(str(exc), field="args") from None
        for k in ("fmatrix", *extra):
            if k in args:
                out[k] = args[k]
        return out
    out = {}
    fmatrix: dict[str, Any] = {}
    for k, value in args.items():
        if k == "fmatrix":
            continue
        if k in extra:
            out[k] = value
            continue
        value = _v2_value(k, value)
        if k == "enSmallK":
            if value:
                raise InputError("enSmallK=true has no field in Load3DBitModeParam (its constructor drops it); "
                                 "give false or leave it out", field="args.enSmallK")
        elif k in FMATRIX_V2:
            fmatrix[k] = value
        else:
            out[BY_V2[k].name] = value
    for v2, value in V2_DEFAULTS.items():
        out.setdefault(BY_V2[v2].name, value)
    if fmatrix and "fmatrix" in args:
        raise InputError(f"{next(iter(fmatrix))!r} and fmatrix both describe the feature map; give one",
                         field=f"args.{next(iter(fmatrix))}")
    if fmatrix:
        out["fmatrix"] = {k: fmatrix.get(k, list(V2_OTHER_DEFAULTS[k]) if k == "padList" else V2_OTHER_DEFAULTS[k])
                          for k in FMATRIX_V2}
    elif "fmatrix" in args:
        out["fmatrix"] = args["fmatrix"]
    return out


# -- the model ---------------------------------------------------------------------------------------------------------

def _arg(name: str, doc: str) -> Arg:
    f = BY_NAME[name]
    typ = BOOL if f.is_flag else _bits(f.width)
    return Arg(name, typ, f"{_t(name)} ({f.width} bit{'s' if f.width > 1 else ''}, {f.bits}); {NOTES}",
               f"{doc} (LoadData3DParamsV2: {f.v2}; Set{f.accessor}/Get{f.accessor})", default=False if f.is_flag else 0)


FMATRIX = StructArg(
    "fmatrix",
    (
        Arg("l1H", UINT16, f"{NOTES} (SetFmatrix l1H in [1, 32767])", "feature map height in L1"),
        Arg("l1W", UINT16, f"{NOTES} (SetFmatrix l1W in [1, 32767])", "feature map width in L1"),
        Arg("padList", UINT8, f"{NOTES} (SetFmatrix padList[4], each in [0, 255])",
            "padding [left, right, top, bottom]", default=(0, 0, 0, 0)),
        Arg("padValue", INT64, f"{NOTES} (LoadData3DParamsV2 padValue, of type T)",
            "value of the padding positions (an integer, converted to T)", default=0),
    ),
    source=f"{NOTES} (SetFmatrix(l1H, l1W, padList) and the padding value)",
    doc="the feature map SetFmatrix set before the call: {l1H, l1W, padList: [left, right, top, bottom], padValue}",
    lists=(("padList", 4),),
)
#: The program state key of the feature map (SetFmatrix's `apply_state`): {"fields": {fmatrix.* field: value}, "dtype"}
FMATRIX_STATE = "fmatrix"
FMATRIX_MEMBER_FIELDS = tuple(f.name for m in FMATRIX.members for f in FMATRIX.member_fields(m))


def fmatrix_rules(p: str, optional: bool = True) -> Iterator[Any]:
    """The ranges of the feature map's members (``fmatrix`` struct): a load's, in force when it gives the struct
    (``optional``), and SetFmatrix's own, always (so that strategies draw the members from the ranges)."""
    present = (lambda v, ctx: v.fmatrix.present) if optional else None
    for name in ("l1H", "l1W"):
        yield field_range(f"{p}.fmatrix.{name}.range", f"fmatrix.{name}", 1, 32767,
                          f"{NOTES} (SetFmatrix: {name} in [1, 32767])", when=present, notes=("load3d.fmatrix",))
    yield rule(f"{p}.fmatrix.padValue.range", ("fmatrix", "dtype"), _pad_ok,
               "fmatrix.padValue={value} is outside T's range [{lo}, {hi}]", f"{NOTES} (padValue is of type T)",
               when=present, notes=("load3d.padValue",),
               facts=lambda v, ctx: dict(zip(("lo", "hi"), pad_range(ctx)), value=v.fmatrix.padValue),
               domain={"kind": "range", "field": "fmatrix.padValue", "lo": lambda ctx: pad_range(ctx)[0],
                       "hi": lambda ctx: pad_range(ctx)[1]},
               help="fmatrix.padValue within T's range")


def inherited_notes(ids: tuple[str, ...], prefix: str, without: tuple[str, ...] = ()) -> tuple[SpecNote, ...]:
    """Load3DBitMode's spec notes ``ids`` for a model that takes its rules under ``prefix`` (SetFmatrix,
    LoadDataWithStride): the same readings, naming the rules with the other prefix (less the rules ``without``,
    ids without the prefix, that the model does not have)."""
    from dataclasses import replace

    def renamed(rules: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(f"{prefix}.{r[len('load3d.'):]}" for r in rules if r[len("load3d."):] not in without)

    return tuple(replace(n, rules=renamed(n.rules)) for n in Load3DBitMode.notes if n.id in ids)


def fmatrix_shown(fields: Mapping[str, Any]) -> str:
    """A feature map's fields as a JSON-like object, for messages."""
    return (f"{{l1H: {fields['fmatrix.l1H']}, l1W: {fields['fmatrix.l1W']}, "
            f"padList: [{', '.join(str(fields[f'fmatrix.padList{i}']) for i in range(4))}], "
            f"padValue: {fields['fmatrix.padValue']}}}")


@register
class Load3DBitMode(ApiModel):
    name = "Load3DBitMode"
    aliases = ("LoadData3DBitMode", "load3d")
    prefix = "load3d"
    seed = SEED
    summary = ("img2col: the window [mPos, mPos+mStep) x [kPos, kPos+kStep) of the img2col matrix of the "
               "feature map in src (NC1HWC0, described by SetFmatrix) into dst, in NZ (A2) or ZN (B2) fractals")
    support = {"atlas-350": ("uint8", "int8", "fp8_e4m3fn", "fp8_e5m2", "hifloat8", "half", "bfloat16", "uint32",
                             "int32", "float")}
    support_source = f"{SEED} Applicability and Table 1 (T)"
    default_dtype = "half"
    args = (
        _arg("kStep", "window width (K, columns of the img2col matrix)"),
        _arg("mStep", "window height (M, output positions)"),
        _arg("kPos", "first column of the window"),
        _arg("mPos", "first row of the window"),
        _arg("strideW", "stride along W"),
        _arg("strideH", "stride along H"),
        _arg("Wk", "kernel width (plus 256 with filterW)"),
        _arg("Hk", "kernel height (plus 256 with filterH)"),
        _arg("dilationW", "dilation along W"),
        _arg("dilationH", "dilation along H"),
        _arg("filterW", "add 256 to the kernel width"),
        _arg("filterH", "add 256 to the kernel height"),
        _arg("transpose", "store the transposed window (A2, half only)"),
        _arg("fmatrixCtrl", "take the feature map description of the right matrix (must be false)"),
        _arg("sizeChannel", "channels of the feature map"),
        FMATRIX,
    )
    tensors = (
        TensorDecl("dst", "out", positions=("A2", "B2"), source=f"{SEED} Table 2, dst",
                   doc="the window in fractals: NZ in A2, ZN in B2"),
        TensorDecl("src", "in", positions=("A1", "B1"), source=f"{SEED} Table 2, src",
                   doc="the feature map, NC1HWC0 (C1 x l1H x l1W x C0)"),
    )
    notes = (
        SpecNote("load3d.products", "Products",
                 "Supported on atlas-350 only, with the ten types of Table 1; every other product refuses the call.",
                 "The Applicability table marks only the Atlas 350 Accelerator Card. The page's example says it is "
                 "'supported on the Atlas inference product AI Core', which the table marks x; the table is the "
                 "contract and the example sentence is taken as copied from another LoadData page.",
                 (f"{SEED} Applicability", f"{SEED} Examples", PRODUCTS_NOTE),
                 ("load3d.product.support", "load3d.dtype.support")),
        SpecNote("load3d.types", "Element types",
                 "T is one of uint8, int8, fp8_e4m3fn, fp8_e5m2, hifloat8, half, bfloat16, uint32, int32, float; "
                 "int4b_t, which the sizeChannel row mentions, is not among them and is refused.",
                 "Table 1 lists the ten types; Table 5 gives channel counts for int4b_t too, most likely copied from a "
                 "page of an API that takes it.", (f"{SEED} Table 1, T", _t("sizeChannel")),
                 ("load3d.dtype.support",)),
        SpecNote("load3d.namings", "Three ways to give the arguments",
                 "A case gives the fields by the page's names (kStep, mStep, kPos, mPos, strideW, strideH, Wk, Hk, "
                 "dilationW, dilationH, filterW, filterH, transpose, fmatrixCtrl, sizeChannel), or the packed words "
                 "config0 and config1 (uint64, decoded by the layout of HARDWARE_NOTES), or the LoadData3DParamsV2 "
                 "members (kExtension, mExtension, kStartPt, mStartPt, strideW, strideH, filterW and filterH = kernel "
                 "size, dilationFilterW/H, filterSizeW/H = the +256 flags, enTranspose, fMatrixCtrl, channelSize, "
                 "and l1H, l1W, padList, padValue for the feature map; enSmallK only as false). One form per case: "
                 "a mix is refused. A case naming only strideW/strideH/filterW/filterH is read in the page's naming "
                 "unless filterW or filterH is an integer (then it is a kernel size, LoadData3DParamsV2).",
                 "The page says each field 'has the same meaning as' a LoadData3DParamsV2 member; the two namings "
                 "give filterW/filterH different meanings (8-bit kernel size there, 1-bit +256 flag here), so a "
                 "mixed case could not be read unambiguously (which is also why ApiModel.arg_spellings, where a name "
                 "means one argument in every spelling, cannot carry this naming: Load3DBitMode.normalize_args "
                 "translates it). The JSON type tells the two filterW apart (bool vs integer). The JSON Schema "
                 "lists the page's names only.",
                 (T3, T4, T5, NOTES)),
        SpecNote("load3d.omitted", "Fields left out",
                 "In the page's naming an omitted field is 0 (false): config0 and config1 'are initialized to 0', so "
                 "e.g. an omitted strideW breaks its range rule rather than making the case unreadable. In the "
                 "LoadData3DParamsV2 naming omitted members take the struct's defaults (strideW = strideH = filterW = "
                 "filterH = dilationFilterW = dilationFilterH = 1, everything else 0 / false). A case may omit "
                 "fmatrix (see load3d.no-fmatrix).",
                 "Table 3: config0 and config1 are initialized to 0; HARDWARE_NOTES give the struct's defaults.",
                 (T3, NOTES)),
        SpecNote("load3d.bit-widths", "Field widths",
                 "Each field's type is its bit width (16, 6, 8 or 1 bits): a named value beyond it breaks the type "
                 "rule (the C++ bit-field would silently keep the low bits); decoded from config0/config1 no value "
                 "can exceed its width. A packed word beyond uint64 or negative cannot be read (exit 2).",
                 "Tables 4 and 5 give each field's width; the layout adds up to exactly 64 bits per word.",
                 (T4, T5, NOTES)),
        SpecNote("load3d.multiples", "kPos, kStep, mPos, mStep multiples for every type",
                 "K positions and lengths are multiples of C0 = 32 bytes / sizeof(T) (16 for half and bfloat16, 32 for "
                 "the 8-bit types, 8 for the 32-bit types); M positions and lengths are multiples of 16 for every "
                 "type. kPos has no exception; kStep, mStep and mPos are free when their fractal is covered "
                 "(load3d.covered).",
                 "The page names half (16, 16) and int8/uint8 (32, 16) only. A fractal is 16 rows x 32 bytes "
                 "(HARDWARE_NOTES), so a column group is 32 bytes of T and a row group 16 rows whatever T is; the "
                 "page's two cases are exactly these values.",
                 (_t("kStep"), _t("kPos"), _t("mStep"), _t("mPos"), UNITS),
                 ("load3d.kPos.multiple", "load3d.kStep.multiple", "load3d.mPos.multiple", "load3d.mStep.multiple")),
        SpecNote("load3d.covered", "'The rightmost / bottom fractal is covered'",
                 "The bottom fractal is covered when mPos + mStep >= Ho*Wo (the window reaches the matrix's last "
                 "row); the rightmost fractal is covered when kPos + kStep >= K = C1*Kh*Kw*C0. Only with fmatrix can "
                 "either be established: without it the multiples are required. With the K axis padded to C0 "
                 "(load3d.k-order) a window that covers the rightmost fractal has a kStep that is a multiple of C0 "
                 "anyway, so the K exception never changes a verdict; it is kept as the page states it.",
                 "The page gives the exception without defining 'covered'. Ho*Wo need not be a multiple of 16, so "
                 "the last row group is partial and a window that ends there cannot have a multiple-of-16 length. "
                 "A verifier must not accept on a coverage it cannot see.",
                 (_t("kStep"), _t("mStep"), _t("mPos")),
                 ("load3d.kStep.multiple", "load3d.mStep.multiple", "load3d.mPos.multiple")),
        SpecNote("load3d.sizeChannel", "sizeChannel: the '[1, 63]' range and the allowed values",
                 "sizeChannel is a 16-bit field, [0, 65535] (type rule); the values Table 5 lists per type are "
                 "the rule: 4, N*8, N*8+4 (32-bit); 4, 8, N*16, N*16+4, N*16+8 (half, bfloat16); 4, 8, 16, N*32, "
                 "N*32+4, N*32+8, N*32+16 (8-bit), N >= 1; so 0 to 3 are refused. fp8 and hifloat8 follow the 8-bit "
                 "list (the page names int8_t and uint8_t).",
                 "Table 5 says 'Value range: [1, 63]' for a 16-bit field whose own value list goes beyond 63 "
                 "(N*16 for any N); HARDWARE_NOTES: the LoadData3D page gives channelSize in [0, 65535], the "
                 "'[1, 63]' is very likely a copy error. The lists are the same in bytes for every type of one size.",
                 (_t("sizeChannel"), NOTES), ("load3d.sizeChannel.values", "load3d.sizeChannel.type")),
        SpecNote("load3d.mPos-range", "mPos above 32767",
                 "mPos in [0, 65535] is valid (the 16-bit field, page 002); above 32767 a warning says that the "
                 "LoadData3D page allows [0, 32767] only.",
                 "Page 002 gives [0, 65535]; HARDWARE_NOTES: the LoadData3D page gives [0, 32767]. The page of this "
                 "API is the contract; the other page is a reason for caution.",
                 (_t("mPos"), NOTES), ("load3d.mPos.range3d",)),
        SpecNote("load3d.transpose", "transpose",
                 "transpose=true is an error unless dst is in A2 and T is half. The transposed window (kStep x mStep) "
                 "is stored in NZ fractals, which for half is the ZN layout of the window itself.",
                 "The page: 'valid only when the destination TPosition is set to A2 and the source operand is of the "
                 "half type'. A flag the hardware ignores elsewhere is a bug in the caller either way.",
                 (_t("transpose"),), ("load3d.transpose.only_a2_half",)),
        SpecNote("load3d.no-fmatrix", "Without fmatrix",
                 "A case may leave fmatrix out (the feature map was set by a SetFmatrix the case does not show). "
                 "Then the window bounds and the src footprint are reported as not checked, the coverage exceptions "
                 "do not apply (load3d.covered), and `run` writes the window's fractals as unspecified values "
                 "(poison) without reading src.",
                 "The feature map's size and padding come from SetFmatrix (HARDWARE_NOTES); a single call does not "
                 "carry them, so what it reads and which values it stores cannot be known, only where it stores.",
                 (NOTES, _t("fmatrixCtrl")),
                 ("load3d.window.m_bounds", "load3d.window.k_bounds", "load3d.src.footprint")),
        SpecNote("load3d.fmatrix", "fmatrix: the feature map",
                 "fmatrix = {l1H, l1W, padList: [left, right, top, bottom], padValue}; l1H and l1W in [1, 32767], "
                 "pads in [0, 255] (SetFmatrix); l1H and l1W must be given. The feature map is NC1HWC0 at src's start: "
                 "C1 x l1H x l1W x C0 elements, C1 = ceil(sizeChannel / C0), which must lie inside src.",
                 "SetFmatrix(l1H, l1W, padList) describes the map the call reads (HARDWARE_NOTES); src 'is the "
                 "feature map' (Function Usage). The C0 layout is the one of the Cube unit (32-byte vectors).",
                 (NOTES, f"{SEED} Function Usage"),
                 ("load3d.fmatrix.l1H.range", "load3d.fmatrix.l1W.range", "load3d.src.footprint")),
        SpecNote("load3d.k-order", "The K axis",
                 "Column k of the img2col matrix is (c1, kh, kw, c0) = unravel(k, (C1, Kh, Kw, C0)): channel group "
                 "outermost, then the kernel row, the kernel column, and the C0 channels of one 32-byte vector "
                 "innermost, K = C1*Kh*Kw*C0 (the weight layout FRACTAL_Z uses). Columns of channels c1*C0 + c0 >= "
                 "sizeChannel are unspecified (poison in the core).",
                 "The page does not give the order. This is the order in which one pixel vector of C0 channels is "
                 "read per (kernel row, kernel column), and the one a convolution weight in C1*Kh*Kw x N x C0 "
                 "fractals multiplies; what the hardware stores for the missing channels of a partial group is not "
                 "documented.", (f"{SEED} Function Usage", NOTES), ("load3d.window.k_bounds",)),
        SpecNote("load3d.m-order", "The M axis and its bound",
                 "Row m is the output position (ho, wo) = divmod(m, Wo), Ho = (l1H + padTop + padBottom - dilationH*"
                 "(Kh-1) - 1) // strideH + 1 (Wo alike, 0 when the dilated kernel does not fit). The window must "
                 "end by Ho*Wo rounded up to 16 (mPos + mStep <= ceil16(Ho*Wo)); rows from Ho*Wo on are unspecified.",
                 "Kernels commonly take a whole bottom fractal (mExtension rounded up to 16); a window beyond that "
                 "fractal has no rows at all.", (_t("mStep"), _t("mPos"), NOTES), ("load3d.window.m_bounds",)),
        SpecNote("load3d.layout", "Destination layout",
                 "dst holds the window rounded up to whole fractals of 16 rows x C0 columns (512 bytes): ceil(mStep/16)"
                 "*16 x ceil(kStep/C0)*C0 elements, 512-byte aligned. A2: NZ (fractal (m1, k1) at index k1*M1 + m1, "
                 "rows of C0 elements inside); B2 and transposed A2: ZN (fractal (m1, k1) at index m1*K1 + k1, "
                 "columns of 16 elements inside). Elements of the last fractals beyond mStep or kStep are unspecified.",
                 "Table 2: A2 is 'ZZ or NZ', B2 'ZN'; HARDWARE_NOTES: L0A holds NZ fractals, L0B ZN, a fractal is 16 x "
                 "32 bytes, L0A/L0B start addresses are 512-byte aligned. The core writes whole fractals.",
                 (f"{SEED} Table 2, dst", NOTES, UNITS), ("load3d.dst.size", "load3d.dst.align")),
        SpecNote("load3d.kernel", "Kernel size",
                 "The kernel width is Wk + 256 when filterW is set (so 1..255 or 257..511), the height Hk + 256 with "
                 "filterH.", "Table 5, filterW/filterH: 'whether to add 256 elements to the width of the kernel'.",
                 (_t("filterW"), _t("filterH"), _t("Wk"))),
        SpecNote("load3d.padValue", "padValue",
                 "padValue is an integer in a case file, converted to T as a C++ cast would (round to nearest); it "
                 "must lie in T's finite range (integer types: their range). For hifloat8, which numpy cannot convert "
                 "to, it is the raw byte [0, 255].",
                 "LoadData3DParamsV2's padValue is of type T (HARDWARE_NOTES); a case file holds no T literals.",
                 (NOTES,), ("load3d.fmatrix.padValue.range",)),
        SpecNote("load3d.example", "The page's example",
                 "The example's parameters (C1 = 2, H = W = 4, Kh = Kw = 2, dilation 2, pad 1 on every side, stride 1, "
                 "half, C0 = 16) are shipped as examples/load3d_example.json with the whole img2col matrix as window "
                 "(kStep = C1*Kh*Kw*C0 = 128, mStep = Ho*Wo = 16) and fmatrix = {4, 4, [1, 1, 1, 1], 0}.",
                 "Its LoadData3DParamsV2 initializer list, read in the member order of HARDWARE_NOTES (padList, l1H, "
                 "l1W, channelSize, kExtension, mExtension, kStartPt, mStartPt, strideW, ...), sets channelSize = "
                 "kExtension = mExtension = 0 (all three break their rules), kStartPt = mStartPt = -1 (65535 as "
                 "uint16), enTranspose = 1 and padValue = fmRepeat, a name the example never defines; and no "
                 "SetFmatrix precedes the bit-mode call, whose parameter does not carry l1H, l1W or padList.",
                 (f"{SEED} Examples", NOTES)),
        SpecNote("load3d.path", "Data paths",
                 "src in A1 goes with dst in A2, src in B1 with dst in B2; A1 -> B2 and B1 -> A2 are refused.",
                 "Function Usage: 'The following data paths are supported: A1 -> A2 and B1 -> B2.'",
                 (f"{SEED} Function Usage",), ("load3d.path",)),
        SpecNote("load3d.program-fmatrix", "The feature map in a program",
                 "In a program the load reads the feature map the last SetFmatrix set: the call is checked and run with "
                 "that fmatrix (l1H, l1W, padList, padValue), also when it gives one of its own; when its own differs, "
                 "the warning fmatrix.differs says so. A call without fmatrix after no SetFmatrix is a warning "
                 "(fmatrix.unset), not an error: it is checked and run as a single case without fmatrix. padValue is "
                 "checked against the load's own T.",
                 "Load3DBitModeParam carries no l1H, l1W or padList; fmatrixCtrl 'works with SetFmatrix' (the load "
                 "reads the register SetFmatrix writes), so the register, not the call's description, is what the "
                 "hardware uses. A program may be a fragment of a kernel whose SetFmatrix came earlier, so a missing "
                 "one is suspicious but not provably wrong: no ordering rule.",
                 (_t("fmatrixCtrl"), NOTES), ("load3d.fmatrix.unset", "load3d.fmatrix.differs")),
    )

    # -- rules --------------------------------------------------------------------------------------------------

    def api_rules(self):
        return self.img2col_rules(self.prefix)

    @staticmethod
    def img2col_rules(p: str, *, m_start: Any = None, k_start: Any = None, window_params: tuple[str, ...] = (),
                      window_what: str = "the window") -> Iterator[Any]:
        """The rules of the img2col load under the rule prefix ``p`` (Load3DBitMode's; LoadDataWithStride takes them
        too). The window-bound rules check the window that starts at row ``m_start(v, ctx)`` and column
        ``k_start(v, ctx)`` (default: mPos, kPos; a later repeat's window for LoadDataWithStride), whose fields are
        ``window_params`` besides the window's own, named ``window_what`` in the messages."""
        m_start = m_start or (lambda v, ctx: v.mPos)
        k_start = k_start or (lambda v, ctx: v.kPos)
        yield rule(f"{p}.path", ("src", "dst"), _path_ok,
                   "src in {src_pos} with dst in {dst_pos}: the supported data paths are A1 -> A2 and B1 -> B2",
                   f"{SEED} Function Usage (data paths)", notes=("load3d.path",),
                   facts=lambda v, ctx: {"src_pos": v.src.position_name(), "dst_pos": v.dst.position_name()},
                   help="A1 -> A2 or B1 -> B2")
        for name in ("kStep", "mStep"):
            yield field_range(f"{p}.{name}.range", name, 1, 65535, f"{_t(name)} ([1, 65535])")
        for name in ("strideW", "strideH"):
            yield field_range(f"{p}.{name}.range", name, 1, 63, f"{_t(name)} ([1, 63])")
        for name in ("Wk", "Hk", "dilationW", "dilationH"):
            yield field_range(f"{p}.{name}.range", name, 1, 255, f"{_t(name)} ([1, 255])")
        yield rule(f"{p}.mPos.range3d", ("mPos",), lambda v, ctx: v.mPos <= MAX_MPOS_3D,
                   f"mPos={{mPos}} is above {MAX_MPOS_3D}, the LoadData3D page's limit for mStartPt",
                   f"{_t('mPos')} ([0, 65535]); {NOTES} (the LoadData3D page gives [0, 32767])", severity=WARNING,
                   notes=("load3d.mPos-range",), help=f"mPos <= {MAX_MPOS_3D} (LoadData3D page)")
        yield field_multiple(f"{p}.kPos.multiple", "kPos", c0_of, f"{_t('kPos')}; {UNITS}",
                             message="kPos={value} is not a multiple of {step} (32 bytes of T)",
                             notes=("load3d.multiples",))
        yield rule(f"{p}.kStep.multiple", ("kStep", "kPos", "fmatrix"),
                   lambda v, ctx: Or(Mod(v.kStep, c0_of(ctx)) == 0, covered_k(v, ctx)),
                   "kStep={kStep} is not a multiple of {c0} (32 bytes of T) and the window does not cover the "
                   "rightmost fractal{why}", f"{_t('kStep')}; {UNITS}",
                   facts=lambda v, ctx: {"c0": c0_of(ctx), "why": _coverage_why(v, ctx, "k")},
                   notes=("load3d.multiples", "load3d.covered"),
                   help="kStep a multiple of C0 unless the window covers the rightmost fractal")
        for name in ("mStep", "mPos"):
            yield rule(f"{p}.{name}.multiple", ("mStep", "mPos", "fmatrix"),
                       (lambda n: lambda v, ctx: Or(Mod(getattr(v, n), FRACTAL_ROWS) == 0, covered_m(v, ctx)))(name),
                       f"{name}={{{name}}} is not a multiple of 16 and the window does not cover the bottom fractal"
                       "{why}", f"{_t(name)}; {UNITS}",
                       facts=lambda v, ctx: {"why": _coverage_why(v, ctx, "m")},
                       notes=("load3d.multiples", "load3d.covered"),
                       help=f"{name} a multiple of 16 unless the window covers the bottom fractal")
        yield rule(f"{p}.sizeChannel.values", ("sizeChannel", "dtype"),
                   lambda v, ctx: And(v.sizeChannel >= 4, InSet(Mod(v.sizeChannel, c0_of(ctx)), channel_remainders(ctx))),
                   "sizeChannel={sizeChannel} is not a channel count the page allows for T={dtype} ({allowed})",
                   f"{_t('sizeChannel')} (values per type)", notes=("load3d.sizeChannel",),
                   facts=lambda v, ctx: {"allowed": _allowed_text(ctx)},
                   help="sizeChannel one of the page's values for T",
                   domain={"kind": "one_of", "field": "sizeChannel", "codes": channel_values})
        yield rule(f"{p}.transpose.only_a2_half", ("transpose", "dst", "dtype"),
                   lambda v, ctx: Implies(v.transpose, And(v.dst.position == _CODE["A2"], ctx.dtype.name == "half")),
                   "transpose=true needs dst in A2 and T=half (dst in {dst_pos}, T={dtype})", _t("transpose"),
                   facts=lambda v, ctx: {"dst_pos": v.dst.position_name()}, notes=("load3d.transpose",),
                   help="transpose only with dst in A2 and T=half")
        yield rule(f"{p}.fmatrixCtrl.false", ("fmatrixCtrl",), lambda v, ctx: Not(v.fmatrixCtrl),
                   "fmatrixCtrl=true: it 'can only be set to false'", _t("fmatrixCtrl"),
                   help="fmatrixCtrl false")
        yield tensor_min_size(f"{p}.dst.size", "dst", dst_elems_needed,
                              f"{SEED} Table 2, dst; {UNITS} (fractal 16 x 32 bytes)",
                              what="the window in whole fractals (ceil16(mStep) x ceil(kStep / C0) * C0)",
                              params=("mStep", "kStep"), notes=("load3d.layout",))
        # with the feature map
        yield from fmatrix_rules(p)
        yield tensor_min_size(f"{p}.src.footprint", "src", src_elems_needed,
                              f"{NOTES} (SetFmatrix: the feature map C1 x l1H x l1W x C0); {SEED} Table 2, src",
                              what="the feature map of fmatrix (C1 x l1H x l1W x C0)",
                              params=("fmatrix", "sizeChannel"), when=lambda v, ctx: _fm_ok(v),
                              notes=("load3d.fmatrix", "load3d.no-fmatrix"))
        yield rule(f"{p}.window.m_bounds", ("mPos", "mStep", "fmatrix", "strideH", "strideW", "Hk", "Wk", "filterH",
                                            "filterW", "dilationH", "dilationW", *window_params),
                   lambda v, ctx: m_start(v, ctx) + v.mStep <= m_bound(v, ctx),
                   f"rows [{{start}}, {{end}}) of {window_what} pass the img2col matrix's {{m}} rows (Ho={{ho}} x "
                   "Wo={wo}, ceil16: {bound})", f"{_t('mStep')}; {_t('mPos')}; {NOTES} (SetFmatrix)",
                   when=lambda v, ctx: _geom_ok(v),
                   facts=lambda v, ctx: dict(zip(("ho", "wo"), ho_wo(v)), start=m_start(v, ctx),
                                             end=m_start(v, ctx) + v.mStep, m=m_total(v, ctx), bound=m_bound(v, ctx)),
                   notes=("load3d.m-order", "load3d.no-fmatrix"),
                   help="mPos + mStep <= Ho*Wo rounded up to 16")
        yield rule(f"{p}.window.k_bounds", ("kPos", "kStep", "fmatrix", "sizeChannel", "Hk", "Wk", "filterH", "filterW",
                                            *window_params),
                   lambda v, ctx: k_start(v, ctx) + v.kStep <= k_total(v, ctx),
                   f"columns [{{start}}, {{end}}) of {window_what} pass the img2col matrix's K = C1*Kh*Kw*C0 = {{k}} "
                   "columns", f"{_t('kStep')}; {_t('kPos')}; {NOTES} (SetFmatrix)", when=lambda v, ctx: _geom_ok(v),
                   facts=lambda v, ctx: {"start": k_start(v, ctx), "end": k_start(v, ctx) + v.kStep, "k": k_total(v, ctx)},
                   notes=("load3d.k-order", "load3d.no-fmatrix"), help="kPos + kStep <= C1*Kh*Kw*C0")
        # in a program (ApiModel.state_warnings): the feature map a call reads, against the one SetFmatrix set
        yield state_rule(f"{p}.fmatrix.unset", "no feature map: the call gives no fmatrix and no SetFmatrix came "
                         "before it in the program, so the feature map the load reads is unknown (its bounds are not "
                         "checked and `run` stores unspecified values)",
                         f"{_t('fmatrixCtrl')} (it works with SetFmatrix); {NOTES}", params=("fmatrix",),
                         notes=("load3d.program-fmatrix",))
        yield state_rule(f"{p}.fmatrix.differs", "the call's fmatrix differs from the one the last SetFmatrix set",
                         f"{_t('fmatrixCtrl')} (the load reads the feature map SetFmatrix set); {NOTES}",
                         params=("fmatrix",), notes=("load3d.program-fmatrix",))

    #: the rules that need the feature map (ids without the prefix)
    FMATRIX_RULES = ("window.m_bounds", "window.k_bounds", "src.footprint")

    def unchecked(self, case: Case) -> Iterator[tuple[str, str, str]]:
        """Without fmatrix the feature map is unknown: its bounds are not checked here."""
        if case.env["fmatrix.present"]:
            return
        ids = {f"{self.prefix}.{name}" for name in self.FMATRIX_RULES}
        for r in self.rules_for(case.product):
            if r.id in ids:
                yield r.id, "no fmatrix given: the feature map SetFmatrix set is not known to this call", r.source

    def normalize_args(self, args: Mapping[str, Any]) -> Mapping[str, Any]:
        return normalize_args(args, self.name)

    # -- programs: the feature map SetFmatrix set (spec note load3d.program-fmatrix) ------------------------------

    def with_state(self, case: Case, state: Mapping[str, Any]) -> Case:
        """The call with the feature map the last SetFmatrix set (the hardware reads that register)."""
        got = state.get(FMATRIX_STATE)
        if got is None:
            return case
        return case.with_fields(**{"fmatrix.present": True, **got["fields"]})

    def state_warnings(self, case: Case, state: Mapping[str, Any]) -> list[tuple[Any, str]]:
        """No feature map at all, or the call's own differs from the one SetFmatrix set."""
        got = state.get(FMATRIX_STATE)
        if got is None:
            r = self.rule_by_id[f"{self.prefix}.fmatrix.unset"]
            return [] if case.env["fmatrix.present"] else [(r, r.message)]
        if not case.env["fmatrix.present"] or all(case.env[k] == x for k, x in got["fields"].items()):
            return []
        r = self.rule_by_id[f"{self.prefix}.fmatrix.differs"]
        return [(r, f"the call's fmatrix {fmatrix_shown(case.env)} differs from the one the last SetFmatrix set "
                    f"{fmatrix_shown(got['fields'])}; the load reads the latter")]

    # -- construction of valid cases (strategies) -------------------------------------------------------------

    def construct_args(self, draw: Any, ctx: Context, env: dict[str, Any]) -> None:
        """Every argument drawn valid by construction: the data path, the geometry, the window inside the matrix
        and inside dst's buffer, the channel count from the page's list, the feature map inside L1."""
        construct(draw, ctx, env)

    # -- semantics --------------------------------------------------------------------------------------------

    def footprint(self, case: Case) -> Mapping[str, list[tuple[str, int, int]]]:
        """The whole fractals of the window in dst."""
        dst = case.tensor("dst")
        n = fractal_count(int(case.env["mStep"]), int(case.env["kStep"]), c0_of(case.ctx))
        return {"dst": [(dst.buffer, dst.addr, dst.addr + n * FRACTAL_BYTES)] if n else []}

    def execute(self, case: Case, trace: Any) -> None:
        load_window(case, trace, int(case.env["mPos"]), int(case.env["kPos"]), case.tensor("dst").addr)

    def input_data(self, case: Case, tensor: str, rng: np.random.Generator) -> np.ndarray | None:
        if tensor != "src":
            return None
        t = case.tensor(tensor)
        dt = t.dtype
        if dt.name == "hifloat8":
            return rng.integers(0, 256, size=t.size, dtype=np.uint8)
        if dt.kind == "uint":
            return rng.integers(0, 17, size=t.size).astype(dt.numpy)
        # small integers: exact in every float type of the list (fp8_e5m2 holds -8..8 exactly)
        return rng.integers(-8, 9, size=t.size).astype(dt.numpy)


def load_window(case: Case, trace: Any, m_pos: Any, k_pos: Any, dst_addr: Any, exclusive: bool = False) -> None:
    """The core of the img2col load: for each i, read the pixel vectors of the window [m_pos[i], m_pos[i] + mStep) x
    [k_pos[i], k_pos[i] + kStep) of the case's feature map from src and store the window's whole fractals from
    ``dst_addr[i]`` on (in dst's buffer and layout), as iteration i of the call (scalars: one window, iteration 0;
    ``exclusive``: the core faults when two iterations store to the same bytes)."""
    env = case.env
    t = case.ctx.dtype
    c0 = c0_of(case.ctx)
    rows, cols = int(env["mStep"]), int(env["kStep"])
    total = fractal_count(rows, cols, c0)
    m_pos, k_pos, dst_addr = (np.atleast_1d(np.asarray(x, dtype=np.int64)) for x in (m_pos, k_pos, dst_addr))
    if total <= 0 or not m_pos.size:
        return
    dst, src = case.tensor("dst"), case.tensor("src")
    # an invalid call may be far larger than the buffer: one fractal past its end is enough to fault, and so are
    # two windows more than the buffer holds (two stores to the same bytes fault as well)
    cap = case.ctx.product.buffer_size(dst.buffer) // FRACTAL_BYTES + 2
    n = min(total, cap)
    w = min(m_pos.size, max(2, cap // n + 1))
    m_pos, k_pos, dst_addr = m_pos[:w, None, None], k_pos[:w, None, None], dst_addr[:w]
    frac = np.arange(n, dtype=np.int64)
    r, c = fractal_elements(frac, layout_of(dst.position, bool(env["transpose"])), rows, cols, c0)
    in_window = np.broadcast_to((r < rows) & (c < cols), (w, *r.shape))
    iteration = np.broadcast_to(np.arange(w, dtype=np.int64)[:, None, None], in_window.shape)
    values = np.zeros(in_window.shape, dtype=t.numpy)
    if not env["fmatrix.present"]:
        poison = np.ones(in_window.shape, dtype=bool)  # the feature map is unknown: where, but not what
    else:
        geo = Geometry.of(env, t.size)
        s = source(geo, m_pos + r, k_pos + c)
        read = in_window & s["inside"] & s["real"]
        # each window reads each of its pixel vectors once: (iteration, vector) pairs
        span = int(s["vector"].max()) + 1
        uniq, inverse = np.unique(iteration[read] * span + s["vector"][read], return_inverse=True)
        its, vec = np.divmod(uniq, span)
        raw = trace.read(src.buffer, src.addr + vec * VECTOR_BYTES, VECTOR_BYTES, its, align=VECTOR_BYTES,
                         what="src pixel vector")
        vectors = np.ascontiguousarray(raw).reshape(-1).view(t.numpy).reshape(uniq.size, c0)
        values[read] = vectors[inverse.reshape(-1), s["lane"][read]]
        values[in_window & s["in_matrix"] & ~s["inside"]] = pad_value(t, int(env["fmatrix.padValue"]))
        poison = ~(in_window & s["in_matrix"] & s["real"])
    data = np.ascontiguousarray(values).view(np.uint8).reshape(w * n, FRACTAL_BYTES)
    starts = (dst_addr[:, None] + frac[None, :] * FRACTAL_BYTES).reshape(-1)
    trace.write(dst.buffer, starts, FRACTAL_BYTES, data, np.repeat(np.arange(w), n), align=FRACTAL_BYTES,
                exclusive=exclusive, poison=np.repeat(poison.reshape(w * n, -1), t.size, axis=1), what="dst fractal")


def pad_value(t: DType, value: int) -> Any:
    """padValue as a T scalar: the raw byte for hifloat8, a C-style conversion otherwise."""
    if t.name == "hifloat8":
        return np.uint8(value & 0xFF)
    if t.kind in ("int", "uint"):
        return np.array(value & ((1 << t.bits) - 1), dtype=np.uint64).astype(np.dtype(f"u{t.size}")).view(t.numpy)
    with np.errstate(over="ignore"):
        return np.array(float(value)).astype(t.numpy)


def _allowed_text(ctx: Context) -> str:
    c0, rems = c0_of(ctx), channel_remainders(ctx)
    small = [str(4 * 2**i) for i in range(len(rems) - 1)]
    return ", ".join(small + [f"N*{c0}" + (f"+{r}" if r else "") for r in rems]) + " (N >= 1)"


def _coverage_why(v: Values, ctx: Context, axis: str) -> str:
    if not v.fmatrix.present:
        return " (without fmatrix coverage cannot be established)"
    if not _geom_ok(v):
        return ""
    if axis == "m":
        return f" (it ends at row {v.mPos + v.mStep}, the matrix has {m_total(v, ctx)})"
    return f" (it ends at column {v.kPos + v.kStep}, the matrix has {k_total(v, ctx)})"


# -- construction -----------------------------------------------------------------------------------------------------

def construct(draw: Any, ctx: Context, env: dict[str, Any], *, dst_fractals: int | None = None,
              whole_fractals: bool = False) -> None:
    """Fill ``env`` (fields of `Load3DBitMode`) with a valid call, drawn with Hypothesis's ``draw``. ``dst_fractals``:
    at most this many fractals for the window (default: dst's whole buffer); ``whole_fractals``: mPos, mStep
    multiples of 16 even where the window covers the bottom fractal (LoadDataWithStride)."""
    from hypothesis import strategies as st

    def small(lo: int, hi: int, near: int = 3) -> int:
        """lo..hi, mostly near lo (small shapes run fast), sometimes anywhere, sometimes hi."""
        if hi <= lo:
            return lo
        return draw(st.one_of(st.integers(lo, min(hi, lo + near)), st.integers(lo, hi), st.just(hi)))

    e, c0 = ctx.dtype.size, c0_of(ctx)
    src_pos = POSITION_NAMES[int(env["src.position"])]
    dst_pos = "A2" if src_pos == "A1" else "B2"
    env["dst.position"] = _CODE[dst_pos]
    dst_elems = ctx.product.buffer_size("L0A" if dst_pos == "A2" else "L0B") // e
    if dst_fractals is not None:
        dst_elems = min(dst_elems, dst_fractals * FRACTAL_BYTES // e)
    vectors = ctx.product.buffer_size("L1") // VECTOR_BYTES  # pixel vectors L1 holds
    max_k_groups = dst_elems // (FRACTAL_ROWS * c0)  # columns of fractals dst holds with one row of fractals
    env["fmatrixCtrl"] = False
    env["transpose"] = bool(draw(st.booleans())) if (dst_pos == "A2" and ctx.dtype.name == "half") else False
    env["strideW"], env["strideH"] = small(1, 63), small(1, 63)
    # the feature map most of the time (the core computes values only with it)
    present = env["fmatrix.present"] = draw(st.integers(0, 4)) > 0
    if not present:
        for f in FMATRIX.fields()[1:]:
            env[f.name] = f.default
        for name in ("Wk", "Hk", "dilationW", "dilationH"):
            env[name] = small(1, 255)
        env["filterW"], env["filterH"] = bool(draw(st.booleans())), bool(draw(st.booleans()))
        c1 = small(1, 65535 // c0)
        env["sizeChannel"] = _channels(draw, ctx, c1)
        j = small(1, min(max_k_groups, 65535 // c0))
        env["kStep"], env["kPos"] = j * c0, small(0, 65535 // c0) * c0
        b = small(1, min(dst_elems // (j * c0) // FRACTAL_ROWS, 65535 // FRACTAL_ROWS))
        env["mStep"], env["mPos"] = b * FRACTAL_ROWS, small(0, MAX_MPOS_3D // FRACTAL_ROWS) * FRACTAL_ROWS
        return
    pads = [small(0, 255, 2) for _ in range(4)]  # left, right, top, bottom
    l1h = small(1, min(32767, vectors), 7)
    l1w = small(1, min(32767, vectors // l1h), 7)
    c1 = small(1, min(vectors // (l1h * l1w), 65535 // c0), 2)
    env["sizeChannel"] = _channels(draw, ctx, c1)
    kh, env["dilationH"] = _kernel(draw, small, l1h + pads[2] + pads[3])
    kw, env["dilationW"] = _kernel(draw, small, l1w + pads[0] + pads[1])
    env["filterH"], env["Hk"] = kh > 255, kh - 256 * (kh > 255)
    env["filterW"], env["Wk"] = kw > 255, kw - 256 * (kw > 255)
    lo, hi = pad_range(ctx)
    env.update({"fmatrix.l1H": l1h, "fmatrix.l1W": l1w, "fmatrix.padValue": small(max(lo, -4), min(hi, 4), 8),
                **{f"fmatrix.padList{i}": x for i, x in enumerate(pads)}})
    geo = Geometry.of(env, e)
    # K window: whole column groups inside K (K is a multiple of C0)
    groups = geo.k_total // c0
    j = small(1, min(groups, max_k_groups, 65535 // c0))
    env["kStep"], env["kPos"] = j * c0, small(0, min(groups - j, 65535 // c0)) * c0
    # M window: rows inside ceil16(Ho*Wo), in whole fractals or ending past the last row (covered)
    m, bound = geo.m_total, ceil_to(geo.m_total, FRACTAL_ROWS)
    rows_cap = min(dst_elems // (j * c0) // FRACTAL_ROWS * FRACTAL_ROWS, 65535)
    end_lo, end_hi = max(m, 1), min(bound, 65535 + rows_cap)  # mPos = end - mStep <= 65535, mStep <= rows_cap
    if not whole_fractals and end_lo <= end_hi and draw(st.booleans()):
        end = small(end_lo, end_hi)
        step = small(max(1, end - 65535), min(end, rows_cap))
        env["mStep"], env["mPos"] = step, end - step
    else:
        b = small(1, min(bound, rows_cap) // FRACTAL_ROWS)
        env["mStep"] = b * FRACTAL_ROWS
        env["mPos"] = small(0, min(bound // FRACTAL_ROWS - b, 65535 // FRACTAL_ROWS)) * FRACTAL_ROWS


def _channels(draw: Any, ctx: Context, c1: int) -> int:
    """A channel count the page allows with ceil(count / C0) == c1."""
    from hypothesis import strategies as st

    c0, rems = c0_of(ctx), channel_remainders(ctx)
    if c1 == 1:
        options = [4 * 2**i for i in range(len(rems) - 1)] + [c0]
    else:
        options = [(c1 - 1) * c0 + r for r in rems if r] + [c1 * c0]
    return draw(st.sampled_from([x for x in options if x <= 65535]))


def _kernel(draw: Any, small: Any, span: int) -> tuple[int, int]:
    """(kernel size, dilation) whose dilated extent fits ``span`` (the padded input): 1..255 or 257..511."""
    from hypothesis import strategies as st

    top = min(511, span)
    if top >= 257 and draw(st.integers(0, 7)) == 0:
        k = draw(st.integers(257, top))
    else:
        k = small(1, min(255, top))
    dilation = small(1, 255 if k == 1 else min(255, (span - 1) // (k - 1)))
    return k, dilation


# -- invariants (run by ascverify.properties.invariants on valid cases) --------------------------------------------

def _run(case: Case, seed: int, strict: bool = True):
    from ..core.run import run_case
    from ..properties.invariants import fresh

    return run_case(fresh(case), seed=seed, strict=strict)


def as_bits(a: np.ndarray) -> np.ndarray:
    """Elements as their unsigned bit patterns (int64): img2col moves bits, whatever T is."""
    a = np.ascontiguousarray(a)
    return a.view(np.dtype(f"u{a.dtype.itemsize}")).astype(np.int64)


def stored_window(case: Case, res: Any) -> tuple[np.ndarray, np.ndarray]:
    """The window (mStep x kStep) the run stored in dst, as bit patterns, and which elements are poison."""
    from ..core.memory import POISON

    env, e = case.env, case.ctx.dtype.size
    dst = case.tensor("dst")
    layout = layout_of(dst.position, bool(env["transpose"]))
    rows, cols, c0 = int(env["mStep"]), int(env["kStep"]), c0_of(case.ctx)
    state = res.memory.state[dst.buffer][dst.addr:dst.end].reshape(-1, e)
    poison = (state == POISON).all(axis=1)
    return (window_from_dst(as_bits(res.tensors["dst"]), layout, rows, cols, c0),
            window_from_dst(poison, layout, rows, cols, c0))


def window_equals_reference(case: Case, seed: int = 0) -> None:
    """The stored window equals the padded feature map read at (ho*stride + kernel tap*dilation), element by
    element (bit patterns), with unspecified (poison) values exactly at rows past Ho*Wo and channels past
    sizeChannel; without fmatrix the whole window is poison."""
    res = _run(case, seed)
    got, poison = stored_window(case, res)
    env = case.env
    if not env["fmatrix.present"]:
        assert poison.all(), "without fmatrix the stored values must be unspecified"
        return
    geo = Geometry.of(env, case.ctx.dtype.size)
    c0 = geo.c0
    shape = (geo.c1 * c0, geo.l1h + geo.pads[2] + geo.pads[3], geo.l1w + geo.pads[0] + geo.pads[1])
    m = int(env["mPos"]) + np.arange(int(env["mStep"]))
    k = int(env["kPos"]) + np.arange(int(env["kStep"]))
    group, lane = np.divmod(k, c0)
    rest, kw_i = np.divmod(group, geo.kw)
    c1_i, kh_i = np.divmod(rest, geo.kh)
    channel = c1_i * c0 + lane
    valid = (m[:, None] < geo.m_total) & (channel[None, :] < geo.channels)
    assert np.array_equal(poison, ~valid), "poison is not exactly at rows past Ho*Wo and channels past sizeChannel"
    if np.prod(shape) > REFERENCE_LIMIT:
        return
    x = as_bits(res.inputs["src"][: geo.src_elems]).reshape(geo.c1, geo.l1h, geo.l1w, c0)
    x = x.transpose(0, 3, 1, 2).reshape(geo.c1 * c0, geo.l1h, geo.l1w)  # NC1HWC0 -> CHW
    pad_bits = int(as_bits(np.array([pad_value(case.ctx.dtype, int(env["fmatrix.padValue"]))],
                                    dtype=case.ctx.dtype.numpy))[0])
    xp = padded(x, geo.pads, pad_bits)
    ho, wo = np.divmod(np.where(m < geo.m_total, m, 0), max(geo.wo, 1))
    h = ho[:, None] * geo.sh + kh_i[None, :] * geo.dh
    w = wo[:, None] * geo.sw + kw_i[None, :] * geo.dw
    ch = np.where(valid, channel[None, :], 0)
    ref = xp[ch, np.where(valid, h, 0), np.where(valid, w, 0)]
    bad = np.argwhere(valid & (got != ref))
    assert not bad.size, f"window element {tuple(bad[0])} is {got[tuple(bad[0])]}, the feature map gives {ref[tuple(bad[0])]}"


def _split(case: Case, axis: str, at: int) -> tuple[Case, Case]:
    pos, step = ("mPos", "mStep") if axis == "m" else ("kPos", "kStep")
    p0, s0 = int(case.env[pos]), int(case.env[step])
    return case.with_fields(**{step: at}), case.with_fields(**{pos: p0 + at, step: s0 - at})


def window_split_concatenates(case: Case, seed: int = 0) -> None:
    """The window split in two along M or K (at a fractal boundary, each half a valid call) stores the two
    halves of the whole: values and unspecified elements alike."""
    from ..checker import check_case

    if not case.env["fmatrix.present"]:
        return
    rng = np.random.default_rng(seed)
    for axis in ("m", "k")[:: 1 if rng.integers(2) else -1]:
        unit = FRACTAL_ROWS if axis == "m" else c0_of(case.ctx)
        length = int(case.env["mStep" if axis == "m" else "kStep"])
        if length <= unit:
            continue
        at = unit * int(rng.integers(1, -(-length // unit)))
        first, second = _split(case, axis, at)
        if not (check_case(first).valid and check_case(second).valid):
            continue
        whole, poison = stored_window(case, _run(case, seed))
        parts = [stored_window(c, _run(c, seed)) for c in (first, second)]
        cat = np.concatenate([p[0] for p in parts], axis=0 if axis == "m" else 1)
        cat_poison = np.concatenate([p[1] for p in parts], axis=0 if axis == "m" else 1)
        assert np.array_equal(cat_poison, poison), f"split along {axis} at {at}: unspecified elements differ"
        assert np.array_equal(np.where(poison, 0, cat), np.where(poison, 0, whole)), \
            f"split along {axis} at {at}: the halves differ from the whole"
        return


def transpose_transposes(case: Case, seed: int = 0) -> None:
    """With transpose the A2 destination holds the kStep x mStep transpose of the window, in NZ fractals."""
    if case.tensor("dst").position != "A2" or case.ctx.dtype.name != "half":
        return
    plain = case.with_fields(transpose=False)
    turned = case.with_fields(transpose=True)
    w, w_poison = stored_window(plain, _run(plain, seed))
    res = _run(turned, seed)
    rows, cols = int(case.env["kStep"]), int(case.env["mStep"])
    t = nz_matrix(as_bits(res.tensors["dst"]), rows, cols, 16)
    from ..core.memory import POISON

    dst = case.tensor("dst")
    state = res.memory.state[dst.buffer][dst.addr:dst.end].reshape(-1, 2)
    t_poison = nz_matrix((state == POISON).all(axis=1), rows, cols, 16)
    assert np.array_equal(t_poison, w_poison.T), "transpose moved the unspecified elements elsewhere"
    assert np.array_equal(np.where(t_poison, 0, t), np.where(w_poison, 0, w).T), "transpose=true is not the transpose"


def memory_rules_match_core(case: Case, seed: int = 0) -> None:
    """The core reads only inside src and stores only inside dst on a valid case; moved off its 512-byte
    alignment dst draws exactly the alignment rule and a misaligned store; one fractal short it draws exactly
    the size rule and a store past dst's end."""
    dst = case.tensor("dst")
    cap = case.ctx.product.buffer_size(dst.buffer)
    variants = []
    if dst.end + 32 <= cap:
        variants.append(("load3d.dst.align", case.with_fields(**{"dst.addr": dst.addr + 32}), "misaligned"))
    need = int(dst_elems_needed(case.values(), case.ctx))
    short = need - FRACTAL_BYTES // case.ctx.dtype.size
    if short >= 0:
        variants.append(("load3d.dst.size", case.with_fields(**{"dst.size": short}), "escape"))
    core_agrees(case, seed, variants)


def core_agrees(case: Case, seed: int, variants: list[tuple[str, Case, str]]) -> None:
    """The valid ``case`` runs without a fault, reading only inside src and storing only inside dst; each variant
    (rule id, case, expected) breaks exactly that rule and draws the expected complaint from the core: a fault
    kind, or "escape" (no fault, a store past dst's end)."""
    from ..checker import check_case

    res = _run(case, seed, strict=False)
    assert not res.faults, f"valid case faulted: {[str(f) for f in res.faults[:3]]}"
    dst, src = case.tensor("dst"), case.tensor("src")
    stored = np.flatnonzero(res.trace.stored(dst.buffer))
    assert stored.size == 0 or (stored.min() >= dst.addr and stored.max() < dst.end), "stored outside dst"
    read = np.flatnonzero(res.trace.footprint("read", src.buffer))
    assert read.size == 0 or (read.min() >= src.addr and read.max() < src.end), "read outside src"
    for rule_id, variant, expect in variants:
        ids = [v.id for v in check_case(variant).violations]
        assert ids == [rule_id], f"{rule_id} variant breaks {ids}"
        r = _run(variant, seed, strict=False)
        kinds = {f.kind for f in r.faults}
        if expect == "escape":
            d = variant.tensor("dst")
            s = np.flatnonzero(r.trace.stored(d.buffer))
            assert not kinds and s.max() >= d.end, f"{rule_id}: the core did not store past dst ({kinds})"
        else:
            assert kinds == {expect}, f"{rule_id}: the core saw {kinds}, not {expect}"


Load3DBitMode.invariants = (window_equals_reference, window_split_concatenates, transpose_transposes,
                            memory_rules_match_core)
