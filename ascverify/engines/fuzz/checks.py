"""The checks a campaign runs on each drawn case; a failed check raises a `Failure`.

- ``invariants``: every invariant of `ascverify.engines.properties.invariants.invariants_of` (the generic ones and
  the model's own) on a valid case; the check is named after the invariant.
- ``negative``: on a case built to break exactly one rule: the concrete checker reports exactly that
  rule (the solver that built the case, the rule's Z3 term, and its plain evaluation agree) and the
  batched checker agrees with the scalar one. The core then runs the case; how it reacts (a memory
  fault, a refusal, or silence) is recorded per rule, as a Hypothesis event ``RULE: core faults`` and
  in the report, not judged: the core may refuse an invalid case (as ``ascverify run`` allows), and a
  rule the core never notices marks where the core is looser than the documented contract.
- ``differential``: the core's outputs against a target's, for the same inputs (`compare`).

Each failure's *key* tells Hypothesis's failures apart (it raises a distinct exception type per key,
so Hypothesis shrinks each bug separately) and, with the shrunk case, identifies a finding.
"""

from __future__ import annotations

import json
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, NoReturn

import numpy as np

from ...cases.case import Case, fresh
from ...checking.checker import check_case, check_cases
from ...core.faults import unrunnable_rules
from ...core.memory import Fault, Trace
from ...cases.registers import registers_json
from ...core.run import prepare, run_case
from ...spec.dtypes import DType
from ...spec.registers import mask_bits, mask_bytes
from ..properties.invariants import GENERIC, invariants_of
from ..properties.values import ValuePlan, realize, tensor_seed
from .compare import DEFAULT_TOLERANCES, Diff, Tolerance, compare_tensor, defined_elements, tolerance_for
from .signals import TimeUp
from .targets import ANY_INDEX, REGISTER_TITLES, REGISTERS, Malformed, Target, TargetError

NEGATIVE_CHECKS = ("rejects_exactly_the_broken_rule", "batched_and_scalar_checks_agree")
DIFFERENTIAL_CHECK = "differential"


class Failure(AssertionError):
    """A check failed on a case. ``key`` identifies the bug, ``check`` the check (a JUnit testcase)."""

    def __init__(self, key: str, check: str, message: str, *, diffs: tuple[Diff, ...] = (),
                 expected: Mapping[str, np.ndarray] | None = None, actual: Mapping[str, Any] | None = None,
                 defined: Mapping[str, np.ndarray] | None = None, detail: str = "") -> None:
        super().__init__(message)
        self.detail = detail
        self.key = key
        self.check = check
        self.message = message
        self.diffs = diffs
        self.expected = dict(expected or {})
        self.actual = dict(actual or {})
        self.defined = dict(defined or {})


_TYPES: dict[str, type[Failure]] = {}


def failure_type(key: str) -> type[Failure]:
    """A subclass of Failure per key: Hypothesis tells bugs apart by exception type."""
    got = _TYPES.get(key)
    if got is None:
        name = "Failure_" + "".join(ch if ch.isalnum() else "_" for ch in key)
        got = _TYPES[key] = type(name, (Failure,), {"__module__": __name__})
    return got


def fail(key: str, check: str, message: str, **kw: Any) -> NoReturn:
    raise failure_type(key)(key, check, message, **kw)


def _short(text: str, n: int = 400) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= n else text[: n - 1] + "…"


# -- invariants ----------------------------------------------------------------------------------------------------

def invariant_names(case_or_model: Any) -> list[str]:
    """The invariants' names (the checks of an ``invariants`` unit)."""
    model = getattr(case_or_model, "model", case_or_model)
    return [inv.__name__ for inv in (*GENERIC, *getattr(model, "invariants", ()))]


