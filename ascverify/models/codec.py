"""Load3DBitModeParam: the bit fields of ``config0`` / ``config1`` and their Python API (page 002 + HARDWARE_NOTES).

The page (002_70a359bc6af47a68.txt, Tables 3-5) describes ``Load3DBitModeParam`` as two unions of a
``uint64_t`` and a bit-field struct; HARDWARE_NOTES.md (section Load3DBitMode / LoadData3DParamsV2 /
SetFmatrix) gives the layout, low bit first:

    config0: kStep:16 | mStep:16 | kPos:16 | mPos:16
    config1: strideW:6 | strideH:6 | Wk:8 | Hk:8 | dilationW:8 | dilationH:8 |
             filterW:1 | filterH:1 | transpose:1 | fmatrixCtrl:1 | sizeChannel:16

Each word is exactly 64 bits, so every pair of uint64 words decodes to fields within their widths, and
``decode(encode(f)) == f`` for every in-width assignment ``f``. Three namings meet here:

* the page's field names (Tables 4 and 5) — the names of ``BITFIELDS``, used by the case files;
* the ``LoadData3DParamsV2`` member each field "has the same meaning as" (``kExtension``, ``filterW``
  for the kernel width ``Wk``, ``filterSizeW`` for the +256 bit ``filterW``, ...) — ``BitField.v2``;
* the page's accessor names (``SetKExtension`` / ``GetKExtension``, ``SetStrideW``, ...) — the methods
  of `Load3DBitModeParam`, which mirrors the C++ class.

``filterW`` and ``filterH`` mean different fields in the two namings (the 1-bit +256 flag on the page,
the 8-bit kernel size in LoadData3DParamsV2): functions here take one naming at a time, never a mix.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Mapping

SEED = "002_70a359bc6af47a68.txt"
NOTES = "HARDWARE_NOTES.md Load3DBitMode / LoadData3DParamsV2 / SetFmatrix"
WORD_BITS = 64
WORD_MAX = 2**WORD_BITS - 1


@dataclass(frozen=True)
class BitField:
    """One field of config0 or config1: page name, word, lowest bit, width, V2 name and accessor stem."""

    name: str
    word: int  # 0: config0, 1: config1
    lo: int
    width: int
    v2: str
    accessor: str  # Set<accessor> / Get<accessor> on the page
    table: str

    @property
    def hi(self) -> int:
        """The largest value the field holds."""
        return (1 << self.width) - 1

    @property
    def is_flag(self) -> bool:
        """A 1-bit field, read and written as a bool."""
        return self.width == 1

    @property
    def mask(self) -> int:
        return self.hi << self.lo

    @property
    def bits(self) -> str:
        """Where it lives, as ``config1[12:19]`` (inclusive bit range)."""
        return f"config{self.word}[{self.lo}:{self.lo + self.width - 1}]" if self.width > 1 else \
            f"config{self.word}[{self.lo}]"


def _layout(word: int, table: str, spec: Iterable[tuple[str, int, str, str]]) -> tuple[BitField, ...]:
    out, lo = [], 0
    for name, width, v2, accessor in spec:
        out.append(BitField(name, word, lo, width, v2, accessor, table))
        lo += width
    if lo != WORD_BITS:  # pragma: no cover - a definition error, caught at import
        raise AssertionError(f"config{word} layout has {lo} bits, not {WORD_BITS}")
    return tuple(out)


CONFIG0 = _layout(0, "Table 4", (
    ("kStep", 16, "kExtension", "KExtension"),
    ("mStep", 16, "mExtension", "MExtension"),
    ("kPos", 16, "kStartPt", "KStartPt"),
    ("mPos", 16, "mStartPt", "MStartPt"),
))
CONFIG1 = _layout(1, "Table 5", (
    ("strideW", 6, "strideW", "StrideW"),
    ("strideH", 6, "strideH", "StrideH"),
    ("Wk", 8, "filterW", "FilterW"),
    ("Hk", 8, "filterH", "FilterH"),
    ("dilationW", 8, "dilationFilterW", "DilationFilterW"),
    ("dilationH", 8, "dilationFilterH", "DilationFilterH"),
    ("filterW", 1, "filterSizeW", "FilterSizeW"),
    ("filterH", 1, "filterSizeH", "FilterSizeH"),
    ("transpose", 1, "enTranspose", "Transpose"),
    ("fmatrixCtrl", 1, "fMatrixCtrl", "FmatrixCtrl"),
    ("sizeChannel", 16, "channelSize", "ChannelSize"),
))
#: Every field, config0's first, each word's low bits first.
BITFIELDS: tuple[BitField, ...] = CONFIG0 + CONFIG1
BY_NAME: dict[str, BitField] = {f.name: f for f in BITFIELDS}
BY_V2: dict[str, BitField] = {f.v2: f for f in BITFIELDS}
BY_ACCESSOR: dict[str, BitField] = {f.accessor: f for f in BITFIELDS}

#: LoadData3DParamsV2's defaults (HARDWARE_NOTES), for its members that have a bit field.
V2_DEFAULTS: dict[str, Any] = {
    "channelSize": 0, "kExtension": 0, "mExtension": 0, "kStartPt": 0, "mStartPt": 0, "strideW": 1, "strideH": 1,
    "filterW": 1, "filterH": 1, "dilationFilterW": 1, "dilationFilterH": 1, "enTranspose": False,
    "filterSizeW": False, "filterSizeH": False, "fMatrixCtrl": False,
}
#: LoadData3DParamsV2 members without a bit field (SetFmatrix's and SetLoadDataPaddingValue's, enSmallK), defaults.
V2_OTHER_DEFAULTS: dict[str, Any] = {"padList": (0, 0, 0, 0), "l1H": 0, "l1W": 0, "padValue": 0, "enSmallK": False}


class CodecError(ValueError):
    """A value that does not fit its field, a name no naming knows, or a word outside uint64."""


def _check(f: BitField, value: Any) -> int:
    if f.is_flag:
        if isinstance(value, bool) or value in (0, 1):
            return int(value)
        raise CodecError(f"{f.name} is a 1-bit flag: expected true/false (or 0/1), got {value!r}")
    if isinstance(value, bool) or not isinstance(value, int):
        raise CodecError(f"{f.name} is a {f.width}-bit field: expected an integer, got {value!r}")
    if not 0 <= value <= f.hi:
        raise CodecError(f"{f.name}={_shown_int(value)} does not fit its {f.width} bits [0, {f.hi}] "
                         f"(C++ would silently keep {value & f.hi})")
    return value


def _shown_int(value: int) -> str:
    """An integer as a message shows it: in decimal, or (thousands of digits, which Python will not print in
    decimal) its first hex digits and its length."""
    if value.bit_length() <= 256:
        return str(value)
    digits = f"{abs(value):x}"
    return f"{'-' if value < 0 else ''}0x{digits[:16]}... ({len(digits)} hex digits)"


def _check_word(name: str, word: Any) -> int:
    if isinstance(word, bool) or not isinstance(word, int) or not 0 <= word <= WORD_MAX:
        raise CodecError(f"{name} is a uint64_t: expected an integer in [0, 2^64-1], got {word!r}")
    return word


def encode(fields: Mapping[str, Any]) -> tuple[int, int]:
    """(config0, config1) from page-named fields; a field left out is 0 (the unions are initialized to 0)."""
    unknown = [k for k in fields if k not in BY_NAME]
    if unknown:
        raise CodecError(f"unknown field {unknown[0]!r} of Load3DBitModeParam")
    words = [0, 0]
    for name, value in fields.items():
        f = BY_NAME[name]
        words[f.word] |= _check(f, value) << f.lo
    return words[0], words[1]


def decode(config0: int, config1: int) -> dict[str, Any]:
    """Page-named fields of two uint64 words (1-bit fields as bools); every field is within its width."""
    words = (_check_word("config0", config0), _check_word("config1", config1))
    out: dict[str, Any] = {}
    for f in BITFIELDS:
        raw = (words[f.word] >> f.lo) & f.hi
        out[f.name] = bool(raw) if f.is_flag else raw
    return out


def from_v2_names(params: Mapping[str, Any], *, defaults: bool = True) -> dict[str, Any]:
    """Page-named fields from LoadData3DParamsV2 member names (members left out take the struct's defaults
    when ``defaults``); members without a bit field (padList, l1H, l1W, padValue, enSmallK) are not fields."""
    out: dict[str, Any] = {}
    for k, value in params.items():
        if k in V2_OTHER_DEFAULTS:
            continue
        f = BY_V2.get(k)
        if f is None:
            raise CodecError(f"unknown LoadData3DParamsV2 member {k!r}")
        out[f.name] = value
    if defaults:
        for v2, value in V2_DEFAULTS.items():
            out.setdefault(BY_V2[v2].name, value)
    return out


class Load3DBitModeParam:
    """The C++ class in Python: ``config0`` / ``config1`` words, the page's getters and setters, and
    construction from a LoadData3DParamsV2 (a mapping of its member names, or any object with them).

    >>> p = Load3DBitModeParam()
    >>> p.SetKExtension(32); p.SetStrideW(1); p.GetConfig0()
    32
    """

    __slots__ = ("_words",)

    def __init__(self, config0: int = 0, config1: int = 0) -> None:
        self._words = [_check_word("config0", config0), _check_word("config1", config1)]

    # -- words --------------------------------------------------------------------------------------------------
    @property
    def config0(self) -> int:
        return self._words[0]

    @config0.setter
    def config0(self, value: int) -> None:
        self._words[0] = _check_word("config0", value)

    @property
    def config1(self) -> int:
        return self._words[1]

    @config1.setter
    def config1(self, value: int) -> None:
        self._words[1] = _check_word("config1", value)

    def GetConfig0(self) -> int:  # noqa: N802 - the page's name
        return self._words[0]

    def GetConfig1(self) -> int:  # noqa: N802 - the page's name
        return self._words[1]

    # -- fields -------------------------------------------------------------------------------------------------
    def get(self, name: str) -> Any:
        """A field by its page name (bool for a 1-bit field)."""
        f = BY_NAME[name]
        raw = (self._words[f.word] >> f.lo) & f.hi
        return bool(raw) if f.is_flag else raw

    def set(self, name: str, value: Any) -> None:
        """Set a field by its page name; CodecError when the value does not fit its width."""
        f = BY_NAME[name]
        v = _check(f, value)
        self._words[f.word] = (self._words[f.word] & ~f.mask & WORD_MAX) | (v << f.lo)

    def fields(self) -> dict[str, Any]:
        """Every field by page name."""
        return decode(*self._words)

    @classmethod
    def from_fields(cls, **fields: Any) -> "Load3DBitModeParam":
        return cls(*encode(fields))

    @classmethod
    def from_v2(cls, params: Any) -> "Load3DBitModeParam":
        """Like the C++ constructor from ``LoadData3DParamsV2``: members left out take the struct's defaults
        (strideW = strideH = filterW = filterH = dilationFilterW/H = 1, the rest 0 / false)."""
        if not isinstance(params, Mapping):
            params = {k: getattr(params, k) for k in (*V2_DEFAULTS, *V2_OTHER_DEFAULTS) if hasattr(params, k)}
        return cls(*encode(from_v2_names(params)))

    def to_v2(self) -> dict[str, Any]:
        """The fields under their LoadData3DParamsV2 names."""
        return {BY_NAME[k].v2: v for k, v in self.fields().items()}

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Load3DBitModeParam) and self._words == other._words

    def __hash__(self) -> int:
        return hash(tuple(self._words))

    def __repr__(self) -> str:
        return f"Load3DBitModeParam(config0=0x{self._words[0]:016x}, config1=0x{self._words[1]:016x})"


def _accessors(f: BitField) -> tuple[Any, Any]:
    def getter(self: Load3DBitModeParam) -> Any:
        return self.get(f.name)

    def setter(self: Load3DBitModeParam, value: Any) -> None:
        self.set(f.name, value)

    getter.__name__, setter.__name__ = f"Get{f.accessor}", f"Set{f.accessor}"
    getter.__doc__ = f"{f.name} ({f.bits}; {SEED} {f.table}, {f.name})"
    setter.__doc__ = f"Set {f.name} ({f.bits}, {f.width} bit{'s' if f.width > 1 else ''}); CodecError beyond its width"
    return getter, setter


for _f in BITFIELDS:
    _g, _s = _accessors(_f)
    setattr(Load3DBitModeParam, _g.__name__, _g)
    setattr(Load3DBitModeParam, _s.__name__, _s)
del _f, _g, _s
