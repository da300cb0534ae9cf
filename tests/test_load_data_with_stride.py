"""LoadDataWithStride: the shipped program, the repeats along height and width with golden values reasoned here, the
rules (golden verdicts), and the properties: n repeats = n shifted single loads, repeatTime = 0 writes nothing,
the output's fractal columns never overlap when accepted, the model's verdict against the core's faults. (dstStride,
transposition and the vendor's example: tests/test_load3d_dststride.py.)"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings, strategies as st

from ascverify import check_case, get_api, parse_case, read_cases, run_case
from ascverify.cases.case import Case, fresh
from ascverify.cases.program import parse_program
from ascverify.checking.program import check_program
from ascverify.cli import main
from ascverify.core.memory import POISON
from ascverify.core.program import run_program
from ascverify.models.img2col import Geometry
from ascverify.models.load3d import as_bits, pad_value
from ascverify.models.load_data_with_stride import memory_rules_match_core, repeats_equal_single_loads, single_loads
from ascverify.strategies import cases, invalid_cases

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "program_load_data_with_stride.json"
FM_DATA = str(ROOT / "examples" / "program_load_data_with_stride_fm.npy")
P = "load_data_with_stride"
SLOW = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                        HealthCheck.filter_too_much])


def x_example() -> np.ndarray:
    """The example's feature map x[c, h, w] = 16c + 4h + w + 1, c < 32, h, w < 4."""
    c, h, w = np.meshgrid(np.arange(32), np.arange(4), np.arange(4), indexing="ij")
    return 16 * c + 4 * h + w + 1


def example() -> dict:
    doc = json.loads(EXAMPLE.read_text())
    doc["tensors"]["fm"]["data"] = FM_DATA
    return doc


def found(result) -> tuple[list, list]:
    return [(v.call, v.id) for v in result.violations], [(w.call, w.id) for w in result.warnings]


# -- the shipped program ------------------------------------------------------------------------------------------

def test_example_data_is_the_pages_feature_map():
    src = np.load(FM_DATA)
    assert np.array_equal(src.reshape(2, 4, 4, 16).transpose(0, 3, 1, 2).reshape(32, 4, 4), x_example())


def test_example_program_checks_and_runs(tmp_path):
    r = CliRunner().invoke(main, ["check", str(EXAMPLE)])
    assert r.exit_code == 0 and "error" not in r.output and "warning" not in r.output, r.output
    r = CliRunner().invoke(main, ["run", str(EXAMPLE), "-o", str(tmp_path)])
    assert r.exit_code == 0, r.output
    doc = json.loads((tmp_path / "run.json").read_text())
    assert doc["faults"] == [] and doc["check"]["valid"]
    # repeatStride 4 (bits 0-15) | repeatTime 2 << 16 | repeatMode 1 << 24 | dstStride 1 << 32
    assert doc["special_registers"]["load_data_repeat"] == {"repeatStride": 4, "repeatTime": 2, "repeatMode": 1,
                                                            "dstStride": 1, "register": 4 + (2 << 16) + (1 << 24) + (1 << 32)}
    assert doc["special_registers"]["fmatrix"] == {"l1H": 4, "l1W": 4, "padList": [1, 1, 1, 1], "padValue": 0,
                                                   "dtype": "half"}
    a2 = np.load(tmp_path / "a2.npy")
    # two repeats of a 16 x 64 window along width (4*C0 = 64 columns apart), assembled side by side: the 16 x 128
    # img2col matrix, one row of fractals, dstStride 1 apart: NZ, fractal k1 = columns 16*k1 .. 16*k1+15.
    c = np.arange(16)
    # row 0 = output (0, 0): only tap (kh, kw) = (1, 1) is inside, at x[:, 1, 1] = 16c + 6; its columns are
    # c1*64 + (kh*2 + kw)*16 + c0, i.e. fractal 3 (channels 0..15, repeat 0) and fractal 7 (channels 16..31, repeat 1)
    assert np.array_equal(a2[3 * 256: 3 * 256 + 16], 16 * c + 6)
    assert np.array_equal(a2[7 * 256: 7 * 256 + 16], 16 * (c + 16) + 6)
    # row 5 = output (1, 1), tap (1, 0) reads x[:, 2, 0] = 16c + 9: fractal 2, row 5
    assert np.array_equal(a2[2 * 256 + 5 * 16: 2 * 256 + 6 * 16], 16 * c + 9)


