"""`ascverify show` and `check --show`: memory maps as text (80 columns, readable without colour), SVG and PNG.

The expected bytes of the bad example come from the page's own arithmetic, written out here: vertical iteration v
stores its 8 blocks of 32 bytes at dst + (v * vROffset + blk * dstBlkStride * 16) * sizeof(half) (page 000,
Table 2: vROffset and dstBlkStride in elements / blocks); with dstBlkStride=2 and vROffset=128 iteration 0 covers
blocks at 0, 64, ..., 448 and iteration 1 blocks at 256, 320, ..., 704, so the four blocks at 256, 320, 384 and
448 are written by both.
"""

from __future__ import annotations

import io
import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import matplotlib
import pytest
from click.testing import CliRunner
from matplotlib.image import imread

import ascverify
from ascverify.cli import main
from ascverify.engines.gen import generate
from ascverify.engines.pictures import figure as fig_mod
from ascverify.engines.pictures.figure import render_bytes
from ascverify.engines.pictures.memory_map import build_map
from ascverify.engines.pictures.text import BAR, LABEL, plain, render

ROOT = Path(__file__).resolve().parent.parent
BAD = ROOT / "examples" / "bad" / "bilinear_overlap.json"
SVG_NS = "{http://www.w3.org/2000/svg}"
COLOUR_SGR = re.compile(r"\x1b\[[0-9;]*?(?:3[0-9]|4[0-9]|9[0-7]|10[0-7])m")

BLOCK, HALF = 32, 2


def _blocks(v: int, stride: int = 2, offset: int = 128) -> list[int]:
    """Byte offsets of the 8 dst blocks vertical iteration v stores (the page's formula)."""
    return [(v * offset + blk * stride * 16) * HALF for blk in range(8)]


#: The environment of a plain run: no colour forced or refused from outside the test.
PLAIN = {"FORCE_COLOR": None, "NO_COLOR": None, "TERM": None}


def _run(*args: str, env: dict | None = None) -> object:
    return CliRunner().invoke(main, list(args), env={**PLAIN, **(env or {})})


def _svg_texts(svg: bytes | str) -> list[str]:
    root = ET.fromstring(svg)
    return ["".join(t.itertext()) for t in root.iter(f"{SVG_NS}text")]


# -- the bad example ---------------------------------------------------------------------------------------------------

def test_bad_example_marks_the_shared_blocks_with_their_rule():
    res = _run("show", str(BAD), "--format", "json")
    assert res.exit_code == 1, res.output
    doc = json.loads(res.output)["maps"][0]
    shared = sorted(set(_blocks(0)) & set(_blocks(1)))
    assert shared == [256, 320, 384, 448]
    faults = doc["faults"]
    assert faults and {f["kind"] for f in faults} == {"overlap"}
    assert {f["rule"] for f in faults} == {"bilinear.dst.vertical_overlap"}
    assert sorted({f["start"] for f in faults}) == shared
    assert {f["iteration"] for f in faults} == {0, 1}
    assert [p["rule"] for p in doc["problems"]] == ["bilinear.dst.vertical_overlap"]
    # per-iteration footprint of dst: exactly the page's blocks
    (ub,) = doc["buffers"]
    region = next(r for r in ub["regions"] if r["tensors"] == ["dst"])
    rows = {r["iteration"]: r for r in region["rows"]}
    for v in (0, 1):
        assert rows[v]["writes"] == [[a, a + BLOCK] for a in _blocks(v)]


