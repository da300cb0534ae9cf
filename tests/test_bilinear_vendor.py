"""BilinearInterpolation against the vendor's implementations (issue 12: 2d, 2e, 2g, 2h, 4).

Expectations come from the page (000_f2fe3f8fa92b9dd9.txt), the vendor code (asc-devkit
impl/basic_api/dav_{3510,c220,m200}/kernel_operator_vec_bilinearinterpolation_impl.h, pyasc's kernel test
python/test/kernels/test_bilinear_interpolation.py) and hand computation written next to each test.

The execution orders used below, read from the vendor code:

- dav_3510 (atlas-350): for each vertical iteration v: Duplicate(dstReg, 0); for each h: LoadAlign 8 offsets,
  GatherB 8 src0 blocks, load the src1 value(s), Mul, Add(dstReg, tmp, dstReg); then StoreAlign (masked).
  sharedTmpBuffer is never touched.
- dav_c220 (atlas-a2/a3): Gatherb (h*v repeats: tmp[0, h*v*256)), Brcb(tmp[h*v*128 halves], src1, src1.size/8)
  (8 values per repeat, each broadcast to a 32-byte block), Mul, per vertical iteration an Add chain from the
  first product, then Adds(dst, tmp, 0) per vertical iteration (masked). Every source read precedes every store.
- dav_m200 (inference AI Core): vadds(tmp, src0Offset, src0's address) over src0Offset.size int32 elements, then
  vbi reads those addresses, src0 and src1 per vertical iteration (spec note bilinear.hazard-order).
"""

from __future__ import annotations

import copy
import json
import struct
from pathlib import Path

import numpy as np
import pytest

from ascverify import check_case, parse_case, run_case
from ascverify.core.memory import Fault
from ascverify.spec.errors import InputError

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = json.loads((ROOT / "examples" / "bilinear_interpolation.json").read_text())
EXAMPLE["tensors"]["src0"]["data"] = list(range(1, 513))  # the page's src0 = 1..512 (the example's .npy)


def half(x: float) -> float:
    """x rounded to IEEE half (round to nearest even), via struct's 'e' format: independent of numpy."""
    return struct.unpack("<e", struct.pack("<e", x))[0]


def doc(product: str = "atlas-a2", **tensors) -> dict:
    """The page's example on ``product``, tensors changed by ``NAME={key: value}`` (None removes the tensor)."""
    d = copy.deepcopy(EXAMPLE)
    d["product"] = product
    for name, change in tensors.items():
        if change is None:
            d["tensors"].pop(name, None)
        else:
            d["tensors"][name].update(change)
    return d


def verdict(d: dict):
    res = check_case(parse_case(d))
    return {v.id for v in res.violations}, {w.id for w in res.warnings}, res


# -- 4: pyasc's kernel test: a 1,056-byte sharedTmpBuffer on atlas-a2 --------------------------------------------------

def pyasc_kernel_case(tmp_bytes: int = 1056, seed: int = 0) -> dict:
    """pyasc python/test/kernels/test_bilinear_interpolation.py, test_vbilinear, on its default platform Ascend910B1
    (python/test/kernels/conftest.py) = atlas-a2, in pyasc's spelling. The TPipe buffers in init order from UB 0:
    x (src0, 512 halves) at 0, x0 (src0_offset, 32 uint32) at 1024, y (src1, 16 halves) at 1152, z (dst, 256
    halves) at 1184, tmp_buf ((src0_len + src1_len) * sizeof(half) = 1056 bytes) at 1696. mask 128, h_repeat 2,
    repeat_mode False, dst_blk_stride 1, v_r_offset 128, v_repeat 2; src0_offset = arange(32) * 32; src0 and src1
    uniform in [-10, 10] (here from a fixed seed)."""
    rng = np.random.default_rng(seed)
    return {
        "api": "bilinear_interpolation", "product": "atlas-a2", "dtype": "half",
        "args": {"mask": 128, "h_repeat": 2, "repeat_mode": False, "dst_blk_stride": 1, "v_r_offset": 128,
                 "v_repeat": 2},
        "tensors": {
            "dst": {"position": "VECOUT", "addr": 1184, "size": 256},
            "src0": {"position": "VECIN", "addr": 0, "size": 512,
                     "data": [float(x) for x in rng.uniform(-10, 10, 512).astype(np.float16)]},
            "src0_offset": {"position": "VECIN", "addr": 1024, "size": 32, "dtype": "uint32",
                            "data": [32 * i for i in range(32)]},
            "src1": {"position": "VECIN", "addr": 1152, "size": 16,
                     "data": [float(x) for x in rng.uniform(-10, 10, 16).astype(np.float16)]},
            "shared_tmp_buffer": {"position": "VECCALC", "addr": 1696, "size": tmp_bytes, "dtype": "uint8"},
        },
    }


