"""Running a program: the calls in order on one core state (buffers and special registers persist).

A shared tensor's contents (given or generated) are loaded once, before the first call that names it, and then
persist from call to call; an inline input tensor is loaded before its call (like a copy in from global memory);
an inline output without data keeps whatever earlier calls left in those bytes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..cases.program import Program
from .memory import Memory, Trace
from .run import RunResult, fits, load_tensor, tensors_after


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
    filled: set[str] = set()  # shared tensors loaded so far (once, before their first call)
    runs = []
    state: dict[str, Any] = {}
    for call in program.calls:
        case = call.case.model.with_state(call.case, state)
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
        trace = Trace(memory, strict=strict)
        case.model.execute(case, trace)
        res = RunResult(case, memory, trace, {})
        res.tensors = tensors_after(case, memory)
        runs.append(res)
        call.case.model.apply_state(call.case, state)
    return ProgramRun(program, runs, memory)


def _loading_order(case: Any) -> list[Any]:
    """The call's tensor parameters, those that read their tensor first: a shared tensor that one parameter writes
    and another reads (an in-place call, dst and src the same tensor) is loaded, generated when it has no data,
    through the one that reads it."""
    return sorted(case.model.tensors, key=lambda d: d.role in ("tmp", "out"))
