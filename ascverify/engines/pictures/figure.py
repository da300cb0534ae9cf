"""A memory map as a picture (SVG or PNG), drawn with matplotlib.

The same map as the text form (`ascverify.engines.pictures.text`), at byte precision instead of cells: each
buffer as a bar to scale with its tensors named on it, each region (overlapping tensors) at its own scale with
one row per iteration (reads in the lower half of a row, writes in the upper half, faults in red across it), the
rules' marks hatched, and the problems listed under it with their rule ids.

matplotlib's object API is used (no pyplot: no global figure state, nothing shown); the SVG keeps its text as text
(``svg.fonttype: none``: names and rule ids can be searched and selected) and is reproducible (fixed hash salt, no
date).
"""

from __future__ import annotations

import io
import textwrap
from typing import Any, Sequence

from .memory_map import MARK_NAMES, MemoryMap, Region, Row
from .scale import addr_text, nbytes_text
from .text import choose_rows, fault_groups, rows_note

#: Iteration rows drawn per region in a picture.
MAX_ROWS = 24
#: Figure width (inches) and the height of one row.
FIG_W = 11.0
ROW_H = 0.24
#: x coordinates (0..100 across the figure) of the labels and the bars.
LABEL_X, BAR_X0, BAR_X1 = 1.0, 16.0, 97.0
#: Light colours for the tensors (none close to the access colours), and the access and problem colours (Okabe and
#: Ito's colour-blind-safe blue, green, and a red).
TENSOR_COLOURS = ("#a6cee3", "#fdbf6f", "#cab2d6", "#ffff99", "#c7a27c", "#d9d9d9", "#bc80bd", "#8dd3c7")
READ, WRITE, FAULT, WARN = "#0072B2", "#009E73", "#D62728", "#E69F00"
TEXT_CHARS = 118


class _Canvas:
    """Drawing instructions in row units (y grows downwards), replayed on a matplotlib figure of the right height."""

    def __init__(self) -> None:
        self.y = 0.6
        self.ops: list[tuple[str, tuple, dict]] = []

    def text(self, x: float, s: str, **kw: Any) -> None:
        self.ops.append(("text", (x, self.y, s), kw))

    def rect(self, x0: float, x1: float, dy0: float, dy1: float, **kw: Any) -> None:
        self.ops.append(("rect", (x0, self.y + dy0, max(x1 - x0, 0.0), dy1 - dy0), kw))

    def bars(self, spans: Sequence[tuple[float, float]], dy0: float, dy1: float, **kw: Any) -> None:
        if spans:
            self.ops.append(("bars", ([(a, max(b - a, 0.12)) for a, b in spans], (self.y + dy0, dy1 - dy0)), kw))

    def line(self, dy: float = 1.0) -> None:
        self.y += dy

    def axes(self) -> tuple[Any, Any]:
        """A matplotlib Figure of the canvas's height and its axes, in row units, without frame."""
        from matplotlib.figure import Figure

        height = max(self.y + 0.6, 2.0)
        fig = Figure(figsize=(FIG_W, height * ROW_H))
        ax = fig.add_axes((0, 0, 1, 1))
        ax.set_xlim(0, 100)
        ax.set_ylim(height, 0)
        ax.axis("off")
        return fig, ax

    @staticmethod
    def mark(ax: Any, kind: str, args: tuple, kw: dict[str, Any]) -> None:
        """Draw one ``text`` or ``rect`` instruction on ``ax`` (its options are left as recorded)."""
        from matplotlib.patches import Rectangle

        if kind == "text":
            x, y, s = args
            kw = dict(kw)
            ax.text(x, y, s, va="center", ha=kw.pop("ha", "left"), fontsize=kw.pop("size", 8),
                    family=kw.pop("family", "monospace"), **kw)
        else:
            x, y, w, h = args
            ax.add_patch(Rectangle((x, y), w, h, **kw))

    def draw(self, gid: str = "memory-map") -> Any:
        """The matplotlib Figure. The bars of one style (background, reads, writes, faults) become one collection
        for the whole figure, in the order each style first comes: bars of one row are drawn in that order, and
        bars of different rows never overlap, so the picture is the one a collection per row drew (a map with a
        hundred access rows took a second to draw that way)."""
        from matplotlib.collections import PolyCollection

        fig, ax = self.axes()
        bars: dict[tuple, tuple[dict[str, Any], list[list[tuple[float, float]]]]] = {}
        for kind, args, kw in self.ops:
            if kind != "bars":
                self.mark(ax, kind, args, kw)
                continue
            spans, (y, h) = args
            verts = bars.setdefault(tuple(sorted(kw.items())), (kw, []))[1]
            verts.extend([(x, y), (x, y + h), (x + w, y + h), (x + w, y)] for x, w in spans)
        for kw, verts in bars.values():
            ax.add_collection(PolyCollection(verts, **kw))
        ax.set_gid(gid)
        return fig


