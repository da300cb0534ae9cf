"""Load3DBitMode: the argument forms, the rules (golden values reasoned here), the img2col core against a direct
convolution, and the properties: window split, transpose, verdict against the core's faults."""

from __future__ import annotations

import copy
import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, assume, given, reject, settings, strategies as st

from ascverify import check_case, get_api, parse_case, run_case
from ascverify.cases.case import fresh
from ascverify.cases.schema import validate
from ascverify.cli import main
from ascverify.engines.fuzz.mutants import all_mutants
from ascverify.models.img2col import Geometry, conv2d, nz_matrix
from ascverify.models.load3d import as_bits, memory_rules_match_core, pad_value, reference_window, stored_window, \
    transpose_transposes, window_equals_reference, window_split_concatenates
from ascverify.spec.errors import InputError
from ascverify.strategies import Undecided, breaking, cases

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "load3d_example.json"
MODEL = get_api("Load3DBitMode")
SLOW = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                        HealthCheck.filter_too_much])


def example(**args) -> dict:
    """The shipped example (data path absolute), args overridden; ``fmatrix=None`` drops the feature map."""
    doc = json.loads(EXAMPLE.read_text())
    doc["tensors"]["src"]["data"] = str(EXAMPLE.parent / doc["tensors"]["src"]["data"])
    for k, v in args.items():
        if v is None:
            doc["args"].pop(k, None)
        else:
            doc["args"][k] = v
    return doc


def broken(doc: dict) -> list[str]:
    return [v.id for v in check_case(parse_case(doc)).violations]


def x_example() -> np.ndarray:
    """The example's feature map x[c, h, w] = 16c + 4h + w + 1, c < 32, h, w < 4 (as the data file holds it)."""
    c, h, w = np.meshgrid(np.arange(32), np.arange(4), np.arange(4), indexing="ij")
    return 16 * c + 4 * h + w + 1


