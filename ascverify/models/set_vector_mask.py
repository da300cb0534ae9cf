"""SetVectorMask (pyasc `set_vector_mask`): sets the mask that vector ops with isSetMask=false use.

No seed page documents SetVectorMask itself; page 004 (is_set_mask) names it as the way to set the
mask outside an op, HARDWARE_NOTES (Masks) give the mask's encoding, and the vendor's own SetVectorMask page
(asc-devkit docs) its products, its ranges (contiguous 0 included), mask = 0 as a no-op and its two modes: Normal
(the mask of one repeat; the mask rules of the pages, judged as a setter of the 128-bit register) and Counter (the
number of elements of the whole computation). In a program a Normal-mode mask becomes the effective mask of later
masked calls; after a Counter-mode count their mask is unknown.
"""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from ..cases.case import Case
from ..cases.fields import read_int
from ..core.memory import Memory, Trace
from ..spec.errors import InputError
from ..spec.model import ApiModel, ArgumentForm, SpecNote
from ..spec.logic import And, Not, Or
from ..spec.params import INT32, Arg, EnumType, MaskArg
from ..spec.products import PRODUCT_IDS
from ..spec.registry import register
from ..spec.rules import WARNING, Context, Values, field_one_of, rule, state_rule
from .mask_mode import MASK_MODE_STATE
from .vector_common import (NOTES_MASKS, REGISTER_BITS, REPEAT_BYTES, VECTOR_MASK_STATE as STATE_KEY, Register,
                            counter_count, lane_mask, mask_register_state, mask_rules)

PAGE = "004_2ad9555534615f32.txt 参数说明 is_set_mask"
#: The vendor's page of SetVectorMask itself (asc-devkit ``docs/api/SIMD-API/基础API/Memory矢量计算/掩码操作/
#: SetVectorMask.md``, read at commit 93c993b).
VENDOR_PAGE = "SetVectorMask (asc-devkit docs)"
#: The page of the call that enters Counter mode (its product support: the training series has none)
COUNT_PAGE = "SetMaskCount (asc-devkit docs)"
#: Where Counter mode does not exist (SetMaskCount: "Atlas training series: not supported")
NO_COUNTER = ("atlas-training",)
#: Where it does: the Counter-mode warnings hold there (elsewhere the mode itself is the error counter.product)
COUNTER_PRODUCTS = tuple(pid for pid in PRODUCT_IDS if pid not in NO_COUNTER)
#: T is 'the vector operands' type': the page gives Normal-mode ranges for 16-, 32- and 64-bit operands, and the
#: vendor's own code sets Counter-mode counts with uint8 (layernorm, dropout, gelu, the reduce example), masks for
#: uint8 in Normal mode (its adv_api tests) and for bfloat16 (the 950 Select and 310B1 copy tests); the setter writes
#: the register whatever T is (SetVectorMaskImpl), T only sizes the lanes of the len form.
TYPES = ("half", "float", "bfloat16", "int16", "uint16", "int32", "uint32", "int8", "uint8", "int64", "uint64")
#: atlas-350's 8-bit float types, which its vector ops take (the vendor's 950 Cast test sets Counter-mode counts with
#: hifloat8_t, fp8_e5m2_t and fp8_e4m3fn_t).
TYPES_350 = TYPES + ("fp8_e4m3fn", "fp8_e5m2", "hifloat8")
MODE = EnumType("MaskMode", ("NORMAL", "COUNTER"))
NORMAL, COUNTER = MODE.codes(MODE.choices)
#: SetVectorMask(int32_t len): the contiguous form's C type.
LEN_MAX = INT32.hi
#: Products whose SetVectorMask page says 不支持 (not supported): the inference series' Vector Core.
UNSUPPORTED = ("atlas-inference-vectorcore",)
#: Where the vendor's implementation of SetVectorMask<T, NORMAL>(len) refuses, in its CPU-debug build, what
#: SetMask<T>(len) writes: a maskHigh other than 0 for a 32- or 64-bit T, and both words 0 (Ascend 950, __NPU_ARCH__
#: 3510; spec note set_vector_mask.len-350).
LEN_CHECKED = ("atlas-350",)
LEN_SOURCE = (f"{VENDOR_PAGE}, Description (Normal mode: 32-bit operands mask in [0, 64], 64-bit [0, 32]; mask = 0 a "
              "NOP on Atlas A3 / A2 only); asc-devkit impl/basic_api/kernel_reg.h (SetVectorMaskImpl: a NORMAL len goes "
              "to AscendCUtils::SetMask<T>(len)); asc-devkit impl/basic_api/kernel_utils_base.h (SetMask<T>(len): the "
              "words it writes; SetMask(maskHigh, maskLow): on 3510 the CPU-debug build asserts 'maskHigh must be 0 for "
              f"type b32 and b64' and 'maskLow and maskHigh can not be zero at the same time'); {NOTES_MASKS}")
