"""Checking the checker: deliberately broken variants of the core, and ``ascverify selftest``.

A *mutant* changes what a model's ``execute`` does, for the duration of a context manager, without
touching the model's files: it wraps ``execute`` (swapping a module helper such as ``lane_mask`` while
it runs, handing it a case with one argument changed, or handing it a `Trace` proxy that alters the
data, addresses or masks of its reads and writes). The invariants themselves run unmutated; they only
observe the mutated core. A short campaign per (mutant, API) then runs the invariants; the mutant is
*killed* when a check fails.

A mutant is also a differential target: `run_as_target` runs a case on a fresh core the way a target
function is called (``f(case_doc, inputs) -> outputs``, registers included) with a mutant installed, so a
broken core can stand in for a buggy kernel (``bench/mutants`` builds its img2col kernels this way).

Generic mutants apply to every registered API (new ones too) whose calls they actually change: a
mutant that never altered a single access on an API (e.g. a mask mutant on an API without a mask) is
*not exercised* there and left out of the kill rate. API-specific mutants must be exercised and killed.
"""

from __future__ import annotations

import sys
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, Mapping, Sequence

import numpy as np

from ...cases.parse import parse_case
from ...core.memory import Memory, Trace
from ...models import vector_common
from ...spec.model import ApiModel
from ...spec.params import Arg, MaskArg
from ...spec.registry import apis, get_api
from ..interrupts import start_pool
from .plan import Unit
from .runner import RunOptions, run_item
from .storage import campaign_hypothesis, without_mined_constants

BLOCK = 32
#: Cases of the first, short run of a mutant (see `run_job`).
PROBE_EXAMPLES = 12


@dataclass
class Probe:
    """Whether the mutation changed anything during the campaign."""

    touched: bool = False


Wrap = Callable[[ApiModel, Callable, Probe], Callable]


@dataclass(frozen=True)
class Mutant:
    """One broken variant of the core."""

    name: str
    description: str
    wrap: Wrap                                     # (model, original execute, probe) -> mutated execute
    apis: tuple[str, ...] | None = None            # None: generic (every API)
    applies: Callable[[ApiModel], bool] = field(default=lambda m: True)
    #: the product whose semantics the mutant changes (its campaign runs there), or "*" for every product
    product: str = "*"

    @property
    def generic(self) -> bool:
        return self.apis is None

    def for_api(self, model: ApiModel) -> bool:
        return (self.apis is None or model.name in self.apis) and self.applies(model)

    @contextmanager
    def installed(self, model: ApiModel) -> Iterator[Probe]:
        """The model's ``execute`` mutated while the block runs."""
        probe = Probe()
        cls = type(model)
        own = "execute" in cls.__dict__
        original = cls.__dict__["execute"] if own else getattr(cls, "execute")
        mutated = self.wrap(model, original, probe)

        def execute(self_, case: Any, trace: Any) -> Any:
            return mutated(self_, case, trace)

        cls.execute = execute  # type: ignore[method-assign]
        try:
            yield probe
        finally:
            if own:
                cls.execute = original  # type: ignore[method-assign]
            else:
                del cls.execute


# -- building blocks -----------------------------------------------------------------------------------------------

class TraceProxy:
    """A Trace whose reads and writes pass through hooks; everything else is the real trace's."""

    def __init__(self, trace: Any, *, on_read: Callable | None = None, on_write: Callable | None = None) -> None:
        self._trace = trace
        self._on_read = on_read
        self._on_write = on_write

    def __getattr__(self, name: str) -> Any:
        return getattr(self._trace, name)

    def read(self, buffer: str, starts: Any, length: int, iteration: Any = 0, **kw: Any) -> np.ndarray:
        if self._on_read is not None:
            starts, post = self._on_read(self._trace, buffer, np.asarray(starts), length, kw)
            out = self._trace.read(buffer, starts, length, iteration, **kw)
            return post(out) if post is not None else out
        return self._trace.read(buffer, starts, length, iteration, **kw)

    def write(self, buffer: str, starts: Any, length: int, data: Any, iteration: Any = 0, **kw: Any) -> None:
        if self._on_write is not None:
            starts, data, kw = self._on_write(self._trace, buffer, np.asarray(starts), length, data, kw)
        return self._trace.write(buffer, starts, length, data, iteration, **kw)