def test_example_equals_one_load3d_of_the_whole_matrix():
    """The two repeats tile the matrix: the same bytes as one Load3DBitMode with kStep = 128."""
    run = run_program(parse_program(example()))
    load = parse_case({"api": "Load3DBitMode", "product": "atlas-350", "dtype": "half",
                       "args": {"kExtension": 128, "mExtension": 16, "filterW": 2, "filterH": 2, "dilationFilterW": 2,
                                "dilationFilterH": 2, "channelSize": 32, "l1H": 4, "l1W": 4, "padList": [1, 1, 1, 1]},
                       "tensors": {"dst": {"position": "A2", "addr": 0, "size": 2048},
                                   "src": {"position": "A1", "addr": 0, "size": 512, "data": FM_DATA}}})
    assert np.array_equal(run.runs[2].tensors["dst"], run_case(load).tensors["dst"])


def test_example_without_its_setter_breaks_exactly_the_ordering_rule():
    doc = example()
    del doc["calls"][1]
    assert found(check_program(parse_program(doc))) == ([(1, f"{P}.order.load_data_repeat")], [])
    r = CliRunner().invoke(main, ["check", "-"], input=json.dumps(doc))
    assert r.exit_code == 1 and f"call 1: error: [{P}.order.load_data_repeat]" in r.stdout
    assert "Restrictions" in r.stdout  # page 003's 约束说明, as users read it


def test_example_in_a_program_state_warnings():
    # no SetFmatrix: the load's own feature map is unknown (a warning) and its bounds are not checked
    doc = example()
    del doc["calls"][0]
    result = check_program(parse_program(doc))
    assert found(result) == ([], [(1, f"{P}.fmatrix.unset")])
    assert {u.rule_id for u in result.unchecked} == {f"{P}.window.m_bounds", f"{P}.window.k_bounds", f"{P}.src.footprint"}
    # repeatTime = 0: the setter warns, and so does the load (a NOP), which then writes nothing
    doc = example()
    doc["calls"][1]["args"]["repeatTime"] = 0
    assert found(check_program(parse_program(doc))) == ([], [(1, "set_load_data_repeat.repeatTime.noop"),
                                                            (2, f"{P}.repeat.noop")])
    run = run_program(parse_program(doc))
    assert not run.faults and not run.runs[2].trace.stored("L0A").any()
    # the load's own repeat is not what the register holds: the register wins, and the difference is flagged
    doc = example()
    doc["calls"][2]["args"]["repeat"] = {"repeatTime": 1, "dstStride": 0}
    result = check_program(parse_program(doc))
    assert found(result) == ([], [(2, f"{P}.repeat.differs")])
    assert not run_program(parse_program(doc)).faults
    # a setter whose dstStride stacks the output's 8 fractal columns (one fractal row each) on one place: dstStride 0
    doc = example()
    doc["calls"][1]["args"]["dstStride"] = 0
    assert found(check_program(parse_program(doc))) == ([(2, f"{P}.dstStride.overlap")], [])
    # dstStride 2: the columns two fractals apart, (8-1)*2 + 1 = 15 fractals: a2 (8 fractals) is declared too small,
    # a warning (spec note load3d.dst-size: the store past its end stays inside L0A)
    doc["calls"][1]["args"]["dstStride"] = 2
    assert found(check_program(parse_program(doc))) == ([], [(2, f"{P}.dst.size")])