#: The lanes of one repeat at which SetMask<T>(len) sets only the low word (len == 64: (0, 2^64-1)).
HALF_REGISTER = 64


def _normal_documented(v: Values, ctx: Context) -> Any:
    """The page's Normal-mode mask rules apply: Normal mode with a 16-, 32- or 64-bit T (an 8-bit T there is
    `normal.width`'s warning)."""
    return And(v.mode == NORMAL, ctx.dtype.bits >= 16)


#: The setter's own parameters, each form: Ascend C's SetVectorMask(len) / SetVectorMask(maskHigh, maskLow) and
#: pyasc's set_vector_mask(length) / set_vector_mask(mask_high, mask_low). `mask` is the list [maskLow, maskHigh].
LEN_NAMES = ("len", "length")
WORD_NAMES = (("maskHigh", "maskLow"), ("mask_high", "mask_low"))
SETTER_NAMES = frozenset((*LEN_NAMES, *(n for pair in WORD_NAMES for n in pair)))


def setter_args(args: Mapping[str, Any]) -> Mapping[str, Any]:
    """``args`` with the setter's own parameter names (`LEN_NAMES`, `WORD_NAMES`) given as ``mask``: len -> the
    integer, (maskHigh, maskLow) -> [maskLow, maskHigh]; one form, each word an integer."""
    given = [k for k in args if k in SETTER_NAMES]
    if not given:
        return args
    if "mask" in args:
        raise InputError(f"{given[0]!r} and mask both give the mask; give one", field=f"args.{given[0]}")
    forms = {k if k in LEN_NAMES else next(p for p in WORD_NAMES if k in p) for k in given}
    if len(forms) > 1:
        raise InputError(f"{given[-1]!r} and {given[0]!r} are two forms of the mask; give one", field=f"args.{given[-1]}")
    out = {k: v for k, v in args.items() if k not in SETTER_NAMES}
    form = forms.pop()
    if isinstance(form, str):
        out["mask"] = _word(args, form)
        return out
    high, low = form
    for name in form:
        if name not in args:
            raise InputError(f"missing: {high} and {low} go together (SetVectorMask(maskHigh, maskLow))",
                             field=f"args.{name}")
    out["mask"] = [_word(args, low), _word(args, high)]
    return out


def _word(args: Mapping[str, Any], name: str) -> int:
    x = args[name]
    if isinstance(x, bool):
        raise InputError("expected an integer, got a boolean", field=f"args.{name}")
    return read_int(x, f"args.{name}")


