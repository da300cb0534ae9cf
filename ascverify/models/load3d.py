"""Load3DBitMode: ``LoadData(dst, src, Load3DBitModeParam)``, img2col from L1 into L0A / L0B.

Page 002_70a359bc6af47a68.txt (Tables 1-5 and the example) + HARDWARE_NOTES.md (sections Load3DBitMode /
LoadData3DParamsV2 / SetFmatrix, Units and alignment, Products) + the vendor's documentation and code where the page
is silent or disagrees (spec notes).

The call reads the feature map that SetFmatrix described (``fmatrix`` in a case: l1H, l1W, padList, padValue) from
``src`` (A1/B1, NC1HWC0), forms the img2col matrix (M = Ho*Wo output positions by K = C1*Kh*Kw*C0), and stores its
window [mPos, mPos+mStep) x [kPos, kPos+kStep) into ``dst``: as it is (A2) or transposed (B2 always, A2 with
transpose), in fractals of 16 rows x C0 columns whose columns lie dstStride fractals apart (`img2col.Output`). The
repeat register (``repeat``: what SetLoadDataRepeatWithStride set) repeats the window along M or K. A case gives the
config0/config1 fields by the page's names, or the raw ``config0``/``config1`` words, or the LoadData3DParamsV2 member
names (C++ or pyasc spelling; `normalize_args`); the bit fields live in `ascverify.models.codec`, the numpy img2col in
`ascverify.models.img2col`.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, ClassVar, Iterator, Mapping

import numpy as np

from ..cases.case import Case, fresh
from ..cases.fields import read_int, type_name
from ..checking.checker import check_case
from ..core.faults import within_iterations
from ..core.memory import POISON, Trace
from ..core.run import prepare, run_case
from ..spec.dtypes import DType
from ..spec.errors import InputError, did_you_mean
from ..spec.logic import And, Between, Div, If, Implies, InSet, Max, Mod, Not, Or
from ..spec.model import ApiModel, ArgumentForm, SpecNote
from ..spec.params import BOOL, INT64, UINT8, UINT16, Arg, IntType, StructArg, TensorDecl
from ..spec.products import POSITION_BUFFER
from ..spec.registry import register
from ..spec.rules import (POSITION_NAMES, WARNING, Context, Values, field_multiple, field_range, rule, state_rule,
                          tensor_min_size)
from .codec import BITFIELDS, BY_NAME, BY_V2, NOTES, SEED, V2_DEFAULTS, V2_OTHER_DEFAULTS, CodecError, decode
from .drawing import integers as _ints, packed_indices
from .img2col import (
    FRACTAL_BYTES,
    FRACTAL_ROWS,
    VECTOR_BYTES,
    Geometry,
    Output,
    ceil_to,
    matrix_from_dst,
    source,
    transposed_output,
)
from .set_load_data_repeat import FIELDS as REPEAT_FIELDS, STATE_KEY as REPEAT_STATE, SetLoadDataRepeatWithStride
from .set_load_data_repeat import pack as pack_repeat_register
from .set_load_data_repeat_v2 import FIELDS as REPEAT_PARAM_FIELDS, STATE_KEY as REPEAT_PARAM_STATE, v2_dst_stride

UNITS = "HARDWARE_NOTES.md Units and alignment"
PRODUCTS_NOTE = "HARDWARE_NOTES.md Products"
T3, T4, T5 = f"{SEED} Table 3", f"{SEED} Table 4", f"{SEED} Table 5"
#: The channel counts the page allows, as remainders modulo C0 (elements of a 32-byte vector); besides them
#: every count is at least 4. 32-bit types: 4, 8N, 8N+4; 16-bit: 4, 8, 16N, 16N+4, 16N+8; 8-bit: 4, 8, 16,
#: 32N, 32N+4, 32N+8, 32N+16 (Table 5, sizeChannel).
CHANNEL_REMAINDERS = {8: (0, 4), 16: (0, 4, 8), 32: (0, 4, 8, 16),
                      # int4b_t (64 to a vector): 8, 16, 32, N*64, N*64+8, N*64+16, N*64+32 (the vendor's LoadData
                      # page, V2 channelSize; the rules add "at least 4", which 8, 16 and 32 meet)
                      64: (0, 8, 16, 32)}
MAX_MPOS_3D = 32767  # the LoadData3D page's mStartPt range (HARDWARE_NOTES)
#: The vendor's pages cited where the seed page is silent or disagrees: their titles in English (the asc-devkit
#: docs/zh tree: LoadDataWithStride.md, LoadData_3D.md, LoadData_3D_BitMode.md, SetLoadDataRepeat.md, the migration
#: guide).
DOC_LDWS = "LoadDataWithStride (asc-devkit docs)"
DOC_SETFMATRIX = "SetFmatrix (asc-devkit docs)"
DOC_L3D = "LoadData, convolution data movement (asc-devkit docs)"
DOC_BITMODE = "LoadData, BitMode convolution data movement (asc-devkit docs)"
DOC_SETREPEAT = "SetLoadDataRepeat (asc-devkit docs)"
DOC_MIGRATION = "2201 to 3510 basic API migration guide, SetLoadDataBoundary (asc-devkit docs)"
IMPL_3510 = "asc-devkit impl/basic_api/dav_3510/kernel_operator_mm_impl.h"
IMPL_BASE = "asc-devkit impl/basic_api/kernel_operator_mm_base_impl.h"
EXAMPLES = "asc-devkit examples/01_simd_cpp_api/03_basic_api/03_matrix_compute"
EX_LDWS = f"{EXAMPLES}/load_data_with_stride/load_data_with_stride.asc"
EX_MMAD = f"{EXAMPLES}/mmad_load3dv2"
PYASC_MM = "pyasc python/asc/language/basic/mm.py"
PYASC_TYPES = "pyasc python/asc/language/core/types.py"
#: The element types for which page 002 states the M multiples (mStep, mPos): half, int8_t, uint8_t.
M_NAMED = ("half", "int8", "uint8")
#: The types page 002's sizeChannel row lists values for (int4b_t too, not a type here).
CHANNEL_NAMED = ("uint32", "int32", "float", "half", "bfloat16", "int8", "uint8", "int4b")
#: Where the img2col load is modelled: atlas-350's bit-mode load (page 002). The rules that depend on its layout,
#: its repeat register or its ranges hold there only (spec note load3d.products-v2).
MODELLED = ("atlas-350",)
#: 16-bit integer types no LoadData page lists on atlas-350, which the vendor's Tensor API Img2Col (its page: "Img2Col
#: does not support b4 types") and 3510 implementation take, and its own test loads (test_tensor_api_l12l0a.cpp):
#: accepted with the warning dtype.unlisted (spec note load3d.types)
UNLISTED_16 = ("int16", "uint16")
#: Where the vendor documents the LoadData3DParamsV2 load (LoadData_3D.md, Product support, v2 interface) and
#: ascverify does not model it: the source, and the element types its data-type section lists there (int4b_t for A1 /
#: A2 only: the B1 / B2 list has none of 4 or 8 bits, rule dtype.b2).
V2_SOURCE = (f"{DOC_L3D}, Product support (v2 interface) and Data types; {SEED} Applicability (the bit-mode load: "
             "atlas-350); spec note load3d.products-v2")
V2_TYPES = ("int4b", "int8", "uint8", "half", "bfloat16", "int32", "uint32", "float")
V2_UNMODELLED = {"atlas-a3": V2_TYPES, "atlas-a2": V2_TYPES, "atlas-200i-500-a2": V2_TYPES,
                 "atlas-inference-aicore": ("int4b", "int8", "uint8", "half")}
#: The products whose channel counts are page 002's list (LoadData_3D.md gives the same list for Ascend 950, Atlas
#: A3, Atlas A2 and Atlas 200I/500 A2; another one for the inference AI Core, not checked)
CHANNEL_LIST_PRODUCTS = (*MODELLED, "atlas-a3", "atlas-a2", "atlas-200i-500-a2")
#: The V2 products where L1 -> L0B takes no 8-bit type and the transposed L1 -> L0A load none either
#: (LoadData_3D.md, Restrictions: Atlas A3 and Atlas A2)
V2_NO_B8 = ("atlas-a3", "atlas-a2")
#: The V2 products whose data-type section lists fewer types for B1/B2 than for A1/A2 (LoadData_3D.md, Data types)
V2_B2_PRODUCTS = ("atlas-a3", "atlas-a2", "atlas-200i-500-a2")
#: The types the V2 load takes into L0B there (LoadData_3D.md, Data types, TPosition B1/B2)
V2_B2_TYPES = ("half", "bfloat16", "int32", "uint32", "float")


def _bits(width: int) -> IntType:
    return IntType(f"{width}-bit field", 0, (1 << width) - 1)


def _t(name: str) -> str:
    f = BY_NAME[name]
    return f"{SEED} {f.table}, {name}"


def c0_of(ctx: Context) -> int:
    """Elements of one 32-byte vector / columns of one fractal: 16 for half, 32 for 8-bit, 8 for 32-bit types, 64 for
    int4b_t (the V2 load's kStartPt and kExtension: multiples of 64 for b4)."""
    return VECTOR_BYTES * 8 // ctx.dtype.bits


def channel_remainders(ctx: Context) -> tuple[int, ...]:
    """sizeChannel mod C0 may be 0 or a power of two from 4 below C0 (the page's lists; any T, so that a case with
    an unsupported T is still checked without error)."""
    c0 = c0_of(ctx)
    return CHANNEL_REMAINDERS.get(c0) or (0, *(r for r in (4, 8, 16) if r < c0))


def channel_values(ctx: Context) -> tuple[int, ...]:
    """Every sizeChannel value the page allows for T, in [4, 65535]."""
    return _channel_values(c0_of(ctx), channel_remainders(ctx))


@lru_cache(maxsize=None)
def _channel_values(c0: int, remainders: tuple[int, ...]) -> tuple[int, ...]:
    """`channel_values` per C0 and remainders (asked for each time a field's domains are read: 12,287 values)."""
    return tuple(c for c in range(4, 65536) if c % c0 in remainders)


def pad_range(ctx: Context) -> tuple[int, int]:
    """The integers padValue may take for T: T's finite range (the raw byte for hifloat8, which numpy cannot
    convert to), clipped to int64."""
    t = ctx.dtype
    if t.name == "hifloat8" or t.kind in ("int", "uint"):
        info = np.iinfo(t.numpy)
        return int(info.min), int(info.max)
    top = t.finite_max()
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


# -- the repeats and the output (spec notes load3d.repeat, load3d.output), on values, columns or terms -------------

def repeats(v: Values) -> Any:
    """The windows the call stores: repeatTime of the repeat register (at least one: repeatTime = 0 is a NOP, which
    the rules check as one window), one without it."""
    return If(v.repeat.present, Max(v.repeat.repeatTime, 1), 1)


def repeats_move(v: Values) -> Any:
    """No repeat register, or one whose repeatTime is not 0 (repeatTime = 0 makes the call a NOP that reads and writes
    nothing; spec note load3d.nop)."""
    return Or(Not(v.repeat.present), v.repeat.repeatTime != 0)


def moves(v: Values) -> Any:
    """The call moves data: its repeats do (`repeats_move`), and it is not a LoadData3DParamsV2 call with a zero the
    LoadData page makes a NOP (`v2_form_nop`; spec note load3d.zero-nop-350)."""
    return And(repeats_move(v), Not(v2_form_nop(v)))


def along_m(v: Values) -> Any:
    """The repeats advance along M (repeatMode 0; also without a repeat register, where there is one window)."""
    return Or(Not(v.repeat.present), v.repeat.repeatMode == 0)


def m_shift(v: Values, ctx: Context) -> Any:
    """Rows the last repeat's window lies below the first: (repeats - 1) * repeatStride * 16 along M."""
    return If(along_m(v), (repeats(v) - 1) * v.repeat.repeatStride * FRACTAL_ROWS, 0)


def k_shift(v: Values, ctx: Context) -> Any:
    """Columns the last repeat's window lies right of the first: (repeats - 1) * repeatStride * C0 along K."""
    return If(along_m(v), 0, (repeats(v) - 1) * v.repeat.repeatStride * c0_of(ctx))


def last_m_start(v: Values, ctx: Context) -> Any:
    return v.mPos + m_shift(v, ctx)


def last_k_start(v: Values, ctx: Context) -> Any:
    return v.kPos + k_shift(v, ctx)


def transposed(v: Values) -> Any:
    """The output is the transpose of the assembled window: dst in B2 (always), or transpose set."""
    return Or(v.dst.position == _CODE["B2"], v.transpose)


def blocks(v: Values, ctx: Context) -> tuple[Any, Any]:
    """(RB, CB): fractal rows (16 rows each) and fractal columns (C0 columns each) of the output O = W or W
    transposed, W the repeats' windows assembled (each from a new fractal row along M, a new fractal column along K;
    `img2col.Output`). Written in fractal units, per C0, so that the solver sees one product of two fields at most."""
    c0 = c0_of(ctx)
    n, am = repeats(v), along_m(v)
    m_f = Div(v.mStep + FRACTAL_ROWS - 1, FRACTAL_ROWS)  # one window's fractal rows
    k_f = Div(v.kStep + c0 - 1, c0)  # one window's fractal columns
    rb_plain, cb_plain = If(am, n * m_f, m_f), If(am, k_f, n * k_f)
    # transposed: O's rows are W's columns (16 per fractal row), O's columns W's rows (C0 per fractal column)
    if c0 == 16:
        k_rows, m_cols = n * k_f, n * m_f
    elif c0 == 32:
        k_rows = (n - 1) * k_f * 2 + Div(v.kStep + 15, 16)
        m_cols = Div((n - 1) * m_f * 16 + v.mStep + 31, 32)
    else:  # c0 == 8
        k_rows = Div((n - 1) * k_f * 8 + v.kStep + 15, 16)
        m_cols = (n - 1) * m_f * 2 + Div(v.mStep + 7, 8)
    rb_turned = If(am, Div(v.kStep + 15, 16), k_rows)
    cb_turned = If(am, m_cols, Div(v.mStep + c0 - 1, c0))
    t = transposed(v)
    return If(t, rb_turned, rb_plain), If(t, cb_turned, cb_plain)


def row_blocks(v: Values, ctx: Context) -> Any:
    """Fractal rows (16 rows each) of the output O = W or W transposed."""
    return blocks(v, ctx)[0]


def col_blocks(v: Values, ctx: Context) -> Any:
    """Fractal columns (C0 columns each) of O."""
    return blocks(v, ctx)[1]


def dst_stride(v: Values, ctx: Context) -> Any:
    """The fractal distance between O's column blocks: the register's dstStride, or O's row blocks without it (the
    contiguous matrix, spec note load3d.output)."""
    return If(v.repeat.present, v.repeat.dstStride, row_blocks(v, ctx))


def dst_fractals_needed(v: Values, ctx: Context) -> Any:
    """Fractals from dst's start to the end of the last one stored: (CB - 1) * dstStride + RB."""
    rb, cb = blocks(v, ctx)
    return If(Or(rb == 0, cb == 0), 0, (cb - 1) * If(v.repeat.present, v.repeat.dstStride, rb) + rb)


def dst_elems_needed(v: Values, ctx: Context) -> Any:
    """dst's elements from its start to the end of the last fractal stored."""
    return dst_fractals_needed(v, ctx) * (FRACTAL_BYTES // ctx.dtype.size)


def output_end(v: Values, ctx: Context) -> Any:
    """One past the last byte of the output's fractals."""
    return v.dst.addr + dst_elems_needed(v, ctx) * ctx.dtype.size


def dst_capacity(v: Values, ctx: Context) -> Any:
    """The bytes of dst's buffer (L0A for A2, L0B for B2; the position rule refuses any other)."""
    return If(v.dst.in_buffer("L0A"), ctx.product.buffer_size("L0A"), ctx.product.buffer_size("L0B"))


def columns_apart(v: Values, ctx: Context) -> Any:
    """O's fractal columns do not collide: no register (the natural stride), one column block, or dstStride at least
    the row blocks."""
    rb, cb = blocks(v, ctx)
    return Or(Not(v.repeat.present), cb <= 1, v.repeat.dstStride >= rb)


def whole_repeats(v: Values, ctx: Context) -> Any:
    """With two repeats or more, each window is whole fractals along the repeat direction (mStep a multiple of 16
    along M, kStep of C0 along K)."""
    return Or(repeats(v) <= 1, If(along_m(v), Mod(v.mStep, FRACTAL_ROWS) == 0, Mod(v.kStep, c0_of(ctx)) == 0))


def src_elems_needed(v: Values, ctx: Context) -> Any:
    """The feature map SetFmatrix describes: C1 x l1H x l1W x C0 elements (0 without fmatrix)."""
    fm = v.fmatrix
    return If(fm.present, _c1(v, ctx) * fm.l1H * fm.l1W * c0_of(ctx), 0)


def src_elems_reached(v: Values, ctx: Context) -> Any:
    """The channel groups the K window [kPos, kPos+kStep) reaches (column k is in group k // (Kh*Kw*C0), at most C1)
    x l1H x l1W x C0 elements (0 without fmatrix): the part of the feature map the V2 load reads."""
    fm = v.fmatrix
    per_group = Max(_kernel_h(v) * _kernel_w(v) * c0_of(ctx), 1)
    reached = Div(v.kPos + v.kStep + per_group - 1, per_group)
    groups = If(reached < _c1(v, ctx), reached, _c1(v, ctx))
    return If(fm.present, groups * fm.l1H * fm.l1W * c0_of(ctx), 0)


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
#: pyasc's LoadData3DParamsV2 keyword arguments (pyasc python/asc/language/core/types.py) -> the C++ member names
PYASC_V2 = {"pad_list": "padList", "l1_h": "l1H", "l1_w": "l1W", "channel_size": "channelSize",
            "k_extension": "kExtension", "m_extension": "mExtension", "k_start_pt": "kStartPt",
            "m_start_pt": "mStartPt", "stride_w": "strideW", "stride_h": "strideH", "filter_w": "filterW",
            "filter_h": "filterH", "dilation_filter_w": "dilationFilterW", "dilation_filter_h": "dilationFilterH",
            "en_transpose": "enTranspose", "pad_value": "padValue", "filter_size_w": "filterSizeW",
            "filter_size_h": "filterSizeH", "f_matrix_ctrl": "fMatrixCtrl"}
#: pyasc's constructor defaults (they differ from the C++ struct's: l1_h, l1_w, channel_size, the extensions are 1)
PYASC_DEFAULTS = {"pad_list": [0, 0, 0, 0], "l1_h": 1, "l1_w": 1, "channel_size": 1, "k_extension": 1,
                  "m_extension": 1, "k_start_pt": 0, "m_start_pt": 0, "stride_w": 1, "stride_h": 1, "filter_w": 1,
                  "filter_h": 1, "dilation_filter_w": 1, "dilation_filter_h": 1, "en_transpose": False,
                  "pad_value": 0, "filter_size_w": False, "filter_size_h": False, "f_matrix_ctrl": False}
FORM_LABELS = {"page": "Load3DBitModeParam field (Load3DBitMode (LoadData) page, Tables 4-5)", "v2": "LoadData3DParamsV2 member",
               "raw": "packed register word", "pyasc": "pyasc LoadData3DParamsV2 keyword"}


def _form_of(name: str) -> str | None:
    if name in RAW_NAMES:
        return "raw"
    if name in PYASC_V2:
        return "pyasc"
    if name in PAGE_ONLY:
        return "page"
    if name in V2_ONLY:
        return "v2"
    return None


def _word(args: Mapping[str, Any], name: str) -> int:
    if name not in args:
        raise InputError("missing: the packed form gives both config0 and config1", field=f"args.{name}")
    x = args[name]
    if isinstance(x, bool):
        raise InputError(f"expected a uint64_t word, got {type_name(x)}", field=f"args.{name}")
    x = read_int(x, f"args.{name}")
    if x < 0:
        raise InputError(f"{x} is negative; {name} is a uint64_t word", field=f"args.{name}")
    return x


def _v2_value(name: str, value: Any) -> Any:
    """A LoadData3DParamsV2 member's value checked for its JSON type (bool for the flags, integers otherwise)."""
    flag = name in ("enSmallK",) or (name in BY_V2 and BY_V2[name].is_flag)
    if flag:
        if not isinstance(value, bool):
            raise InputError(f"expected true or false, got {type_name(value)}", field=f"args.{name}")
        return value
    if name == "padList":
        if not isinstance(value, list) or len(value) != 4:
            raise InputError(f"expected a list of 4 integers [left, right, top, bottom], got {type_name(value)}",
                             field="args.padList")
        return [_v2_value(f"padList[{i}]", x) for i, x in enumerate(value)]
    if isinstance(value, bool):
        raise InputError("expected an integer, got a boolean", field=f"args.{name}")
    return read_int(value, f"args.{name}")


def _v2_kind(name: str) -> str:
    """A LoadData3DParamsV2 member's JSON kind, as `_v2_value` reads it."""
    if name == "padList":
        return "integers:4"
    return "boolean" if name == "enSmallK" or (name in BY_V2 and BY_V2[name].is_flag) else "integer"


def other_argument_forms(extra: tuple[str, ...]) -> tuple[ArgumentForm, ...]:
    """The forms of ``args`` other than the page's that `normalize_args` reads, for the JSON Schema (``extra``: the
    arguments that pass through unchanged, read as the model's own)."""
    own = {k: "arg" for k in ("fmatrix", *extra)}
    v2 = {name: _v2_kind(name) for name in sorted(V2_ONLY | SHARED_NAMES)}
    pyasc = {k: _v2_kind(v2_name) for k, v2_name in PYASC_V2.items()}
    return (ArgumentForm(FORM_LABELS["v2"], {**v2, **own}),
            ArgumentForm(FORM_LABELS["raw"], {**{k: "integer" for k in RAW_NAMES}, **own}, RAW_NAMES),
            ArgumentForm(FORM_LABELS["pyasc"], {**pyasc, **own}))


def page_form(keys: tuple[str, ...], extra: tuple[str, ...] = ()) -> bool:
    """Arguments given under these keys are in the page's form whatever their values (`normalize_args` returns
    them unchanged): every key is known, some key is the page's own name, and no key is of another form."""
    known = PAGE_ONLY | V2_ONLY | SHARED_NAMES | frozenset(RAW_NAMES) | frozenset(PYASC_V2) | {"fmatrix", *extra}
    forms = set()
    for k in keys:
        if k not in known:
            return False
        form = _form_of(k)
        if form is not None:
            forms.add(form)
    return forms == {"page"}


def normalize_args(args: Mapping[str, Any], model_name: str = "Load3DBitMode", extra: tuple[str, ...] = ()) -> dict[str, Any]:
    """The page-named arguments of any of the three forms (see the spec note load3d.namings); the ``extra``
    arguments of a model built on this one (LoadDataWithStride's ``repeat``) pass through unchanged."""
    known = PAGE_ONLY | V2_ONLY | SHARED_NAMES | frozenset(RAW_NAMES) | frozenset(PYASC_V2) | {"fmatrix", *extra}
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
    if form == "pyasc":
        return _from_pyasc(args, model_name, extra)
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


def _from_pyasc(args: Mapping[str, Any], model_name: str, extra: tuple[str, ...]) -> dict[str, Any]:
    """pyasc's keywords as the C++ members, every member given (pyasc's defaults for those left out), then read as
    LoadData3DParamsV2 (spec note load3d.pyasc); a complaint names the pyasc keyword."""
    if "fmatrix" in args:
        raise InputError("pad_list, l1_h, l1_w and pad_value (given or pyasc's defaults) describe the feature map in "
                         "pyasc's spelling; give them, not fmatrix", field="args.fmatrix")
    for k in args:
        if k not in PYASC_V2 and k not in extra:
            raise InputError(f"{k!r} is not a keyword of pyasc's LoadData3DParamsV2 but the case uses pyasc's "
                             f"spelling{did_you_mean(k, sorted(PYASC_V2))}; give the arguments in one form",
                             field=f"args.{k}")
    cpp = {**{PYASC_V2[k]: v for k, v in PYASC_DEFAULTS.items() if k not in args},
           **{PYASC_V2.get(k, k): v for k, v in args.items()}}
    try:
        return normalize_args(cpp, model_name, extra)
    except InputError as exc:
        back = {v: k for k, v in PYASC_V2.items()}
        field = exc.field or ""
        if field.startswith("args."):
            head, _, tail = field[len("args."):].partition(".")
            name, bracket, index = head.partition("[")
            field = "args." + back.get(name, name) + (bracket + index if bracket else "") + ("." + tail if tail else "")
        raise InputError(exc.message, where=exc.where, field=field) from None


# -- the model ---------------------------------------------------------------------------------------------------------

def _arg(name: str, doc: str) -> Arg:
    f = BY_NAME[name]
    typ = BOOL if f.is_flag else _bits(f.width)
    return Arg(name, typ, f"{_t(name)} ({f.width} bit{'s' if f.width > 1 else ''}, {f.bits}); {NOTES}",
               f"{doc} (LoadData3DParamsV2: {f.v2}; Set{f.accessor}/Get{f.accessor})", default=False if f.is_flag else 0)


FMATRIX = StructArg(
    "fmatrix",
    (
        Arg("l1H", UINT16, f"{DOC_SETFMATRIX}, Prototype (uint16_t l1H); {DOC_SETFMATRIX}, Parameters, l1H "
                           f"([1, 32767]); {NOTES} (SetFmatrix l1H in [1, 32767])", "feature map height in L1"),
        Arg("l1W", UINT16, f"{DOC_SETFMATRIX}, Prototype (uint16_t l1W); {DOC_SETFMATRIX}, Parameters, l1W "
                           f"([1, 32767]); {NOTES} (SetFmatrix l1W in [1, 32767])", "feature map width in L1"),
        Arg("padList", UINT8, f"{DOC_SETFMATRIX}, Parameters, padList (each element in [0, 255]); {NOTES} (SetFmatrix "
                              "padList[4], each in [0, 255])",
            "padding [left, right, top, bottom]", default=(0, 0, 0, 0)),
        Arg("padValue", INT64, f"{DOC_L3D} (LoadData3DParamsV2: padValue, of type T); {NOTES} "
                               "(LoadData3DParamsV2 padValue, of type T)",
            "value of the padding positions (an integer, converted to T)", default=0),
    ),
    source=f"{DOC_SETFMATRIX}, Parameters; {NOTES} (SetFmatrix(l1H, l1W, padList) and the padding value)",
    doc="the feature map SetFmatrix set before the call: {l1H, l1W, padList: [left, right, top, bottom], padValue}",
    lists=(("padList", 4),),
)
#: The template parameter ``defaultConfig`` of LoadData(dst, src, LoadData3DParamsV2) (IsResetLoad3dConfig
#: {isSetFMatrix, isSetPadding}, {true, true} by default): whether the call sets the feature map (l1H, l1W, padList)
#: and the padding value from its own parameters before it loads. The bit-mode overload (Load3DBitModeParam, or the
#: packed words) has no such parameter and reads the registers: both members false, the defaults here, which
#: `Load3DBitMode.normalize_args` turns to {true, true} for arguments given as LoadData3DParamsV2 members or pyasc
#: keywords (spec note load3d.default-config).
V2_CONFIG = StructArg(
    "defaultConfig",
    (Arg("isSetFMatrix", BOOL, f"{DOC_L3D} (defaultConfig); {IMPL_BASE} (LoadDataImpl, LoadData3DParamsV2)",
         "true: the call sets the feature map from its own l1H, l1W, padList; false: it reads SetFmatrix's "
         "(true by default with LoadData3DParamsV2's members, false in the bit-mode form)", default=False),
     Arg("isSetPadding", BOOL, f"{DOC_L3D} (defaultConfig); {IMPL_BASE} (LoadDataImpl, LoadData3DParamsV2)",
         "true: the call sets the padding value from its own padValue; false: it reads the register's (true by "
         "default with LoadData3DParamsV2's members, false in the bit-mode form)", default=False)),
    source=f"{DOC_L3D} (defaultConfig); {IMPL_BASE} (LoadDataImpl for LoadData3DParamsV2)",
    doc="IsResetLoad3dConfig {isSetFMatrix, isSetPadding} of LoadData<T, defaultConfig>(dst, src, "
        "LoadData3DParamsV2): {true, true} unless given; the bit-mode form reads the registers")
V2_CONFIG_DEFAULT = {"isSetFMatrix": True, "isSetPadding": True}
#: The bit-mode form, which `Load3DBitMode.construct_args` draws: no defaultConfig
BIT_MODE_FORM = {f"{V2_CONFIG.name}.present": False, **{f"{V2_CONFIG.name}.{a.name}": False for a in V2_CONFIG.members}}


def without_fmatrix(state: Mapping[str, Any]) -> dict[str, Any]:
    """A program's state without the feature map SetFmatrix set (a call that sets its own does not read it)."""
    return {k: v for k, v in state.items() if k != FMATRIX_STATE}


def fmatrix_reset_rule(p: str, source: str, note: str) -> Any:
    """The warning for a call that sets the feature map from its own parameters (defaultConfig.isSetFMatrix) but
    gives none: l1H = l1W = 0, a NOP, and the feature map SetFmatrix set is gone."""
    return state_rule(f"{p}.fmatrix.reset", "defaultConfig.isSetFMatrix is true (the default) and the call gives "
                      "no feature map of its own: it sets l1H = l1W = 0 (LoadData3DParamsV2's defaults), which "
                      "moves nothing, and replaces the feature map SetFmatrix set", source,
                      params=("fmatrix", "defaultConfig"), notes=(note,))


def args_form(args: Mapping[str, Any]) -> str:
    """Which naming ``args`` use: "page" (Load3DBitModeParam's fields), "v2" (LoadData3DParamsV2's members), "raw"
    (the packed words) or "pyasc" (pyasc's keywords); the first name of a form decides (`normalize_args` refuses a
    mix)."""
    for k in args:
        form = _form_of(k)
        if form is not None:
            return form
    return "v2" if any(type(args.get(n)) is int for n in ("filterW", "filterH")) else "page"


def fmatrix_register_value(case: Case) -> dict[str, Any]:
    """What a call leaves in the core's feature-map register (`Memory.special`): the members (padList as a list) and
    T; LoadData3DParamsV2's zeros when the case gives no feature map."""
    env = case.env
    if not env["fmatrix.present"]:
        return {"l1H": 0, "l1W": 0, "padList": [0, 0, 0, 0], "padValue": 0, "dtype": case.ctx.dtype.name}
    return {"l1H": int(env["fmatrix.l1H"]), "l1W": int(env["fmatrix.l1W"]),
            "padList": [int(env[f"fmatrix.padList{i}"]) for i in range(4)], "padValue": int(env["fmatrix.padValue"]),
            "dtype": case.ctx.dtype.name}


#: The program state key of the feature map (SetFmatrix's `apply_state`): {"fields": {fmatrix.* field: value}, "dtype"}
FMATRIX_STATE = "fmatrix"
FMATRIX_MEMBER_FIELDS = tuple(f.name for m in FMATRIX.members for f in FMATRIX.member_fields(m))


#: The V2 load's fields whose 0 makes the call a NOP (LoadData_3D.md Table 4 and Restrictions), by the page's name
V2_NOP_FIELDS = (("kStep", "kExtension"), ("mStep", "mExtension"), ("sizeChannel", "channelSize"),
                 ("fmatrix.l1H", "l1H"), ("fmatrix.l1W", "l1W"))


def v2_nop_fields(v: Any) -> list[str]:
    """The fields (page names) whose value makes a V2 call a NOP (concrete values)."""
    zero = [f"{name}={0} ({page})" for name, page in V2_NOP_FIELDS
            if (v.fmatrix.present or not name.startswith("fmatrix.")) and v[name] == 0]
    zero += [f"{k}=0 without {flag} ({page})" for k, flag, page in (
                 ("Wk", "filterW", "filterW=0 without filterSizeW"), ("Hk", "filterH", "filterH=0 without filterSizeH"))
             if v[k] == 0 and not v[flag]]
    return zero


def v2_nop(v: Any) -> Any:
    """The V2 call moves nothing: a zero extent, channel count, feature map side or kernel size (Table 4)."""
    return Or(v.kStep == 0, v.mStep == 0, v.sizeChannel == 0, And(v.Wk == 0, Not(v.filterW)),
              And(v.Hk == 0, Not(v.filterH)), And(v.fmatrix.present, Or(v.fmatrix.l1H == 0, v.fmatrix.l1W == 0)))


def v2_form_nop(v: Any) -> Any:
    """A call in the LoadData3DParamsV2 form (defaultConfig given) with a zero the LoadData page makes a NOP: on
    atlas-350 it moves nothing (spec note load3d.zero-nop-350); the bit-mode form has no such zero (page 002's
    ranges)."""
    return And(v["defaultConfig.present"], v2_nop(v))


def v2_form_zero(name: str, flag: str | None = None) -> Any:
    """``when`` of a range rule from 1: not for the zero of ``name`` (without ``flag``) that makes a call in the
    LoadData3DParamsV2 form a NOP (the LoadData page's ranges from 0; spec note load3d.zero-nop-350)."""
    def when(v: Values, ctx: Context) -> Any:
        zero = v[name] == 0 if flag is None else And(v[name] == 0, Not(v[flag]))
        return Not(And(v["defaultConfig.present"], zero))
    return when


def v2_nop_rule(p: str, products: tuple[str, ...], notes: tuple[str, ...]) -> Any:
    """The warning that a LoadData3DParamsV2 call is the LoadData page's NOP (a zero extent, channel count, feature
    map side or kernel size): every V2 call on the A2 family, a call in that form on atlas-350."""
    return rule(f"{p}.v2.nop", ("kStep", "mStep", "sizeChannel", "Wk", "Hk", "filterW", "filterH", "fmatrix"),
                lambda v, ctx: Not(v2_nop(v) if ctx.product.id in V2_UNMODELLED else v2_form_nop(v)),
                "{zero}: the call is a NOP, it moves nothing (dst keeps its contents)",
                f"{DOC_L3D}, Table 4 (l1H, l1W, channelSize, kExtension, mExtension = 0: NOP) and Restrictions "
                f"(filterW / filterH = 0 without filterSizeW / H: not executed); {NOTES} (LoadData3DParamsV2)",
                severity=WARNING, products=products, notes=notes,
                facts=lambda v, ctx: {"zero": ", ".join(v2_nop_fields(v)) or "a zero field"},
                help="no zero extent, channel count, feature map side or kernel size (0 makes the call a NOP)",
                noop=True)


def v2_rules(p: str) -> Iterator[Any]:
    """The LoadData page's restrictions of the V2 load on the A2 family (spec note load3d.products-v2)."""
    v2 = tuple(V2_UNMODELLED)
    yield tensor_min_size(f"{p}.src.footprint_window", "src", src_elems_reached,
                          f"{NOTES} (SetFmatrix: the feature map C1 x l1H x l1W x C0); {DOC_L3D}, Table 4 (kStartPt, "
                          "kExtension: the window's columns)", what="the channel groups the K window reads (of C1) x "
                          "l1H x l1W x C0", params=("fmatrix", "sizeChannel", "kPos", "kStep", "mStep", "Wk", "Hk",
                                                    "filterW", "filterH"),
                          when=lambda v, ctx: And(_fm_ok(v), Not(v2_nop(v))),  # a NOP reads nothing
                          notes=("load3d.products-v2", "load3d.fmatrix"), products=v2)
    yield tensor_min_size(f"{p}.src.footprint.unreached", "src", src_elems_needed,
                          f"{NOTES} (SetFmatrix: the feature map C1 x l1H x l1W x C0); {DOC_L3D}, Table 4",
                          what="the whole feature map fmatrix describes (C1 x l1H x l1W x C0)",
                          message="src.size={src.size} elements but the feature map fmatrix describes has {need}: "
                                  "the K window reads none of the channel groups past src (the vendor's own tests size "
                                  "L1 so), the load is not modelled here, so whether it touches them is unknown",
                          params=("fmatrix", "sizeChannel", "kStep", "mStep", "Wk", "Hk", "filterW", "filterH"),
                          severity=WARNING,
                          # only where the window stays inside src (else footprint_window's error says it reads past),
                          # and not on a NOP, which reads nothing
                          when=lambda v, ctx: And(_fm_ok(v), Not(v2_nop(v)), v.src.size >= src_elems_reached(v, ctx)),
                          notes=("load3d.products-v2", "load3d.fmatrix"), products=v2)
    yield v2_nop_rule(p, (*V2_UNMODELLED, *MODELLED), ("load3d.products-v2", "load3d.zero-nop-350"))
    for name in ("l1H", "l1W"):
        yield field_range(f"{p}.v2.{name}.range", f"fmatrix.{name}", 0, 32767,
                          f"{DOC_L3D}, Table 4 ({name} in [0, 32767]; 0: a NOP); asc-devkit impl/basic_api/"
                          f"kernel_operator_mm_check.h (CheckLoadData3dParams); {NOTES} (LoadData3DParamsV2)",
                          when=lambda v, ctx: v.fmatrix.present, products=v2, notes=("load3d.products-v2",))
    yield rule(f"{p}.v2.sizeChannel.aicore", ("sizeChannel", "dtype"), _aicore_channels_ok,
               "sizeChannel={sizeChannel} is not a channel count the LoadData page allows for T={dtype} on the "
               "inference AI Core ({allowed})",
               f"{DOC_L3D}, Restrictions (channelSize, Atlas inference series AI Core); asc-devkit impl/basic_api/"
               f"kernel_operator_mm_check.h (CheckLoadData3dv2ChannelSize, __NPU_ARCH__ 2002); {NOTES} "
               "(LoadData3DParamsV2)", products=("atlas-inference-aicore",), notes=("load3d.products-v2",),
               facts=lambda v, ctx: {"allowed": _aicore_channels_text(ctx)},
               help="sizeChannel one of the inference AI Core's values for T (0: a NOP)")
    yield rule(f"{p}.v2.mPos.multiple", ("mPos", "dtype"),
               lambda v, ctx: True if ctx.dtype.name not in ("half", "int8", "uint8", "int4b") else
               Mod(v.mPos, FRACTAL_ROWS) == 0,
               "mStartPt={mPos} is not a multiple of 16: the vendor's debug-build check refuses it for T={dtype} (the "
               "LoadData page gives only the range [0, 32767])",
               f"{DOC_L3D}, Table 4 (mStartPt in [0, 32767]); asc-devkit impl/basic_api/kernel_operator_mm_check.h "
               f"(CheckLoadData3dv2MatrixParams: mStartPt % 16 for half / int8_t / uint8_t (/ int4b_t)); {NOTES} "
               "(LoadData3DParamsV2)", severity=WARNING, products=("atlas-a3", "atlas-a2", "atlas-inference-aicore"),
               notes=("load3d.products-v2",), help="mStartPt a multiple of 16 (the vendor's debug check)")
    yield rule(f"{p}.v2.debug_range", ("strideW", "strideH", "dilationW", "dilationH"),
               lambda v, ctx: And(v.strideW >= 1, v.strideH >= 1, v.dilationW >= 1, v.dilationH >= 1),
               "strideW={sw}, strideH={sh}, dilationFilterW={dw}, dilationFilterH={dh}: the LoadData page's Table 4 "
               "allows 0, the vendor's debug-build check refuses it (strides in [1, 63], dilations in [1, 255]); "
               "what the hardware does with 0 is not documented",
               f"{DOC_L3D}, Table 4 (strideW / strideH in [0, 63], dilationFilterW / H in [0, 255]); asc-devkit "
               "impl/basic_api/kernel_operator_mm_check.h (CheckLoadData3dParams, CheckLoadData3dv2Params: "
               f"ASC_MIN_LOAD3D_STRIDE, ASC_MIN_LOAD3D_DILATION_FILTER = 1); {NOTES} (LoadData3DParamsV2)",
               severity=WARNING,
               products=tuple(V2_UNMODELLED), notes=("load3d.products-v2",),
               facts=lambda v, ctx: {"sw": v.strideW, "sh": v.strideH, "dw": v.dilationW, "dh": v.dilationH},
               help="strides and dilations of at least 1 (0: the vendor's debug check refuses it)")
    yield rule(f"{p}.dtype.b2", ("dtype", "dst"),
               lambda v, ctx: Or(v.dst.position != _CODE["B2"], ctx.dtype.name in V2_B2_TYPES),
               "T={dtype} is not supported with dst in B2 on {product} (B1 -> B2 takes "
               + ", ".join(V2_B2_TYPES) + ")", f"{DOC_L3D}, Data types (TPosition B1/B2); {DOC_L3D}, Restrictions "
               f"(L1 -> L0B takes no b4/b8 type on Atlas A3 / A2); {NOTES} (LoadData3DParamsV2)", products=V2_B2_PRODUCTS,
               notes=("load3d.products-v2",), help="dst in B2 only with half, bfloat16, int32, uint32 or float")
    yield rule(f"{p}.transpose.b8", ("dtype", "dst", "transpose"),
               lambda v, ctx: True if ctx.dtype.size != 1 else Not(And(v.transpose, v.dst.position == _CODE["A2"])),
               "transpose=true with dst in A2 and T={dtype}: the transposed L1 -> L0A load takes no 4- or 8-bit "
               "type on {product}", f"{DOC_L3D}, Restrictions (transposed L1 -> L0A: no b8 on Atlas A3 / A2); "
               f"{DOC_L3D}, Restrictions (enTranspose: b16/b32 into L0A on Atlas A3 / A2); {NOTES} "
               "(LoadData3DParamsV2)", products=V2_NO_B8,
               notes=("load3d.products-v2",), help="no transposed 4- or 8-bit load into A2")


#: The inference AI Core's channel counts (the LoadData page, channelSize; the 2002 debug check), per C0: the values up
#: to C0, and the remainders mod C0 of the larger ones (half: 4, 8, 16, N*16+4, N*16+8; int8: 4, 8, 16, 32, N*32+4,
#: N*32+8, N*32+16; int4b: 8, 16, 32, N*64, N*64+8, N*64+16, N*64+32)
AICORE_CHANNELS = {16: ((4, 8, 16), (4, 8)), 32: ((4, 8, 16, 32), (4, 8, 16)), 64: ((8, 16, 32), (0, 8, 16, 32))}


def _aicore_channels_ok(v: Any, ctx: Context) -> Any:
    small, rems = AICORE_CHANNELS.get(c0_of(ctx), ((), ()))
    if not small:  # a type the inference AI Core does not take: the dtype rule says so
        return True
    ch, c0 = v.sizeChannel, c0_of(ctx)
    return Or(ch == 0, InSet(ch, small), And(ch >= c0 if 0 in rems else ch > c0, InSet(Mod(ch, c0), rems)))


def _aicore_channels_text(ctx: Context) -> str:
    c0 = c0_of(ctx)
    small, rems = AICORE_CHANNELS.get(c0, ((), ()))
    return ", ".join([*map(str, small), *(f"N*{c0}" + (f"+{r}" if r else "") for r in rems)]) + " (N >= 1)"


def fmatrix_rules(p: str, optional: bool = True, products: tuple[str, ...] | None = None,
                  v2_zero: bool = False) -> Iterator[Any]:
    """The ranges of the feature map's members (``fmatrix`` struct): a load's, in force when it gives the struct
    (``optional``), and SetFmatrix's own, always (so that strategies draw the members from the ranges). ``products``:
    where l1H and l1W must be at least 1 (everywhere when None); ``v2_zero``: not a load's zero in the
    LoadData3DParamsV2 form, a NOP (`v2_form_zero`)."""
    present = (lambda v, ctx: v.fmatrix.present) if optional else None
    for name in ("l1H", "l1W"):
        when = present
        if v2_zero:
            when = (lambda zero: lambda v, ctx: And(v.fmatrix.present, zero(v, ctx)))(v2_form_zero(f"fmatrix.{name}"))
        yield field_range(f"{p}.fmatrix.{name}.range", f"fmatrix.{name}", 1, 32767,
                          f"{DOC_SETFMATRIX}, Parameters, {name} ([1, 32767]); {NOTES} (SetFmatrix: {name} in "
                          "[1, 32767])", when=when, notes=("load3d.fmatrix",) + (("load3d.zero-nop-350",) if v2_zero
                                                                                   else ()),
                          products=products)
    yield rule(f"{p}.fmatrix.padValue.range", ("fmatrix", "dtype"), _pad_ok,
               "fmatrix.padValue={value} is outside T's range [{lo}, {hi}]",
               f"{DOC_L3D} (LoadData3DParamsV2: padValue, of type T); {NOTES} (padValue is of type T)",
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


SEED_REPEAT = "003_6cb328d34acb8cee.txt"
NOTES_REPEAT = "HARDWARE_NOTES.md SetLoadDataRepeatWithStride"
T2_REPEAT = f"{SEED_REPEAT} 表2 LoadDataRepeatParamWithStride"
#: The repeat register SetLoadDataRepeatWithStride sets, as a call assumes it (optional: one window without it).
REPEAT = StructArg("repeat", SetLoadDataRepeatWithStride.args,
                   source=f"{T2_REPEAT}; {SEED_REPEAT} 约束说明; {NOTES_REPEAT}",
                   doc="the repeat register SetLoadDataRepeatWithStride set before the call: {repeatStride, "
                       "repeatTime, repeatMode, dstStride} (absent: one window, stored as a contiguous matrix)")


def v2_prototype_rules_350(p: str) -> Iterator[Any]:
    """The multiples the vendor's 3510 implementation asserts for LoadData(dst, src, LoadData3DParamsV2), without the
    page's exceptions for a window covering the last fractal (spec note load3d.v2-prototype-350): a case is that
    prototype when it carries defaultConfig (LoadData3DParamsV2's members or pyasc's keywords set it; the bit-mode
    overload has no such parameter)."""
    v2 = lambda v, ctx: v["defaultConfig.present"]  # noqa: E731
    impl = f"{IMPL_BASE} (LoadDataImpl for LoadData3DParamsV2, __NPU_ARCH__ 3510: ASCENDC_ASSERT"
    own = ("load3d.v2-prototype-350",)
    said = "the vendor's 3510 implementation of LoadData with LoadData3DParamsV2 asserts "
    yield field_multiple(f"{p}.v2.kStep.multiple_350", "kStep", c0_of, f"{impl} kExtension * sizeof(T) % 32 == 0); {_t('kStep')}",
                         products=MODELLED, when=v2, notes=own,
                         message="kStep={value} (kExtension) is not a multiple of {step}: " + said +
                                 "kExtension * sizeof(T) % 32 == 0, whether or not the window covers the rightmost "
                                 "fractal")
    yield field_multiple(f"{p}.v2.mStep.multiple_350", "mStep", FRACTAL_ROWS, f"{impl} mExtension % 16 == 0); {_t('mStep')}",
                         products=MODELLED, when=v2, notes=own,
                         message="mStep={value} (mExtension) is not a multiple of 16: " + said + "mExtension % 16 == "
                                 "0 for every type, whether or not the window covers the bottom fractal")
    yield field_multiple(f"{p}.v2.mPos.multiple_350", "mPos", FRACTAL_ROWS, f"{impl} mStartPt % 16 == 0); {_t('mPos')}",
                         products=MODELLED, when=v2, notes=own,
                         message="mPos={value} (mStartPt) is not a multiple of 16: " + said + "mStartPt % 16 == 0")


#: The rules `construct_call` makes hold by itself (with the tensors packed at their minimum sizes), Load3DBitMode's and
#: LoadDataWithStride's (`ApiModel.construction_holds`): every geometry field within its type and range, the channel
#: count from the page's list, the window inside the img2col matrix, the output inside dst's buffer with its fractal
#: columns apart, the data path, the multiples of each form.
HELD_BY_CONSTRUCTION = (
    *(f"{f}.type" for f in ("kStep", "mStep", "kPos", "mPos", "strideW", "strideH", "Wk", "Hk", "dilationW",
                            "dilationH", "sizeChannel", "fmatrix.l1H", "fmatrix.l1W", "fmatrix.padList0",
                            "fmatrix.padList1", "fmatrix.padList2", "fmatrix.padList3", "fmatrix.padValue",
                            "repeat.repeatStride", "repeat.repeatTime", "repeat.repeatMode", "repeat.dstStride")),
    *(f"{f}.range" for f in ("kStep", "mStep", "strideW", "strideH", "Wk", "Hk", "dilationW", "dilationH",
                             "fmatrix.l1H", "fmatrix.l1W", "fmatrix.padValue", "repeat.repeatMode")),
    *(f"{f}.multiple" for f in ("kPos", "kStep", "mPos", "mStep")),
    *(f"v2.{f}.multiple_350" for f in ("kStep", "mStep", "mPos")),
    "mPos.range3d", "sizeChannel.values", "dst.position", "path", "fmatrixCtrl.false", "window.m_bounds",
    "window.k_bounds", "dst.output_bounds", "dstStride.overlap",
)


@register
class Load3DBitMode(ApiModel):
    name = "Load3DBitMode"
    aliases = ("LoadData3DBitMode", "load3d", "load_data", "asc.language.basic.load_data")
    prefix = "load3d"
    seed = SEED
    output_comparison = "moves"  # img2col copies bytes (and the pad value): a target must match bit for bit
    summary = ("img2col: the window [mPos, mPos+mStep) x [kPos, kPos+kStep) of the img2col matrix of the "
               "feature map in src (NC1HWC0, described by SetFmatrix) into dst, as it is (A2) or transposed (B2, A2 "
               "with transpose), in 16 x C0 fractals whose columns lie dstStride fractals apart")
    support = {"atlas-350": ("uint8", "int8", "fp8_e4m3fn", "fp8_e5m2", "hifloat8", "half", "bfloat16", "uint32",
                             "int32", "float", *UNLISTED_16)}
    support_source = f"{SEED} Applicability and Table 1 (T)"
    unmodelled = {pid: V2_SOURCE for pid in V2_UNMODELLED}
    #: the LoadData3DParamsV2 form writes the repeat register's dstStride itself on atlas-350 (`own_repeat`);
    #: LoadDataWithStride reads the register as SetLoadDataRepeatWithStride left it
    sets_own_dst_stride: ClassVar[bool] = True
    construction_constants = BIT_MODE_FORM
    construction_holds = HELD_BY_CONSTRUCTION
    unmodelled_types = V2_UNMODELLED
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
        _arg("transpose", "store the transposed window (A2; B2 always transposes)"),
        _arg("fmatrixCtrl", "take the feature map description of the right matrix (must be false)"),
        _arg("sizeChannel", "channels of the feature map"),
        FMATRIX,
        REPEAT,
        V2_CONFIG,
    )
    tensors = (
        TensorDecl("dst", "out", positions=("A2", "B2"),
                   source=f"{SEED} Function Usage (data paths A1 -> A2 and B1 -> B2); {SEED} Table 2, dst",
                   doc="the window (or its transpose) in 16 x C0 fractals, columns dstStride fractals apart"),
        TensorDecl("src", "in", positions=("A1", "B1"),
                   source=f"{SEED} Function Usage (data paths A1 -> A2 and B1 -> B2); {SEED} Table 2, src",
                   doc="the feature map, NC1HWC0 (C1 x l1H x l1W x C0)"),
    )
    notes = (
        SpecNote("load3d.products", "Products",
                 "Modelled on atlas-350 only, with the ten types of Table 1. atlas-a3, atlas-a2, atlas-200i-500-a2 "
                 "and atlas-inference-aicore accept the call unmodelled (spec note load3d.products-v2); "
                 "atlas-inference-vectorcore and atlas-training refuse it.",
                 "The Applicability table marks only the Atlas 350 Accelerator Card. The page's example says it is "
                 "'supported on the Atlas inference product AI Core', which the table marks x; the table is the "
                 "contract and the example sentence is taken as copied from another LoadData page.",
                 (f"{SEED} Applicability", f"{SEED} Examples", PRODUCTS_NOTE),
                 ("load3d.product.support", "load3d.dtype.support")),
        SpecNote("load3d.products-v2", "The LoadData3DParamsV2 load on the A2 family and the inference AI Core",
                 "On atlas-a3, atlas-a2, atlas-200i-500-a2 and atlas-inference-aicore the call (LoadData with "
                 "LoadData3DParamsV2, pyasc's load_data) is legal but not modelled: it draws the warning "
                 "product.modelled, and only the rules that the vendor's LoadData page states for those products "
                 "are checked: the types (A1/A2: int4b_t, int8, uint8, half, bfloat16, int32, uint32, float; "
                 "inference AI Core: int4b_t, int8, uint8, half), B1 -> B2 only for half, bfloat16, int32, uint32, float and no transposed "
                 "8-bit load into A2 (A3/A2: errors), the data paths, dst 512-byte and src 32-byte alignment, the "
                 "field widths, kPos/kStep/mStep multiples, mPos <= 32767, the channel counts (not on the inference "
                 "AI Core, whose list differs), fmatrixCtrl false, and src holding the channel groups the K window "
                 "reads (src.footprint_window; the rest of the feature map past src: the warning "
                 "src.footprint.unreached, as the vendor's 910B1/310B loaddata tests size L1). The bit-mode "
                 "page's ranges, the repeat register and the output's layout are not: a zero extent, channel count, "
                 "feature map side or kernel size draws the warning v2.nop (the call moves nothing, `run` leaves dst "
                 "as it was; src.footprint_window and src.footprint.unreached do not apply to it, as for "
                 "load3d.nop); a stride or dilation of 0 (Table 4 allows it, the vendor's debug-build check "
                 "refuses it) draws the warning v2.debug_range, and an mStartPt off a multiple of 16 for half / 8- / "
                 "4-bit types on A3 / A2 / the inference AI Core the warning v2.mPos.multiple (the debug check's, "
                 "not the page's); l1H / l1W past 32767 are errors (v2.l1H.range, v2.l1W.range), and on the "
                 "inference AI Core the channel counts its own list gives (v2.sizeChannel.aicore); otherwise `run` "
                 "marks all of dst unspecified and reads nothing. A case there is the V2 load whatever names its "
                 "fields are given in (Load3DBitModeParam's, LoadData3DParamsV2's, pyasc's): the bit-mode overload "
                 "does not exist there, so the spelling cannot mean it.",
                 "Page 002 (the bit-mode load) is supported on the Atlas 350 only (so is the vendor's LoadData (bit "
                 "mode) page, and its Load3DBitModeParam overload is compiled for __NPU_ARCH__ 3510 / 5102 only: the "
                 "documentation census, tests/vendor/census_docs_cube.md, G2), but the vendor's LoadData page "
                 "(LoadData_3D.md) documents the v2 interface on Ascend 950, Atlas A3, Atlas A2, Atlas 200I/500 A2 "
                 "and the inference AI Core, with the same fields (kExtension, mExtension, kStartPt, mStartPt, ...) "
                 "that ascverify already reads as Load3DBitMode's, and the vendor's mmad_load3dv2 example calls it "
                 "on dav-2201 (Atlas A2). There L0A holds the output in ZZ order (NZ on Ascend 950), there is no "
                 "SetLoadDataRepeatWithStride, and l1H, l1W, channelSize, kExtension, mExtension or a kernel size of "
                 "0 make the call a NOP; ascverify models none of that. Refusing the call would contradict the "
                 "vendor's page and example.",
                 (f"{DOC_L3D}, Product support (v2 interface)", f"{DOC_L3D}, Data types",
                  f"{DOC_L3D}, Restrictions (data paths, alignment, dst layout, channelSize)", f"{DOC_L3D}, Table 4",
                  f"{EX_MMAD}/mmad_load3dv2.asc (the dav-2201 branch)"),
                 ("load3d.product.support", "load3d.product.modelled", "load3d.dtype.support", "load3d.dtype.b2",
                  "load3d.transpose.b8", "load3d.v2.nop", "load3d.v2.debug_range", "load3d.v2.mPos.multiple",
                  "load3d.v2.l1H.range", "load3d.v2.l1W.range", "load3d.v2.sizeChannel.aicore",
                  "load3d.src.footprint_window", "load3d.src.footprint.unreached")),
        SpecNote("load3d.types", "Element types",
                 "T is one of uint8, int8, fp8_e4m3fn, fp8_e5m2, hifloat8, half, bfloat16, uint32, int32, float; "
                 "int16 and uint16 are accepted on atlas-350 with the warning dtype.unlisted (loaded as any 16-bit "
                 "type: C0 = 16); int4b_t, which the sizeChannel row mentions, is not among them and is refused on "
                 "atlas-350 (the V2 load on the A2 family and the inference AI Core takes it into A2, unmodelled: "
                 "spec note load3d.products-v2; an int4b_t tensor spans half a byte per element).",
                 "Table 1 lists the ten types; Table 5 gives channel counts for int4b_t too, most likely copied from a "
                 "page of an API that takes it (the vendor's LoadData page lists int4b_t for the V2 load). The "
                 "vendor's Tensor API Img2Col page excludes only the b4 types, its 3510 implementation static_asserts "
                 "int16_t / uint16_t among the types, and its test_tensor_api_l12l0a.cpp loads int16_t on Ascend 950: "
                 "refusing them would refuse the vendor's test; no LoadData page lists them: a warning.",
                 (f"{SEED} Table 1, T", _t("sizeChannel"), "asc-devkit docs (Tensor API: Img2Col copy, data types)",
                  "asc-devkit tests/api/tensor_api/.../test_tensor_api_l12l0a.cpp:341-380"),
                 ("load3d.dtype.support", "load3d.dtype.unlisted")),
        SpecNote("load3d.namings", "Four ways to give the arguments",
                 "A case gives the fields by the page's names (kStep, mStep, kPos, mPos, strideW, strideH, Wk, Hk, "
                 "dilationW, dilationH, filterW, filterH, transpose, fmatrixCtrl, sizeChannel), or the packed words "
                 "config0 and config1 (uint64, decoded by the layout of HARDWARE_NOTES), or the LoadData3DParamsV2 "
                 "members (kExtension, mExtension, kStartPt, mStartPt, strideW, strideH, filterW and filterH = kernel "
                 "size, dilationFilterW/H, filterSizeW/H = the +256 flags, enTranspose, fMatrixCtrl, channelSize, "
                 "and l1H, l1W, padList, padValue for the feature map; enSmallK only as false), or those members in "
                 "pyasc's spelling (load3d.pyasc). One form per case: a mix is refused. A case naming only "
                 "strideW/strideH/filterW/filterH is read in the page's naming unless filterW or filterH is an "
                 "integer (then it is a kernel size, LoadData3DParamsV2). repeat (the repeat register) goes with any "
                 "form.",
                 "The page says each field 'has the same meaning as' a LoadData3DParamsV2 member; the two namings "
                 "give filterW/filterH different meanings (8-bit kernel size there, 1-bit +256 flag here), so a "
                 "mixed case could not be read unambiguously (which is also why ApiModel.arg_spellings, where a name "
                 "means one argument in every spelling, cannot carry this naming: Load3DBitMode.normalize_args "
                 "translates it). The JSON type tells the two filterW apart (bool vs integer). The JSON Schema "
                 "lists the page's names only.",
                 (T3, T4, T5, NOTES, PYASC_TYPES)),
        SpecNote("load3d.omitted", "Fields left out",
                 "In the page's naming an omitted field is 0 (false): config0 and config1 'are initialized to 0', so "
                 "e.g. an omitted strideW breaks its range rule rather than making the case unreadable. In the "
                 "LoadData3DParamsV2 naming omitted members take the struct's defaults (strideW = strideH = filterW = "
                 "filterH = dilationFilterW = dilationFilterH = 1, everything else 0 / false); in pyasc's spelling "
                 "pyasc's constructor defaults (load3d.pyasc). A case may omit fmatrix (see load3d.no-fmatrix) and "
                 "repeat (load3d.repeat).",
                 "Table 3: config0 and config1 are initialized to 0; HARDWARE_NOTES give the struct's defaults.",
                 (T3, NOTES)),
        SpecNote("load3d.bit-widths", "Field widths",
                 "Each field's type is its bit width (16, 6, 8 or 1 bits): a named value beyond it breaks the type "
                 "rule (the C++ bit-field would silently keep the low bits); decoded from config0/config1 no value "
                 "can exceed its width. A packed word beyond uint64 or negative cannot be read (exit 2).",
                 "Tables 4 and 5 give each field's width; the layout adds up to exactly 64 bits per word.",
                 (T4, T5, NOTES)),
        SpecNote("load3d.multiples", "kPos, kStep, mPos, mStep multiples by type",
                 "kPos is a multiple of C0 = 32 bytes / sizeof(T) (16 for the 16-bit types, 32 for the 8-bit types, 8 "
                 "for the 32-bit types), kStep too unless the window covers the rightmost fractal: errors for every "
                 "type. mStep is a multiple of 16 unless the window covers the bottom fractal: an error for the 8- and "
                 "16-bit types; free for the 32-bit types. mPos is a multiple of 16 unless the bottom fractal is "
                 "covered: a warning, mPos.multiple for half, int8 and uint8 (the types page 002 names) and "
                 "mPos.multiple_unnamed for every other type.",
                 "Page 002 names half (16) and int8/uint8 (32; 16 along M) only. The vendor's LoadData3DParamsV2 "
                 "table (LoadData_3D.md, LoadDataWithStride.md) gives the rest by width: kExtension a multiple of 8 "
                 "(b32), 16 (b16), 32 (b8) unless it covers the rightmost fractal, kStartPt likewise, mExtension a "
                 "multiple of 16 for b4/b8/b16 and 'no requirement for b32' (translated) (none for b32) unless it covers the bottom fractal, "
                 "and mStartPt no multiple at all; the vendor's newest page of this API gives mPos no multiple "
                 "either, and its bit-mode implementation checks none. So K follows C0 for every type, mStep the "
                 "vendor's widths, and a start inside a 16-row group is flagged, not refused (page 002's multiple "
                 "for half, int8 and uint8 is older than the page that dropped it).",
                 (_t("kStep"), _t("kPos"), _t("mStep"), _t("mPos"), f"{DOC_L3D} (LoadData3DParamsV2 table)",
                  f"{DOC_LDWS} (LoadData3DParamsV2 table)", f"{DOC_BITMODE} (mPos)", UNITS),
                 ("load3d.kPos.multiple", "load3d.kStep.multiple", "load3d.mPos.multiple", "load3d.mStep.multiple",
                  "load3d.mPos.multiple_unnamed")),
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
                 "N*32+4, N*32+8, N*32+16 (8-bit), N >= 1; so 0 to 3 are refused for the types the page names. "
                 "fp8 and hifloat8 are checked against the 8-bit list as a warning (sizeChannel.values_unnamed): "
                 "no source gives their values.",
                 "Table 5 says 'Value range: [1, 63]' for a 16-bit field whose own value list goes beyond 63 "
                 "(N*16 for any N); HARDWARE_NOTES: the LoadData3D page gives channelSize in [0, 65535], the "
                 "'[1, 63]' is very likely a copy error. The lists are the same in bytes for every type of one size. "
                 "For fp8 and hifloat8 the pages list the types as supported but give no channel values (LoadData_3D, "
                 "LoadDataWithStride, the bit-mode page, the C API page), the vendor's debug check of channelSize "
                 "has no branch for them, and its calls use 32 only: the 8-bit list is a reading, not a page's rule.",
                 (_t("sizeChannel"), NOTES, f"{DOC_L3D} (channelSize)",
                  "asc-devkit impl/basic_api/kernel_operator_mm_check.h:539-615 (CheckLoadData3dv2ChannelSize)"),
                 ("load3d.sizeChannel.values", "load3d.sizeChannel.values_unnamed", "load3d.sizeChannel.type")),
        SpecNote("load3d.mPos-range", "mPos above 32767",
                 "mPos is in [0, 32767]: above, an error (load3d.mPos.range3d), although the field has 16 bits.",
                 "Page 002 gives [0, 65535]; HARDWARE_NOTES: the LoadData3D page gives [0, 32767]; the vendor's "
                 "newest page of this API (LoadData_3D_BitMode.md, mPos) gives [0, 32767] too. Two of the vendor's "
                 "pages, one of them this API's own and newer than page 002, agree; no vendor call goes above. (Until "
                 "the newest page was read this was a warning.)",
                 (_t("mPos"), NOTES, f"{DOC_BITMODE} (mPos)"), ("load3d.mPos.range3d",)),
        SpecNote("load3d.transpose", "transpose",
                 "transpose=true with dst in A2 stores the window transposed (load3d.output) for every type of Table "
                 "1: 8-, 16- and 32-bit. With dst in B2 it has no effect: the B2 path always transposes, the call "
                 "stores the same bytes whether it is set or not, and draws the warning transpose.no_effect.",
                 "Page 002: 'valid only when the destination TPosition is set to A2 and the source operand is of the "
                 "half type'. The vendor's LoadDataWithStride.md and LoadData_3D.md (Ascend 950): enTranspose takes "
                 "effect with dst in L0A for b8/b16/b32 and has no effect with dst in L0B, whose path always "
                 "transposes ('on the L1 Buffer -> L0B Buffer path the data is transposed automatically' (translated)); the b8 case joins two 16 x 32 fractals into "
                 "a 32 x 32 block, transposes it and splits it again, which is the window transposed in 16 x 32 "
                 "fractals. The vendor's load_data_with_stride example sets the flag on int8, half and float A2 loads "
                 "(its goldens, matrix products, need the transposition) and on every B2 load. The page's sentence "
                 "matches the V2Pro struct and the A2/A3 products; vendor shipping code wins, and a flag that has no "
                 "effect is worth a warning, not a refusal.",
                 (_t("transpose"), f"{DOC_LDWS} (enTranspose; restrictions)", f"{DOC_L3D} (enTranspose; transposed "
                  "scenarios)", EX_LDWS, f"{EX_MMAD}/mmad_load3dv2.asc"),
                 ("load3d.transpose.no_effect",)),
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
        SpecNote("load3d.output", "What the call stores where (dstStride, the layout)",
                 "The output O is the window W (dst in A2, transpose false) or W transposed (dst in B2, and A2 with "
                 "transpose), W being the repeats' windows assembled (load3d.repeat). O is stored in fractals of 16 "
                 "rows x C0 = 32/sizeof(T) columns (512 bytes, row-major inside): fractal (rb, cb), rows 16rb.. and "
                 "columns C0*cb.. of O, at dst + (cb*dstStride + rb)*512. dstStride is the fractal distance between "
                 "O's column blocks; without a repeat register (a single case without repeat) it is O's row-block "
                 "count RB, a contiguous matrix. dst must hold (CB-1)*dstStride + RB fractals (CB column blocks), "
                 "512-byte aligned; fractals in the gaps (dstStride > RB) are left alone; elements of O outside every "
                 "window are unspecified. For half this is NZ for the window in A2 (fractal (m1, k1) at k1*M1 + m1) "
                 "and ZN (fractal (m1, k1) at m1*K1 + k1, column-major inside) for a transposed or B2 window; A2 is "
                 "NZ on atlas-350, not ZZ.",
                 "Page 003 calls dstStride the 'output matrix's offset along K, in 512-byte fractals' and its example "
                 "sets dstStride = CeilDivision(m, 16) with one repeat; page 002 says A2 is 'ZZ or NZ', B2 ZN. The "
                 "vendor's code fixes the reading: dav_3510's SetLoadDataRepeatStride, which the LoadData3DParamsV2 "
                 "overload runs, sets dstStride = enTranspose ? ceil(kExtension/16) : ceil(mExtension/16), O's row "
                 "blocks; the load_data_with_stride example sets CeilAlign(m,16)/16 (A), CeilDiv(CeilAlign(m,C0),16) "
                 "(transposed A), CeilDiv(CeilAlign(n,C0),16) (B2), and its matrix-product goldens need this "
                 "placement for int8, half and float; conv kernels set dstStride = mL0/16 (all M fractals) with one "
                 "output row per repeat; a conv backprop kernel calls it the 'm_dst_stride' of its L0B output and "
                 "fills each fractal column's rows with calls 512 bytes apart, as the 3510 migration guide does with "
                 "four calls 256 halves apart. The vendor's numpy model (mmad_load3dv2/load3d.py) stores b32 in B2 "
                 "as [M1, 2, K, 8] per 16 rows, byte for byte this layout with dstStride = ceil(K/16); it writes A2 in "
                 "ZZ order, the L0A layout of the A2/A3 products (LoadData_3D.md: ZZ there, NZ on Ascend 950).",
                 (f"{SEED} Table 2, dst", f"{T2_REPEAT}, dstStride", f"{SEED_REPEAT} 调用示例",
                  f"{IMPL_3510} (SetLoadDataRepeatStride)", EX_LDWS, f"{EX_MMAD}/load3d.py",
                  f"{DOC_L3D} (restrictions: dst layout)", DOC_MIGRATION, NOTES, UNITS),
                 ("load3d.dst.size", "load3d.dst.align", "load3d.dstStride.overlap")),
        SpecNote("load3d.dst-size", "A dst declared smaller than the output",
                 "A dst whose declared size ends before the output's last fractal is a warning (dst.size): the load "
                 "stores past dst's end, which corrupts only what else lives there (in a program, a tensor declared "
                 "there breaks the overlap and hazard rules of its own calls). The output leaving dst's buffer is an "
                 "error (dst.output_bounds).",
                 "No page states dst's size; the hardware does not check a LocalTensor's declared size. The vendor's "
                 "own examples (load_data_with_stride scenarios 5-6, mmad_load3dv2 scenarios 3-4, batch_matmul) "
                 "declare a float B2 operand of CeilAlign(k,16)*CeilAlign(n,8) elements (3456 for k=40, n=70) while "
                 "their dstStride = CeilDiv(CeilAlign(n,8),16) places its fractal columns 80 rows apart (3776 "
                 "elements written): harmless there because nothing else is in L0B, and the policy keeps the "
                 "vendor's shipping examples free of errors (docs/severity.md).",
                 (f"{SEED} Table 2, dst", f"{T2_REPEAT}, dstStride", EX_LDWS, f"{EX_MMAD}/mmad_load3dv2.asc"),
                 ("load3d.dst.size", "load3d.dst.output_bounds")),
        SpecNote("load3d.overlap", "Fractals that collide",
                 "An error only when two fractals of one call land on the same bytes: O has two column blocks or "
                 "more and dstStride is below its row blocks RB (fractal (dstStride, 0) meets fractal (0, 1)); the "
                 "core faults (overlap) on exactly those calls. Any dstStride >= RB is accepted, gaps and all; with "
                 "one column block any dstStride is.",
                 "Which of two fractals stored to one place survives is not documented; a larger dstStride leaves "
                 "gaps, which is how kernels interleave row blocks loaded by separate calls (the 3510 migration "
                 "guide, conv backprop). The earlier blanket 'repeats must not overlap' refused the vendor's conv "
                 "loads (one output row per repeat, dstStride = all M fractals).",
                 (f"{T2_REPEAT}, dstStride", DOC_MIGRATION, NOTES_REPEAT), ("load3d.dstStride.overlap",)),
        SpecNote("load3d.repeat", "The repeat register",
                 "The repeat register (SetLoadDataRepeatWithStride's repeatStride, repeatTime, repeatMode, dstStride) "
                 "applies to this call as to LoadDataWithStride. Repeat r < repeatTime loads the window moved "
                 "r*repeatStride*16 rows (repeatMode 0) or r*repeatStride*C0 columns (repeatMode 1); the windows are "
                 "assembled into one matrix W, repeat r's rows from row r*ceil16(mStep) (mode 0) or its columns from "
                 "column r*ceil_C0(kStep) (mode 1), and W is stored as one output (load3d.output); every window must "
                 "lie in the img2col matrix. In a program the call uses the last SetLoadDataRepeatWithStride's values "
                 "(warning repeat.differs when it gives others) -- on atlas-350 a call in the LoadData3DParamsV2 form "
                 "after a SetLoadDataRepeat uses that call's fields and writes dstStride = ceil((transpose ? kStep : "
                 "mStep) / 16) itself (spec note set_load_data_repeat_v2.program; without an earlier SetLoadDataRepeat "
                 "the warning repeat.v2_unset: the fields it would read were never set, and the call is checked "
                 "with the register as it stands); a single case may give them as repeat = "
                 "{repeatStride, repeatTime, repeatMode, dstStride}; with neither it is one window stored as a "
                 "contiguous matrix. There is no ordering rule (the page's example sets no repeat). LoadDataWithStride's "
                 "CPU checks (kExtension*sizeof(T) % 32, mExtension % 16, ...) are not this call's.",
                 "On atlas-350 the bit-mode LoadData issues the same instruction as LoadDataWithStride "
                 "(img2colv2_cbuf_to_ca / _cb, dav_3510 kernel_operator_mm_impl.h; LoadDataImpl with "
                 "Load3DBitModeParam in kernel_operator_mm_base_impl.h, which checks alignment and positions only), "
                 "and unlike the LoadData3DParamsV2 overload it does not write dstStride itself: the register "
                 "decides. SetLoadDataRepeat.md (Ascend 950) requires dstStride for LoadData; the migration guide and "
                 "conv kernels (Load3DBitModeParam via SetConfig1) set the register before the load. Conv kernels "
                 "repeat one output row per repeat along M (mExtension = woL0, repeatTime = hoL0, dstStride = "
                 "mL0/16) and a conv backprop kernel twice along K (8 + 8 float channels into 16 rows of its L0B "
                 "output): the repeats assemble one matrix, they are not separate windows dstStride apart. Page 002 "
                 "is silent on all of it.",
                 (f"{SEED} Function Usage", f"{IMPL_3510} (img2colv2_cbuf_to_ca)", f"{IMPL_BASE} (LoadDataImpl)",
                  f"{DOC_SETREPEAT} (restrictions, Ascend 950)", f"{DOC_L3D} (Repeat Mode)", T2_REPEAT, NOTES_REPEAT),
                 ("load3d.repeat.repeatMode.range", "load3d.repeat.differs", "load3d.repeat.v2_unset",
                  "load3d.window.m_bounds",
                  "load3d.window.k_bounds")),
        SpecNote("load3d.repeat-partial", "Repeats of a partial window",
                 "With two repeats or more, a window that is not whole fractals in the repeat direction (mStep not a "
                 "multiple of 16 along M, kStep not a multiple of C0 along K; one window may be, when it covers the "
                 "bottom or rightmost fractal) draws the warning repeat.partial. It is modelled with each repeat "
                 "starting a new fractal row (column); the rest of the partial one is unspecified.",
                 "Neither page 002 nor the vendor's documents say where the next repeat starts after a partial "
                 "fractal; LoadDataWithStride refuses partial windows outright (its CPU checks), the bit-mode call "
                 "has no check.", (_t("mStep"), _t("kStep"), f"{IMPL_BASE} (LoadDataWithStrideImpl)"),
                 ("load3d.repeat.partial",)),
        SpecNote("load3d.nop", "repeatTime = 0",
                 "With a repeat register whose repeatTime is 0 the call moves nothing (the core reads and writes "
                 "nothing) and draws the warning repeat.noop. The rules about what the call reads and stores -- the "
                 "window's bounds, src's feature map, dst's size and buffer, the output's fractal columns "
                 "(dstStride.overlap) -- do not apply to it; the rules on the parameters themselves (types, ranges, "
                 "multiples, positions, alignment, support) still do.",
                 "Page 003 and SetLoadDataRepeat.md: 'repeatTime = 0 means nothing is moved, the call is treated as "
                 "a NOP' (translated); the bit-mode call issues the same instruction. A NOP reads and writes no "
                 "byte, so no hazard of a read or store can arise (errors only where a page forbids the call or the "
                 "hardware misbehaves, docs/severity.md); the parameter rules are what the pages state of every "
                 "call. (Earlier versions checked a NOP as one window: dstStride.overlap refused a call that stores "
                 "nothing, which the core's run contradicted.)",
                 (f"{SEED_REPEAT} 约束说明", f"{DOC_SETREPEAT} (restrictions)"),
                 ("load3d.repeat.noop", "load3d.dst.size", "load3d.dst.output_bounds", "load3d.dstStride.overlap",
                  "load3d.src.footprint", "load3d.window.m_bounds", "load3d.window.k_bounds")),
        SpecNote("load3d.b8-b2", "8-bit types into B2",
                 "Load3DBitMode accepts the 8-bit types with dst in B2 (no rule).",
                 "Page 002 Table 1 and the vendor's LoadData_3D_BitMode.md and LoadData_3D.md (Ascend 950) list the "
                 "ten types without a per-path restriction; only LoadDataWithStride.md's data-type section restricts "
                 "B1 -> B2 to half, bfloat16, int32, uint32 and float (as the A2/A3 products do), and the vendor's "
                 "load_data_with_stride example loads int8 into B2 (scenarios 1 and 2) all the same.",
                 (f"{SEED} Table 1, T", f"{DOC_BITMODE} (data types)", f"{DOC_L3D} (data types)",
                  f"{DOC_LDWS} (data types)", EX_LDWS)),
        SpecNote("load3d.pyasc", "pyasc's names",
                 "The API answers to pyasc's load_data (asc.language.basic.load_data), and a case may give pyasc's "
                 "LoadData3DParamsV2 keywords (pad_list, l1_h, l1_w, channel_size, k_extension, m_extension, "
                 "k_start_pt, m_start_pt, stride_w, stride_h, filter_w, filter_h, dilation_filter_w, "
                 "dilation_filter_h, en_transpose, pad_value, filter_size_w, filter_size_h, f_matrix_ctrl; repeat "
                 "beside them). Keywords left out take pyasc's defaults (l1_h = l1_w = channel_size = k_extension = "
                 "m_extension = 1, strides, kernel and dilation 1, the rest 0 / false), so the feature map is always "
                 "given. pyasc's set_load_data_repeat is SetLoadDataRepeat, not SetLoadDataRepeatWithStride, and is "
                 "no alias of it; pyasc has no load_data_with_stride, and set_fmatrix only as an IR operation with "
                 "the C++ argument names.",
                 "pyasc exposes load_data(dst, src, LoadData3DParamsV2) (python/asc/language/basic/mm.py) with those "
                 "keywords and defaults (python/asc/language/core/types.py); a LoadData3DParamsV2 initializes "
                 "Load3DBitModeParam (page 002 Table 3) and on atlas-350 both issue the same instruction. Not "
                 "modelled: the C++ LoadData(LoadData3DParamsV2) overload that pyasc calls sets the feature map from "
                 "its own members, writes dstStride itself (the natural count, dav_3510 SetLoadDataRepeatStride) "
                 "over the repeat SetLoadDataRepeat set, and runs LoadDataWithStride's CPU checks; pyasc materializes "
                 "channel_size as a uint8.",
                 (PYASC_MM, PYASC_TYPES, T3, f"{IMPL_3510} (SetLoadDataRepeatStride)",
                  "pyasc include/ascir/Dialect/Asc/IR/Basic/OpMm.td")),
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
                 "src in A1 goes with dst in A2, src in B1 with dst in B2; A1 -> B2 and B1 -> A2 are refused. "
                 "B1 -> B2 is accepted although the vendor's CPU-debug build of the bit-mode LoadData stops on it.",
                 "Function Usage: 'The following data paths are supported: A1 -> A2 and B1 -> B2.' The vendor's "
                 "bit-mode implementation checks `Src != TPosition::A1 && Src != TPosition::A2` before it raises "
                 "(kernel_operator_mm_base_impl.h), which refuses B1 in CPU-debug builds only: most likely a typo for "
                 "B1, as the page and the NPU path take it (the check's own message expects 'L1 Buffer(A1/B1)'); no "
                 "vendor test loads B1 -> B2 in bit mode.",
                 (f"{SEED} Function Usage", f"{IMPL_BASE} (the bit-mode LoadData's position check)"), ("load3d.path",)),
        SpecNote("load3d.v2-prototype-350", "The LoadData3DParamsV2 prototype on atlas-350",
                 "A call given as LoadData3DParamsV2's members (or pyasc's keywords, or with defaultConfig: "
                 "LoadData<T, defaultConfig>(dst, src, LoadData3DParamsV2)) is held on atlas-350 to the multiples "
                 "the vendor's implementation asserts for that prototype, with no exception: kStep (kExtension) a "
                 "multiple of C0, mStep (mExtension) and mPos (mStartPt) multiples of 16, for every type "
                 "(v2.kStep.multiple_350, v2.mStep.multiple_350, v2.mPos.multiple_350, errors). The bit-mode "
                 "prototype (Load3DBitModeParam's fields, the packed words) keeps the pages' reading (spec note "
                 "load3d.multiples): its implementation checks none of them.",
                 "LoadDataImpl for LoadData3DParamsV2 asserts, under __NPU_ARCH__ 3510, kExtension * sizeof(T) % 32 "
                 "== 0, mExtension % 16 == 0, kStartPt * sizeof(T) % 32 == 0 and mStartPt % 16 == 0 before it issues "
                 "the load (kernel_operator_mm_base_impl.h), the same checks LoadDataWithStride makes (spec note "
                 "load_data_with_stride.multiples); the bit-mode LoadDataImpl checks only the alignments and "
                 "positions. The pages' exceptions (a window covering the last fractal; 'no requirement for b32') "
                 "are not what this prototype's implementation takes. Found by the vendor-check census "
                 "(tests/vendor/census_checks.md).",
                 (f"{IMPL_BASE} (LoadDataImpl for LoadData3DParamsV2 and for Load3DBitModeParam)", _t("mStep"), _t("mPos")),
                 ("load3d.v2.kStep.multiple_350", "load3d.v2.mStep.multiple_350", "load3d.v2.mPos.multiple_350")),
        SpecNote("load3d.zero-nop-350", "Zero values the LoadData page calls a NOP, on atlas-350",
                 "On atlas-350 a call in the LoadData3DParamsV2 form (defaultConfig given: its members or pyasc's "
                 "keywords) with l1H, l1W, channelSize (sizeChannel), kExtension (kStep) or mExtension (mStep) of 0, "
                 "or filterW / filterH (Wk / Hk) of 0 without filterSizeW / H, is the warning v2.nop: it reads and "
                 "stores nothing (run leaves dst as it was); with defaultConfig.isSetFMatrix it still sets the "
                 "feature map, and after a SetLoadDataRepeat the repeat register (both are written before the "
                 "instruction). The bit-mode form keeps page 002's ranges from 1 (errors); LoadDataWithStride, whose "
                 "every call takes LoadData3DParamsV2, reads the same zeros as the NOP (spec note "
                 "load_data_with_stride.zero-nop).",
                 "The vendor's LoadData page (Table 4, and its Restrictions) gives l1H, l1W in [0, 32767], "
                 "channelSize, kExtension, mExtension in [0, 65535] and calls 0 a NOP, on Ascend 950 too; its debug "
                 "check only warns. Page 002 documents the bit-mode load (Load3DBitModeParam), with [1, ...] for all "
                 "of them and no NOP; the 3510 LoadData3DParamsV2 overload sets the registers, then issues the "
                 "same img2col instruction. No vendor call on Ascend 950 passes these zeros. Found by the "
                 "documentation census (tests/vendor/census_docs_cube.md, G1; its five entries pass).",
                 (f"{DOC_L3D}, Table 4", _t("kStep"), _t("mStep"), _t("sizeChannel"), f"{IMPL_3510} (LoadData3DV2L12L0ACal)"),
                 ("load3d.fmatrix.l1H.range", "load3d.fmatrix.l1W.range", "load3d.sizeChannel.values",
                  "load3d.kStep.range", "load3d.mStep.range", "load3d.Wk.range", "load3d.Hk.range", "load3d.v2.nop")),
        SpecNote("load3d.default-config", "defaultConfig: whose feature map a LoadData3DParamsV2 call loads with",
                 "Arguments given as LoadData3DParamsV2's members (or pyasc's keywords) are LoadData<T, defaultConfig>"
                 "(dst, src, LoadData3DParamsV2): args.defaultConfig = {isSetFMatrix, isSetPadding}, both true unless "
                 "given. With isSetFMatrix the call sets the feature map from its own l1H, l1W, padList and loads with "
                 "it: in a program a SetFmatrix before it is not read (no fmatrix.differs) and the call leaves its "
                 "feature map in the register for later loads; a call without one of its own sets l1H = l1W = 0 (a "
                 "NOP, warning fmatrix.reset). With isSetFMatrix = false it reads the feature map the last SetFmatrix "
                 "set (load3d.program-fmatrix); with isSetPadding its own padValue replaces the register's. The "
                 "bit-mode form (Load3DBitModeParam's fields, the packed config0/config1) reads the registers: its "
                 "defaultConfig is {false, false} unless the case gives one (the namings spell the same fields). A "
                 "single case's fmatrix is the feature map the call loads with either way.",
                 "The LoadData page's V2 prototype: 'template <typename T, const IsResetLoad3dConfig &defaultConfig = "
                 "IS_RESER_LOAD3D_DEFAULT_CONFIG>'; LoadDataImpl for LoadData3DParamsV2 runs Load3DSetFMatrixCal(l1H, "
                 "l1W, padList) when defaultConfig.isSetFMatrix and Load3DSetPaddingCal(padValue) when isSetPadding; "
                 "the bit-mode overload (Load3DBitModeParam) has no such parameter. The vendor's SetFmatrix, "
                 "SetFmatrixBitMode and SetLoadDataPaddingValue page examples and its set_loaddata_boundary example "
                 "pass {false, false} after a SetFmatrix. Until this reading, ascverify loaded every call with the "
                 "last SetFmatrix's feature map, so a default-config call after a SetFmatrix of another shape was "
                 "checked against the wrong map (found by a helper session's probe).",
                 (f"{DOC_L3D} (V2 prototype, defaultConfig)", f"{IMPL_BASE} (LoadDataImpl for LoadData3DParamsV2)",
                  "SetFmatrix and SetFmatrixBitMode (asc-devkit docs), examples (LOAD3D_CONFIG = {false, false})"),
                 ("load3d.fmatrix.reset", "load3d.fmatrix.differs", "load3d.fmatrix.unset")),
        SpecNote("load3d.program-fmatrix", "The feature map in a program",
                 "In a program the bit-mode load (and a LoadData3DParamsV2 call with defaultConfig.isSetFMatrix = false, "
                 "load3d.default-config) reads the feature map the last SetFmatrix set: the call is checked and run with "
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
        yield from self.img2col_rules(self.prefix)
        yield from v2_rules(self.prefix)
        yield from v2_prototype_rules_350(self.prefix)
        yield fmatrix_reset_rule(self.prefix, f"{DOC_L3D} (defaultConfig; l1H = 0: a NOP); {IMPL_BASE} (LoadDataImpl "
                                 f"for LoadData3DParamsV2); {NOTES}", "load3d.default-config")

    @staticmethod
    def img2col_rules(p: str, *, window_what: str = "the last repeat's window") -> Iterator[Any]:
        """The rules of the img2col load under the rule prefix ``p`` (Load3DBitMode's; LoadDataWithStride takes them
        too, replacing some by its own). The window-bound rules check the last repeat's window (the only one without a
        repeat register), named ``window_what`` in the messages."""
        yield rule(f"{p}.dtype.unlisted", ("dtype",), lambda v, ctx: ctx.dtype.name not in UNLISTED_16,
                   "T={dtype}: no LoadData page lists it on atlas-350 (Table 1's ten types); the vendor's Tensor API "
                   "Img2Col page and its 3510 implementation take 16-bit integers, and its own test loads int16_t",
                   f"{SEED} Table 1 (T); asc-devkit docs (Tensor API Img2Col copy: 'does not support b4 types'); "
                   "asc-devkit tests/api/.../test_tensor_api_l12l0a.cpp (int16_t)", severity=WARNING,
                   products=MODELLED, notes=("load3d.types",), help="one of Table 1's ten types")
        yield rule(f"{p}.path", ("src", "dst"), _path_ok,
                   "src in {src_pos} with dst in {dst_pos}: the supported data paths are A1 -> A2 and B1 -> B2",
                   f"{SEED} Function Usage (data paths)", notes=("load3d.path",),
                   facts=lambda v, ctx: {"src_pos": v.src.position_name(), "dst_pos": v.dst.position_name()},
                   help="A1 -> A2 or B1 -> B2")
        # a zero of kStep, mStep, Wk / Hk (without filterW / H) in the LoadData3DParamsV2 form: the LoadData page's NOP
        zero_nop = ("load3d.zero-nop-350",)
        for name in ("kStep", "mStep"):
            yield field_range(f"{p}.{name}.range", name, 1, 65535, f"{_t(name)} ([1, 65535])", products=MODELLED,
                              when=v2_form_zero(name), notes=zero_nop)
        for name in ("strideW", "strideH"):
            yield field_range(f"{p}.{name}.range", name, 1, 63, f"{_t(name)} ([1, 63])", products=MODELLED)
        for name, flag in (("Wk", "filterW"), ("Hk", "filterH")):
            yield field_range(f"{p}.{name}.range", name, 1, 255, f"{_t(name)} ([1, 255])", products=MODELLED,
                              when=v2_form_zero(name, flag), notes=zero_nop)
        for name in ("dilationW", "dilationH"):
            yield field_range(f"{p}.{name}.range", name, 1, 255, f"{_t(name)} ([1, 255])", products=MODELLED)
        yield rule(f"{p}.mPos.range3d", ("mPos",), lambda v, ctx: v.mPos <= MAX_MPOS_3D,
                   f"mPos={{mPos}} is above {MAX_MPOS_3D}: the vendor's Load3DBitMode page (and the LoadData3D page for "
                   "mStartPt) gives mPos in [0, 32767]",
                   f"{DOC_BITMODE} (mPos: [0, 32767]); {NOTES} (the LoadData3D page gives [0, 32767]); {_t('mPos')} "
                   "([0, 65535] in its older version)", notes=("load3d.mPos-range",),
                   help=f"mPos <= {MAX_MPOS_3D} (the vendor's Load3DBitMode and LoadData3D pages)")
        multiples = ("load3d.multiples",)
        yield rule(f"{p}.kPos.multiple", ("kPos", "dtype"), lambda v, ctx: Mod(v.kPos, c0_of(ctx)) == 0,
                   "kPos={kPos} is not a multiple of {c0} (32 bytes of T)",
                   f"{_t('kPos')}; {DOC_L3D} (kStartPt, by width); {UNITS}", notes=multiples,
                   facts=lambda v, ctx: {"c0": c0_of(ctx)}, help="kPos a multiple of C0 = 32 bytes of T",
                   domain={"kind": "multiple", "field": "kPos", "step": c0_of})
        yield rule(f"{p}.kStep.multiple", ("kStep", "kPos", "fmatrix"),
                   lambda v, ctx: Or(Mod(v.kStep, c0_of(ctx)) == 0, covered_k(v, ctx)),
                   "kStep={kStep} is not a multiple of {c0} (32 bytes of T) and the window does not cover the "
                   "rightmost fractal{why}", f"{_t('kStep')}; {DOC_L3D} (kExtension, by width); {UNITS}",
                   facts=lambda v, ctx: {"c0": c0_of(ctx), "why": _coverage_why(v, ctx, "k")},
                   notes=("load3d.multiples", "load3d.covered"),
                   help="kStep a multiple of C0 unless the window covers the rightmost fractal")
        yield rule(f"{p}.mStep.multiple", ("mStep", "mPos", "fmatrix"),
                   lambda v, ctx: True if ctx.dtype.size == 4 else
                   Or(Mod(v.mStep, FRACTAL_ROWS) == 0, covered_m(v, ctx)),
                   "mStep={mStep} is not a multiple of 16 and the window does not cover the bottom fractal{why}",
                   f"{_t('mStep')}; {DOC_L3D} (mExtension: b4/b8/b16 a multiple of 16, b32 free); {UNITS}",
                   facts=lambda v, ctx: {"why": _coverage_why(v, ctx, "m")},
                   notes=("load3d.multiples", "load3d.covered"),
                   help="mStep a multiple of 16 unless the window covers the bottom fractal (8- and 16-bit T)")
        for rid, named in (("mPos.multiple", True), ("mPos.multiple_unnamed", False)):
            yield rule(f"{p}.{rid}", ("mStep", "mPos", "fmatrix"),
                       (lambda named: lambda v, ctx: True if (ctx.dtype.name in M_NAMED) != named else
                        Or(Mod(v.mPos, FRACTAL_ROWS) == 0, covered_m(v, ctx)))(named),
                       "mPos={mPos} is not a multiple of 16 and the window does not cover the bottom fractal{why}"
                       + (" (the Load3DBitMode (LoadData) page requires it for T={dtype}; the vendor's newest "
                          "version of the page and its bit-mode implementation do not)" if named else
                          " (the Load3DBitMode (LoadData) page requires it for half, int8 and uint8; for T={dtype} "
                          "no source does)"),
                       f"{_t('mPos')}; {DOC_BITMODE} (mPos: no multiple)"
                       + ("" if named else f"; {DOC_L3D} (mStartPt: no multiple)") + f"; {UNITS}",
                       severity=WARNING, facts=lambda v, ctx: {"why": _coverage_why(v, ctx, "m")},
                       notes=("load3d.multiples", "load3d.covered"), products=MODELLED,
                       help="mPos a multiple of 16 unless the window covers the bottom fractal"
                            + (" (half, int8, uint8)" if named else " (the other types: a warning)"))
        # the page lists the values for the types it names (an error); for the other types (fp8, hifloat8) the list
        # of their width is an extrapolation no source states: a warning (spec note load3d.sizeChannel)
        for rid, named, severity in (("sizeChannel.values", True, "error"),
                                     ("sizeChannel.values_unnamed", False, WARNING)):
            yield rule(f"{p}.{rid}", ("sizeChannel", "dtype"),
                       (lambda named: lambda v, ctx: True if (ctx.dtype.name in CHANNEL_NAMED) != named else
                        Or(And(Or(ctx.product.id in V2_UNMODELLED, v["defaultConfig.present"]),  # V2: a NOP (v2.nop)
                               v.sizeChannel == 0),
                           And(v.sizeChannel >= 4, InSet(Mod(v.sizeChannel, c0_of(ctx)), channel_remainders(ctx)))))(named),
                       "sizeChannel={sizeChannel} is not a channel count the page allows for T={dtype} ({allowed})"
                       if named else
                       "sizeChannel={sizeChannel} is not one of the values the page lists for the types of T={dtype}'s "
                       "width ({allowed}); for T={dtype} no source lists any",
                       f"{_t('sizeChannel')} (values per type); {DOC_L3D} (channelSize: the same values on Ascend "
                       "950, Atlas A3, Atlas A2, Atlas 200I/500 A2)", severity=severity,
                       notes=("load3d.sizeChannel",), products=CHANNEL_LIST_PRODUCTS,
                       facts=lambda v, ctx: {"allowed": _allowed_text(ctx)},
                       help="sizeChannel one of the page's values for T" + ("" if named else " (the types the page "
                                                                             "does not name: a warning)"),
                       domain={"kind": "one_of", "field": "sizeChannel", "codes": channel_values})
        yield rule(f"{p}.transpose.no_effect", ("transpose", "dst"),
                   lambda v, ctx: Not(And(v.transpose, v.dst.position == _CODE["B2"])),
                   "transpose=true has no effect with dst in B2: the L1 -> L0B path always transposes",
                   f"{_t('transpose')}; {DOC_LDWS} (enTranspose: no effect with dst in L0B)", severity=WARNING,
                   notes=("load3d.transpose",), help="transpose false with dst in B2 (it has no effect there)")
        yield rule(f"{p}.fmatrixCtrl.false", ("fmatrixCtrl",), lambda v, ctx: Not(v.fmatrixCtrl),
                   "fmatrixCtrl=true: it 'can only be set to false'", _t("fmatrixCtrl"),
                   help="fmatrixCtrl false")
        # the repeat register and where the output goes (spec notes load3d.repeat, load3d.output, load3d.overlap)
        yield field_range(f"{p}.repeat.repeatMode.range", "repeat.repeatMode", 0, 1, f"{T2_REPEAT}, repeatMode ([0, 1])",
                          when=lambda v, ctx: v.repeat.present, notes=("load3d.repeat",), products=MODELLED)
        yield tensor_min_size(f"{p}.dst.size", "dst", dst_elems_needed,
                              f"{SEED} Table 2, dst; {T2_REPEAT}, dstStride (in 512-byte fractals); {UNITS} (fractal "
                              "16 x 32 bytes)",
                              what="the output's fractals ((CB-1)*dstStride + RB fractals of 512 bytes)",
                              message="dst.size={dst.size} elements but the output's fractals ((CB-1)*dstStride + RB "
                                      "fractals of 512 bytes) reach {need}: the load stores past dst's end, over "
                                      "whatever else lives there",
                              severity=WARNING, params=("mStep", "kStep", "transpose", "repeat"),
                              when=lambda v, ctx: moves(v), notes=("load3d.output", "load3d.dst-size", "load3d.nop"),
                              products=MODELLED)
        yield rule(f"{p}.dst.output_bounds", ("dst", "mStep", "kStep", "transpose", "repeat"),
                   lambda v, ctx: output_end(v, ctx) <= dst_capacity(v, ctx),
                   "the output's fractals end at byte {end} of {buffer}, past its {capacity} bytes on {product}",
                   f"{SEED} Table 2, dst; {T2_REPEAT}, dstStride (in 512-byte fractals); HARDWARE_NOTES.md Products "
                   "(buffer sizes)", when=lambda v, ctx: moves(v), notes=("load3d.dst-size", "load3d.nop"),
                   products=MODELLED,
                   facts=lambda v, ctx: {"end": output_end(v, ctx),
                                         "buffer": POSITION_BUFFER[POSITION_NAMES[int(v.dst.position)]],
                                         "capacity": dst_capacity(v, ctx)},
                   help="the output's fractals inside dst's buffer")
        yield rule(f"{p}.dstStride.overlap", ("repeat", "mStep", "kStep", "transpose", "dst"), columns_apart,
                   "dstStride={stride} is below the output's {rb} fractal rows: its {cb} fractal columns, {stride} "
                   "fractals apart, store to the same bytes", f"{T2_REPEAT}, dstStride (in 512-byte fractals); "
                   f"{NOTES_REPEAT}", when=lambda v, ctx: moves(v), notes=("load3d.output", "load3d.overlap", "load3d.nop"),
                   products=MODELLED,
                   facts=lambda v, ctx: {"stride": dst_stride(v, ctx), "rb": row_blocks(v, ctx),
                                         "cb": col_blocks(v, ctx)},
                   help="dstStride >= the output's fractal rows, or one fractal column")
        yield rule(f"{p}.repeat.noop", ("repeat",), lambda v, ctx: repeats_move(v),
                   "repeatTime=0: the call is a NOP, it moves nothing", f"{SEED_REPEAT} 约束说明 (repeatTime=0: NOP)",
                   severity=WARNING, notes=("load3d.nop",), products=MODELLED,
                   help="repeatTime > 0 (0 makes the call a NOP)", noop=True)
        yield rule(f"{p}.repeat.partial", ("repeat", "mStep", "kStep"), whole_repeats,
                   "repeatTime={n} repeats of a window that is not whole fractals along the repeat direction "
                   "(mStep={mStep}, kStep={kStep}): where the next repeat starts is not documented",
                   f"{_t('mStep')}; {_t('kStep')}; {T2_REPEAT}, repeatMode", severity=WARNING,
                   notes=("load3d.repeat-partial",), facts=lambda v, ctx: {"n": repeats(v)}, products=MODELLED,
                   help="repeats of whole fractals along the repeat direction")
        yield tensor_min_size(f"{p}.src.footprint", "src", src_elems_needed,
                              f"{NOTES} (SetFmatrix: the feature map C1 x l1H x l1W x C0); {SEED} Table 2, src",
                              what="the feature map of fmatrix (C1 x l1H x l1W x C0)",
                              params=("fmatrix", "sizeChannel", "repeat"), when=lambda v, ctx: And(moves(v), _fm_ok(v)),
                              notes=("load3d.fmatrix", "load3d.no-fmatrix", "load3d.nop"), products=MODELLED)
        # with the feature map
        yield from fmatrix_rules(p, products=MODELLED, v2_zero=True)
        yield rule(f"{p}.window.m_bounds", ("mPos", "mStep", "fmatrix", "strideH", "strideW", "Hk", "Wk", "filterH",
                                            "filterW", "dilationH", "dilationW", "repeat"),
                   lambda v, ctx: last_m_start(v, ctx) + v.mStep <= m_bound(v, ctx),
                   f"rows [{{start}}, {{end}}) of {window_what} pass the img2col matrix's {{m}} rows (Ho={{ho}} x "
                   "Wo={wo}, ceil16: {bound})", f"{_t('mStep')}; {_t('mPos')}; {NOTES} (SetFmatrix)",
                   when=lambda v, ctx: And(moves(v), _geom_ok(v)), products=MODELLED,
                   facts=lambda v, ctx: dict(zip(("ho", "wo"), ho_wo(v)), start=last_m_start(v, ctx),
                                             end=last_m_start(v, ctx) + v.mStep, m=m_total(v, ctx),
                                             bound=m_bound(v, ctx)),
                   notes=("load3d.m-order", "load3d.no-fmatrix", "load3d.repeat", "load3d.nop"),
                   help="mPos + mStep <= Ho*Wo rounded up to 16 (the last repeat's window)")
        yield rule(f"{p}.window.k_bounds", ("kPos", "kStep", "fmatrix", "sizeChannel", "Hk", "Wk", "filterH", "filterW",
                                            "repeat"),
                   lambda v, ctx: last_k_start(v, ctx) + v.kStep <= k_total(v, ctx),
                   f"columns [{{start}}, {{end}}) of {window_what} pass the img2col matrix's K = C1*Kh*Kw*C0 = {{k}} "
                   "columns", f"{_t('kStep')}; {_t('kPos')}; {NOTES} (SetFmatrix)",
                   when=lambda v, ctx: And(moves(v), _geom_ok(v)),
                   products=MODELLED,
                   facts=lambda v, ctx: {"start": last_k_start(v, ctx), "end": last_k_start(v, ctx) + v.kStep,
                                         "k": k_total(v, ctx)},
                   notes=("load3d.k-order", "load3d.no-fmatrix", "load3d.repeat", "load3d.nop"),
                   help="kPos + kStep <= C1*Kh*Kw*C0 (the last repeat's window)")
        # in a program (ApiModel.state_warnings): the feature map a call reads, against the one SetFmatrix set
        yield state_rule(f"{p}.fmatrix.unset", "no feature map: the call gives no fmatrix and no SetFmatrix came "
                         "before it in the program, so the feature map the load reads is unknown (its bounds are not "
                         "checked and `run` stores unspecified values)",
                         f"{_t('fmatrixCtrl')} (it works with SetFmatrix); {NOTES}", params=("fmatrix",),
                         notes=("load3d.program-fmatrix",))
        yield state_rule(f"{p}.fmatrix.differs", "the call's fmatrix differs from the one the last SetFmatrix set",
                         f"{_t('fmatrixCtrl')} (the load reads the feature map SetFmatrix set); {NOTES}",
                         params=("fmatrix",), notes=("load3d.program-fmatrix",))
        yield state_rule(f"{p}.repeat.v2_unset", "no SetLoadDataRepeat came before this LoadData3DParamsV2 load: "
                         "on atlas-350 the load writes the repeat register from the fields SetLoadDataRepeat keeps, "
                         "which nothing in the program set (never set, they hold 0: repeatTime 0 makes the load a "
                         "NOP); it is checked and run with the register as it stands",
                         f"{DOC_SETREPEAT}, Restrictions (Ascend 950: LoadData needs it); {DOC_L3D} (Ascend 950: "
                         f"dstStride must be set with SetLoadDataRepeat); {IMPL_3510} (SetLoadDataRepeatStride); "
                         f"{NOTES_REPEAT}", params=("repeat",), products=MODELLED,
                         notes=("load3d.repeat",))
        yield state_rule(f"{p}.repeat.differs", "the call's repeat differs from the one the last "
                         "SetLoadDataRepeatWithStride set", f"{SEED_REPEAT} 功能说明 (it sets the repeat parameters); "
                         f"{NOTES_REPEAT}", params=("repeat",), notes=("load3d.repeat",))

    #: the rules that need the feature map (ids without the prefix)
    FMATRIX_RULES = ("window.m_bounds", "window.k_bounds", "src.footprint", "src.footprint_window",
                     "src.footprint.unreached")

    def unchecked(self, case: Case) -> Iterator[tuple[str, str, str]]:
        """Without fmatrix the feature map is unknown: its bounds are not checked here."""
        if case.env["fmatrix.present"]:
            return
        reason = ("no fmatrix given: with defaultConfig.isSetFMatrix the call sets the feature map from its own l1H, "
                  "l1W, padList, which the case does not give" if case.env["defaultConfig.isSetFMatrix"] else
                  "no fmatrix given: the feature map SetFmatrix set is not known to this call")
        ids = {f"{self.prefix}.{name}" for name in self.FMATRIX_RULES}
        for r in self.rules_for(case.product):
            if r.id in ids:
                yield r.id, reason, r.source

    argument_forms = other_argument_forms(("repeat", V2_CONFIG.name))

    def normalize_args(self, args: Mapping[str, Any]) -> Mapping[str, Any]:
        """`normalize_args`; defaultConfig not given is {true, true} with LoadData3DParamsV2's members and pyasc's
        keywords, {false, false} (the registers, as the bit-mode overload reads them) with the page's fields and
        the packed words."""
        out = normalize_args(args, self.name, extra=("repeat", V2_CONFIG.name))
        given = args.get(V2_CONFIG.name)
        if args_form(args) in ("v2", "pyasc"):
            out[V2_CONFIG.name] = {**V2_CONFIG_DEFAULT, **given} if isinstance(given, dict) else \
                dict(V2_CONFIG_DEFAULT) if given is None else given
        return out

    def keeps_layout(self, arg_keys: tuple[str, ...], tensor_keys: tuple[str, ...]) -> bool:
        """Arguments in the page's form: every key known and at least one of them the page's own (`normalize_args`
        then copies them unchanged)."""
        return page_form(arg_keys, ("repeat", V2_CONFIG.name))

    # -- programs: the feature map SetFmatrix set, the repeat register (notes load3d.program-fmatrix, load3d.repeat) --
    # -- and defaultConfig, whose feature map a LoadData3DParamsV2 call loads with (note load3d.default-config) -------

    def _with_state(self, case: Case, state: Mapping[str, Any]) -> Case:
        """The call with the registers it reads: the repeat the last SetLoadDataRepeatWithStride set, and the feature
        map the last SetFmatrix set unless defaultConfig.isSetFMatrix (then its own; with isSetPadding its own
        padValue, LoadData3DParamsV2's 0 if it gives none)."""
        env = case.env
        held = state.get(FMATRIX_STATE)
        if env["defaultConfig.isSetFMatrix"]:
            got = self._with_registers(case, without_fmatrix(state))
            if not env["defaultConfig.isSetPadding"] and held is not None and got.env["fmatrix.present"]:
                got = got.with_fields(**{"fmatrix.padValue": held["fields"]["fmatrix.padValue"]})  # the register's
            return got
        got = self._with_registers(case, state)
        if env["defaultConfig.isSetPadding"] and got.env["fmatrix.present"]:
            got = got.with_fields(**{"fmatrix.padValue": env["fmatrix.padValue"]})
        return got

    def with_state(self, case: Case, state: Mapping[str, Any]) -> Case:
        """The call with the registers it reads (`_with_state`); on atlas-350 a LoadData3DParamsV2 call after a
        SetLoadDataRepeat loads with that call's fields and its own dstStride (spec note set_load_data_repeat_v2.program)."""
        got = self._with_state(case, state)
        own = self.own_repeat(case, state)
        if own is not None:
            got = got.with_fields(**{"repeat.present": True, **{f"repeat.{k}": x for k, x in own.items()}})
        return got

    def v2_form_on_350(self, case: Case) -> bool:
        """The call is the LoadData3DParamsV2 overload on atlas-350, which writes the repeat register itself."""
        return self.sets_own_dst_stride and case.product == "atlas-350" and bool(case.env["defaultConfig.present"])

    def own_repeat(self, case: Case, state: Mapping[str, Any]) -> dict[str, int] | None:
        """The repeat register a LoadData3DParamsV2 call writes before it loads on atlas-350: the last SetLoadDataRepeat's
        fields (``state``: a program's state or the core's special registers, which both keep them) and dstStride =
        ceil((transpose ? kStep : mStep) / 16) (dav_3510 SetLoadDataRepeatStride); None for the bit-mode form, another
        product, LoadDataWithStride or a program without SetLoadDataRepeat."""
        param = state.get(REPEAT_PARAM_STATE)
        if param is None or not self.v2_form_on_350(case):
            return None
        env = case.env
        return {**{k: int(param[k]) for k in REPEAT_PARAM_FIELDS},
                "dstStride": v2_dst_stride(int(env["mStep"]), int(env["kStep"]), bool(env["transpose"]))}

    @staticmethod
    def _with_registers(case: Case, state: Mapping[str, Any]) -> Case:
        got = state.get(FMATRIX_STATE)
        if got is not None:
            case = case.with_fields(**{"fmatrix.present": True, **got["fields"]})
        rep = state.get(REPEAT_STATE)
        if rep is not None:
            case = case.with_fields(**{"repeat.present": True, **{f"repeat.{k}": rep[k] for k in REPEAT_FIELDS}})
        return case

    def state_warnings(self, case: Case, state: Mapping[str, Any]) -> list[tuple[Any, str]]:
        """Where the call reads SetFmatrix's feature map: none at all, or the call's own differs from it; the call's
        repeat differs from the register's. With defaultConfig.isSetFMatrix, a call without a feature map of its own
        resets it."""
        if not case.env["defaultConfig.isSetFMatrix"]:
            return self._register_warnings(case, state, own_padding=bool(case.env["defaultConfig.isSetPadding"]))
        out = [(r, m) for r, m in self._register_warnings(case, without_fmatrix(state))
               if r.id != f"{self.prefix}.fmatrix.unset"]
        if not case.env["fmatrix.present"]:
            r = self.rule_by_id[f"{self.prefix}.fmatrix.reset"]
            out.insert(0, (r, r.message))
        return out

    def _register_warnings(self, case: Case, state: Mapping[str, Any], *,
                           own_padding: bool = False) -> list[tuple[Any, str]]:
        out: list[tuple[Any, str]] = []
        got = state.get(FMATRIX_STATE)
        read = {k: x for k, x in (got or {}).get("fields", {}).items() if not (own_padding and k == "fmatrix.padValue")}
        if got is None:
            r = self.rule_by_id[f"{self.prefix}.fmatrix.unset"]
            if not case.env["fmatrix.present"]:
                out.append((r, r.message))
        elif case.env["fmatrix.present"] and any(case.env[k] != x for k, x in read.items()):
            r = self.rule_by_id[f"{self.prefix}.fmatrix.differs"]
            out.append((r, f"the call's fmatrix {fmatrix_shown(case.env)} differs from the one the last SetFmatrix set "
                           f"{fmatrix_shown(got['fields'])}; the load reads the latter"
                           + ("'s l1H, l1W and padList, and its own padValue (defaultConfig.isSetPadding)"
                              if own_padding else "")))
        if self.v2_form_on_350(case) and REPEAT_PARAM_STATE not in state:
            r = self.rule_by_id[f"{self.prefix}.repeat.v2_unset"]
            out.append((r, r.message))
        own = self.own_repeat(case, state)
        rep, setter = (own, "SetLoadDataRepeat (with the dstStride the call computes)") if own is not None else \
            (state.get(REPEAT_STATE), "SetLoadDataRepeatWithStride")
        if rep is not None and case.env["repeat.present"]:
            given = {k: int(case.env[f"repeat.{k}"]) for k in REPEAT_FIELDS}
            held = {k: int(rep[k]) for k in REPEAT_FIELDS}
            if given != held:
                r = self.rule_by_id[f"{self.prefix}.repeat.differs"]
                out.append((r, f"the call's repeat {given} differs from the one the last {setter} set {held}; the "
                               "load uses the latter"))
        return out

    def apply_state(self, case: Case, state: dict[str, Any]) -> None:
        """With defaultConfig.isSetFMatrix the call leaves its own feature map in the register (and with none of its
        own, l1H = l1W = 0: the feature map is then no longer known here). A LoadData3DParamsV2 call after a
        SetLoadDataRepeat on atlas-350 leaves the repeat it composed in the register (`own_repeat`)."""
        super().apply_state(case, state)
        own = self.own_repeat(case, state)
        if own is not None:
            state[REPEAT_STATE] = own
        env = case.env
        if not env["defaultConfig.isSetFMatrix"]:
            return
        if env["fmatrix.present"]:
            held = state.get(FMATRIX_STATE)
            fields = {f: env[f] for f in FMATRIX_MEMBER_FIELDS}
            if not env["defaultConfig.isSetPadding"] and held is not None:  # the padding register keeps its value
                fields["fmatrix.padValue"] = held["fields"]["fmatrix.padValue"]
            state[FMATRIX_STATE] = {"fields": fields, "dtype": case.ctx.dtype.name}
        else:
            state.pop(FMATRIX_STATE, None)

    # -- construction of valid cases (strategies) -------------------------------------------------------------

    def construct_args(self, draw: Any, ctx: Context, env: dict[str, Any]) -> None:
        """Every argument drawn valid by construction: the data path, the geometry, the window inside the matrix
        and the output inside dst's buffer, the channel count from the page's list, the feature map inside L1, now
        and then a repeat register (its dstStride keeping the output's fractal columns apart). Cases are written in
        the bit-mode form, which has no defaultConfig (note load3d.default-config)."""
        construct_call(draw, ctx, env, repeat_quarters=1)
        env.update(BIT_MODE_FORM)

    # -- semantics --------------------------------------------------------------------------------------------

    def footprint(self, case: Case) -> Mapping[str, list[tuple[str, int, int]]]:
        """Each fractal column of the output: RB fractals from dst + cb*dstStride*512 on (none for a NOP); on a
        product where the load is not modelled, all of dst."""
        dst = case.tensor("dst")
        if case.product in self.unmodelled:
            return {"dst": [(dst.buffer, dst.addr, dst.end)]}
        if v2_form_nop(case.values()):
            return {"dst": []}
        out = output_of(case)
        if out.repeats == 0 or out.extent == 0:
            return {"dst": []}
        s, rb = out.dst_stride, out.row_blocks
        return {"dst": [(dst.buffer, dst.addr + cb * s * FRACTAL_BYTES, dst.addr + (cb * s + rb) * FRACTAL_BYTES)
                        for cb in range(out.col_blocks)]}

    def execute(self, case: Case, trace: Any) -> None:
        env, special = case.env, trace.memory.special
        if env["defaultConfig.isSetFMatrix"]:  # LoadDataImpl sets the call's own feature map before it loads
            held = special.get(FMATRIX_STATE)
            special[FMATRIX_STATE] = fmatrix_register_value(case)
            if not env["defaultConfig.isSetPadding"] and held is not None:  # and the padding value only with it
                special[FMATRIX_STATE]["padValue"] = held["padValue"]
        elif env["defaultConfig.isSetPadding"] and FMATRIX_STATE in special:
            special[FMATRIX_STATE] = {**special[FMATRIX_STATE], "padValue": int(env["fmatrix.padValue"])}
        own = self.own_repeat(case, special)  # the core keeps SetLoadDataRepeat's fields as a program's state does
        if own is not None:  # the V2 overload writes the repeat register before it loads (`own_repeat`)
            special[REPEAT_STATE] = {**own, "register": pack_repeat_register(own)}
        if case.product in self.unmodelled:
            unmodelled_load(case, trace)
        elif not v2_form_nop(case.values()):  # the LoadData page's NOP: dst keeps its contents
            load_img2col(case, trace)

    def input_data(self, case: Case, tensor: str, rng: np.random.Generator) -> np.ndarray | None:
        if tensor != "src":
            return None
        t = case.tensor(tensor)
        dt = t.dtype
        if dt.name == "hifloat8":
            return rng.integers(0, 256, size=t.size, dtype=np.uint8)
        if dt.kind == "uint":
            return rng.integers(0, 17, size=t.size).astype(dt.numpy)
        # small integers: exact in every float type of the list (fp8_e5m2 holds -8..8 exactly); int4b_t's -8..7
        hi = 8 if dt.kind == "float" else min(8, dt.int_bounds()[1])
        return rng.integers(-8, hi + 1, size=t.size).astype(dt.numpy)


# -- the core ----------------------------------------------------------------------------------------------------------

def output_of(case: Case) -> Output:
    """What the call stores where (concrete): the window, the repeat register (one window stored contiguously without
    it), the transposition (B2, or transpose)."""
    env = case.env
    t = transposed_output(case.tensor("dst").position, bool(env["transpose"]))
    if env["repeat.present"]:
        repeats = within_iterations(int(env["repeat.repeatTime"]), "repeat.repeatTime")  # a program's state may ask
        return Output(c0_of(case.ctx), int(env["mStep"]), int(env["kStep"]), repeats,
                      int(env["repeat.repeatMode"]) == 0, t, int(env["repeat.dstStride"]))
    return Output(c0_of(case.ctx), int(env["mStep"]), int(env["kStep"]), transposed=t)


def repeat_starts(case: Case) -> tuple[np.ndarray, np.ndarray]:
    """Per repeat r (of at least one): the first row and first column of its window in the img2col matrix."""
    env, out = case.env, output_of(case)
    r = np.arange(out.n, dtype=np.int64)
    stride = int(env["repeat.repeatStride"]) if env["repeat.present"] else 0
    m = int(env["mPos"]) + (r * stride * FRACTAL_ROWS if out.along_m else 0 * r)
    k = int(env["kPos"]) + (0 * r if out.along_m else r * stride * out.c0)
    return m, k


def _fractals_stored(out: Output, cap: int) -> tuple[np.ndarray, np.ndarray]:
    """(row block, column block) of the fractals the core computes: all of them, or for an output far larger than the
    buffer (``cap`` fractals and more; an invalid call, which faults either way) column 0, row 0 and the last
    fractal: enough for the first out-of-bounds store and the first two fractals that collide."""
    rb_n, cb_n = out.row_blocks, out.col_blocks
    if rb_n * cb_n <= 4 * cap:
        cb, rb = np.divmod(np.arange(rb_n * cb_n, dtype=np.int64), rb_n)
        return rb, cb
    r_keep, c_keep = min(rb_n, cap), min(cb_n, cap + 1)
    pairs = [(r, 0) for r in range(r_keep)] + [(0, c) for c in range(1, c_keep)]
    pairs.append((rb_n - 1, cb_n - 1) if (r_keep, c_keep) == (rb_n, cb_n) else (r_keep - 1, c_keep - 1))
    rb, cb = np.array(sorted(set(pairs)), dtype=np.int64).T
    return rb, cb


def _every_fractal(out: Output, rb: np.ndarray) -> bool:
    """`_fractals_stored` kept every fractal of O (all but outputs far larger than the buffer)."""
    return rb.size == out.row_blocks * out.col_blocks


def _by_fractal(matrix: np.ndarray, row_blocks: int, col_blocks: int, c0: int) -> np.ndarray:
    """O as a (row_blocks * 16) x (col_blocks * C0) matrix -> one row per fractal, in `_fractals_stored`'s order
    (column block major), each fractal's 16 x C0 elements row-major."""
    blocks = np.broadcast_to(matrix, (row_blocks * FRACTAL_ROWS, col_blocks * c0)).reshape(
        row_blocks, FRACTAL_ROWS, col_blocks, c0)
    return blocks.transpose(2, 0, 1, 3).reshape(row_blocks * col_blocks, FRACTAL_ROWS * c0)


def unmodelled_load(case: Case, trace: Any) -> None:
    """A load on a product where it is not modelled (spec note load3d.products-v2): all of dst unspecified, nothing
    read (where the load reads and stores there is not modelled)."""
    dst = case.tensor("dst")
    if v2_nop(case.values()):
        return  # a NOP (Table 4): dst keeps its contents
    if dst.nbytes:
        trace.write(dst.buffer, [dst.addr], dst.nbytes, np.zeros(dst.nbytes, dtype=np.uint8), [0],
                    poison=[True], what="dst (the load is not modelled here)", tensor="dst")


def load_img2col(case: Case, trace: Any) -> None:
    """The core of the img2col load (spec notes load3d.output, load3d.repeat): read each repeat's pixel vectors from
    src (iteration r), assemble the output O and store its fractals, each an iteration of its own and exclusive, at
    dst + (cb*dstStride + rb)*512: the core faults when two of them meet."""
    env, t = case.env, case.ctx.dtype
    out = output_of(case)
    if out.repeats == 0 or out.extent == 0:
        return  # repeatTime = 0: a NOP
    c0 = out.c0
    dst, src = case.tensor("dst"), case.tensor("src")
    cap = case.ctx.product.buffer_size(dst.buffer) // FRACTAL_BYTES + 2
    rb, cb = _fractals_stored(out, cap)
    whole = _every_fractal(out, rb)
    if whole:  # every fractal: O's rows as a column and its columns as a row (each division once per row or column)
        o_row = np.arange(out.row_blocks * FRACTAL_ROWS, dtype=np.int64)[:, None]
        o_col = np.arange(out.col_blocks * c0, dtype=np.int64)[None, :]
    else:  # the fractals `_fractals_stored` keeps, one per row of (fractal, element within it)
        ii, jj = np.divmod(np.arange(FRACTAL_ROWS * c0, dtype=np.int64), c0)
        o_row, o_col = rb[:, None] * FRACTAL_ROWS + ii[None, :], cb[:, None] * c0 + jj[None, :]
    rep, wi, wj, in_window = out.window_parts(o_row, o_col)
    rep = np.minimum(rep, out.n - 1)
    m_starts, k_starts = repeat_starts(case)
    # the repeats step along one of M and K only: the other start is the same for every repeat
    m, k = (m_starts[rep] + wi, k_starts[0] + wj) if out.along_m else (m_starts[0] + wi, k_starts[rep] + wj)
    values = np.zeros(in_window.shape, dtype=t.numpy)
    if not env["fmatrix.present"]:
        poison = np.ones(in_window.shape, dtype=bool)  # the feature map is unknown: where, but not what
    else:
        geo = Geometry.of(env, t.size)
        s = source(geo, m, k)
        read = in_window & s["inside"] & s["real"]
        shape = read.shape
        # each repeat reads each of its pixel vectors once: (repeat, vector) pairs
        span = int(s["vector"].max()) + 1
        uniq, inverse = np.unique(np.broadcast_to(rep, shape)[read] * span + s["vector"][read], return_inverse=True)
        its, vec = np.divmod(uniq, span)
        raw = trace.read(src.buffer, src.addr + vec * VECTOR_BYTES, VECTOR_BYTES, its, align=VECTOR_BYTES,
                         what="src pixel vector", tensor="src")
        vectors = np.ascontiguousarray(raw).reshape(-1).view(t.numpy).reshape(uniq.size, c0)
        values[read] = vectors[inverse.reshape(-1), np.broadcast_to(s["lane"], shape)[read]]
        values[in_window & s["in_matrix"] & ~s["inside"]] = pad_value(t, int(env["fmatrix.padValue"]))
        poison = ~(in_window & s["in_matrix"] & s["real"])
    if whole:  # O's elements in the order they are stored: fractal cb * row_blocks + rb, its 16 x C0 row-major
        values, poison = (_by_fractal(a, out.row_blocks, out.col_blocks, c0) for a in (values, poison))
    data = np.ascontiguousarray(values).view(np.uint8).reshape(rb.size, FRACTAL_BYTES)
    starts = dst.addr + (cb * out.dst_stride + rb) * FRACTAL_BYTES
    # not tagged tensor="dst": a store past dst's declared size is a warning, not a fault (spec note load3d.dst-size:
    # the vendor's examples store there; the buffer's bounds still hold)
    trace.write(dst.buffer, starts, FRACTAL_BYTES, data, np.arange(rb.size), align=FRACTAL_BYTES, exclusive=True,
                poison=np.repeat(poison, t.size, axis=1), what="dst fractal")


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

class _SmallDraws:
    """Draws of ``lo..hi``, mostly near lo (small shapes run fast), sometimes anywhere, sometimes hi, for one
    construction: a branch (near lo, anywhere, hi: a third each) and then the value. The branches of four draws are
    one choice (`packed_indices`), each value another; a seeded draw (``draw.integers``:
    `ascverify.engines.properties.seeded`) takes its values without building a strategy per bounds."""

    BRANCHES_PER_CHOICE = 4

    def __init__(self, draw: Any) -> None:
        self.draw = draw
        self.ints = getattr(draw, "integers", None)
        self.branches: list[int] = []

    def __call__(self, lo: int, hi: int, near: int = 3) -> int:
        """A value of lo..hi (lo when that is all; ``near``: how far above lo the near branch reaches)."""
        if hi <= lo:
            return lo
        if not self.branches:
            self.branches = packed_indices(self.draw, [3] * self.BRANCHES_PER_CHOICE)[::-1]
        branch = self.branches.pop()
        if branch == 2:
            return hi
        top = min(hi, lo + near) if branch == 0 else hi
        return self.ints(lo, top) if self.ints is not None else self.draw(_ints(lo, top))


@lru_cache(maxsize=1024)
def _one_of_values(values: tuple[int, ...]) -> Any:
    from hypothesis import strategies as st

    return st.sampled_from(values)


@lru_cache(maxsize=1)
def _repeat_count() -> Any:
    """A repeat register's count: mostly small, sometimes anything."""
    from hypothesis import strategies as st

    return st.one_of(_ints(1, 4), _ints(0, 8), _ints(0, 255))


def construct_call(draw: Any, ctx: Context, env: dict[str, Any], *, whole_fractals: bool = False,
                   repeat_quarters: int = 1) -> None:
    """Fill ``env`` (fields of `Load3DBitMode` / LoadDataWithStride) with a valid call: the transposition, a repeat
    register ``repeat_quarters`` times in four, then the window (`construct`) within a fractal budget that the
    whole output fits in (it has at most n windows' fractals, twice that when transposed: rounding to 16-row and
    C0-column blocks at most doubles the count), then the repeat: repeatStride keeping the last window in the matrix,
    dstStride keeping the output's fractal columns apart and inside the buffer. Without a register the repeat fields
    hold the defaults with dstStride the natural count (the register a setter must hold for the same output)."""
    small = _SmallDraws(draw)
    b2 = POSITION_NAMES[int(env["src.position"])] == "B1"
    env["transpose"] = bool(draw(_ints(0, 7)) == 0) if b2 else bool(draw(_ints(0, 1)))
    turned = b2 or env["transpose"]
    # fractals the output may take: the buffer less one, which the strategies' slack after dst may take
    cap = ctx.product.buffer_size("L0B" if b2 else "L0A") // FRACTAL_BYTES - 1
    given = env["repeat.present"] = draw(_ints(0, 3)) < repeat_quarters
    n = min(draw(_repeat_count()), cap // (2 if turned else 1)) if given else 1
    per_window = cap // (max(n, 1) * (2 if turned else 1))
    construct(draw, ctx, env, dst_fractals=per_window, whole_fractals=whole_fractals, small=small)
    c0 = c0_of(ctx)
    if not given:
        natural = Output(c0, int(env["mStep"]), int(env["kStep"]), transposed=turned).row_blocks
        env.update({"repeat.repeatStride": 0, "repeat.repeatTime": 1, "repeat.repeatMode": 0,
                    "repeat.dstStride": natural})
        return
    mode = env["repeat.repeatMode"] = draw(_ints(0, 1))
    env["repeat.repeatTime"] = n
    k = max(n, 1)
    top = 65535
    if env["fmatrix.present"] and k > 1:
        geo = Geometry.of(env, ctx.dtype.size)
        if mode == 0:
            top = (ceil_to(geo.m_total, FRACTAL_ROWS) - int(env["mPos"]) - int(env["mStep"])) // ((k - 1) * FRACTAL_ROWS)
        else:
            top = (geo.k_total - int(env["kPos"]) - int(env["kStep"])) // ((k - 1) * c0)
    env["repeat.repeatStride"] = small(0, max(0, min(top, 65535)))
    out = Output(c0, int(env["mStep"]), int(env["kStep"]), k, mode == 0, turned)
    rb, cb = out.row_blocks, out.col_blocks
    if cb >= 2:
        env["repeat.dstStride"] = small(rb, min((cap - rb) // (cb - 1), 65535))
    else:
        env["repeat.dstStride"] = small(0, 65535)


def construct(draw: Any, ctx: Context, env: dict[str, Any], *, dst_fractals: int | None = None,
              whole_fractals: bool = False, small: _SmallDraws | None = None) -> None:
    """Fill the window and feature-map fields of ``env`` with a valid call, drawn with Hypothesis's ``draw``
    (``env["transpose"]`` already set). ``dst_fractals``: at most this many fractals for the window (default: dst's
    whole buffer); ``whole_fractals``: mPos, mStep multiples of 16 even where the window covers the bottom fractal
    (LoadDataWithStride); ``small``: the caller's `_SmallDraws`, whose packed branches it shares."""
    small = small if small is not None else _SmallDraws(draw)

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
    env["strideW"], env["strideH"] = small(1, 63), small(1, 63)
    # the feature map most of the time (the core computes values only with it)
    present = env["fmatrix.present"] = draw(_ints(0, 4)) > 0
    if not present:
        for f in FMATRIX.fields()[1:]:
            env[f.name] = f.default
        for name in ("Wk", "Hk", "dilationW", "dilationH"):
            env[name] = small(1, 255)
        env["filterW"], env["filterH"] = bool(draw(_ints(0, 1))), bool(draw(_ints(0, 1)))
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
    # (mPos at most MAX_MPOS_3D, load3d.mPos.range3d, although its field has 16 bits)
    rows_cap = min(dst_elems // (j * c0) // FRACTAL_ROWS * FRACTAL_ROWS, 65535)
    end_lo, end_hi = max(m, 1), min(bound, MAX_MPOS_3D + rows_cap)  # mPos = end - mStep, mStep <= rows_cap
    if not whole_fractals and end_lo <= end_hi and draw(_ints(0, 1)):
        end = small(end_lo, end_hi)
        step = small(max(1, end - MAX_MPOS_3D), min(end, rows_cap))
        env["mStep"], env["mPos"] = step, end - step
    else:
        b = small(1, min(bound, rows_cap) // FRACTAL_ROWS)
        env["mStep"] = b * FRACTAL_ROWS
        env["mPos"] = small(0, min(bound // FRACTAL_ROWS - b, MAX_MPOS_3D // FRACTAL_ROWS)) * FRACTAL_ROWS


def _channels(draw: Any, ctx: Context, c1: int) -> int:
    """A channel count the page allows with ceil(count / C0) == c1."""
    c0, rems = c0_of(ctx), channel_remainders(ctx)
    if c1 == 1:
        options = [4 * 2**i for i in range(len(rems) - 1)] + [c0]
    else:
        options = [(c1 - 1) * c0 + r for r in rems if r] + [c1 * c0]
    return draw(_one_of_values(tuple(x for x in options if x <= 65535)))


def _kernel(draw: Any, small: Any, span: int) -> tuple[int, int]:
    """(kernel size, dilation) whose dilated extent fits ``span`` (the padded input): 1..255 or 257..511."""
    top = min(511, span)
    if top >= 257 and draw(_ints(0, 7)) == 0:
        k = draw(_ints(257, top))
    else:
        k = small(1, min(255, top))
    dilation = small(1, 255 if k == 1 else min(255, (span - 1) // (k - 1)))
    return k, dilation


# -- invariants (run by ascverify.engines.properties.invariants on valid cases) --------------------------------------------

def _run(case: Case, seed: int, strict: bool = True):
    return run_case(fresh(case), seed=seed, strict=strict)


def as_bits(a: np.ndarray) -> np.ndarray:
    """Elements as their unsigned bit patterns (int64): img2col moves bits, whatever T is."""
    a = np.ascontiguousarray(a)
    return a.view(np.dtype(f"u{a.dtype.itemsize}")).astype(np.int64)


def stored_output(case: Case, res: Any) -> tuple[np.ndarray, np.ndarray]:
    """The output O (rows x cols) the run stored from dst's start (fractal columns dstStride apart), as bit patterns,
    and which elements are poison."""
    e = case.ctx.dtype.size
    dst = case.tensor("dst")
    out = output_of(case)
    state = res.memory.state[dst.buffer][dst.addr:dst.end].reshape(-1, e)
    poison = (state == POISON).all(axis=1)
    bits = as_bits(res.tensors["dst"])
    return (matrix_from_dst(bits, out.rows, out.cols, out.c0, out.dst_stride),
            matrix_from_dst(poison, out.rows, out.cols, out.c0, out.dst_stride))


def stored_windows(case: Case, res: Any) -> list[tuple[np.ndarray, np.ndarray]]:
    """Each repeat's window (mStep x kStep) as the run stored it (bit patterns, poison), read back from O."""
    out = output_of(case)
    got, poison = stored_output(case, res)
    if out.transposed:
        got, poison = got.T, poison.T
    rows, cols = out.m_step, out.k_step
    windows = []
    for r in range(out.repeats):
        i0, j0 = (r * out.m_pitch, 0) if out.along_m else (0, r * out.k_pitch)
        windows.append((got[i0:i0 + rows, j0:j0 + cols], poison[i0:i0 + rows, j0:j0 + cols]))
    return windows


def stored_window(case: Case, res: Any) -> tuple[np.ndarray, np.ndarray]:
    """The (first) window (mStep x kStep) the run stored in dst, as bit patterns, and which elements are poison."""
    return stored_windows(case, res)[0]


def reference_window(case: Case, src_bits: np.ndarray, m: np.ndarray, k: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The img2col matrix at rows m, columns k (bit patterns), from the padded feature map read at (ho*stride + tap*
    dilation), written out here apart from `img2col.source`; and where it is defined (rows < Ho*Wo, channels <
    sizeChannel)."""
    env = case.env
    geo = Geometry.of(env, case.ctx.dtype.size)
    c0 = geo.c0
    group, lane = np.divmod(k, c0)
    rest, kw_i = np.divmod(group, geo.kw)
    c1_i, kh_i = np.divmod(rest, geo.kh)
    channel = c1_i * c0 + lane
    valid = (m[:, None] < geo.m_total) & (channel[None, :] < geo.channels)
    x = src_bits[: geo.src_elems].reshape(geo.c1, geo.l1h, geo.l1w, c0)
    x = x.transpose(0, 3, 1, 2).reshape(geo.c1 * c0, geo.l1h, geo.l1w)  # NC1HWC0 -> CHW
    pad_bits = int(as_bits(np.array([pad_value(case.ctx.dtype, int(env["fmatrix.padValue"]))],
                                    dtype=case.ctx.dtype.numpy))[0])
    # the padded feature map (left, right, top, bottom) read at (h, w), without making it: a point in the padding
    # is padValue, another is x at (h - top, w - left)
    ho, wo = np.divmod(np.where(m < geo.m_total, m, 0), max(geo.wo, 1))
    h = ho[:, None] * geo.sh + kh_i[None, :] * geo.dh - geo.pads[2]
    w = wo[:, None] * geo.sw + kw_i[None, :] * geo.dw - geo.pads[0]
    image = valid & (h >= 0) & (h < geo.l1h) & (w >= 0) & (w < geo.l1w)
    ch = np.where(valid, channel[None, :], 0)
    read = x[ch, np.where(image, h, 0), np.where(image, w, 0)]
    return np.where(image, read, read.dtype.type(pad_bits)), valid


def window_equals_reference(case: Case, seed: int = 0) -> None:
    """Each repeat's stored window equals the padded feature map read at (ho*stride + kernel tap*dilation), element
    by element (bit patterns), with unspecified (poison) values exactly at rows past Ho*Wo and channels past
    sizeChannel; without fmatrix the whole window is poison; the output's elements outside every window are poison."""
    res = _run(case, seed)
    env = case.env
    out = output_of(case)
    if out.repeats == 0:
        return
    _, o_poison = stored_output(case, res)
    rr, cc = np.meshgrid(np.arange(out.rows), np.arange(out.cols), indexing="ij")
    assert o_poison[~out.window_coords(rr, cc)[3]].all(), "an element outside every window is not unspecified"
    m_starts, k_starts = repeat_starts(case)
    for r, (got, poison) in enumerate(stored_windows(case, res)):
        if not env["fmatrix.present"]:
            assert poison.all(), "without fmatrix the stored values must be unspecified"
            continue
        m = int(m_starts[r]) + np.arange(out.m_step)
        k = int(k_starts[r]) + np.arange(out.k_step)
        ref, valid = reference_window(case, as_bits(res.inputs["src"]), m, k)
        assert np.array_equal(poison, ~valid), \
            f"repeat {r}: poison is not exactly at rows past Ho*Wo and channels past sizeChannel"
        bad = np.argwhere(valid & (got != ref))
        assert not bad.size, (f"repeat {r}: window element {tuple(bad[0])} is {got[tuple(bad[0])]}, the feature map "
                              f"gives {ref[tuple(bad[0])]}")


def _single(case: Case) -> bool:
    """No repeat register: one window stored as a contiguous matrix."""
    return not case.env["repeat.present"]


def _split(case: Case, axis: str, at: int) -> tuple[Case, Case]:
    pos, step = ("mPos", "mStep") if axis == "m" else ("kPos", "kStep")
    p0, s0 = int(case.env[pos]), int(case.env[step])
    return case.with_fields(**{step: at}), case.with_fields(**{pos: p0 + at, step: s0 - at})


def window_split_concatenates(case: Case, seed: int = 0) -> None:
    """The window split in two along M or K (at a fractal boundary, each half a valid call) stores the two
    halves of the whole: values and unspecified elements alike (one window, no repeat register)."""
    if not case.env["fmatrix.present"] or not _single(case):
        return
    rng = np.random.default_rng(seed)
    for axis in ("m", "k")[:: 1 if rng.integers(2) else -1]:
        unit = FRACTAL_ROWS if axis == "m" else c0_of(case.ctx)
        length = int(case.env["mStep" if axis == "m" else "kStep"])
        if length <= unit:
            continue
        at = unit * int(rng.integers(1, -(-length // unit)))
        first, second = _split(case, axis, at)
        if not (_holds_output(check_case(first)) and _holds_output(check_case(second))):
            continue
        whole, poison = stored_window(case, _run(case, seed))
        parts = [stored_window(c, _run(c, seed)) for c in (first, second)]
        cat = np.concatenate([p[0] for p in parts], axis=0 if axis == "m" else 1)
        cat_poison = np.concatenate([p[1] for p in parts], axis=0 if axis == "m" else 1)
        assert np.array_equal(cat_poison, poison), f"split along {axis} at {at}: unspecified elements differ"
        assert np.array_equal(np.where(poison, 0, cat), np.where(poison, 0, whole)), \
            f"split along {axis} at {at}: the halves differ from the whole"
        return


def _holds_output(result: Any) -> bool:
    """Valid, and dst holds every fractal the call stores (no dst.size warning)."""
    return result.valid and not any(w.id.endswith(".dst.size") for w in result.warnings)


def transpose_transposes(case: Case, seed: int = 0) -> None:
    """With transpose an A2 destination holds the kStep x mStep transpose of the window, contiguous in 16 x C0
    fractals (every type); one window, no repeat register."""
    if case.tensor("dst").position != "A2" or not _single(case):
        return
    plain = case.with_fields(transpose=False)
    turned = case.with_fields(transpose=True)
    if not (_holds_output(check_case(plain)) and _holds_output(check_case(turned))):
        return  # the other output may not fit dst (a transposed 8- or 32-bit window can take twice the fractals)
    w, w_poison = stored_window(plain, _run(plain, seed))
    res = _run(turned, seed)
    e, c0 = case.ctx.dtype.size, c0_of(case.ctx)
    rows, cols = int(case.env["kStep"]), int(case.env["mStep"])
    dst = case.tensor("dst")
    t = matrix_from_dst(as_bits(res.tensors["dst"]), rows, cols, c0)
    state = res.memory.state[dst.buffer][dst.addr:dst.end].reshape(-1, e)
    t_poison = matrix_from_dst((state == POISON).all(axis=1), rows, cols, c0)
    assert np.array_equal(t_poison, w_poison.T), "transpose moved the unspecified elements elsewhere"
    assert np.array_equal(np.where(t_poison, 0, t), np.where(w_poison, 0, w).T), "transpose=true is not the transpose"


def b2_transpose_has_no_effect(case: Case, seed: int = 0) -> None:
    """With dst in B2 the call stores the same bytes (values and unspecified elements) whether transpose is set or
    not, and transpose=true draws only the warning transpose.no_effect besides the case's own."""
    if case.tensor("dst").position != "B2":
        return
    runs = [_run(case.with_fields(transpose=flag), seed) for flag in (False, True)]
    buf = case.tensor("dst").buffer
    assert np.array_equal(runs[0].memory.buffers[buf], runs[1].memory.buffers[buf]), "transpose changed B2's bytes"
    assert np.array_equal(runs[0].memory.state[buf], runs[1].memory.state[buf]), "transpose changed what is defined"
    on, off = (check_case(case.with_fields(transpose=flag)) for flag in (True, False))
    assert [v.id for v in on.violations] == [v.id for v in off.violations]
    extra = {w.id for w in on.warnings} - {w.id for w in off.warnings}
    assert extra == {f"{case.model.prefix}.transpose.no_effect"}, extra


def single_loads(case: Case) -> list[tuple[Case, int]] | None:
    """The calls without repeats that store what the repeats of ``case`` store, with their dst offsets in fractals:
    repeat r is the window moved r*repeatStride*16 rows (along M) or r*repeatStride*C0 columns (along K), one repeat,
    the same dstStride, dst moved to where its block of the assembled output starts: r*ceil16(mStep)/16 fractal rows
    (M, not transposed), r*ceil_C0(kStep)/C0 fractal columns (K, not transposed), r*ceil16(mStep)/C0 fractal columns
    (M, transposed) or r*ceil_C0(kStep)/16 fractal rows (K, transposed). None when a repeat's block does not start
    on a fractal boundary of the output (it shares fractals with the next: 8-bit M repeats of 16 rows transposed,
    32-bit K repeats of 8 columns transposed), when partial windows leave gaps between the blocks (whose fractals
    the repeated call stores as unspecified and the single loads do not store), or without repeats."""
    env, out = case.env, output_of(case)
    if out.repeats < 2:
        return None
    c0, s = out.c0, out.dst_stride
    if out.along_m:
        pitch, unit = out.m_pitch, (c0 if out.transposed else FRACTAL_ROWS)
    else:
        pitch, unit = out.k_pitch, (FRACTAL_ROWS if out.transposed else c0)
    if pitch % unit or pitch != (out.m_step if out.along_m else out.k_step):
        return None  # a block shared by two repeats, or gaps between the windows (repeat.partial)
    step = pitch // unit  # blocks of the output per repeat
    moves_columns = out.along_m == out.transposed  # M transposed / K plain: the repeats go along O's columns
    e = case.ctx.dtype.size
    loads = []
    for r in range(out.repeats):
        fields = {"repeat.present": True, "repeat.repeatTime": 1, "repeat.repeatMode": 0, "repeat.repeatStride": 0,
                  "repeat.dstStride": s}
        shift = r * int(env["repeat.repeatStride"])
        if out.along_m:
            fields["mPos"] = int(env["mPos"]) + shift * FRACTAL_ROWS
        else:
            fields["kPos"] = int(env["kPos"]) + shift * c0
        moved = r * step * (s if moves_columns else 1)
        fields["dst.addr"] = int(env["dst.addr"]) + moved * FRACTAL_BYTES
        fields["dst.size"] = max(int(env["dst.size"]) - moved * FRACTAL_BYTES // e, 0)
        loads.append((case.with_fields(**fields), moved))
    return loads


def repeats_equal_single_loads(case: Case, seed: int = 0) -> None:
    """repeatTime = n stores what n calls without repeats (`single_loads`) store, one after the other on the same
    memory: every byte of dst's buffer, and whether it is unspecified."""
    c = fresh(case)
    loads = single_loads(c)
    if loads is None:
        return
    memory, _ = prepare(c, seed=seed)
    other = memory.snapshot()
    case.model.execute(c, Trace(memory))
    for single, _ in loads:
        single.model.execute(single, Trace(other))
    buf = c.tensor("dst").buffer
    assert np.array_equal(memory.state[buf], other.state[buf]), "repeats and single loads differ in what they define"
    assert np.array_equal(memory.buffers[buf], other.buffers[buf]), "repeats and single loads store other values"


def no_repeats_write_nothing(case: Case, seed: int = 0) -> None:
    """With repeatTime = 0 the call reads and writes nothing, and check warns that it is a NOP."""
    nop = case.with_fields(**{"repeat.present": True, "repeat.repeatTime": 0})
    res = _run(nop, seed)
    for buf in res.memory.buffers:
        if res.memory.size(buf):
            assert not res.trace.stored(buf).any() and not res.trace.footprint("read", buf).any(), buf
    assert f"{case.model.prefix}.repeat.noop" in [w.id for w in check_case(nop).warnings]


def output_columns_disjoint(case: Case, seed: int = 0) -> None:
    """The fractal columns of an accepted call's output do not meet: the model's intervals are disjoint and the core
    sees no two fractals store to one byte."""
    res = _run(case, seed, strict=False)
    assert not res.faults, [str(f) for f in res.faults[:3]]
    spans = sorted((a, b) for _, a, b in case.model.footprint(case)["dst"])
    assert all(b1 <= a2 for (_, b1), (a2, _) in zip(spans, spans[1:])), f"output columns overlap: {spans[:4]}"
    assert not res.trace.write_overlap(case.tensor("dst").buffer), "two fractals stored to the same bytes"


def memory_rules_match_core(case: Case, seed: int = 0) -> None:
    """The core reads only inside src and stores only inside dst on a valid case. Variants that break exactly one
    memory rule draw the core's matching complaint: dst off its 512-byte alignment (a misaligned store), dst one
    fractal short (a store past dst's end), dstStride one below the output's fractal rows with two fractal columns or
    more (two fractals store to the same bytes: overlap)."""
    p, e = case.model.prefix, case.ctx.dtype.size
    dst = case.tensor("dst")
    out = output_of(case)
    variants = []
    if out.repeats:
        if dst.end + 32 <= case.ctx.product.buffer_size(dst.buffer):
            variants.append((f"{p}.dst.align", case.with_fields(**{"dst.addr": dst.addr + 32}), "misaligned"))
        short = out.extent * FRACTAL_BYTES // e - FRACTAL_BYTES // e
        if short >= 0:
            variants.append((f"{p}.dst.size", case.with_fields(**{"dst.size": short}), "escape"))
        if out.col_blocks >= 2 and out.row_blocks >= 1:
            fields = {"repeat.dstStride": out.row_blocks - 1}
            if not case.env["repeat.present"]:
                fields.update({"repeat.present": True, "repeat.repeatTime": 1, "repeat.repeatMode": 0,
                               "repeat.repeatStride": 0})
            variants.append((f"{p}.dstStride.overlap", case.with_fields(**fields), "overlap"))
    core_agrees(case, seed, variants)


def core_agrees(case: Case, seed: int, variants: list[tuple[str, Case, str]]) -> None:
    """The valid ``case`` runs without a fault, reading only inside src and storing only inside dst; each variant
    (rule id, case, expected) breaks exactly that rule and draws the expected complaint from the core: a fault
    kind, or "escape" (no fault, a store past dst's end)."""
    res = _run(case, seed, strict=False)
    assert not res.faults, f"valid case faulted: {[str(f) for f in res.faults[:3]]}"
    dst, src = case.tensor("dst"), case.tensor("src")
    stored = np.flatnonzero(res.trace.stored(dst.buffer))
    assert stored.size == 0 or (stored.min() >= dst.addr and stored.max() < dst.end), "stored outside dst"
    read = np.flatnonzero(res.trace.footprint("read", src.buffer))
    assert read.size == 0 or (read.min() >= src.addr and read.max() < src.end), "read outside src"
    for rule_id, variant, expect in variants:
        verdict = check_case(variant)
        ids = [v.id for v in verdict.violations] or [w.id for w in verdict.warnings if w.id == rule_id]
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
                            b2_transpose_has_no_effect, repeats_equal_single_loads, no_repeats_write_nothing,
                            output_columns_disjoint, memory_rules_match_core)
