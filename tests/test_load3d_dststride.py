"""Where Load3DBitMode and LoadDataWithStride store: dstStride, transposition, repeats (issue 12, items 2a-2c, 2i).

The expected bytes are computed here, apart from the model: the img2col matrix by a direct loop over the output
positions and kernel taps (K ordered (c1, kh, kw, c0), spec note load3d.k-order), and the placement by the reading of
spec note load3d.output: the output O (the window, or its transpose for B2 and for A2 with transpose) in fractals of
16 rows x C0 columns, fractal (rb, cb) at dst + (cb*dstStride + rb)*512 bytes, row-major inside. That reading comes
from the vendor (page 003: dstStride is the output's K-axis offset in 512-byte fractals; dav_3510's
SetLoadDataRepeatStride sets it to O's fractal rows; the load_data_with_stride example and conv kernels)."""

from __future__ import annotations

import numpy as np
import pytest

from ascverify import check_case, get_api, parse_case, run_case
from ascverify.cases.program import parse_program
from ascverify.checking.program import check_program
from ascverify.core.program import run_program

NP = {"half": np.float16, "float": np.float32, "int8": np.int8}
C0 = {"half": 16, "float": 8, "int8": 32}


def img2col(x: np.ndarray, kh: int = 1, kw: int = 1, pads=(0, 0, 0, 0), stride=(1, 1), dilation=(1, 1),
            pad_value=0) -> np.ndarray:
    """The img2col matrix of x (C1*C0 channels, H, W): row ho*Wo + wo, column ((c1*kh + i)*kw + j)*C0 + c0, the
    element x[c1*C0 + c0, ho*sh + i*dh - top, wo*sw + j*dw - left] (pad_value outside)."""
    c, h, w = x.shape
    left, right, top, bottom = pads
    (sh, sw), (dh, dw) = stride, dilation
    c0 = C0[{np.dtype(np.float16): "half", np.dtype(np.float32): "float", np.dtype(np.int8): "int8"}[x.dtype]]
    c1 = c // c0
    ho = (h + top + bottom - dh * (kh - 1) - 1) // sh + 1
    wo = (w + left + right - dw * (kw - 1) - 1) // sw + 1
    out = np.zeros((ho * wo, c1 * kh * kw * c0), dtype=x.dtype)
    for oh in range(ho):
        for ow in range(wo):
            for g in range(c1):
                for i in range(kh):
                    for j in range(kw):
                        y, z = oh * sh + i * dh - top, ow * sw + j * dw - left
                        col = ((g * kh + i) * kw + j) * c0
                        if 0 <= y < h and 0 <= z < w:
                            out[oh * wo + ow, col:col + c0] = x[g * c0:(g + 1) * c0, y, z]
                        else:
                            out[oh * wo + ow, col:col + c0] = pad_value
    return out