def run_invariants(case: Case, seed: int, counts: dict[str, int] | None = None) -> None:
    """Every invariant on a valid case, in order; the first that fails raises its Failure."""
    for inv in invariants_of(case):
        name = inv.__name__
        if counts is not None:
            counts[name] = counts.get(name, 0) + 1
        try:
            inv(case, seed)
        except AssertionError as exc:
            fail(name, name, f"{name}: {_short(exc)}")
        except Exception as exc:  # noqa: BLE001 - a Fault or a crash inside an invariant is a finding too
            fail(f"{name}!{type(exc).__name__}", name, f"{name} raised {type(exc).__name__}: {_short(exc)}")


def value_tensors(case: Case) -> list[str]:
    """The tensors whose contents a campaign draws from value plans: inputs and outputs' old contents, except
    temporaries and tensors whose contents a rule constrains (the model builds those, e.g. offsets)."""
    structural = {t for r in case.model.rules for t in r.requires_data}
    return [d.name for d in case.model.tensors if d.role != "tmp" and d.name not in structural]


@dataclass
class CoreRun:
    """What the core did on a case: the inputs it held before the call (as its memory held them: an output that
    overlaps an input shows the input's bytes), every output tensor after it, which elements are defined and
    which written, the registers the call read (given or generated) and wrote, and the faults."""

    inputs: dict[str, np.ndarray]
    outputs: dict[str, np.ndarray]
    defined: dict[str, np.ndarray]
    written: dict[str, np.ndarray]
    registers_in: dict[str, dict[int, np.ndarray]]
    registers_out: dict[str, dict[int, np.ndarray]]
    faults: list[Fault]
    #: the target call handed over before the core ran (`Differential.prefetch`), or None
    ticket: Any = None

    def __iter__(self):  # the older 4-tuple: inputs, outputs, defined, faults
        return iter((self.inputs, self.outputs, self.defined, self.faults))

    def compares_something(self) -> bool:
        """Some written element is defined, or some register is written (the case has specified outputs)."""
        return bool(self.registers_out) or any(bool((self.defined[k] & self.written[k]).any()) for k in self.defined)


#: ``before_execute(inputs, registers_in, outputs)`` of `core_outputs`: ``outputs`` maps each output tensor to its
#: (numpy dtype, size); what it returns is kept as the run's ``ticket``.
BeforeExecute = Callable[[Mapping[str, np.ndarray], Mapping[str, Mapping[int, np.ndarray]],
                          Mapping[str, tuple[np.dtype, int]]], Any]


#: Realized tensor contents by (plan, element type, size), read-only, most recent last: Hypothesis draws a plan again
#: and again (its mutations keep a case's value plan while they change its arguments), and realizing a large tensor
#: costs milliseconds. At most `REALIZED_BYTES` bytes are kept.
_REALIZED: OrderedDict[tuple[ValuePlan, str, int], np.ndarray] = OrderedDict()
REALIZED_BYTES = 32 << 20
#: the bytes `_REALIZED` holds
_REALIZED_TOTAL = 0


def realized(plan: ValuePlan, dtype: DType, n: int) -> np.ndarray:
    """`realize` of the plan (a read-only array, shared by the callers asking for the same contents)."""
    global _REALIZED_TOTAL
    key = (plan, dtype.name, int(n))
    got = _REALIZED.get(key)
    if got is not None:
        _REALIZED.move_to_end(key)
        return got
    got = realize(plan, dtype, n)
    got.flags.writeable = False
    if got.nbytes <= REALIZED_BYTES // 4:
        _REALIZED[key] = got
        _REALIZED_TOTAL += got.nbytes
        while _REALIZED_TOTAL > REALIZED_BYTES:
            _, old = _REALIZED.popitem(last=False)
            _REALIZED_TOTAL -= old.nbytes
    return got


