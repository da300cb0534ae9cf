"""Simulated byte-addressed on-chip memory and a per-call access recorder that detects faults.

``Memory`` holds one uint8 array per physical buffer plus a shadow state per byte
(uninitialized / initialized / poison).  ``Trace`` records the reads and writes one API call
makes, checks each access (alignment, bounds, initialization, poison, write-after-read hazards
across iterations, overlapping exclusive writes) and applies the writes to the memory. It keeps each access
call's rows as intervals (`core.intervals`): bytes move through strided views or granule indices, and a write is
compared byte by byte only with the earlier accesses whose intervals meet it.

A trace may also know the call's *declared tensors* (``Trace(memory, declared={name: (buffer,
start, stop)})`` or `Trace.declare`): an access tagged ``tensor=NAME`` then faults as
``out_of_bounds`` when it leaves that tensor's bytes, even inside the buffer (a scratch buffer
written past its end clobbers its neighbours). Untagged accesses, and tags of undeclared tensors,
are checked against the buffer only.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Any, Iterator, Mapping

import numpy as np
from numpy.typing import ArrayLike, DTypeLike

from ..spec.dtypes import DType
from .faults import FAULT_KINDS, Fault, address_text
from .intervals import ITER_MAX, ITER_MIN, Rows, all_equal, cover, gather, scatter, window_reduce
from .registers import Registers, access

__all__ = [
    "UNINITIALIZED", "INITIALIZED", "POISON", "FAULT_KINDS",
    "Fault", "Memory", "AccessRecord", "Trace",
]

#: Shadow state of a byte.
UNINITIALIZED, INITIALIZED, POISON = 0, 1, 2
#: Faults of a read whose value the hardware leaves unspecified: what the call computes from it is too
#: (`Trace.poison_results`).
TAINTING_READS = ("uninitialized", "poison")

_I64, _U8 = np.dtype(np.int64), np.dtype(np.uint8)


def _little_endian(arr: np.ndarray) -> np.ndarray:
    """``arr`` with a little-endian (or byte-order-free) dtype."""
    order = arr.dtype.byteorder
    if order == ">" or (order == "=" and sys.byteorder == "big"):
        return arr.astype(arr.dtype.newbyteorder("<"))
    return arr


def _raw_bytes(data: Any) -> np.ndarray:
    """The raw little-endian bytes of ``data`` as a flat uint8 array."""
    if isinstance(data, (bytes, bytearray, memoryview)):
        return np.frombuffer(data, dtype=np.uint8)
    arr = _little_endian(np.asarray(data))
    return np.ascontiguousarray(arr.reshape(-1)).view(np.uint8)


def _decode(raw: np.ndarray, dtype: DTypeLike) -> np.ndarray:
    """A fresh array decoding the little-endian bytes ``raw`` as ``dtype``."""
    dt = np.dtype(dtype)
    order = dt.byteorder
    if order == ">" or (order == "=" and sys.byteorder == "big"):
        return raw.view(dt.newbyteorder("<")).astype(dt)
    return np.ascontiguousarray(raw).view(dt).copy()


class ZeroedBuffers(Mapping[str, np.ndarray]):
    """Buffer name -> its bytes (uint8, zeroed), each array allocated when first asked for: a call touches one or two
    of a product's buffers, and allocating all of them (twice, with the state shadow) was most of preparing a case.
    Iterating and ``in`` see every buffer of ``sizes``; an unknown name is a KeyError."""

    __slots__ = ("sizes", "_arrays")

    def __init__(self, sizes: Mapping[str, int], arrays: dict[str, np.ndarray] | None = None) -> None:
        self.sizes = sizes
        self._arrays: dict[str, np.ndarray] = {} if arrays is None else arrays

    def __getitem__(self, name: str) -> np.ndarray:
        got = self._arrays.get(name)
        if got is None:
            got = self._arrays[name] = np.zeros(self.sizes[name], np.uint8)
        return got

    def __iter__(self) -> Iterator[str]:
        return iter(self.sizes)

    def __len__(self) -> int:
        return len(self.sizes)

    def __contains__(self, name: object) -> bool:
        return name in self.sizes

    def copy(self) -> "ZeroedBuffers":
        """A deep copy (of the arrays allocated so far; the others stay zero)."""
        return ZeroedBuffers(self.sizes, {n: a.copy() for n, a in self._arrays.items()})


class Memory:
    """Byte-addressed on-chip buffers with a per-byte initialization/poison shadow."""

    def __init__(self, sizes: Mapping[str, int]) -> None:
        self.sizes: dict[str, int] = {}
        for name, size in sizes.items():
            size = int(size)
            if size < 0:
                raise ValueError(f"buffer {name!r} has negative size {size}")
            self.sizes[name] = size
        self.buffers = ZeroedBuffers(self.sizes)
        self.state = ZeroedBuffers(self.sizes)
        #: special-purpose registers that configuration calls set and later calls read
        #: (the vector mask, the feature map of SetFmatrix, the LoadDataWithStride repeat); name -> value
        self.special: dict[str, Any] = {}
        #: the Reg API register file (`core.registers.Registers`), or None (the product has none)
        self.registers: Any = None

    @classmethod
    def for_product(cls, product: Any) -> "Memory":
        """Memory with the buffers (and sizes) of ``product``, and its Reg API register file (None where it has none)."""
        memory = cls(product.physical_buffers())
        memory.registers = Registers.for_product(product)
        return memory

    def size(self, buffer: str) -> int:
        """Bytes of ``buffer`` (0 when the product has none); KeyError for an unknown name."""
        try:
            return self.sizes[buffer]
        except KeyError:
            raise KeyError(f"unknown buffer {buffer!r} (known: {', '.join(self.sizes)})") from None

    def _span(self, buffer: str, addr: int, nbytes: int, access: str) -> slice:
        size = self.size(buffer)
        addr, nbytes = int(addr), int(nbytes)
        if nbytes < 0:
            raise ValueError(f"negative byte count {nbytes}")
        if size == 0:
            raise Fault("no_buffer", buffer, addr, addr + nbytes, None, access=access,
                        detail=f"{buffer} does not exist on this product")
        stop = addr + nbytes
        if addr < 0 or stop > size:
            first = addr if addr < 0 else max(addr, size)
            last = stop if stop > size else min(stop, 0)
            raise Fault("out_of_bounds", buffer, first, last, None, access=access,
                        detail=f"[0x{addr:x}, 0x{stop:x}) leaves the {size}-byte buffer")
        return slice(addr, stop)

    def fill(self, buffer: str, addr: int, data: Any) -> None:
        """Store the raw little-endian bytes of ``data`` at ``addr`` and mark them initialized."""
        raw = _raw_bytes(data)
        span = self._span(buffer, addr, raw.size, "fill")
        self.buffers[buffer][span] = raw
        self.state[buffer][span] = INITIALIZED

    def view(self, buffer: str, addr: int, nbytes: int) -> np.ndarray:
        """A copy of ``nbytes`` raw bytes at ``addr``."""
        return self.buffers[buffer][self._span(buffer, addr, nbytes, "view")].copy()

    def typed(self, buffer: str, addr: int, count: int, dtype: DTypeLike) -> np.ndarray:
        """A copy of ``count`` elements of ``dtype`` (little-endian) at ``addr``."""
        nbytes = int(count) * np.dtype(dtype).itemsize
        return _decode(self.buffers[buffer][self._span(buffer, addr, nbytes, "view")], dtype)  # _decode copies

    def store(self, buffer: str, addr: int, dtype: DType, values: Any) -> None:
        """Store ``values`` as elements of ``dtype`` at ``addr`` (`DType.to_bytes`: int4b_t packed two per byte)."""
        self.fill(buffer, addr, dtype.to_bytes(values))

    def elements(self, buffer: str, addr: int, count: int, dtype: DType) -> np.ndarray:
        """A copy of ``count`` elements of ``dtype`` at ``addr`` (`DType.from_bytes`)."""
        return dtype.from_bytes(self.buffers[buffer][self._span(buffer, addr, dtype.nbytes(count), "view")], count)

    def initialized(self, buffer: str, addr: int, nbytes: int) -> np.ndarray:
        """Per byte: holds a defined value (initialized and not poison)."""
        return self.state[buffer][self._span(buffer, addr, nbytes, "view")] == INITIALIZED

    def poisoned(self, buffer: str, addr: int, nbytes: int) -> np.ndarray:
        """Per byte: written with an unspecified value."""
        return self.state[buffer][self._span(buffer, addr, nbytes, "view")] == POISON

    def snapshot(self) -> "Memory":
        """A deep copy."""
        copy = Memory.__new__(Memory)
        copy.sizes = dict(self.sizes)
        copy.buffers = self.buffers.copy()
        copy.state = self.state.copy()
        copy.special = dict(getattr(self, "special", {}))
        regs = getattr(self, "registers", None)
        copy.registers = None if regs is None else regs.snapshot()
        return copy


@dataclass(frozen=True, eq=False)
class AccessRecord:
    """One recorded read or write: ``starts.size`` intervals of ``length`` bytes."""

    kind: str
    buffer: str
    starts: np.ndarray
    length: int
    iterations: np.ndarray
    what: str = ""
    align: int = 1
    byte_mask: np.ndarray | None = None
    exclusive: bool = False
    #: the declared tensor the access was tagged with ("" when untagged)
    tensor: str = ""


def _record(kind: str, buffer: str, starts: np.ndarray, length: int, iterations: np.ndarray, what: str, align: int,
            byte_mask: np.ndarray | None = None, exclusive: bool = False, tensor: str = "") -> AccessRecord:
    """An `AccessRecord` with these fields. The frozen dataclass's own ``__init__`` sets each field through
    ``object.__setattr__``; filling the instance dict at once is about three times faster (two records per call)."""
    record = object.__new__(AccessRecord)
    record.__dict__.update(kind=kind, buffer=buffer, starts=starts, length=length, iterations=iterations, what=what,
                           align=align, byte_mask=byte_mask, exclusive=exclusive, tensor=tensor)
    return record


class _Access:
    """A normalized access: its rows, and (computed only when asked) the per-byte addresses of the slow paths."""

    __slots__ = ("buffer", "size", "rows", "starts", "its", "length", "n", "any_oob", "window", "_idx", "_valid")

    def __init__(self, buffer: str, size: int, rows: Rows) -> None:
        self.buffer, self.size, self.rows = buffer, size, rows
        self.starts, self.its, self.length, self.n = rows.starts, rows.its, rows.length, rows.n
        lo, hi = rows.lo, rows.hi
        self.any_oob = bool(rows.n) and (size == 0 or lo < 0 or hi > size)
        #: the bytes ``[a, b)`` of the buffer the rows may touch
        self.window = (lo if lo > 0 else 0, hi if hi < size else size)
        self._idx: np.ndarray | None = None
        self._valid: np.ndarray | None = None

    @property
    def idx(self) -> np.ndarray:
        """(n, length) int64 byte addresses."""
        if self._idx is None:
            self._idx = self.rows.byte_index()
        return self._idx

    @property
    def valid(self) -> np.ndarray:
        """(n, length) bool: byte inside the buffer."""
        if self._valid is None:
            self._valid = ((self.idx >= 0) & (self.idx < self.size) if self.any_oob
                           else np.ones((self.n, self.length), dtype=bool))
        return self._valid

    @property
    def idxc(self) -> np.ndarray:
        """``idx`` clipped into the buffer (usable as an index)."""
        return np.clip(self.idx, 0, max(self.size - 1, 0)) if self.any_oob else self.idx


class Trace:
    """Records one call's accesses; checks them; applies writes.

    The bookkeeping is by intervals: each access call's rows are kept (`core.intervals.Rows`), and a write is
    compared per byte only with the earlier accesses whose rows meet it (hazards, exclusive footprints, writes
    of two iterations to one byte). Footprints and stored bytes are computed from the records when asked.
    """

    def __init__(self, memory: Memory, strict: bool = True, *, max_faults: int | None = 16,
                 declared: Mapping[str, tuple[str, int, int]] | None = None) -> None:
        """``max_faults``: in non-strict mode, faults kept per kind per access call (None: all).
        ``declared``: tensor name -> (buffer, start, stop) byte extent (see `declare`)."""
        self.memory = memory
        self.strict = strict
        self.max_faults = max_faults
        self.faults: list[Fault] = []
        self.records: list[AccessRecord] = []
        #: Faults found but not kept because of ``max_faults``.
        self.suppressed = 0
        # per buffer: the rows of the recorded reads, writes and exclusive writes (in-buffer buffers only)
        self._reads: dict[str, list[Rows]] = {}
        self._writes: dict[str, list[Rows]] = {}
        self._excl: dict[str, list[Rows]] = {}
        self._overlap: dict[str, bool] = {}
        #: Register accesses, in order: (kind "read"/"write", file, index, what) (see `read_register`).
        self.register_records: list[tuple[str, str, int, str]] = []
        #: Results of the call that are neither memory nor registers, by name (e.g. an updated pointer).
        self.outputs: dict[str, Any] = {}
        #: The call's tensors: name -> (buffer, start, stop) byte extent; accesses tagged ``tensor=name``
        #: must stay inside it (see `declare`).
        self.declared: dict[str, tuple[str, int, int]] = {}
        for name, extent in (declared or {}).items():
            self.declare(name, *extent)

    # ----------------------------------------------------------------- declared tensors
    def declare(self, name: str, buffer: str, start: int, stop: int) -> None:
        """Declare tensor ``name`` as the bytes ``[start, stop)`` of ``buffer``: a read or write tagged
        ``tensor=name`` that touches a byte outside them faults as ``out_of_bounds`` (one fault per access
        call, naming the bytes past the end or before the start). A later declaration replaces an earlier one."""
        self.memory.size(buffer)  # KeyError for an unknown buffer
        start, stop = int(start), int(stop)
        if stop < start:
            raise ValueError(f"tensor {name!r} declared with stop {stop} < start {start}")
        self.declared[name] = (buffer, start, stop)

    # ----------------------------------------------------------------- registers
    def read_register(self, file: str, index: int, *, what: str = "") -> np.ndarray:
        """Check and record the read of a whole register of ``memory.registers`` (file "vreg", "mask" or
        "addr", see `core.registers`); its bytes, zeros where the read faults. Faults: no_buffer (the product
        has no register file), out_of_bounds (no such register), uninitialized (bytes never written)."""
        regs = getattr(self.memory, "registers", None)
        nbytes, faults = access(regs, file, index, "read", what)
        found: list[Fault] = []
        self.register_records.append(("read", file, int(index), what))
        if faults:
            self._emit(found, faults, len(faults))
            self.faults.extend(found)
            return np.zeros(nbytes, np.uint8)
        fresh = ~regs.initialized(file, index)
        if fresh.any():
            self._emit(found, [Fault("uninitialized", f"{file}{index}", int(np.flatnonzero(fresh)[0]), nbytes, None,
                                     what, access="read",
                                     detail=f"reads {int(fresh.sum())} uninitialized byte(s) of {regs.spec(file).title} "
                                            f"{index}")], 1)
        self.faults.extend(found)
        return regs.get(file, index)

    def write_register(self, file: str, index: int, data: Any, *, what: str = "") -> None:
        """Check, record and apply the write of a whole register (the raw little-endian bytes of ``data``)."""
        regs = getattr(self.memory, "registers", None)
        nbytes, faults = access(regs, file, index, "write", what)
        found: list[Fault] = []
        self.register_records.append(("write", file, int(index), what))
        if faults:
            self._emit(found, faults, len(faults))
            self.faults.extend(found)
            return
        regs.fill(file, index, data)

    def registers_touched(self, kind: str) -> list[str]:
        """Names ("mask0", "vreg3") of the registers read or written (``kind``), in first-access order."""
        return list(dict.fromkeys(f"{f}{i}" for k, f, i, _ in self.register_records if k == kind))

    # ----------------------------------------------------------------- footprints (from the records)
    def footprint(self, kind: str, buffer: str) -> np.ndarray:
        """Per byte of ``buffer``: touched by a recorded access of ``kind`` ("read"/"write"), whole intervals."""
        if kind not in ("read", "write"):
            raise ValueError(f"kind must be 'read' or 'write', not {kind!r}")
        size = self.memory.size(buffer)
        return cover(size, ((r.starts, r.length) for r in self.records if r.kind == kind and r.buffer == buffer))

    def stored(self, buffer: str) -> np.ndarray:
        """Per byte of ``buffer``: actually stored by a recorded write (byte mask applied)."""
        size = self.memory.size(buffer)
        writes = [r for r in self.records if r.kind == "write" and r.buffer == buffer]
        out = cover(size, ((r.starts, r.length) for r in writes if r.byte_mask is None))
        for r in writes:
            if r.byte_mask is None or not r.starts.size or not r.length:
                continue
            rows, cols = np.nonzero(r.byte_mask)
            addrs = r.starts[rows] + cols
            out[addrs[(addrs >= 0) & (addrs < size)]] = True
        return out

    def poison_results(self) -> bool:
        """After the call: when it read a byte no call wrote or one the hardware left unspecified (an uninitialized
        or poison fault), every byte and register it stored becomes unspecified too (poison; a register: not
        initialized), since which of its results depend on that byte is not traced: none is shown as a number.
        Whether it did."""
        if not any(f.kind in TAINTING_READS and f.access == "read" for f in self.faults):
            return False
        for buffer in dict.fromkeys(r.buffer for r in self.records if r.kind == "write"):
            if buffer in self.memory.state:
                self.memory.state[buffer][self.stored(buffer)] = POISON
        regs = getattr(self.memory, "registers", None)
        if regs is not None:
            for kind, file, index, _ in self.register_records:
                if kind == "write" and regs.has(file, index):
                    regs.forget(file, index)
        return True

    def write_overlap(self, buffer: str) -> bool:
        """Whether write footprints of two different iterations shared a byte of ``buffer``."""
        self.memory.size(buffer)
        return self._overlap.get(buffer, False)

    def regions(self, kind: str, buffer: str) -> list[tuple[int, int]]:
        """Merged ``[start, stop)`` byte intervals of ``buffer`` touched by accesses of ``kind``."""
        foot = self.footprint(kind, buffer).view(np.int8)
        edges = np.diff(np.concatenate(([0], foot, [0])))
        starts = np.flatnonzero(edges == 1)
        stops = np.flatnonzero(edges == -1)
        return [(int(a), int(b)) for a, b in zip(starts, stops)]

    # ----------------------------------------------------------------------------- checks
    def _emit(self, found: list[Fault], faults: list[Fault], total: int) -> None:
        """Keep ``faults`` (``total`` were found); in strict mode raise the first."""
        if not total:
            return
        if self.strict:
            self.faults.append(faults[0])
            raise faults[0]
        found.extend(faults)
        self.suppressed += total - len(faults)

    def _limit(self, rows: np.ndarray) -> np.ndarray:
        if self.strict:
            return rows[:1]
        return rows if self.max_faults is None else rows[: self.max_faults]

    def _prepare(self, buffer: str, starts: ArrayLike, length: int, iteration: ArrayLike,
                 align: int) -> _Access:
        size = self.memory.sizes.get(buffer)
        if size is None:
            size = self.memory.size(buffer)  # KeyError naming the known buffers
        step = None
        if type(starts) is range:   # evenly stepping: no need to check the spacing
            raw, step = np.arange(starts.start, starts.stop, starts.step, dtype=_I64), starts.step
        else:
            raw = starts if type(starts) is np.ndarray else np.asarray(starts)
            if raw.dtype is not _I64 and raw.dtype != _I64:
                if raw.size and raw.dtype.kind not in "iu":
                    raise TypeError(f"starts must be integers, not {raw.dtype}")
                raw = raw.astype(np.int64)
        flat = raw if raw.ndim == 1 else raw.reshape(-1)
        if type(iteration) is np.ndarray and (iteration.dtype is _I64 or iteration.dtype == _I64):
            its = iteration
        elif type(iteration) is range:
            its = np.arange(iteration.start, iteration.stop, iteration.step, dtype=_I64)
        else:
            its = np.asarray(iteration, dtype=np.int64)
        if its.shape != raw.shape:
            if its.ndim == 0:
                its = np.full(raw.shape, its, dtype=np.int64)
            else:
                try:
                    its = np.broadcast_to(its, raw.shape)
                except ValueError:
                    raise ValueError(f"iteration of shape {np.shape(iteration)} does not broadcast to "
                                     f"starts of shape {raw.shape}") from None
        if its.ndim != 1:
            its = its.reshape(-1)
        length, align = int(length), int(align)
        if length < 0:
            raise ValueError(f"negative access length {length}")
        if align < 1:
            raise ValueError(f"alignment must be >= 1, not {align}")
        return _Access(buffer, size, Rows(flat, length, its, step))

    def _check_placement(self, acc: _Access, align: int, access: str, what: str,
                         found: list[Fault]) -> None:
        """no_buffer, misaligned and out_of_bounds, per access."""
        starts, its, length, size, buffer = acc.starts, acc.its, acc.length, acc.size, acc.buffer
        if not starts.size:
            return
        if size == 0:
            rows = self._limit(np.arange(starts.size))
            self._emit(found, [Fault("no_buffer", buffer, starts[r], starts[r] + length, its[r], what,
                                     access=access, detail=f"{buffer} does not exist on this product")
                               for r in rows], starts.size)
            return
        if align > 1 and not self._aligned(acc.rows, align):
            bad = np.flatnonzero(starts % align)
            self._emit(found, [Fault("misaligned", buffer, starts[r], starts[r] + length, its[r], what,
                                     access=access, detail=f"needs {align}-byte alignment")
                               for r in self._limit(bad)], bad.size)
        if acc.any_oob:
            lo, hi = starts, starts + length
            bad = np.flatnonzero((lo < 0) | (hi > size))
            faults = []
            for r in self._limit(bad):
                first = lo[r] if lo[r] < 0 else max(lo[r], size)
                last = hi[r] if hi[r] > size else min(hi[r], 0)
                faults.append(Fault("out_of_bounds", buffer, first, last, its[r], what, access=access,
                                    detail=f"[0x{lo[r]:x}, 0x{hi[r]:x}) leaves the {size}-byte buffer"))
            self._emit(found, faults, bad.size)

    @staticmethod
    def _aligned(rows: Rows, align: int) -> bool:
        """Every start is a multiple of ``align`` (False: some may not be; the caller looks row by row)."""
        if rows.step is not None:
            return int(rows.starts[0]) % align == 0 and rows.step % align == 0
        if align & (align - 1) == 0:
            return int(np.bitwise_or.reduce(rows.starts)) & (align - 1) == 0
        return False

    def _check_tensor(self, acc: _Access, tensor: str | None, access: str, what: str, found: list[Fault]) -> None:
        """out_of_bounds when an access tagged with a declared tensor leaves its bytes (rows already out of the
        buffer are left to the buffer check): one fault per access call, counting the distinct bytes outside."""
        if tensor is None or tensor not in self.declared or not acc.starts.size or not acc.length:
            return
        buffer, lo_t, hi_t = self.declared[tensor]
        if buffer != acc.buffer:
            raise ValueError(f"an access tagged {tensor!r} is in {acc.buffer}, but {tensor} is declared in {buffer}")
        if acc.rows.lo >= lo_t and acc.rows.hi <= hi_t:
            return
        lo, hi = acc.starts, acc.starts + acc.length
        bad = (lo >= 0) & (hi <= acc.size) & ((lo < lo_t) | (hi > hi_t))
        if not bad.any():
            return
        rows = np.flatnonzero(bad)
        idx = lo[rows][:, None] + np.arange(acc.length, dtype=np.int64)
        past, before = np.unique(idx[idx >= hi_t]), np.unique(idx[idx < lo_t])
        verb = "writes" if access == "write" else "reads"
        parts = [f"{n} byte{'' if n == 1 else 's'} {where}" for n, where in
                 ((past.size, "past the end"), (before.size, "before the start")) if n]
        outside = np.concatenate((before, past))
        self._emit(found, [Fault("out_of_bounds", acc.buffer, int(outside.min()), int(outside.max()) + 1,
                                 acc.its[rows[0]], what, access=access,
                                 detail=f"{verb} {' and '.join(parts)} of {tensor} (declared {hi_t - lo_t} "
                                        f"byte{'' if hi_t - lo_t == 1 else 's'} at {address_text(buffer, lo_t)})")], 1)

    def _check_bytes(self, acc: _Access, bad: np.ndarray, kind: str, access: str, what: str,
                     found: list[Fault], detail: Any) -> None:
        """One fault per access with an offending byte; ``detail(row, bad_columns)`` words it."""
        rows = np.flatnonzero(bad.any(axis=1))
        if not rows.size:
            return
        faults = []
        for r in self._limit(rows):
            cols = np.flatnonzero(bad[r])
            start = int(acc.starts[r])
            faults.append(Fault(kind, acc.buffer, start + int(cols[0]), start + int(cols[-1]) + 1,
                                acc.its[r], what, access=access, detail=detail(r, cols)))
        self._emit(found, faults, rows.size)

    def _check_state(self, acc: _Access, state: np.ndarray, what: str, found: list[Fault]) -> None:
        """uninitialized and poison bytes read (``state``: the per-byte states of the rows, (n, length))."""
        valid = acc.valid
        self._check_bytes(acc, valid & (state == UNINITIALIZED), "uninitialized", "read", what,
                          found, lambda r, cols: f"reads {cols.size} uninitialized byte(s)")
        self._check_bytes(acc, valid & (state == POISON), "poison", "read", what, found,
                          lambda r, cols: f"reads {cols.size} poisoned byte(s)")

    def _window_index(self, acc: _Access, a: int, b: int) -> np.ndarray:
        """The rows' byte addresses relative to ``a``, clipped into ``[0, b - a)`` (out-of-buffer bytes are masked
        by ``acc.valid`` wherever this is used)."""
        idx = acc.rows.byte_index(a)
        return np.clip(idx, 0, b - a - 1) if acc.any_oob else idx

    def _check_hazard(self, acc: _Access, mask: np.ndarray | None, what: str, found: list[Fault]) -> None:
        """hazard: a byte the write stores (in the buffer, under ``mask``) was read at a later iteration (by an
        earlier access call)."""
        reads = self._reads.get(acc.buffer)
        if not reads or not acc.n or not acc.length:
            return
        a, b = acc.window
        if a >= b:
            return
        near = [r for r in reads if r.meets(a, b)]
        if not near:
            return
        wmin = acc.rows.it_min
        near = [r for r in near if r.it_max > wmin]
        if not near:
            return
        last = window_reduce(near, a, b, np.maximum, ITER_MIN, select=lambda r: r.its > wmin)
        if last is None:
            return
        read_at = last[self._window_index(acc, a, b)]
        bad = read_at > acc.its[:, None]
        bad &= acc.valid if mask is None else acc.valid & mask
        self._check_bytes(acc, bad, "hazard", "write", what, found,
                          lambda r, cols: f"overwrites {cols.size} byte(s) read at iteration "
                                          f"{int(read_at[r, cols].max())}")

    def _bounds(self, table: dict[str, list[Rows]], acc: _Access) -> tuple[np.ndarray, np.ndarray] | None:
        """Per byte of the access (n, length): lowest and highest iteration of the rows of ``table`` and of the
        access itself covering it; None when no two rows share a byte (then both are the row's own iteration)."""
        a, b = acc.window
        if a >= b:
            return None
        prior = [r for r in table.get(acc.buffer, ()) if r.meets(a, b)]
        if not prior and acc.rows.disjoint():
            return None
        groups = prior + [acc.rows]
        lo = window_reduce(groups, a, b, np.minimum, ITER_MAX)
        if lo is None:  # no row has a byte in the buffer (rows sharing bytes outside it): none shares one inside
            return None
        hi = window_reduce(groups, a, b, np.maximum, ITER_MIN)
        idx = self._window_index(acc, a, b)
        return lo[idx], hi[idx]

    def _check_exclusive(self, acc: _Access, what: str, found: list[Fault]) -> None:
        """overlap: a byte of the write is in the exclusive footprint of another iteration."""
        bounds = self._bounds(self._excl, acc)
        if bounds is None:
            return
        lo_at, hi_at = bounds
        its_col = acc.its[:, None]

        def other(r: int, cols: np.ndarray) -> str:
            c = cols[0]
            j = lo_at[r, c] if lo_at[r, c] != acc.its[r] else hi_at[r, c]
            return f"shares {cols.size} byte(s) with the exclusive footprint of iteration {int(j)}"

        self._check_bytes(acc, acc.valid & ((lo_at != its_col) | (hi_at != its_col)), "overlap",
                          "write", what, found, other)

    def _note_overlap(self, acc: _Access) -> None:
        """Remember when a write shares a byte with a write (earlier or in the same call) of another iteration."""
        if self._overlap.get(acc.buffer, False):
            return
        bounds = self._bounds(self._writes, acc)
        if bounds is not None:
            lo_at, hi_at = bounds
            self._overlap[acc.buffer] = bool(np.any((lo_at != hi_at) & acc.valid))

    # ---------------------------------------------------------------------------- accesses
    def read(self, buffer: str, starts: ArrayLike, length: int, iteration: ArrayLike = 0, *,
             align: int = 1, what: str = "", tensor: str | None = None, view: bool = False) -> np.ndarray:
        """Check and record reads of ``length`` bytes at each of ``starts``; the bytes, shape (n, length).
        ``starts`` (and ``iteration``) may be a ``range``: rows known to step evenly, which spares checking their
        spacing. ``tensor``: the declared tensor the bytes belong to (optional, see `declare`). ``view``: where
        the rows step evenly forward inside the buffer, return a read-only view of the memory instead of a copy
        (the caller must be done with it before the call writes)."""
        acc = self._prepare(buffer, starts, length, iteration, align)
        n, length = acc.n, acc.length
        found: list[Fault] = []
        if acc.any_oob or (align > 1 and n and not self._aligned(acc.rows, align)):
            self._check_placement(acc, align, "read", what, found)
        if tensor is not None:
            self._check_tensor(acc, tensor, "read", what, found)
        if acc.size == 0:
            out = np.zeros((n, length), dtype=np.uint8)
        elif not acc.any_oob:
            state = self.memory.state[buffer]
            lo, hi = acc.rows.lo, acc.rows.hi
            if not (n and length and hi - lo <= 4 * n * length + 64 and all_equal(state[lo:hi], INITIALIZED)):
                states = gather(state, acc.rows)
                if not all_equal(states, INITIALIZED):
                    self._check_state(acc, states, what, found)
            out = gather(self.memory.buffers[buffer], acc.rows, view)
        else:
            self._check_state(acc, self.memory.state[buffer][acc.idxc], what, found)
            out = self.memory.buffers[buffer][acc.idxc]
            out[~acc.valid] = 0
        if acc.size and n and length:
            self._reads.setdefault(buffer, []).append(acc.rows)
        if found:
            self.faults.extend(found)
        self.records.append(_record("read", buffer, acc.starts, length, acc.its, what, align, tensor=tensor or ""))
        return out

    def write(self, buffer: str, starts: ArrayLike, length: int, data: Any, iteration: ArrayLike = 0, *,
              align: int = 1, byte_mask: ArrayLike | None = None, exclusive: bool = False,
              poison: ArrayLike | None = None, what: str = "", tensor: str | None = None,
              hazards: bool = True) -> None:
        """Check, record and apply writes of ``length`` bytes of ``data`` rows at each of ``starts`` (an array or,
        for evenly stepping rows, a ``range``; ``iteration`` likewise). ``tensor``: the declared tensor the bytes
        belong to (optional, see `declare`); whole intervals are checked against it, like the buffer bounds,
        whatever ``byte_mask`` stores. ``hazards=False``: a store onto a byte read at a later iteration is not a
        fault (the caller has marked what such a read gives as unspecified, in ``poison``)."""
        acc = self._prepare(buffer, starts, length, iteration, align)
        n, length = acc.n, acc.length
        rows = _data_rows(data, n, length)
        mask = None if byte_mask is None else _bool_rows(byte_mask, n, length)
        pz = None if poison is None else _poison_rows(poison, n, length)
        found: list[Fault] = []
        if acc.any_oob or (align > 1 and n and not self._aligned(acc.rows, align)):
            self._check_placement(acc, align, "write", what, found)
        if tensor is not None:
            self._check_tensor(acc, tensor, "write", what, found)
        record = _record("write", buffer, acc.starts, length, acc.its, what, align,
                         None if mask is None else mask.copy(), exclusive, tensor or "")
        if acc.size == 0:
            self.faults.extend(found)
            self.records.append(record)
            return
        if mask is not None and bool(mask.all()):
            mask = None
        if pz is not None and not pz.any():
            pz = None
        if hazards and buffer in self._reads:
            self._check_hazard(acc, mask, what, found)
        if exclusive:
            self._check_exclusive(acc, what, found)
        # Commit: bookkeeping, then the bytes themselves.
        if n and length:
            if not self._overlap.get(buffer, False) and (buffer in self._writes or not acc.rows.disjoint()):
                self._note_overlap(acc)
            self._writes.setdefault(buffer, []).append(acc.rows)
            if exclusive:
                self._excl.setdefault(buffer, []).append(acc.rows)
        self._store(acc, mask, rows, pz)
        if found:
            self.faults.extend(found)
        self.records.append(record)

    def _store(self, acc: _Access, mask: np.ndarray | None, rows: np.ndarray, pz: np.ndarray | None) -> None:
        """Store the selected bytes; higher iteration, then later access, wins a shared byte."""
        if not acc.n or not acc.length:
            return
        if not acc.any_oob and acc.rows.disjoint():  # every byte of the rows at most once: store row by row
            buf, state = self.memory.buffers[acc.buffer], self.memory.state[acc.buffer]
            states = INITIALIZED if pz is None else np.where(pz, POISON, INITIALIZED).astype(np.uint8)
            if mask is not None:
                rows = np.where(mask, rows, gather(buf, acc.rows))
                states = np.where(mask, states, gather(state, acc.rows))
            scatter(buf, acc.rows, rows)
            scatter(state, acc.rows, states)
            return
        sel = acc.valid if mask is None else acc.valid & mask
        its = acc.its
        if its.size > 1 and np.any(its[1:] < its[:-1]):
            order = np.argsort(its, kind="stable")
            sel, idx, rows = sel[order], acc.idx[order], rows[order]
            pz = None if pz is None else pz[order]
        else:
            idx = acc.idx
        if sel is acc.valid and not acc.any_oob:    # every byte stored: skip boolean selection
            addrs, values = idx.reshape(-1), rows.reshape(-1)
            flags = None if pz is None else pz.reshape(-1)
        else:
            addrs, values = idx[sel], rows[sel]
            flags = None if pz is None else pz[sel]
        states = np.full(addrs.size, INITIALIZED, np.uint8) if flags is None else \
            np.where(flags, POISON, INITIALIZED).astype(np.uint8)
        if addrs.size > 1:
            pos = np.arange(addrs.size, dtype=np.int64)
            winner = np.full(acc.size, -1, dtype=np.int64)
            np.maximum.at(winner, addrs, pos)
            keep = winner[addrs] == pos
            addrs, values, states = addrs[keep], values[keep], states[keep]
        self.memory.buffers[acc.buffer][addrs] = values
        self.memory.state[acc.buffer][addrs] = states


def _data_rows(data: Any, n: int, length: int) -> np.ndarray:
    """``data`` as uint8 rows of shape (n, length), reinterpreting typed rows' bytes."""
    if type(data) is np.ndarray and data.dtype is _U8:
        if data.shape == (n, length):
            return data
        arr = data
    elif isinstance(data, (bytes, bytearray, memoryview)):
        arr = np.frombuffer(data, dtype=np.uint8)
    else:
        arr = _little_endian(np.asarray(data))
        if arr.dtype != np.uint8:
            arr = np.ascontiguousarray(arr.reshape(arr.shape or (1,))).view(np.uint8)
    if arr.shape == (n, length):
        return arr
    if arr.size == n * length:
        return arr.reshape(n, length)
    try:
        return np.broadcast_to(arr, (n, length))
    except ValueError:
        raise ValueError(f"data of shape {np.shape(data)} does not give {n} rows of {length} bytes") from None


def _bool_rows(flags: ArrayLike, n: int, length: int) -> np.ndarray:
    """``flags`` as bool (n, length) (broadcast when it is not that shape already)."""
    arr = np.asarray(flags, dtype=bool)
    return arr if arr.shape == (n, length) else np.broadcast_to(arr, (n, length))


def _poison_rows(poison: ArrayLike | None, n: int, length: int) -> np.ndarray | None:
    """``poison`` as bool (n, length); a 1-D array is per access."""
    if poison is None:
        return None
    arr = np.asarray(poison, dtype=bool)
    if arr.ndim == 1:
        if arr.shape[0] != n:
            raise ValueError(f"1-D poison must have one flag per access ({n}), not {arr.shape[0]}")
        arr = arr[:, None]
    return _bool_rows(arr, n, length)