def pyasc_golden(d: dict) -> list[float]:
    """dst[128v + 16b + i] = half(half(src1[2v] * x0) + half(src1[2v+1] * x1)): offset k = (2v + h)*8 + b is byte
    32k, i.e. src0 element 16k + i (pyasc's gen_golden_data, with half rounding after every operation)."""
    src0, src1 = d["tensors"]["src0"]["data"], d["tensors"]["src1"]["data"]
    out = []
    for v in range(2):
        for b in range(8):
            for i in range(16):
                p = [half(src1[2 * v + h] * src0[16 * ((2 * v + h) * 8 + b) + i]) for h in range(2)]
                out.append(half(p[0] + p[1]))
    return out


def test_pyasc_kernel_case_reads_in_pyasc_spelling():
    case = parse_case(pyasc_kernel_case())
    assert case.model.name == "BilinearInterpolation"
    out = case.to_json()
    assert set(out["args"]) == {"mask", "hRepeat", "repeatMode", "dstBlkStride", "vROffset", "vRepeat"}
    assert set(out["tensors"]) == {"dst", "src0", "src0Offset", "src1", "sharedTmpBuffer"}
    assert out["tensors"]["sharedTmpBuffer"]["size"] == 1056


def test_pyasc_kernel_case_breaks_the_page_size_and_what_the_implementation_writes():
    """The page: 512*32 + 16*32 = 16,896 bytes. dav_c220: Gatherb writes h*v*256 = 1,024 bytes, Brcb writes
    (16/8)*256 = 512 bytes after them: 1,536 bytes, more than the 1,056 given."""
    errors, warnings, res = verdict(pyasc_kernel_case())
    assert errors == {"bilinear.sharedTmpBuffer.size", "bilinear.sharedTmpBuffer.written"} and not warnings
    msgs = {v.id: v.message for v in res.violations}
    assert "needs 16896" in msgs["bilinear.sharedTmpBuffer.size"]
    assert "needs 1536" in msgs["bilinear.sharedTmpBuffer.written"]


def test_pyasc_kernel_case_faults_out_of_the_tmp_buffer():
    """The first access outside the 1,056 bytes is Brcb's write of tmp[1024, 1536): 480 bytes past the end
    (tmp ends at UB 1696 + 1056 = 2752). Strict runs raise it; a non-strict run also reports Mul's read of the 4
    broadcast blocks tmp[1024, 1152) (repeatMode false: one 32-byte block per iteration): 96 bytes past the end."""
    case = parse_case(pyasc_kernel_case())
    with pytest.raises(Fault) as exc:
        run_case(case)
    f = exc.value
    assert (f.kind, f.access, f.start, f.stop) == ("out_of_bounds", "write", 2752, 1696 + 1536)
    assert "writes 480 bytes past the end of sharedTmpBuffer (declared 1056 bytes" in f.detail
    res = run_case(parse_case(pyasc_kernel_case()), strict=False)
    assert [(g.kind, g.access) for g in res.faults] == [("out_of_bounds", "write"), ("out_of_bounds", "read")]
    assert "reads 96 bytes past the end of sharedTmpBuffer" in res.faults[1].detail
    # the bytes land in free UB, which is why pyasc's own test passes: the result is still right
    assert res.tensors["dst"].astype(np.float64).tolist() == pyasc_golden(pyasc_kernel_case())