def core_outputs(case: Case, seed: int, values: ValuePlan | None = None, *,
                 before_execute: BeforeExecute | None = None) -> CoreRun:
    """Run the case (non-strict). ``values``: the plan for the contents of `value_tensors` the case does not give.
    ``before_execute`` is called once the inputs are laid out, before the call runs (a target can start on them)."""
    c = fresh(case)
    if case.registers:
        c.registers = {f: dict(r) for f, r in case.registers.items()}
    if values is not None:
        for name in value_tensors(c):
            t = c.tensor(name)
            if t.present and not c.has_data(name) and t.size >= 0:
                c.set_data(name, realized(tensor_seed(values, name), t.dtype, t.size))
    memory, _ = prepare(c, seed=seed)
    inputs: dict[str, np.ndarray] = {}
    for decl in c.model.tensors:
        t = c.tensor(decl.name)
        if decl.role == "tmp" or not t.present or t.addr < 0 or t.end > memory.size(t.buffer):
            continue
        inputs[decl.name] = memory.elements(t.buffer, t.addr, t.size, t.dtype)  # a copy
    regs = getattr(memory, "registers", None)
    registers_in: dict[str, dict[int, np.ndarray]] = {}
    if regs is not None:
        for file, index in c.model.input_registers(c):
            if regs.has(file, index) and regs.initialized(file, index).all():
                registers_in.setdefault(file, {})[int(index)] = regs.get(file, index)
    ticket = None
    if before_execute is not None:
        shapes = {}
        for decl in c.model.tensors:
            t = c.tensor(decl.name)
            if decl.role in ("out", "inout") and t.present and t.addr >= 0 and t.end <= memory.size(t.buffer):
                shapes[decl.name] = (np.dtype(t.dtype.numpy), int(t.size))
        ticket = before_execute(inputs, registers_in, shapes)
    trace = Trace(memory, strict=False)
    with np.errstate(all="ignore"):  # overflow to inf and NaN arithmetic are what special values are for
        c.model.execute(c, trace)
    outputs: dict[str, np.ndarray] = {}
    defined: dict[str, np.ndarray] = {}
    written: dict[str, np.ndarray] = {}
    for decl in c.model.tensors:
        if decl.role not in ("out", "inout"):
            continue
        t = c.tensor(decl.name)
        if not t.present or t.addr < 0 or t.end > memory.size(t.buffer):
            continue
        size = t.dtype.numpy.itemsize
        outputs[decl.name] = memory.elements(t.buffer, t.addr, t.size, t.dtype)
        defined[decl.name] = defined_elements(memory.state[t.buffer][t.addr:t.end], size)
        written[decl.name] = written_elements(trace, t.buffer, t.addr, t.end, size)
    registers_out: dict[str, dict[int, np.ndarray]] = {}
    if regs is not None:
        for kind, file, index, _ in trace.register_records:
            if kind == "write" and regs.has(file, index):
                registers_out.setdefault(file, {})[int(index)] = regs.get(file, index)
    return CoreRun(inputs, outputs, defined, written, registers_in, registers_out, list(trace.faults), ticket)


#: `written_elements` marks a write's bytes one by one when they are at most 1/SPARSE_WRITES of the tensor's bytes
#: (an index per byte costs about as much as a few passes over the tensor's difference array); longer ones as
#: intervals
SPARSE_WRITES = 16