def _scale(lo: float, hi: float) -> Any:
    span = max(hi - lo, 1)

    def x(addr: float) -> float:
        return BAR_X0 + (BAR_X1 - BAR_X0) * (min(max(addr, lo), hi) - lo) / span

    return x


def map_figure(mmap: MemoryMap | Sequence[MemoryMap], *, max_rows: int = MAX_ROWS) -> Any:
    """The matplotlib Figure of the map (of several maps, one under the other: a program's calls)."""
    c = _Canvas()
    maps = [mmap] if isinstance(mmap, MemoryMap) else list(mmap)
    for k, m in enumerate(maps):
        if k:
            c.line(0.5)
            c.rect(LABEL_X, BAR_X1, -0.02, 0.02, facecolor="#888888", edgecolor="none")
            c.line(1.2)
        _map(c, m, max_rows)
    return c.draw()


def _map(c: _Canvas, mmap: MemoryMap, max_rows: int) -> None:
    verdict = "valid" if mmap.valid else "invalid"
    c.text(LABEL_X, f"{mmap.api} on {mmap.product} (T={mmap.dtype})" + (f"   {mmap.origin}" if mmap.origin else ""),
           size=11, weight="bold", family="sans-serif")
    c.line(1.3)
    run = {"core": f"the core ran it: {len(mmap.faults)} fault(s)", "footprint":
           "not run; the model's footprint predicts the writes", "none": "not run"}[mmap.run]
    counts = ", ".join(x for x in (f"{mmap.errors} error(s)" if mmap.errors else "",
                                   f"{mmap.warnings} warning(s)" if mmap.warnings else "") if x)
    c.text(LABEL_X, f"{verdict}{' (' + counts + ')' if counts else ''}; {run}"
           + (f" ({mmap.run_note})" if mmap.run_note else ""), size=9, family="sans-serif",
           color=FAULT if not mmap.valid else WRITE, weight="bold")
    c.line(1.4)
    colours = {t.name: TENSOR_COLOURS[i % len(TENSOR_COLOURS)]
               for i, t in enumerate(t for b in mmap.buffers for t in b.tensors)}
    if not mmap.buffers:
        c.text(LABEL_X, "no tensor: the call works on registers only", family="sans-serif")
        c.line()
    for b in mmap.buffers:
        _buffer(c, mmap, b, colours, max_rows)
    regs = [f"reads {', '.join(mmap.registers_read)}" if mmap.registers_read else "",
            f"writes {', '.join(mmap.registers_written)}" if mmap.registers_written else "",
            f"sets {', '.join(mmap.special)}" if mmap.special else ""]
    regs = [r for r in regs if r]
    if regs:
        c.text(LABEL_X, "registers: " + "; ".join(regs), family="sans-serif")
        c.line(1.3)
    _problems(c, mmap)
    if any(b.tensors for b in mmap.buffers):
        _legend(c)