@pytest.mark.parametrize("tmp_bytes, fault", [(1536, None), (1535, "writes 1 byte past the end")])
def test_tmp_buffer_boundary_is_what_the_implementation_writes(tmp_bytes, fault):
    """1,536 bytes hold everything dav_c220 writes (the core runs clean and bit-exact); 1,535 do not. Both still
    break the page's 16,896-byte requirement (an error: the page requires it)."""
    d = pyasc_kernel_case(tmp_bytes)
    errors, _, _ = verdict(d)
    assert "bilinear.sharedTmpBuffer.size" in errors
    assert ("bilinear.sharedTmpBuffer.written" in errors) == (fault is not None)
    if fault is None:
        res = run_case(parse_case(d))
        assert not res.faults
        assert res.tensors["dst"].astype(np.float64).tolist() == pyasc_golden(d)
        stored = np.flatnonzero(res.trace.stored("UB")[1696:1696 + 1536])
        assert stored.size == 1536  # every byte of the buffer is written, none past it
    else:
        with pytest.raises(Fault) as exc:
            run_case(parse_case(d))
        assert exc.value.kind == "out_of_bounds" and fault in exc.value.detail


def test_tmp_bytes_written_per_implementation():
    """The page's example (h = v = 2, src1.size 16, src0Offset.size 32): dav_c220 writes tmp[0, 1024) (Gatherb)
    and tmp[1024, 1536) (Brcb: each src1 value broadcast to 16 halves); dav_m200 writes src0Offset.size * 4 = 128
    bytes holding src0's address (512) plus each offset; dav_3510 writes none."""
    src1 = EXAMPLE["tensors"]["src1"]["data"]
    res = run_case(parse_case(doc("atlas-a2")))
    tmp = res.memory.buffers["UB"][1792:1792 + 16896]
    assert np.flatnonzero(res.trace.stored("UB")[1792:1792 + 16896]).tolist() == list(range(1536))
    assert tmp[1024:1536].view(np.float16).tolist() == [float(x) for x in np.repeat(src1, 16)]
    res = run_case(parse_case(doc("atlas-inference-aicore", sharedTmpBuffer={"size": 128})))
    assert res.memory.buffers["UB"][1792:1920].view("<u4").tolist() == [512 + 32 * i for i in range(32)]
    res = run_case(parse_case(doc("atlas-350")))
    assert not res.trace.stored("UB")[1792:1792 + 16896].any()
    assert not [r for r in res.trace.records if r.tensor == "sharedTmpBuffer"]


# -- 2d: atlas-350 never touches sharedTmpBuffer ---------------------------------------------------------------------

@pytest.mark.parametrize("tmp", [{"addr": 0}, {"addr": 1700}, {"addr": 600, "size": 16}])
def test_atlas350_tmp_buffer_placement_is_no_error(tmp):
    """Page 000: no temporary space is needed on Atlas 350; dav_3510 never reads or writes sharedTmpBuffer. Over
    dst, misaligned (1700 % 32 = 4), over src0, too small: no error and no warning, and the run is clean."""
    d = doc("atlas-350", sharedTmpBuffer=tmp)
    errors, warnings, _ = verdict(d)
    assert not errors and not warnings
    res = run_case(parse_case(d))
    assert not res.faults and not [r for r in res.trace.records if r.tensor == "sharedTmpBuffer"]
    assert res.tensors["dst"][:4].tolist() == [389, 394, 399, 404]


def test_the_same_tmp_placement_is_an_error_where_the_buffer_is_used():
    # at 0 the bytes the implementation writes first land on dst: an error (and no warning besides it)
    errors, warnings, _ = verdict(doc("atlas-a2", sharedTmpBuffer={"addr": 0}))
    assert "bilinear.sharedTmpBuffer.dst.hazard" in errors and "bilinear.sharedTmpBuffer.dst.disjoint" not in warnings
    errors, _, _ = verdict(doc("atlas-a2", sharedTmpBuffer={"addr": 1700}))
    assert "bilinear.sharedTmpBuffer.align" in errors


# -- 2e: a source byte read after dst stored it ----------------------------------------------------------------------

def over_src1(product: str, mask) -> dict:
    """dst starts on src1 (UB 1664): block 0 of iteration 0 covers src1[0..15], lane j on src1[j]. Iteration 0
    reads src1[0], src1[1], iteration 1 reads src1[2], src1[3] (repeatMode false, hRepeat 2)."""
    d = doc(product, dst={"addr": 1664}, sharedTmpBuffer={"addr": 4096})
    d["args"]["mask"] = mask
    return d