def _rows(data: Any, n: int, length: int) -> np.ndarray:
    """A write's data as an (n, length) uint8 array (rows given once are repeated)."""
    arr = np.ascontiguousarray(np.asarray(data))
    if arr.dtype != np.uint8:
        arr = arr.reshape(-1).view(np.uint8)
    arr = arr.reshape(-1, length) if arr.size != length else arr.reshape(1, length)
    return np.ascontiguousarray(np.broadcast_to(arr, (n, length)))


def _with_trace(hooks: Callable[[Any, Probe], dict[str, Callable]]) -> Wrap:
    def wrap(model: ApiModel, original: Callable, probe: Probe) -> Callable:
        def execute(self_: Any, case: Any, trace: Any) -> Any:
            return original(self_, case, TraceProxy(trace, **hooks(case, probe)))
        return execute
    return wrap


def _with_case(change: Callable[[Any], dict[str, Any] | None]) -> Wrap:
    """execute sees the case with some fields changed (``change`` returns them, or None for no change)."""
    def wrap(model: ApiModel, original: Callable, probe: Probe) -> Callable:
        def execute(self_: Any, case: Any, trace: Any) -> Any:
            fields = change(case)
            if fields:
                probe.touched = True
                case = case.with_fields(**fields)
            return original(self_, case, trace)
        return execute
    return wrap


def _with_module_attr(attr: str, make: Callable[[Any, Probe], Any]) -> Wrap:
    """While execute runs, the model module's global ``attr`` is ``make(old, probe)``."""
    def wrap(model: ApiModel, original: Callable, probe: Probe) -> Callable:
        module = sys.modules[type(model).__module__]

        def execute(self_: Any, case: Any, trace: Any) -> Any:
            old = module.__dict__[attr]
            module.__dict__[attr] = make(old, probe)
            try:
                return original(self_, case, trace)
            finally:
                module.__dict__[attr] = old
        return execute
    return wrap


def _int_args(model: ApiModel, pred: Callable[[str], bool]) -> list[str]:
    return [a.name for a in model.args if isinstance(a, Arg) and a.type.kind == "int" and pred(a.name)]


#: The building blocks under public names, for mutants defined outside this module (bench/mutants).
with_trace = _with_trace
with_case = _with_case
with_module_attr = _with_module_attr
rows = _rows


def run_as_target(case_doc: Mapping[str, Any], inputs: Mapping[str, np.ndarray],
                  mutant: "Mutant | None" = None) -> dict[str, Any]:
    """Run a case as a differential target does (the core, with ``mutant`` installed when given): each tensor's
    contents from ``inputs``, the registers from the case's ``registers``; the output tensors after the call and
    the registers it wrote (``{"registers": {"mask": {0: bytes}}}``)."""
    doc = {k: v for k, v in case_doc.items() if k not in ("name", "comment")}
    case = parse_case(doc)
    model = case.model
    memory = Memory.for_product(case.ctx.product)
    for decl in model.tensors:
        arr = inputs.get(decl.name)
        t = case.tensor(decl.name)
        if arr is None or not t.present:
            continue
        data = np.ascontiguousarray(np.asarray(arr, dtype=t.dtype.numpy))
        memory.fill(t.buffer, t.addr, data.astype(data.dtype.newbyteorder("<")))
    regs = getattr(memory, "registers", None)
    if regs is not None:
        for file, entries in (case.registers or {}).items():
            for index, raw in entries.items():
                regs.fill(file, index, raw)
    trace = Trace(memory, strict=False)
    with np.errstate(all="ignore"):
        if mutant is None:
            model.execute(case, trace)
        else:
            with mutant.installed(model):
                model.execute(case, trace)
    out: dict[str, Any] = {}
    for decl in model.tensors:
        t = case.tensor(decl.name)
        if decl.role in ("out", "inout") and t.present and t.end <= memory.size(t.buffer):
            out[decl.name] = memory.elements(t.buffer, t.addr, t.size, t.dtype).copy()
    written: dict[str, dict[int, np.ndarray]] = {}
    for kind, file, index, _ in trace.register_records:
        if kind == "write" and regs is not None and regs.has(file, index):
            written.setdefault(file, {})[int(index)] = regs.get(file, index)
    if written:
        out["registers"] = written
    return out


