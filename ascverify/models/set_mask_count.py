"""SetMaskCount(): the vector unit in Counter mode (the vendor's SetMaskCount page; `mask_mode`)."""

from __future__ import annotations

from ..spec.registry import register
from .mask_mode import COUNT_PAGE, MaskModeSetter, mode_note


@register
class SetMaskCount(MaskModeSetter):
    name = "SetMaskCount"
    aliases = ("set_mask_count", "asc.language.basic.set_mask_count")
    prefix = "set_mask_count"
    summary = "put the vector unit in Counter mode: a later SetVectorMask's low word is the element count"
    mode = "COUNTER"
    page = COUNT_PAGE
    support_source = (f"{COUNT_PAGE}, Product support (not the training series, not the inference Vector Core); "
                      "HARDWARE_NOTES.md Masks (vector ops); types: none, the program's T is taken as it is")
    notes = (mode_note("SetMaskCount", "COUNTER", COUNT_PAGE, "set_mask_count"),)
