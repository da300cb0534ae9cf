"""A case, a program or a file's entries moved to another product: the same call (arguments, tensors, element types and
data unchanged) as if it had named that product. ``check --product P`` reads its input through `on_product`;
``check --product all`` and `ascverify.engines.portability` move each case to every product with `retarget`."""

from __future__ import annotations

from dataclasses import replace
from typing import Iterable, Iterator

from ..spec.products import get_product
from .case import Case
from .caseio import Entry
from .columnar import RowCase
from .program import Call, Program
from .repeats import ByIdentity


def retarget(case: Case, product: str) -> Case:
    """The same call on ``product``. A case read column-wise whose fields are still its block's row stays a row of
    that block (no copy of its fields; the checker takes its columns from the block)."""
    model = case.model
    tdtypes = {name: t.name for name, t in case.ctx.tensor_dtypes}
    ctx = model.context(product, case.ctx.dtype.name, tdtypes)
    if type(case) is RowCase and case.fresh and not case.data_sources and not case.registers:
        return RowCase(case.block, case.row, ctx, case.origin, case.base_dir)
    out = Case(model, ctx, dict(case.env), case.data_sources, case.origin, case.base_dir)
    out._data = dict(case._data)
    return out


def retarget_program(program: Program, product: str) -> Program:
    """The same program on ``product``: every call moved, in order."""
    return replace(program, product=get_product(product),
                   calls=[Call(c.index, retarget(c.case, product), c.shared) for c in program.calls])


#: Cases `on_product` remembers having moved (then forgotten all at once: memory stays flat).
MOVED_MOST = 8192


def on_product(entries: Iterable[Entry], product: str) -> Iterator[Entry]:
    """A file's entries with each case (or program) moved to ``product``; unreadable entries as they are. A case
    object that comes again (a repeated line, `caseio.read_cases` with ``repeats``) is moved once: its entries get
    the same moved case, which `check_cases` then checks once."""
    moved = ByIdentity(MOVED_MOST)  # a case -> the case moved
    for e in entries:
        if e.case is not None:
            case = e.case
            got = moved.get(case)
            if got is not None:
                e.case = got
            else:
                e.case = retarget(case, product)
                if not case.data_sources and not case.registers:
                    moved.put(case, e.case)
        elif e.program is not None:
            e.program = retarget_program(e.program, product)
        yield e
