"""SetLoadDataRepeat: the repeat (count, stride, direction) of the next LoadData3DParamsV2 load (the vendor's
SetLoadDataRepeat page; dav_c220 / dav_m300 / dav_3510 SetLoadDataRepeatCal).

Not SetLoadDataRepeatWithStride (atlas-350's register setter, `set_load_data_repeat`): this call takes
LoadDataRepeatParam {repeatStride, repeatTime, repeatMode} on atlas-350, the A2 / A3 family and the 200I/500 A2.
On the A2 family it writes the load's repeat register (set_l3d_rpt); on atlas-350 the implementation keeps the
three fields in software (g_rptConfig) and the LoadData3DParamsV2 overload writes the register itself, adding
dstStride = ceil((enTranspose ? kExtension : mExtension) / 16) (`Load3DBitMode.with_state`). It has no tensors; in a
program it records its fields in the state (``STATE_KEY``).
"""

from __future__ import annotations

from typing import Any, Mapping

from ..cases.case import Case
from ..core.memory import Memory, Trace
from ..spec.logic import Not
from ..spec.model import ApiModel, SpecNote
from ..spec.params import UINT8, UINT16, Arg
from ..spec.registry import register
from ..spec.rules import ERROR, WARNING, field_range, rule
from .set_load_data_repeat import NOTES as NOTES_WITH_STRIDE, SEED as SEED_WITH_STRIDE

PAGE = "SetLoadDataRepeat (asc-devkit docs)"
T2 = f"{PAGE}, Table 2 LoadDataRepeatParam"
STRUCT = "asc-devkit include/basic_api/kernel_struct_mm.h (LoadDataRepeatParam)"
INTF = "asc-devkit impl/basic_api/kernel_operator_mm_intf_impl.h (SetLoadDataRepeat: repeatMode in [0, 1])"
IMPL_3510 = ("asc-devkit impl/basic_api/dav_3510/kernel_operator_mm_impl.h (SetLoadDataRepeatCal, "
             "SetLoadDataRepeatStride)")
IMPL_C220 = "asc-devkit impl/basic_api/dav_c220/kernel_operator_mm_impl.h (SetLoadDataRepeatCal)"
PRODUCTS_NOTE = "HARDWARE_NOTES.md Products"


def _same(name: str) -> str:
    """The same member of SetLoadDataRepeatWithStride's struct (page 003), which shares its meaning and type."""
    return f"{SEED_WITH_STRIDE} 表2 LoadDataRepeatParamWithStride, {name} (the same member)"


#: The state a program keeps of the call: its three fields (the repeat register on the A2 family, the software copy
#: g_rptConfig on atlas-350, which the LoadData3DParamsV2 overload turns into the register)
STATE_KEY = "load_data_repeat_param"
FIELDS = ("repeatStride", "repeatTime", "repeatMode")
#: Where the page supports the call (atlas-350 = Ascend 950PR/950DT)
PRODUCTS = ("atlas-350", "atlas-a3", "atlas-a2", "atlas-200i-500-a2")


def pack(fields: Mapping[str, int]) -> int:
    """The 64-bit value the call composes: repeatStride bits 0-15, repeatTime 16-23, repeatMode bit 24."""
    return (int(fields["repeatStride"]) & 0xFFFF) | (int(fields["repeatTime"]) & 0xFF) << 16 | \
        (int(fields["repeatMode"]) & 0x1) << 24