@pytest.mark.parametrize("product", ["atlas-350", "atlas-inference-aicore"])
def test_store_before_a_later_read_is_an_error(product):
    """mask 3: lanes 0-2 of iteration 0 are stored; lane 2 is src1[2], which iteration 1 reads afterwards."""
    errors, warnings, res = verdict(over_src1(product, 3))
    assert errors == {"bilinear.dst.hazard"} and warnings == {"bilinear.dst.src1.disjoint"}
    assert "iteration 0 stores over src1[2], which iteration 1 reads" in res.violations[0].message
    faults = run_case(parse_case(over_src1(product, 3)), strict=False).faults
    assert {f.kind for f in faults} == {"hazard"} and faults[0].start == 1664 + 4


@pytest.mark.parametrize("product", ["atlas-350", "atlas-inference-aicore"])
def test_store_over_values_already_read_is_a_warning_only(product):
    """mask 2: lanes 0, 1 (src1[0], src1[1]) are stored, both read by iteration 0 before its own store."""
    errors, warnings, _ = verdict(over_src1(product, 2))
    assert not errors and warnings == {"bilinear.dst.src1.disjoint"}
    assert not run_case(parse_case(over_src1(product, 2)), strict=False).faults


@pytest.mark.parametrize("product", ["atlas-a2", "atlas-a3"])
def test_atlas_a2_reads_every_source_before_storing(product):
    """dav_c220 runs Gatherb and Brcb (all offsets, src0 blocks and src1 values) before the first Adds stores:
    the same overlap is harmless there."""
    errors, warnings, res = verdict(over_src1(product, 128))
    assert not errors and warnings == {"bilinear.dst.src1.disjoint"}
    assert "every src1 byte is read before dst is written" in res.warnings[0].message
    assert not run_case(parse_case(over_src1(product, 128)), strict=False).faults


def test_bitwise_mask_counts_an_enabled_block_whole():
    """Bitwise [3, 0] enables lanes 0 and 1 only, like the contiguous mask 2 above: the core (lane by lane) sees no
    hazard, but bilinear.dst.hazard counts block 0 (an enabled lane) as stored whole, over src1[2] (spec note
    bilinear.hazard-order: conservative only for partly enabled blocks of a bitwise mask)."""
    d = over_src1("atlas-350", [3, 0])
    errors, _, res = verdict(d)
    assert errors == {"bilinear.dst.hazard"}
    assert not run_case(parse_case(d), strict=False).faults


def later_iteration_case(product: str) -> dict:
    """hRepeat 1, vRepeat 3, vROffset 128 (256 bytes), full mask: iteration w stores dst bytes [2048 + 256w, +256).
    src1 at 2304 (size 8), iteration v reads src1[v] at 2304 + 2v. Iteration 0 stores [2048, 2304): no src1.
    Iteration 1 stores [2304, 2560): src1[0] (read by iteration 0), src1[1] (read by 1, before its store) and
    src1[2], read by iteration 2 afterwards: the one hazard, from a later iteration's store."""
    d = doc(product, dst={"addr": 2048, "size": 384}, src1={"addr": 2304, "size": 8, "data": list(range(2, 10))},
            sharedTmpBuffer={"addr": 4096, "size": 16896 if product != "atlas-inference-aicore" else 128})
    d["args"].update(hRepeat=1, vRepeat=3)
    return d


@pytest.mark.parametrize("product, hazard", [("atlas-350", True), ("atlas-inference-aicore", True),
                                             ("atlas-a2", False)])
def test_hazard_from_a_later_iteration(product, hazard):
    errors, warnings, res = verdict(later_iteration_case(product))
    assert warnings == {"bilinear.dst.src1.disjoint"}
    assert errors == ({"bilinear.dst.hazard"} if hazard else set())
    if hazard:
        assert res.violations[0].message.count(", which iteration") == 1  # exactly one read after a store
        assert "iteration 1 stores over src1[2], which iteration 2 reads" in res.violations[0].message
    faults = run_case(parse_case(later_iteration_case(product)), strict=False).faults
    assert [(f.kind, f.start) for f in faults] == ([("hazard", 2308)] if hazard else [])


