"""What the masked vector APIs share: the mask rules of the pages and the mask's lane expansion."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Callable, Mapping

import numpy as np

from ..cases.case import Case
from ..spec.logic import And, Between, If, Implies, Not, Or
from ..spec.products import PRODUCT_IDS
from ..spec.dtypes import lookup_dtype
from ..spec.model import SpecNote
from ..spec.params import MASK_WORDS
from ..spec.rules import ERROR, WARNING, Context, Rule, Values, field_range, rule

NOTES_MASKS = "HARDWARE_NOTES.md Masks (vector ops)"
REPEAT_BYTES = 256
#: Bits of the vector mask register (two 64-bit words).
REGISTER_BITS = 128
BLOCK_BYTES = 32
#: The program state key SetVectorMask sets: the mask that masked calls with isSetMask=false use.
VECTOR_MASK_STATE = "vector_mask"
#: The mask fields that state keeps (a case's, as the register holds them)
MASK_REGISTER_FIELDS = ("mask.bitwise", "mask.count", "mask.nwords", "mask.w0", "mask.w1")
#: Those fields with both words all ones (ResetMask's register)
ALL_ONES_FIELDS = {"mask.bitwise": True, "mask.count": 0, "mask.nwords": 2, "mask.w0": 2**64 - 1, "mask.w1": 2**64 - 1}


def mask_register_state(dtype: str, mode: str, fields: Mapping[str, Any],
                        writer: str | None = None) -> dict[str, Any]:
    """The program state `VECTOR_MASK_STATE` holds after a call writes the mask register: the writer's type, the mode
    the words are read in (NORMAL / COUNTER), the mask fields and, for later messages, who wrote them."""
    state = {"dtype": dtype, "mode": mode, "fields": {f: fields[f] for f in MASK_REGISTER_FIELDS}}
    if writer is not None:
        state["writer"] = writer
    return state


@dataclass(frozen=True)
class Register:
    """`mask_rules` for a setter of the mask register: the spec notes of the warnings it has instead of errors."""

    notes: tuple[str, ...] = ()


#: The vendor's general page on operand overlap (通用说明和约束, section 通用地址重叠约束): within one iteration source and
#: destination overlap 100% or not at all; no earlier iteration's destination over a later one's source; an API whose
#: page describes no overlap constraint does not support overlap.
OVERLAP_PAGE = "General Notes and Restrictions (asc-devkit docs), General Address Overlap Restrictions"


def lanes_per_repeat(ctx: Context) -> int:
    """Elements one repeat (256 bytes) processes: 128 for 16-bit, 64 for 32-bit, 32 for 64-bit types."""
    return REPEAT_BYTES * 8 // ctx.dtype.bits


def mask_word_count(ctx: Context) -> int:
    """Words of a bitwise mask: 2 for 16-bit operands, 1 otherwise (pages 000 and 004, mask)."""
    return 2 if ctx.dtype.bits <= 16 else 1


def mask_high_word_note(prefix: str, source: str) -> SpecNote:
    """The reading of a bitwise mask's second word for a 32- or 64-bit op (a model whose op takes `mask_rules`)."""
    return SpecNote(
        f"{prefix}.mask-high-word", "A second mask word for a 32- or 64-bit T",
        "A bitwise mask of a 32- or 64-bit op may have two words, as the C++ array uint64_t mask[2] has: the op reads "
        "mask[0] only (64 lanes or fewer), so the second word has no effect: a warning when it is not 0, nothing "
        "when it is. One word, or for a 16-bit op two, as before; no word or more than two: an error.",
        "The prototype takes const uint64_t mask[] whatever T; the vendor's shipping code passes two-word arrays "
        "for float ops, e.g. ReduceMax/ReduceMin's uint64_t mainMask[] = {mainMaskLow, mainMaskHigh} with "
        "mainMaskHigh 0 for float (asc-devkit impl/adv_api/detail/reduce/reduce_common_util_v220_impl.h, "
        "DoReduceLessThanBlk, and ComputeMaskBit), so a faithful translation of that call has two words. The "
        "hardware notes: mask[0] holds the low 64 elements, mask[1] the high 64.",
        (source, NOTES_MASKS,
         "asc-devkit impl/adv_api/detail/reduce/reduce_common_util_v220_impl.h (DoReduceLessThanBlk)"),
        (f"{prefix}.mask.words.count", f"{prefix}.mask.words.high"))


