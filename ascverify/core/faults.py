"""A fault: a constraint violation found in one access of the core (memory or registers); ``str()`` is one line."""

from __future__ import annotations

from typing import Any, Iterable

__all__ = ["FAULT_KINDS", "MAX_ITERATIONS", "UNRUNNABLE_KINDS", "CoreLimit", "Fault", "address_text",
           "unrunnable_reason", "unrunnable_rules", "within_iterations"]

#: Every ``Fault.kind``, in the order a single access is checked.
FAULT_KINDS: tuple[str, ...] = (
    "no_buffer", "misaligned", "out_of_bounds", "uninitialized", "poison", "hazard", "overlap",
)


def address_text(buffer: str, addr: int) -> str:
    """``UB+0x20`` (a negative address as ``UB-0x20``)."""
    return f"{buffer}+0x{addr:x}" if addr >= 0 else f"{buffer}-0x{-addr:x}"


#: The most iterations (repeats) of one call the core runs: far above any legal case's (the largest is 255 x 255,
#: BilinearInterpolation's hRepeat x vRepeat), far below what a hostile file asks (a repeatTime of 2**31 - 1 would
#: make the core index 16 GiB).
MAX_ITERATIONS = 1 << 16


class CoreLimit(Exception):
    """The core does not run a case that asks for more work than any legal case does (`MAX_ITERATIONS`); ``str()``
    is one line naming the value. Commands report such a case as not executed."""


#: Kinds of rules (``Rule.domain["kind"]``) whose violation keeps the core from running a case (`run`, the fuzz
#: campaigns' negative items): values beyond their C type, tensors beyond their buffer (the core would allocate and
#: index absurd ranges: a tensor of 10**12 elements).
UNRUNNABLE_KINDS = ("type", "fits")


def unrunnable_rules(rules: Iterable[Any]) -> list[str]:
    """The ids of the rules among ``rules`` (`spec.rules.Rule`) whose violation keeps the core from running a case,
    each once, in order."""
    return list(dict.fromkeys(r.id for r in rules if r.domain.get("kind") in UNRUNNABLE_KINDS))


def unrunnable_reason(rule_ids: Iterable[str]) -> str:
    """Why a case that breaks ``rule_ids`` (`unrunnable_rules`) is not run, in one line."""
    return f"the core needs representable values and tensors inside their buffers; broken: {', '.join(rule_ids)}"


def within_iterations(count: int, name: str) -> int:
    """``count`` iterations asked for by field ``name``, or CoreLimit when they are more than `MAX_ITERATIONS`."""
    if count > MAX_ITERATIONS:
        raise CoreLimit(f"{name}={count} asks for {count:,} iterations; the core runs at most {MAX_ITERATIONS:,} "
                        f"(no legal case needs more)")
    return count


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
        if self.iteration is not None:  # a call's setup steps before its repeats are numbered below 0
            parts.append(f" (iteration {self.iteration})" if self.iteration >= 0 else
                         f" (setup step {self.iteration}, before repeat 0)")
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
