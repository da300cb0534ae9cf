"""LoadDataWithStride: the img2col load of Load3DBitMode with the repeat register it must be given
(page 003_6cb328d34acb8cee.txt + HARDWARE_NOTES.md SetLoadDataRepeatWithStride + the vendor's LoadDataWithStride
documentation and code).

``LoadDataWithStride(dst, src, LoadData3DParamsV2)`` (page 003's example) issues the instruction of Load3DBitMode
(same arguments, same rules, same core: `ascverify.models.load3d`): the window, repeatTime times along M or K,
assembled into one matrix and stored (transposed into B2, or into A2 with transpose) in 16 x C0 fractals whose
columns lie dstStride fractals apart. The repeat parameters are those the last SetLoadDataRepeatWithStride set
(an ordering rule); a single case may give them as ``repeat`` (spec notes load_data_with_stride.*, load3d.output,
load3d.repeat). Its own: the CPU checks of the vendor's implementation (multiples without exception), the ordering
rule, and the data types of its documentation.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Iterator, Mapping

from ..spec.logic import And, Not
from ..spec.model import SpecNote
from ..cases.case import Case
from ..spec.params import BOOL, Arg, StructArg, TensorDecl
from ..spec.registry import register
from ..spec.rules import WARNING, Context, field_multiple, order_rule, rule
from .codec import SEED as SEED_LOAD3D
from .img2col import FRACTAL_ROWS
from .load3d import (DOC_L3D, DOC_LDWS, EX_LDWS, HELD_BY_CONSTRUCTION, IMPL_BASE, _CODE, Load3DBitMode,
                     b2_transpose_has_no_effect, c0_of, construct_call, fmatrix_reset_rule, inherited_notes,
                     memory_rules_match_core, no_repeats_write_nothing, normalize_args, other_argument_forms,
                     output_columns_disjoint, page_form, repeats_equal_single_loads, single_loads,
                     transpose_transposes, v2_nop_rule, window_equals_reference)
from .set_load_data_repeat import STATE_KEY as REPEAT_STATE

SEED = "003_6cb328d34acb8cee.txt"
NOTES = "HARDWARE_NOTES.md SetLoadDataRepeatWithStride"
T2 = f"{SEED} 表2 LoadDataRepeatParamWithStride"
CONSTRAINTS = f"{SEED} 约束说明"
#: the rules of Load3DBitMode this API replaces by its own (ids without the prefix): the multiples (its CPU checks
#: have no exception), and the warning about partial repeats (its multiples refuse partial windows)
REPLACED = ("kPos.multiple", "kStep.multiple", "mPos.multiple", "mStep.multiple", "mPos.multiple_unnamed",
            "repeat.partial")
#: the spec notes of Load3DBitMode that hold here as they stand (the img2col core, the arguments, the feature map,
#: the output, the repeat register)
INHERITED_NOTES = ("load3d.namings", "load3d.omitted", "load3d.bit-widths", "load3d.sizeChannel", "load3d.mPos-range",
                   "load3d.transpose", "load3d.no-fmatrix", "load3d.fmatrix", "load3d.program-fmatrix",
                   "load3d.k-order", "load3d.m-order", "load3d.output", "load3d.dst-size", "load3d.overlap", "load3d.kernel",
                   "load3d.padValue", "load3d.path", "load3d.pyasc", "load3d.types")
#: Load3DBitMode's notes this API words for itself (its ordering rule), by the id the inherited rules cite
OWN_NOTES = {"load3d.repeat": "load_data_with_stride.repeat", "load3d.nop": "load_data_with_stride.nop",
             "load3d.zero-nop-350": "load_data_with_stride.zero-nop"}
B8 = ("uint8", "int8", "fp8_e4m3fn", "fp8_e5m2", "hifloat8")

# re-exported for the tests and for callers of the previous module layout
__all__ = ["LoadDataWithStride", "single_loads", "repeats_equal_single_loads", "memory_rules_match_core"]


#: The template parameter ``defaultConfig`` (IsResetLoad3dConfig, default {true, true}): whether the call sets the
#: feature map (l1H, l1W, padList) and the padding value from its own LoadData3DParamsV2 before it loads.
CONFIG = StructArg(
    "defaultConfig",
    (Arg("isSetFMatrix", BOOL, f"{DOC_LDWS} (Table 1, defaultConfig)",
         "true (default): the call sets the feature map from its own l1H, l1W, padList; false: it reads SetFmatrix's",
         default=True),
     Arg("isSetPadding", BOOL, f"{DOC_LDWS} (Table 1, defaultConfig)",
         "true (default): the call sets the padding value from its own padValue; false: it reads the register's",
         default=True)),
    source=f"{DOC_LDWS} (Table 1, defaultConfig); {IMPL_BASE} (LoadDataWithStrideImpl)",
    doc="IsResetLoad3dConfig {isSetFMatrix, isSetPadding}, default {true, true}", optional=False)
#: Extra arguments of this call that every argument form passes through (`load3d.normalize_args`).
EXTRA = ("repeat", CONFIG.name)


def _b8_b2_ok(v: Any, ctx: Context) -> Any:
    return True if ctx.dtype.name not in B8 else Not(And(v.dst.present, v.dst.position == _CODE["B2"]))


@register
class LoadDataWithStride(Load3DBitMode):
    name = "LoadDataWithStride"
    aliases = ("load_data_with_stride",)
    prefix = "load_data_with_stride"
    seed = SEED
    summary = ("img2col with repeats: Load3DBitMode's window, repeatTime times along M (repeatMode 0) or K (1), "
               "assembled and stored in 16 x C0 fractals whose columns lie dstStride fractals apart")
    support = Load3DBitMode.support
    #: not Load3DBitMode's: page 003 documents LoadDataWithStride on Ascend 950 only (the V2 load of the A2 family
    #: is LoadData, spec note load3d.products-v2)
    unmodelled: dict[str, str] = {}
    sets_own_dst_stride = False  # it reads the register SetLoadDataRepeatWithStride set
    construction_constants: dict[str, Any] = {}  # its construction draws its own defaultConfig
    construction_holds = tuple(c for c in HELD_BY_CONSTRUCTION if not c.startswith("v2."))  # (no LoadData3DParamsV2)
    #: `ascverify lint`: every call takes LoadData3DParamsV2, so kExtension / mExtension = 0, the only values below
    #: the ranges' 1, are the page's NOP (v2.nop) and the ranges never fire: kept for what they say of the types
    lint_expected = {f"vacuous:load_data_with_stride.{n}.range": "load_data_with_stride.zero-nop"
                     for n in ("kStep", "mStep")}
    unmodelled_types: dict[str, tuple[str, ...]] = {}
    support_source = (f"{SEED} 产品支持情况 (Ascend 950PR/950DT = atlas-350, HARDWARE_NOTES.md Products); types: "
                      f"{SEED_LOAD3D} Table 1 (T), as Load3DBitMode")
    #: Load3DBitMode's, with this call's defaultConfig ({true, true} in every argument form)
    args = tuple(a for a in Load3DBitMode.args if a.name != CONFIG.name) + (CONFIG,)
    argument_forms = other_argument_forms(EXTRA)
    tensors = (
        TensorDecl("dst", "out", positions=("A2", "B2"),
                   source=f"{DOC_LDWS}, Restrictions (dst in L0A/L0B: 512-byte aligned); {DOC_LDWS}, Parameters, "
                          f"dst; {NOTES} (dst in L0A/L0B, 512-byte aligned); {SEED_LOAD3D} Table 2, dst",
                   doc="the output (the assembled windows, or their transpose) in 16 x C0 fractals, columns dstStride "
                       "fractals apart"),
        TensorDecl("src", "in", positions=("A1", "B1"), source=f"{DOC_LDWS}, Restrictions (src in L1: 32-byte aligned); "
                          f"{DOC_LDWS}, Parameters, src; {NOTES} (src in L1); {SEED_LOAD3D} Table 2, src",
                   doc="the feature map, NC1HWC0 (C1 x l1H x l1W x C0)"),
    )
    notes = (
        SpecNote("load_data_with_stride.inherits", "Load3DBitMode's arguments, rules and core",
                 "The call takes Load3DBitMode's arguments in its four forms (LoadData3DParamsV2 members as in page "
                 "003's example, page 002's field names, the packed config0/config1 words, pyasc's keywords) and its "
                 "fmatrix and repeat, with the same rules and readings (the load3d.* notes listed here) and the same "
                 "img2col core; rule ids start with load_data_with_stride. Its own: the multiples without exception, "
                 "the ordering rule, the data types of its documentation.",
                 "Page 003's example passes a LoadData3DParamsV2 to LoadDataWithStride, whose members 'have the same "
                 "meaning' as Load3DBitModeParam's fields (page 002 Tables 4-5); the vendor's LoadDataWithStride.md "
                 "says it does what LoadData (img2col) does, with dstStride; on atlas-350 both issue the same "
                 "instruction (dav_3510 kernel_operator_mm_impl.h).",
                 (f"{SEED} 调用示例", f"{SEED_LOAD3D} Tables 4-5", f"{DOC_LDWS} (description)", NOTES)),
        SpecNote("load_data_with_stride.products", "Products and types",
                 "atlas-350 only, with Load3DBitMode's ten types.",
                 "Page 003 supports SetLoadDataRepeatWithStride, without which the call cannot be made, on Ascend "
                 "950PR/950DT (= atlas-350) only; LoadData3DParamsV2<T> is the struct Load3DBitModeParam is built "
                 "from (page 002 Table 1 lists its T), and the vendor's LoadDataWithStride.md lists the same ten for "
                 "A1 -> A2 (for B1 -> B2 see load_data_with_stride.b8-b2).",
                 (f"{SEED} 产品支持情况", f"{SEED_LOAD3D} Table 1, T", f"{DOC_LDWS} (data types)"),
                 ("load_data_with_stride.product.support", "load_data_with_stride.dtype.support")),
        SpecNote("load_data_with_stride.multiples", "Multiples without exception",
                 "kStep (kExtension) and kPos (kStartPt) are multiples of C0 = 32 bytes / sizeof(T); mStep "
                 "(mExtension) and mPos (mStartPt) multiples of 16, for every type, whether or not the window covers "
                 "the matrix's last fractal (Load3DBitMode's 'covered' exception and its free 32-bit M axis do not "
                 "apply).",
                 "The vendor's LoadDataWithStrideImpl asserts kExtension*sizeof(T) % 32 == 0, mExtension % 16 == 0, "
                 "kStartPt*sizeof(T) % 32 == 0, mStartPt % 16 == 0 before it issues the instruction (HARDWARE_NOTES); "
                 "its documentation's table (mExtension free for b32 and when covering) is looser, and the shipping "
                 "code wins. The bit-mode LoadData (Load3DBitModeParam) has no such check. The LoadData3DParamsV2 "
                 "overload on 3510 asserts the same four in its debug build (kernel_operator_mm_base_impl.h); "
                 "Load3DBitMode follows the LoadData page's covering exception there (its rules "
                 "kStep/mStep.multiple), since HARDWARE_NOTES state the multiples for LoadDataWithStride only: a "
                 "known difference between the two calls' readings. Errors, not warnings (as load3d.v2.mPos.multiple "
                 "is for the LoadData call on atlas-a2/a3, whose page and notes give only a range): the hardware "
                 "notes state these four as this call's own checks, the implementation refuses the call in its "
                 "debug build, and every vendor example and test rounds mExtension up to 16 (CeilAlign(m, 16)) and "
                 "starts at multiples: no shipping call relies on the table's looser reading.",
                 (NOTES, f"{IMPL_BASE} (LoadDataWithStrideImpl)", f"{DOC_LDWS} (LoadData3DParamsV2 table)",
                  f"{IMPL_BASE} (LoadDataImpl for LoadData3DParamsV2, __NPU_ARCH__ 3510)"),
                 tuple(f"load_data_with_stride.{r}" for r in REPLACED[:4])),
        SpecNote("load_data_with_stride.repeat", "What a repeat moves and where it goes",
                 "As for Load3DBitMode (load3d.repeat): repeat r < repeatTime loads the window moved r*repeatStride*16 "
                 "rows (mPos + r*repeatStride*16; repeatMode 0, 'along height') or r*repeatStride*C0 columns (kPos + "
                 "r*repeatStride*C0, C0 = 32/sizeof(T); repeatMode 1, 'along width'); every repeat's window must lie "
                 "inside the matrix (the window-bound rules check the last one). The repeats' windows are assembled "
                 "into one matrix, along M or along K, and stored as one output (load3d.output).",
                 "Page 003 gives repeatStride's unit as 16 elements (mode 0) or 32/sizeof(T) elements (mode 1): "
                 "exactly one fractal's rows and one fractal's columns, the granularity of mPos and kPos; page 002 "
                 "calls M 'the height dimension of the destination operand' and K its 'width dimension'. Vendor "
                 "kernels assemble one matrix with the repeats (conv: one output row per repeat, dstStride = all M "
                 "fractals).",
                 (f"{T2}, repeatStride", f"{T2}, repeatMode", f"{SEED_LOAD3D} Table 4, kStep/mStep", f"{DOC_L3D} "
                  "(Repeat Mode)"),
                 ("load_data_with_stride.window.m_bounds", "load_data_with_stride.window.k_bounds")),
        SpecNote("load_data_with_stride.dstStride", "dstStride",
                 "dstStride is the fractal distance between the output's fractal columns (load3d.output); dst must "
                 "hold (CB-1)*dstStride + RB fractals, and dstStride below RB with two fractal columns or more is an "
                 "error (load3d.overlap).",
                 "Page 003: 'output matrix's offset along K, in 512-byte fractals'; its example sets dstStride = "
                 "CeilDivision(m, 16), the vendor's example and kernels the output's fractal rows (load3d.output).",
                 (f"{T2}, dstStride", f"{SEED} 调用示例", EX_LDWS, NOTES),
                 ("load_data_with_stride.dst.size", "load_data_with_stride.dstStride.overlap")),
        SpecNote("load_data_with_stride.nop", "repeatTime = 0",
                 "repeatTime = 0 moves nothing (the core reads and writes nothing) and draws the warning repeat.noop, "
                 "in a program at the load (from the repeat SetLoadDataRepeatWithStride set) as well as at the setter. "
                 "As for Load3DBitMode (load3d.nop), the rules about what the call reads and stores (window bounds, "
                 "src.footprint, dst.size, dst.output_bounds, dstStride.overlap) do not apply to it; the rules on "
                 "the parameters themselves, the vendor's CPU checks (multiples) and the ordering rule still do.",
                 "约束说明: 'repeatTime=0 means nothing is moved: the LoadDataWithStride call is treated as a NOP' "
                 "(translated): no byte is read or stored, so no hazard of one can arise. The parameters are still "
                 "the call's own to get right: LoadDataWithStrideImpl (kernel_operator_mm_base_impl.h) asserts "
                 "the multiples on the call's own parameters before it issues the instruction, whatever the "
                 "register holds.",
                 (CONSTRAINTS,), ("load_data_with_stride.repeat.noop", "load_data_with_stride.dst.size",
                                  "load_data_with_stride.dst.output_bounds", "load_data_with_stride.dstStride.overlap",
                                  "load_data_with_stride.src.footprint", "load_data_with_stride.window.m_bounds",
                                  "load_data_with_stride.window.k_bounds")),
        SpecNote("load_data_with_stride.single-case", "The repeat parameters in a single case",
                 "A single case may give repeat = {repeatStride, repeatTime, repeatMode, dstStride} (dstStride "
                 "required, the others default 0, 1, 0, as in SetLoadDataRepeatWithStride); without it the call is "
                 "checked and run as one window stored as a contiguous matrix (dstStride = the output's fractal rows, "
                 "the value the vendor's code and examples set). The ordering rule is then reported as not checked.",
                 "约束说明: without the repeat mode enabled 'repeatTime, repeatStride and repeatMode take their default-constructed values' (translated); "
                 "dstStride has no default that means anything (the struct's 0 would stack every fractal column on "
                 "the first). A case describes one call; what an earlier call set is an assumption it states, like "
                 "fmatrix.",
                 (CONSTRAINTS, NOTES, EX_LDWS), ("load_data_with_stride.order.load_data_repeat",)),
        SpecNote("load_data_with_stride.program", "In a program",
                 "The call needs an earlier SetLoadDataRepeatWithStride (error order.load_data_repeat at the call) and "
                 "is checked and run with the repeat parameters the last one set, also when it gives repeat itself "
                 "(warning repeat.differs when they differ: the hardware reads the register). The feature map comes "
                 "from the call itself by default, from the last SetFmatrix with defaultConfig.isSetFMatrix = false "
                 "(load_data_with_stride.default-config).",
                 "约束说明: '调用LoadDataWithStride接口时，必须配置本接口中的dstStride参数'; 功能说明: "
                 "SetLoadDataRepeatWithStride sets LoadDataWithStride's repeat parameters.",
                 (CONSTRAINTS, f"{SEED} 功能说明"),
                 ("load_data_with_stride.order.load_data_repeat", "load_data_with_stride.repeat.differs")),
        SpecNote("load_data_with_stride.default-config", "defaultConfig: whose feature map the call loads with",
                 "args.defaultConfig = {isSetFMatrix, isSetPadding} (IsResetLoad3dConfig, both true by default). "
                 "With isSetFMatrix the call sets the feature map from its own l1H, l1W, padList (fmatrix) and loads "
                 "with it: in a program a SetFmatrix before it is not read (no fmatrix.differs), and the call leaves "
                 "its feature map in the register for later loads; a call without a feature map of its own would "
                 "set l1H = l1W = 0 (a NOP, warning fmatrix.reset), after which the feature map is unknown (its "
                 "bounds not checked, `run` stores unspecified values). With isSetFMatrix = false the call loads "
                 "with the feature map the last SetFmatrix set (load3d.program-fmatrix); with isSetPadding its own "
                 "padValue (0 when it gives none) replaces the register's. A single case's fmatrix is the feature "
                 "map the call loads with either way.",
                 "The vendor's LoadDataWithStride page, Table 1: 'isSetFMatrix = true: the FeatureMap attributes "
                 "(l1H, l1W, padList) are set inside the interface; false: the ones passed to it have no effect, set "
                 "them with SetFmatrix', default {true, true}; Table 3: 'l1H = 0 means nothing is moved, the call is "
                 "treated as a NOP'. LoadDataWithStrideImpl calls Load3DSetFMatrixCal(l1H, l1W, padList) when "
                 "isSetFMatrix, Load3DSetPaddingCal(padValue) when isSetPadding. Every vendor call after a SetFmatrix "
                 "passes {false, false} (set_loaddata_boundary, the 950 loaddata tests); the others give their own "
                 "l1H, l1W, padList with the default.",
                 (f"{DOC_LDWS} (Table 1, defaultConfig)", f"{DOC_LDWS} (Table 3, l1H)",
                  f"{IMPL_BASE} (LoadDataWithStrideImpl)", NOTES),
                 ("load_data_with_stride.fmatrix.reset", "load_data_with_stride.fmatrix.differs",
                  "load_data_with_stride.fmatrix.unset")),
        SpecNote("load_data_with_stride.zero-nop", "Zero values the vendor's page calls a NOP",
                 "l1H, l1W, sizeChannel (channelSize), kStep (kExtension), mStep (mExtension) of 0, and Wk / Hk "
                 "(filterW / filterH) of 0 without filterSizeW / H, make the call the page's NOP: the warning v2.nop, "
                 "no byte read or stored (it still sets the feature map with defaultConfig.isSetFMatrix), as "
                 "Load3DBitMode's LoadData3DParamsV2 form (spec note load3d.zero-nop-350). A dilation of 0 and "
                 "strideW / strideH of 0 stay errors (Load3DBitMode's ranges from 1). kStep.range and mStep.range "
                 "thus never fire here (`ascverify lint`: vacuous, expected).",
                 "The vendor's LoadDataWithStride page (Table 3) gives l1H, l1W in [0, 32767], channelSize, "
                 "kExtension, mExtension in [0, 65535] and says 0 'is treated as a NOP', likewise filterW / filterH = 0 "
                 "with filterSizeW / H false; it gives dilationFilterW / H in [0, 255] and strideW / H in [0, 63] "
                 "without a NOP. Page 002 (the same instruction) gives [1, ...] for all of them, and the vendor's "
                 "implementation asserts strideW / strideH in [1, 63] (kernel_operator_mm_check.h). Every call of "
                 "this API takes LoadData3DParamsV2 (its defaultConfig, {true, true} unless given, is always there).",
                 (f"{DOC_LDWS} (Table 3)", f"{SEED_LOAD3D} Tables 4-5", "asc-devkit impl/basic_api/"
                  "kernel_operator_mm_check.h (strideW / strideH in [1, 63])"),
                 tuple(f"load_data_with_stride.{r}" for r in (
                     "fmatrix.l1H.range", "fmatrix.l1W.range", "sizeChannel.values", "kStep.range", "mStep.range",
                     "Wk.range", "Hk.range", "dilationW.range", "dilationH.range", "strideW.range",
                     "strideH.range", "v2.nop"))),
        SpecNote("load_data_with_stride.b8-b2", "8-bit types into B2",
                 "An 8-bit T (int8, uint8, fp8_e4m3fn, fp8_e5m2, hifloat8) with dst in B2 draws the warning "
                 "b8.b2, not an error.",
                 "The vendor's LoadDataWithStride.md data-type section lists for B1 -> B2 only half, bfloat16, int32, "
                 "uint32 and float; its own load_data_with_stride example loads int8 into B2 in scenarios 1 and 2 "
                 "(with goldens that need the data there), LoadData_3D.md lists every type for both paths on "
                 "Ascend 950, and the implementation accepts them. Vendor shipping code wins over the list; a kernel "
                 "outside the documented types is still worth a warning.",
                 (f"{DOC_LDWS} (data types)", EX_LDWS, f"{DOC_L3D} (data types)", f"{SEED_LOAD3D} Table 1, T"),
                 ("load_data_with_stride.b8.b2",)),
        *inherited_notes(INHERITED_NOTES, "load_data_with_stride"),
    )

    # -- rules ------------------------------------------------------------------------------------------------

    def api_rules(self):
        p = self.prefix
        replaced = {f"{p}.{name}" for name in REPLACED}
        for r in self.img2col_rules(p):
            if r.id not in replaced:
                yield replace(r, notes=tuple(OWN_NOTES.get(n, n) for n in r.notes))
        own = ("load_data_with_stride.multiples",)
        impl = f"{NOTES}; {IMPL_BASE} (LoadDataWithStrideImpl)"
        page = f"{DOC_LDWS} (Table 3, LoadData3DParamsV2"
        looser = ("; its documentation's table makes no such demand of a window covering the {edge} fractal: spec "
                  "note load_data_with_stride.multiples")
        yield field_multiple(f"{p}.kPos.multiple", "kPos", c0_of, f"{page}: kStartPt); {impl} (kStartPt*sizeof(T) % 32 == 0)",
                             message="kPos={value} (kStartPt) is not a multiple of {step}: kStartPt*sizeof(T) must be "
                                     "a multiple of 32 bytes", notes=own)
        yield field_multiple(f"{p}.kStep.multiple", "kStep", c0_of,
                             f"{impl} (kExtension*sizeof(T) % 32 == 0); {page}: kExtension)",
                             message="kStep={value} (kExtension) is not a multiple of {step}: LoadDataWithStride's "
                                     "implementation asserts kExtension*sizeof(T) % 32 == 0"
                                     + looser.format(edge="rightmost"), notes=own)
        yield field_multiple(f"{p}.mPos.multiple", "mPos", FRACTAL_ROWS,
                             f"{impl} (mStartPt % 16 == 0); {page}: mStartPt, range only)",
                             message="mPos={value} (mStartPt) is not a multiple of 16: LoadDataWithStride's "
                                     "implementation asserts mStartPt % 16 == 0 (its documentation gives only the "
                                     "range [0, 32767]: spec note load_data_with_stride.multiples)", notes=own)
        yield field_multiple(f"{p}.mStep.multiple", "mStep", FRACTAL_ROWS,
                             f"{impl} (mExtension % 16 == 0); {page}: mExtension)",
                             message="mStep={value} (mExtension) is not a multiple of 16: LoadDataWithStride's "
                                     "implementation asserts mExtension % 16 == 0" + looser.format(edge="bottom"),
                             notes=own)
        yield rule(f"{p}.b8.b2", ("dst", "dtype"), _b8_b2_ok,
                   "T={dtype} with dst in B2: the documented B1 -> B2 types are half, bfloat16, int32, uint32, float",
                   f"{DOC_LDWS} (data types); {SEED_LOAD3D} Table 1, T", severity=WARNING,
                   notes=("load_data_with_stride.b8-b2",), help="dst in B2 with a 16- or 32-bit T")
        yield v2_nop_rule(p, ("atlas-350",), ("load_data_with_stride.zero-nop",))
        yield fmatrix_reset_rule(p, f"{DOC_LDWS} (Table 1, defaultConfig; Table 3, l1H: 'l1H = 0 ... treated as a "
                                 f"NOP'); {IMPL_BASE} (LoadDataWithStrideImpl); {NOTES}",
                                 "load_data_with_stride.default-config")
        yield order_rule(f"{p}.order.load_data_repeat", REPEAT_STATE,
                         "no SetLoadDataRepeatWithStride before the call: LoadDataWithStride needs the dstStride it sets",
                         f"{CONSTRAINTS} (调用LoadDataWithStride接口时，必须配置本接口中的dstStride参数); {NOTES}",
                         params=("repeat",), notes=("load_data_with_stride.single-case", "load_data_with_stride.program"))

    # -- the arguments' forms and the feature map (spec note load_data_with_stride.default-config) -----------------

    def normalize_args(self, args: Mapping[str, Any]) -> Mapping[str, Any]:
        """Load3DBitMode's forms; defaultConfig, when not given, its default {true, true} (every call of this API
        is the LoadData3DParamsV2 form: ``defaultConfig.present``, which the LoadData page's zero NOPs go by)."""
        out = normalize_args(args, self.name, extra=EXTRA)
        return out if CONFIG.name in out else {**out, CONFIG.name: {}}

    def keeps_layout(self, arg_keys: tuple[str, ...], tensor_keys: tuple[str, ...]) -> bool:
        return CONFIG.name in arg_keys and page_form(arg_keys, EXTRA)

    # -- construction -------------------------------------------------------------------------------------------

    def construct_args(self, draw: Any, ctx: Context, env: dict[str, Any]) -> None:
        """Load3DBitMode's construction with whole fractals (this call's multiples), a repeat register three times
        in four."""
        construct_call(draw, ctx, env, whole_fractals=True, repeat_quarters=3)


LoadDataWithStride.invariants = (window_equals_reference, transpose_transposes, b2_transpose_has_no_effect,
                                 repeats_equal_single_loads, no_repeats_write_nothing, output_columns_disjoint,
                                 memory_rules_match_core)