def written_elements(trace: Trace, buffer: str, start: int, stop: int, itemsize: int) -> np.ndarray:
    """Per element of the tensor at bytes [start, stop) of ``buffer``: some byte of it was stored by the call (a
    write's byte mask applied). Reads only the trace's records that reach the tensor (`Trace.stored` covers the
    whole buffer, which is far larger)."""
    n = stop - start
    out = np.zeros(max(n, 0), dtype=bool)
    if n <= 0:
        return out.reshape(-1, itemsize).any(axis=1) if itemsize else out
    try:
        records = [r for r in trace.records if r.kind == "write" and r.buffer == buffer]
    except AttributeError:  # a trace without records: the whole buffer's coverage
        return np.asarray(trace.stored(buffer)[start:stop]).reshape(-1, itemsize).any(axis=1)
    los, his = [], []
    for r in records:
        starts = np.asarray(r.starts, dtype=np.int64).reshape(-1) - start
        if not starts.size or not r.length:
            continue
        if r.byte_mask is not None:  # the bytes the mask lets through
            rows, cols = np.nonzero(np.asarray(r.byte_mask).reshape(starts.size, -1))
            addrs = starts[rows] + cols
        elif starts.size * int(r.length) <= n // SPARSE_WRITES:
            # few bytes stored over a large tensor (an element per block): the bytes themselves, not an n-long sweep
            addrs = (starts[:, None] + np.arange(int(r.length))).reshape(-1)
        else:
            lo = np.clip(starts, 0, n)
            hi = np.clip(starts + int(r.length), 0, n)
            keep = hi > lo
            los.append(lo[keep])
            his.append(hi[keep])
            continue
        out[addrs[(addrs >= 0) & (addrs < n)]] = True
    if los:
        lo, hi = np.concatenate(los), np.concatenate(his)
        if lo.size <= 64:  # a few intervals: slices
            for a, b in zip(lo.tolist(), hi.tolist()):
                out[a:b] = True
        else:  # a difference array
            delta = np.bincount(lo, minlength=n + 1) - np.bincount(hi, minlength=n + 1)
            out |= np.cumsum(delta[:-1]) > 0
    return _any_byte(out, itemsize)


def _any_byte(flags: np.ndarray, itemsize: int) -> np.ndarray:
    """Per element of ``itemsize`` bytes: some byte's flag (bool per byte) is set."""
    if itemsize in (2, 4, 8) and flags.size % itemsize == 0:  # the element's flags as one word
        return np.ascontiguousarray(flags).view(np.dtype(f"u{itemsize}")) != 0
    return flags.reshape(-1, itemsize).any(axis=1)


def target_doc(case: Case, run: CoreRun | None = None, *,
               registers_in: Mapping[str, Mapping[int, np.ndarray]] | None = None) -> dict[str, Any]:
    """The case as a target receives it: the file format, with the registers the call reads (given or generated:
    ``run``'s, or ``registers_in``)."""
    doc = case.to_json()
    registers_in = run.registers_in if run is not None else registers_in
    if registers_in:
        merged = {f: dict(r) for f, r in (case.registers or {}).items()}
        for f, regs in registers_in.items():
            merged.setdefault(f, {}).update(regs)
        doc["registers"] = registers_json(merged)
    return doc


# -- negative ------------------------------------------------------------------------------------------------------

@dataclass
class NegativeOutcome:
    """How the core reacted: ``faults`` (a memory fault), ``refuses`` (raised), ``silent`` (ran cleanly), ``not run``."""

    observed: str


def run_negative(rule_id: str, case: Case, seed: int, counts: dict[str, int] | None = None) -> NegativeOutcome:
    """The checks on a case built to break exactly ``rule_id``."""
    def count(name: str) -> None:
        if counts is not None:
            counts[name] = counts.get(name, 0) + 1

    count(NEGATIVE_CHECKS[0])
    verdict = check_case(case)
    ids = [v.id for v in verdict.violations]
    if ids != [rule_id]:
        fail("negative.exactly", NEGATIVE_CHECKS[0],
             f"a case built (by the solver) to break only {rule_id} breaks {ids or 'no rule'} by the checker")
    count(NEGATIVE_CHECKS[1])
    batched = check_cases([case])[0]
    if [(v.id, v.message) for v in batched.violations] != [(v.id, v.message) for v in verdict.violations] \
            or [v.id for v in batched.warnings] != [v.id for v in verdict.warnings]:
        fail("negative.batched", NEGATIVE_CHECKS[1],
             f"batched check says {[v.id for v in batched.violations]}, scalar check says {ids}")
    rule = case.model.rule_by_id[rule_id]
    if unrunnable_rules([rule]):
        return NegativeOutcome("not run")

    try:
        res = run_case(fresh(case), seed=seed, strict=False)
        return NegativeOutcome("faults" if res.faults else "silent")
    except Fault:
        return NegativeOutcome("faults")
    except Exception:  # noqa: BLE001 - the core may refuse an invalid case outright (as `ascverify run` allows)
        return NegativeOutcome("refuses")


