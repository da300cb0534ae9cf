"""A fault: a constraint violation found in one access of the core (memory or registers); ``str()`` is one line."""

from __future__ import annotations

from typing import Any

__all__ = ["FAULT_KINDS", "Fault", "address_text"]

#: Every ``Fault.kind``, in the order a single access is checked.
FAULT_KINDS: tuple[str, ...] = (
    "no_buffer", "misaligned", "out_of_bounds", "uninitialized", "poison", "hazard", "overlap",
)


def address_text(buffer: str, addr: int) -> str:
    """``UB+0x20`` (a negative address as ``UB-0x20``)."""
    return f"{buffer}+0x{addr:x}" if addr >= 0 else f"{buffer}-0x{-addr:x}"


class Fault(Exception):
    """A constraint violation found in one memory access; ``str()`` is one line."""

    def __init__(self, kind: str, buffer: str, start: int, stop: int, iteration: int | None = None,
                 what: str = "", *, access: str = "access", detail: str = "") -> None:
        if kind not in FAULT_KINDS:
            raise ValueError(f"unknown fault kind {kind!r}")
        self.kind = kind
        self.buffer = buffer
        self.start = int(start)
        self.stop = int(stop)
        self.iteration = None if iteration is None else int(iteration)
        self.what = what
        self.access = access
        self.detail = detail
        super().__init__(self.message)

    @property
    def message(self) -> str:
        """The one-line description."""
        parts = [f"{self.kind}: {self.access}"]
        if self.what:
            parts.append(f" of {self.what}")
        parts.append(f" at {address_text(self.buffer, self.start)}")
        if self.iteration is not None:
            parts.append(f" (iteration {self.iteration})")
        if self.detail:
            parts.append(f" {self.detail}")
        return " ".join("".join(parts).split())

    def __str__(self) -> str:
        return self.message

    def __repr__(self) -> str:
        return (f"Fault({self.kind!r}, {self.buffer!r}, {self.start}, {self.stop}, "
                f"{self.iteration!r}, {self.what!r})")

    def __reduce__(self) -> tuple[Any, ...]:
        return (_restore_fault, (self.kind, self.buffer, self.start, self.stop, self.iteration,
                                 self.what, self.access, self.detail))


def _restore_fault(kind: str, buffer: str, start: int, stop: int, iteration: int | None,
                   what: str, access: str, detail: str) -> Fault:
    return Fault(kind, buffer, start, stop, iteration, what, access=access, detail=detail)
