"""SetMaskNorm(): the vector unit in Normal mode, its default (the vendor's SetMaskNorm page; `mask_mode`)."""

from __future__ import annotations

from ..spec.registry import register
from .mask_mode import NORM_PAGE, MaskModeSetter


@register
class SetMaskNorm(MaskModeSetter):
    name = "SetMaskNorm"
    aliases = ("set_mask_norm", "asc.language.basic.set_mask_norm")
    prefix = "set_mask_norm"
    summary = "put the vector unit back in Normal mode (the default): a later SetVectorMask's words are lane bits"
    mode = "NORMAL"
    page = NORM_PAGE