# -- differential --------------------------------------------------------------------------------------------------

@dataclass
class Differential:
    """Compares a target with the core. Cases that timed out once are not run again (a shrink would wait on each).

    ``exact``: every output bit for bit (``--exact``); otherwise floats within the per-type tolerances (see
    `compare`). Registers the call writes (the Reg API's MaskReg, RegTensor) always compare bit for bit.
    ``keep_unspecified``: also run the target on cases whose outputs the core leaves wholly unspecified (by
    default such a case is rejected before the target runs: it compares nothing)."""

    target: Target
    timeout: float = 10.0
    rtol: float | None = None
    atol: float | None = None
    error_ratio: float | None = None
    exact: bool = False
    keep_unspecified: bool = True
    deadline: float | None = None            # time.time() by which a call must end (a campaign's time budget)
    _timed_out: dict = field(default_factory=dict)
    #: cases that passed only by the tolerance: bit-different written elements accepted, and their largest ULP
    excused_cases: int = 0
    excused_elements: int = 0
    excused_ulp: int = 0
    _pending: Any = None                      # the `_Call` handed to the target and not yet collected

    def tolerance(self, case: Case, tensor: str) -> Tolerance | None:
        """The comparison of one output: bit for bit with --exact or for an API that moves bytes (its model's
        ``output_comparison``), else the type's tolerance, zero signs exact where the model's notes fix them
        (`ApiModel.zero_sign_specified`)."""
        how = case.model.output_comparison
        return tolerance_for(case.ctx.tensor_dtype(tensor), self.rtol, self.atol, self.error_ratio,
                             exact=self.exact or how == "moves", signed_zero=case.model.zero_sign_specified(case))

    def tolerances(self, case: Case) -> dict[str, Any]:
        out = {}
        for decl in case.model.tensors:
            if decl.role in ("out", "inout"):
                t = self.tolerance(case, decl.name)
                out[decl.name] = t.to_json() if t else "bit-exact"
        return out

    def describe(self) -> str:
        """The comparison in one line (the reports state it)."""
        if self.exact:
            return "bit-exact (--exact)"
        over = {k: v for k, v in (("rtol", self.rtol), ("atol", self.atol), ("error_ratio", self.error_ratio))
                if v is not None}
        base = "; ".join(f"{n}: rtol {t.rtol:g}, atol {t.atol:g}, error ratio {t.error_ratio:g}"
                         for n, t in DEFAULT_TOLERANCES.items() if n in ("half", "float", "bfloat16"))
        return ("floats within tolerance over the written elements (" + base + (f"; overridden: {over}" if over else "")
                + "), a written NaN or infinity must match (and the sign of a zero, for BlockReduceMax/Min), "
                  "unwritten elements, integers, registers and the loads' outputs bit-exact; --exact for bit-exact "
                  "floats")

    def _memo(self, doc: Mapping[str, Any], seed: int, values: ValuePlan | None) -> tuple[str, int, str]:
        return (json.dumps(doc, sort_keys=True), int(seed), json.dumps(values.to_json() if values else None))

    def _limit(self) -> tuple[float, bool] | None:
        """The timeout of a call made now and whether the time budget cut it (None: the budget has ended)."""
        if self.deadline is None:
            return self.timeout, False
        left = self.deadline - time.time()
        if left <= 0:
            return None
        return min(self.timeout, left), left < self.timeout

    def prefetch(self, case: Case, seed: int, values: ValuePlan | None = None) -> BeforeExecute | None:
        """A ``before_execute`` for `core_outputs` that hands the case to the target as soon as its inputs are laid
        out, so that a target working in the background (a Python target's process) computes while the core runs
        and the case is classified; `run` with that core run collects the answer. None when the target cannot."""
        if not getattr(self.target, "background", False):
            return None

        def submit(inputs: Mapping[str, np.ndarray], registers_in: Mapping[str, Mapping[int, np.ndarray]],
                   outputs: Mapping[str, tuple[np.dtype, int]]) -> _Call | None:
            doc = target_doc(case, registers_in=registers_in)
            if self._timed_out and self._memo(doc, seed, values) in self._timed_out:
                return None
            limit = self._limit()
            if limit is None:
                return None
            self.target.submit(doc, inputs, outputs, limit[0])
            self._pending = _Call(doc, limit[0], limit[1])
            return self._pending

        return submit

    def run(self, case: Case, seed: int, counts: dict[str, int] | None = None, values: ValuePlan | None = None,
            *, core: CoreRun | None = None) -> list[Diff]:
        """Compare; raise a Failure on a crash, timeout, malformed or differing output. Returns the diffs.
        `Unspecified` when the case compares nothing and ``keep_unspecified`` is off (the target is not run).
        A ``core`` run made with `prefetch` has handed the case to the target already: its answer is collected."""
        run = core if core is not None else core_outputs(case, seed, values)
        expected, defined = run.outputs, run.defined
        kw = {"expected": expected, "defined": defined}
        if run.faults:
            fail("core.fault", DIFFERENTIAL_CHECK,
                 f"the core faulted on a valid case: {_short('; '.join(str(f) for f in run.faults[:3]))}", **kw)
        if not self.keep_unspecified and not run.compares_something():
            raise Unspecified()
        if counts is not None:
            counts[DIFFERENTIAL_CHECK] = counts.get(DIFFERENTIAL_CHECK, 0) + 1
        ticket = run.ticket
        if ticket is not None and ticket is self._pending:  # handed over before the core ran
            self._pending = None
            doc, timeout, cut = ticket.doc, ticket.timeout, ticket.cut
            call = self.target.collect
        else:
            doc = target_doc(case, run)
            if self._timed_out:
                memo = self._memo(doc, seed, values)
                if memo in self._timed_out:
                    fail("differential.timeout", DIFFERENTIAL_CHECK, self._timed_out[memo], **kw)
            limit = self._limit()
            if limit is None:
                raise TimeUp()
            timeout, cut = limit
            spec = {name: (arr.dtype, arr.size) for name, arr in expected.items()}
            call = lambda: self.target.run(doc, run.inputs, spec, timeout)  # noqa: E731
        try:
            actual = call()
        except TargetError as exc:
            if exc.kind == "timeout" and cut:
                raise TimeUp() from None  # the budget ended the call, not the target's own timeout
            first = exc.message.strip().splitlines()[0] if exc.message.strip() else exc.kind
            message = f"the target {'timed out' if exc.kind == 'timeout' else 'failed'}: {_short(first, 600)}"
            if exc.kind == "timeout" and timeout >= self.timeout:
                self._timed_out[self._memo(doc, seed, values)] = message
            fail(f"differential.{exc.kind}", DIFFERENTIAL_CHECK, message, detail=exc.message, **kw)
        diffs: list[Diff] = []
        for name, exp in expected.items():
            got = actual.get(name)
            dtype = case.ctx.tensor_dtype(name)
            if isinstance(got, Malformed):
                diffs.append(Diff(name, False, "shape", got.message))
                continue
            diffs.append(compare_tensor(name, dtype, exp, got, defined.get(name), self.tolerance(case, name),
                                        written=run.written.get(name),
                                        nan_bits=case.model.output_comparison == "moves",
                                        zero_sign=case.model.zero_sign_specified(case)))
        if run.registers_out:
            diffs.extend(compare_registers(run.registers_out, actual.get(REGISTERS)))
        bad = [d for d in diffs if not d.ok]
        if not bad:  # passed: were some written elements accepted only by the tolerance?
            excused = sum(d.excused for d in diffs)
            if excused:
                self.excused_cases += 1
                self.excused_elements += excused
                self.excused_ulp = max([self.excused_ulp] + [d.max_ulp or 0 for d in diffs if d.excused])
        if bad:
            first = bad[0]
            what = first.tensor if first.tensor in expected else first.tensor.rstrip("0123456789")  # mask3 -> mask
            fail(f"differential.{first.kind}:{what}", DIFFERENTIAL_CHECK,
                 "; ".join(d.message for d in bad), diffs=tuple(diffs), actual=_plain_actual(actual), **kw)
        return diffs