# -- generic mutants -----------------------------------------------------------------------------------------------

def _uses_lane_mask(model: ApiModel) -> bool:
    module = sys.modules.get(type(model).__module__)
    return module is not None and module.__dict__.get("lane_mask") is vector_common.lane_mask \
        and any(isinstance(a, MaskArg) for a in model.args)


def _swapped_lane_mask(old: Callable, probe: Probe) -> Callable:
    def lane_mask(case: Any, name: str = "mask") -> np.ndarray:
        env = case.env
        if env.get(f"{name}.bitwise") and f"{name}.w1" in env and int(env[f"{name}.w0"]) != int(env[f"{name}.w1"]) \
                and int(env.get(f"{name}.nwords", 0)) >= 2:
            probe.touched = True
            case = case.with_fields(**{f"{name}.w0": env[f"{name}.w1"], f"{name}.w1": env[f"{name}.w0"]})
        return old(case, name)
    return lane_mask


def _count_one_short(old: Callable, probe: Probe) -> Callable:
    def lane_mask(case: Any, name: str = "mask") -> np.ndarray:
        env = case.env
        if not env.get(f"{name}.bitwise") and int(env.get(f"{name}.count", 0)) >= 1:
            probe.touched = True
            case = case.with_fields(**{f"{name}.count": int(env[f"{name}.count"]) - 1})
        return old(case, name)
    return lane_mask


def _write_late(case: Any, probe: Probe) -> dict[str, Callable]:
    def on_write(trace, buffer, starts, length, data, kw):
        if starts.size:
            probe.touched = True
        return starts + BLOCK, data, kw
    return {"on_write": on_write}


def _accumulate(case: Any, probe: Probe) -> dict[str, Callable]:
    t = case.ctx.dtype.numpy

    def on_write(trace, buffer, starts, length, data, kw):
        size = np.dtype(t).itemsize
        flat = starts.reshape(-1)
        if not flat.size or length % size:
            return starts, data, kw
        mem = trace.memory
        cap = mem.size(buffer)
        if flat.min() < 0 or flat.max() + length > cap:
            return starts, data, kw
        rows = _rows(data, flat.size, length)
        old = np.stack([mem.buffers[buffer][s:s + length] for s in flat])
        if not old.any():
            return starts, data, kw
        probe.touched = True
        with np.errstate(all="ignore"):
            new = (old.view(t).astype(np.float64) + rows.view(t).astype(np.float64)).astype(t)
        return starts, np.ascontiguousarray(new).view(np.uint8).reshape(flat.size, length), kw
    return {"on_write": on_write}


def _ignore_byte_mask(case: Any, probe: Probe) -> dict[str, Callable]:
    def on_write(trace, buffer, starts, length, data, kw):
        mask = kw.get("byte_mask")
        if mask is not None and not np.all(mask):
            probe.touched = True
            kw = dict(kw, byte_mask=None)
        return starts, data, kw
    return {"on_write": on_write}