def test_default_config_loads_with_the_calls_own_feature_map():
    """The vendor's LoadDataWithStride page, Table 1: defaultConfig = {isSetFMatrix, isSetPadding}, default {true,
    true}: 'true: the FeatureMap attributes (l1H, l1W, padList) are set inside the interface; false: the ones passed
    have no effect, set them with SetFmatrix'; Table 3: 'l1H = 0: nothing is moved, a NOP'. The shipped example passes
    {false, false} after its SetFmatrix (pad 1), as the vendor's own calls do."""
    shipped = run_program(parse_program(example())).runs[2].tensors["dst"]
    # the default config with the call's own, unpadded map: SetFmatrix's padded one is not read, and no warning says
    # it differs; the result is the call run alone with its own map
    doc = example()
    args = doc["calls"][2]["args"]
    del args["defaultConfig"]
    args.update(l1H=4, l1W=4, padList=[0, 0, 0, 0])
    prog = parse_program(doc)
    assert found(check_program(prog)) == ([], [])
    own = run_program(prog).runs[2].tensors["dst"]
    alone = copy.deepcopy(doc["calls"][2])
    alone["args"]["repeat"] = dict(doc["calls"][1]["args"])
    single = parse_case({"api": "LoadDataWithStride", "product": "atlas-350", "dtype": "half", "args": alone["args"],
                         "tensors": {"dst": doc["tensors"]["a2"], "src": doc["tensors"]["fm"]}})
    assert np.array_equal(own, run_case(single).tensors["dst"])
    # without padding, output (0, 0)'s tap (0, 0) reads x[:, 0, 0] = 16c + 1 (with padding 1 it read the pad, 0)
    c = np.arange(16)
    assert np.array_equal(own[:16], 16 * c + 1) and not np.array_equal(own, shipped)
    # the default config and no map of its own: the call sets l1H = l1W = 0 (nothing moved, a warning) and the
    # feature map is unknown from there on: its bounds are not checked, and `run` stores no number in dst
    doc = example()
    del doc["calls"][2]["args"]["defaultConfig"]
    prog = parse_program(doc)
    result = check_program(prog)
    assert found(result) == ([], [(2, f"{P}.fmatrix.reset")])
    assert {u.rule_id for u in result.unchecked} >= {f"{P}.window.m_bounds", f"{P}.window.k_bounds"}
    assert run_program(prog).runs[2].memory.poisoned("L0A", 0, 2048 * 2).any()
    # {false, false} with a map of its own that differs: SetFmatrix's is read, and the warning says so
    doc = example()
    doc["calls"][2]["args"].update(l1H=4, l1W=4, padList=[0, 0, 0, 0])
    assert found(check_program(parse_program(doc))) == ([], [(2, f"{P}.fmatrix.differs")])
    assert np.array_equal(run_program(parse_program(doc)).runs[2].tensors["dst"], shipped)


# -- repeats along height, by hand -----------------------------------------------------------------------------

def height_case(repeat: dict, dst_size: int = 1024) -> dict:
    """A 1x1 kernel over an 8x4 map of 16 channels (half): img2col row m is pixel (m // 4, m % 4), column c channel c,
    so M = 32, K = 16; the window is one fractal (16 x 16). x[c, h, w] = 100c + 10h + w, exact in half."""
    x = 100 * np.arange(16)[:, None, None] + 10 * np.arange(8)[None, :, None] + np.arange(4)[None, None, :]
    src = x.transpose(1, 2, 0).reshape(-1)  # NC1HWC0 with C1 = 1: ((h*4 + w)*16 + c)
    return {"api": "LoadDataWithStride", "product": "atlas-350", "dtype": "half",
            "args": {"kExtension": 16, "mExtension": 16, "filterW": 1, "filterH": 1, "channelSize": 16, "l1H": 8,
                     "l1W": 4, "padList": [0, 0, 0, 0], "repeat": repeat},
            "tensors": {"dst": {"position": "A2", "addr": 0, "size": dst_size},
                        "src": {"position": "A1", "addr": 0, "size": 512, "data": src.tolist()}}}