def window_of(doc: dict, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    case = parse_case(doc, base_dir=EXAMPLE.parent)
    res = run_case(case, seed=seed)
    assert not res.faults
    bits, poison = stored_window(case, res)
    values = bits.astype(np.uint16).view(np.float16).astype(np.float64) if case.dtype.name == "half" else bits
    return values, poison


# -- the page's example ---------------------------------------------------------------------------------------------

def test_example_is_valid_and_matches_the_data_file():
    assert broken(example()) == []
    src = np.load(EXAMPLE.parent / "load3d_example_src.npy")
    # NC1HWC0: element ((c1*4 + h)*4 + w)*16 + c0 holds x[16*c1 + c0, h, w]
    assert np.array_equal(src.reshape(2, 4, 4, 16).transpose(0, 3, 1, 2).reshape(32, 4, 4), x_example())


def test_example_rows_by_hand():
    w, poison = window_of(example())
    assert w.shape == (16, 128) and not poison.any()
    c = np.arange(16)
    # row 0 is output (0, 0): input rows/cols -1 + 2*tap; only tap (1, 1) lands inside, at x[:, 1, 1] = 16c + 6;
    # its columns are k = c1*64 + (kh*2 + kw)*16 + c0 = c1*64 + 48 + c0; everything else is padding (0)
    expect = np.zeros(128)
    expect[48:64], expect[112:128] = 16 * c + 6, 16 * (c + 16) + 6
    assert np.array_equal(w[0], expect)
    # row 15 is output (3, 3): only tap (0, 0) is inside, at x[:, 2, 2] = 16c + 11
    expect = np.zeros(128)
    expect[0:16], expect[64:80] = 16 * c + 11, 16 * (c + 16) + 11
    assert np.array_equal(w[15], expect)
    # row 5 is output (1, 1): every tap inside, e.g. tap (1, 0) reads x[:, 2, 0] = 16c + 9 (columns 32..47)
    assert np.array_equal(w[5, 32:48], 16 * c + 9)


def test_example_equals_a_direct_convolution():
    rng = np.random.default_rng(7)
    weight = rng.integers(-3, 4, size=(16, 32, 2, 2))  # Cout = 16 as in the example
    w, _ = window_of(example())
    # the K order (c1, kh, kw, c0): row k of the weight matrix is weight[:, 16*c1 + c0, kh, kw]
    b = weight.reshape(16, 2, 16, 2, 2).transpose(1, 3, 4, 2, 0).reshape(128, 16)
    ref = conv2d(x_example(), weight, (1, 1, 1, 1), (1, 1), (2, 2), 0)  # (16, Ho=4, Wo=4)
    assert np.array_equal(w @ b, ref.reshape(16, 16).T)


def test_run_command_writes_the_window(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    r = CliRunner().invoke(main, ["run", str(EXAMPLE), "-o", "out"])
    assert r.exit_code == 0, r.output
    dst = np.load("out/dst.npy")
    # NZ with one row of fractals: fractal k1 holds columns 16*k1 .. 16*k1+15, row-major; row 5, fractal 2
    assert np.array_equal(dst[2 * 256 + 5 * 16: 2 * 256 + 6 * 16], 16 * np.arange(16) + 9)


# -- the argument forms -------------------------------------------------------------------------------------------

RAW = {"config0": 128 + (16 << 16),
       "config1": 1 + (1 << 6) + (2 << 12) + (2 << 20) + (2 << 28) + (2 << 36) + (32 << 48)}
V2 = {"kExtension": 128, "mExtension": 16, "filterW": 2, "filterH": 2, "dilationFilterW": 2, "dilationFilterH": 2,
      "channelSize": 32, "l1H": 4, "l1W": 4, "padList": [1, 1, 1, 1], "padValue": 0}


def with_args(args: dict) -> dict:
    doc = example()
    doc["args"] = args
    return doc


def test_three_forms_read_alike():
    page = parse_case(example()).env
    raw = parse_case(with_args({**RAW, "fmatrix": example()["args"]["fmatrix"]})).env
    v2 = parse_case(with_args(V2)).env

    def call(env):  # the call's own fields; defaultConfig says which feature map a program's call loads with
        return {k: x for k, x in env.items() if not k.startswith("defaultConfig.")}

    assert call(page) == call(raw) == call(v2)
    # LoadData<T, defaultConfig>(dst, src, LoadData3DParamsV2): {true, true} by default (the LoadData page's V2
    # prototype); the bit-mode forms read the registers
    assert (v2["defaultConfig.isSetFMatrix"], v2["defaultConfig.isSetPadding"]) == (True, True)
    for env in (page, raw):
        assert (env["defaultConfig.isSetFMatrix"], env["defaultConfig.isSetPadding"]) == (False, False)
    partial = parse_case(with_args({**V2, "defaultConfig": {"isSetFMatrix": False}})).env
    assert (partial["defaultConfig.isSetFMatrix"], partial["defaultConfig.isSetPadding"]) == (False, True)
    # given in the bit-mode form, it is what the case says (the namings spell the same fields)
    raw_given = parse_case(with_args({**RAW, "defaultConfig": {"isSetFMatrix": True}})).env
    assert (raw_given["defaultConfig.isSetFMatrix"], raw_given["defaultConfig.isSetPadding"]) == (True, False)


def test_page_form_omitted_fields_are_zero():
    case = parse_case(with_args({"kStep": 16, "mStep": 16}))
    assert case.env["strideW"] == 0 and case.env["sizeChannel"] == 0 and not case.env["fmatrix.present"]
    ids = [v.id for v in check_case(case).violations]
    assert {"load3d.strideW.range", "load3d.Wk.range", "load3d.sizeChannel.values"} <= set(ids)


@pytest.mark.parametrize("args, field, says", [
    ({"kStep": 16, "kExtension": 16}, "args.kExtension", "one form"),
    ({**RAW, "kStep": 1}, "args.kStep", "one form"),
    ({**RAW, "strideW": 1}, "args.strideW", "packed words"),
    ({"config0": 1}, "args.config1", "both config0 and config1"),
    ({"config0": -1, "config1": 0}, "args.config0", "negative"),
    ({"config0": True, "config1": 0}, "args.config0", "expected a uint64_t"),
    ({"config0": 2**64, "config1": 0}, "args.config0", "outside any representable integer range"),
    ({"kStpe": 16}, "args.kStpe", "did you mean 'kStep'?"),
    ({**V2, "enSmallK": True}, "args.enSmallK", "no field in Load3DBitModeParam"),
    ({**V2, "fmatrix": {"l1H": 4, "l1W": 4}}, "args.l1H", "give one"),
    ({**V2, "padList": [1, 1]}, "args.padList", "list of 4"),
    ({"kExtension": "16"}, "args.kExtension", "expected an integer"),
    ({"kStep": 16, "fmatrix": {"l1H": 4}}, "args.fmatrix.l1W", "missing"),
    ({"kStep": 16, "fmatrix": {"l1H": 4, "l1W": 4, "pad": 1}}, "args.fmatrix.pad", "did you mean 'padList'?"),
    ({"kStep": 16, "fmatrix": {"l1H": 4, "l1W": 4, "padList": [1, 1, 1]}}, "args.fmatrix.padList", "list of 4"),
    ({"kStep": 16, "fmatrix": [4, 4]}, "args.fmatrix", "expected an object"),
    ({"kStep": 16, "fmatrix": {"l1H": True, "l1W": 4}}, "args.fmatrix.l1H", "got a boolean"),
])
def test_unreadable_arguments_name_the_field(args, field, says):
    with pytest.raises(InputError) as info:
        parse_case(with_args(args))
    assert info.value.field == field and says in info.value.message, info.value.line()


def test_the_pages_initializer_list_read_in_member_order():
    # { padList, H, W, 0, 0, 0, -1, -1, strideW, strideH, Kw, Kh, dilationW, dilationH, 1, 0, fmRepeat, 0, (half)(0) }
    # in the member order of HARDWARE_NOTES (fmRepeat, undefined in the example, left out: padValue keeps its 0)
    v2 = {"padList": [1, 1, 1, 1], "l1H": 4, "l1W": 4, "channelSize": 0, "kExtension": 0, "mExtension": 0,
          "kStartPt": 65535, "mStartPt": 65535, "strideW": 1, "strideH": 1, "filterW": 2, "filterH": 2,
          "dilationFilterW": 2, "dilationFilterH": 2, "enTranspose": True, "enSmallK": False, "filterSizeW": False,
          "filterSizeH": False}
    # channelSize, kExtension, mExtension 0: in this form (LoadData3DParamsV2's members) the LoadData page's NOP, a
    # warning (spec note load3d.zero-nop-350); kStartPt 65535 is still no multiple of 16
    ids = broken(with_args(v2))
    assert "load3d.kPos.multiple" in ids
    for rule_id in ("load3d.kStep.range", "load3d.mStep.range", "load3d.sizeChannel.values", "load3d.window.k_bounds",
                    "load3d.window.m_bounds"):
        assert rule_id not in ids, (rule_id, ids)
    assert "load3d.v2.nop" in {w.id for w in check_case(parse_case(with_args(v2))).warnings}
    # the same extents of 0 in the bit-mode form (page 002: from 1) are errors
    bit = broken(with_args({"kStep": 0, "mStep": 0, "sizeChannel": 0, "strideW": 1, "strideH": 1, "Wk": 2, "Hk": 2,
                            "dilationW": 2, "dilationH": 2, "fmatrix": {"l1H": 4, "l1W": 4, "padList": [1, 1, 1, 1]}}))
    for rule_id in ("load3d.kStep.range", "load3d.mStep.range", "load3d.sizeChannel.values"):
        assert rule_id in bit, (rule_id, bit)


JSONISH = st.recursive(st.none() | st.booleans() | st.integers(-(2**65), 2**65) | st.floats(allow_nan=False)
                       | st.text(max_size=4), lambda inner: st.lists(inner, max_size=5)
                       | st.dictionaries(st.sampled_from(["l1H", "l1W", "padList", "padValue", "x"]), inner, max_size=4),
                       max_leaves=8)
NAMES = ["kStep", "kExtension", "config0", "config1", "filterW", "strideW", "fmatrix", "l1H", "padList", "enSmallK",
         "transpose", "enTranspose", "sizeChannel", "padValue"]


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.sampled_from(NAMES), JSONISH, max_size=5))
def test_any_arguments_read_or_refused_with_one_line(args):
    try:
        case = parse_case(with_args(args))
    except InputError as exc:
        assert exc.field.startswith("args") and "\n" not in exc.line()
        return
    check_case(case)  # readable: the rules evaluate without error


