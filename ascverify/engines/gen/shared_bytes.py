"""Tensor contents that agree on the bytes tensors share.

gen writes every tensor's contents as the case's data (``inputs/NAME.bin``). Two tensors that lie over each other
in a buffer (dst over src0: a warning, not an error) and are given data that differ on the bytes they share make
a case `run` refuses (`core.run.refuse_conflicting_data`: which data the call reads would depend on the order the
tensors are loaded in). So gen draws the contents the core would (`core.run.draw_missing`, which `prepare` uses),
then lays them out over one byte image per buffer in a fixed order (`placing_order`), each later tensor taking its
shared bytes from the image, read in its own element type (bytes copied, then decoded: a uint32 tensor over a half
one works). The memory the core starts from is then the same whatever the load order, and the golden is what `run`
computes for the written case.

Shared bytes are as `refuse_conflicting_data` defines them: the same buffer and overlapping byte spans
``[addr, addr + nbytes)``, with the bytes `DType.to_bytes` gives the data.
"""

from __future__ import annotations

from typing import Iterable

import numpy as np

from ...cases.case import Case
from ...core.run import draw_missing, fits


def draw_inputs(case: Case, seed: int) -> None:
    """Give the case the contents `core.run.prepare` would draw for it from ``seed`` (`core.run.draw_missing`: the
    same tensors, order and random stream, so a case without shared bytes gets the same data as `run` would draw),
    then make tensors that share bytes agree on them (`make_agree`). Tensors with data already keep it."""
    had = {d.name for d in case.model.tensors if case.data(d.name) is not None}
    draw_missing(case, np.random.default_rng(seed))
    make_agree(case, first=had)


def placing_order(case: Case, names: Iterable[str], first: Iterable[str] = ()) -> list[str]:
    """The order tensors are laid out in: earlier ones keep their bytes, later ones take the shared bytes from them.
    ``first`` (data given before drawing: chosen to break a data rule) before the tensors a rule reads the contents of
    (`Rule.requires_data`: offsets that must stay legal), before the other inputs, before outputs (their old values
    matter least); declaration order within each."""
    first = set(first)
    ruled = {n for r in case.model.rules_for(case.ctx.product.id) for n in r.requires_data}
    decls = {d.name: (i, d.role) for i, d in enumerate(case.model.tensors)}

    def rank(name: str) -> tuple[int, int]:
        i, role = decls[name]
        return (0 if name in first else 1 if name in ruled else 2 if role in ("in", "inout") else 3, i)

    return sorted(names, key=rank)


def make_agree(case: Case, names: Iterable[str] | None = None, first: Iterable[str] = ()) -> None:
    """Make the data of ``names`` (default: every tensor with data, in its buffer) agree byte for byte on the bytes
    they share: in `placing_order`, each tensor's shared bytes are copied from those laid out before it and its data
    decoded from its bytes in its own element type. A sub-byte tensor's padding bits (an odd int4b_t count) are
    zero in its bytes: the tensors laid out before it take that byte from it."""
    if names is None:
        names = [d.name for d in case.model.tensors]
    names = [n for n in names if case.data(n) is not None and fits(case, n) and case.tensor(n).size]
    placed: list[list] = []  # [name, buffer, addr, bytes]
    for name in placing_order(case, names, first):
        t = case.tensor(name)
        raw = np.array(t.dtype.to_bytes(case.data(name)), dtype=np.uint8).reshape(-1)
        taken = False
        for _, buf, at, other in placed:
            lo, hi = max(at, t.addr), min(at + other.size, t.addr + raw.size)
            if buf == t.buffer and lo < hi:
                raw[lo - t.addr: hi - t.addr] = other[lo - at: hi - at]
                taken = True
        if taken:
            case.set_data(name, t.dtype.from_bytes(raw, t.size))
            raw = np.array(t.dtype.to_bytes(case.data(name)), dtype=np.uint8).reshape(-1)
            for entry in placed:  # only a sub-byte type's padding can differ: the earlier tensor takes it
                _, buf, at, other = entry
                lo, hi = max(at, t.addr), min(at + other.size, t.addr + raw.size)
                if buf == t.buffer and lo < hi and not np.array_equal(other[lo - at: hi - at],
                                                                      raw[lo - t.addr: hi - t.addr]):
                    other[lo - at: hi - at] = raw[lo - t.addr: hi - t.addr]
                    ot = case.tensor(entry[0])
                    case.set_data(entry[0], ot.dtype.from_bytes(other, ot.size))
        placed.append([name, t.buffer, t.addr, raw])