def test_repeats_along_height_move_the_window_down_16_rows_per_stride():
    case = parse_case(height_case({"repeatStride": 1, "repeatTime": 2, "repeatMode": 0, "dstStride": 1}))
    result = check_case(case)  # the feature map is given: only the ordering rule is left to a program
    assert result.valid and [u.rule_id for u in result.unchecked] == [f"{P}.order.load_data_repeat"]
    dst = run_case(case).tensors["dst"].astype(np.float64)
    for r in range(2):
        for j in (0, 5, 15):  # row j of fractal r is img2col row m = 16r + j = pixel (m // 4, m % 4)
            m = 16 * r + j
            assert np.array_equal(dst[r * 256 + j * 16: r * 256 + j * 16 + 16],
                                  100 * np.arange(16) + 10 * (m // 4) + m % 4), (r, j)


def test_dst_stride_does_not_matter_with_one_fractal_column():
    # the two repeats' 16 x 16 windows form a 32 x 16 output: two fractal rows of one fractal column, contiguous
    # whatever dstStride is (it spaces fractal columns); 3 used to put the second repeat 3 fractals on
    for stride in (0, 1, 3):
        case = parse_case(height_case({"repeatStride": 1, "repeatTime": 2, "repeatMode": 0, "dstStride": stride}))
        assert check_case(case).valid
        res = run_case(case)
        stored = np.flatnonzero(res.trace.stored("L0A"))
        assert (stored.min(), stored.max()) == (0, 1023), stride  # fractals 0 and 1
        assert res.tensors["dst"][256] == 10 * (16 // 4) + 16 % 4  # fractal 1 starts with row 16 = pixel (4, 0): 40
    # repeatStride 0: both repeats load the same window, one below the other
    same = run_case(parse_case(height_case({"repeatStride": 0, "repeatTime": 2, "repeatMode": 0, "dstStride": 1})))
    assert np.array_equal(same.tensors["dst"][:256], same.tensors["dst"][256:512])


def test_without_repeat_a_single_case_is_one_load():
    doc = height_case({})
    del doc["args"]["repeat"]
    case = parse_case(doc)
    assert (case.env["repeat.present"], case.env["repeat.repeatTime"]) == (False, 1)
    result = check_case(case)
    assert result.valid and [u.rule_id for u in result.unchecked] == [f"{P}.order.load_data_repeat"]
    assert np.count_nonzero(run_case(case).trace.stored("L0A")) == 512  # one fractal


# -- the rules, golden verdicts --------------------------------------------------------------------------------

def broken(doc: dict) -> list[str]:
    return [v.id for v in check_case(parse_case(doc)).violations]


def one_program_case(**repeat) -> dict:
    """The example program's load as a single case (repeat given), dst as large as asked."""
    doc = example()
    load = doc["calls"][2]
    args = {**load["args"], "l1H": 4, "l1W": 4, "padList": [1, 1, 1, 1],
            "repeat": {"repeatStride": 4, "repeatTime": 2, "repeatMode": 1, "dstStride": 1, **repeat}}
    return {"api": "LoadDataWithStride", "product": "atlas-350", "dtype": "half", "args": args,
            "tensors": {"dst": {"position": "A2", "addr": 0, "size": 2048},
                        "src": {"position": "A1", "addr": 0, "size": 512, "data": FM_DATA}}}


def with_dst_size(doc: dict, size: int) -> dict:
    doc = copy.deepcopy(doc)
    doc["tensors"]["dst"]["size"] = size
    return doc


def test_rules_over_the_repeats():
    assert broken(one_program_case()) == []
    # two windows of 1 x 4 fractals side by side: an output of 1 fractal row and 8 fractal columns; dstStride 1:
    # 8 contiguous fractals = 2048 halves
    assert broken(with_dst_size(one_program_case(), 2047)) == [] and \
        f"{P}.dst.size" in [w.id for w in check_case(parse_case(with_dst_size(one_program_case(), 2047))).warnings]
    # dstStride 2: columns two fractals apart, (8-1)*2 + 1 = 15 fractals = 3840 halves, the gaps included
    assert broken(with_dst_size(one_program_case(dstStride=2), 3840)) == []
    short = check_case(parse_case(with_dst_size(one_program_case(dstStride=2), 3839)))
    assert short.violations == [] and [w.id for w in short.warnings] == [f"{P}.dst.size"]
    # dstStride 0 < 1 fractal row: every column lands on fractal 0
    assert broken(one_program_case(dstStride=0)) == [f"{P}.dstStride.overlap"]
    # a third repeat would start at column 2*64 = 128 = K: past the matrix (dst large enough: 12 fractals)
    doc = with_dst_size(one_program_case(repeatTime=3), 3072)
    assert broken(doc) == [f"{P}.window.k_bounds"]
    assert "columns [128, 192) of the last repeat's window" in check_case(parse_case(doc)).violations[0].message
    # along height: M = Ho*Wo = 16 rows, a second window 16 rows down passes it
    assert broken(one_program_case(repeatMode=0, repeatStride=1, dstStride=2)) == [f"{P}.window.m_bounds"]
    # the same rows twice, one below the other: 2 fractal rows x 4 columns, dstStride 2 = the rows: 8 fractals
    assert broken(one_program_case(repeatMode=0, repeatStride=0, dstStride=2)) == []
    assert broken(one_program_case(repeatMode=0, repeatStride=0, dstStride=1)) == [f"{P}.dstStride.overlap"]
    assert broken(one_program_case(repeatMode=2)) == [f"{P}.repeat.repeatMode.range"]
    result = check_case(parse_case(one_program_case(repeatTime=0)))
    assert result.valid and [w.id for w in result.warnings] == [f"{P}.repeat.noop"]


def test_multiples_have_no_coverage_exception():
    # a 2x4 map: Ho = (2 + 2 - 2 - 1) // 1 + 1 = 2, Wo = 4, M = 8: a window of mStep = 8 covers the bottom fractal,
    # which Load3DBitMode accepts and LoadDataWithStride does not (mExtension % 16 == 0)
    doc = one_program_case(repeatTime=1)
    doc["args"].update(l1H=2, mExtension=8)
    assert broken(doc) == [f"{P}.mStep.multiple"]
    load3d = copy.deepcopy(doc)
    load3d["api"] = "Load3DBitMode"
    del load3d["args"]["repeat"]
    load3d["args"].pop("defaultConfig", None)  # LoadDataWithStride's template parameter
    # as LoadData3DParamsV2's members the load is that prototype, whose 3510 implementation asserts the same multiple
    # (spec note load3d.v2-prototype-350); as Load3DBitModeParam's fields (no defaultConfig) the page's exception holds
    assert broken(load3d) == ["load3d.v2.mStep.multiple_350"]
    bit_mode = {**load3d, "args": dict(get_api("Load3DBitMode").normalize_args(load3d["args"]))}
    bit_mode["args"].pop("defaultConfig")
    assert broken(bit_mode) == []
    doc["args"].update(mExtension=16, kStartPt=8)
    assert broken(doc) == [f"{P}.kPos.multiple"]  # 8 halves = 16 bytes (the window [8, 72) fits K = 128)
    doc["args"].update(kStartPt=0, kExtension=56)
    assert broken(doc) == [f"{P}.kStep.multiple"]


# -- properties -----------------------------------------------------------------------------------------------------

def repeated(**kw):
    return cases("LoadDataWithStride", **kw).filter(lambda c: c.env["repeat.repeatTime"] >= 2)


@SLOW
@given(repeated(), st.integers(0, 100))
def test_n_repeats_equal_n_single_loads(case, seed):
    repeats_equal_single_loads(case, seed)
    loads = single_loads(case)
    assert loads is None or len(loads) == case.env["repeat.repeatTime"]


def reference(case: Case, src_bits: np.ndarray, m: np.ndarray, k: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The img2col matrix at rows m, columns k, written out from its definition: row m is the output position
    (ho, wo) = divmod(m, Wo), column k is (c1, kh, kw, c0); the element is x[c1*C0 + c0, h, w] at h = ho*strideH -
    padTop + kh*dilationH, w = wo*strideW - padLeft + kw*dilationW, padValue outside the map. Also where it is
    defined (rows < Ho*Wo, channels < sizeChannel)."""
    geo = Geometry.of(case.env, case.ctx.dtype.size)
    x = src_bits[: geo.src_elems].reshape(geo.c1, geo.l1h, geo.l1w, geo.c0)  # NC1HWC0
    pad = int(as_bits(np.array([pad_value(case.ctx.dtype, int(case.env["fmatrix.padValue"]))],
                               dtype=case.ctx.dtype.numpy))[0])
    c1, kh, kw, c0 = np.unravel_index(k, (geo.c1, geo.kh, geo.kw, geo.c0))
    ho, wo = np.divmod(np.minimum(m, geo.m_total - 1), geo.wo)
    h = ho[:, None] * geo.sh - geo.pads[2] + kh[None, :] * geo.dh
    w = wo[:, None] * geo.sw - geo.pads[0] + kw[None, :] * geo.dw
    inside = (h >= 0) & (h < geo.l1h) & (w >= 0) & (w < geo.l1w)
    ref = np.where(inside, x[np.broadcast_to(c1, h.shape), np.where(inside, h, 0), np.where(inside, w, 0),
                             np.broadcast_to(c0, h.shape)], pad)
    defined = (m[:, None] < geo.m_total) & ((c1 * geo.c0 + c0)[None, :] < geo.channels)
    return ref, defined


def placed(row: np.ndarray, col: np.ndarray, c0: int, stride: int) -> np.ndarray:
    """Element offset of element (row, col) of the output: fractal (row // 16, col // C0) at fractal index
    (col // C0) * dstStride + row // 16, row-major 16 x C0 inside (page 003's dstStride in 512-byte fractals, the
    reading of spec note load3d.output), written out here."""
    return ((col // c0) * stride + row // 16) * 16 * c0 + (row % 16) * c0 + col % c0


@settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck))
@given(repeated().filter(lambda c: c.env["fmatrix.present"]), st.integers(0, 100))
def test_each_repeat_stores_its_shifted_window_of_the_img2col_matrix(case, seed):
    geo = Geometry.of(case.env, case.ctx.dtype.size)
    res = run_case(fresh(case), seed=seed)
    env, e = case.env, case.ctx.dtype.size
    dst = case.tensor("dst")
    rows, cols, c0 = int(env["mStep"]), int(env["kStep"]), geo.c0
    turned = dst.position == "B2" or bool(env["transpose"])
    along_m = env["repeat.repeatMode"] == 0
    stride = int(env["repeat.dstStride"])
    state = (res.memory.state[dst.buffer][dst.addr:].reshape(-1, e) == POISON).all(axis=1)
    bits = as_bits(res.memory.buffers[dst.buffer][dst.addr:].view(case.ctx.dtype.numpy if e > 1 else np.uint8))
    i, j = np.meshgrid(np.arange(rows), np.arange(cols), indexing="ij")
    for r in range(int(env["repeat.repeatTime"])):
        # where repeat r's window sits in the assembled matrix: whole fractals (LoadDataWithStride's multiples), one
        # below the other along height, side by side along width; the output is that matrix or its transpose
        wr, wc = (i + r * rows, j) if along_m else (i, j + r * cols)
        orow, ocol = (wc, wr) if turned else (wr, wc)
        at = placed(orow, ocol, c0, stride)
        m = int(env["mPos"]) + np.arange(rows) + (r * int(env["repeat.repeatStride"]) * 16 if along_m else 0)
        k = int(env["kPos"]) + np.arange(cols) + (0 if along_m else r * int(env["repeat.repeatStride"]) * c0)
        ref, defined = reference(case, as_bits(res.inputs["src"]), m, k)
        assert np.array_equal(state[at], ~defined), f"repeat {r}: unspecified elements misplaced"
        assert np.array_equal(np.where(defined, bits[at], 0), np.where(defined, ref, 0)), f"repeat {r} differs"


@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
@given(cases("LoadDataWithStride"), st.integers(0, 100))
def test_repeat_time_zero_writes_nothing(case, seed):
    nop = case.with_fields(**{"repeat.present": True, "repeat.repeatTime": 0})
    res = run_case(fresh(nop), seed=seed)
    assert not res.faults and np.array_equal(res.tensors["dst"], res.inputs["dst"])
    assert not res.trace.regions("write", "L0A") and not res.trace.regions("write", "L0B")
    assert not res.trace.regions("read", "L1")


@SLOW
@given(cases("LoadDataWithStride"), st.integers(0, 100))
def test_accepted_cases_never_overlap_and_match_the_core(case, seed):
    """The output's fractal columns are disjoint on every accepted case, and the memory rules' variants draw the
    core's faults (misaligned, overlap) or its store past dst's end."""
    memory_rules_match_core(case, seed)
    spans = sorted((a, b) for _, a, b in case.model.footprint(case)["dst"])
    assert all(b1 <= a2 for (_, b1), (a2, _) in zip(spans, spans[1:]))


@pytest.mark.parametrize("rule_id, kind", [(f"{P}.dstStride.overlap", "overlap"), (f"{P}.dst.align", "misaligned")])
def test_drawn_invalid_cases_fault_on_the_core(rule_id, kind):
    @settings(max_examples=8, deadline=None, suppress_health_check=list(HealthCheck))
    @given(invalid_cases("LoadDataWithStride", rule_id), st.integers(0, 100))
    def check(case, seed):
        assert [v.id for v in check_case(case).violations] == [rule_id]
        if case.env["repeat.present"] and case.env["repeat.repeatTime"] == 0:
            return  # a NOP stores nothing, misaligned or not (the rule still holds the call to its parameters)
        res = run_case(fresh(case), seed=seed, strict=False)
        assert kind in {f.kind for f in res.faults}, [str(f) for f in res.faults[:3]]
    check()


def test_model_lists_its_notes_and_rules():
    model = get_api("LoadDataWithStride")
    notes = {n.id for n in model.notes}
    assert {f"{P}.repeat", f"{P}.dstStride", f"{P}.nop", f"{P}.program", f"{P}.single-case", f"{P}.b8-b2",
            "load3d.output", "load3d.overlap", "load3d.transpose"} <= notes
    # the inherited rules cite this API's own notes where its wording differs (the ordering rule)
    assert model.rule_by_id[f"{P}.repeat.differs"].notes == (f"{P}.repeat",)
    order = model.rule_by_id[f"{P}.order.load_data_repeat"]
    assert order.domain == {"kind": "order", "key": "load_data_repeat"} and "003_6cb328d34acb8cee.txt 约束说明" in order.source


@pytest.mark.parametrize("zero", [{"kExtension": 0}, {"mExtension": 0}, {"channelSize": 0}, {"filterW": 0}])
def test_the_pages_zero_nops_are_a_warning_and_move_nothing(zero):
    """The vendor's LoadDataWithStride page (Table 3): kExtension, mExtension, channelSize = 0, and filterW = 0 with
    filterSizeW false, make the call a NOP; strideW has no NOP (its range from 1 stands)."""
    doc = example()
    doc["calls"][2]["args"].update(zero)
    result = check_program(parse_program(doc))
    assert found(result) == ([], [(2, f"{P}.v2.nop")])
    run = run_program(parse_program(doc))
    assert not run.faults and not run.runs[2].trace.stored("L0A").any()
    doc["calls"][2]["args"].update({**zero, "strideW": 0})
    assert (2, f"{P}.strideW.range") in found(check_program(parse_program(doc)))[0]


def test_a_call_without_default_config_takes_it_in_both_readers(tmp_path):
    """Every call of this API takes LoadData3DParamsV2 with defaultConfig {true, true} unless given: a case without
    it reads so line by line and column-wise alike (and its zero extents are the page's NOP either way)."""
    args = {k: x for k, x in example()["calls"][2]["args"].items() if k != "defaultConfig"}
    doc = {"api": "LoadDataWithStride", "product": "atlas-350", "dtype": "half", "args": {**args, "kExtension": 0},
           "tensors": {"dst": {"position": "A2", "addr": 0, "size": 2048},
                       "src": {"position": "A1", "addr": 0, "size": 512}}}
    path = tmp_path / "cases.jsonl"
    path.write_text("\n".join(json.dumps(d) for d in (doc, {**doc, "args": {**doc["args"], "kExtension": 64}})) + "\n")
    read = [item.case if hasattr(item, "case") else item for item in read_cases(str(path))]
    for case in (parse_case(doc), read[0]):
        assert case.env["defaultConfig.present"] and case.env["defaultConfig.isSetFMatrix"]
        assert [w.id for w in check_case(case).warnings] == [f"{P}.v2.nop"]
    assert read[1].env["defaultConfig.present"] and check_case(read[1]).valid