@pytest.mark.parametrize("product, hazard", [("atlas-350", True), ("atlas-inference-aicore", False),
                                             ("atlas-a2", False)])
def test_dst_over_src0Offset(product, hazard):
    """dst at 1536 (bytes [1536, 2048)) covers src0Offset [1536, 1664); src1 moved to 3072. Iteration v reads
    entries 16v..16v+15; iteration 0 stores over entries 16..31, which iteration 1 reads. atlas-350 reads them per
    iteration (hazard); the inference AI Core copies them all into sharedTmpBuffer with vadds first, atlas-a2 reads
    them all in Gatherb first (harmless)."""
    d = doc(product, dst={"addr": 1536}, src1={"addr": 3072},
            sharedTmpBuffer={"addr": 4096, "size": 16896 if product != "atlas-inference-aicore" else 128})
    errors, warnings, res = verdict(d)
    assert warnings == {"bilinear.dst.src0Offset.disjoint"}
    assert errors == ({"bilinear.dst.hazard"} if hazard else set())
    if hazard:
        msg = res.violations[0].message
        assert "iteration 0 stores over src0Offset[16], which iteration 1 reads" in msg
        assert "13 more src0Offset entries like that" in msg
    faults = run_case(parse_case(d), strict=False).faults
    assert bool(faults) == hazard and {f.kind for f in faults} <= {"hazard"}
    if hazard:
        assert faults[0].start == 1536 + 64


@pytest.mark.parametrize("product, rule", [("atlas-350", True), ("atlas-inference-aicore", True),
                                           ("atlas-a2", False)])
def test_src0_hazard_depends_on_the_offsets(product, rule):
    """dst at 512 (bytes [512, 1024)) covers the first half of src0 [512, 1536). With the page's offsets iteration 1
    reads src0 bytes [1024, 1536): nothing stored there, no error. With src0Offset[16] = 0, iteration 1 reads the
    block at src0's start, which iteration 0 stored (block 0): an error where the product reads src0 per iteration.
    Without the offsets the rule is not checked."""
    tmp = {"addr": 4096, "size": 16896 if product != "atlas-inference-aicore" else 128}
    d = doc(product, dst={"addr": 512}, sharedTmpBuffer=tmp)
    errors, warnings, _ = verdict(d)
    assert not errors and warnings == {"bilinear.dst.src0.disjoint"}
    d["tensors"]["src0Offset"]["data"][16] = 0
    errors, _, res = verdict(d)
    assert errors == ({"bilinear.dst.src0.hazard"} if rule else set())
    if rule:
        assert "iteration 0 stores over the src0 block at offset 0 (src0Offset[16]), which iteration 1 reads" \
            in res.violations[0].message
    faults = run_case(parse_case(d), strict=False).faults
    assert {f.kind for f in faults} == ({"hazard"} if rule else set())
    del d["tensors"]["src0Offset"]["data"]
    _, _, res = verdict(d)
    assert ("bilinear.dst.src0.hazard" in {u.rule_id for u in res.unchecked}) == rule


# -- 2h: where the sum starts (signed zeros) -------------------------------------------------------------------------

@pytest.mark.parametrize("product", ["atlas-350", "atlas-a2", "atlas-a3", "atlas-inference-aicore"])
@pytest.mark.parametrize("src0, src1", [(-0.0, 1.5), (0.0, -2.0)])
def test_all_negative_zero_products_give_positive_zero(product, src0, src1):
    """Every product is -0 (IEEE: the sign of a zero product is the XOR of the signs). The result is +0 everywhere:

    - dav_3510: Duplicate(dstReg, 0) then Add(dstReg, product, dstReg): +0 + (-0) = +0 (round to nearest), and
      +0 + (-0) = +0 again for the second horizontal iteration.
    - dav_c220: Add(tmp[iH], tmp[iH+1], tmp[iH]) starts from the first product: -0 + (-0) = -0; then the copy to dst
      is Adds(dst, tmp, 0): -0 + (+0) = +0.
    - dav_m200 (one vbi instruction): HARDWARE_NOTES say the sum starts at 0: +0 as for dav_3510.

    Summing from the first product without the final Adds would give -0 (0x8000)."""
    d = doc(product, src0={"data": [src0] * 512}, src1={"data": [src1] * 16},
            sharedTmpBuffer={"size": 16896 if product != "atlas-inference-aicore" else 128})
    bits = run_case(parse_case(d)).tensors["dst"].view(np.uint16)
    assert bits.tolist() == [0x0000] * 256


