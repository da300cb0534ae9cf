"""SetLoadDataRepeatWithStride (page 003_6cb328d34acb8cee.txt + HARDWARE_NOTES.md SetLoadDataRepeatWithStride).

Sets the repeat parameters that the next LoadDataWithStride uses. It has no tensors; in a program
it records its parameters in the state (and the core's special register), which LoadDataWithStride
requires and reads.
"""

from __future__ import annotations

from typing import Any, Mapping

from ..cases.case import Case
from ..core.memory import Memory, Trace
from ..spec.model import ApiModel, SpecNote
from ..spec.params import UINT8, UINT16, Arg
from ..spec.registry import register
from ..spec.rules import WARNING, field_range, rule

SEED = "003_6cb328d34acb8cee.txt"
NOTES = "HARDWARE_NOTES.md SetLoadDataRepeatWithStride"
STATE_KEY = "load_data_repeat"
FIELDS = ("repeatStride", "repeatTime", "repeatMode", "dstStride")


def _t2(name: str) -> str:
    return f"{SEED} 表2 LoadDataRepeatParamWithStride, {name}"


def pack(fields: Mapping[str, int]) -> int:
    """The 64-bit register value: repeatStride bits 0-15, repeatTime 16-23, repeatMode bit 24, dstStride 32-47."""
    return (int(fields["repeatStride"]) & 0xFFFF) | (int(fields["repeatTime"]) & 0xFF) << 16 | \
        (int(fields["repeatMode"]) & 0x1) << 24 | (int(fields["dstStride"]) & 0xFFFF) << 32