def mask_rules(prefix: str, source: str, name: str = "mask", *, placeholder: bool = False, flag: str | None = None,
               empty: str = ERROR, empty_notes: tuple[str, ...] = (), zero_count_notes: tuple[str, ...] = (),
               empty_ok_on: tuple[str, ...] = (), applies: Callable[[Values, Context], Any] | None = None,
               register: Register | None = None) -> list[Rule]:
    """The mask rules of the pages, for 16-, 32- and 64-bit operands, both modes.

    ``placeholder``: the mask argument declares a placeholder (`MaskArg.placeholder`); the rules then
    do not apply to a case that gives the placeholder (its mask is set elsewhere). ``empty``: the severity of
    the rules against a mask that enables no lane, a bitwise mask whose words are all 0 or a contiguous mask of 0
    (a setter may store one that no op uses); an ERROR refuses contiguous 0 in the range rule itself, otherwise a
    rule of its own warns of it (``zero_count_notes``: its spec notes; ``empty_notes``: the bitwise rule's).
    ``empty_ok_on``: products where an ERROR-severity ``empty`` does not apply (a mask with no lane is a documented
    no-op there; the caller warns of it). ``flag``: a bool field (isSetMask) without which the mask argument has no
    effect: the rules then do not apply. ``applies``: when the rules apply at all (SetVectorMask: in Normal mode).
    ``register``: the mask is written to the 128-bit mask register by a setter (SetVectorMask), not read by an op:
    the bitwise form is the setter's [maskLow, maskHigh] (its words, low first), so a 32- or 64-bit T may give maskHigh as a second word
    (a warning when it is not 0), a 64-bit maskLow past 2^32-1 and a contiguous count past the type's lanes are
    warnings (``register.notes``: their spec notes), and the list has 1 or 2 words wherever ``applies`` does not
    hold (the prototype's two parameters).
    """

    def given(v: Values, ctx: Context, cond: Any, *, in_effect: bool = True) -> Any:
        if flag is not None and in_effect:
            cond = And(v[flag], cond)
        if applies is not None and in_effect:
            cond = And(applies(v, ctx), cond)
        return And(Not(v[f"{name}.placeholder"]), cond) if placeholder else cond

    def least_words(v: Values, ctx: Context) -> Any:
        """Fewest words of the list: the type's where the rules apply, else (a setter's other modes) 1."""
        return mask_word_count(ctx) if applies is None else If(applies(v, ctx), mask_word_count(ctx), 1)

    def bitwise(v: Values, ctx: Context) -> Any:
        return given(v, ctx, getattr(v, name).bitwise)

    def bitwise_given(v: Values, ctx: Context) -> Any:  # the list's length: its shape, whether the mask counts or not
        return given(v, ctx, getattr(v, name).bitwise, in_effect=False)

    def contiguous(v: Values, ctx: Context) -> Any:
        return given(v, ctx, Not(getattr(v, name).bitwise))

    def words_nonzero(v: Values, ctx: Context) -> Any:
        m = getattr(v, name)
        return Or(*(w != 0 for w in m.words[: mask_word_count(ctx)]))

    def word_width(v: Values, ctx: Context) -> Any:
        m = getattr(v, name)
        return Implies(ctx.dtype.bits == 64, Between(0, m.words[0], 2**32 - 1))

    empty_is_error = empty == ERROR

    def least_count(ctx: Context) -> int:
        return 0 if ctx.product.id in empty_ok_on else 1

    rules = [
        field_range(f"{prefix}.{name}.count.range", f"{name}.count",
                    (least_count if empty_ok_on else 1) if empty_is_error else 0, lanes_per_repeat,
                    f"{source}, {name} (contiguous mode); {NOTES_MASKS}", param=name, when=contiguous,
                    message=f"contiguous {name}={{value}} is outside [{{lo}}, {{hi}}] for T={{dtype}}"
                            + ("; the register gets every lane of the type (SetMask<T>(len) saturates)" if register else ""),
                    severity=WARNING if register else ERROR, notes=register.notes if register else ()),
        rule(f"{prefix}.{name}.words.count", (name, "dtype"),
             (lambda v, ctx: Between(least_words(v, ctx), getattr(v, name).nwords, MASK_WORDS)) if register else
             (lambda v, ctx: getattr(v, name).nwords == MASK_WORDS if mask_word_count(ctx) == MASK_WORDS else
              Between(1, getattr(v, name).nwords, MASK_WORDS)),
             f"bitwise {name} has {{n}} word(s); T={{dtype}} needs {{need}}",
             f"{source}, {name} (bitwise mode: array length)", when=bitwise_given,
             facts=lambda v, ctx: {"n": getattr(v, name).nwords,
                                   "need": (("1 or 2" if least_words(v, ctx) == 1 else str(mask_word_count(ctx)))
                                            if register else
                                            str(MASK_WORDS) if mask_word_count(ctx) == MASK_WORDS else "1 or 2")},
             help=f"bitwise {name}: 2 words for 16-bit T, 1 word otherwise (or 2, the second being "
                  + ("maskHigh)" if register else "the array's mask[1], which a 32- or 64-bit op does not read)"),
             notes=() if register else (f"{prefix}.mask-high-word",)),
        rule(f"{prefix}.{name}.words.nonzero", (name,), words_nonzero,
             f"bitwise {name}={{{name}}} selects no element (the words must not all be 0)" if empty_is_error else
             f"bitwise {name}={{{name}}} selects no element: a masked op that uses it (isSetMask=false) computes "
             f"nothing (that op's mask rules say whether it may)",
             f"{source}, {name} (bitwise mode); {NOTES_MASKS}", when=bitwise, severity=empty, notes=empty_notes,
             products=[p for p in PRODUCT_IDS if p not in empty_ok_on] if empty_ok_on else None,
             help=f"bitwise {name} words not all 0"),
        rule(f"{prefix}.{name}.words.width", (name, "dtype"), word_width,
             f"bitwise {name}[0]={{w0}} exceeds 2^32-1 for a 64-bit T"
             + (" (the register takes it; a 64-bit op uses the low 32 bits)" if register else ""),
             f"{source}, {name} (bitwise mode, 64-bit operands)",
             when=bitwise, facts=lambda v, ctx: {"w0": getattr(v, name).words[0]},
             severity=WARNING if register else ERROR, notes=register.notes if register else (),
             help=f"bitwise {name}[0] <= 2^32-1 for 64-bit T"),
    ]
    rules.append(rule(f"{prefix}.{name}.words.high", (name, "dtype"),
                      lambda v, ctx: Or(ctx.dtype.bits <= 16, getattr(v, name).nwords < MASK_WORDS,
                                        getattr(v, name).words[1] == 0),
                      f"bitwise {name}[1] (maskHigh)={{w1}} for a {{bits}}-bit T: the page sets maskHigh to 0 for "
                      f"32- and 64-bit operands (an op of that width uses the low word)" if register else
                      f"bitwise {name}[1]={{w1}} for a {{bits}}-bit T has no effect: an op of that width reads "
                      f"mask[0] only ({{lanes}} lanes)",
                      f"{source}, {name} (bitwise mode, 32- and 64-bit operands)", when=bitwise, severity=WARNING,
                      facts=lambda v, ctx: {"w1": getattr(v, name).words[1], "bits": ctx.dtype.bits,
                                            "lanes": lanes_per_repeat(ctx)},
                      notes=register.notes if register else (f"{prefix}.mask-high-word",),
                      help=f"{name}[1] 0 for 32- and 64-bit T"))
    if not empty_is_error:
        rules.append(rule(f"{prefix}.{name}.count.nonzero", (name,), lambda v, ctx: getattr(v, name).count != 0,
                          f"contiguous {name}=0 enables no lane: a masked op that uses it (isSetMask=false) computes "
                          f"nothing (that op's mask rules say whether it may)", f"{source}, {name} (contiguous mode)", when=contiguous, severity=empty,
                          notes=zero_count_notes, help=f"contiguous {name} not 0"))
    # the domain names the mask: strategies draw masks that meet these rules (`_mask_strategy`)
    return [replace(r, domain={**r.domain, "mask": name}) for r in rules]


