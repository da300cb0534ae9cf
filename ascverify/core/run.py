"""Running one case on the simulated core: lay out the tensors, fill inputs, execute, collect outputs."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from ..cases.case import Case
from ..spec.dtypes import DType
from ..spec.errors import InputError
from ..spec.registers import FILES
from .memory import Fault, Memory, Trace


def random_values(dtype: DType, n: int, rng: np.random.Generator) -> np.ndarray:
    """n random elements of dtype: quarter-integers in [-8, 8] for floats, the full range for integers."""
    if dtype.kind == "float":
        if dtype.name == "hifloat8":
            return rng.integers(0, 256, size=n, dtype=np.uint8)
        return (rng.integers(-32, 33, size=n) / 4).astype(dtype.numpy)
    lo, hi = dtype.int_bounds()
    return rng.integers(lo, hi + 1, size=n, dtype=dtype.numpy)


@dataclass
class RunResult:
    """What one call did: the memory after it, its trace, and every tensor's contents."""

    case: Case
    memory: Memory
    trace: Trace
    inputs: dict[str, np.ndarray]
    tensors: dict[str, np.ndarray] = field(default_factory=dict)
    #: the registers loaded before the call: "vreg3" -> "given" (the case's ``registers``) / "generated"
    register_inputs: dict[str, str] = field(default_factory=dict)

    @property
    def faults(self) -> list[Fault]:
        return self.trace.faults

    def written_intervals(self) -> dict[str, list[tuple[int, int]]]:
        """Per buffer, the merged byte intervals the call stored to."""
        return {b: self.trace.regions("write", b) for b in self.memory.buffers if self.trace.regions("write", b)}


def drawn_data(case: Case, name: str, rng: np.random.Generator) -> np.ndarray:
    """Contents for a tensor the case gives none: the model's (`ApiModel.input_data`), else random values."""
    data = case.model.input_data(case, name, rng)
    if data is None:
        t = case.tensor(name)
        data = random_values(t.dtype, t.size, rng)
    return data


def draw_missing(case: Case, rng: np.random.Generator, *, fill_outputs: bool = True) -> None:
    """Give every tensor the core loads (in its buffer; not tmp; outputs' old values when ``fill_outputs``) that
    has no contents the drawn ones (`drawn_data`), in declaration order from one random stream: what `prepare`
    loads, and what gen writes as a case's inputs."""
    for decl in case.model.tensors:
        if decl.role == "tmp" or (decl.role == "out" and not fill_outputs) or not fits(case, decl.name) \
                or case.data(decl.name) is not None:
            continue
        case.set_data(decl.name, drawn_data(case, decl.name, rng))


def load_tensor(case: Case, name: str, memory: Memory, rng: np.random.Generator, *, generate: bool) -> np.ndarray | None:
    """Fill one tensor's given contents (or, when ``generate``, generated ones) into memory; the data, or None."""
    t = case.tensor(name)
    data = case.data(name)
    if data is None:
        if not generate:
            return None
        case.set_data(name, drawn_data(case, name, rng))
        data = case.data(name)
    if data.size:
        memory.store(t.buffer, t.addr, t.dtype, data)
    return data


def given_data(case: Case, names: list[str], shown: Callable[[str], str] = lambda name: name
               ) -> list[tuple[str, str, int, np.ndarray]]:
    """(name as the file gives it, buffer, address, bytes) of the tensors ``names`` whose data the case file gives
    (not data a run generated and kept) and that lie in their buffer (`refuse_conflicting_data`)."""
    out = []
    for name in names:
        if name not in case.data_sources:
            continue
        t, data = case.tensor(name), case.data(name)
        if data is not None and t.present and t.size and t.addr >= 0 \
                and t.end <= case.ctx.product.buffer_size(t.buffer):
            out.append((shown(name), t.buffer, t.addr, np.frombuffer(t.dtype.to_bytes(data), dtype=np.uint8)))
    return out


def refuse_conflicting_data(placed: list[tuple[str, str, int, np.ndarray]]) -> None:
    """Tensors given with data that share bytes must agree on them: otherwise which one's data the call reads would
    depend on the order they are loaded in (InputError naming both, exit 2)."""
    for i, (a, buf_a, at_a, bytes_a) in enumerate(placed):
        for b, buf_b, at_b, bytes_b in placed[i + 1:]:
            lo, hi = max(at_a, at_b), min(at_a + bytes_a.size, at_b + bytes_b.size)
            if buf_a != buf_b or lo >= hi:
                continue
            if not np.array_equal(bytes_a[lo - at_a: hi - at_a], bytes_b[lo - at_b: hi - at_b]):
                raise InputError(f"{a} and {b} share bytes {lo}..{hi - 1} of {buf_a} and their data differ there: "
                                 "which one the call reads would depend on the order they are loaded in; give the "
                                 "shared bytes the same values (or data for one of them only)", field=f"tensors.{b}.data")


