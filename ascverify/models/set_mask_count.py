"""SetMaskCount(): the vector unit in Counter mode (the vendor's SetMaskCount page; `mask_mode`)."""

from __future__ import annotations

from ..spec.registry import register
from .mask_mode import COUNT_PAGE, MaskModeSetter


@register
class SetMaskCount(MaskModeSetter):
    name = "SetMaskCount"
    aliases = ("set_mask_count", "asc.language.basic.set_mask_count")
    prefix = "set_mask_count"
    summary = "put the vector unit in Counter mode: a later SetVectorMask's low word is the element count"
    mode = "COUNTER"
    page = COUNT_PAGE