def mask_selects_nothing(v: Values, ctx: Context, *, placeholder: bool = False) -> Any:
    """The mask argument selects no lane: a contiguous 0, or bitwise words all 0 (not the placeholder, when the
    argument declares one)."""
    m = v.mask
    words_zero = And(*(w == 0 for w in m.words[: mask_word_count(ctx)]))
    none = Or(And(m.bitwise, words_zero), And(Not(m.bitwise), m.count == 0))
    return And(Not(v["mask.placeholder"]), none) if placeholder else none


def lane_mask(case: Case, name: str = "mask") -> np.ndarray:
    """Active lanes of one repeat (bool, lanes_per_repeat long); mask[0] holds the low 64 lanes."""
    n = lanes_per_repeat(case.ctx)
    env = case.env
    if env[f"{name}.bitwise"]:
        words = [int(env[f"{name}.w{i}"]) for i in range(mask_word_count(case.ctx))]
        bits = np.zeros(n, dtype=bool)
        for i, w in enumerate(words):
            chunk = np.frombuffer(np.uint64(w & (2**64 - 1)).tobytes(), dtype=np.uint8)
            word_bits = np.unpackbits(chunk, bitorder="little").astype(bool)
            lo = 64 * i
            hi = min(n, lo + 64)
            bits[lo:hi] = word_bits[: hi - lo]
        return bits
    return np.arange(n) < int(env[f"{name}.count"])