@dataclass(eq=False)
class _Call:
    """A target call handed over before the core ran: the case as sent, its timeout, whether the budget cut it."""

    doc: dict[str, Any]
    timeout: float
    cut: bool


class Unspecified(Exception):
    """The core leaves every output of the case unspecified: a differential comparison would compare nothing."""


def _plain_actual(actual: Mapping[str, Any]) -> dict[str, Any]:
    """The target's answer as arrays to save (registers as one byte array per register, ``mask3``)."""
    out = {k: v for k, v in actual.items() if k != REGISTERS}
    regs = actual.get(REGISTERS)
    if isinstance(regs, Mapping):
        for f, entries in regs.items():
            if isinstance(entries, Mapping):
                for i, raw in entries.items():
                    out[f"{f}{i}"] = raw
    return out


def _register_diff(name: str, file: str, exp_b: np.ndarray, raw: np.ndarray) -> Diff:
    """One register against the target's bytes, bit for bit: a MaskReg shown by its bits (one per lane), a vector
    register by its bytes (a sign extension or a swapped half reads as a byte pattern, not as runs of bits)."""
    if file == "mask":
        exp, got, unit = mask_bits(exp_b), mask_bits(raw), "bit"
    else:
        exp, got, unit = exp_b, raw, "byte"
    bad = np.flatnonzero(exp != got)
    d = Diff(name, not bad.size, "ok" if not bad.size else "mismatch", f"{name}: {exp.size} {unit}s match",
             exp.size, int(bad.size), written=exp.size, mode="bit-exact")
    if bad.size:
        d.first = tuple({"index": int(b), "expected": int(exp[b]), "actual": int(got[b]), "unit": unit}
                        for b in bad[:8])
        shown = (lambda x: str(int(x))) if unit == "bit" else (lambda x: f"0x{int(x):02x}")
        where = ", ".join(f"{unit} {int(b)} expected {shown(exp[b])} got {shown(got[b])}" for b in bad[:3])
        d.message = f"{name}: {bad.size} of {exp.size} {unit}s differ (bit-exact): {where}"
    return d


