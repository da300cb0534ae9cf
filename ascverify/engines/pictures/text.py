"""A memory map as text: 80 columns, readable without colour (every cell is a character; colour only repeats it).

    UB: 192 KiB, 32-byte aligned; one cell = 3 KiB
      buffer     |ABCDE...........................................................|
    region dst: 0x0000-0x0200 (512 B); one cell = 8 B
      dst        |================================================================|
      all        |wwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwww|
      #0         |wwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwww........................|
      #1         |........................!!!!!!!!!!!!!!!!wwwwwwwwwwwwwwwwwwwwwwww|

Rows ``#N`` are the core's iterations (the model's ``iteration_label``: repeats, vertical iterations, fractals);
`LEGEND` says what each character means. `render` returns rich ``Text`` lines (styled); ``.plain`` is the
same text without colour.
"""

from __future__ import annotations

import textwrap
from typing import Sequence

import numpy as np
from rich.text import Text

from .memory_map import MARK_NAMES, Mark, MemoryMap, Region, Row, TensorView
from .scale import addr_text, cell_bytes, cells_hit, hex_width, nbytes_text

WIDTH = 80
#: Cells of a bar: 2 + 11 (label) + 1 + BAR + 1 <= 80.
BAR = 64
LABEL = 11
#: Iteration rows shown per region (those with faults first, then the first and the last ones).
MAX_ROWS = 12

TENSOR_STYLES = ("cyan", "magenta", "yellow", "green", "blue", "bright_cyan", "bright_magenta", "bright_green")
STYLE = {
    "=": None, ".": "dim", "r": "blue", "w": "green", "*": "magenta", "!": "bold white on red",
    "X": "bold red", ">": "bold red", "+": "bold yellow", "^": "bold yellow", "#": "bold red", " ": None,
}
LEGEND = (
    "A-Z a tensor's cells   & two tensors in one cell   X bytes two tensors share",
    "= tensor bytes   > past the buffer end   + needed past the tensor's end",
    "^ a misaligned address   . untouched tensor bytes   r read   w written",
    "* read and written   ! fault found by the core",
)


def tensor_style(index: int) -> str:
    """The rich style of the ``index``-th tensor of a map."""
    return TENSOR_STYLES[index % len(TENSOR_STYLES)]


def render(mmap: MemoryMap, *, width: int = WIDTH, max_rows: int = MAX_ROWS) -> list[Text]:
    """The map as styled lines of at most ``width`` (>= 80) columns."""
    out: list[Text] = []
    verdict = "valid" if mmap.valid else "invalid"
    counts = [f"{mmap.errors} error(s)" if mmap.errors else "", f"{mmap.warnings} warning(s)" if mmap.warnings else ""]
    counts = [c for c in counts if c]
    head = f"{mmap.api} on {mmap.product} (T={mmap.dtype})"
    out += _wrapped(head + (f": {mmap.origin}" if mmap.origin else ""), width, "bold")
    run = {"core": f"core: ran, {len(mmap.faults)} fault(s)" if mmap.faults else "core: ran without fault",
           "footprint": "core: not run; the model's footprint predicts the writes",
           "none": "core: not run"}[mmap.run]
    out += _wrapped(f"verdict: {verdict}" + (f" ({', '.join(counts)})" if counts else "") + f"; {run}"
                    + (f" ({mmap.run_note})" if mmap.run_note else ""), width, "bold red" if not mmap.valid else "bold green")
    styles = {t.name: tensor_style(i) for i, t in enumerate(t for b in mmap.buffers for t in b.tensors)}
    if not mmap.buffers:
        out.append(Text("no tensor: the call works on registers only"))
    for b in mmap.buffers:
        out.append(Text(""))
        out += _buffer(mmap, b, styles, width, max_rows)
    regs = []
    if mmap.registers_read:
        regs.append(f"reads {', '.join(mmap.registers_read)}")
    if mmap.registers_written:
        regs.append(f"writes {', '.join(mmap.registers_written)}")
    if mmap.special:
        regs.append(f"sets {', '.join(mmap.special)}")
    if regs:
        out.append(Text(""))
        out += _wrapped("registers: " + "; ".join(regs), width, None, "  ")
    out += _problems(mmap, width)
    if any(b.tensors for b in mmap.buffers):
        out.append(Text(""))
        for line in LEGEND:
            out += _wrapped(line, width, "dim")
    return out


def plain(mmap: MemoryMap, **kw: int) -> str:
    """The map as plain text (no colour), one string ending in a newline."""
    return "".join(line.plain + "\n" for line in render(mmap, **kw))


