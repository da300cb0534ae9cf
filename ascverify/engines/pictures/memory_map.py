"""A case's memory map: where each tensor lies in each on-chip buffer, what each iteration reads and writes, and
what is wrong there (the rules the case breaks, the faults the core found), as plain data the renderers draw.

Everything comes from the generic interfaces: the tensors from the model's declarations and the case, the
problems from `check_case` (a rule's ``domain`` says what it is about: alignment, bounds, two tensors' overlap, a
minimum size), the per-iteration footprint from the accesses the core's `Trace` records when the case runs
(``run_case``), or, when it cannot run, from the model's ``footprint``. No API is named here.

A *region* is a group of tensors of one buffer whose bytes overlap (most often one tensor alone) with every
access that lands on them; each region is drawn at its own scale, so that a 512-byte dst beside a 16 KiB scratch
buffer is still legible. The whole buffer is drawn once more at its own scale.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Sequence

import numpy as np

from ...cases.case import Case
from ...cases.program import Program
from ...checking.checker import Result, Violation, check_case
from ...checking.program import check_program
from ...core.faults import CoreLimit, Fault
from ...core.program import run_program
from ...core.run import RunResult, run_case
from ...spec.errors import one_line
from ...spec.products import BUFFER_ALIGNMENT, BUFFERS
from ...spec.rules import WARNING

#: Tensors larger than this (or starting past it) are drawn but not run (the core would allocate absurd ranges).
SANE_BYTES = 64 << 20
#: The letters that name tensors on the buffer bars.
LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"

#: What each kind of mark is called on a map.
MARK_NAMES: Mapping[str, str] = {
    "overlap": "overlap", "hazard": "hazard", "misaligned": "misaligned", "out_of_bounds": "out of bounds",
    "too_small": "needed past the end", "uninitialized": "uninitialized read", "poison": "unspecified read",
    "no_buffer": "no such buffer",
}

#: Words in a rule's id or kind that say it is about a fault of this kind (`rule_for_fault`).
_FAULT_WORDS: Mapping[str, tuple[str, ...]] = {
    "overlap": ("overlap", "disjoint"),
    "hazard": ("hazard", "overlap", "disjoint"),
    "misaligned": ("align",),
    "out_of_bounds": ("bounds", "fits", "size", "min_size", "written"),
    "uninitialized": ("init", "data", "values"),
    "poison": ("init", "data", "values"),
    "no_buffer": ("position", "support", "buffer"),
}


@dataclass
class Mark:
    """Bytes of a buffer that something is wrong with, and the rule (or fault) that says so."""

    kind: str                 # a key of MARK_NAMES
    buffer: str
    start: int
    stop: int
    text: str                 # one line: the rule's message or the fault
    rule: str | None = None   # the rule id that names it (None: a core fault no broken rule names)
    severity: str = "error"   # error, warning, or fault (found by the core)
    tensor: str | None = None
    iteration: int | None = None

    @property
    def label(self) -> str:
        return f"[{self.rule}]" if self.rule else "(no rule broken names it)"


@dataclass
class TensorView:
    """One tensor as placed: its bytes [start, stop) in ``buffer``."""

    name: str
    letter: str
    role: str
    position: str
    buffer: str
    start: int
    stop: int
    dtype: str
    size: int
    align: int

    @property
    def nbytes(self) -> int:
        return self.stop - self.start


@dataclass
class Row:
    """What one iteration (or all of them) reads and writes in a region: merged byte intervals."""

    label: str
    iteration: int | None
    reads: list[tuple[int, int]] = field(default_factory=list)
    writes: list[tuple[int, int]] = field(default_factory=list)
    faults: list[tuple[int, int, str]] = field(default_factory=list)
    what: list[str] = field(default_factory=list)


@dataclass
class Region:
    """Tensors of one buffer whose bytes overlap, with the accesses that land on them, drawn at one scale."""

    buffer: str
    start: int
    stop: int
    tensors: list[str]
    rows: list[Row] = field(default_factory=list)   # the "all" row first, then one per iteration in order
    clipped: bool = False                            # accesses far outside were left out of the extent


@dataclass
class BufferView:
    name: str
    size: int
    alignment: int
    tensors: list[TensorView] = field(default_factory=list)
    regions: list[Region] = field(default_factory=list)


@dataclass
class Problem:
    """A rule the case breaks, with the bytes it marks (none for rules about values only)."""

    rule: str
    severity: str
    message: str
    tensors: list[str]
    marks: list[Mark] = field(default_factory=list)
    call: int | None = None


@dataclass
class MemoryMap:
    """Everything a memory map shows."""

    api: str
    product: str
    dtype: str
    origin: str
    valid: bool
    buffers: list[BufferView]
    problems: list[Problem]
    faults: list[Mark]
    run: str                          # how the footprint was found: "core", "footprint", or "none"
    run_note: str = ""                # why not run, or how many faults were not kept
    iteration_label: str = "iteration"
    registers_read: list[str] = field(default_factory=list)
    registers_written: list[str] = field(default_factory=list)
    special: list[str] = field(default_factory=list)    # special registers the call sets
    unchecked: int = 0

    @property
    def errors(self) -> int:
        return sum(p.severity == "error" for p in self.problems)

    @property
    def warnings(self) -> int:
        return sum(p.severity == WARNING for p in self.problems)

    def tensor(self, name: str) -> TensorView | None:
        for b in self.buffers:
            for t in b.tensors:
                if t.name == name:
                    return t
        return None

    def marks(self) -> list[Mark]:
        """Every mark: the rules' and the faults'."""
        return [m for p in self.problems for m in p.marks] + list(self.faults)

    def to_json(self) -> dict[str, Any]:
        """The map as plain JSON (what the pictures show, in numbers)."""
        def mark(m: Mark) -> dict[str, Any]:
            return {"kind": m.kind, "buffer": m.buffer, "start": m.start, "stop": m.stop, "rule": m.rule,
                    "severity": m.severity, "tensor": m.tensor, "iteration": m.iteration, "text": m.text}

        return {
            "api": self.api, "product": self.product, "dtype": self.dtype, "origin": self.origin, "valid": self.valid,
            "run": self.run, "run_note": self.run_note, "iteration_label": self.iteration_label,
            "buffers": [{"name": b.name, "size": b.size, "alignment": b.alignment,
                         "tensors": [{"name": t.name, "letter": t.letter, "role": t.role, "position": t.position,
                                      "start": t.start, "stop": t.stop, "dtype": t.dtype, "size": t.size,
                                      "align": t.align} for t in b.tensors],
                         "regions": [{"start": r.start, "stop": r.stop, "tensors": r.tensors, "clipped": r.clipped,
                                      "rows": [{"label": w.label, "iteration": w.iteration, "reads": w.reads,
                                                "writes": w.writes, "faults": w.faults, "what": w.what}
                                               for w in r.rows]} for r in b.regions]}
                        for b in self.buffers],
            "problems": [{"rule": p.rule, "severity": p.severity, "message": p.message, "tensors": p.tensors,
                          "call": p.call, "marks": [mark(m) for m in p.marks]} for p in self.problems],
            "faults": [mark(m) for m in self.faults],
            "registers": {"read": self.registers_read, "written": self.registers_written, "special": self.special},
        }


# -- building --------------------------------------------------------------------------------------------------------

def build_map(case: Case, *, result: Result | None = None, violations: Sequence[Violation] | None = None,
              run: RunResult | Any = None, execute: bool = True, seed: int = 0, origin: str = "") -> MemoryMap:
    """The memory map of ``case``.

    ``result`` (or ``violations``: errors and warnings together) is the checker's verdict; by default
    `check_case` gives it. ``run`` is a finished run whose trace holds the call's accesses (a program's call);
    by default the case runs on the core (``execute``) when its values are sane, else the model's
    ``footprint`` predicts its writes."""
    if violations is None:
        if result is None:
            result = check_case(case)
        violations = [*result.violations, *result.warnings]
    model = case.model
    views = _tensors(case)
    by_name = {t.name: t for t in views}
    problems = [_problem(case, v, by_name) for v in violations]
    sets: list[str] = []
    accesses: list[tuple[str, str, str, np.ndarray, int, np.ndarray, str]] = []
    faults: list[Mark] = []
    note = ""
    how = "none"
    regs_read: list[str] = []
    regs_written: list[str] = []
    if run is None and execute:
        reason = _unrunnable(case, violations, views)
        if reason:
            note = f"not run: {reason}"
        else:
            try:
                run = run_case(case.with_fields(), seed=seed, strict=False)
            except (Fault, CoreLimit) as exc:
                note = f"not run: {one_line(str(exc))}"
            except Exception as exc:  # noqa: BLE001 - the core need not cope with every invalid case
                note = f"not run: {type(exc).__name__}: {one_line(str(exc))[:200]}"
    if run is not None:
        how = "core"
        trace = run.trace
        for rec in trace.records:
            tensor = _attribute(rec.tensor, rec.what, rec.buffer, int(rec.starts[0]) if rec.starts.size else 0, views)
            accesses.append((rec.kind, rec.buffer, tensor, np.asarray(rec.starts, np.int64), int(rec.length),
                             np.asarray(rec.iterations, np.int64), rec.what))
        for f in trace.faults:
            faults.append(_fault_mark(f, views, violations))
        if getattr(trace, "suppressed", 0):
            note = f"{trace.suppressed} more faults of the same kinds not kept"
        regs_read = trace.registers_touched("read")
        regs_written = trace.registers_touched("write")
    elif note and not any(v.rule.domain.get("kind") == "type" for v in violations):
        try:
            predicted = model.footprint(case)
        except Exception:  # noqa: BLE001 - NotImplementedError, or values the model cannot lay out
            predicted = {}
        for tname, spans in (predicted or {}).items():
            for span in spans:
                if len(span) == 3:
                    buf, a, z = span
                else:  # (start, stop) in the tensor's own buffer
                    a, z = span
                    buf = by_name[tname].buffer if tname in by_name else ""
                if buf and z > a:
                    accesses.append(("write", str(buf), tname, np.array([int(a)], np.int64), int(z) - int(a),
                                     np.array([0], np.int64), "predicted write"))
        if accesses:
            how = "footprint"
    sets = _configures(case)
    buffers = _buffers(case, views, accesses, faults, problems)
    label = getattr(model, "iteration_label", "iteration")
    if callable(label):
        label = label(case)
    return MemoryMap(model.name, case.product, case.dtype.name, origin, not any(p.severity == "error" for p in problems),
                     buffers, problems, faults, how, note, str(label or "iteration"), regs_read, regs_written, sets,
                     len(result.unchecked) if result is not None else 0)


#: The calls of a program `program_maps` draws (the first ones); `check` reports on all of them.
MAX_DRAWN_CALLS = 256


def program_maps(program: Program, *, result: Result | None = None, seed: int = 0, origin: str = "",
                 execute: bool = True) -> list[MemoryMap]:
    """One map per call of a program: the call as it executes (with the state earlier calls set), the rules it
    breaks there, and its accesses when the program runs on one core state."""
    if result is None:
        result = check_program(program)
    runs: list[Any] = []
    note = ""
    if execute:
        try:
            runs = run_program(program, seed=seed, strict=False).runs
        except Exception as exc:  # noqa: BLE001 - the core need not cope with every invalid program
            note = f"{type(exc).__name__}: {one_line(str(exc))[:200]}"
    found = [*result.violations, *result.warnings]
    maps = []
    drawn = program.calls[:MAX_DRAWN_CALLS]
    for call in drawn:
        mine = [v for v in found if v.call == call.index]
        where = f"{origin}: call {call.index}" if origin else f"call {call.index}"
        if call.index < len(runs):
            run = runs[call.index]
            m = build_map(run.case, violations=mine, run=run, origin=where)
        else:
            m = build_map(call.case, violations=mine, execute=False, origin=where)
            m.run_note = note or ""  # (the map's own "core: not run" says the rest)
        for p in m.problems:
            p.call = call.index
        maps.append(m)
    left = len(program.calls) - len(drawn)
    if left > 0 and maps:  # a map per call costs tens of milliseconds: a long program's first calls only
        maps[-1].run_note = "; ".join(filter(None, (maps[-1].run_note, f"the program's other {left:,} calls are not "
                                                    f"drawn (show draws its first {MAX_DRAWN_CALLS})")))
    return maps


def _tensor_align(case: Case, name: str, buffer: str) -> int:
    decl = case.model.tensor(name)
    m = decl.align(case.ctx) if callable(decl.align) else decl.align
    if getattr(decl, "align_exact", False):
        return max(1, int(m))
    return max(BUFFER_ALIGNMENT.get(buffer, 1), int(m or 1))


def _tensors(case: Case) -> list[TensorView]:
    out = []
    for decl in case.model.tensors:
        t = case.tensor(decl.name)
        if not t.present:
            continue
        letter = LETTERS[len(out) % len(LETTERS)]
        out.append(TensorView(t.name, letter, decl.role, t.position, t.buffer, t.addr, t.end, t.dtype.name, t.size,
                              _tensor_align(case, t.name, t.buffer)))
    return out


def _named_tensors(rule_id: str, params: Iterable[str], names: Iterable[str]) -> list[str]:
    """The tensors a rule is about: its tensor parameters, and tensors its id names (``prefix.dst.vertical_overlap``)."""
    names = list(names)
    parts = rule_id.split(".")[1:]
    out = [p for p in params if p in names]
    out += [p for p in parts if p in names and p not in out]
    return out


def _problem(case: Case, v: Violation, views: Mapping[str, TensorView]) -> Problem:
    rule = v.rule
    dom = rule.domain or {}
    kind = dom.get("kind")
    severity = "error" if v.severity == "error" else WARNING
    tensors = _named_tensors(rule.id, rule.params, views)
    p = Problem(rule.id, severity, v.message, tensors, call=v.call)

    def add(mark_kind: str, t: TensorView, a: int, z: int) -> None:
        p.marks.append(Mark(mark_kind, t.buffer, a, max(z, a + 1), v.message, rule.id, severity, t.name))

    try:
        if kind == "align" and dom.get("tensor") in views:
            t = views[dom["tensor"]]
            add("misaligned", t, t.start, t.start + min(max(t.nbytes, 1), t.align))
        elif kind == "fits" and dom.get("tensor") in views:
            t = views[dom["tensor"]]
            size = case.ctx.product.physical_size(t.buffer)
            add("out_of_bounds", t, max(t.start, size), t.stop)
        elif kind == "disjoint":
            a_name, b_name = dom.get("tensors", (None, None))
            if a_name in views and b_name in views:
                a, b = views[a_name], views[b_name]
                lo, hi = max(a.start, b.start), min(a.stop, b.stop)
                if a.buffer == b.buffer and hi > lo:
                    add("overlap", a, lo, hi)
        elif kind == "min_size" and dom.get("tensor") in views and callable(dom.get("elems")):
            t = views[dom["tensor"]]
            need = int(dom["elems"](case.values(), case.ctx))
            esize = case.ctx.tensor_dtype(t.name).size
            if need * esize > t.nbytes:
                add("too_small", t, t.stop, t.start + need * esize)
    except Exception:  # noqa: BLE001 - a mark is a courtesy: the problem is listed all the same
        pass
    return p


def _configures(case: Case) -> list[str]:
    """What the call configures for later calls (the program state it records: a mask, a feature map...)."""
    state: dict[str, Any] = {}
    try:
        case.model.apply_state(case, state)
    except Exception:  # noqa: BLE001 - a call whose values the model cannot record configures nothing shown
        return []
    return [str(k) for k in state]


def _unrunnable(case: Case, violations: Sequence[Violation], views: Sequence[TensorView]) -> str:
    broken = [v.rule.id for v in violations if v.rule.domain.get("kind") == "type"]
    if broken:
        return f"values beyond their C type ({', '.join(broken[:3])})"
    for t in views:
        if t.nbytes > SANE_BYTES or t.start > SANE_BYTES or t.start < 0:
            return f"{t.name} lies far outside any buffer ({t.start:#x}, {t.nbytes} bytes)"
    return ""


def _attribute(tag: str, what: str, buffer: str, addr: int, views: Sequence[TensorView]) -> str:
    """The tensor an access belongs to: its tag, else the first word of its description, else the tensor of
    ``buffer`` holding ``addr`` (the smallest), else ""."""
    names = {t.name for t in views}
    if tag in names:
        return tag
    first = (what or "").split(" ", 1)[0]
    if first in names:
        return first
    holding = [t for t in views if t.buffer == buffer and t.start <= addr < t.stop]
    if holding:
        return min(holding, key=lambda t: t.nbytes).name
    return ""


def rule_for_fault(kind: str, tensor: str | None, violations: Sequence[Violation]) -> Violation | None:
    """The broken rule that names a core fault: one about the same tensor whose id or kind speaks of the fault's
    kind (an overlap fault on dst: ``prefix.dst.vertical_overlap``); None when no broken rule does."""
    words = _FAULT_WORDS.get(kind, (kind,))
    best, best_score = None, 0
    for v in violations:
        text = f"{v.rule.id} {v.rule.domain.get('kind', '')}".lower()
        if not any(w in text for w in words):
            continue
        score = 2
        if tensor and (tensor in v.rule.params or tensor in v.rule.id.split(".")):
            score += 2
        if v.severity == "error":
            score += 1
        if score > best_score:
            best, best_score = v, score
    return best


def _fault_mark(f: Fault, views: Sequence[TensorView], violations: Sequence[Violation]) -> Mark:
    tensor = _attribute("", f.what, f.buffer, f.start, views) or None
    v = rule_for_fault(f.kind, tensor, violations)
    return Mark(f.kind, f.buffer, f.start, max(f.stop, f.start + 1), one_line(str(f)), v.rule.id if v else None,
                "fault", tensor, f.iteration)


def _merge(pairs: np.ndarray) -> list[tuple[int, int]]:
    """Sorted, merged [start, stop) intervals of an (n, 2) array."""
    if not len(pairs):
        return []
    order = np.argsort(pairs[:, 0], kind="stable")
    s = pairs[order]
    out: list[tuple[int, int]] = []
    a, z = int(s[0, 0]), int(s[0, 1])
    for x, y in s[1:]:
        x, y = int(x), int(y)
        if x <= z:
            z = max(z, y)
        else:
            out.append((a, z))
            a, z = x, y
    out.append((a, z))
    return out


def _groups(tensors: Sequence[TensorView]) -> list[list[TensorView]]:
    """Tensors of one buffer grouped by overlapping bytes (connected components), in address order."""
    ordered = sorted(tensors, key=lambda t: (t.start, t.stop))
    groups: list[list[TensorView]] = []
    stop = None
    for t in ordered:
        if groups and stop is not None and t.start < stop and t.nbytes > 0:
            groups[-1].append(t)
            stop = max(stop, t.stop)
        else:
            groups.append([t])
            stop = t.stop
    return groups


def _buffers(case: Case, views: Sequence[TensorView], accesses: Sequence[tuple], faults: Sequence[Mark],
             problems: Sequence[Problem]) -> list[BufferView]:
    product = case.ctx.product
    used = [b for b in BUFFERS if any(t.buffer == b for t in views) or any(a[1] == b for a in accesses)]
    out = []
    for b in used:
        bv = BufferView(b, product.physical_size(b), BUFFER_ALIGNMENT.get(b, 1), [t for t in views if t.buffer == b])
        mine = [a for a in accesses if a[1] == b]
        groups = _groups(bv.tensors)
        owner = {t.name: k for k, g in enumerate(groups) for t in g}
        loose = [a for a in mine if a[2] not in owner]
        regions = [Region(b, min(t.start for t in g), max(t.stop for t in g), [t.name for t in g]) for g in groups]
        if loose:  # accesses that belong to no tensor: one region of their own
            lo = min(int(a[3].min()) for a in loose)
            hi = max(int(a[3].max()) + a[4] for a in loose)
            regions.append(Region(b, lo, hi, []))
        for k, region in enumerate(regions):
            acc = [a for a in mine if (owner.get(a[2], len(groups)) == k)]
            fl = [f for f in faults if f.buffer == b and (owner.get(f.tensor or "", len(groups)) == k)]
            marks = [m for p in problems for m in p.marks if m.buffer == b and owner.get(m.tensor or "", -1) == k]
            _fill_region(region, acc, fl, marks, bv.size)
        bv.regions = regions
        out.append(bv)
    return out


def _fill_region(region: Region, accesses: Sequence[tuple], faults: Sequence[Mark], marks: Sequence[Mark],
                 buffer_size: int) -> None:
    """The region's rows (all iterations, then each) and its extent, grown to the accesses and marks on it
    (within one more region's length, or one buffer, on either side: a wild access is clipped, not drawn)."""
    per_it: dict[int, dict[str, list[np.ndarray]]] = {}
    whats: dict[int, list[str]] = {}
    every: dict[str, list[np.ndarray]] = {"read": [], "write": []}
    for kind, _buf, _t, starts, length, its, what in accesses:
        if not starts.size:
            continue
        pairs = np.stack([starts, starts + length], axis=1)
        every[kind].append(pairs)
        order = np.argsort(its, kind="stable")
        values, first = np.unique(its[order], return_index=True)
        bounds = list(first) + [order.size]
        for k, it in enumerate(values):  # the accesses of each iteration: one slice of the sorted order
            sel = pairs[order[bounds[k]:bounds[k + 1]]]
            per_it.setdefault(int(it), {"read": [], "write": []})[kind].append(sel)
            names = whats.setdefault(int(it), [])
            if what and what not in names:
                names.append(what)
    lo, hi = region.start, region.stop
    reach = max(hi - lo, buffer_size, 1)
    spans = [(a, z) for rows in every.values() for p in rows for a, z in _merge(p)]
    spans += [(m.start, m.stop) for m in (*faults, *marks)]
    for a, z in spans:
        if a >= region.start - reach and z <= region.stop + reach:
            lo, hi = min(lo, a), max(hi, z)
        else:
            region.clipped = True
    region.start, region.stop = lo, max(hi, lo + 1)

    def merged(parts: list[np.ndarray]) -> list[tuple[int, int]]:
        return _merge(np.concatenate(parts)) if parts else []

    all_faults = [(m.start, m.stop, m.kind) for m in faults]
    rows = [Row("all", None, merged(every["read"]), merged(every["write"]), all_faults,
                [w for it in sorted(whats) for w in whats[it]][:8])]
    by_it: dict[int | None, list[tuple[int, int, str]]] = {}
    for m in faults:
        by_it.setdefault(m.iteration, []).append((m.start, m.stop, m.kind))
    for it in sorted(per_it):
        parts = per_it[it]
        rows.append(Row(str(it), it, merged(parts["read"]), merged(parts["write"]), by_it.get(it, []),
                        whats.get(it, [])))
    region.rows = rows