@register
class SetVectorMask(ApiModel):
    name = "SetVectorMask"
    aliases = ("set_vector_mask", "asc.language.basic.set_vector_mask")
    prefix = "set_vector_mask"
    seed = "004_2ad9555534615f32.txt"
    summary = "set the vector mask register for later masked ops called with isSetMask=false"
    support = {p: TYPES_350 if p == "atlas-350" else TYPES for p in PRODUCT_IDS if p not in UNSUPPORTED}
    support_source = (f"{VENDOR_PAGE}, Product support (HARDWARE_NOTES.md Products: the inference series' Vector Core "
                      f"is atlas-inference-vectorcore); types: the vector operands' types (Template parameters, T: the "
                      f"Normal-mode ranges of 16-, 32- and 64-bit operands; the vendor's calls with uint8, bfloat16 and, "
                      f"on atlas-350, hifloat8 and the fp8 types)")
    default_dtype = "half"
    args = (MaskArg("mask", source=f"{PAGE}; {NOTES_MASKS}"),
            Arg("mode", MODE, f"{VENDOR_PAGE}, Template parameters (mode)",
                "MaskMode: NORMAL (default; the mask of one repeat) or COUNTER (mask = the elements of the whole "
                "computation: an integer, or [count] / [count, 0])", default="NORMAL"))
    argument_forms = (ArgumentForm("SetVectorMask(len) / set_vector_mask(length)", {"len": "integer", "mode": "arg"},
                                   ("len",)),
                      ArgumentForm("pyasc set_vector_mask(length)", {"length": "integer", "mode": "arg"}, ("length",)),
                      ArgumentForm("SetVectorMask(maskHigh, maskLow)",
                                   {"maskHigh": "integer", "maskLow": "integer", "mode": "arg"}, ("maskHigh", "maskLow")),
                      ArgumentForm("pyasc set_vector_mask(mask_high, mask_low)",
                                   {"mask_high": "integer", "mask_low": "integer", "mode": "arg"},
                                   ("mask_high", "mask_low")))

    #: `ascverify lint`: on atlas-350 the len form's errors (len.zero, len.high_word) cover the count warnings
    lint_expected = {"redundant:set_vector_mask.mask.count.nonzero": "set_vector_mask.len-350",
                     "redundant:set_vector_mask.mask.count.range": "set_vector_mask.len-350"}

    def normalize_args(self, args: Mapping[str, Any]) -> Mapping[str, Any]:
        """The setter's parameter names (len; maskHigh, maskLow; pyasc's length; mask_high, mask_low) as ``mask``."""
        return setter_args(args)

    def keeps_layout(self, arg_keys: tuple[str, ...], tensor_keys: tuple[str, ...]) -> bool:
        return not SETTER_NAMES.intersection(arg_keys)

    notes = (
        SpecNote("set_vector_mask.no-page", "SetVectorMask has no seed page",
                 "Modelled from page 004 (is_set_mask: 'use set_vector_mask to set the mask'), HARDWARE_NOTES "
                 "Masks and the vendor's SetVectorMask page: in Normal mode the same two forms and ranges as an "
                 "op's mask argument, except that contiguous 0 is in range (a warning: no lane enabled); the "
                 "list is [maskLow, maskHigh], the words low first (the reverse of SetVectorMask(maskHigh, "
                 "maskLow), which a case may also give by name: len / maskHigh, maskLow, or pyasc's length / "
                 "mask_high, mask_low); Counter mode as spec note set_vector_mask.counter; on "
                 "every product but the inference series' Vector Core.",
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
                 "A later op checks the mask last set against its own T (e.g. two words for half, one for float); "
                 "an op of 32 or 64 bits reads the low word only, so a second word the setter gave is not its.",
                 "The mask register is shared; the pages give the mask's shape per operand width, so the op's width "
                 "decides whether the stored mask is well formed for it.",
                 (PAGE, NOTES_MASKS)),
        SpecNote("set_vector_mask.register", "What the setter writes to the register",
                 "The list form is [maskLow, maskHigh] (the uint64 prototype's words, low first): for a 32- or 64-bit T a second word may be "
                 "given, a warning when it is not 0 (set_vector_mask.mask.words.high); a 64-bit maskLow past "
                 "2^32-1 (mask.words.width) and a contiguous mask past the type's lanes (mask.count.range: every "
                 "lane is then enabled) are warnings too. For an op's own mask argument all three stay errors. "
                 "The contiguous form is SetVectorMask(int32_t len): beyond 2^31-1 an error "
                 "(set_vector_mask.len.int32).",
                 "The vendor's page: 'for 16-bit operands mask in [0, 128], 32-bit [0, 64], 64-bit [0, 32]; for "
                 "32-bit operands maskHigh is 0, for 64-bit maskHigh is 0 and maskLow in [0, 2^32-1]'. Its "
                 "implementation writes both words to the 128-bit register whatever T is (SetVectorMaskImpl: "
                 "set_vector_mask(maskHigh, maskLow)); a contiguous len >= 128 or equal to the type's lanes sets "
                 "all 128 bits, another sets the low len bits (AscendCUtils::SetMask<T>(len)), so an op reads "
                 "every one of its lanes on; ResetMask sets all 128 bits before ops of every width. The vendor's "
                 "own code sets (2^64-1, 2^64-1) for uint64 (kfc) and its 310B1 copy test sets len 121, 158 and "
                 "200 for 32-bit types: refusing them would refuse the vendor's code.",
                 (f"{VENDOR_PAGE}, Description (Normal mode)", "asc-devkit impl/basic_api/kernel_reg.h "
                  "(SetVectorMaskImpl, ResetMaskImpl)", "asc-devkit impl/basic_api/kernel_utils_base.h (SetMask(len))",
                  "asc-devkit impl/adv_api/detail/kfc/kfc_register_obj.h:32",
                  "asc-devkit tests/api/basic_api/ascendc_case_ascend310b1/test_copy.cpp:263"),
                 ("set_vector_mask.mask.words.high", "set_vector_mask.mask.words.width", "set_vector_mask.mask.words.count",
                  "set_vector_mask.mask.count.range", "set_vector_mask.len.int32")),
        SpecNote("set_vector_mask.counter", "Counter mode",
                 "mode = COUNTER (MaskMode, default NORMAL): the mask is the number of elements of the whole "
                 "computation, given as an integer (the int32_t len prototype: at most 2^31-1, an error beyond) or "
                 "as [count] / [count, maskHigh] (the uint64 prototype's words, low first: maskHigh not 0 is a "
                 "warning, it has no effect). A count of 0 is a warning. Any 8-, 16-, 32- or 64-bit T. In Normal "
                 "mode an 8-bit T is a warning and its mask is not checked (the page gives no range for it). A "
                 "BlockReduce with isSetMask=false after a Counter-mode count runs the repeats the count needs (its "
                 "counter_mode warning; checked and run so; a count ascverify does not model leaves its results "
                 "unspecified in `run`). SetMaskCount / SetMaskNorm set the mode the words are read in (spec note "
                 "set_mask_count.mode); a template mode that differs from it is the warning mode.differs. Counter mode on "
                 "atlas-training is an error (counter.product): SetMaskCount, which enters it, is not supported there.",
                 "The vendor's SetVectorMask page: template parameter mode (NORMAL / COUNTER); 'Counter mode: the "
                 "number of elements in the whole vector computation' for len and maskLow; maskHigh 'must be 0 in "
                 "Counter mode, the parameter has no effect'; 'for Atlas A3 / A2, mask = 0 ... NOP'. The ranges of "
                 "Normal mode are given for 16-, 32- and 64-bit operands. The vendor's code sets Counter-mode counts "
                 "with T = uint8 (the reduce example, layernorm, dropout, gelu) and pyasc's own test calls "
                 "set_vector_mask(128, mode=COUNTER). The SetMaskCount page (product support): 'Atlas training "
                 "series: not supported' (the SetVectorMask page supports the training series, in Normal mode).",
                 (f"{VENDOR_PAGE}, Template parameters (mode)", f"{VENDOR_PAGE}, Parameters",
                  f"{COUNT_PAGE}, Product support",
                  f"{VENDOR_PAGE}, Restrictions", "asc-devkit examples/01_simd_cpp_api/03_basic_api/"
                  "01_memory_vector_compute/reduce/reduce.asc:207"),
                 ("set_vector_mask.len.int32", "set_vector_mask.counter.nonzero", "set_vector_mask.counter.high",
                  "set_vector_mask.normal.width", "set_vector_mask.counter.product")),
        SpecNote("set_vector_mask.after-use", "Restoring the mask and the mode after use",
                 "ascverify does not require a ResetMask after the masked calls a SetVectorMask served, nor a "
                 "SetMaskNorm after Counter-mode work: a program that ends with a mask other than all ones, or in "
                 "Counter mode, draws nothing. Within a program every later call is checked and run with the mask "
                 "and mode the register then holds (a call in Counter mode draws counter_mode).",
                 "The SetVectorMask page (and pyasc's docstring) say to restore the default with ResetMask after use, "
                 "the SetMaskCount page to return to Normal mode with SetMaskNorm; the Mask overview page says "
                 "ResetMask need not follow every call. Both are about the next kernel code that assumes the "
                 "defaults, which a program of ascverify calls does not show: what it does show, the state each "
                 "call reads, is modelled. Recorded by the documentation census (census_docs_vector.md, G6, G7).",
                 (f"{VENDOR_PAGE}, Restrictions", "SetMaskCount (asc-devkit docs), Restrictions",
                  "Mask overview (asc-devkit docs), ResetMask", NOTES_MASKS), ()),
        SpecNote("set_vector_mask.len-350", "SetVectorMask(len) on Atlas 350",
                 "On atlas-350 a Normal-mode len above 64 for a 32- or 64-bit T (len.high_word) and a len of 0 for "
                 "any T (len.zero) are errors; a 64-bit T's len of 32, the top of the page's range, is a warning "
                 "(len.all_lanes_b64). Elsewhere such lens stay the warnings of set_vector_mask.register and "
                 "set_vector_mask.count-zero. The words form (maskHigh, maskLow) and Counter mode are not affected.",
                 "SetVectorMask<T, NORMAL>(len) is AscendCUtils::SetMask<T>(len): (0, 2^64-1) for len 64, both words "
                 "all ones for len >= 128 or len equal to T's lanes, else the low len bits. On 3510 (and 5102) the "
                 "vendor's CPU-debug build then asserts 'maskHigh must be 0 for type b32 and b64' and 'maskLow and "
                 "maskHigh can not be zero at the same time': the vendor's own implementation refuses those calls "
                 "there, and for a len above 64 the page's range ([0, 64] for 32-bit, [0, 32] for 64-bit operands) "
                 "forbids them too; a len of 0 is the page's no-op on Atlas A3 / A2 only. A 64-bit T's len of 32 is "
                 "in the page's range but trips the same assert (the len-equals-lanes branch writes both words), so "
                 "it is flagged, not refused. The count warnings (mask.count.range, mask.count.nonzero) still show "
                 "next to these errors (on atlas-350 they only repeat them: `ascverify lint` says so). "
                 "SetVectorMask(maskHigh, maskLow) writes the words directly (set_vector_mask) with no such check, "
                 "and a COUNTER len writes (0, len); the vendor's 310B1 test that sets len 121, 158 and 200 for 32-bit types runs on another architecture, which has no assert "
                 "(the block is compiled for 3510 / 5102 only). Found by the vendor-check census "
                 "(tests/vendor/census_checks.md).",
                 (LEN_SOURCE, "asc-devkit tests/api/basic_api/ascendc_case_ascend310b1/test_copy.cpp:263"),
                 ("set_vector_mask.len.high_word", "set_vector_mask.len.zero", "set_vector_mask.len.all_lanes_b64")),
    )

    def api_rules(self):
        p = self.prefix
        yield from mask_rules(p, f"{VENDOR_PAGE}, Description; {PAGE}", empty=WARNING,
                              empty_notes=("set_vector_mask.all-zero",), zero_count_notes=("set_vector_mask.count-zero",),
                              applies=_normal_documented, register=Register(("set_vector_mask.register",)))
        yield rule(f"{p}.normal.width", ("mode", "dtype"), lambda v, ctx: ctx.dtype.bits >= 16,
                   "T={dtype} in Normal mode: the page gives the mask of 16-, 32- and 64-bit operands only (8-bit "
                   "operands are masked in Counter mode in the vendor's code); the mask is not checked",
                   f"{VENDOR_PAGE}, Description (Normal mode); {NOTES_MASKS}", severity=WARNING, when=lambda v, ctx: v.mode == NORMAL,
                   notes=("set_vector_mask.counter",), help="a 16-, 32- or 64-bit T in Normal mode")
        counter = f"{VENDOR_PAGE}, Parameters (len, maskLow, maskHigh: Counter mode); {NOTES_MASKS}"
        yield rule(f"{p}.len.int32", ("mask",), lambda v, ctx: v.mask.count <= LEN_MAX,
                   "mask={count}: SetVectorMask(len) takes an int32_t (at most {most}); in Counter mode give "
                   "[count, 0] (maskLow, maskHigh) for the uint64 prototype", f"{VENDOR_PAGE}, Prototype (int32_t len); {NOTES_MASKS}",
                   when=lambda v, ctx: Not(v.mask.bitwise), notes=("set_vector_mask.register", "set_vector_mask.counter"),
                   facts=lambda v, ctx: {"count": v.mask.count, "most": LEN_MAX},
                   help="a contiguous mask (len) within int32_t")
        yield rule(f"{p}.counter.nonzero", ("mask", "mode"), lambda v, ctx: counter_count(v) != 0,
                   "Counter-mode count 0: a masked op that uses it computes no element", counter, severity=WARNING,
                   when=lambda v, ctx: v.mode == COUNTER, notes=("set_vector_mask.counter",), products=COUNTER_PRODUCTS,
                   help="a Counter-mode count above 0")
        yield field_one_of(f"{p}.counter.product", "mode", ("NORMAL",),
                           f"{COUNT_PAGE}, Product support (Atlas training series: not supported); {VENDOR_PAGE}, "
                           "Description (call SetMaskCount / SetMaskNorm first); asc-devkit impl/basic_api/kernel_reg.h "
                           f"(SetVectorMaskImpl: COUNTER writes maskHigh 0, maskLow len); {NOTES_MASKS}", type=MODE,
                           products=NO_COUNTER, notes=("set_vector_mask.counter",),
                           message="mode={value} on atlas-training: Counter mode is not supported there (the "
                                   "SetMaskCount page), so no call can enter it; the register then holds (0, count), "
                                   "which Normal mode reads as a bit mask of the count's bits")
        yield state_rule(f"{p}.mode.differs", "the call's template mode differs from the mode SetMaskCount / "
                         "SetMaskNorm put the vector unit in: its words are read in the latter",
                         f"SetMaskCount / SetMaskNorm (asc-devkit docs), Description; {VENDOR_PAGE}, Description "
                         f"(call SetMaskCount / SetMaskNorm first); {NOTES_MASKS}", params=("mode",),
                         notes=("set_vector_mask.counter",))
        yield rule(f"{p}.counter.high", ("mask", "mode"),
                   lambda v, ctx: Or(v.mask.nwords < 2, v.mask.words[1] == 0),
                   "Counter mode with maskHigh (mask[1])={w1}: the page sets it to 0, it has no effect", counter,
                   severity=WARNING, when=lambda v, ctx: And(v.mode == COUNTER, v.mask.bitwise),
                   facts=lambda v, ctx: {"w1": v.mask.words[1]}, notes=("set_vector_mask.counter",),
                   products=COUNTER_PRODUCTS, help="maskHigh (mask[1]) 0 in Counter mode")

        normal_len = lambda v, ctx: And(v.mode == NORMAL, Not(v.mask.bitwise))  # noqa: E731
        yield rule(f"{p}.len.high_word", ("mask", "mode", "dtype", "product"),
                   lambda v, ctx: True if ctx.dtype.bits < 32 else v.mask.count <= HALF_REGISTER,
                   "SetVectorMask<{dtype}>(len={count}) on {product}: SetMask<T>(len) sets maskHigh for a len above 64, "
                   "which the vendor's implementation there refuses for a 32- or 64-bit T (its CPU-debug build asserts "
                   "'maskHigh must be 0 for type b32 and b64'); the page's range is [0, {lanes}]",
                   LEN_SOURCE, when=normal_len, products=LEN_CHECKED, notes=("set_vector_mask.len-350",),
                   facts=lambda v, ctx: {"count": v.mask.count, "lanes": REPEAT_BYTES * 8 // ctx.dtype.bits},
                   help="a contiguous mask (len) of at most 64 for a 32- or 64-bit T")
        yield rule(f"{p}.len.zero", ("mask", "mode", "product"), lambda v, ctx: v.mask.count != 0,
                   "SetVectorMask(len=0) on {product}: SetMask<T>(0) writes both words 0, which the vendor's "
                   "implementation there refuses (its CPU-debug build asserts 'maskLow and maskHigh can not be zero at "
                   "the same time'); the page makes a mask of 0 a no-op on Atlas A3 / A2 only",
                   LEN_SOURCE, when=normal_len, products=LEN_CHECKED, notes=("set_vector_mask.len-350",),
                   help="a contiguous mask (len) above 0")
        yield rule(f"{p}.len.all_lanes_b64", ("mask", "mode", "dtype", "product"),
                   lambda v, ctx: True if ctx.dtype.bits != 64 else v.mask.count != REPEAT_BYTES * 8 // 64,
                   "SetVectorMask<{dtype}>(len=32) on {product}: the page's top of the range, but SetMask<T>(len) "
                   "writes both words all ones for a len equal to T's lanes, which the vendor's CPU-debug build there "
                   "refuses ('maskHigh must be 0 for type b32 and b64'); SetVectorMask<{dtype}>(0, 0xFFFFFFFF) sets the "
                   "same 32 lanes", LEN_SOURCE, severity=WARNING, when=normal_len, products=LEN_CHECKED,
                   notes=("set_vector_mask.len-350",), help="for a 64-bit T, the words form instead of len=32")

    def footprint(self, case: Case) -> Mapping[str, list[tuple[str, int, int]]]:
        return {}

    def execute(self, case: Case, trace) -> None:
        mode = trace.memory.special.get(MASK_MODE_STATE)
        read = as_read(case, mode) if mode is not None else case
        if read.env["mode"] == COUNTER:
            trace.memory.special[STATE_KEY] = {"dtype": case.ctx.dtype.name, "mode": "COUNTER",
                                               "count": int(counter_count(read.values()))}
        else:
            trace.memory.special[STATE_KEY] = {"dtype": case.ctx.dtype.name, "mode": "NORMAL", "lanes": lane_mask(read)}

    def apply_state(self, case: Case, state: dict[str, Any]) -> None:
        """The mask as the mode SetMaskCount / SetMaskNorm set reads the words (spec note set_mask_count.mode), or
        in the call's own template mode when neither came before it."""
        mode = state.get(MASK_MODE_STATE)
        read = as_read(case, mode) if mode is not None else case
        state[STATE_KEY] = mask_register_state(case.ctx.dtype.name, MODE.choices[int(read.env["mode"])], read.env)

    def state_warnings(self, case: Case, state: Mapping[str, Any]) -> list[tuple[Any, str]]:
        """The template mode differs from the one SetMaskCount / SetMaskNorm set, other than the vendor's own
        SetVectorMask<T>(maskHigh, maskLow) in Counter mode (the words are written as given)."""
        mode = state.get(MASK_MODE_STATE)
        own = MODE.choices[int(case.env["mode"])]
        if mode == "COUNTER" and own == "NORMAL" and case.env["mask.bitwise"]:
            return self._counted_words(case)
        if mode is None or mode == own:
            return []
        read = as_read(case, mode)
        shown = (f"a count of {int(counter_count(read.values()))} elements" if mode == "COUNTER" else
                 f"the bit mask [{int(read.env['mask.w0']):#x}, {int(read.env['mask.w1']):#x}]")
        r = self.rule_by_id[f"{self.prefix}.mode.differs"]
        return [(r, f"mode={own} but the vector unit is in {mode.title()} mode (the last SetMask"
                    f"{'Count' if mode == 'COUNTER' else 'Norm'}): the register's words are read as {shown}")]

    def _counted_words(self, case: Case) -> list[tuple[Any, str]]:
        """The vendor's idiom SetMaskCount(); SetVectorMask<T>(maskHigh, maskLow): the words are written as given and
        Counter mode reads maskLow as the count. What the COUNTER template's own rules say of its words (counter.nonzero,
        counter.high) holds here too: a count of 0 computes nothing, maskHigh has no effect (hunt 17)."""
        env, out = case.env, []
        low, high = int(env["mask.w0"]), int(env["mask.w1"]) if int(env["mask.nwords"]) > 1 else 0
        if low == 0:
            out.append((self.rule_by_id[f"{self.prefix}.counter.nonzero"],
                        "the vector unit is in Counter mode (the last SetMaskCount): maskLow=0 is a count of 0 elements, "
                        "the ops that use it compute nothing"))
        if high:
            out.append((self.rule_by_id[f"{self.prefix}.counter.high"],
                        f"the vector unit is in Counter mode (the last SetMaskCount): maskHigh={high} has no effect (the "
                        "count is maskLow)"))
        return out


def as_read(case: Case, mode: str) -> Case:
    """The call's mask as the vector unit reads its words in ``mode``: SetVectorMaskImpl writes (maskHigh, maskLow)
    as given, (0, len) for a COUNTER len, SetMask<T>(len)'s low len bits (all 128 from T's lanes or 128 on) for a
    NORMAL len; Counter mode reads maskLow as the count, Normal mode the 128 bits as lanes."""
    env = case.env
    if MODE.choices[int(env["mode"])] == mode:
        return case
    if env["mask.bitwise"]:
        w0, w1 = int(env["mask.w0"]), int(env["mask.w1"]) if int(env["mask.nwords"]) > 1 else 0
    elif env["mode"] == COUNTER:                     # (0, len)
        w0, w1 = int(env["mask.count"]), 0
    else:                                            # SetMask<T>(len)
        n, lanes = int(env["mask.count"]), REPEAT_BYTES * 8 // case.ctx.dtype.bits
        bits = REGISTER_BITS if n >= REGISTER_BITS or n == lanes else n
        w0, w1 = (1 << min(bits, 64)) - 1, (1 << max(bits - 64, 0)) - 1
    return case.with_fields(**{"mode": MODE.code(mode), "mask.bitwise": True, "mask.nwords": 2, "mask.count": 0,
                               "mask.w0": w0, "mask.w1": w1})


def mask_register_matches(case: Case, seed: int = 0) -> None:
    """The core's mask register holds, lane by lane, the bits of the words (mask[0] = low 64 lanes)."""
    memory = Memory.for_product(case.ctx.product)
    case.model.execute(case, Trace(memory))
    if case.env["mode"] == COUNTER:
        assert memory.special[STATE_KEY]["count"] == int(case.env["mask.count"]) + int(case.env["mask.w0"]), \
            "counter register differs from the count"
        return
    lanes = memory.special[STATE_KEY]["lanes"]
    if case.env["mask.bitwise"]:  # the 128 bits of the two words; an 8-bit T's lanes past them are off
        words = [int(case.env["mask.w0"]), int(case.env["mask.w1"])]
        expected = [j < 128 and bool((words[j // 64] >> (j % 64)) & 1) for j in range(lanes.size)]
    else:
        expected = [j < int(case.env["mask.count"]) for j in range(lanes.size)]
    assert lanes.tolist() == expected, "mask register differs from the mask's bits"


SetVectorMask.invariants = (mask_register_matches,)
