"""`ascverify decode` / `ascverify encode`: the packed parameter words of an API and their fields.

One codec so far, ``load3d`` (Load3DBitModeParam's config0 / config1, `ascverify.models.codec`).
"""

from __future__ import annotations

from typing import Any

import click

from ..models.codec import (BITFIELDS, BY_NAME, BY_V2, CodecError, decode as decode_words, encode as encode_words,
                            from_v2_names)
from ..models.load3d import PAGE_ONLY, V2_ONLY
from ..cases.fields import short
from ..spec.errors import InputError, did_you_mean
from .common import FORMAT_OPTION, emit, joined_lines, main, print_json
from .options import verbosity_options

#: codec name (lower case) -> the canonical name; all name Load3DBitModeParam's two words.
CODECS = {"load3d": "load3d", "load3dbitmode": "load3d", "load3dbitmodeparam": "load3d", "loaddata3dbitmode": "load3d"}


def _codec(name: str) -> str:
    got = CODECS.get(name.lower())
    if got is None:
        raise InputError(f"unknown codec {name!r}{did_you_mean(name, ['load3d', 'Load3DBitModeParam'])} "
                         "(known: load3d)", field="CODEC")
    return got


def _word(text: str, name: str) -> int:
    """A uint64 word given in decimal, or with 0x / 0o / 0b (underscores allowed)."""
    try:
        value = int(text.strip(), 0)
    except ValueError:
        raise InputError(f"expected an integer (decimal, 0x..., 0b... or 0o...), got {short(text)}", field=name) from None
    if not 0 <= value <= 2**64 - 1:  # (shown as given: a number of thousands of digits has no decimal form here)
        raise InputError(f"{short(text.strip())} is outside uint64 [0, 2^64-1]", field=name)
    return value


def _words_json(c0: int, c1: int) -> dict[str, Any]:
    return {"config0": c0, "config1": c1, "config0_hex": f"0x{c0:016x}", "config1_hex": f"0x{c1:016x}"}


def _words_text(c0: int, c1: int) -> list[str]:
    return [f"config0 = 0x{c0:016x} ({c0})", f"config1 = 0x{c1:016x} ({c1})"]


@main.command()
@click.argument("codec", metavar="CODEC")
@click.argument("config0", metavar="CONFIG0")
@click.argument("config1", metavar="CONFIG1")
@FORMAT_OPTION
@verbosity_options()
def decode(codec: str, config0: str, config1: str, fmt: str) -> None:
    """Print the fields packed in CONFIG0 and CONFIG1.

    CODEC `load3d`: Load3DBitModeParam (LoadData's img2col parameter, Load3DBitMode (LoadData) page). The words
    are uint64 values in decimal, 0x..., 0o... or 0b... (_ between digits allowed). Each field is printed with
    its value, its bits and its LoadData3DParamsV2 name; 1-bit fields as true / false.

    \b
    Examples:
      ascverify decode load3d 0x100080 0x20002020202041
      ascverify decode load3d 1048704 9007337232670785 --format json

    Exit status: 0, or 2 when a word is not a uint64 or the codec is unknown.
    """
    _codec(codec)
    c0, c1 = _word(config0, "CONFIG0"), _word(config1, "CONFIG1")
    fields = decode_words(c0, c1)
    if fmt == "json":
        print_json({"codec": "load3d", **_words_json(c0, c1), "fields": fields,
                    "bits": {f.name: f.bits for f in BITFIELDS}, "v2_names": {f.name: f.v2 for f in BITFIELDS}})
        return
    width = max(len(f.name) for f in BITFIELDS)
    lines = _words_text(c0, c1)
    for f in BITFIELDS:
        value = fields[f.name]
        shown = ("true" if value else "false") if f.is_flag else str(value)
        lines.append(f"{f.name:<{width}}  {shown:>5}  {f.bits:<17} (LoadData3DParamsV2 {f.v2})")
    emit(joined_lines(lines))