@register
class SetLoadDataRepeatWithStride(ApiModel):
    name = "SetLoadDataRepeatWithStride"
    prefix = "set_load_data_repeat"
    seed = SEED
    summary = "set the repeat (count, stride, direction) and the K-axis dst stride of the next LoadDataWithStride"
    support = {"atlas-350": ("uint64",)}
    support_source = f"{SEED} 产品支持情况 (Ascend 950PR/950DT = Atlas 350, HARDWARE_NOTES.md Products)"
    default_dtype = "uint64"
    typed = False  # spec note set_load_data_repeat.no-type
    args = (
        Arg("repeatStride", UINT16, _t2("repeatStride"), "distance between repeats' starts (16 elements, or "
            "32/sizeof(T) elements with repeatMode 1)", default=0),
        Arg("repeatTime", UINT8, _t2("repeatTime"), "number of repeats (0: the load is a no-op)", default=1),
        Arg("repeatMode", UINT8, _t2("repeatMode"), "0: repeat along height; 1: along width", default=0),
        Arg("dstStride", UINT16, f"{_t2('dstStride')}; {NOTES}", "K-axis offset of the output, in 512-byte fractals: "
            "the distance between the output's fractal columns (spec note load3d.output)"),
    )
    notes = (
        SpecNote("set_load_data_repeat.no-type", "No element type",
                 "The call has no template type; cases use the register's type uint64 as T (the default). A case "
                 "that gives another T (the kernel's) draws a warning that it is ignored, not an error.",
                 "The engine evaluates every rule in a context with an element type; the page's struct has none.",
                 (f"{SEED} 函数原型",), ("set_load_data_repeat.dtype.support",)),
        SpecNote("set_load_data_repeat.dstStride-required", "dstStride must be configured",
                 "dstStride is a required argument (a case without it cannot be read); the others take the struct's "
                 "defaults (repeatStride 0, repeatTime 1, repeatMode 0).",
                 "约束说明: 'when LoadDataWithStride is called, this call's dstStride must be configured; without the "
                 "repeat mode enabled, repeatTime, repeatStride and repeatMode take their default-constructed values' "
                 "(translated).",
                 (f"{SEED} 约束说明", NOTES)),
        SpecNote("set_load_data_repeat.dstStride-range", "dstStride's range",
                 "dstStride in [0, 65535] (uint16).",
                 "The page gives no range; HARDWARE_NOTES give the struct's field as uint16 (register bits 32-47).",
                 (_t2("dstStride"), NOTES)),
        SpecNote("set_load_data_repeat.pyasc", "pyasc's set_load_data_repeat",
                 "pyasc's set_load_data_repeat is not accepted as a name of this call: it names SetLoadDataRepeat, "
                 "modelled on its own (spec note set_load_data_repeat_v2.program).",
                 "pyasc python/asc/language/basic/mm.py: set_load_data_repeat(param: LoadDataRepeatParam) emits "
                 "SetLoadDataRepeat (include/ascir/Dialect/Asc/IR/Basic/OpMm.td), whose LoadDataRepeatParam "
                 "(python/asc/language/core/types.py: repeat_time, repeat_stride, repeat_mode) has no dstStride: "
                 "another API, which on atlas-350 feeds the LoadData3DParamsV2 overload (dav_3510 "
                 "SetLoadDataRepeatCal keeps it in software; SetLoadDataRepeatStride adds dstStride), not this "
                 "register. pyasc has no set_load_data_repeat_with_stride.",
                 ("pyasc python/asc/language/basic/mm.py", "pyasc python/asc/language/core/types.py",
                  "asc-devkit impl/basic_api/dav_3510/kernel_operator_mm_impl.h (SetLoadDataRepeatCal)",
                  f"{SEED} 函数原型")),
        SpecNote("set_load_data_repeat.register", "Register packing",
                 "repeatStride bits 0-15, repeatTime 16-23, repeatMode bit 24, dstStride bits 32-47 of one 64-bit "
                 "special register, shown by `ascverify run` as special_registers.load_data_repeat.register.",
                 "The page does not say; HARDWARE_NOTES give the packing from the vendor's code.",
                 (NOTES,)),
    )

    def api_rules(self):
        p = self.prefix
        yield field_range(f"{p}.repeatMode.range", "repeatMode", 0, 1, _t2("repeatMode"))
        # repeatTime [0, 255] and repeatStride [0, 65535] are their uint8 / uint16 types: the type rules
        # (set_load_data_repeat.repeatTime.type, .repeatStride.type, same source) check them (`ascverify lint`: vacuous)
        yield rule(f"{p}.repeatTime.noop", ("repeatTime",), lambda v, ctx: v.repeatTime != 0,
                   "repeatTime=0: the next LoadDataWithStride moves nothing (a no-op)", f"{SEED} 约束说明",
                   severity=WARNING, help="repeatTime = 0 makes the next LoadDataWithStride a no-op", noop=True)

    def footprint(self, case: Case) -> Mapping[str, list[tuple[str, int, int]]]:
        return {}

    def execute(self, case: Case, trace) -> None:
        fields = {f: int(case.env[f]) for f in FIELDS}
        trace.memory.special[STATE_KEY] = {**fields, "register": pack(fields)}

    def apply_state(self, case: Case, state: dict[str, Any]) -> None:
        state[STATE_KEY] = {f: int(case.env[f]) for f in FIELDS}


def register_packs_the_fields(case: Case, seed: int = 0) -> None:
    """The special register decodes back to the four fields (bit positions of HARDWARE_NOTES)."""
    memory = Memory.for_product(case.ctx.product)
    case.model.execute(case, Trace(memory))
    reg = memory.special[STATE_KEY]["register"]
    assert 0 <= reg < 2**64
    decoded = {"repeatStride": reg % 2**16, "repeatTime": (reg // 2**16) % 2**8, "repeatMode": (reg // 2**24) % 2,
               "dstStride": (reg // 2**32) % 2**16}
    assert decoded == {f: int(case.env[f]) for f in FIELDS}, decoded
    assert reg // 2**48 == 0 and (reg // 2**25) % 2**7 == 0, "bits outside the fields are set"


SetLoadDataRepeatWithStride.invariants = (register_packs_the_fields,)