def _buffer(c: _Canvas, mmap: MemoryMap, b: Any, colours: dict[str, str], max_rows: int) -> None:
    c.text(LABEL_X, f"{b.name}: {nbytes_text(b.size)} on {mmap.product}, {b.alignment}-byte aligned", size=10,
           weight="bold", family="sans-serif")
    c.line(1.3)
    if b.size > 0:
        x = _scale(0, b.size)
        c.text(LABEL_X, "whole buffer")
        c.rect(BAR_X0, BAR_X1, -0.4, 0.4, facecolor="#f2f2f2", edgecolor="#444444", linewidth=0.6)
        for t in b.tensors:
            a, z = x(t.start), x(t.stop)
            c.rect(a, max(z, a + 0.15), -0.4, 0.4, facecolor=colours[t.name], edgecolor="none")
            if t.stop > b.size:
                c.rect(BAR_X1, BAR_X1 + 0.8, -0.4, 0.4, facecolor=FAULT, edgecolor="none")
        c.line(0.9)
        c.text(BAR_X0, "0x0", size=7, color="#555555")
        c.text(BAR_X1, addr_text(b.size), size=7, color="#555555", ha="right")
        c.line(1.0)
        used = [t for t in b.tensors if t.stop > t.start]
        lo = min((t.start for t in used), default=0)
        hi = max((min(t.stop, b.size) for t in used), default=0)
        if len(used) > 1 and hi > lo and (hi - lo) * 4 <= b.size:
            x = _scale(lo, hi)
            c.text(LABEL_X, "used part")
            for t in used:
                a, z = x(t.start), x(t.stop)
                c.rect(a, max(z, a + 0.15), -0.4, 0.4, facecolor=colours[t.name], edgecolor="white", linewidth=0.4)
                label = t.name if (z - a) >= 0.75 * len(t.name) else t.letter if (z - a) >= 1.0 else ""
                if label:
                    c.text((a + z) / 2, label, size=7, ha="center")
            c.line(0.9)
            c.text(BAR_X0, addr_text(lo), size=7, color="#555555")
            c.text(BAR_X1, addr_text(hi), size=7, color="#555555", ha="right")
            c.line(1.0)
    else:
        c.text(LABEL_X, f"{b.name} does not exist on {mmap.product}", color=FAULT)
        c.line()
    for t in b.tensors:
        c.rect(LABEL_X, LABEL_X + 1.2, -0.3, 0.3, facecolor=colours[t.name], edgecolor="none")
        c.text(LABEL_X + 1.8, f"{t.letter} {t.name:<16} {t.position:<7} {addr_text(t.start)}-{addr_text(t.stop)}  "
               f"{nbytes_text(t.nbytes):>9}  {t.dtype}[{t.size}]  {t.role}")
        c.line()
    c.line(0.4)
    for region in b.regions:
        _region(c, mmap, b, region, colours, max_rows)


def _region(c: _Canvas, mmap: MemoryMap, b: Any, region: Region, colours: dict[str, str], max_rows: int) -> None:
    names = ", ".join(region.tensors) or "outside every tensor"
    span = region.stop - region.start
    c.text(LABEL_X, f"{names}: {addr_text(region.start)}-{addr_text(region.stop)} ({nbytes_text(span)})"
           + ("; accesses far outside not drawn" if region.clipped else ""), size=8.5, weight="bold",
           family="sans-serif")
    c.line(1.1)
    x = _scale(region.start, region.stop)
    tensors = [t for t in (mmap.tensor(n) for n in region.tensors) if t is not None]
    marks = [m for m in mmap.marks() if m.buffer == b.name and m.tensor in region.tensors]
    for t in tensors:
        c.text(LABEL_X, t.name)
        c.rect(x(t.start), max(x(t.stop), x(t.start) + 0.15), -0.35, 0.35, facecolor=colours[t.name],
               edgecolor="none")
        for o in tensors:
            lo, hi = max(t.start, o.start), min(t.stop, o.stop)
            if o is not t and hi > lo:
                c.rect(x(lo), x(hi), -0.35, 0.35, facecolor="none", edgecolor=FAULT, hatch="xxxx", linewidth=0)
        if t.stop > b.size:
            c.rect(x(max(t.start, b.size)), x(t.stop), -0.35, 0.35, facecolor=FAULT, edgecolor="none")
        for m in marks:
            if m.tensor != t.name:
                continue
            colour = FAULT if m.severity == "error" else WARN
            if m.kind == "too_small":
                c.rect(x(m.start), x(m.stop), -0.35, 0.35, facecolor="none", edgecolor=colour, hatch="////",
                       linewidth=0.8)
            elif m.kind == "misaligned":
                c.text(x(m.start), "▲", size=8, color=colour, ha="center")  # where the address is
        c.line()
    if mmap.run != "none":
        rows = region.rows
        background = [(x(t.start), x(t.stop)) for t in tensors]
        if len(rows) <= 1 and not (rows and (rows[0].reads or rows[0].writes)):
            c.text(BAR_X0, "no access recorded", color="#777777")
            c.line()
        else:
            shown = [rows[0]] + [rows[1 + k] for k in choose_rows(rows[1:], max_rows)]
            for row in shown:
                label = ("all" if mmap.run == "core" else "predicted") if row.iteration is None else f"#{row.label}"
                _access_row(c, label, row, x, background)
            hidden = len(rows) - len(shown)
            if hidden > 0:
                c.text(BAR_X0, f"{hidden} more row{'s' if hidden > 1 else ''} not drawn", size=7, color="#777777")
                c.line(0.9)
            if len(rows) > 1:
                c.text(BAR_X0, rows_note(mmap.iteration_label, rows), size=7, color="#777777")
                c.line(0.9)
    c.text(BAR_X0, addr_text(region.start), size=7, color="#555555")
    c.text(BAR_X1, addr_text(region.stop), size=7, color="#555555", ha="right")
    c.line(1.5)


