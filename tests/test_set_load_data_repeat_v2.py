"""SetLoadDataRepeat (the vendor's SetLoadDataRepeat page): its rules per product, and what a later LoadData reads.

Expected values are reasoned here from the vendor's material, not from the model: the page's product list and
LoadDataRepeatParam table (repeatMode in [0, 1]; dstStride 'not supported' on A2 / A3 / 200I-500 A2), the vendor's
struct (no dstStride member outside the Turing architectures), and dav_3510's code: SetLoadDataRepeatCal keeps the
three fields in software, and every LoadData3DParamsV2 overload writes the repeat register with them and
dstStride = ceil((enTranspose ? kExtension : mExtension) / 16) before it loads. The img2col matrix of a 1 x 1
kernel with stride 1 and no padding is the feature map itself: row h*W + w, column c1*C0 + c0 (C0 = 16 halves),
read from L1's NC1HWC0 layout at ((c1*H + h)*W + w)*C0 + c0. A2 holds the output in 16 x 16 fractals, fractal
(rb, cb) at (cb*dstStride + rb)*256 halves, row-major inside (spec note load3d.output).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from ascverify import check_case, parse_case
from ascverify.cases.program import parse_program
from ascverify.checking.program import check_program
from ascverify.cli import main
from ascverify.core.program import run_program
from ascverify.spec.registry import lookup_api

H, W, C = 4, 8, 32  # 32 pixels (M = 32 rows) of 32 half channels (K = 32 columns: C1 = 2 groups of C0 = 16)


def feature_map() -> np.ndarray:
    return np.random.default_rng(7).integers(-9, 10, size=(C, H, W)).astype(np.float16)


def img2col_1x1(x: np.ndarray) -> np.ndarray:
    """Row h*W + w, column c: x[c, h, w] (a 1 x 1 kernel, stride 1, no padding)."""
    return x.reshape(C, H * W).T.copy()


def in_l1(x: np.ndarray) -> list[float]:
    """x as L1 holds it (NC1HWC0): element ((c1*H + h)*W + w)*16 + c0."""
    return x.reshape(C // 16, 16, H, W).transpose(0, 2, 3, 1).reshape(-1).tolist()


def fractal_offsets(rows: int, cols: int, dst_stride: int) -> np.ndarray:
    r, c = np.meshgrid(np.arange(rows), np.arange(cols), indexing="ij")
    return ((c // 16) * dst_stride + r // 16) * 256 + (r % 16) * 16 + c % 16


def v2_load(m_ext: int, k_ext: int, **extra) -> dict:
    """Load3DBitMode in the LoadData3DParamsV2 form (its members: defaultConfig {true, true})."""
    return {"api": "Load3DBitMode", "tensors": {"dst": "a2", "src": "fm"},
            "args": {"l1H": H, "l1W": W, "padList": [0, 0, 0, 0], "channelSize": C, "kExtension": k_ext,
                     "mExtension": m_ext, "kStartPt": 0, "mStartPt": 0, "strideW": 1, "strideH": 1, "filterW": 1,
                     "filterH": 1, "dilationFilterW": 1, "dilationFilterH": 1, "enTranspose": False,
                     "filterSizeW": False, "filterSizeH": False, "fMatrixCtrl": False, "padValue": 0, **extra}}


def bit_mode_load(m_step: int, k_step: int) -> dict:
    return {"api": "Load3DBitMode", "tensors": {"dst": "a2", "src": "fm"},
            "args": {"kStep": k_step, "mStep": m_step, "strideW": 1, "strideH": 1, "Wk": 1, "Hk": 1,
                     "dilationW": 1, "dilationH": 1, "sizeChannel": C}}


def slr(**args) -> dict:
    return {"api": "SetLoadDataRepeat", "args": args}


def program(*calls, product: str = "atlas-350") -> dict:
    return {"product": product, "dtype": "half",
            "tensors": {"fm": {"position": "A1", "addr": 0, "size": C * H * W, "data": in_l1(feature_map())},
                        "a2": {"position": "A2", "addr": 0, "size": 4096}},
            "calls": list(calls)}


SET_FMATRIX = {"api": "SetFmatrix", "args": {"l1H": H, "l1W": W, "padList": [0, 0, 0, 0]}}


def ids(found) -> list[tuple[int, str]]:
    return [(f.call, f.id) for f in found]


# -- a single call: the page's table and product list ---------------------------------------------------------------

SUPPORTED = ("atlas-350", "atlas-a3", "atlas-a2", "atlas-200i-500-a2")
REFUSED = ("atlas-inference-aicore", "atlas-inference-vectorcore", "atlas-training")


def verdict(product: str, args: dict) -> tuple[set[str], set[str]]:
    result = check_case(parse_case({"api": "SetLoadDataRepeat", "product": product, "args": args}))
    return {v.id for v in result.violations}, {w.id for w in result.warnings}


@pytest.mark.parametrize("product", SUPPORTED + REFUSED)
def test_products_follow_the_page(product):
    errors, _ = verdict(product, {"repeatTime": 1, "repeatStride": 1, "repeatMode": 0})
    assert errors == (set() if product in SUPPORTED else {"set_load_data_repeat_v2.product.support"})


@pytest.mark.parametrize("product", SUPPORTED)
def test_repeat_mode_is_zero_or_one_and_repeat_time_zero_is_a_nop(product):
    assert verdict(product, {"repeatMode": 1}) == (set(), set())
    assert verdict(product, {"repeatMode": 2})[0] == {"set_load_data_repeat_v2.repeatMode.range"}
    assert verdict(product, {"repeatTime": 0}) == (set(), {"set_load_data_repeat_v2.repeatTime.noop"})
    # the struct's types bound the other two: 255 and 65535 pass, 256 and 65536 do not
    assert verdict(product, {"repeatTime": 255, "repeatStride": 65535}) == (set(), set())
    assert verdict(product, {"repeatTime": 256})[0] == {"set_load_data_repeat_v2.repeatTime.type"}
    assert verdict(product, {"repeatStride": 65536})[0] == {"set_load_data_repeat_v2.repeatStride.type"}


@pytest.mark.parametrize("product", SUPPORTED)
def test_dst_stride_is_not_a_member(product):
    # the page: not supported on A2 / A3 / 200I-500 A2 (an error); on Ascend 950 the vendor's struct has no such
    # member either and the V2 load computes it (a warning that it has no effect)
    errors, warnings = verdict(product, {"repeatTime": 1, "dstStride": 2})
    if product == "atlas-350":
        assert (errors, warnings) == (set(), {"set_load_data_repeat_v2.dstStride.no_effect"})
    else:
        assert errors == {"set_load_data_repeat_v2.dstStride.unsupported"}


def test_pyasc_names_the_call_and_its_members():
    model = lookup_api("asc.language.basic.set_load_data_repeat")
    assert model is lookup_api("SetLoadDataRepeat") is not lookup_api("SetLoadDataRepeatWithStride")
    case = parse_case({"api": "set_load_data_repeat", "product": "atlas-a2",
                       "args": {"repeat_time": 3, "repeat_stride": 2, "repeat_mode": 1}})
    assert (case.env["repeatTime"], case.env["repeatStride"], case.env["repeatMode"]) == (3, 2, 1)


# -- programs on atlas-350: the LoadData3DParamsV2 load composes the register ----------------------------------------

def test_v2_load_repeats_along_m_with_the_fields_set_before_it():
    a = img2col_1x1(feature_map())
    # two windows of 16 rows, 16 rows apart (repeatStride 1 in units of 16 rows): rows 0-31, one column block
    prog = parse_program(program(SET_FMATRIX, slr(repeatTime=2, repeatStride=1, repeatMode=0), v2_load(16, 16)))
    assert check_program(prog).valid
    dst = run_program(prog).runs[2].tensors["dst"]
    assert np.array_equal(dst[fractal_offsets(32, 16, 2)], a[:32, :16])
    # without SetLoadDataRepeat: the one window (16 rows) and nothing after it
    once = run_program(parse_program(program(SET_FMATRIX, v2_load(16, 16)))).runs[1]
    assert np.array_equal(once.tensors["dst"][fractal_offsets(16, 16, 1)], a[:16, :16])
    assert once.trace.stored("L0A").sum() == 16 * 16 * 2


def test_v2_load_repeats_along_k_with_its_own_dst_stride():
    a = img2col_1x1(feature_map())
    # repeatMode 1: two windows of 16 columns, 16 columns apart (repeatStride 1 in units of 32 bytes = 16 halves);
    # the load's own dstStride = ceil(mExtension / 16) = 1: the two fractal columns side by side
    prog = parse_program(program(SET_FMATRIX, slr(repeatTime=2, repeatStride=1, repeatMode=1), v2_load(16, 16)))
    assert check_program(prog).valid
    dst = run_program(prog).runs[2].tensors["dst"]
    assert np.array_equal(dst[:256].reshape(16, 16), a[:16, :16])
    assert np.array_equal(dst[256:512].reshape(16, 16), a[:16, 16:32])


def test_v2_load_own_dst_stride_collides_with_repeats_along_m_over_two_column_blocks():
    # repeats along M make 32 rows (2 fractal rows) while the load writes dstStride = ceil(mExtension / 16) = 1:
    # fractal (1, 0) and fractal (0, 1) land on the same 512 bytes
    prog = parse_program(program(SET_FMATRIX, slr(repeatTime=2, repeatStride=1, repeatMode=0), v2_load(16, 32)))
    assert ids(check_program(prog).violations) == [(2, "load3d.dstStride.overlap")]


def test_the_register_the_v2_load_leaves_is_read_by_a_later_bit_mode_load():
    # SetLoadDataRepeat alone leaves the register alone on atlas-350: a bit-mode load right after it is one window
    alone = run_program(parse_program(program(SET_FMATRIX, slr(repeatTime=2, repeatStride=1), bit_mode_load(16, 16))))
    assert alone.runs[2].trace.stored("L0A").sum() == 16 * 16 * 2
    # after the V2 load wrote {repeatTime 2, repeatStride 1, dstStride 1}: the bit-mode load repeats twice too
    prog = parse_program(program(SET_FMATRIX, slr(repeatTime=2, repeatStride=1), v2_load(16, 16),
                                 bit_mode_load(16, 16)))
    assert check_program(prog).valid
    assert run_program(prog).runs[3].trace.stored("L0A").sum() == 2 * 16 * 16 * 2


def test_a_v2_load_given_another_repeat_is_told_which_one_it_uses():
    own = v2_load(16, 16, repeat={"repeatTime": 1, "repeatStride": 0, "repeatMode": 0, "dstStride": 1})
    result = check_program(parse_program(program(SET_FMATRIX, slr(repeatTime=2, repeatStride=1), own)))
    assert ids(result.warnings) == [(2, "load3d.repeat.differs")]
    assert "SetLoadDataRepeat" in result.warnings[0].message and "'repeatTime': 2" in result.warnings[0].message


def test_page_example_on_a2_reads_and_the_inference_ai_core_refuses_it():
    a2 = check_program(parse_program(program(slr(repeatTime=1, repeatStride=1, repeatMode=0), v2_load(16, 16),
                                             product="atlas-a2")))
    assert a2.valid and ("set_load_data_repeat_v2.product.support" not in {w.id for w in a2.warnings})
    aicore = check_program(parse_program(program(slr(repeatTime=1, repeatStride=1, repeatMode=0), v2_load(16, 16),
                                                 product="atlas-inference-aicore")))
    # (the load's channel count 32 is not one the inference AI Core takes for half: call 1's own error)
    assert [i for c, i in ids(aicore.violations) if c == 0] == ["set_load_data_repeat_v2.product.support"]


def test_a_v2_load_without_set_load_data_repeat_before_it_is_a_warning_on_atlas_350():
    # the LoadData page (Ascend 950: dstStride must be set with SetLoadDataRepeat) and dav_3510, which builds the
    # register from fields only SetLoadDataRepeat sets
    unset = check_program(parse_program(program(SET_FMATRIX, v2_load(16, 16))))
    assert unset.valid and (1, "load3d.repeat.v2_unset") in ids(unset.warnings)
    after = check_program(parse_program(program(SET_FMATRIX, slr(repeatTime=1), v2_load(16, 16))))
    assert "load3d.repeat.v2_unset" not in {w.id for w in after.warnings}
    # the bit-mode form reads the register as it stands (SetLoadDataRepeatWithStride's): no such warning
    bit = check_program(parse_program(program(SET_FMATRIX, bit_mode_load(16, 16))))
    assert "load3d.repeat.v2_unset" not in {w.id for w in bit.warnings}
    # the A2 family: the load writes no register of its own there
    a2 = check_program(parse_program(program(SET_FMATRIX, v2_load(16, 16), product="atlas-a2")))
    assert "load3d.repeat.v2_unset" not in {w.id for w in a2.warnings}


def test_a_v2_load_with_a_zero_extent_is_a_nop_that_still_writes_the_register():
    # the LoadData page (Table 4): kExtension = 0 or mExtension = 0 makes the LoadData3DParamsV2 load a NOP, on Ascend
    # 950 too; dav_3510 writes the repeat register (SetLoadDataRepeatStride) before it issues the instruction
    for m_ext, k_ext in ((0, 16), (16, 0)):
        prog = parse_program(program(SET_FMATRIX, slr(repeatTime=2, repeatStride=1), v2_load(m_ext, k_ext),
                                     bit_mode_load(16, 16)))
        result = check_program(prog)
        assert result.valid and (2, "load3d.v2.nop") in ids(result.warnings)
        runs = run_program(prog).runs
        assert not runs[2].trace.stored("L0A").any()
        assert runs[3].trace.stored("L0A").sum() == 2 * 16 * 16 * 2  # the register the NOP left: two repeats


def test_shipped_example_loads_what_the_load_data_with_stride_example_loads(tmp_path):
    """examples/program_set_load_data_repeat.json: SetFmatrix, SetLoadDataRepeat {4, 2, 1}, the V2 load of a 16 x 64
    window. Its windows and dstStride (ceil(mExtension 16 / 16) = 1) are those program_load_data_with_stride.json sets
    by hand with SetLoadDataRepeatWithStride {4, 2, 1, 1}: the same bytes in A2 (that example's own test checks them
    against the page's feature map)."""
    root = Path(__file__).resolve().parents[1] / "examples"
    r = CliRunner().invoke(main, ["check", str(root / "program_set_load_data_repeat.json")])
    assert r.exit_code == 0 and "error" not in r.output and "warning" not in r.output, r.output
    got, want = tmp_path / "new", tmp_path / "old"
    for src, out in (("program_set_load_data_repeat.json", got), ("program_load_data_with_stride.json", want)):
        assert CliRunner().invoke(main, ["run", str(root / src), "-o", str(out)]).exit_code == 0
    assert np.array_equal(np.load(got / "a2.npy"), np.load(want / "a2.npy"))
    special = json.loads((got / "run.json").read_text())["special_registers"]
    # the register the V2 load wrote: repeatStride 4 | repeatTime 2 << 16 | repeatMode 1 << 24 | dstStride 1 << 32
    assert special["load_data_repeat"] == {"repeatStride": 4, "repeatTime": 2, "repeatMode": 1, "dstStride": 1,
                                           "register": 4 + (2 << 16) + (1 << 24) + (1 << 32)}