def _stride_mutants() -> list[Mutant]:
    """One mutant per stride-like argument of any registered model (the stride taken as 1)."""
    out = []
    seen = set()
    for m in apis():
        for name in _int_args(m, lambda n: "stride" in n.lower()):
            if name in seen:
                continue
            seen.add(name)
            out.append(Mutant(
                f"{name}-ignored", f"{name} ignored (taken as 1)",
                _with_case(lambda case, n=name: {n: 1} if n in case.env and int(case.env[n]) != 1 else None),
                # an argument the model takes and ignores (`ApiModel.ignored_args`) gives an equivalent mutant
                applies=lambda model, n=name: n in {a.name for a in model.args} and n not in model.ignored_args))
    return out


def generic_mutants() -> list[Mutant]:
    return [
        Mutant("mask-words-swapped", "bitwise mask words swapped (mask[0] taken as the high 64 lanes)",
               _with_module_attr("lane_mask", _swapped_lane_mask), applies=_uses_lane_mask),
        Mutant("contiguous-mask-one-lane-short", "a contiguous mask of k lanes enables k - 1",
               _with_module_attr("lane_mask", _count_one_short), applies=_uses_lane_mask),
        Mutant("write-one-block-late", "every store lands one 32-byte block after its address",
               _with_trace(_write_late)),
        Mutant("accumulate-instead-of-overwrite", "stores add to the old contents instead of replacing them",
               _with_trace(_accumulate)),
        Mutant("byte-mask-ignored", "masked-off lanes are stored too", _with_trace(_ignore_byte_mask)),
        *_stride_mutants(),
    ]


# -- per-API mutants -----------------------------------------------------------------------------------------------

def _fill_zero(case: Any, probe: Probe) -> dict[str, Callable]:
    t = case.ctx.dtype.numpy
    fills = {"atlas-350": (np.inf,), "atlas-200i-500-a2": (65504.0, np.inf)}.get(case.product, ())

    def on_write(trace, buffer, starts, length, data, kw):
        size = np.dtype(t).itemsize
        if not fills or length % size:
            return starts, data, kw
        rows = _rows(data, starts.size, length).copy()
        vals = rows.view(t)
        hit = np.isin(vals.astype(np.float64), fills)
        if hit.any():
            probe.touched = True
            vals[hit] = 0
        return starts, rows, kw
    return {"on_write": on_write}


def _max_for_min(case: Any, probe: Probe) -> dict[str, Callable]:
    t = case.ctx.dtype.numpy

    def negate(raw: np.ndarray) -> np.ndarray:
        out = np.ascontiguousarray(raw).copy()
        v = out.reshape(-1).view(t)
        v[...] = -v
        return out

    def on_read(trace, buffer, starts, length, kw):
        probe.touched = True
        return starts, negate

    def on_write(trace, buffer, starts, length, data, kw):
        return starts, negate(_rows(data, starts.size, length)), kw
    return {"on_read": on_read, "on_write": on_write}


def _read_late(case: Any, probe: Probe) -> dict[str, Callable]:
    def on_read(trace, buffer, starts, length, kw):
        if starts.size:
            probe.touched = True
        return starts + BLOCK, None
    return {"on_read": on_read}


def _keep_products_store(old: Any, probe: Probe) -> Any:
    probe.touched = True
    return ()


def _minus_one(name: str, at_least: int = 2) -> Callable[[Any], dict[str, Any] | None]:
    return lambda case: {name: int(case.env[name]) - 1} if int(case.env.get(name, 0)) >= at_least else None


