"""SetMaskNorm(): the vector unit in Normal mode, its default (the vendor's SetMaskNorm page; `mask_mode`)."""

from __future__ import annotations

from ..spec.registry import register
from .mask_mode import NORM_PAGE, MaskModeSetter, mode_note


@register
class SetMaskNorm(MaskModeSetter):
    name = "SetMaskNorm"
    aliases = ("set_mask_norm", "asc.language.basic.set_mask_norm")
    prefix = "set_mask_norm"
    summary = "put the vector unit back in Normal mode (the default): a later SetVectorMask's words are lane bits"
    mode = "NORMAL"
    page = NORM_PAGE
    support_source = (f"{NORM_PAGE}, Product support (not the training series, not the inference Vector Core); "
                      "HARDWARE_NOTES.md Masks (vector ops); types: none, the program's T is taken as it is")
    notes = (mode_note("SetMaskNorm", "NORMAL", NORM_PAGE, "set_mask_norm"),)