def test_shared_names_only():
    # filterW as an integer can only be LoadData3DParamsV2's kernel width; as a bool, the page's +256 flag
    v2 = parse_case(with_args({"filterW": 3})).env
    assert v2["Wk"] == 3 and v2["filterW"] is False and v2["strideW"] == 1  # the struct's defaults
    page = parse_case(with_args({"filterW": True})).env
    assert page["Wk"] == 0 and page["filterW"] is True and page["strideW"] == 0  # the union's zeros


def test_values_beyond_a_width_break_the_type_rule():
    assert "load3d.strideW.type" in broken(example(strideW=64))
    assert broken(example(kPos=65536))[:1] == ["load3d.kPos.type"]
    # decoded from words, the same bits cannot exceed the width: 64 << 0 spills into strideH
    env = parse_case(with_args({"config0": RAW["config0"], "config1": RAW["config1"] - 1 + 64})).env
    assert (env["strideW"], env["strideH"]) == (0, 2)


def test_to_json_round_trips_the_nested_feature_map():
    case = parse_case(example())
    doc = case.to_json()
    assert doc["args"]["fmatrix"] == {"l1H": 4, "l1W": 4, "padList": [1, 1, 1, 1], "padValue": 0}
    assert parse_case(doc).env == case.env
    without = parse_case(example(fmatrix=None))
    assert "fmatrix" not in without.to_json()["args"]


def test_schema_describes_the_feature_map():
    assert validate(example()) == []
    bad = example(fmatrix={"l1H": 4, "l1W": 4, "padList": [1, 1, 1]})
    assert any(p.startswith("$.args.fmatrix.padList") for p in validate(bad))
    assert validate(with_args({"kStep": 16, "fmatrix": {"l1H": 4}})) != []  # l1W is required
    assert validate(with_args(RAW)) == []  # the packed words: another form the reader takes (load3d.namings)


