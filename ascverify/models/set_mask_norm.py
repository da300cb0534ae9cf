"""SetMaskNorm(): the vector unit in Normal mode, its default (the vendor's SetMaskNorm page; `mask_mode`)."""

from __future__ import annotations

from ..spec.model import SpecNote
from ..spec.registry import register
from .mask_mode import NORM_PAGE, MaskModeSetter

#: The page refuses the training series; the vendor's implementation and its Ascend 910 test make the call there.
TRAINING = SpecNote(
    "set_mask_norm.training", "SetMaskNorm on the training series",
    "Accepted on atlas-training with the warning set_mask_norm.product.page (not the error product.support): Normal "
    "is the only mask mode there (SetMaskCount stays refused, no vendor code calls it there), so the call sets the "
    "mode the unit is already in and changes nothing; `run` treats it so.",
    "The SetMaskNorm page lists the Atlas training series as not supported. The vendor's implementation has no "
    "product guard: SetMaskNorm() calls SetMaskNormImpl(), which issues set_mask_norm() on every __NPU_ARCH__ but "
    "3113, the training series' 1001 included; the vendor's Ascend 910 test suite calls SetMaskNorm() before "
    "SetVectorMask<uint16_t, NORMAL>(0, 0) and passes on the 910 CPU model. A tool that refused the vendor's own "
    "call would be wrong; the page's word stays visible as a warning.",
    (f"{NORM_PAGE}, Product support (Atlas training series: not supported)",
     "asc-devkit impl/basic_api/kernel_reg.h:148-156 (SetMaskNormImpl); include/basic_api/kernel_common.h:200",
     "asc-devkit tests/api/basic_api/ascendc_case_ascend910/test_set_vector_mask.cpp:133-134 (ascend910)"),
    ("set_mask_norm.product.page", "set_mask_norm.product.support"))


@register
class SetMaskNorm(MaskModeSetter):
    name = "SetMaskNorm"
    aliases = ("set_mask_norm", "asc.language.basic.set_mask_norm")
    prefix = "set_mask_norm"
    summary = "put the vector unit back in Normal mode (the default): a later SetVectorMask's words are lane bits"
    mode = "NORMAL"
    page = NORM_PAGE
    tolerated = {"atlas-training": TRAINING}
