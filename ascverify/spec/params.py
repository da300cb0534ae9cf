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
    #: values of a sibling C enum (or of another overload) that code may pass here but ascverify does not model:
    #: the names, the sibling enum's name (``LoadDist``: every ``LoadDist::X`` is one) and why they are refused
    other_names: frozenset[str] = frozenset()
    other_enum: str = ""
    other_reason: str = ""
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

    def lookup(self, value: Any) -> int | None:
        """Index of ``value``: a choice, or one qualified by the type's name as code spells it (``MaskMode::COUNTER``,
        ``AscendC::MaskMode::COUNTER``, pyasc's ``asc.MaskMode.COUNTER``); None for anything else."""
        if not isinstance(value, str):
            return None
        if value in self.choices:
            return self.choices.index(value)
        for sep in ("::", "."):
            head, _, last = value.rpartition(sep)
            if head == self.name or head.endswith((f"::{self.name}", f".{self.name}")):
                return self.choices.index(last) if last in self.choices else None
        return None

    def other(self, value: Any) -> str | None:
        """Why ``value`` is refused when it names a value of the sibling enum or overload that is not modelled
        (`other_names`, or any value qualified by `other_enum`), else None."""
        if not isinstance(value, str) or not self.other_reason:
            return None
        head, _, last = value.replace(".", "::").rpartition("::")
        if last in self.other_names or (head and self.other_enum and head.endswith(self.other_enum)):
            return self.other_reason
        return None


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
    #: the argument may be left out (one prototype takes it, another does not): the Bool field ``NAME.present``
    #: says whether the case gives it, and the value field holds ``default`` when it does not (`ApiModel.forms`)
    optional: bool = False

    def fields(self) -> tuple[Field, ...]:
        default = self.default if self.default is not None else 0
        if isinstance(self.type, EnumType) and isinstance(default, str):
            default = self.type.code(default)
        out = (Field(self.name, self.type, self.name, default),)
        if self.optional:
            out += (Field(f"{self.name}.present", BOOL, self.name, False),)
        return out


#: Lists of a `LevelsArg` longer than this are not read (a case file with 10**6 levels is a mistake).
MAX_LEVELS_LIST = 64


@dataclass(frozen=True)
class LevelsArg:
    """An argument given as an object of equal-length integer lists, entry k of every list describing level k
    (an AddrReg: ``{"strides": [s0, s1], "indices": [i0, i1]}`` for the offset ``i0*s0 + i1*s1``).

    ``lists``: (JSON key, field stem, item type) per list. Fields, like a bitwise mask's: ``NAME.levels`` (the
    lists' length; 0 when the argument is absent), ``NAME.<stem>K`` for K < ``max_levels`` (0 past the lists'
    end) and, when ``optional``, the Bool ``NAME.present``. Lists longer than ``max_levels`` are read (up to
    `MAX_LEVELS_LIST` entries): ``NAME.levels`` keeps their length for a rule to refuse, the fields hold the
    first ``max_levels`` entries.
    """

    name: str
    lists: tuple[tuple[str, str, IntType], ...]
    max_levels: int = 4
    source: str = ""
    doc: str = ""
    optional: bool = True
    default: Any = None

    @property
    def keys(self) -> tuple[str, ...]:
        """The JSON keys of the lists."""
        return tuple(key for key, _, _ in self.lists)

    @property
    def type(self) -> BoolType:
        """The argument's scalar stand-in, its presence, for code that sees every argument as one scalar."""
        return BOOL

    def fields(self) -> tuple[Field, ...]:
        n = self.name
        out: tuple[Field, ...] = ()
        if self.optional:
            out += (Field(f"{n}.present", BOOL, n, False),)
        out += (Field(f"{n}.levels", IntType("levels", 0, MAX_LEVELS_LIST), n, 0),)
        for _, stem, item in self.lists:
            out += tuple(Field(f"{n}.{stem}{k}", item, n, 0) for k in range(self.max_levels))
        return out


@dataclass(frozen=True)
class StructArg:
    """A struct argument given as a JSON object of named members: scalars (`Arg`) and fixed-length lists of them.

    Fields: ``NAME.present`` (bool: the case gives the object; always True when not ``optional``) and one
    per member, ``NAME.member``, or for a list member of length n (``lists``), ``NAME.member0`` ...
    ``NAME.member<n-1>`` (like a `LevelsArg`'s fields: no brackets in rule ids). A member whose ``default``
    is None must be given in the object; the others
    take their default (a tuple for a list member). An absent struct holds every member at its default.
    """

    name: str
    members: tuple[Arg, ...]
    source: str = ""
    doc: str = ""
    #: (member name, length) for each member given as a JSON list of that many values
    lists: tuple[tuple[str, int], ...] = ()
    optional: bool = True

    @property
    def default(self) -> Any:
        """None when the struct must be given (like a required `Arg`); an absent optional struct is ``{}``."""
        return {} if self.optional else None

    @property
    def type(self) -> BoolType:
        """The struct's scalar stand-in, its presence (``NAME.present``), for code that sees every argument as one
        scalar."""
        return BOOL

    def list_length(self, member: str) -> int | None:
        """The length of a list member, None for a scalar member."""
        return dict(self.lists).get(member)

    def member_fields(self, member: Arg) -> tuple[Field, ...]:
        """The fields of one member (one, or one per list entry)."""
        n = self.list_length(member.name)
        default = member.default if member.default is not None else 0
        if n is None:
            return (Field(f"{self.name}.{member.name}", member.type, self.name, default),)
        defaults = tuple(default) if isinstance(default, (tuple, list)) else (default,) * n
        return tuple(Field(f"{self.name}.{member.name}{i}", member.type, self.name, defaults[i]) for i in range(n))

    def fields(self) -> tuple[Field, ...]:
        out: tuple[Field, ...] = (Field(f"{self.name}.present", BOOL, self.name, not self.optional),)
        for m in self.members:
            out += self.member_fields(m)
        return out


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
    #: the start alignment (bytes) strategies give the tensor when they lay it out (default: the rule's); more
    #: than the rule asks when a relational rule of the model wants it (an effective address aligned per argument)
    pack_align: int | None = None

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