# -- rules ----------------------------------------------------------------------------------------------------------

def small_map(dtype: str = "half", **args) -> dict:
    """A 3 x 3 map, 1 x 1 kernel, no padding: Ho = Wo = 3, M = 9 rows (bound ceil16 = 16), C0 columns per group."""
    c0 = {"half": 16, "int8": 32, "float": 8}[dtype]
    base = dict(kStep=c0, mStep=16, Wk=1, Hk=1, dilationW=1, dilationH=1, sizeChannel=c0,
                fmatrix={"l1H": 3, "l1W": 3, "padList": [0, 0, 0, 0], "padValue": 0})
    doc = example(**{**base, **args})
    doc["dtype"] = dtype
    doc["tensors"]["src"] = {"position": "A1", "addr": 0, "size": 9 * c0}
    return doc


@pytest.mark.parametrize("dtype, channels, ok", [
    # half: 4, 8, 16N, 16N+4, 16N+8
    ("half", 4, True), ("half", 8, True), ("half", 16, True), ("half", 20, True), ("half", 24, True),
    ("half", 12, False), ("half", 28, False), ("half", 0, False), ("half", 3, False), ("half", 63, False),
    ("half", 65535 // 16 * 16, True),
    # int8: 4, 8, 16, 32N, 32N+4, 32N+8, 32N+16
    ("int8", 16, True), ("int8", 36, True), ("int8", 40, True), ("int8", 48, True), ("int8", 24, False),
    ("int8", 56, False),
    # float: 4, 8N, 8N+4
    ("float", 4, True), ("float", 12, True), ("float", 16, True), ("float", 6, False), ("float", 2, False),
])
def test_size_channel_values(dtype, channels, ok):
    ids = broken(example(sizeChannel=channels, fmatrix=None) | {"dtype": dtype})
    assert ("load3d.sizeChannel.values" not in ids) == ok, ids


@pytest.mark.parametrize("dtype", ["fp8_e4m3fn", "fp8_e5m2", "hifloat8"])
@pytest.mark.parametrize("channels, listed", [(16, True), (36, True), (24, False), (12, False)])
def test_size_channel_of_a_type_the_page_does_not_name_is_a_warning(dtype, channels, listed):
    """Page 002 lists sizeChannel values for int8/uint8 (and 16-, 32-bit types), none for fp8 or hifloat8, which no
    vendor page or debug check constrains: the 8-bit list is applied as a warning, never an error."""
    got = check_case(parse_case(example(sizeChannel=channels, fmatrix=None) | {"dtype": dtype}))
    errors, warnings = {v.id for v in got.violations}, {w.id for w in got.warnings}
    assert "load3d.sizeChannel.values" not in errors
    assert ("load3d.sizeChannel.values_unnamed" in warnings) == (not listed), warnings


@pytest.mark.parametrize("dtype, kpos, ok", [("half", 16, True), ("half", 8, False), ("int8", 16, False),
                                             ("int8", 64, True), ("float", 8, True), ("float", 4, False)])
def test_kpos_is_a_multiple_of_32_bytes(dtype, kpos, ok):
    ids = broken(example(kPos=kpos, fmatrix=None) | {"dtype": dtype})
    assert ("load3d.kPos.multiple" not in ids) == ok, ids


def test_bottom_fractal_coverage():
    assert broken(small_map()) == []  # 16 rows: the whole bottom fractal (rows 9..15 unspecified)
    assert broken(small_map(mStep=9)) == []  # ends at the last row: covered, no multiple needed
    assert broken(small_map(mPos=3, mStep=6)) == []  # mPos 3 is free too when the bottom fractal is covered
    # mPos 3 with the bottom fractal not covered: page 002's multiple, which the vendor's newest page dropped: a warning
    got = check_case(parse_case(small_map(mPos=3, mStep=5)))
    assert [v.id for v in got.violations] == ["load3d.mStep.multiple"]
    assert [w.id for w in got.warnings] == ["load3d.mPos.multiple"]
    assert broken(small_map(mStep=32)) == ["load3d.window.m_bounds"]  # past ceil16(9) = 16
    # without fmatrix coverage cannot be seen: the multiple is required
    assert broken(small_map(mStep=9, fmatrix=None)) == ["load3d.mStep.multiple"]


def test_window_bounds_along_k():
    # K = C1 * Kh * Kw * C0 = 1 * 1 * 1 * 16: one group of columns
    assert broken(small_map(kPos=16)) == ["load3d.window.k_bounds"]
    assert broken(small_map(kStep=32)) == ["load3d.window.k_bounds"]
    # the +256 extension: a 257-wide kernel on a 300-wide map leaves Wo = 300 - 257 + 1 = 44 output columns
    doc = small_map(Wk=1, filterW=True, fmatrix={"l1H": 1, "l1W": 300, "padList": [0, 0, 0, 0], "padValue": 0},
                    mStep=48)
    doc["tensors"]["src"]["size"] = 300 * 16
    assert broken(doc) == []
    assert broken(doc | {"args": doc["args"] | {"mStep": 64}}) == ["load3d.window.m_bounds"]


def warned(doc: dict) -> list[str]:
    return [w.id for w in check_case(parse_case(doc)).warnings]


def test_placement_and_flags():
    assert broken(example(transpose=True)) == []  # A2, half
    # B2: the path always transposes (vendor LoadDataWithStride.md / LoadData_3D.md): the flag is a warning, not an error
    b2 = example(transpose=True)
    b2["tensors"]["dst"]["position"], b2["tensors"]["src"]["position"] = "B2", "B1"
    assert broken(b2) == [] and warned(b2) == ["load3d.transpose.no_effect"]
    assert warned(example(transpose=True) | {}) == []
    # A2 with a type other than half: valid on atlas-350 (b8/b16/b32, vendor docs), no warning either
    for dtype in ("bfloat16", "int8", "float"):
        assert "load3d.transpose.no_effect" not in warned(example(transpose=True, fmatrix=None) | {"dtype": dtype})
    path = example()
    path["tensors"]["src"]["position"] = "B1"
    assert broken(path) == ["load3d.path"]
    assert broken(example(fmatrixCtrl=True)) == ["load3d.fmatrixCtrl.false"]
    moved = example()
    moved["tensors"]["dst"]["addr"] = 256  # L0A wants 512-byte starts
    assert broken(moved) == ["load3d.dst.align"]
    short = example()
    short["tensors"]["dst"]["size"] = 16 * 128 - 1  # the 16 x 128 window needs 2048 elements
    # no page sizes dst and the hardware does not check a LocalTensor's size (spec note load3d.dst-size): a store past
    # dst's end is a warning, an error only when it leaves L0A
    assert broken(short) == [] and "load3d.dst.size" in warned(short)
    far = example()
    far["tensors"]["dst"]["addr"] = 65536 - 1024  # L0A is 64 KiB; the 2048 halves (4 KiB) would end past it
    far["tensors"]["dst"]["size"] = 512
    assert "load3d.dst.output_bounds" in broken(far)
    small_src = example()
    small_src["tensors"]["src"]["size"] = 511  # C1 * l1H * l1W * C0 = 2 * 4 * 4 * 16 = 512
    small_src["tensors"]["src"].pop("data")
    assert broken(small_src) == ["load3d.src.footprint"]
    # a map of height 0 (pads 1 + 1, dilated kernel 3): Ho = (0 + 2 - 3) // 1 + 1 = 0 output rows, so no window fits
    assert broken(example(fmatrix={"l1H": 0, "l1W": 4, "padList": [1, 1, 1, 1], "padValue": 0})) == \
        ["load3d.fmatrix.l1H.range", "load3d.window.m_bounds"]


def test_pad_value_range_follows_t():
    doc = small_map("int8")
    doc["args"]["fmatrix"]["padValue"] = 127
    assert broken(doc) == []
    doc["args"]["fmatrix"]["padValue"] = 128
    assert broken(doc) == ["load3d.fmatrix.padValue.range"]


def test_mpos_above_32767_is_an_error_and_no_fmatrix_is_a_note():
    """The vendor's newest Load3DBitMode page (mPos in [0, 32767]) and its LoadData3D page (mStartPt, the same) agree;
    page 002's [0, 65535] is the older text."""
    assert check_case(parse_case(example(mPos=32767, fmatrix=None))).valid
    result = check_case(parse_case(example(mPos=32768, fmatrix=None)))
    assert [v.id for v in result.violations] == ["load3d.mPos.range3d"]
    assert {u.rule_id for u in result.unchecked} == {"load3d.window.m_bounds", "load3d.window.k_bounds",
                                                    "load3d.src.footprint"}


def test_not_supported_outside_atlas_350_and_the_v2_products():
    """The V2 load's products accept it unmodelled (tests/test_load3d_v2_products.py); the others refuse it."""
    assert "load3d.product.support" in broken(example() | {"product": "atlas-inference-vectorcore"})
    assert broken(example() | {"product": "atlas-training"}) == ["load3d.product.support"]


def test_without_fmatrix_the_core_writes_poison_only():
    case = parse_case(example(fmatrix=None), base_dir=EXAMPLE.parent)
    res = run_case(case)
    _, poison = stored_window(case, res)
    assert poison.all() and not res.trace.regions("read", "L1")


# -- the core against a direct convolution (property 1) -------------------------------------------------------------

@st.composite
def conv_problems(draw):
    dtype = draw(st.sampled_from(["half", "float"]))
    c0 = 16 if dtype == "half" else 8
    channels = draw(st.sampled_from([4, 8, c0, c0 + 4, 2 * c0]))
    c1 = -(-channels // c0)
    h, w = draw(st.integers(1, 5)), draw(st.integers(1, 5))
    pads = [draw(st.integers(0, 2)) for _ in range(4)]
    kh, kw = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    dh, dw = draw(st.integers(1, 2)), draw(st.integers(1, 2))
    sh, sw = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    assume(dh * (kh - 1) + 1 <= h + pads[2] + pads[3] and dw * (kw - 1) + 1 <= w + pads[0] + pads[1])
    ho = (h + pads[2] + pads[3] - dh * (kh - 1) - 1) // sh + 1
    wo = (w + pads[0] + pads[1] - dw * (kw - 1) - 1) // sw + 1
    rng = np.random.default_rng(draw(st.integers(0, 2**32)))
    x = rng.integers(-4, 5, size=(c1 * c0, h, w))  # channels past sizeChannel hold junk the call must not use
    weight = rng.integers(-2, 3, size=(3, channels, kh, kw))
    pad_value = draw(st.integers(-2, 2))
    args = {"kStep": c1 * kh * kw * c0, "mStep": ho * wo, "kPos": 0, "mPos": 0, "strideW": sw, "strideH": sh,
            "Wk": kw, "Hk": kh, "dilationW": dw, "dilationH": dh, "sizeChannel": channels,
            "fmatrix": {"l1H": h, "l1W": w, "padList": pads, "padValue": pad_value}}
    src = x.reshape(c1, c0, h, w).transpose(0, 2, 3, 1).reshape(-1)
    rows = -(-ho * wo // 16) * 16
    doc = {"api": "Load3DBitMode", "product": "atlas-350", "dtype": dtype, "args": args,
           "tensors": {"dst": {"position": "A2", "addr": 0, "size": rows * c1 * kh * kw * c0},
                       "src": {"position": "A1", "addr": 64, "size": src.size, "data": src.tolist()}}}
    ref = conv2d(x[:channels], weight, tuple(pads), (sh, sw), (dh, dw), pad_value)
    return doc, weight, ref


def weight_matrix(weight: np.ndarray, c0: int) -> np.ndarray:
    """Rows k = (c1, kh, kw, c0) of the K axis; zero rows for channels past sizeChannel."""
    n, channels, kh, kw = weight.shape
    c1 = -(-channels // c0)
    full = np.zeros((n, c1 * c0, kh, kw), dtype=weight.dtype)
    full[:, :channels] = weight
    return full.reshape(n, c1, c0, kh, kw).transpose(1, 3, 4, 2, 0).reshape(-1, n)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(conv_problems())
def test_img2col_times_weights_is_the_convolution(problem):
    doc, weight, ref = problem
    case = parse_case(doc)
    assert check_case(case).valid, [v.id for v in check_case(case).violations]
    res = run_case(case)
    bits, poison = stored_window(case, res)
    t = np.float16 if doc["dtype"] == "half" else np.float32
    w = bits.astype(np.uint16 if t is np.float16 else np.uint32).view(t).astype(np.float64)
    c0 = 32 // np.dtype(t).itemsize
    channels = doc["args"]["sizeChannel"]
    lanes_real = (np.arange(w.shape[1]) % c0 + np.arange(w.shape[1]) // (c0 * weight.shape[2] * weight.shape[3]) * c0
                  < channels)
    assert np.array_equal(poison[0], ~lanes_real)  # unspecified exactly at the channels past sizeChannel
    w = np.where(poison, 0, w)
    assert np.array_equal(w @ weight_matrix(weight, c0), ref.reshape(ref.shape[0], -1).T)


# -- window split, transpose, verdict against faults (properties 2-4) -----------------------------------------------

def test_split_along_k_by_hand():
    whole, _ = window_of(example())
    left, _ = window_of(example(kStep=64))
    right, _ = window_of(example(kPos=64, kStep=64))
    assert np.array_equal(np.hstack([left, right]), whole)


def test_transpose_by_hand():
    plain, _ = window_of(example())
    case = parse_case(example(transpose=True), base_dir=EXAMPLE.parent)
    dst = run_case(case).tensors["dst"].astype(np.float64)
    # the 128 x 16 transpose in NZ: 8 fractals down, one across; element (k, m) at fractal k//16, (k%16)*16 + m
    t = nz_matrix(dst, 128, 16, 16)
    assert np.array_equal(t, plain.T)
    assert dst[3 * 256 + 5 * 16 + 7] == plain[7, 3 * 16 + 5]


@SLOW
@given(st.one_of(cases(MODEL), cases(MODEL, dtype="half")), st.integers(0, 1000))  # half: transpose is possible
def test_split_and_transpose_on_drawn_cases(case, seed):
    window_split_concatenates(case, seed)
    transpose_transposes(case, seed)
    memory_rules_match_core(case, seed)


MEMORY_RULES = {"load3d.dst.align", "load3d.dst.size", "load3d.dst.bounds", "load3d.dst.output_bounds", "load3d.src.align", "load3d.src.bounds",
                "load3d.src.footprint"}


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(st.data())
def test_verdict_and_core_faults_agree(data):
    """A case breaking one rule: the core shows the matching fault for the memory rules (a misaligned store for
    dst.align, a store past dst's end for dst.size, two fractals on the same bytes for dstStride.overlap; src rules
    only ever read faults), and no fault at all, nothing outside dst or src, for every other rule."""
    case = data.draw(cases(MODEL))
    rules = [r.id for r in MODEL.rules_for(case.product)
             if r.symbolic and r.severity == "error" and not r.id.endswith(".support")]
    rule_id = data.draw(st.sampled_from(rules))
    try:
        bad = breaking(case, rule_id)
    except Undecided:  # the solver's time limit ran out (a loaded machine): no case, and nothing to say about one
        reject()
    assume(bad is not None)
    assert broken_ids(bad) == [rule_id]
    if MODEL.rule_by_id[rule_id].domain.get("kind") in ("type", "fits"):
        return  # not run, as `ascverify run` does not: sizes beyond their type, tensors beyond their buffer
    res = run_case(fresh(bad), strict=False)
    kinds = {f.kind for f in res.faults}
    dst, src = bad.tensor("dst"), bad.tensor("src")
    stored = np.flatnonzero(res.trace.stored(dst.buffer)) if dst.end <= res.memory.size(dst.buffer) else []
    escape = len(stored) and (stored.min() < dst.addr or stored.max() >= dst.end)
    read = np.flatnonzero(res.trace.footprint("read", src.buffer))
    read_out = read.size and (read.min() < src.addr or read.max() >= src.end)
    # dst.size is a warning (spec note load3d.dst-size): a case that breaks another rule may also store past a dst
    # declared too small, and then says so; a dst in a position the page does not allow has no defined layout
    verdict = check_case(bad)
    may_escape = "load3d.dst.size" in [w.id for w in verdict.warnings] or rule_id == "load3d.dst.position"
    # repeatTime = 0 in the repeat register makes the call a NOP that moves nothing (SetLoadDataRepeat's constraints)
    nop = bool(bad.env["repeat.present"]) and bad.env["repeat.repeatTime"] == 0
    if rule_id == "load3d.dst.align":
        assert kinds == (set() if nop else {"misaligned"})  # nothing stored, nothing stored misaligned
    elif rule_id in ("load3d.dst.bounds", "load3d.dst.output_bounds"):  # the output leaves L0A/L0B
        assert kinds <= {"out_of_bounds"}
    elif rule_id == "load3d.dstStride.overlap":  # two fractals of the output meet: the core's exclusive stores fault
        # (never on a NOP, repeatTime 0, which stores nothing: the rule does not apply there, spec note load3d.nop)
        assert not nop and kinds == {"overlap"} and (may_escape or not escape)
    elif rule_id in MEMORY_RULES:  # src: faults of reads only, and only if the window reads there
        assert kinds <= {"misaligned", "out_of_bounds", "uninitialized"} and (may_escape or not escape)
    else:
        assert not kinds and (may_escape or not escape) and not read_out, (rule_id, kinds)
    assert may_escape or not escape


def broken_ids(case) -> list[str]:
    return [v.id for v in check_case(case).violations]


def test_invalid_case_runs_from_the_cli(tmp_path, monkeypatch):
    doc = example()
    doc["tensors"]["dst"]["addr"] = 256
    runner = CliRunner()
    monkeypatch.chdir(tmp_path)
    shutil.copy(doc["tensors"]["src"]["data"], ".")  # data files are read only from the case file's folder
    doc["tensors"]["src"]["data"] = Path(doc["tensors"]["src"]["data"]).name
    Path("bad.json").write_text(json.dumps(doc))
    r = runner.invoke(main, ["run", "bad.json", "-o", "out"])
    assert r.exit_code == 1
    assert "[load3d.dst.align]" in r.stdout and "fault: misaligned" in r.stdout
    r = runner.invoke(main, ["check", "bad.json"])
    assert r.exit_code == 1 and "Units and alignment" in r.stdout


def test_listings_name_the_model():
    runner = CliRunner()
    r = runner.invoke(main, ["rules", "Load3DBitMode"])
    assert r.exit_code == 0 and "load3d.window.m_bounds" in r.stdout
    r = runner.invoke(main, ["notes", "load3d"])
    assert r.exit_code == 0 and "load3d.covered" in r.stdout and "load3d.k-order" in r.stdout
    r = runner.invoke(main, ["support"])
    assert "Load3DBitMode" in r.stdout


def test_example_copy_is_untouched():
    # the helpers copy the example: a test never writes the shipped file
    assert json.loads(EXAMPLE.read_text()) == json.loads(EXAMPLE.read_text()) and copy.deepcopy(example()) == example()


# -- the reference invariant on large padded maps -------------------------------------------------------------------

def test_reference_checks_a_window_of_a_large_padded_map():
    """The reference reads the padded map at each point without making it, so it checks every case: this one's
    padded map (16 x 1000 x 259 elements, 4.1 million) was once too large to make and went unchecked. Its window's
    rows 0-15 are output columns wo = 0..15 at stride 2 from w = -1 (the left pad): a core that takes strideW as 1
    reads other columns, and the reference says so."""
    doc = small_map(strideW=2, fmatrix={"l1H": 1000, "l1W": 3, "padList": [1, 255, 0, 0], "padValue": 0})
    doc["tensors"]["src"] = {"position": "A1", "addr": 0, "size": 1000 * 3 * 16}
    case = parse_case(doc)
    assert check_case(case).valid
    window_equals_reference(case)  # the core passes
    mutant = next(m for m in all_mutants() if m.name == "strideW-ignored")
    with mutant.installed(MODEL):
        with pytest.raises(AssertionError, match="the feature map gives"):
            window_equals_reference(case)


@SLOW  # most drawn maps are too large to make whole here: filtered out
@given(cases(MODEL, product="atlas-350"), st.integers(0, 2**16))
def test_reference_reads_the_padded_map(case, seed):
    """`reference_window` equals reading the padded map made whole (padValue around x: left, right, top, bottom), as
    the convolution's definition has it, at every defined element of the window."""
    env = case.env
    assume(env["fmatrix.present"])
    geo = Geometry.of(env, case.ctx.dtype.size)
    left, right, top, bottom = geo.pads
    assume(geo.c1 * geo.c0 * (geo.l1h + top + bottom) * (geo.l1w + left + right) <= 1 << 21)
    res = run_case(fresh(case), seed=seed)
    bits = as_bits(res.inputs["src"])
    m = int(env["mPos"]) + np.arange(int(env["mStep"]))
    k = int(env["kPos"]) + np.arange(int(env["kStep"]))
    ref, valid = reference_window(case, bits, m, k)
    c0 = geo.c0
    x = bits[: geo.src_elems].reshape(geo.c1, geo.l1h, geo.l1w, c0).transpose(0, 3, 1, 2)
    x = x.reshape(geo.c1 * c0, geo.l1h, geo.l1w)
    pad = ref.dtype.type(as_bits(np.array([pad_value(case.ctx.dtype, int(env["fmatrix.padValue"]))],
                                          dtype=case.ctx.dtype.numpy))[0])
    whole = np.full((x.shape[0], geo.l1h + top + bottom, geo.l1w + left + right), pad, dtype=ref.dtype)
    whole[:, top:top + geo.l1h, left:left + geo.l1w] = x
    for i, row in enumerate(m):
        if row >= geo.m_total:
            continue
        ho, wo = divmod(int(row), geo.wo)
        for j, col in enumerate(k):
            group, lane = divmod(int(col), c0)
            rest, kw = divmod(group, geo.kw)
            c1, kh = divmod(rest, geo.kh)
            if not valid[i, j]:
                continue
            assert ref[i, j] == whole[c1 * c0 + lane, ho * geo.sh + kh * geo.dh, wo * geo.sw + kw * geo.dw]


@pytest.mark.parametrize("dtype", ["int16", "uint16"])
def test_16_bit_integers_are_the_tensor_api_s_with_a_warning(dtype):
    """No LoadData page lists int16 / uint16 (page 002 Table 1: ten types), but the vendor's Tensor API Img2Col page
    excludes only the b4 types and its 950 test loads int16_t: accepted on atlas-350 with dtype.unlisted, loaded as
    any 16-bit type (the window's values are the feature map's, as for half); refused where the V2 load's type lists
    do not have them."""
    doc = example()
    doc["dtype"] = dtype
    doc["tensors"]["src"].pop("data", None)
    result = check_case(parse_case(doc))
    assert result.valid and [w.id for w in result.warnings] == ["load3d.dtype.unlisted"]
    res = run_case(parse_case(doc))
    assert not res.faults and res.tensors["dst"].dtype == np.dtype(dtype)
    doc["product"] = "atlas-a2"
    assert "load3d.dtype.support" in [v.id for v in check_case(parse_case(doc)).violations]