def _value(text: str, name: str, flag: bool) -> Any:
    low = text.strip().lower()
    if flag:
        if low in ("true", "1"):
            return True
        if low in ("false", "0"):
            return False
        raise InputError(f"{name} is a 1-bit flag: expected true or false, got {text!r}", field=name)
    try:
        return int(low, 0)
    except ValueError:
        raise InputError(f"expected an integer, got {short(text)}", field=name) from None


@main.command()
@click.argument("codec", metavar="CODEC")
@click.argument("assignments", nargs=-1, required=True, metavar="NAME=VALUE...")
@FORMAT_OPTION
@verbosity_options()
def encode(codec: str, assignments: tuple[str, ...], fmt: str) -> None:
    """Pack fields into CONFIG0 and CONFIG1 and print both words.

    CODEC `load3d`: Load3DBitModeParam. Fields are named as on the Load3DBitMode (LoadData) page (kStep, mStep, kPos,
    mPos, strideW, strideH, Wk, Hk, dilationW, dilationH, filterW, filterH, transpose,
    fmatrixCtrl, sizeChannel; those left out are 0, as the unions are initialized), or all as
    LoadData3DParamsV2 members (kExtension, ..., filterW/filterH = kernel size, filterSizeW/H =
    the +256 flags, channelSize; those left out take the struct's defaults). Values are decimal,
    0x..., 0o... or 0b...; flags true / false. A value beyond its field's width is refused.

    \b
    Examples:
      ascverify encode load3d kStep=128 mStep=16 strideW=1 strideH=1 Wk=2 Hk=2 dilationW=2 dilationH=2 sizeChannel=32
      ascverify encode load3d kExtension=128 mExtension=16 filterW=2 filterH=2 channelSize=32 --format json

    Exit status: 0, or 2 for no NAME=VALUE, an unknown name, a mix of the two namings, or a value that does not fit.
    """
    _codec(codec)
    pairs: list[tuple[str, str]] = []
    for spec in assignments:
        if "=" not in spec:
            raise InputError(f"expected NAME=VALUE, got {spec!r}", field="NAME=VALUE")
        name, text = (s.strip() for s in spec.split("=", 1))
        pairs.append((name, text))
    names = [n for n, _ in pairs]
    known = sorted(set(BY_NAME) | set(BY_V2))
    for n in names:
        if n not in BY_NAME and n not in BY_V2:
            raise InputError(f"unknown field {n!r}{did_you_mean(n, known)}", field=n)
    if len(set(names)) != len(names):
        dup = next(n for n in names if names.count(n) > 1)
        raise InputError("given twice", field=dup)
    page = [n for n in names if n in PAGE_ONLY]
    v2 = [n for n in names if n in V2_ONLY]
    if page and v2:
        raise InputError(f"{v2[0]!r} is a LoadData3DParamsV2 name but {page[0]!r} a Load3DBitModeParam field; "
                         "use one naming", field=v2[0])
    # only shared names (strideW/H, filterW/H): filterW=<integer> is a kernel size (LoadData3DParamsV2)
    use_v2 = bool(v2) or (not page and any(n in ("filterW", "filterH") and _not_flag(t) for n, t in pairs))
    try:
        if use_v2:
            fields = from_v2_names({n: _value(t, n, BY_V2[n].is_flag) for n, t in pairs})
        else:
            fields = {n: _value(t, n, BY_NAME[n].is_flag) for n, t in pairs}
        c0, c1 = encode_words(fields)
    except CodecError as exc:
        raise InputError(str(exc)) from None
    if fmt == "json":
        print_json({"codec": "load3d", "naming": "LoadData3DParamsV2" if use_v2 else "Load3DBitModeParam",
                    **_words_json(c0, c1)})
        return
    emit(joined_lines(_words_text(c0, c1)))


def _not_flag(text: str) -> bool:
    return text.strip().lower() not in ("true", "false", "0", "1")