def api_mutants() -> list[Mutant]:
    brm, bil, vreg = ("BlockReduceMin",), ("BilinearInterpolation",), ("LoadAlignRegTensor",)
    return [
        Mutant("masked-block-fill-zero", "a fully masked-off block stores 0 instead of the product's fill value",
               _with_trace(_fill_zero), brm),
        Mutant("masked-block-stored", "atlas-a2/a3 store (an unspecified value) for a fully masked block instead of "
               "keeping dst", _with_module_attr("KEEP_PRODUCTS", _keep_products_store), brm, product="atlas-a2"),
        Mutant("max-instead-of-min", "each block's maximum instead of its minimum", _with_trace(_max_for_min), brm),
        Mutant("src-read-one-block-late", "every source datablock read one block after its address",
               _with_trace(_read_late), brm),
        Mutant("last-repeat-dropped", "repeatTime - 1 repeats run", _with_case(_minus_one("repeatTime")), brm),
        Mutant("repeat-mode-ignored", "repeatMode=true read like repeatMode=false",
               _with_case(lambda c: {"repeatMode": False} if c.env.get("repeatMode") else None), bil),
        Mutant("vROffset-one-block-short", "vertical iterations placed one 32-byte block too close",
               _with_case(lambda c: {"vROffset": int(c.env["vROffset"]) - BLOCK // c.ctx.dtype.size}
                          if int(c.env.get("vRepeat", 0)) >= 2 else None), bil),
        Mutant("last-vertical-iteration-dropped", "vRepeat - 1 vertical iterations run",
               _with_case(_minus_one("vRepeat")), bil),
        Mutant("dual-load-registers-swapped", "the dual load's even elements go to dstReg1, the odd to dstReg",
               _with_case(lambda c: {"dstReg": int(c.env["dstReg1"]), "dstReg1": int(c.env["dstReg"])}
                          if c.env.get("dstReg1.present") and int(c.env["dstReg"]) != int(c.env["dstReg1"])
                          else None), vreg),
        Mutant("load-read-one-block-late", "the RegTensor load reads one 32-byte block after its address",
               _with_trace(_read_late), vreg),
    ]


def all_mutants() -> list[Mutant]:
    return generic_mutants() + api_mutants()


# -- selftest ------------------------------------------------------------------------------------------------------

@dataclass
class Outcome:
    mutant: str
    api: str
    generic: bool
    status: str          # killed, survived, not exercised, error
    killed_by: str = ""
    cases: int = 0
    elapsed: float = 0.0
    message: str = ""

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)


class _NullSink:
    def start(self, *a: Any) -> None: ...
    def advance(self, *a: Any, **k: Any) -> None: ...
    def finding(self, *a: Any) -> None: ...
    def done(self, *a: Any) -> None: ...


def run_job(job: tuple[str, str, int, int]) -> Outcome:
    """One mutant against one API: a short invariants campaign over every product the API supports (in a worker
    process too, with no literal mined from source files among Hypothesis's draws)."""
    with without_mined_constants():
        return _run_job(job)


def _run_job(job: tuple[str, str, int, int]) -> Outcome:
    import time

    mutant_name, api, examples, seed = job
    model = get_api(api)
    mutant = next((m for m in all_mutants() if m.name == mutant_name), None)
    unit = Unit(api, mutant.product if mutant is not None else "*", "invariants")
    t0 = time.monotonic()
    if mutant_name == "":
        opts = RunOptions(seed=seed, examples=examples, findings=None, database=None, shrink=False, stop_on_first=True)
        res = run_item(unit, opts, _NullSink())  # the control run: the unmutated core must pass
        status = "failed" if res.findings else ("error" if res.status == "error" else "passed")
        msg = res.findings[0]["message"] if res.findings else (res.error or "")
        return Outcome("(none)", api, False, status, res.findings[0]["check"] if res.findings else "", res.cases,
                       time.monotonic() - t0, msg)
    if mutant is None:
        raise ValueError(f"unknown mutant {mutant_name!r}")
    cases = 0
    with mutant.installed(model) as probe:
        # a first short run, in which most mutants die; then the rest of the examples (a generic mutant that changed
        # nothing in the first run goes on too: 12 cases of an API with masks can all leave every lane active, and
        # such a mutant was counted "not exercised" on an API it applies to)
        first = min(examples, PROBE_EXAMPLES)
        for i, n in enumerate((first, examples - first)):
            if n <= 0:
                break
            res = run_item(unit, RunOptions(seed=seed + i, examples=n, findings=None, database=None, shrink=False,
                                            stop_on_first=True), _NullSink())
            cases += res.cases
            if res.findings or res.status == "error":
                break
    elapsed = time.monotonic() - t0
    if res.findings:
        f = res.findings[0]
        return Outcome(mutant.name, api, mutant.generic, "killed", f["check"], cases, elapsed, f["message"])
    if res.status == "error":
        return Outcome(mutant.name, api, mutant.generic, "error", "", cases, elapsed, res.error or "")
    if not probe.touched:
        if mutant.generic:
            return Outcome(mutant.name, api, True, "not exercised", "", cases, elapsed,
                           "the mutation changed nothing on this API")
        return Outcome(mutant.name, api, False, "survived", "", cases, elapsed,
                       "the mutation never changed anything: no case drawn exercised it")
    return Outcome(mutant.name, api, mutant.generic, "survived", "", cases, elapsed,
                   "the invariants did not notice the mutation")


