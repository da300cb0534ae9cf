"""What SetMaskCount and SetMaskNorm share: the mask mode they put the vector unit in (a program's state and the
core's special register ``mask_mode``), which a later SetVectorMask's words are read in."""

from __future__ import annotations

from typing import Any, ClassVar, Iterable, Mapping

from ..cases.case import Case
from ..core.memory import Memory, Trace
from ..spec.model import ApiModel, SpecNote
from ..spec.products import PRODUCT_IDS
from ..spec.rules import WARNING, Rule, rule
from .vector_common import NOTES_MASKS

#: The program state key (and the core's special register) of the mask mode: "COUNTER" or "NORMAL"
MASK_MODE_STATE = "mask_mode"
#: The vendor's pages of the two calls (same product support: not the inference Vector Core, not the training series)
COUNT_PAGE = "SetMaskCount (asc-devkit docs)"
NORM_PAGE = "SetMaskNorm (asc-devkit docs)"
UNSUPPORTED = ("atlas-inference-vectorcore", "atlas-training")
#: Any T: the calls have none (the program's T is taken as it is)
TYPES = ("half", "float", "bfloat16", "int16", "uint16", "int32", "uint32", "int8", "uint8", "int64", "uint64",
         "fp8_e4m3fn", "fp8_e5m2", "hifloat8")


def mode_note(name: str, mode: str, page: str, prefix: str) -> SpecNote:
    """The reading both calls share: call ``name`` sets ``mode`` ("COUNTER" / "NORMAL"), documented on ``page``."""
    title = mode.title()
    return SpecNote(
        f"{prefix}.mode", "The mask mode in a program",
        f"{name}() puts the vector unit in {title} mode: a later SetVectorMask writes its words and they are read in "
        "this mode, whatever SetVectorMask's own template mode (the vendor's SetVectorMask<T>(0, n) after "
        "SetMaskCount() sets a count of n; SetVectorMask<T, COUNTER>(n) after SetMaskNorm() a bit mask of n's bits, "
        "the warning set_vector_mask.mode.differs). Without either call in a program, SetVectorMask's template mode "
        "is taken as the mode (the program may be a fragment of a kernel that called one earlier). Supported where "
        "the vendor's page says: not on the training series nor the inference Vector Core (product.support).",
        f"{page}, Description: 'sets the Mask mode to {title} mode ... use it with isSetMask = false and set the mask "
        "with SetVectorMask'; the SetVectorMask page: 'call SetMaskCount / SetMaskNorm first to set the mode'; "
        "asc-devkit impl/basic_api/kernel_reg.h (SetMaskCountImpl / SetMaskNormImpl: set_mask_count(), "
        "set_mask_norm(); SetVectorMaskImpl writes the words whatever the mode).",
        (f"{page}, Product support", f"{page}, Description", NOTES_MASKS, "SetVectorMask (asc-devkit docs), Description"),
        (f"{prefix}.product.support",))


class MaskUnitCall(ApiModel):
    """A call without arguments on the vector unit's mask (SetMaskCount, SetMaskNorm, ResetMask): supported where the
    vendor's pages say (not the training series, not the inference Vector Core), and on a product the page excludes
    where the vendor's own code makes the call (``tolerated``) accepted with a warning, ``<prefix>.product.page``."""

    page: ClassVar[str] = NORM_PAGE
    #: products the page excludes where the vendor's own code makes the call: accepted with a warning
    #: (``<prefix>.product.page``) and the product's spec note, which gives both sources
    tolerated: ClassVar[Mapping[str, SpecNote]] = {}
    seed = "004_2ad9555534615f32.txt"
    support = {p: TYPES for p in PRODUCT_IDS if p not in UNSUPPORTED}
    default_dtype = "half"
    typed = False  # no template type: a T outside the list is a warning, not an error
    args = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Each call's source and support from its ``page`` and ``tolerated`` products."""
        super().__init_subclass__(**kwargs)
        cls.support = {p: TYPES for p in PRODUCT_IDS if p not in UNSUPPORTED or p in cls.tolerated}
        refused = ", ".join(p for p in UNSUPPORTED if p not in cls.tolerated)
        cls.support_source = (f"{cls.page}, Product support (not the training series, not the inference Vector "
                              f"Core; refused here on {refused}); {NOTES_MASKS}; types: none, the program's T is taken "
                              "as it is")

    def api_rules(self) -> Iterable[Rule]:
        for product, note in self.tolerated.items():
            yield rule(f"{self.prefix}.product.page", ("product",), lambda v, ctx: False,
                       f"{self.name}() on {{product}}: its page says the product does not support it, but the "
                       f"vendor's own code and tests make the call there (spec note {note.id})",
                       "; ".join((*note.sources, NOTES_MASKS)), severity=WARNING, products=(product,),
                       notes=(note.id,), help=f"{self.name} on a product its page lists")

    def footprint(self, case: Case) -> Mapping[str, list[tuple[str, int, int]]]:
        return {}


class MaskModeSetter(MaskUnitCall):
    """SetMaskCount() / SetMaskNorm(): no argument; the mode a SetVectorMask after it writes its words in."""

    mode: ClassVar[str] = "NORMAL"

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Each call's spec notes, from its ``mode``, ``page`` and ``tolerated`` products."""
        super().__init_subclass__(**kwargs)
        cls.notes = (mode_note(cls.name, cls.mode, cls.page, cls.prefix), *cls.tolerated.values())

    def execute(self, case: Case, trace: Any) -> None:
        trace.memory.special[MASK_MODE_STATE] = self.mode

    def apply_state(self, case: Case, state: dict[str, Any]) -> None:
        state[MASK_MODE_STATE] = self.mode


def mode_register_is_set(case: Case, seed: int = 0) -> None:
    """After the call the core's mode register and a program's state hold the call's mode, and a SetVectorMask after
    it reads its words in that mode."""
    memory = Memory.for_product(case.ctx.product)
    case.model.execute(case, Trace(memory))
    assert memory.special[MASK_MODE_STATE] == case.model.mode, memory.special
    state: dict[str, Any] = {}
    case.model.apply_state(case, state)
    assert state == {MASK_MODE_STATE: case.model.mode}, state


MaskModeSetter.invariants = (mode_register_is_set,)