def test_bad_example_text_rows_follow_the_blocks():
    res = _run("show", str(BAD))
    assert res.exit_code == 1
    lines = res.output.splitlines()
    assert "\x1b[" not in res.output  # not a terminal: no colour, no style
    assert max(len(line) for line in lines) <= 80
    # dst spans 368 halves = 736 bytes; 736 / 64 cells -> 16 bytes per cell (the next power of two)
    per, n = 16, 736 // 16
    assert any("region dst:" in line and "one cell = 16 B" in line for line in lines)

    def expected(v: int) -> str:
        cells = ["."] * n
        for a in _blocks(v):
            for c in range(a // per, (a + BLOCK) // per):
                cells[c] = "!" if a in _blocks(1 - v) else "w"
        return "".join(cells)

    bars = {line[2:2 + LABEL].strip(): line[2 + LABEL + 1:2 + LABEL + 1 + n] for line in lines
            if line.startswith("  #") and len(line) > 2 + LABEL + n}
    assert bars["#0"] == expected(0)
    assert bars["#1"] == expected(1)
    assert "fault: overlap x8 on dst" in res.output
    assert "[bilinear.dst.vertical_overlap]" in res.output


def test_colour_only_repeats_the_characters(monkeypatch):
    coloured = _run("show", str(BAD), env={"FORCE_COLOR": "1", "TERM": "xterm-256color", "COLUMNS": "80"})
    assert COLOUR_SGR.search(coloured.output), "a terminal gets colour"
    stripped = re.sub(r"\x1b\[[0-9;]*m", "", coloured.output)
    assert stripped == _run("show", str(BAD)).output
    no_colour = _run("show", str(BAD), env={"FORCE_COLOR": "1", "NO_COLOR": "1", "COLUMNS": "80"})
    assert not COLOUR_SGR.search(no_colour.output), "NO_COLOR: no colour"


def test_svg_and_png(tmp_path):
    svg, png = tmp_path / "map.svg", tmp_path / "map.png"
    res = _run("show", str(BAD), "--svg", str(svg), "--png", str(png))
    assert res.exit_code == 1, res.output
    texts = _svg_texts(svg.read_bytes())
    for name in ("dst", "src0", "src0Offset", "src1", "sharedTmpBuffer"):
        assert any(name in t for t in texts), name
    assert any("bilinear.dst.vertical_overlap" in t for t in texts)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    again = tmp_path / "again.svg"
    _run("show", str(BAD), "--svg", str(again))
    assert again.read_bytes() == svg.read_bytes(), "the same case draws the same SVG"


def test_committed_pictures_are_current():
    """docs/memory-map.txt and docs/memory-map.svg are the bad example's map as the code draws it now (the SVG
    compared by its text: the positions matplotlib computes may move between its releases)."""
    text = (ROOT / "docs" / "memory-map.txt").read_text()
    assert text == _with_cwd(ROOT, ["show", "examples/bad/bilinear_overlap.json"])
    case = next(iter(ascverify.read_cases(str(BAD)))).case
    mmap = build_map(case, origin="examples/bad/bilinear_overlap.json:case 0")
    assert _svg_texts((ROOT / "docs" / "memory-map.svg").read_bytes()) == _svg_texts(render_bytes(mmap, "svg"))


def _with_cwd(path: Path, args: list[str]) -> str:
    import os

    old = os.getcwd()
    os.chdir(path)
    try:
        return CliRunner().invoke(main, args, env=PLAIN).output
    finally:
        os.chdir(old)


# -- check --show, programs, bad input ---------------------------------------------------------------------------------

def test_check_show_draws_invalid_cases_only():
    good = ROOT / "examples" / "bilinear_interpolation.json"
    res = _run("check", "--show", str(BAD), str(good))
    assert res.exit_code == 1
    assert res.output.count("verdict:") == 1, "one map: the invalid case's"
    first = res.output.index("error: [bilinear.dst.vertical_overlap]")
    assert res.output.index("verdict: invalid") > first, "the map comes under the case's findings"
    assert _run("check", "--show", str(good)).exit_code == 0


def test_check_show_needs_text_output():
    res = _run("check", "--show", "--format", "json", str(BAD))
    assert res.exit_code == 2
    assert "--show" in res.output


def test_program_is_drawn_call_by_call():
    res = _run("show", str(ROOT / "examples" / "program_block_reduce_min.json"))
    assert res.exit_code == 0, res.output
    assert ": call 0" in res.output and ": call 1" in res.output
    assert "sets vector_mask" in res.output  # SetVectorMask configures the mask BlockReduceMin then uses


def test_unreadable_case_is_one_line(tmp_path):
    res = _run("show", str(tmp_path / "missing.json"))
    assert res.exit_code == 2
    assert len(res.output.strip().splitlines()) == 1


def test_picture_never_overwrites_the_case(tmp_path):
    case = tmp_path / "c.json"
    case.write_text(BAD.read_text())
    res = _run("show", str(case), "--svg", str(case))
    assert res.exit_code == 2
    assert json.loads(case.read_text())["api"] == "BilinearInterpolation"


# -- every registered API ----------------------------------------------------------------------------------------------

def _valid_case(model):
    product = model.supported_products()[0]
    gen = generate(model, model.context(product, model.support[product][0]), "random", 1, seed=3, jobs=1)
    return gen.cases[0].case


def _broken(case):
    """The case with a mistake anyone makes: its first tensor one byte off its alignment (no tensor: a value one
    past what its C type holds, either way)."""
    for decl in case.model.tensors:
        t = case.tensor(decl.name)
        if t.present:
            return case.with_fields(**{f"{decl.name}.addr": t.addr + 1})
    for f in case.model.fields:
        if f.type.kind not in ("bool", "enum") and f.name in case.env and isinstance(getattr(f.type, "hi", None), int):
            for value in (f.type.hi + 1, f.type.lo - 1):
                broken = case.with_fields(**{f.name: value})
                try:
                    if not ascverify.check_case(ascverify.parse_case(broken.to_json())).valid:  # it is in the file
                        return broken
                except ascverify.InputError:  # beyond what a case file can hold
                    continue
    raise AssertionError(f"{case.model.name}: nothing to break")


@pytest.mark.parametrize("model", ascverify.apis(), ids=lambda m: m.name)
def test_every_api_draws(model, tmp_path):
    case = _valid_case(model)
    mmap = build_map(case, origin="generated")
    text = plain(mmap)
    assert max(len(line) for line in text.splitlines()) <= 80
    assert mmap.valid and not mmap.faults, text
    names = [d.name for d in model.tensors if case.tensor(d.name).present]
    for name in names:
        assert re.search(rf"^  \w {re.escape(name)}\s", text, re.M), f"{name} is listed on its buffer"
    if names:
        assert mmap.run == "core" and any(r.rows and (r.rows[0].reads or r.rows[0].writes)
                                          for b in mmap.buffers for r in b.regions), "accesses drawn"
        assert len(next(line for line in text.splitlines() if "buffer     |" in line)) == 2 + LABEL + BAR + 2
    texts = _svg_texts(render_bytes(mmap, "svg"))
    for name in names:
        assert any(name in t for t in texts), name
    if not model.args:  # SetMaskCount / SetMaskNorm: nothing to draw wrong on a product that has them
        return
    broken = _broken(case)
    bad = build_map(broken, origin="broken")
    assert not bad.valid and bad.problems
    bad_text = plain(bad)
    assert max(len(line) for line in bad_text.splitlines()) <= 80
    bad_svg = _svg_texts(render_bytes(bad, "svg"))
    for p in bad.problems:
        assert f"[{p.rule}]" in bad_text, p.rule
        assert any(p.rule in t for t in bad_svg), p.rule
    if any(m.kind == "misaligned" for p in bad.problems for m in p.marks):
        assert "^" in bad_text, "the misaligned start is marked"
    rule = bad.problems[0].rule
    path = tmp_path / "case.json"
    path.write_text(json.dumps(broken.to_json(with_data=True)))
    res = _run("show", str(path))
    assert res.exit_code == 1, res.output
    assert f"[{rule}]" in res.output


@pytest.mark.parametrize("example", ["bad/bilinear_overlap.json", "bad/bad.json"])
def test_bars_drawn_together_give_the_pixels_of_one_collection_per_row(example, monkeypatch):
    """The access rows' bars (background, reads, writes, faults) are drawn as one collection per style for the
    whole map. Drawn the plain way instead (one `broken_barh` per row and style, in the order the rows come), the
    PNG has the same pixels: bars of one row keep their order, and bars of different rows never overlap."""
    canvases = []
    real_draw = fig_mod._Canvas.draw

    def keep(self, gid="memory-map"):
        canvases.append(self)
        return real_draw(self, gid)

    monkeypatch.setattr(fig_mod._Canvas, "draw", keep)
    maps = [build_map(e.case, origin=example) for e in ascverify.read_cases(str(ROOT / "examples" / example))]
    together = render_bytes(maps if len(maps) > 1 else maps[0], "png")
    canvas = canvases[-1]
    assert any(kind == "bars" for kind, _, _ in canvas.ops)

    with matplotlib.rc_context(fig_mod._rc()):  # the drawing as it was: every bars op its own broken_barh
        fig, ax = canvas.axes()
        for kind, args, kw in canvas.ops:
            if kind == "bars":
                spans, (y, h) = args
                ax.broken_barh(spans, (y, h), **kw)
            else:
                canvas.mark(ax, kind, args, kw)
        ax.set_gid("memory-map")
        buf = io.BytesIO()
        fig.savefig(buf, format="png", dpi=110, metadata={"Software": None})

    a, b = imread(io.BytesIO(together)), imread(io.BytesIO(buf.getvalue()))
    assert a.shape == b.shape and (a == b).all()


def test_the_bars_say_what_their_characters_mean():
    """audit 22: a valid case's buffer bars drew "+" (the legend: "needed past the tensor's end") where two tensors
    merely share a cell, and "^" ("misaligned") on an aligned tensor start whenever an access was misaligned."""
    text = _with_cwd(ROOT, ["show", "examples/bilinear_interpolation.json"])
    bars = [line for line in text.splitlines() if line.startswith(("  buffer     |", "  used part  |"))]
    assert bars and not any("+" in b for b in bars)
    assert "& two tensors in one cell" in text and "+ needed past the tensor's end" in text
    # examples/bad/bad.json: dst starts at 0x0 (aligned); vROffset=100 halves puts iteration 1's rows at 200 bytes:
    # the core's misaligned writes start at 0xc8, the 25th 8-byte cell of dst's region
    bad = _with_cwd(ROOT, ["show", "examples/bad/bad.json"])
    row = next(line for line in bad.splitlines() if line.startswith("  dst        |"))
    cells = row.split("|")[1]
    assert cells[0] == "=" and cells[200 // 8] == "^", cells


def test_a_gap_in_the_rows_names_the_rows_it_leaves_out():
    """audit 22: `... 2 vertical iteration(s) not shown` stood where the rows left out were #-6 and #-5, steps
    before the first iteration; and a fault in one iteration said `(vertical iterations 1)`."""
    text = _with_cwd(ROOT, ["show", "examples/bilinear_interpolation.json"])
    lines = text.splitlines()
    gaps = [i for i, line in enumerate(lines) if "not shown" in line]
    assert gaps and "(s)" not in text
    for i in gaps:
        before, after = (re.match(r"  #(-?\d+) ", lines[j]) for j in (i - 1, i + 1))
        first, last = int(before.group(1)) + 1, int(after.group(1)) - 1 if after else None
        n = (last - first + 1) if last is not None else None
        m = re.search(r"\.\.\. (\d+) rows? not shown \(#(-?\d+)(?: to #(-?\d+))?\)", lines[i])
        assert m and int(m.group(2)) == first, lines[i]
        if n is not None:
            assert int(m.group(1)) == n and int(m.group(3) or m.group(2)) == last, lines[i]
    bad = _with_cwd(ROOT, ["show", "examples/bad/bad.json"])
    assert "(vertical iteration 1)" in bad and "(vertical iterations 0, 1)" in bad