def fits(case: Case, name: str, memory: Memory | None = None) -> bool:
    """The tensor is given and lies inside its buffer as the core's memory has it (the product's physical size: a
    tensor outside holds nothing; accesses fault there)."""
    t = case.tensor(name)
    size = memory.size(t.buffer) if memory is not None else case.ctx.product.physical_size(t.buffer)
    return t.present and t.addr >= 0 and t.end <= size


def tensors_after(case: Case, memory: Memory) -> dict[str, np.ndarray]:
    """Every tensor's contents as the memory holds them now."""
    out = {}
    for decl in case.model.tensors:
        t = case.tensor(decl.name)
        if t.size and fits(case, decl.name, memory):
            out[decl.name] = memory.elements(t.buffer, t.addr, t.size, t.dtype)
    return out


def prepare(case: Case, *, seed: int = 0, fill_outputs: bool = True) -> tuple[Memory, dict[str, np.ndarray]]:
    """A fresh memory with every tensor's given or generated contents (inputs, and outputs' old values)."""
    rng = np.random.default_rng(seed)
    memory = Memory.for_product(case.ctx.product)
    inputs: dict[str, np.ndarray] = {}
    refuse_conflicting_data(given_data(case, [d.name for d in case.model.tensors]))
    draw_missing(case, rng, fill_outputs=fill_outputs)
    for decl in case.model.tensors:
        if not fits(case, decl.name, memory):
            continue
        data = load_tensor(case, decl.name, memory, rng, generate=False)
        if data is not None:
            inputs[decl.name] = data
    fill_registers(case, memory, seed)
    return memory, inputs


def fill_registers(case: Case, memory: Memory, seed: int = 0) -> dict[str, str]:
    """Load the registers the case gives (its ``registers`` object) into the core's register file, and fill
    the registers the call reads (`ApiModel.input_registers`) that the case does not give with random bytes
    drawn from ``seed`` (like tensors without data); "vreg3" -> "given" / "generated" for each one loaded."""
    regs = getattr(memory, "registers", None)
    out: dict[str, str] = {}
    if regs is None:
        return out
    given = getattr(case, "registers", None) or {}
    for file, entries in given.items():
        for index, raw in entries.items():
            regs.fill(file, index, raw)
            out[f"{file}{index}"] = "given"
    for file, index in case.model.input_registers(case):
        if index in given.get(file, {}) or not regs.has(file, index):
            continue  # given, or no such register (the read faults)
        # one stream per register: the bytes do not depend on which tensors were generated before
        rng = np.random.default_rng([seed, 1 + FILES.index(file), int(index)])
        raw = rng.integers(0, 256, size=regs.spec(file).nbytes, dtype=np.uint8)
        regs.fill(file, index, case.model.legal_register(case, file, int(index), raw))
        out[f"{file}{index}"] = "generated"
    regs.loaded.update(out)
    return out


def tensor_extents(case: Case) -> dict[str, tuple[str, int, int]]:
    """Every tensor the case gives, as ``name -> (buffer, start, stop)`` byte extents (`Trace`'s ``declared``)."""
    out = {}
    for decl in case.model.tensors:
        t = case.tensor(decl.name)
        if t.present:
            out[decl.name] = (t.buffer, t.addr, t.end)
    return out


def declare_tensors(trace: Trace, case: Case) -> Trace:
    """Declare on ``trace`` the case's tensors it does not know yet (accesses tagged ``tensor=NAME`` are then
    checked against them); returns the trace. `run_case` declares them all; a model may call this at the start
    of ``execute`` so that traces made elsewhere (programs, fuzz) check its tagged accesses too."""
    for name, extent in tensor_extents(case).items():
        if name not in trace.declared:
            trace.declare(name, *extent)
    return trace


def run_case(case: Case, *, seed: int = 0, strict: bool = True, memory: Memory | None = None) -> RunResult:
    """Execute the case on the numpy core. With ``strict`` the first access that breaks a constraint raises `Fault`;
    otherwise faults are collected. The trace knows the case's tensors (`tensor_extents`): an access tagged with one
    faults when it leaves it. A case asking for more iterations than any legal case (a hostile file) raises
    `CoreLimit` before anything is allocated. ``memory``: the memory to run in (programs; default: a fresh one)."""
    if memory is None:
        memory, inputs = prepare(case, seed=seed)
    else:
        inputs = {}
    trace = Trace(memory, strict=strict, declared=tensor_extents(case))
    case.model.execute(case, trace)
    trace.poison_results()
    result = RunResult(case, memory, trace, inputs)
    if getattr(memory, "registers", None) is not None:
        result.register_inputs = dict(memory.registers.loaded)
    result.tensors = tensors_after(case, memory)
    return result