def nc1hwc0(x: np.ndarray, c0: int) -> np.ndarray:
    """x (C1*C0, H, W) as L1 holds it: element ((c1*H + h)*W + w)*C0 + c0."""
    c, h, w = x.shape
    return x.reshape(c // c0, c0, h, w).transpose(0, 2, 3, 1).reshape(-1)


def placed(rows: int, cols: int, c0: int, stride: int) -> np.ndarray:
    """Element offsets from dst's start of O's elements (rows x cols): fractal (r // 16, c // C0) at fractal index
    (c // C0) * stride + r // 16, row-major inside."""
    r, c = np.meshgrid(np.arange(rows), np.arange(cols), indexing="ij")
    return ((c // c0) * stride + r // 16) * 16 * c0 + (r % 16) * c0 + c % c0


def feature_map(dtype: str, channels: int, h: int, w: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return rng.integers(-9, 10, size=(channels, h, w)).astype(NP[dtype])


def case_doc(api: str, dtype: str, x: np.ndarray, args: dict, *, dst_pos: str = "A2", dst_size: int = 16384,
             repeat: dict | None = None) -> dict:
    src_pos = "A1" if dst_pos == "A2" else "B1"
    c, h, w = x.shape
    base = {"channelSize": c, "l1H": h, "l1W": w, "filterW": 1, "filterH": 1, "padList": [0, 0, 0, 0]}
    doc = {"api": api, "product": "atlas-350", "dtype": dtype, "args": {**base, **args},
           "tensors": {"dst": {"position": dst_pos, "addr": 0, "size": dst_size},
                       "src": {"position": src_pos, "addr": 0, "size": x.size,
                               "data": nc1hwc0(x, C0[dtype]).tolist()}}}
    if repeat is not None:
        doc["args"]["repeat"] = repeat
    return doc


def stored(doc: dict) -> tuple[np.ndarray, np.ndarray, np.ndarray, object]:
    """dst after the call, dst before it (random contents), and the run."""
    res = run_case(parse_case(doc))
    assert not res.faults, [str(f) for f in res.faults[:3]]
    return res.tensors["dst"], res.inputs["dst"], res.memory, res


def ids(result) -> tuple[list[str], list[str]]:
    return [v.id for v in result.violations], [w.id for w in result.warnings]


# -- dstStride: the natural count is the old contiguous NZ layout, a larger one leaves gaps -----------------------------

def half_32x32() -> tuple[np.ndarray, np.ndarray]:
    """A 4 x 8 map of 32 half channels, 1x1 kernel: M = 32 rows, K = 32 columns: 2 x 2 fractals."""
    x = feature_map("half", 32, 4, 8)
    return x, img2col(x)


def test_natural_dst_stride_is_the_contiguous_nz_layout():
    x, a = half_32x32()
    args = {"kExtension": 32, "mExtension": 32}
    plain, _, _, _ = stored(case_doc("Load3DBitMode", "half", x, args, dst_size=1024))
    # NZ: fractal (m1, k1) at k1*M1 + m1 with M1 = 2 -- the layout of page 002 / HARDWARE_NOTES (L0A holds NZ)
    for m1 in range(2):
        for k1 in range(2):
            frac = plain[(k1 * 2 + m1) * 256:(k1 * 2 + m1 + 1) * 256].reshape(16, 16)
            assert np.array_equal(frac, a[16 * m1:16 * m1 + 16, 16 * k1:16 * k1 + 16])
    # the register holding dstStride = 2 (the fractal rows, what dav_3510's SetLoadDataRepeatStride writes): the same
    for api in ("Load3DBitMode", "LoadDataWithStride"):
        doc = case_doc(api, "half", x, args, dst_size=1024, repeat={"dstStride": 2})
        assert ids(check_case(parse_case(doc))) == ([], [])
        assert np.array_equal(stored(doc)[0], plain)


@pytest.mark.parametrize("api", ["Load3DBitMode", "LoadDataWithStride"])
@pytest.mark.parametrize("stride", [3, 8, 100])
def test_a_larger_dst_stride_spaces_the_fractal_columns_and_leaves_the_gaps(api, stride):
    x, a = half_32x32()
    size = (stride + 2) * 256  # (CB-1)*dstStride + RB = stride + 2 fractals
    doc = case_doc(api, "half", x, {"kExtension": 32, "mExtension": 32}, dst_size=size, repeat={"dstStride": stride})
    assert ids(check_case(parse_case(doc))) == ([], [])
    after, before, _, res = stored(doc)
    at = placed(32, 32, 16, stride)
    assert np.array_equal(after[at], a)
    untouched = np.ones(size, dtype=bool)
    untouched[at.reshape(-1)] = False
    assert untouched.sum() == (stride - 2) * 256  # the fractals between column 0 (0, 1) and column 1 (stride, +1)
    assert np.array_equal(after[untouched], before[untouched])
    # one element less than the last column needs: dst declared too small, a warning (spec note load3d.dst-size)
    short = case_doc(api, "half", x, {"kExtension": 32, "mExtension": 32}, dst_size=size - 1,
                     repeat={"dstStride": stride})
    assert ids(check_case(parse_case(short))) == ([], [f"{parse_case(short).model.prefix}.dst.size"])


def test_dst_stride_0_1_8_100_give_different_outputs():
    x, _ = half_32x32()
    outs = {}
    for stride in (2, 8, 100):
        doc = case_doc("Load3DBitMode", "half", x, {"kExtension": 32, "mExtension": 32}, dst_size=102 * 256,
                       repeat={"dstStride": stride})
        outs[stride] = np.flatnonzero(stored(doc)[3].trace.stored("L0A"))
        assert outs[stride].size == 4 * 512  # four fractals, wherever they go
    # fractal column 1 starts 2, 8, 100 fractals on: the stored bytes differ (they were identical before issue 12)
    assert [int(outs[s][1024]) for s in (2, 8, 100)] == [2 * 512, 8 * 512, 100 * 512]
    # below the 2 fractal rows the columns collide: an error, and the core faults on exactly those stores
    for stride in (0, 1):
        doc = case_doc("Load3DBitMode", "half", x, {"kExtension": 32, "mExtension": 32}, dst_size=102 * 256,
                       repeat={"dstStride": stride})
        assert ids(check_case(parse_case(doc)))[0] == ["load3d.dstStride.overlap"]
        res = run_case(parse_case(doc), strict=False)
        assert {f.kind for f in res.faults} == {"overlap"}


@pytest.mark.parametrize("api", ["Load3DBitMode", "LoadDataWithStride"])
def test_a_nop_is_checked_for_its_parameters_not_for_what_it_would_move(api):
    """Page 003 / SetLoadDataRepeat.md: repeatTime = 0 'moves nothing, the call is treated as a NOP' (translated). A
    call that reads and stores no byte cannot collide, overrun dst or read past its window (spec note load3d.nop):
    only the warning repeat.noop; the parameter rules (here dst's alignment) still hold it to the pages."""
    x = feature_map("half", 32, 4, 8)
    # the feature map says 5 rows (src holds 4: src.footprint), M = 5 x 8 = 40 rows, 48 rounded up to 16: rows
    # [32, 64) pass it (window.m_bounds); K = 32 columns = 2 fractal columns 0 fractals apart (dstStride.overlap)
    # into a dst of one fractal (dst.size)
    args = {"kExtension": 32, "mExtension": 32, "mStartPt": 32, "l1H": 5}

    def doc(repeat_time: int, dst_addr: int = 0) -> dict:
        d = case_doc(api, "half", x, args, dst_size=256,
                     repeat={"repeatTime": repeat_time, "repeatStride": 0, "repeatMode": 0, "dstStride": 0})
        d["tensors"]["dst"]["addr"] = dst_addr
        return d

    p = parse_case(doc(1)).model.prefix
    errors, warnings = ids(check_case(parse_case(doc(1))))
    assert {f"{p}.dstStride.overlap", f"{p}.window.m_bounds", f"{p}.src.footprint"} <= set(errors)
    assert f"{p}.dst.size" in warnings
    assert ids(check_case(parse_case(doc(0)))) == ([], [f"{p}.repeat.noop"])
    res = run_case(parse_case(doc(0)))
    assert not res.faults and not res.trace.stored("L0A").any() and not res.trace.footprint("read", "L1").any()
    # dst at byte 32: not 512-byte aligned, an error whether the call moves anything or not
    assert ids(check_case(parse_case(doc(0, dst_addr=32)))) == ([f"{p}.dst.align"], [f"{p}.repeat.noop"])


def test_one_fractal_column_takes_any_dst_stride():
    x = feature_map("half", 16, 4, 8)  # K = 16: one fractal column
    for stride in (0, 1, 7):
        doc = case_doc("LoadDataWithStride", "half", x, {"kExtension": 16, "mExtension": 32}, dst_size=512,
                       repeat={"dstStride": stride})
        assert ids(check_case(parse_case(doc))) == ([], [])
        assert np.array_equal(stored(doc)[0][placed(32, 16, 16, 2)], img2col(x))


# -- repeats: assembled into one matrix ------------------------------------------------------------------------------

def test_conv_style_repeats_one_output_row_each():
    """A conv kernel's load (asc-devkit conv: mExtension = woL0, repeatStride = woL1/16, repeatTime = hoL0,
    dstStride = mL0/16): a 4 x 16 map, 3x3 kernel, pad 1: Ho = 4, Wo = 16; each repeat loads one output row (16 rows
    of the matrix) with every column (K = 9*16 = 144: 9 fractal columns, more than dstStride = 4, which the earlier
    blanket 'repeats must not overlap' refused); together the whole 64 x 144 matrix, contiguous NZ."""
    x = feature_map("half", 16, 4, 16, seed=3)
    a = img2col(x, 3, 3, pads=(1, 1, 1, 1))
    assert a.shape == (64, 144)
    for api in ("Load3DBitMode", "LoadDataWithStride"):
        doc = case_doc(api, "half", x, {"kExtension": 144, "mExtension": 16, "filterW": 3, "filterH": 3,
                                        "padList": [1, 1, 1, 1]},
                       dst_size=36 * 256, repeat={"repeatStride": 1, "repeatTime": 4, "repeatMode": 0, "dstStride": 4})
        assert ids(check_case(parse_case(doc))) == ([], [])
        after = stored(doc)[0]
        assert np.array_equal(after[placed(64, 144, 16, 4)], a)


def test_repeats_along_k_into_b2_conv_backprop_style():
    """A conv backprop kernel's float L0B load: two repeats along K of 8 channels each (repeatMode 1, repeatStride
    one C0 = 8 columns) fill the 16 rows of one fractal row of the transposed output; dstStride is the distance of
    its fractal columns (the kernel's 'm_dst_stride')."""
    x = feature_map("float", 16, 2, 8, seed=5)  # M = 16 positions, K = 16 channels (two column groups of 8)
    a = img2col(x)
    doc = case_doc("Load3DBitMode", "float", x, {"kExtension": 8, "mExtension": 16}, dst_pos="B2", dst_size=4 * 128,
                   repeat={"repeatStride": 1, "repeatTime": 2, "repeatMode": 1, "dstStride": 3})
    assert ids(check_case(parse_case(doc))) == ([], [])
    after, before, _, _ = stored(doc)
    # O = the assembled 16 x 16 window transposed: 16 rows (k) x 16 columns (m), two float fractals (16 x 8) per
    # fractal row; column 1 three fractals on
    assert np.array_equal(after[placed(16, 16, 8, 3)], a.T)
    assert np.array_equal(after[128:384], before[128:384])  # fractals 1 and 2: the gap


def test_two_windows_along_m_side_by_side_once_transposed():
    x = feature_map("half", 16, 4, 8, seed=2)  # M = 32, K = 16
    a = img2col(x)
    doc = case_doc("LoadDataWithStride", "half", x, {"kExtension": 16, "mExtension": 16, "enTranspose": True},
                   dst_size=512, repeat={"repeatStride": 1, "repeatTime": 2, "repeatMode": 0, "dstStride": 1})
    assert ids(check_case(parse_case(doc))) == ([], [])
    # the two windows (rows 0..15 and 16..31) assembled one below the other, then transposed: 16 x 32 in NZ
    assert np.array_equal(stored(doc)[0][placed(16, 32, 16, 1)], a.T)


# -- transposition -----------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype, channels, h, w", [("int8", 64, 2, 16), ("half", 32, 2, 8), ("float", 24, 2, 8)])
@pytest.mark.parametrize("api", ["Load3DBitMode", "LoadDataWithStride"])
def test_transpose_into_a2_for_8_16_and_32_bit_types(api, dtype, channels, h, w):
    """Vendor LoadDataWithStride.md / LoadData_3D.md (Ascend 950): enTranspose takes effect into L0A for b8/b16/b32;
    the output is the window transposed, in 16 x C0 fractals (the b8 32 x 32 blocks of LoadData_3D.md are two such
    fractals), contiguous: dstStride = its fractal rows = ceil(kExtension/16), as dav_3510 sets it."""
    x = feature_map(dtype, channels, h, w, seed=1)
    a = img2col(x)  # M x K
    m, k = a.shape
    c0 = C0[dtype]
    rows = -(-k // 16)
    doc = case_doc(api, dtype, x, {"kExtension": k, "mExtension": m, "enTranspose": True},
                   dst_size=rows * 16 * -(-m // c0) * c0, repeat={"dstStride": rows})
    assert ids(check_case(parse_case(doc))) == ([], [])
    after = stored(doc)[0]
    assert np.array_equal(after[placed(k, m, c0, rows)], a.T)
    # without a register (a single case): the same contiguous matrix
    single = case_doc(api, dtype, x, {"kExtension": k, "mExtension": m, "enTranspose": True},
                      dst_size=rows * 16 * -(-m // c0) * c0)
    assert np.array_equal(stored(single)[0], after)


@pytest.mark.parametrize("dtype", ["half", "float"])
@pytest.mark.parametrize("api", ["Load3DBitMode", "LoadDataWithStride"])
def test_b2_transposes_whether_or_not_the_flag_is_set(api, dtype):
    """The L1 -> L0B path always transposes (vendor docs): the same bytes with transpose true or false; true draws
    the warning transpose.no_effect, not an error (the vendor's example sets it on every B2 load)."""
    x = feature_map(dtype, 32, 2, 8, seed=4)
    a = img2col(x)
    m, k = a.shape
    c0 = C0[dtype]
    rows = -(-k // 16)
    outs = []
    for flag in (False, True):
        doc = case_doc(api, dtype, x, {"kExtension": k, "mExtension": m, "enTranspose": flag}, dst_pos="B2",
                       dst_size=rows * 16 * -(-m // c0) * c0, repeat={"dstStride": rows})
        p = parse_case(doc).model.prefix
        assert ids(check_case(parse_case(doc))) == ([], [f"{p}.transpose.no_effect"] if flag else [])
        outs.append(stored(doc)[2].buffers["L0B"].copy())
        assert np.array_equal(stored(doc)[0][placed(k, m, c0, rows)], a.T)
    assert np.array_equal(outs[0], outs[1])


# -- the repeat register in a program: Load3DBitMode reads it (2c) ----------------------------------------------------

def program(*calls, dst_size: int = 4096) -> dict:
    x, _ = half_32x32()
    return {"product": "atlas-350", "dtype": "half",
            "tensors": {"fm": {"position": "A1", "addr": 0, "size": x.size, "data": nc1hwc0(x, 16).tolist()},
                        "a2": {"position": "A2", "addr": 0, "size": dst_size}},
            "calls": list(calls)}


SET_FMATRIX = {"api": "SetFmatrix", "args": {"l1H": 4, "l1W": 8, "padList": [0, 0, 0, 0]}}
LOAD = {"api": "Load3DBitMode", "args": {"kStep": 32, "mStep": 32, "strideW": 1, "strideH": 1, "Wk": 1, "Hk": 1,
                                         "dilationW": 1, "dilationH": 1, "sizeChannel": 32},
        "tensors": {"dst": "a2", "src": "fm"}}


def setter(**args) -> dict:
    return {"api": "SetLoadDataRepeatWithStride", "args": {"dstStride": 2, **args}}


def test_load3d_bitmode_uses_the_register_set_before_it():
    _, a = half_32x32()
    # dstStride 5 in the register: column 1 of the 32 x 32 output five fractals on
    prog = parse_program(program(SET_FMATRIX, setter(dstStride=5), LOAD))
    assert [v.id for v in check_program(prog).violations] == []
    a2 = run_program(prog).runs[2].tensors["dst"]
    assert np.array_equal(a2[placed(32, 32, 16, 5)], a)
    # no setter: no register to read (no ordering rule for this call): the contiguous matrix
    plain = run_program(parse_program(program(SET_FMATRIX, LOAD))).runs[1].tensors["dst"]
    assert np.array_equal(plain[placed(32, 32, 16, 2)], a)
    # the register's dstStride 1 < 2 fractal rows: the load breaks the overlap rule
    broken = check_program(parse_program(program(SET_FMATRIX, setter(dstStride=1), LOAD)))
    assert [(v.call, v.id) for v in broken.violations] == [(2, "load3d.dstStride.overlap")]
    # a register too wide for a2 (8 fractals): dstStride 7 needs (2-1)*7 + 2 = 9
    broken = check_program(parse_program(program(SET_FMATRIX, setter(dstStride=7), LOAD, dst_size=2048)))
    assert broken.violations == [] and [(w.call, w.id) for w in broken.warnings] == [(2, "load3d.dst.size")]


def test_load3d_bitmode_repeats_from_the_register():
    _, a = half_32x32()
    load = {**LOAD, "args": {**LOAD["args"], "mStep": 16}}
    # two repeats along M, 16 rows apart (repeatStride 1): the whole 32 x 32 matrix again
    prog = parse_program(program(SET_FMATRIX, setter(repeatTime=2, repeatStride=1, repeatMode=0), load))
    assert check_program(prog).valid and not check_program(prog).warnings
    assert np.array_equal(run_program(prog).runs[2].tensors["dst"][placed(32, 32, 16, 2)], a)
    # the call's own repeat differs from the register: the register wins, and a warning says so
    own = {**load, "args": {**load["args"], "repeat": {"dstStride": 2}}}
    result = check_program(parse_program(program(SET_FMATRIX, setter(repeatTime=2, repeatStride=1), own)))
    assert [(w.call, w.id) for w in result.warnings] == [(2, "load3d.repeat.differs")]
    # repeatTime 0 in the register: a NOP (warning), nothing stored
    nop = parse_program(program(SET_FMATRIX, setter(repeatTime=0), LOAD))
    assert [(w.call, w.id) for w in check_program(nop).warnings] == [(1, "set_load_data_repeat.repeatTime.noop"),
                                                                    (2, "load3d.repeat.noop")]
    assert not run_program(nop).runs[2].trace.stored("L0A").any()


def bit_mode(doc: dict) -> dict:
    """``doc`` (LoadData3DParamsV2's members) as the bit-mode prototype: Load3DBitModeParam's fields, no
    defaultConfig (that overload has no such template parameter)."""
    args = dict(get_api("Load3DBitMode").normalize_args(doc["args"]))
    args.pop("defaultConfig")
    return {**doc, "args": args}


def test_partial_windows_repeated_by_load3d_bitmode_are_a_warning():
    """Page 002 lets one window end mid-fractal when it covers the bottom fractal; where the next repeat starts
    after it no source says (spec note load3d.repeat-partial): a warning for the bit-mode prototype;
    LoadDataWithStride refuses the window, and so does the LoadData3DParamsV2 prototype on atlas-350, whose
    implementation asserts mExtension % 16 == 0 (spec note load3d.v2-prototype-350)."""
    x = feature_map("half", 16, 3, 3)  # M = 9
    v2 = case_doc("Load3DBitMode", "half", x, {"kExtension": 16, "mExtension": 9}, dst_size=1024,
                  repeat={"repeatTime": 2, "repeatMode": 0, "repeatStride": 0, "dstStride": 2})
    assert ids(check_case(parse_case(v2)))[0] == ["load3d.v2.mStep.multiple_350"]
    doc = bit_mode(v2)
    assert ids(check_case(parse_case(doc))) == ([], ["load3d.repeat.partial"])
    # modelled: each repeat from a new fractal row, the rest of the partial one unspecified
    res = run_case(parse_case(doc))
    a = img2col(x)
    after = res.tensors["dst"]
    assert np.array_equal(after[:9 * 16].reshape(9, 16), a) and np.array_equal(after[256:256 + 9 * 16].reshape(9, 16), a)
    ldws = {**doc, "api": "LoadDataWithStride"}
    assert ids(check_case(parse_case(ldws)))[0] == ["load_data_with_stride.mStep.multiple"]


# -- the rules' fractal counts (written per C0 for the solver) against a count from the shapes ----------------------

def test_the_rules_count_the_outputs_fractals_from_its_shape():
    """The rules' (RB, CB) are written in fractal units per C0 (load3d.blocks); here they are counted from the shape:
    the windows assembled (each from a new fractal row along M, a new fractal column along K), transposed or not,
    rounded up to 16-row and C0-column blocks."""
    from hypothesis import given, settings, strategies as st

    from ascverify import get_api
    from ascverify.models.load3d import blocks
    from ascverify.spec.rules import Values

    model = get_api("Load3DBitMode")

    @settings(max_examples=400, deadline=None)
    @given(st.sampled_from(["half", "int8", "float"]), st.integers(1, 300), st.integers(1, 300), st.booleans(),
           st.integers(0, 9), st.integers(0, 1), st.booleans(), st.booleans())
    def check(dtype, m_step, k_step, present, n, mode, transpose, b2):
        ctx = model.context("atlas-350", dtype)
        c0 = C0[dtype]
        env = {**model.default_env(), "mStep": m_step, "kStep": k_step, "repeat.present": present,
               "repeat.repeatTime": n, "repeat.repeatMode": mode, "transpose": transpose,
               "dst.position": 6 if b2 else 5, "repeat.dstStride": 0}
        windows = max(n, 1) if present else 1
        along_m = not present or mode == 0
        rows = (windows - 1) * -(-m_step // 16) * 16 + m_step if along_m else m_step
        cols = k_step if along_m else (windows - 1) * -(-k_step // c0) * c0 + k_step
        if b2 or transpose:
            rows, cols = cols, rows
        assert blocks(Values(env, ctx, model), ctx) == (-(-rows // 16), -(-cols // c0))

    from ascverify.spec.rules import POSITION_NAMES
    assert POSITION_NAMES[5] == "A2" and POSITION_NAMES[6] == "B2"
    check()