def compare_registers(expected: Mapping[str, Mapping[int, np.ndarray]], actual: Any) -> list[Diff]:
    """Each register the call wrote against the target's (bit for bit); ``actual`` is {file: {index: bytes}}."""
    out: list[Diff] = []
    for f, entries in expected.items():
        for i, exp in entries.items():
            name = f"{f}{i}"
            got = None
            if isinstance(actual, Mapping) and isinstance(actual.get(f), Mapping):
                got = actual[f].get(i)
                if got is None and len(entries) == 1:
                    got = actual[f].get(ANY_INDEX)
            if got is None:
                out.append(Diff(name, False, "missing", f"{name}: the target returned no {REGISTER_TITLES.get(f, f)} "
                                                        f"{i} (the call writes it)"))
                continue
            if isinstance(got, Malformed):
                out.append(Diff(name, False, "shape", got.message))
                continue
            raw = np.asarray(got)
            exp_b = np.asarray(exp, dtype=np.uint8).reshape(-1)
            if raw.dtype == bool and raw.size == exp_b.size * 8:
                raw = mask_bytes(raw)
            try:
                raw = np.ascontiguousarray(raw).reshape(-1).view(np.uint8)
            except ValueError:
                raw = np.zeros(0, np.uint8)
            if raw.size != exp_b.size:
                out.append(Diff(name, False, "shape", f"{name}: {raw.size} bytes but the register holds {exp_b.size}"))
                continue
            out.append(_register_diff(name, f, exp_b, raw))
    return out