def v2_dst_stride(m_extension: int, k_extension: int, transpose: bool) -> int:
    """The dstStride the LoadData3DParamsV2 overload adds on atlas-350: ceil(kExtension / 16) with enTranspose,
    ceil(mExtension / 16) without (dav_3510 SetLoadDataRepeatStride)."""
    return -(-(k_extension if transpose else m_extension) // 16)


@register
class SetLoadDataRepeat(ApiModel):
    name = "SetLoadDataRepeat"
    aliases = ("set_load_data_repeat", "asc.language.basic.set_load_data_repeat")
    prefix = "set_load_data_repeat_v2"
    seed = PAGE
    summary = "set the repeat (count, stride, direction) of the next LoadData3DParamsV2 load"
    support = {pid: ("uint64",) for pid in PRODUCTS}
    support_source = (f"{PAGE}, Product support (not the inference AI Core or Vector Core, not Atlas training); "
                      f"{PRODUCTS_NOTE}")
    default_dtype = "uint64"
    typed = False  # as SetLoadDataRepeatWithStride: the prototype has no template type
    ignored_args = ("dstStride",)  # no member of the vendor's struct: an error or a no-effect warning, never used
    args = (
        Arg("repeatStride", UINT16, f"{T2}, repeatStride; {_same('repeatStride')}",
            "distance between repeats' starts (16 elements along height; 32/sizeof(T) elements along width, "
            "64/sizeof(T) on the 200I/500 A2)", default=0),
        Arg("repeatTime", UINT8, f"{T2}, repeatTime; {_same('repeatTime')}",
            "number of repeats (0: the load is a no-op)", default=1),
        Arg("repeatMode", UINT8, f"{T2}, repeatMode; {_same('repeatMode')}",
            "0: repeat along height; 1: along width", default=0),
        Arg("dstStride", UINT16, f"{T2}, dstStride; {PAGE}, dstStride support; {NOTES_WITH_STRIDE}",
            "the page's K-axis output offset (Ascend 950 only, by the page); the vendor's LoadDataRepeatParam has no "
            "such member on the modelled products (spec note set_load_data_repeat_v2.dstStride)", optional=True),
    )
    #: pyasc's LoadDataRepeatParam members (python/asc/language/core/types.py: repeat_time, repeat_stride, repeat_mode)
    arg_spellings = {"pyasc": {"repeatStride": "repeat_stride", "repeatTime": "repeat_time",
                               "repeatMode": "repeat_mode"}}
    notes = (
        SpecNote("set_load_data_repeat_v2.dstStride", "dstStride",
                 "dstStride may be left out on every product. Given on the A2 / A3 family or the 200I/500 A2 it is an "
                 "error (dstStride.unsupported); given on atlas-350 a warning that it has no effect "
                 "(dstStride.no_effect): the LoadData3DParamsV2 load there writes dstStride = ceil((enTranspose ? "
                 "kExtension : mExtension) / 16) itself.",
                 "The page says 'not supported' on A2, A3 and 200I/500 A2, and on Ascend 950 that the parameter is "
                 "new and must be set. The vendor's struct has dstStride only for the Turing architectures (3102, "
                 "5102); on 3510 its fourth byte is 'reserved' (a call setting dstStride does not compile), and "
                 "dav_3510's SetLoadDataRepeatCal keeps the three fields in g_rptConfig, to which "
                 "SetLoadDataRepeatStride, run by every LoadData3DParamsV2 overload, adds the computed dstStride "
                 "before it writes the register. The vendor's own 950 test (test_operator_loaddata_bitmode.cpp) and "
                 "compatibility example (set_loaddata_boundary.asc) call SetLoadDataRepeat({0, 1, 0}).",
                 (f"{PAGE}, dstStride support", f"{PAGE}, Restrictions", STRUCT, IMPL_3510),
                 ("set_load_data_repeat_v2.dstStride.unsupported", "set_load_data_repeat_v2.dstStride.no_effect")),
        SpecNote("set_load_data_repeat_v2.program", "What a later load reads",
                 "In a program the call records its three fields. On atlas-350 a later Load3DBitMode given as "
                 "LoadData3DParamsV2 (defaultConfig given: its members or pyasc's keywords) loads with them and "
                 "dstStride = ceil((transpose ? kExtension : mExtension) / 16), and leaves that value in the repeat "
                 "register, which a later bit-mode load or LoadDataWithStride reads; this call itself leaves the "
                 "register alone there, so a bit-mode load right after it reads what SetLoadDataRepeatWithStride "
                 "set. On the A2 family the call writes the register, but the load is not modelled there "
                 "(Load3DBitMode.product.modelled): nothing reads the fields.",
                 "dav_3510 SetLoadDataRepeatCal stores the fields in Internal::g_rptConfig without set_l3d_rpt; "
                 "SetLoadDataRepeatStride(loadDataParams) ORs in dstStride and calls set_l3d_rpt before "
                 "img2colv2_cbuf_to_ca / _cb. dav_c220 / dav_m300 write set_l3d_rpt directly. The page: 'sets the "
                 "repeat parameters of LoadData (v2)'.",
                 (f"{PAGE}, Function", IMPL_3510, IMPL_C220)),
        SpecNote("set_load_data_repeat_v2.stride-unit", "repeatStride's unit",
                 "Not checked here: the unit (16 elements along height; 32/sizeof(T) along width, 64/sizeof(T) on the "
                 "200I/500 A2) is the load's, which reads the fields on atlas-350 in 32-byte units along width "
                 "(load3d.repeat).",
                 "The page's Restrictions say 32/sizeof(T) elements along width, then 64/sizeof(T) for the 200I/500 "
                 "A2 in its per-product list; the load on that product is not modelled.",
                 (f"{PAGE}, Restrictions",)),
    )

    def api_rules(self):
        p = self.prefix
        yield field_range(f"{p}.repeatMode.range", "repeatMode", 0, 1,
                          f"{T2}, repeatMode ([0, 1]); {_same('repeatMode')}; {INTF}")
        # repeatTime [0, 255] and repeatStride [0, 65535] are their uint8 / uint16 types (the type rules check them)
        yield rule(f"{p}.repeatTime.noop", ("repeatTime",), lambda v, ctx: v.repeatTime != 0,
                   "repeatTime=0: the next LoadData (v2) moves nothing (a no-op)",
                   f"{PAGE}, Restrictions; {SEED_WITH_STRIDE} 约束说明 (the same NOP)",
                   severity=WARNING, help="repeatTime = 0 makes the next LoadData a no-op", noop=True)
        absent = lambda v, ctx: Not(v["dstStride.present"])  # noqa: E731
        yield rule(f"{p}.dstStride.unsupported", ("dstStride", "product"), absent,
                   "dstStride={dstStride}: {product} does not support dstStride (LoadDataRepeatParam has no such "
                   "member there)",
                   f"{PAGE}, dstStride support (A2, A3, 200I/500 A2: not supported); {STRUCT}; {PRODUCTS_NOTE}",
                   severity=ERROR, products=("atlas-a3", "atlas-a2", "atlas-200i-500-a2"),
                   notes=("set_load_data_repeat_v2.dstStride",), help="no dstStride on this product")
        yield rule(f"{p}.dstStride.no_effect", ("dstStride", "product"), absent,
                   "dstStride={dstStride} has no effect: the LoadData3DParamsV2 load sets dstStride itself "
                   "(ceil((enTranspose ? kExtension : mExtension) / 16))",
                   f"{PAGE}, dstStride support (Ascend 950); {IMPL_3510}; {STRUCT}; {PRODUCTS_NOTE}",
                   severity=WARNING,
                   products=("atlas-350",), notes=("set_load_data_repeat_v2.dstStride",),
                   help="leave dstStride out (the load computes it)")

    def construct_args(self, draw: Any, ctx: Any, env: dict[str, Any]) -> None:
        """Valid cases leave dstStride out (no product takes it: spec note set_load_data_repeat_v2.dstStride)."""
        env["dstStride.present"] = False
        env["dstStride"] = 0

    def footprint(self, case: Case) -> Mapping[str, list[tuple[str, int, int]]]:
        return {}

    def execute(self, case: Case, trace: Trace) -> None:
        fields = {f: int(case.env[f]) for f in FIELDS}
        trace.memory.special[STATE_KEY] = {**fields, "value": pack(fields)}

    def apply_state(self, case: Case, state: dict[str, Any]) -> None:
        state[STATE_KEY] = {f: int(case.env[f]) for f in FIELDS}


def value_packs_the_fields(case: Case, seed: int = 0) -> None:
    """The value the call composes decodes back to its three fields (the vendor's shifts: 0, 16, 24)."""
    memory = Memory.for_product(case.ctx.product)
    case.model.execute(case, Trace(memory))
    value = memory.special[STATE_KEY]["value"]
    decoded = {"repeatStride": value % 2**16, "repeatTime": (value // 2**16) % 2**8, "repeatMode": (value // 2**24) % 2}
    assert decoded == {f: int(case.env[f]) for f in FIELDS}, decoded
    assert value // 2**25 == 0, "bits above repeatMode are set"


SetLoadDataRepeat.invariants = (value_packs_the_fields,)
