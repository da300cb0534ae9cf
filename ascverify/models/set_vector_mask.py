"""SetVectorMask (pyasc `set_vector_mask`): sets the mask that vector ops with isSetMask=false use.

No seed page documents SetVectorMask itself; page 004 (is_set_mask) names it as the way to set the
mask outside an op, HARDWARE_NOTES (Masks) give the mask's encoding, and the vendor's own SetVectorMask page
(asc-devkit docs) its products, its ranges (contiguous 0 included) and mask = 0 as a no-op. Its rules are the mask
rules of the pages; in a program its mask becomes the effective mask of later masked calls.
"""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from ..cases.case import Case
from ..core.memory import Memory, Trace
from ..spec.model import ApiModel, SpecNote
from ..spec.params import MaskArg
from ..spec.products import PRODUCT_IDS
from ..spec.registry import register
from ..spec.rules import WARNING
from .vector_common import NOTES_MASKS, VECTOR_MASK_STATE as STATE_KEY, lane_mask, mask_rules

PAGE = "004_2ad9555534615f32.txt 参数说明 is_set_mask"
#: The vendor's page of SetVectorMask itself (asc-devkit ``docs/api/SIMD-API/基础API/Memory矢量计算/掩码操作/
#: SetVectorMask.md``, read at commit 93c993b).
VENDOR_PAGE = "SetVectorMask (asc-devkit docs)"
TYPES = ("half", "float", "int16", "uint16", "int32", "uint32")
#: Products whose SetVectorMask page says 不支持 (not supported): the inference series' Vector Core.
UNSUPPORTED = ("atlas-inference-vectorcore",)
MASK_FIELDS = ("mask.bitwise", "mask.count", "mask.nwords", "mask.w0", "mask.w1")


@register
class SetVectorMask(ApiModel):
    name = "SetVectorMask"
    aliases = ("set_vector_mask", "asc.language.basic.set_vector_mask")
    prefix = "set_vector_mask"
    seed = "004_2ad9555534615f32.txt"
    summary = "set the vector mask register for later masked ops called with isSetMask=false"
    support = {p: TYPES for p in PRODUCT_IDS if p not in UNSUPPORTED}
    support_source = (f"{VENDOR_PAGE}, Product support (HARDWARE_NOTES.md Products: the inference series' Vector Core "
                      f"is atlas-inference-vectorcore); types: the 16- and 32-bit operands of {NOTES_MASKS}")
    default_dtype = "half"
    args = (MaskArg("mask", source=f"{PAGE}; {NOTES_MASKS}"),)
    notes = (
        SpecNote("set_vector_mask.no-page", "SetVectorMask has no seed page",
                 "Modelled from page 004 (is_set_mask: 'use set_vector_mask to set the mask'), HARDWARE_NOTES "
                 "Masks and the vendor's SetVectorMask page: the same two modes and ranges as an op's mask "
                 "argument, except that contiguous 0 is in range (a warning: no lane enabled), for the 16- and "
                 "32-bit types of the vector ops, on every product but the inference series' Vector Core.",
                 "None of the five seed pages documents SetVectorMask; the vendor's page (asc-devkit docs) lists "
                 "it as supported on every product but 'Atlas inference series Vector Core: not supported', and "
                 "gives 'for 16-bit operands mask in [0, 128]; for 32-bit in [0, 64]'. A hardware engineer expects "
                 "the mask register to take what an op's own mask argument takes.",
                 (PAGE, NOTES_MASKS, f"{VENDOR_PAGE}, Product support", f"{VENDOR_PAGE}, Description")),
        SpecNote("set_vector_mask.count-zero", "A contiguous mask of 0",
                 "SetVectorMask(0) is legal, a warning (no lane enabled); a masked op that then uses it with "
                 "isSetMask=false is judged by its own mask rules, as for an all-zero bitwise mask (BlockReduce: "
                 "a no-op warning on atlas-a2/a3, an error elsewhere).",
                 "The vendor's SetVectorMask page: 'mask in [0, 128]' (16-bit operands), and 'for Atlas A3 / A2, "
                 "mask = 0 means the instruction performs no computation; the call is treated as a NOP'. Page 004's "
                 "[1, 128] is the range of an op's own mask argument, not of the setter.",
                 (f"{VENDOR_PAGE}, Description", f"{VENDOR_PAGE}, Restrictions"),
                 ("set_vector_mask.mask.count.nonzero", "set_vector_mask.mask.count.range")),
        SpecNote("set_vector_mask.all-zero", "An all-zero bitwise mask",
                 "SetVectorMask([0, 0]) is a warning at the setter (it selects no element); a masked op that then "
                 "uses it with isSetMask=false is judged by its own mask rules (BlockReduce: a no-op warning on "
                 "atlas-a2/a3, an error elsewhere).",
                 "HARDWARE_NOTES Masks: 'the two words must not both be 0' (for an op's mask). The vendor's own test "
                 "sets an all-zero mask on purpose, with the comment 'when mask both 0, do not call api will not "
                 "cause error': the register may hold it as long as no vector op uses it.",
                 (NOTES_MASKS, "asc-devkit tests/api/basic_api/ascendc_case_ascend910b1/ascendc_case_ascend910b1_aiv/"
                  "test_set_vector_mask.cpp, SetVectorMaskNoApiCheckLowLevel"),
                 ("set_vector_mask.mask.words.nonzero",)),
        SpecNote("set_vector_mask.type-width", "The type of the mask and of the op",
                 "A later op checks the mask last set against its own T (e.g. two words for half, one for float).",
                 "The mask register is shared; the pages give the mask's shape per operand width, so the op's width "
                 "decides whether the stored mask is well formed for it.",
                 (PAGE, NOTES_MASKS)),
    )

    def api_rules(self):
        yield from mask_rules(self.prefix, f"{VENDOR_PAGE}, Description; {PAGE}", empty=WARNING,
                              empty_notes=("set_vector_mask.all-zero",), zero_count_notes=("set_vector_mask.count-zero",))

    def footprint(self, case: Case) -> Mapping[str, list[tuple[str, int, int]]]:
        return {}

    def execute(self, case: Case, trace) -> None:
        trace.memory.special[STATE_KEY] = {"dtype": case.ctx.dtype.name, "lanes": lane_mask(case)}

    def apply_state(self, case: Case, state: dict[str, Any]) -> None:
        state[STATE_KEY] = {"dtype": case.ctx.dtype.name, "fields": {f: case.env[f] for f in MASK_FIELDS}}


def mask_register_matches(case: Case, seed: int = 0) -> None:
    """The core's mask register holds, lane by lane, the bits of the words (mask[0] = low 64 lanes)."""
    memory = Memory.for_product(case.ctx.product)
    case.model.execute(case, Trace(memory))
    lanes = memory.special[STATE_KEY]["lanes"]
    if case.env["mask.bitwise"]:
        words = [int(case.env["mask.w0"]), int(case.env["mask.w1"])]
        expected = [bool((words[j // 64] >> (j % 64)) & 1) for j in range(lanes.size)]
    else:
        expected = [j < int(case.env["mask.count"]) for j in range(lanes.size)]
    assert lanes.tolist() == expected, "mask register differs from the mask's bits"


SetVectorMask.invariants = (mask_register_matches,)
