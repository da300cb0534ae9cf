"""The Reg API calls into a MaskReg written from page 001 (001_fa274d527d3e292b.txt) and HARDWARE_NOTES Reg API:
LoadAlign and MaskGenWithRegTensor, `load_align` / `mask_gen` and realistic buggy variants. Each is an
``ascverify fuzz --target`` function returning the MaskReg it writes: ``{"MaskReg": {index: 32 bytes}}``.

LoadAlign: from UB at srcAddr (plus the AddrReg offset, sum of indices[k]*strides[k] elements of T, or the int32
offset in bytes with POST_MODE_NORMAL; POST_MODE_UPDATE reads at srcAddr and moves it afterwards) it reads 32 bytes
(DIST_NORM, bit i to mask bit i), 16 (DIST_US, each bit doubled) or 64 (DIST_DS, the even bits kept); bit i of a
MaskReg is bit i % 8 of byte i // 8. MaskGenWithRegTensor: 16-bit T: the 16-byte chunk ``offset`` of the RegTensor,
each bit to 2 mask bits; 32-bit T: the 8-byte chunk ``offset``, each bit to 4.
"""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np

SIZES = {"b8": 1, "bool": 1, "int8": 1, "uint8": 1, "fp8_e4m3fn": 1, "fp8_e5m2": 1, "hifloat8": 1, "b16": 2, "half": 2,
         "bfloat16": 2, "int16": 2, "uint16": 2, "b32": 4, "float": 4, "int32": 4, "uint32": 4, "b64": 8,
         "int64": 8, "uint64": 8}
READ = {"DIST_NORM": 32, "DIST_US": 16, "DIST_DS": 64}


def bits_of(raw: np.ndarray, msb_first: bool = False) -> np.ndarray:
    return np.unpackbits(np.asarray(raw, dtype=np.uint8), bitorder="big" if msb_first else "little").astype(bool)


def bytes_of(bits: np.ndarray) -> np.ndarray:
    return np.packbits(np.asarray(bits, dtype=bool), bitorder="little")


def load_align(case: Mapping[str, Any], inputs: Mapping[str, np.ndarray], **bug: Any) -> dict:
    a = case["args"]
    size = SIZES[case["dtype"]]
    src = np.ascontiguousarray(inputs["srcAddr"]).reshape(-1).view(np.uint8)
    offset = 0
    if a.get("addrReg"):
        reg = a["addrReg"]
        offset = sum(int(s) * int(i) for s, i in zip(reg["strides"], reg["indices"]))
        if not bug.get("addr_reg_in_bytes"):
            offset *= size
    elif "offset" in a and (a.get("postMode") == "POST_MODE_NORMAL" or bug.get("update_reads_after")):
        offset = int(a["offset"])
    dist = a.get("dist", "DIST_NORM")
    n = READ[dist] if not bug.get("us_reads_32") or dist != "DIST_US" else 32
    raw = src[offset:offset + n]
    bits = bits_of(raw, bug.get("msb_first", False))
    if dist == "DIST_US":
        bits = np.tile(bits, 2)[:256] if bug.get("us_tiles") else np.repeat(bits, 2)[:256]
    elif dist == "DIST_DS":
        bits = bits[1::2] if bug.get("ds_odd") else bits[0::2]
    index = 0 if bug.get("index_ignored") else int(a.get("mask", 0))
    return {"MaskReg": {index: bytes_of(bits)}}


def mask_gen(case: Mapping[str, Any], inputs: Mapping[str, np.ndarray], **bug: Any) -> dict:
    a = case["args"]
    size = SIZES[case["dtype"]]
    src_index = str(int(a["srcReg"]))
    raw = np.array(case["registers"]["vreg"][src_index], dtype=np.uint8)
    chunk = 16 if size == 2 else 8
    if bug.get("b32_as_b16"):
        chunk = 16
    offset = 0 if bug.get("offset_ignored") else int(a["offset"])
    part = raw[offset * chunk:(offset + 1) * chunk]
    bits = bits_of(part, bug.get("msb_first", False))
    bits = np.repeat(bits, 256 // bits.size)[:256] if not bug.get("tiles") else np.tile(bits, 256 // bits.size)[:256]
    return {"MaskReg": {int(a["dst"]): bytes_of(bits)}}


# -- LoadAlign -------------------------------------------------------------------------------------------------------

def load_align_us_tiles(case, inputs):
    """DIST_US: the 128 bits repeated as a whole (tile) instead of each bit doubled."""
    return load_align(case, inputs, us_tiles=True)


def load_align_ds_keeps_odd(case, inputs):
    """DIST_DS: the odd bits kept instead of the even ones."""
    return load_align(case, inputs, ds_odd=True)


def load_align_addr_reg_in_bytes(case, inputs):
    """The AddrReg offset taken in bytes instead of elements of T."""
    return load_align(case, inputs, addr_reg_in_bytes=True)


def load_align_update_reads_after(case, inputs):
    """POST_MODE_UPDATE reads at srcAddr + offset (the update applied before the load)."""
    return load_align(case, inputs, update_reads_after=True)


def load_align_msb_first(case, inputs):
    """Mask bit i taken from bit 7 - i % 8 of byte i // 8 (most significant bit first)."""
    return load_align(case, inputs, msb_first=True)


def load_align_index_ignored(case, inputs):
    """The result always written to MaskReg 0, whatever the mask register named."""
    return load_align(case, inputs, index_ignored=True)


# -- MaskGenWithRegTensor --------------------------------------------------------------------------------------------

def mask_gen_b32_as_b16(case, inputs):
    """32-bit T handled like 16-bit T (16-byte chunks, each bit doubled)."""
    return mask_gen(case, inputs, b32_as_b16=True)


def mask_gen_offset_ignored(case, inputs):
    """offset ignored (always the first chunk)."""
    return mask_gen(case, inputs, offset_ignored=True)


def mask_gen_msb_first(case, inputs):
    """The chunk's bits read most significant first."""
    return mask_gen(case, inputs, msb_first=True)


def mask_gen_tiles(case, inputs):
    """The chunk's bits repeated as a whole instead of each bit repeated."""
    return mask_gen(case, inputs, tiles=True)
