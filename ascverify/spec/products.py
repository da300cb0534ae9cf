"""The Ascend products the pages name: buffer sizes, alignment per position, vector length."""

from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Mapping

from .errors import UnknownName, did_you_mean

KiB = 1024
MiB = 1024 * KiB

NOTES = "HARDWARE_NOTES.md"

#: TPosition -> physical buffer (HARDWARE_NOTES "Units and alignment").
POSITION_BUFFER: Mapping[str, str] = MappingProxyType({
    "VECIN": "UB", "VECCALC": "UB", "VECOUT": "UB",
    "A1": "L1", "B1": "L1",
    "A2": "L0A", "B2": "L0B",
    "CO1": "L0C",
})

#: Start-address alignment in bytes per physical buffer (HARDWARE_NOTES "Units and alignment").
BUFFER_ALIGNMENT: Mapping[str, int] = MappingProxyType({
    "UB": 32, "L1": 32, "L0A": 512, "L0B": 512, "L0C": 64,
})

POSITIONS: tuple[str, ...] = tuple(POSITION_BUFFER)
#: The other names of the vendor's TPosition enum (asc-devkit docs, TPosition): no modelled API takes a tensor
#: there, so a case naming one is told so rather than that the name is unknown (LCM is VECCALC's other name).
UNMODELLED_POSITIONS: Mapping[str, str] = MappingProxyType({
    "GM": "global memory is not modelled", "C1": "not modelled", "C2": "not modelled", "CO2": "not modelled",
    "LCM": "the vendor's other name of VECCALC: write VECCALC", "SPM": "not modelled", "SHM": "not modelled",
    "TSCM": "not modelled", "C2PIPE2GM": "not modelled", "C2PIPE2LOCAL": "not modelled",
})
BUFFERS: tuple[str, ...] = ("UB", "L1", "L0A", "L0B", "L0C")
VECTOR_POSITIONS: tuple[str, ...] = ("VECIN", "VECCALC", "VECOUT")


@dataclass(frozen=True)
class Product:
    """One product: its id, aliases, architecture and on-chip buffer sizes in bytes."""

    id: str
    name: str
    arch: str
    buffers: Mapping[str, int] = field(hash=False)
    aliases: tuple[str, ...] = ()
    vector_length: int = 256
    notes: str = ""
    source: str = f"{NOTES} Products"
    #: bytes the hardware has above ``buffers``' size that the runtime keeps for the vendor library's temporaries
    #: (a kernel allocates up to ``buffer_size``; an access there is legal, a tensor there draws a warning)
    reserved: Mapping[str, int] = field(default_factory=lambda: MappingProxyType({}), hash=False)

    def buffer_size(self, buffer: str) -> int:
        """Bytes of ``buffer`` a kernel allocates on this product (0 when the product has none)."""
        return self.buffers.get(buffer, 0)

    def physical_size(self, buffer: str) -> int:
        """Bytes of ``buffer`` the hardware has: ``buffer_size`` and the runtime's reserved bytes above it."""
        return self.buffers.get(buffer, 0) + self.reserved.get(buffer, 0)

    def physical_buffers(self) -> Mapping[str, int]:
        """Every buffer's physical size."""
        return MappingProxyType({b: self.physical_size(b) for b in self.buffers})

    def position_size(self, position: str) -> int:
        """Bytes of the physical buffer that ``position`` maps to."""
        return self.buffer_size(POSITION_BUFFER[position])


def _buffers(ub: int, l1: int = 0, l0ab: int = 0, l0c: int = 0) -> Mapping[str, int]:
    return MappingProxyType({"UB": ub, "L1": l1, "L0A": l0ab, "L0B": l0ab, "L0C": l0c})


PRODUCTS: tuple[Product, ...] = (
    Product("atlas-350", "Atlas 350 Accelerator Card (Ascend 950PR / 950DT)", "3510",
            _buffers(248 * KiB, 512 * KiB, 64 * KiB, 256 * KiB),
            aliases=("ascend-950pr", "ascend-950dt"),
            reserved=MappingProxyType({"UB": 8 * KiB}),
            notes="UB is 248 KiB by default (256 KiB with compile options); the default is what a kernel allocates. "
                  "The 8 KiB above it exist: the vendor's library keeps its temporaries there (TMP_UB_OFFSET = "
                  "GetRuntimeUBSize() = 248 KiB, asc-devkit impl/basic_api/utils/kernel_utils_constants.h; its CPU "
                  "model gives dav-3510 256 KiB of UB), so an access there is not out of bounds; a tensor there draws "
                  "a warning (rule PREFIX.TENSOR.reserved)."),
    Product("atlas-a3", "Atlas A3 training / inference", "2201",
            _buffers(192 * KiB, 512 * KiB, 64 * KiB, 128 * KiB)),
    Product("atlas-a2", "Atlas A2 training / inference (910B)", "2201",
            _buffers(192 * KiB, 512 * KiB, 64 * KiB, 128 * KiB)),
    Product("atlas-200i-500-a2", "Atlas 200I/500 A2 inference (310B)", "3002",
            _buffers(248 * KiB, 1 * MiB, 64 * KiB, 128 * KiB)),
    Product("atlas-inference-aicore", "Atlas inference product, AI Core (310P)", "2002",
            _buffers(256 * KiB, 1 * MiB, 64 * KiB, 256 * KiB)),
    Product("atlas-inference-vectorcore", "Atlas inference product, Vector Core (310P)", "2002",
            _buffers(256 * KiB), notes="Vector Core: UB only, no L1/L0 buffers."),
    Product("atlas-training", "Atlas training product (910)", "1001",
            _buffers(256 * KiB, 1 * MiB, 64 * KiB, 256 * KiB)),
)

PRODUCT_IDS: tuple[str, ...] = tuple(p.id for p in PRODUCTS)

_BY_NAME: dict[str, Product] = {}
for _p in PRODUCTS:
    _BY_NAME[_p.id] = _p
    for _alias in _p.aliases:
        _BY_NAME[_alias] = _p


def product_names() -> tuple[str, ...]:
    """Every accepted product name (ids and aliases)."""
    return tuple(_BY_NAME)


def lookup_product(name: str) -> Product | None:
    """The product for an id or alias (case-insensitive), or None."""
    return _BY_NAME.get(name.lower()) if isinstance(name, str) else None


def get_product(name: str) -> Product:
    """The product for an id or alias; `UnknownName` (an InputError with a did-you-mean, and a KeyError) when
    unknown, as `get_api`."""
    product = lookup_product(name)
    if product is None:
        raise UnknownName(f"unknown product {name!r}{did_you_mean(str(name), product_names())}", field="product")
    return product

