"""Running a program: the calls in order on one core state (buffers and special registers persist).

A shared tensor's contents (given or generated) are loaded once, before the first call that names it, and then
persist from call to call; an inline input tensor is loaded before its call (like a copy in from global memory);
an inline output without data keeps whatever earlier calls left in those bytes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..cases.program import Program, moved_case, record_moves
from .faults import CoreLimit
from .memory import Memory, Trace
from .run import RunResult, declare_tensors, fits, given_data, load_tensor, refuse_conflicting_data, tensors_after

#: The most work `run_program` does for a program beyond its largest call, in bytes: every byte its calls read and
#: write, every byte of the tensors it keeps after each call, and `CALL_WORK` per call. One call is bounded by
#: `faults.MAX_ITERATIONS`; without this a file of 100,000 legal calls would hold gigabytes and run for minutes (a
#: shipped or vendor program is a few calls and a few MiB of work).
PROGRAM_MAX_WORK = 1 << 28
#: What one call counts besides its bytes: the time of a call of a few repeats (about a millisecond) in bytes of work.
CALL_WORK = 1 << 16


def too_many_calls(calls: int) -> str | None:
    """Why a program of ``calls`` calls is not run (each call counts at least `CALL_WORK`: at most 4,096), or None;
    `run` asks before it checks the program."""
    most = PROGRAM_MAX_WORK // CALL_WORK
    if calls <= most:
        return None
    return f"the program has {calls:,} calls; the core runs at most {most:,} in one program (no shipped or vendor program needs more)"


@dataclass
class ProgramRun:
    """What running a program did: each call's RunResult, and the memory after the last call."""

    program: Program
    runs: list[Any]
    memory: Any

    @property
    def faults(self) -> list[Any]:
        return [f for r in self.runs for f in r.faults]


def run_program(program: Program, *, seed: int = 0, strict: bool = True) -> ProgramRun:
    """Execute the calls in order on one core state (buffers and special registers persist)."""
    rng = np.random.default_rng(seed)
    memory = Memory.for_product(program.product)
    for loaded in program_given_data(program):
        refuse_conflicting_data(loaded)
    filled: set[str] = set()  # shared tensors loaded so far (once, before their first call)
    too_many = too_many_calls(len(program.calls))
    if too_many is not None:  # refused before any work is done
        raise CoreLimit(too_many)
    runs = []
    state: dict[str, Any] = {}
    work = largest = 0
    moved: dict[str, int] = {}  # tensor name -> bytes earlier PostUpdate calls moved its pointer
    for call in program.calls:
        placed = moved_case(call, moved)
        case = call.case.model.with_state(placed, state)
        for decl in _loading_order(case):
            name = call.shared.get(decl.name)
            if name in filled or not fits(case, decl.name, memory):
                continue
            if name is not None:
                filled.add(name)
            elif decl.role == "out" and case.data(decl.name) is None:
                continue  # an inline output without data keeps what earlier calls left there
            generate = decl.role not in ("tmp", "out")
            load_tensor(case, decl.name, memory, rng, generate=generate)
        trace = declare_tensors(Trace(memory, strict=strict), case)  # as `run_case`: tagged accesses checked
        case.model.execute(case, trace)
        trace.poison_results()  # a call computing from unspecified bytes leaves unspecified results
        res = RunResult(case, memory, trace, {})
        res.tensors = tensors_after(case, memory)
        runs.append(res)
        call.case.model.apply_state(placed, state)
        record_moves(call, placed, moved)
        done = call_work(res)
        work, largest = work + done, max(largest, done)
        if work - largest > PROGRAM_MAX_WORK:
            raise CoreLimit(f"the program's calls 0 to {call.index} do {work:,} bytes of work (bytes read, written and "
                            f"kept, {CALL_WORK:,} per call); the core runs at most {PROGRAM_MAX_WORK:,} beyond the "
                            "largest call (no shipped or vendor program needs more)")
    return ProgramRun(program, runs, memory)


def program_given_data(program: Program) -> list[list[tuple[str, str, int, np.ndarray]]]:
    """Per call, the data of the tensors it loads (a shared tensor at its first call, a call's own tensors at the
    call): what `refuse_conflicting_data` compares, call by call, before anything is loaded (tensors loaded by
    different calls do not conflict: the calls between them may have changed the bytes)."""
    out, seen = [], set()
    for call in program.calls:
        names = []
        for decl in call.case.model.tensors:
            shared = call.shared.get(decl.name)
            if shared is None or shared not in seen:
                names.append(decl.name)
                seen.update([shared] if shared is not None else [])
        out.append(given_data(call.case, names, lambda name: call.shared.get(name, name)))
    return out


def call_work(res: RunResult) -> int:
    """What one call of a program costs (`PROGRAM_MAX_WORK`): the bytes it read and wrote, the bytes of the tensors
    kept after it, and `CALL_WORK`."""
    accessed = sum(int(np.size(r.starts)) * int(r.length) for r in res.trace.records)
    return accessed + sum(int(a.nbytes) for a in res.tensors.values()) + CALL_WORK


def _loading_order(case: Any) -> list[Any]:
    """The call's tensor parameters, those that read their tensor first: a shared tensor that one parameter writes
    and another reads (an in-place call, dst and src the same tensor) is loaded, generated when it has no data,
    through the one that reads it."""
    return sorted(case.model.tensors, key=lambda d: d.role in ("tmp", "out"))
