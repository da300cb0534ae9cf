"""SetFmatrix: describe the feature map in L1 that later img2col loads read (HARDWARE_NOTES.md Load3DBitMode /
LoadData3DParamsV2 / SetFmatrix; page 002, fmatrixCtrl: the load 'works with SetFmatrix').

``SetFmatrix(l1H, l1W, padList)`` has no tensors. Its arguments are the members of the ``fmatrix`` struct that
Load3DBitMode and LoadDataWithStride take (the same declaration, the same range rules): in a program it records
them in the state (`apply_state`), from which a later load without its own description takes them
(`Load3DBitMode.with_state`), and `run` shows them as the special register ``fmatrix``.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Mapping

from ..cases.case import Case
from ..core.memory import Memory, Trace
from ..spec.errors import InputError, did_you_mean
from ..spec.model import ApiModel, SpecNote
from ..spec.params import Arg, EnumType
from ..spec.registry import register
from ..spec.products import PRODUCT_IDS
from ..spec.rules import WARNING, field_one_of, rule
from .codec import NOTES, SEED
from .load3d import (FMATRIX, FMATRIX_MEMBER_FIELDS, FMATRIX_STATE, Load3DBitMode, fmatrix_register_value, fmatrix_rules,
                     inherited_notes)

MEMBERS = tuple(m.name for m in FMATRIX.members)
#: The vendor's page of SetFmatrix itself (asc-devkit docs, the matrix APIs; read at commit 93c993b).
VENDOR_PAGE = "SetFmatrix (asc-devkit docs)"
#: SetFmatrix's last parameter: which feature-map register it sets (the vendor's page: only FMATRIX_LEFT for now)
FMATRIX_MODE = EnumType("FmatrixMode", ("FMATRIX_LEFT", "FMATRIX_RIGHT"))
MODE_ARG = Arg("fmatrixMode", FMATRIX_MODE, f"{VENDOR_PAGE}, Parameters (fmatrixMode)",
               "FMATRIX_LEFT (default): the feature map loads with fmatrixCtrl = false read", default="FMATRIX_LEFT")
#: Where the vendor's implementation of SetFmatrix(..., FMATRIX_RIGHT) reports the mode as not supported
#: (Load3DSetFMatrixBCal: ASCENDC_REPORT_NOT_SUPPORT in dav_c100 and dav_m200); elsewhere it writes the right register.
RIGHT_UNSUPPORTED = ("atlas-training", "atlas-inference-aicore")
RIGHT_SOURCE = ("asc-devkit impl/basic_api/kernel_operator_mm_base_impl.h (SetFmatrixImpl: FMATRIX_RIGHT -> "
                "Load3DSetFMatrixBCal) and impl/basic_api/dav_*/kernel_operator_mm_impl.h (Load3DSetFMatrixBCal)")
#: Products the vendor's SetFmatrix page marks 支持 (supported) where ascverify does not model the loads that read
#: the feature map (LoadData3DV1/V2): a call there is not refused, it is not modelled.
UNMODELLED = ("atlas-a3", "atlas-a2", "atlas-200i-500-a2", "atlas-inference-aicore")
#: SetFmatrix's arguments: the fmatrix struct, required, with padList required too (the C++ function takes it)
ARGS = replace(FMATRIX, optional=False, source=f"{NOTES} (SetFmatrix(l1H, l1W, padList); padValue of "
                                               "LoadData3DParamsV2)",
               members=tuple(replace(m, default=None) if m.name == "padList" else m for m in FMATRIX.members))


@register
class SetFmatrix(ApiModel):
    name = "SetFmatrix"
    aliases = ("set_fmatrix",)
    prefix = "set_fmatrix"
    seed = SEED
    summary = "describe the feature map in L1 (l1H x l1W, padding, padding value) that later img2col loads read"
    support = {"atlas-350": Load3DBitMode.support["atlas-350"]}
    support_source = (f"{VENDOR_PAGE}, Product support (HARDWARE_NOTES.md Products); T: {SEED} Table 1 (T), as "
                      f"Load3DBitMode")
    unmodelled = {p: f"{VENDOR_PAGE}, Product support (HARDWARE_NOTES.md Products); spec note set_fmatrix.products"
                  for p in UNMODELLED}
    default_dtype = "half"
    args = (ARGS, MODE_ARG)
    flat_struct = ARGS.name
    notes = (
        SpecNote("set_fmatrix.arguments", "The arguments",
                 "A case gives l1H, l1W, padList [left, right, top, bottom] and optionally padValue (default 0), "
                 "either as they stand in args or as one object args.fmatrix = {l1H, l1W, padList, padValue} (the "
                 "form `Case.to_json` writes); not both. They are the members of the fmatrix struct of Load3DBitMode "
                 "and LoadDataWithStride, with its rules: l1H and l1W in [1, 32767], pads in [0, 255] (uint8), "
                 "padValue in T's range.",
                 "HARDWARE_NOTES give SetFmatrix(l1H, l1W, padList[4]) and the ranges; one declaration for the "
                 "call and for the loads' description of it keeps the two from drifting apart.",
                 (NOTES,), ("set_fmatrix.fmatrix.l1H.range", "set_fmatrix.fmatrix.l1W.range")),
        SpecNote("set_fmatrix.padValue", "padValue and T",
                 "padValue, which the C++ SetFmatrix does not take (LoadData3DParamsV2 carries it; on the hardware "
                 "SetLoadDataPaddingValue sets it), is part of this call so that one call describes the whole feature "
                 "map. T is the type of padValue: the ten types of Load3DBitMode on atlas-350; a later load checks the "
                 "stored padValue against its own T.",
                 "The brief of issue 6 asks for padValue 'as LoadData3DParamsV2 carries it'; the pages give no "
                 "SetFmatrix prototype, and a padding value only has a range once its type is known.",
                 (NOTES, f"{SEED} Table 1, T"), ("set_fmatrix.fmatrix.padValue.range", "set_fmatrix.dtype.support")),
        SpecNote("set_fmatrix.left", "Which feature map",
                 "The call sets the feature map that loads with fmatrixCtrl = false read (the left matrix's) for "
                 "fmatrixMode FMATRIX_LEFT (the default). FMATRIX_RIGHT sets the right feature-map register, which no "
                 "modelled load reads: a warning (fmatrixMode.right) where the vendor's implementation writes that "
                 "register (atlas-350, atlas-a3, atlas-a2, atlas-200i-500-a2), an error (fmatrixMode.left) on "
                 "atlas-training and the inference AI Core, where it reports the mode as not supported.",
                 "Page 002: fmatrixCtrl 'can only be set to false (retrieve the FeatureMap attribute descriptions "
                 "from the left matrix)'. The vendor's SetFmatrix page: 'only FMATRIX_LEFT is currently supported'. "
                 "Its shipping code disagrees: SetFmatrixImpl sends FMATRIX_RIGHT to Load3DSetFMatrixBCal, which "
                 "writes the right register on dav_c220, dav_m300 and dav_3510 and raises ASCENDC_REPORT_NOT_SUPPORT "
                 "on dav_c100 and dav_m200; the conv3d-backprop library calls SetFmatrix(1, wSize, PADLIST_B, "
                 "FMATRIX_RIGHT) (dav_v220 conv3d_bp_input_sub_func.h, conv3d_bp_filter_func.h) and the matmul "
                 "library sets the right register for its B load where its chip table says ifSupportFmatrixB (220, "
                 "300, 310; load_to_l0b_loadInstr.h, whose 910B1 gtest runs it). A tool that refused the vendor's "
                 "own library calls would be wrong, so the page's sentence is a warning where the implementation "
                 "takes the mode (found by vendor corpus hunt 46).",
                 (f"{SEED} Table 5, fmatrixCtrl", f"{VENDOR_PAGE}, Parameters (fmatrixMode)", RIGHT_SOURCE,
                  "asc-devkit impl/adv_api/detail/conv_backprop/conv3d_backprop_input/dav_v220/"
                  "conv3d_bp_input_sub_func.h:250", "asc-devkit impl/adv_api/detail/matmul/feature_trait/"
                  "matmul_chip_cap.h (ifSupportFmatrixB)"),
                 ("set_fmatrix.fmatrixMode.left", "set_fmatrix.fmatrixMode.right")),
        SpecNote("set_fmatrix.pyasc", "pyasc's name",
                 "The call answers to set_fmatrix, with the C++ argument names (l1H, l1W, padList).",
                 "pyasc declares SetFmatrix as the IR operation set_fmatrix with arguments l1H, l1W, padList and "
                 "fmatrixMode (include/ascir/Dialect/Asc/IR/Basic/OpMm.td, AscendC_SetFmatrixOp); its Python API "
                 "(python/asc/language/basic) has no function for it, so there are no other argument names to "
                 "accept.",
                 ("pyasc include/ascir/Dialect/Asc/IR/Basic/OpMm.td", NOTES)),
        SpecNote("set_fmatrix.products", "Products",
                 "Modelled on atlas-350, like the loads that read it. On atlas-a3, atlas-a2, atlas-200i-500-a2 and "
                 "atlas-inference-aicore the call is legal but not modelled: its argument rules are checked and a "
                 "warning says it is not modelled. On atlas-training and the inference Vector Core it is an error.",
                 "No seed page documents SetFmatrix; the only APIs in scope that read it (Load3DBitMode, "
                 "LoadDataWithStride) are modelled on atlas-350 only (page 002 Applicability, page 003 产品支持情况; "
                 "Load3DBitMode's V2 load is accepted unmodelled on the same four products, spec note "
                 "load3d.products-v2). The "
                 "vendor's SetFmatrix page lists it as supported on Ascend 950, Atlas A3, Atlas A2, Atlas 200I/500 A2 "
                 "and the inference series' AI Core, and not supported on the inference Vector Core and the training "
                 "series (an older version marks A2/A3 not supported): there it feeds LoadData3DV1/V2, which ascverify "
                 "does not model. Refusing the call there would state what the vendor's page contradicts.",
                 (f"{SEED} Applicability", "003_6cb328d34acb8cee.txt 产品支持情况", f"{VENDOR_PAGE}, Product support"),
                 ("set_fmatrix.product.support", "set_fmatrix.product.modelled")),
        *inherited_notes(("load3d.fmatrix", "load3d.padValue"), "set_fmatrix", without=("src.footprint",)),
    )

    def api_rules(self):
        yield from fmatrix_rules(self.prefix, optional=False)
        page = f"{VENDOR_PAGE}, Parameters (fmatrixMode: only FMATRIX_LEFT is supported); {SEED} Table 5, fmatrixCtrl"
        yield field_one_of(f"{self.prefix}.fmatrixMode.left", "fmatrixMode", ("FMATRIX_LEFT",), f"{page}; {RIGHT_SOURCE}",
                           type=FMATRIX_MODE, notes=("set_fmatrix.left",), products=RIGHT_UNSUPPORTED,
                           message="fmatrixMode={value}: not supported on {product} (the page supports only "
                                   "FMATRIX_LEFT, and the vendor's implementation there reports FMATRIX_RIGHT as not "
                                   "supported)")
        left = FMATRIX_MODE.code("FMATRIX_LEFT")
        yield rule(f"{self.prefix}.fmatrixMode.right", ("fmatrixMode",), lambda v, ctx: v.fmatrixMode == left,
                   "fmatrixMode=FMATRIX_RIGHT: the page supports only FMATRIX_LEFT, but the vendor's implementation on "
                   "{product} writes the right feature-map register and its own matmul and conv3d-backprop code set "
                   "it; no modelled load reads it (a load reads it with fmatrixCtrl = true, which the LoadData page "
                   "forbids)", f"{page}; {RIGHT_SOURCE}", severity=WARNING, notes=("set_fmatrix.left",),
                   products=tuple(q for q in PRODUCT_IDS if q not in RIGHT_UNSUPPORTED),
                   help="FMATRIX_LEFT, the feature map the modelled loads read")

    def keeps_layout(self, arg_keys: tuple[str, ...], tensor_keys: tuple[str, ...]) -> bool:
        """The feature map as the one struct argument ``fmatrix`` (`normalize_args` returns it unchanged)."""
        return arg_keys in (("fmatrix",), ("fmatrix", MODE_ARG.name), (MODE_ARG.name, "fmatrix"))

    def normalize_args(self, args: Mapping[str, Any]) -> Mapping[str, Any]:
        """The flat form (l1H, l1W, padList, padValue) into the one struct argument ``fmatrix``; fmatrixMode as it
        stands."""
        mode = {k: v for k, v in args.items() if k == MODE_ARG.name}
        if "fmatrix" in args:
            other = next((k for k in args if k not in ("fmatrix", MODE_ARG.name)), None)
            if other is not None:
                raise InputError(f"{other!r} and fmatrix both give the feature map; give the members either flat or "
                                 "as fmatrix", field=f"args.{other}" if isinstance(other, str) else "args")
            return args
        for k in args:
            if k not in MEMBERS and k != MODE_ARG.name:
                raise InputError(f"unknown argument {k!r} of {self.name}"
                                 f"{did_you_mean(k, (*MEMBERS, 'fmatrix', MODE_ARG.name))}",
                                 field=f"args.{k}" if isinstance(k, str) and k.isprintable() else "args")
        return {"fmatrix": {k: v for k, v in args.items() if k != MODE_ARG.name}, **mode}

    def footprint(self, case: Case) -> Mapping[str, list[tuple[str, int, int]]]:
        return {}

    def execute(self, case: Case, trace: Any) -> None:
        trace.memory.special[register_key(case)] = fmatrix_register_value(case)

    def apply_state(self, case: Case, state: dict[str, Any]) -> None:
        if register_key(case) != FMATRIX_STATE:
            return  # the right feature map: no modelled load reads it
        state[FMATRIX_STATE] = {"fields": {f: case.env[f] for f in FMATRIX_MEMBER_FIELDS}, "dtype": case.ctx.dtype.name}


#: The core's right feature-map register (FMATRIX_RIGHT: no modelled load reads it)
RIGHT_STATE = "fmatrix_right"


def register_key(case: Case) -> str:
    """The feature-map register the call writes: the left one (the loads' state) or the right one."""
    return FMATRIX_STATE if case.env[MODE_ARG.name] == FMATRIX_MODE.code("FMATRIX_LEFT") else RIGHT_STATE


def register_holds_the_feature_map(case: Case, seed: int = 0) -> None:
    """After the call the core's feature-map register (left or right, as fmatrixMode says) holds exactly the call's
    members, and the state a program keeps gives a later load those same members (none for the right one)."""
    memory = Memory.for_product(case.ctx.product)
    case.model.execute(case, Trace(memory))
    reg = memory.special[register_key(case)]
    assert reg == {**case.arg("fmatrix"), "dtype": case.ctx.dtype.name}, reg
    state: dict[str, Any] = {}
    case.model.apply_state(case, state)
    if register_key(case) == RIGHT_STATE:
        assert FMATRIX_STATE not in state, state
        return
    fields = state[FMATRIX_STATE]["fields"]
    assert (fields["fmatrix.l1H"], fields["fmatrix.l1W"]) == (reg["l1H"], reg["l1W"])
    assert [fields[f"fmatrix.padList{i}"] for i in range(4)] == reg["padList"] and fields["fmatrix.padValue"] == reg["padValue"]


SetFmatrix.invariants = (register_holds_the_feature_map,)
