"""Load3DBitMode and LoadDataWithStride (img2col, page 002_70a359bc6af47a68.txt, page 003 and HARDWARE_NOTES):
realistic buggy kernels built from ascverify's core with one mistake installed (`ascverify.engines.fuzz.mutants`:
the case the core sees, or the addresses of its reads and writes, changed the way the bug changes them). ``core``
is the unmutated core (the correct implementation). Each is an ``ascverify fuzz --target`` function.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ascverify.engines.fuzz.mutants import Mutant, run_as_target, with_case, with_trace
from ascverify.models.img2col import FRACTAL_BYTES, VECTOR_BYTES, Geometry
from ascverify.models.load3d import output_of


def core(case, inputs):
    """The core itself: what a correct kernel computes."""
    return run_as_target(case, inputs)


def _changed(**fields: Any):
    """A case change: the fields given (each a value, or a function of the case's env), when it changes something."""
    def change(case):
        env = case.env
        out = {}
        for k, v in fields.items():
            if k not in env:
                continue
            new = v(env) if callable(v) else v
            if new is not None and new != env[k]:
                out[k] = new
        return out or None
    return change


def _when(cond, change):
    return lambda case: change(case) if cond(case.env) else None


def _zz_order(case, probe):
    """Fractals stored row block by row block (ZZ) instead of column block by column block (NZ)."""
    out = output_of(case)
    dst = case.tensor("dst")

    def on_write(trace, buffer, starts, length, data, kw):
        if length != FRACTAL_BYTES or out.row_blocks < 2 or out.col_blocks < 2:
            return starts, data, kw
        rel = (starts - dst.addr) // FRACTAL_BYTES
        stride = max(out.dst_stride, 1)
        cb, rb = np.divmod(rel, stride)
        new = dst.addr + (rb * out.col_blocks + cb) * FRACTAL_BYTES
        if not np.array_equal(new, starts):
            probe.touched = True
        return new, data, kw
    return {"on_write": on_write}


def _nhwc_map(case, probe):
    """The feature map read as (h, w, c1) with C1 innermost instead of NC1HWC0 ((c1, h, w))."""
    env = case.env
    src = case.tensor("src")
    if not env.get("fmatrix.present"):
        return {}
    geo = Geometry.of(env, case.ctx.dtype.size)
    plane = max(geo.l1h * geo.l1w, 1)

    def on_read(trace, buffer, starts, length, kw):
        if length != VECTOR_BYTES or buffer != src.buffer:
            return starts, None
        vec = (starts - src.addr) // VECTOR_BYTES
        c1, rest = np.divmod(vec, plane)
        new = src.addr + (rest * geo.c1 + c1) * VECTOR_BYTES
        if not np.array_equal(new, starts):
            probe.touched = True
        return new, None
    return {"on_read": on_read}


DILATION_IGNORED = Mutant("dilation-ignored", "dilationW/dilationH ignored (taken as 1)",
                          with_case(_changed(dilationW=1, dilationH=1)))
STRIDE_IGNORED = Mutant("stride-ignored", "strideW/strideH ignored (taken as 1)",
                        with_case(_changed(strideW=1, strideH=1)))
PADDING_IGNORED = Mutant("padding-ignored", "the feature map's padding ignored",
                         with_case(_changed(**{f"fmatrix.padList{i}": 0 for i in range(4)})))
PAD_TOP_BOTTOM_SWAPPED = Mutant("pad-top-bottom-swapped", "padList read as (left, right, bottom, top)",
                                with_case(_changed(**{"fmatrix.padList2": lambda e: e["fmatrix.padList3"],
                                                      "fmatrix.padList3": lambda e: e["fmatrix.padList2"]})))
PAD_VALUE_ZERO = Mutant("pad-value-zero", "padding filled with 0 instead of padValue",
                        with_case(_changed(**{"fmatrix.padValue": 0})))
FILTER_FLAGS_IGNORED = Mutant("filter-flags-ignored", "filterW/filterH (+256 to the kernel size) ignored",
                              with_case(_changed(filterW=False, filterH=False)))
TRANSPOSE_IGNORED = Mutant("transpose-ignored", "transpose ignored on A2",
                           with_case(_changed(transpose=False)))
MPOS_IGNORED = Mutant("mpos-ignored", "mPos ignored (the window starts at row 0)", with_case(_changed(mPos=0)))
ZZ_ORDER = Mutant("zz-fractal-order", "fractals stored in ZZ order (row blocks first) instead of NZ",
                  with_trace(_zz_order))
NHWC_MAP = Mutant("nhwc-feature-map", "feature map read as (h, w, c1) instead of NC1HWC0", with_trace(_nhwc_map))
REPEAT_MODE_SWAPPED = Mutant("repeat-mode-swapped", "repeatMode 0 read as along width and 1 as along height",
                             with_case(_when(lambda e: e.get("repeat.present") and int(e["repeat.repeatTime"]) > 1,
                                             _changed(**{"repeat.repeatMode": lambda e: 1 - int(e["repeat.repeatMode"])}))))
REPEAT_TIME_SHORT = Mutant("repeat-time-short", "repeatTime - 1 repeats run",
                           with_case(_when(lambda e: e.get("repeat.present") and int(e["repeat.repeatTime"]) > 1,
                                           _changed(**{"repeat.repeatTime": lambda e: int(e["repeat.repeatTime"]) - 1}))))
REPEAT_STRIDE_DOUBLED = Mutant("repeat-stride-unit", "repeatStride taken in units twice as large",
                               with_case(_when(lambda e: e.get("repeat.present") and int(e["repeat.repeatTime"]) > 1,
                                               _changed(**{"repeat.repeatStride":
                                                           lambda e: 2 * int(e["repeat.repeatStride"])}))))
def _dst_stride_ignored(case):
    if not case.env.get("repeat.present"):
        return None
    rb = output_of(case).row_blocks
    return {"repeat.dstStride": rb} if int(case.env["repeat.dstStride"]) != rb else None


DST_STRIDE_IGNORED = Mutant("dst-stride-ignored", "dstStride ignored (O stored as a contiguous NZ matrix)",
                            with_case(_dst_stride_ignored))


def dilation_ignored(case, inputs):
    return run_as_target(case, inputs, DILATION_IGNORED)


def stride_ignored(case, inputs):
    return run_as_target(case, inputs, STRIDE_IGNORED)


def padding_ignored(case, inputs):
    return run_as_target(case, inputs, PADDING_IGNORED)


def pad_top_bottom_swapped(case, inputs):
    return run_as_target(case, inputs, PAD_TOP_BOTTOM_SWAPPED)


def pad_value_zero(case, inputs):
    return run_as_target(case, inputs, PAD_VALUE_ZERO)


def filter_flags_ignored(case, inputs):
    return run_as_target(case, inputs, FILTER_FLAGS_IGNORED)


def transpose_ignored(case, inputs):
    return run_as_target(case, inputs, TRANSPOSE_IGNORED)


def mpos_ignored(case, inputs):
    return run_as_target(case, inputs, MPOS_IGNORED)


def zz_fractal_order(case, inputs):
    return run_as_target(case, inputs, ZZ_ORDER)


def nhwc_feature_map(case, inputs):
    return run_as_target(case, inputs, NHWC_MAP)


def repeat_mode_swapped(case, inputs):
    return run_as_target(case, inputs, REPEAT_MODE_SWAPPED)


def repeat_time_short(case, inputs):
    return run_as_target(case, inputs, REPEAT_TIME_SHORT)


def repeat_stride_unit(case, inputs):
    return run_as_target(case, inputs, REPEAT_STRIDE_DOUBLED)


def dst_stride_ignored(case, inputs):
    return run_as_target(case, inputs, DST_STRIDE_IGNORED)