def test_a_nonzero_sum_is_the_same_on_every_product():
    """The start (0 + p0 or p0, then + 0) changes only a sum of -0 products: the page's example is bit-identical."""
    outs = {p: run_case(parse_case(doc(p, sharedTmpBuffer={"size": 16896 if p != "atlas-inference-aicore" else 128})))
            .tensors["dst"].view(np.uint16).tolist() for p in ("atlas-350", "atlas-a2", "atlas-inference-aicore")}
    assert outs["atlas-350"] == outs["atlas-a2"] == outs["atlas-inference-aicore"]


# -- atlas-a2/a3: dav_c220's uint8 counters ---------------------------------------------------------------------------

def test_hv_repeats_beyond_uint8():
    """hRepeat 2 x vRepeat 128 = 256: innerRepeatTimes (uint8) is 0, so Gatherb and Mul run no repeat and the Add
    chain reads bytes nothing wrote. Sizes that fit: dst 127*128 + 128 = 16384 halves, 2048 offsets, src1 256
    values, tmp 256*256 + (256/8)*256 = 73728 bytes (page: 16*32 + 256*32 = 8704)."""
    d = doc("atlas-a2", dst={"addr": 0, "size": 16384}, src0={"addr": 32768, "size": 16, "data": [1.0] * 16},
            src0Offset={"addr": 33792, "size": 2048, "data": [0] * 2048},
            src1={"addr": 41984, "size": 256, "data": [1.0] * 256},
            sharedTmpBuffer={"addr": 43008, "size": 73728})
    d["args"].update(hRepeat=2, vRepeat=128)
    errors, _, _ = verdict(d)
    assert errors == {"bilinear.hvRepeat.range"}
    kinds = {f.kind for f in run_case(parse_case(d), strict=False).faults}
    assert "uninitialized" in kinds
    d["product"] = "atlas-350"  # dav_3510 counts with uint16 loops: fine there
    errors, _, _ = verdict(d)
    assert not errors and not run_case(parse_case(d)).faults


@pytest.mark.parametrize("size, rules", [
    (4, {"bilinear.src1.brcb_size"}),        # 4 / 8 = 0 Brcb repeats: no value is broadcast
    (8, set()),                              # one repeat broadcasts src1[0..7]: the 4 used
    (2048, {"bilinear.src1.brcb_repeat"}),   # 2048 / 8 = 256 repeats, 0 as a uint8
    (2064, set()),                           # 258 -> 2 repeats: 16 values, 4 used
])
def test_brcb_groups_of_eight(size, rules):
    """hRepeat = vRepeat = 2, repeatMode false: 4 src1 values are used; Brcb(tmp, src1, src1.size / 8) repeats
    (uint8) broadcast 8 values each. The page's tmp size grows with src1 (512*32 + size*32)."""
    d = doc("atlas-a2", src1={"addr": 1664, "size": size, "data": [float(i % 7 + 1) for i in range(size)]},
            sharedTmpBuffer={"addr": 8192, "size": 512 * 32 + size * 32})
    errors, _, _ = verdict(d)
    assert errors == rules
    faults = run_case(parse_case(d), strict=False).faults
    assert ({f.kind for f in faults} == {"uninitialized"}) == bool(rules)


# -- 2g: pyasc's spelling -------------------------------------------------------------------------------------------

def test_pyasc_names_and_their_limits():
    d = pyasc_kernel_case()
    assert parse_case(d).to_json()["api"] == "BilinearInterpolation"
    both = copy.deepcopy(d)
    both["tensors"]["src0Offset"] = both["tensors"]["src0_offset"]
    with pytest.raises(InputError, match="two names of one tensor"):
        parse_case(both)
    mixed = copy.deepcopy(d)
    mixed["args"]["vRepeat"] = mixed["args"].pop("v_repeat")
    with pytest.raises(InputError, match="spelling"):
        parse_case(mixed)
    ascend = copy.deepcopy(d)
    ascend["api"] = "BilinearInterpolation"
    assert parse_case(ascend).to_json() == parse_case(d).to_json()
