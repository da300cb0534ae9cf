"""`ascverify run` on a program: every call on one core state; tensors and special registers after the last call."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from ..cases.registers import dumps
from ..checking.program import check_program
from ..core.faults import CoreLimit, Fault, unrunnable_reason, unrunnable_rules
from ..core.program import program_given_data, run_program, too_many_calls
from ..core.run import refuse_conflicting_data
from ..core.unspecified import unspecified_elements
from ..engines.report import bare_error, location, result_lines
from ..spec.errors import InputError, one_line, shown_path
from .common import (DataCache, clashing_tensor, emit, emit_note, entries_of, joined_lines, plural, save_tensor,
                     tensor_files, unspecified_lines, unspecified_summary)
from .run_output import any_marked, begin_run_output, finish_run_output, open_run_folder


def one_program(path: str, index: int, max_bytes: int) -> Any:
    """Entry ``index`` of the file when it is a program (None when it is a single case or absent)."""
    for entry in entries_of(path, max_bytes):
        if entry.index != index:
            continue
        if entry.program is None:
            return None
        cache = DataCache()
        try:
            for call in entry.program.calls:
                if call.case.data_sources:
                    cache.load(call.case)
        except InputError as exc:
            loc = location(path, index)
            raise bare_error(exc, path, loc).at(loc) from None
        return entry.program
    return None


def _jsonable(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        return value.astype(int).tolist() if value.dtype == bool else value.tolist()
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, (np.integer, np.floating, np.bool_)):
        return value.item()
    return value


def run_program_to(program: Any, path: str, index: int, seed: int, outdir: Path, *, force: bool = False) -> int:
    """Check and run the program; write the program's tensors after the last call and run.json. Exit status.

    ``outdir`` is opened as `run` opens it (`run_output.open_run_folder`): confined writes, the program file and its
    data never overwritten, a non-empty folder that is no earlier output refused unless ``force``."""
    loc = location(path, index)
    clash = clashing_tensor(program.tensors)
    if clash is not None:  # one tensor's file would overwrite another's: refused before anything is written
        name, other, file = clash
        how = "would be written for both" if file in tensor_files(other) else \
            "is one file with the other's on a case-insensitive file system (macOS, Windows)"
        raise InputError(f"its files would collide with those of tensor {other!r} ({file} {how}); rename one of them",
                         field=f"tensors.{name}").at(loc)
    too_many = too_many_calls(len(program.calls))
    if too_many is not None:  # refused before it is checked (checking 100,000 calls takes half a minute)
        raise InputError(f"{too_many}; `ascverify check` checks it", field="calls").at(loc)
    verdict = check_program(program, file=path, index=index)
    try:  # before the folder is made: tensors sharing bytes whose data disagree are refused
        for loaded in program_given_data(program):
            refuse_conflicting_data(loaded)
    except InputError as exc:
        raise exc.at(loc) from None
    folder = open_run_folder(outdir, path, [c.case for c in program.calls], force, [program.raw])
    outdir = folder.root
    # what `run` does not execute in a case it does not execute in a program's call either (values beyond their C
    # type, tensors beyond their buffer, more iterations than a legal call asks for); an invalid program the core
    # cannot cope with is reported, not an internal error
    blocking = unrunnable_rules(v.rule for v in verdict.violations)
    if blocking:
        return _not_executed(program, verdict, path, index, seed, folder, unrunnable_reason(blocking))
    try:
        run = run_program(program, seed=seed, strict=False)
    except (CoreLimit, Fault) as exc:  # too much work; a fault found while laying out the inputs
        return _not_executed(program, verdict, path, index, seed, folder, one_line(str(exc)))
    except Exception as exc:  # noqa: BLE001 - the core need not cope with every invalid program
        if verdict.valid:
            raise
        return _not_executed(program, verdict, path, index, seed, folder,
                             f"{type(exc).__name__}: {one_line(str(exc))[:300]}")
    tensors: list[tuple[str, Any, str, Any]] = []
    for name, t in _tensors_after(program):
        if t.end > run.memory.size(t.buffer):
            continue
        arr = np.ascontiguousarray(run.memory.elements(t.buffer, t.addr, t.size, t.dtype))
        marks = unspecified_elements(run.memory, t.buffer, t.addr, t.size, t.dtype)
        tensors.append((name, arr, t.dtype.name, marks))
    regs = getattr(run.memory, "registers", None)
    use_regs = regs is not None and any(r.trace.register_records or c.case.registers
                                        for r, c in zip(run.runs, program.calls))
    begin_run_output(folder, [f"{n}{sfx}" for n, _, _, m in tensors
                              for sfx in ((".npy", ".bin") + ((".unspecified.npy",) if any_marked(m) else ()))]
                     + (["registers.json"] if use_regs else []))
    written: dict[str, Any] = {}
    for name, arr, dtype, marks in tensors:
        written[name] = save_tensor(outdir, name, arr, dtype, marks, folder=folder)
    # the Reg API register file after the last call, when a call used it (as `run` of one case writes it)
    registers: dict[str, Any] | None = None
    if use_regs:
        reg_text = dumps(regs.to_json())
        folder.write_bytes("registers.json", lambda f: f.write(reg_text.encode("utf-8")))
        registers = {"file": "registers.json",
                     "read": [f"call {i}: {x}" for i, r in enumerate(run.runs) for x in r.trace.registers_touched("read")],
                     "written": [f"call {i}: {x}" for i, r in enumerate(run.runs)
                                 for x in r.trace.registers_touched("write")]}
    faults = [f"call {i}: {f}" for i, r in enumerate(run.runs) for f in r.faults]
    doc = {"kind": "program", "file": shown_path(path), "index": index, "seed": seed, **_program_fields(program),
           "check": verdict.to_json(), "executed": True, "faults": faults,
           "special_registers": _jsonable(run.memory.special), "tensors": written, "registers": registers,
           # results that are neither memory nor registers, per call (a PostUpdate load's moved srcAddr)
           "outputs": {str(i): _jsonable(r.trace.outputs) for i, r in enumerate(run.runs) if r.trace.outputs}}
    finish_run_output(folder, doc)
    lines = result_lines(verdict) + [f"{loc}: fault: {one_line(f)}" for f in faults] + unspecified_lines(loc, written)
    emit(joined_lines([one_line(line) for line in lines]))
    emit_note(one_line(f"{loc}: program of {plural(len(program.calls), 'call')} on {program.product.id} "
                        f"{'faulted' if faults else 'ran without fault'}; wrote {plural(len(written), 'tensor')}"
                        f"{', registers.json' if registers else ''} and run.json to "
                        f"{outdir}{unspecified_summary(written)}"))
    return 1 if (faults or not verdict.valid) else 0


def _tensors_after(program: Any) -> list[tuple[str, Any]]:
    """The tensors `run` writes after the last call, each with the first call's view of it: the program's shared
    tensors by their names, then each tensor a call gives inline as ``call<i>@<param>`` ('@' is in no plain name,
    so no shared tensor has such a name)."""
    out: list[tuple[str, Any]] = []
    for name in program.tensors:
        for call in program.calls:
            params = [p for p, n in call.shared.items() if n == name]
            if params:
                out.append((name, call.case.tensor(params[0])))
                break
    for i, call in enumerate(program.calls):
        for decl in call.case.model.tensors:
            t = call.case.tensor(decl.name)
            if decl.name not in call.shared and t.present:
                out.append((f"call{i}@{decl.name}", t))
    return out


def _program_fields(program: Any) -> dict[str, Any]:
    """What run.json says of the program itself: the program as given, and the API of each call in order."""
    return {"program": _jsonable(program.raw), "calls": [call.case.model.name for call in program.calls]}


def _not_executed(program: Any, verdict: Any, path: str, index: int, seed: int, folder: Any, why: str) -> int:
    """A program the core does not run (a call it cannot run, too much work, or an invalid program it cannot cope
    with): its verdict and ``why``, in run.json and on the output; exit 1."""
    loc = location(path, index)
    begin_run_output(folder, [])
    doc = {"kind": "program", "file": shown_path(path), "index": index, "seed": seed, **_program_fields(program),
           "check": verdict.to_json(), "executed": False, "not_executed_reason": why, "faults": [], "tensors": {}}
    finish_run_output(folder, doc)
    emit(joined_lines([one_line(line) for line in result_lines(verdict) + [f"{loc}: not executed: {why}"]]))
    emit_note(one_line(f"{loc}: program of {plural(len(program.calls), 'call')} on {program.product.id} not executed; "
                       f"wrote run.json to {folder.root}"))
    return 1
