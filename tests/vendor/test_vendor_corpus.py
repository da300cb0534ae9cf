"""The vendor corpus: calls taken from the vendor's own tests and examples (pyasc, asc-devkit), checked with the
verdict the vendor's test expects, and run against goldens re-derived here from their meaning.

Each entry of ``corpus/*.json`` (format: README.md next to this file) is one call (or one program: setters first,
then the call) with its provenance. For every entry:

* ``expect.verdict == "success"``: the case (or program) must parse and break no ERROR rule (warnings allowed);
* ``expect.verdict == "failure"``: every rule id in ``expect.rules`` must be among the errors ascverify reports;
* ``golden`` (where the vendor computes one): the inputs are drawn with a fixed numpy seed, the expected output is
  computed by the formulas below (written from the meaning of the vendor's golden, not copied from it), and
  ``run_case`` / ``run_program`` must reproduce it bit for bit.

An entry may carry ``"xfail": "reason"`` to be reported as an expected failure (strict: it fails once it passes);
no entry carries one today, see README.md.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from ascverify import check_case, parse_case, run_case
from ascverify.cases.program import parse_program
from ascverify.cases.schema import validate
from ascverify.checking.program import check_program
from ascverify.core.program import run_program
from ascverify.core.unspecified import unspecified_elements
from ascverify.spec.errors import InputError

CORPUS = Path(__file__).resolve().parent / "corpus"
PRODUCTS = {"atlas-350", "atlas-a3", "atlas-a2", "atlas-200i-500-a2", "atlas-inference-aicore",
            "atlas-inference-vectorcore", "atlas-training"}
PROVENANCE_KEYS = ("repository", "path", "commit", "lines", "function", "vendor_target", "vendor_check")


def load_corpus() -> list[tuple[str, dict[str, Any]]]:
    out = []
    for path in sorted(CORPUS.glob("*.json")):
        for entry in json.loads(path.read_text(encoding="utf-8"))["entries"]:
            out.append((path.name, entry))
    return out


ENTRIES = load_corpus()


def _param(fname: str, entry: dict[str, Any]) -> Any:
    marks = [pytest.mark.xfail(reason=entry["xfail"], strict=True)] if entry.get("xfail") else []
    return pytest.param(entry, id=entry["id"], marks=marks)


# -- the corpus itself -----------------------------------------------------------------------------------------------

def test_the_published_schema_accepts_every_vendor_call():
    """`check --schema` reads the vendor's calls as `check` does: every single call of the corpus (14 of 60 are
    spelt as pyasc writes them, e.g. ``repeat`` and ``dst_rep_stride``; the schema refused them, listing Ascend C's
    names only) validates against the JSON Schema (programs: their calls are validated when parsed)."""
    singles = [e for _, e in ENTRIES if "calls" not in e["case"]]
    assert len(singles) >= 50
    refused = {e["id"]: validate(e["case"])[:1] for e in singles if validate(e["case"])}
    assert not refused



def test_corpus_is_well_formed():
    ids = [e["id"] for _, e in ENTRIES]
    assert len(ids) == len(set(ids)), "duplicate ids"
    assert len(ids) >= 40
    for fname, e in ENTRIES:
        where = f"{fname}: {e.get('id')}"
        assert set(e) <= {"id", "api", "product", "provenance", "case", "expect", "golden", "xfail"}, where
        assert e["product"] in PRODUCTS, where
        doc = e["case"]
        assert doc["product"] == e["product"], where
        p = e["provenance"]
        for k in PROVENANCE_KEYS:
            assert isinstance(p.get(k), str) and p[k], f"{where}: provenance.{k}"
        assert len(p["commit"]) == 40 and all(c in "0123456789abcdef" for c in p["commit"]), where
        v = e["expect"]["verdict"]
        assert v in ("success", "failure"), where
        if v == "failure":
            assert e["expect"].get("rules"), f"{where}: a failure names the rules that must fire"
            assert "golden" not in e, where


# -- checking --------------------------------------------------------------------------------------------------------

def _parse(doc: dict[str, Any]) -> Any:
    return parse_program(doc) if "calls" in doc else parse_case(doc)


def _check(parsed: Any, doc: dict[str, Any]) -> Any:
    return check_program(parsed) if "calls" in doc else check_case(parsed)


def _shown(v: Any) -> str:
    call = f"call {v.call}: " if getattr(v, "call", None) is not None else ""
    return f"{call}[{v.id}] {v.message}"


def _verdict(entry: dict[str, Any], doc: dict[str, Any]) -> tuple[Any, Any]:
    """Parse and check; fail the test with ascverify's messages when the verdict is not the vendor's."""
    expect = entry["expect"]
    try:
        parsed = _parse(doc)
    except InputError as exc:
        pytest.fail(f"{entry['id']}: the vendor expects {expect['verdict']}; ascverify cannot read the case: "
                    f"{exc.field + ': ' if exc.field else ''}{exc.message}")
    result = _check(parsed, doc)
    errors = list(result.violations)
    if expect["verdict"] == "success":
        if errors:
            pytest.fail(f"{entry['id']}: the vendor expects success; ascverify reports "
                        + "; ".join(_shown(v) for v in errors))
    else:
        fired = {v.id for v in errors}
        missing = [r for r in expect["rules"] if r not in fired]
        if missing:
            pytest.fail(f"{entry['id']}: the vendor expects a failure; rule(s) {', '.join(missing)} did not fire "
                        f"(errors: {', '.join(sorted(fired)) or 'none'})")
    return parsed, result


@pytest.mark.parametrize("entry", [_param(f, e) for f, e in ENTRIES])
def test_vendor_entry(entry):
    doc = copy.deepcopy(entry["case"])
    golden = entry.get("golden")
    expected = None
    if golden is not None:
        expected = GOLDENS[golden["kind"]](doc, golden)  # fills the inputs into doc, returns the checker
    parsed, _ = _verdict(entry, doc)
    if expected is None and entry["expect"]["verdict"] != "success":
        return
    for name, values in getattr(expected, "inputs", {}).items():  # inputs JSON cannot hold (NaN, inf)
        parsed.set_data(name, values)
    # a call the vendor's test runs without error runs on the core without a fault too (strict: every access outside
    # a declared tensor, every read of a byte no input or earlier call wrote)
    if "calls" in doc:
        run = run_program(parsed, strict=False)
        outcome, faults = run.runs[-1], run.faults
    else:
        outcome = run_case(parsed, strict=False)
        faults = outcome.faults
    if entry["expect"]["verdict"] == "success":
        assert not faults, f"{entry['id']}: the vendor runs it without error; the core faults: " + "; ".join(
            str(f) for f in faults[:3])
    if expected is not None:
        expected(outcome)


# -- helpers for the goldens -----------------------------------------------------------------------------------------

NUMPY = {"half": np.float16, "float": np.float32, "int8": np.int8, "uint8": np.uint8, "int16": np.int16,
         "uint16": np.uint16, "int32": np.int32, "uint32": np.uint32, "uint64": np.uint64, "int64": np.int64}
BITS = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}

#: pyasc spellings of the arguments and tensors the goldens read
SPELLING = {"h_repeat": "hRepeat", "repeat_mode": "repeatMode", "dst_blk_stride": "dstBlkStride",
            "v_r_offset": "vROffset", "v_repeat": "vRepeat", "src0_offset": "src0Offset",
            "shared_tmp_buffer": "sharedTmpBuffer", "repeat": "repeatTime", "repeat_time": "repeatTime",
            "dst_rep_stride": "dstRepStride", "src_blk_stride": "srcBlkStride", "src_rep_stride": "srcRepStride"}


def _canon(d: dict[str, Any]) -> dict[str, Any]:
    return {SPELLING.get(k, k): v for k, v in d.items()}


def _same_bits(got: Any, want: np.ndarray, what: str) -> None:
    want = np.ascontiguousarray(want)
    got = np.ascontiguousarray(got, dtype=want.dtype)
    assert got.shape == want.shape, f"{what}: shape {got.shape}, want {want.shape}"
    u = BITS[want.dtype.itemsize]
    bad = np.flatnonzero(got.view(u) != want.view(u))
    if bad.size:
        at = np.unravel_index(bad[0], want.shape)
        pytest.fail(f"{what}: {bad.size} of {want.size} values differ, first at {list(map(int, at))}: "
                    f"got {got[at]!r}, want {want[at]!r}")


def _lanes(mask: Any, lanes: int) -> np.ndarray:
    """Per lane of one repeat: on or off. An integer is the contiguous mode; a list the bitwise words, mask[0] the
    low 64 lanes (HARDWARE_NOTES Masks)."""
    if isinstance(mask, int):
        return np.arange(lanes) < mask
    return np.array([bool((int(mask[j // 64]) >> (j % 64)) & 1) for j in range(lanes)])


def _to_list(a: np.ndarray) -> list:
    return [x.item() for x in np.asarray(a).reshape(-1)]


def _tensor_dtype(doc: dict[str, Any], t: dict[str, Any]) -> str:
    return t.get("dtype", doc.get("dtype"))


# -- BilinearInterpolation: sum over hRepeat of (8 gathered blocks x src1), half rounding after every op ------------

def golden_bilinear(doc: dict[str, Any], spec: dict[str, Any]):
    a = _canon(doc["args"])
    tensors = doc["tensors"]
    names = {SPELLING.get(k, k): k for k in tensors}
    t = {k: tensors[v] for k, v in names.items()}
    rng = np.random.default_rng(spec["seed"])
    src0 = rng.uniform(spec["low"], spec["high"], t["src0"]["size"]).astype(np.float16)
    src1 = rng.uniform(spec["low"], spec["high"], t["src1"]["size"]).astype(np.float16)
    dst0 = np.full(t["dst"]["size"], spec["dst_init"], dtype=np.float16)
    t["src0"]["data"], t["src1"]["data"], t["dst"]["data"] = _to_list(src0), _to_list(src1), _to_list(dst0)
    offsets = np.asarray(t["src0Offset"]["data"], dtype=np.int64)

    h_rep, v_rep, rmode = a["hRepeat"], a["vRepeat"], a["repeatMode"]
    on = _lanes(a["mask"], 128)
    want = dst0.copy()
    for v in range(v_rep):
        acc = np.zeros(128, dtype=np.float16)  # each vertical iteration starts from 0
        for h in range(h_rep):
            it = v * h_rep + h
            for b in range(8):
                start = int(offsets[it * 8 + b]) // 2  # a byte offset into src0, in halves
                weight = src1[it * 8 + b] if rmode else src1[it]
                # one half multiply and one half add, each exact in float64 and rounded once to half
                prod = (src0[start:start + 16].astype(np.float64) * np.float64(weight)).astype(np.float16)
                lane = slice(b * 16, b * 16 + 16)
                acc[lane] = (acc[lane].astype(np.float64) + prod.astype(np.float64)).astype(np.float16)
        for b in range(8):
            base = v * a["vROffset"] + b * a["dstBlkStride"] * 16
            sel = on[b * 16:b * 16 + 16]
            block = want[base:base + 16]
            block[sel] = acc[b * 16:b * 16 + 16][sel]  # masked-off lanes keep dst
            want[base:base + 16] = block

    def check(out):
        _same_bits(out.tensors["dst"], want, "dst")
    return check


# -- BlockReduceMin: the minimum of the active lanes of every 32-byte datablock --------------------------------------

def golden_block_min(doc: dict[str, Any], spec: dict[str, Any]):
    a = _canon(doc["args"])
    t = doc["tensors"]
    dt = NUMPY[doc["dtype"]]
    size = np.dtype(dt).itemsize
    per_block, lanes = 32 // size, 256 // size
    rng = np.random.default_rng(spec["seed"])
    src = rng.uniform(spec["low"], spec["high"], t["src"]["size"]).astype(dt)
    src[src == 0] = dt(1)  # no zeros: min(-0, +0) is not at stake; NaN never drawn
    dst0 = np.full(t["dst"]["size"], spec["dst_init"], dtype=dt)
    t["src"]["data"], t["dst"]["data"] = _to_list(src), _to_list(dst0)

    on = _lanes(a["mask"], lanes)
    want = dst0.copy()
    for r in range(a["repeatTime"]):
        for b in range(8):
            start = (r * a["srcRepStride"] + b * a["srcBlkStride"]) * per_block
            if not on[b * per_block:(b + 1) * per_block].any():
                # no active lane: atlas-a2/a3 store nothing there, dst keeps its value (HARDWARE_NOTES Masks); the
                # datablock need not lie inside src (the vendor's ReduceMin), so nothing of it is read here either
                assert doc["product"] in ("atlas-a2", "atlas-a3"), "masked blocks: a2/a3 only"
                continue
            vals = src[start:start + per_block][on[b * per_block:(b + 1) * per_block]]
            want[r * a["dstRepStride"] * 8 + b] = vals.min()

    def check(out):
        _same_bits(out.tensors["dst"], want, "dst")
    return check


# -- BlockReduceMax: the maximum of the active lanes of every 32-byte datablock --------------------------------------

def golden_block_max(doc: dict[str, Any], spec: dict[str, Any]):
    a = _canon(doc["args"])
    t = doc["tensors"]
    dt = NUMPY[doc["dtype"]]
    per_block, lanes = 32 // np.dtype(dt).itemsize, 256 // np.dtype(dt).itemsize
    rng = np.random.default_rng(spec["seed"])
    src = rng.uniform(spec["low"], spec["high"], t["src"]["size"]).astype(dt)
    src[src == 0] = dt(1)  # no zeros: max(-0, +0) is not at stake; NaN never drawn
    dst0 = np.full(t["dst"]["size"], spec["dst_init"], dtype=dt)
    t["src"]["data"], t["dst"]["data"] = _to_list(src), _to_list(dst0)

    on = _lanes(a["mask"], lanes)
    want = dst0.copy()
    for r in range(a["repeatTime"]):
        for b in range(8):
            start = (r * a["srcRepStride"] + b * a["srcBlkStride"]) * per_block
            if not on[b * per_block:(b + 1) * per_block].any():
                # no active lane: atlas-a2/a3 store nothing there, dst keeps its value (HARDWARE_NOTES Masks); the
                # datablock need not lie inside src (the vendor's ReduceMax), so nothing of it is read here either
                assert doc["product"] in ("atlas-a2", "atlas-a3"), "masked blocks: a2/a3 only"
                continue
            vals = src[start:start + per_block][on[b * per_block:(b + 1) * per_block]]
            want[r * a["dstRepStride"] * 8 + b] = vals.max()

    def check(out):
        _same_bits(out.tensors["dst"], want, "dst")
    return check


# -- BlockReduceSum: per datablock, the binary tree of adjacent pairs, each add rounded in T --------------------------

def golden_block_sum(doc: dict[str, Any], spec: dict[str, Any]):
    """The vendor's golden is np.sum per block (float32: numpy's pairwise sum of 8 values, which is the tree). Here:
    lanes (0,1), (2,3), ... then the pair sums likewise, masked-off lanes as +0 in their place, every add done in
    Python's float and rounded to T (float32 exactly as one IEEE add: 53 >= 2*24 + 2)."""
    a = _canon(doc["args"])
    t = doc["tensors"]
    dt = NUMPY[doc["dtype"]]
    per_block, lanes = 32 // np.dtype(dt).itemsize, 256 // np.dtype(dt).itemsize
    rng = np.random.default_rng(spec["seed"])
    src = rng.uniform(spec["low"], spec["high"], t["src"]["size"]).astype(dt)
    dst0 = np.full(t["dst"]["size"], spec["dst_init"], dtype=dt)
    t["src"]["data"], t["dst"]["data"] = _to_list(src), _to_list(dst0)

    def tree(level: list[float]) -> float:
        while len(level) > 1:
            level = [float(dt(level[i] + level[i + 1])) for i in range(0, len(level), 2)]
        return level[0]

    on = _lanes(a["mask"], lanes)
    want = dst0.copy()
    for r in range(a["repeatTime"]):
        for b in range(8):
            start = (r * a["srcRepStride"] + b * a["srcBlkStride"]) * per_block
            act = on[b * per_block:(b + 1) * per_block]
            assert act.any(), "the golden covers only datablocks with an active lane"
            block = src[start:start + per_block]
            want[r * a["dstRepStride"] * 8 + b] = tree([float(x) if o else 0.0 for x, o in zip(block, act)])

    def check(out):
        _same_bits(out.tensors["dst"], want, "dst")
    return check


