"""ResetMask(): the vector mask register back to its default, all ones (the vendor's ResetMask page; pyasc
``reset_mask``). It writes both 64-bit words of the register (``set_vector_mask(FULL_MASK, FULL_MASK)``), which the
vector unit then reads in the mode it is in (`mask_mode`): in Normal mode every lane of a repeat, in Counter mode a
count of 2**64 - 1 elements."""

from __future__ import annotations

from typing import Any, Mapping

from ..cases.case import Case
from ..cases.parse import parse_case
from ..core.memory import Memory, Trace
from ..spec.model import SpecNote
from ..spec.registry import get_api, register
from .mask_mode import MASK_MODE_STATE, MaskUnitCall
from .vector_common import NOTES_MASKS, VECTOR_MASK_STATE

PAGE = "ResetMask (asc-devkit docs)"
#: the value ResetMaskImpl writes into each word of the mask register
FULL_MASK = 2**64 - 1

TRAINING = SpecNote(
    "reset_mask.training", "ResetMask on the training series",
    "Accepted on atlas-training with the warning reset_mask.product.page (not the error product.support): the call "
    "writes the register's two words as on every other product.",
    "The ResetMask page lists the Atlas training series as not supported. The vendor's implementation has no product "
    "guard (ResetMaskImpl: set_vector_mask(FULL_MASK, FULL_MASK) on every core but the cube), and its training-series "
    "implementation calls it itself: dav_c100's VselImpl ends its tail with ResetMask(). A tool that refused the "
    "vendor's own call would be wrong; the page's word stays visible as a warning.",
    (f"{PAGE}, Product support (Atlas training series: not supported)",
     "asc-devkit impl/basic_api/kernel_reg.h:51-56 (ResetMaskImpl)",
     "asc-devkit impl/basic_api/dav_c100/kernel_operator_vec_cmpsel_impl.h:287 (VselImpl, the training series)"),
    ("reset_mask.product.page", "reset_mask.product.support"))

WORDS = SpecNote(
    "reset_mask.words", "What ResetMask writes, in either mask mode",
    "ResetMask() writes all ones into both words of the mask register, as SetVectorMask<T, mode>(FULL, FULL) would "
    "without its own rules on the words: in Normal mode every lane of a repeat is enabled (an 8-bit T's lanes past "
    "the register's 128 bits stay off, as for SetVectorMask); in Counter mode (after SetMaskCount) the low word is "
    "read as the count, 2**64 - 1 elements: a BlockReduce with isSetMask=false after it draws the warning "
    "counter_mode (a count ascverify does not model: more repeats than repeatTime can say) and `run` leaves its "
    "results unspecified. The vendor's own example calls it in Counter mode with no op after it: valid.",
    f"{PAGE}, Description: 'restores the mask to its default value (all ones): every element of each iteration takes "
    "part'; asc-devkit impl/basic_api/kernel_reg.h:51-56 (ResetMaskImpl: set_vector_mask(FULL_MASK, FULL_MASK), "
    "whatever the mode); pyasc asc.language.basic.reset_mask, Example (set_mask_count(); set_vector_mask(len, "
    "mode=COUNTER); reset_mask()).",
    (f"{PAGE}, Description", "asc-devkit impl/basic_api/kernel_reg.h:51-56 (ResetMaskImpl)",
     "asc.language.basic.reset_mask (pyasc), Example", NOTES_MASKS),
    ())


@register
class ResetMask(MaskUnitCall):
    name = "ResetMask"
    aliases = ("reset_mask", "asc.language.basic.reset_mask")
    prefix = "reset_mask"
    summary = "put the vector mask register back to all ones (every lane of a repeat, read in the current mode)"
    page = PAGE
    tolerated = {"atlas-training": TRAINING}
    notes = (WORDS, TRAINING)

    def execute(self, case: Case, trace: Any) -> None:
        written = full_words(case, trace.memory.special.get(MASK_MODE_STATE))
        written.model.execute(written, trace)

    def apply_state(self, case: Case, state: dict[str, Any]) -> None:
        written = full_words(case, state.get(MASK_MODE_STATE))
        written.model.apply_state(written, state)
        state[VECTOR_MASK_STATE] = {**state[VECTOR_MASK_STATE], "writer": "ResetMask"}  # named in later messages


def full_words(case: Case, mode: str | None) -> Case:
    """The SetVectorMask call that writes what ResetMask writes: both words all ones, in ``mode`` (the mode the unit
    is in; Normal when no SetMaskCount / SetMaskNorm came before)."""
    return parse_case({"api": get_api("SetVectorMask").name, "product": case.product, "dtype": case.dtype.name,
                       "args": {"mask": [FULL_MASK, FULL_MASK], "mode": mode or "NORMAL"}})


def every_lane_is_enabled(case: Case, seed: int = 0) -> None:
    """After the call in Normal mode the core's mask register enables every lane of the register's 128 bits (an 8-bit
    T's lanes past them off), and a program's state says the same."""
    memory = Memory.for_product(case.ctx.product)
    case.model.execute(case, Trace(memory))
    register_state: Mapping[str, Any] = memory.special[VECTOR_MASK_STATE]
    lanes = register_state["lanes"]
    assert register_state["mode"] == "NORMAL" and lanes[:128].all() and not lanes[128:].any(), register_state
    state: dict[str, Any] = {}
    case.model.apply_state(case, state)
    fields = state[VECTOR_MASK_STATE]["fields"]
    assert (fields["mask.w0"], fields["mask.w1"]) == (FULL_MASK, FULL_MASK), fields


ResetMask.invariants = (every_lane_is_enabled,)
