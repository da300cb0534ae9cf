"""Lines of a case file seen before: a repeated line is read once (a kernel's trace calls the same intrinsic with
the same arguments thousands of times), within bounds that keep memory flat however long the file."""

from __future__ import annotations

from typing import Any

from .case import Case
from .columnar import RowCase

#: Distinct lines remembered at once; when full, everything remembered is forgotten and remembering starts again ...
MOST_LINES = 8192
#: ... unless fewer than one line in this many was a repeat by then: a file of distinct lines (a fuzzer's output)
#: then stops paying for remembering (about a tenth of `check`'s time).
FEW_REPEATS = 16
#: A longer line is never remembered (inline data, long names: rarely repeated, and costly to keep).
MOST_LINE_BYTES = 2048
#: Rows of the blocks of columns (`columnar.Block`) that remembered cases may keep alive (about what one window of
#: `check` keeps alive anyway).
MOST_ROWS = 65536


#: What `Repeats` holds for a remembered case not yet checked.
_NO_VERDICT = object()


class ByIdentity:
    """Something remembered per object, by its identity (the object is held meanwhile, so that its id names it
    alone); at most ``most`` objects at once (then all are forgotten: memory stays flat), or unbounded (None)."""

    __slots__ = ("_got", "most")

    def __init__(self, most: int | None = None) -> None:
        self._got: dict[int, tuple[Any, Any]] = {}  # id -> (the object, what is remembered of it)
        self.most = most

    def get(self, obj: Any) -> Any:
        """What is remembered of ``obj`` (None: nothing)."""
        got = self._got.get(id(obj))
        return got[1] if got is not None and got[0] is obj else None

    def get_each(self, objs: list[Any]) -> list[Any]:
        """`get` of each object (in one pass: a million lines may pass here)."""
        got = self._got.get
        return [None if held is None or held[0] is not obj else held[1]
                for obj, held in zip(objs, [got(id(obj)) for obj in objs])]

    def put(self, obj: Any, value: Any) -> None:
        """Remember ``value`` (not None) of ``obj``."""
        if self.most is not None and len(self._got) >= self.most and id(obj) not in self._got:
            self._got.clear()
        self._got[id(obj)] = (obj, value)

    def pop(self, obj: Any) -> None:
        """Forget ``obj``."""
        if self.get(obj) is not None:
            del self._got[id(obj)]

    def clear(self) -> None:
        self._got.clear()

    def __len__(self) -> int:
        return len(self._got)


class Repeats:
    """What one reading of one file remembers of its lines: a line's JSON value (the same object each time the
    line comes again, so that it is parsed and checked for duplicate keys once), and the case read from that value
    (the same `Case` object, so that `check` checks it once), and the verdict checking gave it (`remember_verdict`: a
    case that comes again in a later window of `check` is not checked again). Only plain cases are remembered: a
    value that is a JSON object without ``calls`` (not a program), read into a case without data sources."""

    __slots__ = ("values", "_held", "_cases", "_verdicts", "_blocks", "_rows", "active", "lines", "hits")

    def __init__(self) -> None:
        #: line text -> its JSON value
        self.values: dict[bytes, Any] = {}
        self._held = ByIdentity()  # the values held -> True
        #: a held value -> the case read from it
        self._cases = ByIdentity()
        #: a remembered case -> its verdict (`_NO_VERDICT` until checked): a case that comes again in a later
        #: window of `check` is not checked again; forgotten with the case
        self._verdicts = ByIdentity()
        #: id of a block that remembered cases keep alive -> the block (held: its id names it alone) and the values
        #: of those cases (oldest block first)
        self._blocks: dict[int, tuple[Any, list[Any]]] = {}
        self._rows = 0  # rows of those blocks
        #: False once the file has shown too few repeats to be worth remembering (`FEW_REPEATS`)
        self.active = True
        #: lines looked up, and how many of them were seen before
        self.lines = self.hits = 0

    def seen(self, lines: list[bytes]) -> list[Any]:
        """Per line, the value remembered for it (None: not seen before)."""
        got = self.values.get
        known = [got(line) for line in lines]
        self.lines += len(lines)
        self.hits += len(lines) - known.count(None)
        return known

    def remember_value(self, line: bytes, value: Any) -> None:
        """Keep ``value`` (read from ``line`` with no problem) for the line's next occurrences."""
        if type(value) is not dict or len(line) > MOST_LINE_BYTES or "calls" in value or not self.active:
            return
        if line in self.values:  # read again before it was remembered (twice in one batch): the first is kept
            return
        if len(self.values) >= MOST_LINES:
            self.clear()
            if self.hits * FEW_REPEATS < self.lines:
                self.active = False
                return
        self.values[line] = value
        self._held.put(value, True)

    def case(self, value: Any) -> Case | None:
        """The case remembered for ``value`` (the object itself: an id alone may name a later object)."""
        return self._cases.get(value)

    def cases_of(self, values: list[Any]) -> list[Case | None]:
        """`case` of each value (None: none)."""
        return self._cases.get_each(values)

    def has_cases(self) -> bool:
        """Whether any case is remembered."""
        return len(self._cases) > 0

    def remember_case(self, value: Any, case: Case) -> None:
        """Keep ``case``, read from ``value``, when the value is held and the case is plain. A case read
        column-wise keeps its block alive: past `MOST_ROWS` rows, the cases of the oldest blocks are forgotten (their
        lines, seen again, are read again, into a newer block)."""
        if not self._held.get(value) or case.data_sources or case.registers or self.case(value) is case:
            return
        if case.__class__ is RowCase:
            block = case.block  # type: ignore[attr-defined]
            got = self._blocks.get(id(block))
            if got is None:
                while self._blocks and self._rows + len(block) > MOST_ROWS:
                    self._forget_block(next(iter(self._blocks)))
                got = self._blocks[id(block)] = (block, [])
                self._rows += len(block)
            got[1].append(value)
        self._cases.put(value, case)
        self._verdicts.put(case, _NO_VERDICT)

    def verdict(self, case: Case) -> Any:
        """The verdict remembered for ``case`` (None: none; `remember_verdict`)."""
        got = self._verdicts.get(case)
        return None if got is _NO_VERDICT else got

    def remember_verdict(self, case: Case, verdict: Any) -> None:
        """Keep ``verdict`` (not None: what checking ``case`` gave, to be copied each time it is handed out) while
        ``case`` is remembered; nothing for a case that is not."""
        if self._verdicts.get(case) is not None:
            self._verdicts.put(case, verdict)

    def _forget_block(self, block: int) -> None:
        held, values = self._blocks.pop(block)
        self._rows -= len(held)
        for value in values:
            case = self._cases.get(value)
            if getattr(case, "block", None) is held:
                self._cases.pop(value)
                self._verdicts.pop(case)

    def clear(self) -> None:
        """Forget everything."""
        self.values.clear()
        self._held.clear()
        self._cases.clear()
        self._verdicts.clear()
        self._blocks.clear()
        self._rows = 0