# -- LoadAlign into a MaskReg, DIST_NORM: the 32 bytes at the load address become the 256 mask bits ------------------

def golden_mask_norm(doc: dict[str, Any], spec: dict[str, Any]):
    t = doc["tensors"]["srcAddr"]
    dt = NUMPY[_tensor_dtype(doc, t)]
    nbytes = t["size"] * np.dtype(dt).itemsize
    if "ones" in spec["input"]:
        raw = np.zeros(nbytes, dtype=np.uint8)
        raw[spec["input"]["ones"]] = 1
    else:
        raw = np.random.default_rng(spec["input"]["random"]).integers(0, 256, nbytes, dtype=np.uint8)
    t["data"] = _to_list(raw.view(dt))
    want = raw[:32]  # plain and post-update forms read at srcAddr itself; the update comes after the load
    index = doc["args"]["mask"]

    def check(out):
        reg = np.asarray(out.memory.registers.get("mask", index), dtype=np.uint8)
        _same_bits(reg, want, f"MaskReg {index}")
        bits = np.unpackbits(reg, bitorder="little")  # mask bit i = bit i % 8 of byte i // 8
        if "lanes_on" in spec:  # uint8: one bit per lane; the vendor's golden marks the lanes Duplicate wrote
            assert np.flatnonzero(bits).tolist() == spec["lanes_on"]
        if spec.get("b32_select_lanes"):
            # gen_data.py: element i takes x where bit (i % 2) * 4 of mask byte i // 2 is set; for b32 lane j of this
            # repeat reads MaskReg bit 4 * j
            vendor = np.array([(raw[j // 2] >> ((j % 2) * 4)) & 1 for j in range(64)], dtype=np.uint8)
            assert bits[::4][:64].tolist() == vendor.tolist()
    return check


# -- cube operands: the L0A / L0B contents the Mmad of the vendor's golden (C = A @ B) reads --------------------------

def _nd2nz(mat: np.ndarray, rows: int, c0: int) -> np.ndarray:
    """GM -> L1 Nd2Nz: column groups of C0, each `rows` (padded with 0) x C0, one after another."""
    r, c = mat.shape
    groups = -(-c // c0)
    out = np.zeros((groups, rows, c0), dtype=mat.dtype)
    padded = np.zeros((r, groups * c0), dtype=mat.dtype)
    padded[:, :c] = mat
    out[:, :r, :] = padded.reshape(r, groups, c0).transpose(1, 0, 2)
    return out.reshape(-1)


def _random_matrix(rng: np.random.Generator, shape: tuple[int, int], dt: Any) -> np.ndarray:
    if np.dtype(dt).kind == "f":
        return rng.standard_normal(shape).astype(dt)
    info = np.iinfo(dt)
    return rng.integers(info.min, int(info.max) + 1, shape).astype(dt)


def golden_cube_operand(doc: dict[str, Any], spec: dict[str, Any]):
    """A in L0A: fractals of 16 (M) x C0 (K) elements, row-major inside, fractal (m1, k1) at k1 * stride + m1 (NZ,
    stride = the dstStride the kernel sets = the M fractal count). B in L0B: fractals of C0 (K) x 16 (N) stored
    N-major ([n0][k0]), fractal (k1, n1) at k1 * stride + n1 (stride = the N fractal count). The Mmad of the
    vendor's golden C = A @ B reads exactly these; so the loaded operand must equal A (resp. B) on its M x K
    (resp. K x N) part, whatever the padding holds."""
    dt = NUMPY[doc["dtype"]]
    c0 = 32 // np.dtype(dt).itemsize
    rng = np.random.default_rng(spec["seed"])
    load = [c for c in doc["calls"] if c["api"] in ("LoadDataWithStride", "Load3DBitMode")][-1]
    src = doc["tensors"][load["tensors"]["src"]]
    if spec["operand"] == "A":
        rows, cols = spec["M"], spec["K"]
    else:
        rows, cols = spec["K"], spec["N"]
    mat = _random_matrix(rng, (rows, cols), dt)
    gm = mat.T if spec.get("gm_transposed") else mat  # the GM matrix the kernel copies in
    l1 = _nd2nz(gm, spec["l1_rows"], c0)
    assert l1.size <= src["size"], "Nd2Nz copy larger than the L1 tensor"
    data = np.zeros(src["size"], dtype=dt)
    data[:l1.size] = l1
    src["data"] = _to_list(data)

    r, c = np.meshgrid(np.arange(rows), np.arange(cols), indexing="ij")
    stride = spec["stride"]
    if spec["operand"] == "A":
        m, k = r, c
        index = ((k // c0) * stride + m // 16) * 16 * c0 + (m % 16) * c0 + k % c0
    else:
        k, n = r, c
        index = ((k // c0) * stride + n // 16) * 16 * c0 + (n % 16) * c0 + k % c0

    def check(out):
        dst = np.asarray(out.tensors["dst"], dtype=dt)
        assert index.max() < dst.size, "the operand does not fit the destination tensor"
        _same_bits(dst[index], mat, f"operand {spec['operand']} read back from {load['tensors']['dst']}")
    return check


# -- img2col of a convolution into L0A (NZ) ---------------------------------------------------------------------------

def golden_img2col_nz(doc: dict[str, Any], spec: dict[str, Any]):
    """Row m = output pixel (ho, wo), column k = (c1, kh, kw, c0) of the kernel tap; the value is the feature-map
    element at h = ho * strideH - padTop + kh * dilationH, w = wo * strideW - padLeft + kw * dilationW (padValue
    outside), stored in NZ fractals (16 x C0, fractal (m1, k1) at k1 * dstStride + m1). Only the rows of real output
    pixels are compared."""
    dt = NUMPY[doc["dtype"]]
    c0 = 32 // np.dtype(dt).itemsize
    load = [c for c in doc["calls"] if c["api"] == "LoadDataWithStride"][-1]
    stride = [c for c in doc["calls"] if c["api"] == "SetLoadDataRepeatWithStride"][-1]["args"]["dstStride"]
    a = load["args"]
    fm_t = doc["tensors"][load["tensors"]["src"]]
    rng = np.random.default_rng(spec["seed"])
    fm = rng.uniform(-8, 8, fm_t["size"]).astype(dt)
    fm_t["data"] = _to_list(fm)

    left, right, top, bottom = a["padList"]
    kh_n, kw_n = a["filterH"], a["filterW"]
    dh, dw, sh, sw = a["dilationFilterH"], a["dilationFilterW"], a["strideH"], a["strideW"]
    l1h, l1w = a["l1H"], a["l1W"]
    ho = (l1h + top + bottom - dh * (kh_n - 1) - 1) // sh + 1
    wo = (l1w + left + right - dw * (kw_n - 1) - 1) // sw + 1
    rows = min(ho * wo, a["mExtension"])
    cols = a["kExtension"]
    want = np.zeros((rows, cols), dtype=dt)
    for m in range(rows):
        y, x = divmod(m, wo)
        for k in range(cols):
            lane, tap = k % c0, k // c0
            kw_i, rest = tap % kw_n, tap // kw_n
            kh_i, c1 = rest % kh_n, rest // kh_n
            h = y * sh - top + kh_i * dh
            w = x * sw - left + kw_i * dw
            inside = 0 <= h < l1h and 0 <= w < l1w
            want[m, k] = fm[((c1 * l1h + h) * l1w + w) * c0 + lane] if inside else dt(a.get("padValue", 0))
    r, c = np.meshgrid(np.arange(rows), np.arange(cols), indexing="ij")
    index = ((c // c0) * stride + r // 16) * 16 * c0 + (r % 16) * c0 + c % c0

    def check(out):
        dst = np.asarray(out.tensors["dst"], dtype=dt)
        _same_bits(dst[index], want, "img2col rows in L0A")
    return check


# -- a page's own output: the values a vendor page shows for its example / its boundary-values table -----------------

def _page_number(v: Any) -> float:
    """A value as a page prints it: a number, or "nan" / "inf" / "-inf" (JSON has no such numbers)."""
    return float(v)


def golden_page_values(doc: dict[str, Any], spec: dict[str, Any]):
    """``inputs``: tensor -> values (they may be non-finite: set on the parsed case, not in the JSON data);
    ``tensor`` and ``values`` (every element) or ``at`` (index -> value, for a page that elides the rest): the
    page's output, compared bit for bit (any NaN matches "nan"); ``unspecified``: instead, the reason (a spec note)
    why ascverify leaves every element of ``tensor`` unspecified where the page prints ``values``."""
    name = spec["tensor"]
    t = doc["tensors"][name]
    dt = NUMPY[_tensor_dtype(doc, t)]
    inputs = {k: np.array([_page_number(v) for v in vals], dtype=NUMPY[_tensor_dtype(doc, doc["tensors"][k])])
              for k, vals in spec.get("inputs", {}).items()}
    if "values" in spec:
        at = {i: _page_number(v) for i, v in enumerate(spec["values"])}
    else:
        at = {int(i): _page_number(v) for i, v in spec["at"].items()}

    def check(out):
        info = out.case.tensor(name)
        marks = unspecified_elements(out.memory, info.buffer, info.addr, info.size, info.dtype)
        got = np.asarray(out.tensors[name], dtype=dt)
        idx = np.array(sorted(at))
        if spec.get("unspecified"):
            assert marks[idx].all(), f"{name}: ascverify computes {got[idx]} where it says it does not ({spec['unspecified']})"
            return
        assert not marks[idx].any(), f"{name}: elements {np.flatnonzero(marks[idx])[:5]} unspecified, the page gives values"
        want = np.array([at[i] for i in idx], dtype=dt)
        nan = np.isnan(want)
        assert np.array_equal(np.isnan(got[idx]), nan), f"{name}: NaN where the page has none, or not where it has"
        _same_bits(got[idx][~nan], want[~nan], name)
    check.inputs = inputs
    return check


GOLDENS = {"page_values": golden_page_values, "bilinear": golden_bilinear, "block_min": golden_block_min, "block_max": golden_block_max,
           "block_sum": golden_block_sum, "mask_norm": golden_mask_norm,
           "cube_operand": golden_cube_operand, "img2col_nz": golden_img2col_nz}