def _wrapped(text: str, width: int, style: str | None, indent: str = "", first: str = "") -> list[Text]:
    lines = textwrap.wrap(text, width=width, initial_indent=first or indent, subsequent_indent=indent + "  ",
                          break_long_words=True, break_on_hyphens=False) or [first or indent]
    return [Text(line, style=style or "") for line in lines]


def short(label: str, n: int = LABEL) -> str:
    """``label`` in at most ``n`` characters (a cut one ends in ``~``)."""
    return label if len(label) <= n else label[: n - 1] + "~"


def _bar(label: str, cells: str, styles: Sequence[str | None]) -> Text:
    t = Text(f"  {short(label):<{LABEL}}|")
    for ch, st in zip(cells, styles):
        t.append(ch, style=st or "")
    t.append("|")
    return t


def _buffer(mmap: MemoryMap, b, styles: dict[str, str], width: int, max_rows: int) -> list[Text]:
    out: list[Text] = []
    size = max(b.size, 1)
    per = size / BAR
    used = [t for t in b.tensors if t.stop > t.start]
    zoom = None
    if len(used) > 1 and b.size > 0:
        ulo = min(t.start for t in used)
        uhi = max(min(t.stop, b.size) for t in used)
        uper = cell_bytes(uhi - ulo, BAR)
        ulo = max(0, (ulo // uper) * uper)
        if uper * 4 <= per and uhi > ulo:
            zoom = (ulo, uper, min(BAR, -(-(uhi - ulo) // uper)))
    out += _wrapped(f"{b.name}: {nbytes_text(b.size)}, {b.alignment}-byte aligned; one cell = {nbytes_text(per)}"
                    + (f" (used part: {nbytes_text(zoom[1])})" if zoom else ""), width, "bold")
    if b.size <= 0:
        out.append(Text(f"  {b.name} does not exist on {mmap.product}", style="bold red"))
        return out + _tensor_lines(mmap, b, styles, width)
    cells = ["."] * BAR
    cstyle: list[str | None] = ["dim"] * BAR
    owners: list[list[TensorView]] = [[] for _ in range(BAR)]
    for t in b.tensors:
        hit = cells_hit([(max(t.start, 0), min(t.stop, b.size))], 0, per, BAR)
        if t.stop > t.start and not hit.any() and 0 <= t.start < b.size:  # smaller than a cell: its cell
            hit[min(int(t.start // per), BAR - 1)] = True
        for i in np.flatnonzero(hit):
            owners[i].append(t)
        if t.stop > b.size:
            owners[BAR - 1].append(t)
    for i, own in enumerate(owners):
        if not own:
            continue
        if len(own) == 1:
            cells[i], cstyle[i] = own[0].letter, styles[own[0].name]
        elif _any_overlap(own):
            cells[i], cstyle[i] = "X", STYLE["X"]
        else:
            cells[i], cstyle[i] = "&", "bold"
    for t in b.tensors:
        if t.stop > b.size:
            cells[BAR - 1], cstyle[BAR - 1] = ">", STYLE[">"]
    out.append(_bar("buffer", "".join(cells), cstyle))
    w = hex_width(b.size)
    left, right = "0x0", addr_text(b.size)
    out.append(Text(f"  {'':<{LABEL}} {left}{right:>{BAR + 1 - len(left)}}", style="dim"))
    if zoom:
        ulo, uper, n = zoom
        out.append(_letters_bar("used part", b, used, styles, ulo, uper, n))
        left, right = addr_text(ulo), addr_text(ulo + n * uper)
        out.append(Text(f"  {'':<{LABEL}} {left}{right:>{n + 1 - len(left)}}", style="dim"))
    out += _tensor_lines(mmap, b, styles, width)
    for region in b.regions:
        out += _region(mmap, b, region, styles, width, max_rows, w)
    return out


def _letters_bar(label: str, b, tensors: Sequence[TensorView], styles: dict[str, str], lo: int, per: int,
                 n: int) -> Text:
    """The tensors' letters on ``n`` cells from ``lo`` (X: two tensors share bytes there, &: two tensors share the
    cell only)."""
    owners: list[list[TensorView]] = [[] for _ in range(n)]
    for t in tensors:
        hit = cells_hit([(t.start, t.stop)], lo, per, n)
        for i in np.flatnonzero(hit):
            owners[i].append(t)
    cells, cstyle = [], []
    for own in owners:
        if not own:
            cells.append(".")
            cstyle.append("dim")
        elif len(own) == 1:
            cells.append(own[0].letter)
            cstyle.append(styles[own[0].name])
        elif _any_overlap(own):
            cells.append("X")
            cstyle.append(STYLE["X"])
        else:
            cells.append("&")
            cstyle.append("bold")
    return _bar(label, "".join(cells), cstyle)


def _any_overlap(tensors: Sequence[TensorView]) -> bool:
    spans = sorted((t.start, t.stop) for t in tensors if t.stop > t.start)
    return any(spans[k + 1][0] < spans[k][1] for k in range(len(spans) - 1))


def _tensor_lines(mmap: MemoryMap, b, styles: dict[str, str], width: int) -> list[Text]:
    out = []
    w = hex_width(b.size, *(t.stop for t in b.tensors))
    for t in b.tensors:
        line = Text("  ")
        line.append(t.letter, style=styles[t.name])
        line.append(f" {t.name[:16]:<16} {t.position:<7} {addr_text(t.start, w)}-{addr_text(t.stop, w)} "
                    f"{nbytes_text(t.nbytes):>9} {t.dtype}[{t.size}] {t.role}")
        if len(line.plain) > width:
            line.truncate(width)
        out.append(line)
    return out


def _region(mmap: MemoryMap, b, region: Region, styles: dict[str, str], width: int, max_rows: int,
            w: int) -> list[Text]:
    span = region.stop - region.start
    per = cell_bytes(span, BAR)
    lo = (region.start // per) * per
    n = min(BAR, max(1, -(-(region.stop - lo) // per)))
    names = ", ".join(region.tensors) or "outside every tensor"
    out = [Text("")]
    out += _wrapped(f"region {names}: {addr_text(region.start, w)}-{addr_text(region.stop, w)} "
                    f"({nbytes_text(span)}); one cell = {nbytes_text(per)}"
                    + ("; accesses far outside not drawn" if region.clipped else ""), width, "bold", "  ")
    tensors = [mmap.tensor(name) for name in region.tensors]
    tensors = [t for t in tensors if t is not None]
    marks = [m for m in mmap.marks() if m.buffer == b.name and (m.tensor in region.tensors or
                                                                (not region.tensors and m.tensor is None))]
    background = cells_hit([(t.start, t.stop) for t in tensors], lo, per, n)
    for t in tensors:
        out.append(_tensor_row(t, tensors, marks, b.size, lo, per, n, styles[t.name]))
    if mmap.run == "none":
        return out
    rows = region.rows
    if len(rows) <= 1 and not (rows and (rows[0].reads or rows[0].writes)):
        out.append(Text(f"  {'':<{LABEL}} no access recorded", style="dim"))
        return out
    shown = choose_rows(rows[1:], max_rows)
    out.append(_access_row("all" if mmap.run == "core" else "predicted", rows[0], background, lo, per, n))
    last = None
    for k in shown:
        if last is not None and k > last + 1:
            out.append(Text(f"  {'':<{LABEL}} ... {hidden_rows(rows[2 + last:1 + k])}", style="dim"))
        out.append(_access_row(f"#{rows[1 + k].label}", rows[1 + k], background, lo, per, n))
        last = k
    if last is not None and last < len(rows) - 2:
        out.append(Text(f"  {'':<{LABEL}} ... {hidden_rows(rows[2 + last:])}", style="dim"))
    if len(rows) > 1:
        first = rows[1].label
        out.append(Text(f"  {'':<{LABEL}} {rows_note(mmap.iteration_label, rows)}"[:width], style="dim"))
    return out


def hidden_rows(rows: Sequence[Row]) -> str:
    """What a gap in the ``#N`` rows leaves out: ``2 rows not shown (#-6 to #-5)`` (steps before #0 or
    iterations: the labels say which)."""
    if len(rows) == 1:
        return f"1 row not shown (#{rows[0].label})"
    return f"{len(rows)} rows not shown (#{rows[0].label} to #{rows[-1].label})"


def rows_note(label: str, rows: Sequence[Row]) -> str:
    """What the ``#N`` rows are: ``#N: repeat N, 8 in all``; negative N are steps before the first."""
    its = [r.iteration for r in rows if r.iteration is not None]
    before = "; #-N: steps before #0" if its and min(its) < 0 else ""
    return f"#N: {label} N, {len(its)} in all{before}"


def choose_rows(rows: Sequence[Row], limit: int) -> list[int]:
    """Indexes of the rows to show: those with faults first (up to half), then the first and the last ones."""
    if len(rows) <= limit:
        return list(range(len(rows)))
    faulty = [k for k, r in enumerate(rows) if r.faults][: limit // 2]
    rest = limit - len(faulty)
    head = range(min(len(rows), (rest + 1) // 2))
    tail = range(len(rows) - rest // 2, len(rows))
    return sorted(set(faulty) | set(head) | set(tail))[:limit]


def _tensor_row(t: TensorView, tensors: Sequence[TensorView], marks: Sequence[Mark], buffer_size: int, lo: int,
                per: int, n: int, style: str) -> Text:
    cells = np.full(n, " ", dtype="<U1")
    styles: list[str | None] = [None] * n
    mine = cells_hit([(t.start, t.stop)], lo, per, n)
    if t.stop == t.start:  # an empty tensor: its start
        mine[min(max(int((t.start - lo) // per), 0), n - 1)] = True
    cells[mine] = "="
    for i in np.flatnonzero(mine):
        styles[i] = style
    others = [(max(t.start, o.start), min(t.stop, o.stop)) for o in tensors if o is not t]
    shared = cells_hit([s for s in others if s[1] > s[0]], lo, per, n)
    past = cells_hit([(max(t.start, buffer_size), t.stop)], lo, per, n) if t.stop > buffer_size else np.zeros(n, bool)
    needed = cells_hit([(m.start, m.stop) for m in marks if m.kind == "too_small" and m.tensor == t.name], lo, per, n)
    for arr, ch in ((needed, "+"), (shared, "X"), (past, ">")):
        for i in np.flatnonzero(arr):
            cells[i], styles[i] = ch, STYLE[ch]
    # a misaligned address where it is: the tensor's start (an alignment rule), or an access the core found
    # misaligned (audit 22: every such access drew "^" on the tensor's first cell, an aligned start)
    starts = [(m.start, m.start + 1) for m in marks if m.kind == "misaligned" and m.tensor == t.name]
    for i in np.flatnonzero(cells_hit(starts, lo, per, n)):
        cells[i], styles[i] = "^", STYLE["^"]
    return _bar(t.name, "".join(cells), styles)


def _access_row(label: str, row: Row, background: np.ndarray, lo: int, per: int, n: int) -> Text:
    reads = cells_hit(row.reads, lo, per, n)
    writes = cells_hit(row.writes, lo, per, n)
    faults = cells_hit([(a, z) for a, z, _ in row.faults], lo, per, n)
    cells = np.where(background, ".", " ").astype("<U1")
    cells[reads] = "r"
    cells[writes] = "w"
    cells[reads & writes] = "*"
    cells[faults] = "!"
    return _bar(label, "".join(cells), [STYLE.get(c) for c in cells])


def _problems(mmap: MemoryMap, width: int) -> list[Text]:
    out: list[Text] = []
    if not mmap.problems and not mmap.faults:
        return out
    out.append(Text(""))
    out.append(Text("problems", style="bold"))
    for p in mmap.problems:
        sev_style = "bold red" if p.severity == "error" else "bold yellow"
        where = "; ".join(_mark_text(m) for m in p.marks)
        call = f"call {p.call}: " if p.call is not None else ""
        lines = _wrapped(f"{call}{p.severity}: [{p.rule}] {p.message}" + (f" -- marked: {where}" if where else ""),
                         width, None, "  ", "  ")
        lines[0].stylize(sev_style, 2, 2 + len(call) + len(p.severity))
        out += lines
    for group in fault_groups(mmap.faults):
        m = group[0]
        if len(group) == 1:
            text = f"fault: {m.text} -> {m.label}"
        else:
            its = sorted({g.iteration for g in group if g.iteration is not None})
            shown = ", ".join(str(i) for i in its[:6]) + (", ..." if len(its) > 6 else "")
            text = (f"fault: {MARK_NAMES.get(m.kind, m.kind)} x{len(group)} on {m.tensor or m.buffer} at {m.buffer} "
                    f"{addr_text(min(g.start for g in group))}-{addr_text(max(g.stop for g in group))}"
                    + (f" ({mmap.iteration_label}{'s' if len(its) > 1 else ''} {shown})" if its else "")
                    + f" -> {m.label}; first: {m.text}")
        lines = _wrapped(text, width, None, "  ", "  ")
        lines[0].stylize("bold red", 2, 8)
        out += lines
    return out


def fault_groups(faults: Sequence[Mark]) -> list[list[Mark]]:
    """Faults grouped by kind, tensor and the rule that names them, in order of first appearance."""
    groups: dict[tuple, list[Mark]] = {}
    for m in faults:
        groups.setdefault((m.kind, m.tensor, m.buffer, m.rule), []).append(m)
    return list(groups.values())


def _mark_text(m: Mark) -> str:
    it = f", {m.iteration}" if m.iteration is not None else ""
    return f"{MARK_NAMES.get(m.kind, m.kind)} at {m.buffer} {addr_text(m.start)}-{addr_text(m.stop)}{it}"


def print_map(mmap: MemoryMap, console: object | None = None, **kw: int) -> None:
    """Print the map on a rich console (standard output by default: colour on a terminal unless NO_COLOR)."""
    from rich.console import Console

    console = console or Console(highlight=False)
    for line in render(mmap, **kw):
        console.print(line, soft_wrap=True, highlight=False)
