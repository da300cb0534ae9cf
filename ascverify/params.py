"""Parameter types and declarations: what a case may give for each argument and tensor.

Every parameter flattens to a few scalar *fields* (``hRepeat``; ``mask.bitwise``, ``mask.w0``;
``dst.addr``...). Fields are the variables of the model: plain values on one case, numpy
columns on a batch, Z3 constants in the solver. A type's representable range is a rule of its own.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from .products import POSITIONS, VECTOR_POSITIONS

# The widest integers a case file may hold at all; beyond them the input cannot be read (exit 2).
ABS_MIN = -(2**63)
ABS_MAX = 2**64 - 1


@dataclass(frozen=True)
class IntType:
    """A C integer type with its representable range."""

    name: str
    lo: int
    hi: int
    kind = "int"


@dataclass(frozen=True)
class BoolType:
    """A C bool (JSON true/false)."""

    name: str = "bool"
    lo = 0
    hi = 1
    kind = "bool"


@dataclass(frozen=True)
class EnumType:
    """A C enum given by name; its field holds the index of the name in ``choices``."""

    name: str
    choices: tuple[str, ...]
    kind = "enum"

    @property
    def lo(self) -> int:
        return 0

    @property
    def hi(self) -> int:
        return len(self.choices) - 1

    def code(self, choice: str) -> int:
        """Index of ``choice``."""
        return self.choices.index(choice)

    def codes(self, choices: Sequence[str]) -> tuple[int, ...]:
        """Indices of ``choices``."""
        return tuple(self.choices.index(c) for c in choices)


UINT8 = IntType("uint8", 0, 2**8 - 1)
UINT16 = IntType("uint16", 0, 2**16 - 1)
UINT32 = IntType("uint32", 0, 2**32 - 1)
UINT64 = IntType("uint64", 0, 2**64 - 1)
INT16 = IntType("int16", -(2**15), 2**15 - 1)
INT32 = IntType("int32", -(2**31), 2**31 - 1)
INT64 = IntType("int64", -(2**63), 2**63 - 1)
BOOL = BoolType()
POSITION = EnumType("TPosition", POSITIONS)


@dataclass(frozen=True)
class Field:
    """One scalar variable of a model: its flat name, type and the parameter it belongs to."""

    name: str
    type: IntType | BoolType | EnumType
    param: str
    default: Any = 0


@dataclass(frozen=True)
class Arg:
    """A scalar argument of an API (name as in the documentation)."""

    name: str
    type: IntType | BoolType | EnumType
    source: str = ""
    doc: str = ""
    default: Any = None

    def fields(self) -> tuple[Field, ...]:
        default = self.default if self.default is not None else 0
        if isinstance(self.type, EnumType) and isinstance(default, str):
            default = self.type.code(default)
        return (Field(self.name, self.type, self.name, default),)


MASK_WORDS = 2  # the widest bitwise mask (16-bit operands) has 2 words


@dataclass(frozen=True)
class MaskArg:
    """A vector mask: an integer (contiguous mode) or a list of uint64 words (bitwise mode).

    Fields: ``mask.bitwise`` (bool), ``mask.count`` (contiguous count, 0 in bitwise mode),
    ``mask.nwords`` (list length, 0 in contiguous mode), ``mask.w0``/``mask.w1`` (words, 0 when absent).

    ``placeholder``: the string an API accepts instead of a mask when the mask is set elsewhere (e.g.
    ``"MASK_PLACEHOLDER"`` with ``isSetMask=false``); '' when it accepts none. Only a mask that declares
    one has the Boolean field ``mask.placeholder`` (True when the case gives the placeholder; count,
    nwords and words are then 0). ``placeholder_flag`` names the Bool argument (e.g. ``isSetMask``)
    whose false value calls for the placeholder.
    """

    name: str = "mask"
    source: str = ""
    doc: str = "vector mask: an integer (contiguous mode) or a list of uint64 words (bitwise mode)"
    word_type: IntType = UINT64
    count_type: IntType = UINT64
    placeholder: str = ""
    #: the Bool argument that says the call sets the mask itself: the placeholder goes with it false, and only then
    placeholder_flag: str = ""

    def fields(self) -> tuple[Field, ...]:
        n = self.name
        out = (
            Field(f"{n}.bitwise", BOOL, n, False),
            Field(f"{n}.count", self.count_type, n, 0),
            Field(f"{n}.nwords", UINT8, n, 0),
        ) + tuple(Field(f"{n}.w{i}", self.word_type, n, 0) for i in range(MASK_WORDS))
        if self.placeholder:
            out += (Field(f"{n}.placeholder", BOOL, n, False),)
        return out


@dataclass(frozen=True)
class TensorDecl:
    """A LocalTensor operand: allowed positions, element type and role.

    ``dtype`` None means the case's dtype T. Fields: ``NAME.addr`` (byte offset in the physical
    buffer), ``NAME.size`` (elements), ``NAME.position`` and, when optional, ``NAME.present``.
    """

    name: str
    role: str  # "in", "out", "inout" or "tmp"
    positions: tuple[str, ...] = VECTOR_POSITIONS
    dtype: str | None = None
    optional: bool = False
    source: str = ""
    doc: str = ""
    #: start alignment in bytes the page asks for (an int or a function of the context); the
    #: position's own alignment (HARDWARE_NOTES) applies in any case, unless ``align_exact``
    align: Any = 1
    #: True when the page's ``align`` replaces the position's general alignment instead of adding to it
    #: (a page that asks for less than the general rule, e.g. 16 bytes in UB)
    align_exact: bool = False
    #: products on which an optional tensor must be given (a derived rule checks it)
    required_on: tuple[str, ...] = ()

    def fields(self) -> tuple[Field, ...]:
        n = self.name
        out = (
            Field(f"{n}.addr", UINT32, n, 0),
            Field(f"{n}.size", UINT32, n, 0),
            Field(f"{n}.position", POSITION, n, POSITION.code(self.positions[0])),
        )
        if self.optional:
            out += (Field(f"{n}.present", BOOL, n, True),)
        return out
