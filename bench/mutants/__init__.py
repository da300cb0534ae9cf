"""Realistic buggy kernels, one mistake each, for measuring what a default differential campaign catches.

Each entry is an ``ascverify fuzz --target FILE:FUNCTION`` function. The Bilinear, BlockReduce and Reg API kernels
are numpy implementations written from the pages (`bilinear`, `block_reduce`, `reg`), each variant with one
mistake of the kinds kernels get wrong (off-by-one loops, ignored strides, wrong units, mask word and bit order,
wrong rounding, wrong fills, NaN handling, padding, dilation, fractal order); the img2col kernels (`img2col`) are the
core with one mistake installed. `CORRECT` lists the implementations that must get no finding.

``python -m bench.mutants`` (or bench/fuzz_bench.py's time-to-kill figures) runs a default ``--time`` campaign per
mutant and records when its first finding came.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent


@dataclass(frozen=True)
class Kernel:
    """One implementation under test: the API it implements, its file and function, and its mistake (if any)."""

    api: str
    file: str
    function: str
    bug: str = ""

    @property
    def name(self) -> str:
        return f"{Path(self.file).stem}.{self.function}"

    @property
    def spec(self) -> str:
        """The ``--target`` of the kernel."""
        return f"{HERE / self.file}:{self.function}"


def _k(api: str, file: str, *functions: str) -> list[Kernel]:
    import importlib.util

    spec = importlib.util.spec_from_file_location(f"_bench_mutants_{Path(file).stem}", HERE / file)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)  # type: ignore[union-attr]
    out = []
    for f in functions:
        fn = getattr(mod, f)
        doc = (fn.__doc__ or "").strip().splitlines()
        bug = doc[0] if doc else ""
        if not bug:  # the img2col kernels: the installed mutant's description
            target = getattr(mod, f.upper(), None) or next((v for k, v in vars(mod).items()
                                                             if getattr(v, "name", "") == f.replace("_", "-")), None)
            bug = getattr(target, "description", f)
        out.append(Kernel(api, file, f, bug))
    return out


def correct() -> list[Kernel]:
    """The implementations that must pass (no finding)."""
    return [
        Kernel("BilinearInterpolation", "bilinear.py", "reference"),
        Kernel("BlockReduceMin", "block_reduce.py", "block_reduce_min"),
        Kernel("BlockReduceMax", "block_reduce.py", "block_reduce_max"),
        Kernel("BlockReduceSum", "block_reduce.py", "block_reduce_sum"),
        Kernel("LoadAlign", "reg.py", "load_align"),
        Kernel("MaskGenWithRegTensor", "reg.py", "mask_gen"),
        Kernel("Load3DBitMode", "img2col.py", "core"),
        Kernel("LoadDataWithStride", "img2col.py", "core"),
    ]


def mutants() -> list[Kernel]:
    """Every buggy kernel (more than 40, across every API that can be a target)."""
    return [
        *_k("BilinearInterpolation", "bilinear.py", "mask_words_swapped", "mask_bits_msb_first",
            "contiguous_mask_one_extra", "repeat_mode_ignored", "src1_ignores_vertical", "offsets_as_elements",
            "vroffset_in_bytes", "dst_blk_stride_in_elements", "dst_blk_stride_ignored", "rounds_once_at_the_end",
            "fused_multiply_add", "accumulates_into_dst", "masked_lanes_zeroed", "last_horizontal_dropped",
            "reversed_sum_order"),
        *_k("BlockReduceMin", "block_reduce.py", "min_ignores_nan", "min_masked_block_fill_zero",
            "min_masked_block_stored", "min_half_fill_inf", "min_dst_rep_stride_in_blocks", "min_src_blk_stride_ignored",
            "min_mask_words_swapped", "min_contiguous_mask_per_block", "min_last_repeat_dropped"),
        *_k("BlockReduceMax", "block_reduce.py", "max_ignores_nan", "max_masked_block_fill_zero"),
        *_k("BlockReduceSum", "block_reduce.py", "sum_sequential", "sum_src_blk_stride_ignored"),
        *_k("LoadAlign", "reg.py", "load_align_us_tiles", "load_align_ds_keeps_odd", "load_align_addr_reg_in_bytes",
            "load_align_update_reads_after", "load_align_msb_first", "load_align_index_ignored"),
        *_k("MaskGenWithRegTensor", "reg.py", "mask_gen_b32_as_b16", "mask_gen_offset_ignored", "mask_gen_msb_first",
            "mask_gen_tiles"),
        *_k("Load3DBitMode", "img2col.py", "dilation_ignored", "stride_ignored", "padding_ignored",
            "pad_top_bottom_swapped", "pad_value_zero", "filter_flags_ignored", "transpose_ignored", "mpos_ignored",
            "zz_fractal_order", "nhwc_feature_map"),
        *_k("LoadDataWithStride", "img2col.py", "repeat_mode_swapped", "repeat_time_short", "repeat_stride_unit",
            "dst_stride_ignored"),
    ]