def counter_count(fields: Any) -> Any:
    """A Counter-mode count from a mask's fields (a case's values, columns or Z3 terms, or the fields a program's
    state holds): len (the integer form) or maskLow (mask[0] of the list form); the form not given holds 0."""
    return fields["mask.count"] + fields["mask.w0"]


def counter_elements(state: Mapping[str, Any]) -> int | None:
    """The element count the last SetVectorMask of a program set in Counter mode (None: none did, or in Normal
    mode)."""
    got = state.get(VECTOR_MASK_STATE)
    if got is None or got.get("mode") != "COUNTER":
        return None
    return int(counter_count(got["fields"]))


def effective_mask(state: Mapping[str, Any], ctx: Context) -> dict[str, Any] | None:
    """The mask fields the last SetVectorMask of a program set, as an op of ``ctx``'s type reads the register (a
    second word past the op's words is not read); None when none did, or when it set a Counter-mode count (which
    no modelled op's semantics cover)."""
    got = state.get(VECTOR_MASK_STATE)
    if got is None or got.get("mode", "NORMAL") != "NORMAL":
        return None
    fields = dict(got["fields"])
    words = mask_word_count(ctx)
    if fields["mask.bitwise"]:
        if fields["mask.nwords"] > words:
            fields["mask.nwords"] = words
            for i in range(words, MASK_WORDS):
                fields[f"mask.w{i}"] = 0
        return fields
    # SetMask<T>(len): all 128 bits when len >= 128 or len is T's lanes, else the low len bits
    count, setter_lanes = int(fields["mask.count"]), REPEAT_BYTES * 8 // lookup_dtype(got["dtype"]).bits
    lanes = lanes_per_repeat(ctx)
    fields["mask.count"] = lanes if count >= REGISTER_BITS or count == setter_lanes else min(count, lanes)
    return fields