def selftest_jobs(apis: Sequence[str], mutant_names: Sequence[str] | None, examples: int, seed: int,
                  control_examples: int) -> list[tuple[str, str, int, int]]:
    jobs = [("", a, control_examples, seed) for a in apis]
    for m in all_mutants():
        if mutant_names and m.name not in mutant_names:
            continue
        for a in apis:
            if m.for_api(get_api(a)):
                jobs.append((m.name, a, examples, seed))
    return jobs


def run_selftest(apis: Sequence[str], *, mutant_names: Sequence[str] | None = None, examples: int = 60,
                 seed: int = 0, workers: int = 1, control_examples: int = 20,
                 on_outcome: Callable[[Outcome], None] | None = None) -> list[Outcome]:
    """Every (mutant, API) job plus a control run per API; in ``workers`` processes when > 1. Hypothesis keeps its
    files in a temporary folder meanwhile (`storage.private_hypothesis_storage`), not in the current one, and draws
    no literal mined from source files (`storage.without_mined_constants`)."""
    with campaign_hypothesis():
        return _run_selftest(apis, mutant_names, examples, seed, workers, control_examples, on_outcome)


def _run_selftest(apis: Sequence[str], mutant_names: Sequence[str] | None, examples: int, seed: int, workers: int,
                  control_examples: int, on_outcome: Callable[[Outcome], None] | None) -> list[Outcome]:
    jobs = selftest_jobs(apis, mutant_names, examples, seed, control_examples)
    # the slowest first, so that workers finish together: survivors run all their examples
    out: list[Outcome] = []
    if workers <= 1:
        for j in jobs:
            o = run_job(j)
            out.append(o)
            if on_outcome:
                on_outcome(o)
        return out
    import multiprocessing

    ctx = multiprocessing.get_context("spawn")
    with start_pool(ctx, workers) as pool:  # a worker that dies ends the run (WorkerDied), not a wait forever
        for o in pool.imap_unordered(run_job, jobs):
            out.append(o)
            if on_outcome:
                on_outcome(o)
    order = {(j[0] or "(none)", j[1]): i for i, j in enumerate(jobs)}
    out.sort(key=lambda o: order.get((o.mutant, o.api), 0))
    return out


def kill_rate(outcomes: Sequence[Outcome]) -> tuple[int, int]:
    """(killed, counted): mutants not exercised and control runs are not counted."""
    counted = [o for o in outcomes if o.mutant != "(none)" and o.status != "not exercised"]
    return sum(o.status == "killed" for o in counted), len(counted)


def describe_mutants() -> list[Mapping[str, str]]:
    return [{"name": m.name, "apis": "every API it changes" if m.generic else ", ".join(m.apis or ()),
             "description": m.description} for m in all_mutants()]