def _access_row(c: _Canvas, label: str, row: Row, x: Any, background: Sequence[tuple[float, float]]) -> None:
    c.text(LABEL_X, label)
    c.bars([(a, b) for a, b in background], -0.4, 0.4, facecolor="#eeeeee", edgecolor="none")
    c.bars([(x(a), x(b)) for a, b in row.reads], 0.0, 0.4, facecolor=READ, edgecolor="none")
    c.bars([(x(a), x(b)) for a, b in row.writes], -0.4, 0.0, facecolor=WRITE, edgecolor="none")
    c.bars([(x(a), x(b)) for a, b, _ in row.faults], -0.45, 0.45, facecolor=FAULT, edgecolor="none", alpha=0.85)
    c.line()


def _problems(c: _Canvas, mmap: MemoryMap) -> None:
    if not mmap.problems and not mmap.faults:
        return
    c.line(0.3)
    c.text(LABEL_X, "problems", size=10, weight="bold", family="sans-serif")
    c.line(1.2)
    for p in mmap.problems:
        colour = FAULT if p.severity == "error" else WARN
        where = "; ".join(f"{MARK_NAMES.get(m.kind, m.kind)} at {m.buffer} {addr_text(m.start)}-{addr_text(m.stop)}"
                          for m in p.marks)
        call = f"call {p.call}: " if p.call is not None else ""
        text = f"{call}{p.severity}: [{p.rule}] {p.message}" + (f" (marked: {where})" if where else "")
        for k, line in enumerate(textwrap.wrap(text, TEXT_CHARS, subsequent_indent="    ")):
            c.text(LABEL_X, line, color=colour if k == 0 else "black")
            c.line(0.95)
    for group in fault_groups(mmap.faults):
        m = group[0]
        text = (f"fault: {MARK_NAMES.get(m.kind, m.kind)} x{len(group)} on {m.tensor or m.buffer} -> {m.label}; "
                f"first: {m.text}")
        for k, line in enumerate(textwrap.wrap(text, TEXT_CHARS, subsequent_indent="    ")):
            c.text(LABEL_X, line, color=FAULT if k == 0 else "black")
            c.line(0.95)
    c.line(0.4)


def _legend(c: _Canvas) -> None:
    items = [(READ, "read (lower half of a row)"), (WRITE, "written (upper half)"), (FAULT, "fault / out of bounds"),
             ("hatch", "bytes two tensors share"), ("needed", "needed past the tensor's end")]
    x0 = LABEL_X
    for colour, label in items:
        if colour == "hatch":
            c.rect(x0, x0 + 2.0, -0.3, 0.3, facecolor="white", edgecolor=FAULT, hatch="xxxx", linewidth=0)
        elif colour == "needed":
            c.rect(x0, x0 + 2.0, -0.3, 0.3, facecolor="white", edgecolor=FAULT, hatch="////", linewidth=0.8)
        else:
            c.rect(x0, x0 + 2.0, -0.3, 0.3, facecolor=colour, edgecolor="none")
        c.text(x0 + 2.6, label, size=7.5, family="sans-serif")
        x0 += 4.0 + 0.62 * len(label)
    c.line()


def _rc() -> dict[str, Any]:
    return {"svg.fonttype": "none", "svg.hashsalt": "ascverify", "hatch.linewidth": 0.6,
            "font.monospace": ["DejaVu Sans Mono"], "font.sans-serif": ["DejaVu Sans"],
            # text from input (a file name holding "$...$") drawn as it is, never parsed as TeX math
            "text.parse_math": False}


def render_bytes(mmap: MemoryMap | Sequence[MemoryMap], fmt: str, *, dpi: int = 110) -> bytes:
    """The map (or maps) as ``svg`` or ``png`` bytes."""
    import matplotlib

    if fmt not in ("svg", "png"):
        raise ValueError(f"unknown picture format {fmt!r}")
    with matplotlib.rc_context(_rc()):
        fig = map_figure(mmap)
        buf = io.BytesIO()
        meta = {"Date": None} if fmt == "svg" else {"Software": None}
        fig.savefig(buf, format=fmt, dpi=dpi, metadata=meta)
    return buf.getvalue()


def svg_text(mmap: MemoryMap | Sequence[MemoryMap]) -> str:
    """The map as an SVG document (text)."""
    return render_bytes(mmap, "svg").decode("utf-8")


def inline_svg(svg: str) -> str:
    """An SVG document without its XML declaration and doctype, to place in an HTML page."""
    start = svg.find("<svg")
    return svg[start:] if start >= 0 else svg
