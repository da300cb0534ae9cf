"""A finding folder's ``finding.json``, read as input: a finding folder may be someone else's (docs/security.md).

It is read like a case file (a regular file within `FINDING_MAX_BYTES`, orjson, no key given twice, nesting
bounded: `cases.jsonread.checked`), and its fields must agree with one another (`load_meta`) and with the folder's
case.json (`check_case_matches`): a finding relabelled from one kind to another would replay a check it never
failed and report it as passing.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any, Mapping

import orjson

from ...cases.case import Case
from ...cases.fields import type_name
from ...cases.jsonread import MAX_DEPTH, checked, decode_message, too_deep
from ...cases.sources import read_bytes
from ...spec.errors import InputError, did_you_mean
from ..interrupts import MAX_TIMEOUT
from ..outputs import shown
from .checks import DIFFERENTIAL_CHECK, NEGATIVE_CHECKS, invariant_names
from .plan import KINDS

FINDING_FILE = "finding.json"
#: The largest seed a finding.json may record (a campaign draws them below 2**32).
MAX_SEED = 2**64 - 1
#: The largest finding.json read. A campaign writes a few KiB (2.8 KiB for a BilinearInterpolation mismatch); the
#: largest measured came from targets built to be large: 0.39 MiB for a Python target raising a 200,000-character
#: message, 0.89 MiB for one answering 8,000 names that are not outputs. The writer now bounds both (`DETAIL_MAX`,
#: `reproducers.NOTES_LISTED`): at most 16 Ki characters of detail (192 KiB even if every one is written as a
#: 12-byte escape) and 64 notes of at most about 3.5 KiB, so no finding.json of ours reaches half of this bound
#: (the same two targets now write 18 KiB and 8.6 KiB).
#: A hostile file at the bound (a million empty lists) adds about 0.6 s and 80 MB; a 63 MB one is refused unread.
FINDING_MAX_BYTES = 1 << 20
#: The most characters of a failure's ``detail`` (a target's traceback or output) a finding.json keeps.
DETAIL_MAX = 16 * 1024

#: Per kind of finding: the checks it may record (``invariants``: the invariants of the case's API).
_CHECKS = {"negative": NEGATIVE_CHECKS, "differential": (DIFFERENTIAL_CHECK,)}
#: Per kind of finding: how its failure keys start (an invariant's key is its check, or ``CHECK!Exception``).
_KEY_STARTS = {"negative": ("negative.",), "differential": ("differential.", "core.")}


def load_meta(folder: Path) -> dict[str, Any]:
    """``folder/finding.json``, its fields checked (types, ranges, and kind, check, key and unit agreeing);
    InputError naming the file (and the field) otherwise."""
    path = folder / FINDING_FILE
    if not folder.is_dir():
        what = "a file, not a folder" if os.path.lexists(folder) else "no such folder"
        raise InputError(f"not a finding folder ({what})", where=str(folder))
    if not path.is_file():
        if os.path.lexists(path):  # a FIFO, a device, a folder, a link to one: there, not a file
            raise InputError("is not a regular file (a finding folder's finding.json is one)", where=shown(path))
        raise InputError(f"not a finding folder (no {FINDING_FILE}, and no finding folder in it)", where=str(folder))
    where = shown(path)
    try:  # a regular file, read within a bound: a finding folder may be anyone's
        meta = _parse(read_bytes(str(path), FINDING_MAX_BYTES))
    except InputError as exc:
        raise InputError(exc.message, where=where, field=exc.field) from None
    if not isinstance(meta, dict):
        raise InputError(f"expected a JSON object, got {type_name(meta)}", where=where)
    _check_fields(meta, where)
    return meta


def _parse(raw: bytes) -> Any:
    """The JSON of a finding.json: orjson, then `checked` (nesting, duplicate keys). A campaign writes NaN and
    Infinity where an error has no finite size (``max_rel_error``), which orjson refuses: such a file is read by the
    standard library, still refusing a key given twice and deep nesting (the file is small: `FINDING_MAX_BYTES`)."""
    try:
        value = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        if b"NaN" not in raw and b"Infinity" not in raw:
            raise InputError(f"unreadable: {decode_message(exc, raw)}") from None
        try:
            value = json.loads(raw, object_pairs_hook=_once_each)
        except RecursionError:
            raise InputError(f"nested deeper than {MAX_DEPTH} levels") from None
        except ValueError as e:  # (an InputError from `_once_each` is not one)
            raise InputError(f"unreadable: {str(e)[:200]}") from None
        err = too_deep(value) if isinstance(value, (dict, list)) else None
        if err is not None:
            raise err
        return value
    err = checked(value, raw)
    if err is not None:
        raise err
    return value


def _once_each(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object of a finding.json the standard library reads; InputError for a key given twice."""
    out: dict[str, Any] = {}
    for k, v in pairs:
        if k in out:
            raise InputError(f"duplicate key {k[:60]!r} (a key may appear once in an object)", field=k[:60])
        out[k] = v
    return out


def _check_fields(meta: dict[str, Any], where: str) -> None:
    for k in ("kind", "seed", "api", "product", "key", "check"):
        if k not in meta:
            raise InputError(f"has no {k!r}", where=where)
    for k in ("kind", "api", "product", "key", "check"):
        if not isinstance(meta[k], str):
            raise InputError(f"expected a string, got {type_name(meta[k])}", where=where, field=k)
    kind = meta["kind"]
    if kind not in KINDS:
        raise InputError(f"unknown finding kind {shown(kind)[:80]!r} (expected one of {', '.join(KINDS)})",
                         where=where, field="kind")
    _check_kind_agrees(meta, where)
    seed = meta["seed"]
    if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed <= MAX_SEED:
        raise InputError(f"expected an integer from 0 to 2**64 - 1, got {shown(json.dumps(seed))[:40]}",
                         where=where, field="seed")
    target = meta.get("target")
    if target is not None and not (isinstance(target, dict) and target.get("kind") in ("python", "command")
                                   and isinstance(target.get("spec"), str)
                                   and isinstance(target.get("cwd", ""), (str, type(None)))):
        raise InputError("expected {\"kind\": \"python\"|\"command\", \"spec\": ...}", where=where, field="target")
    if kind == "negative" and not isinstance(meta.get("rule"), str):
        raise InputError("expected the id of the rule the case breaks", where=where, field="rule")
    timeout = meta.get("timeout")
    if timeout is not None and not (_number_in(timeout, 0, MAX_TIMEOUT) and timeout > 0):
        raise InputError(f"expected seconds, more than 0 and at most {MAX_TIMEOUT:g}", where=where, field="timeout")
    _check_overrides(meta.get("tolerance_overrides"), where)


def _check_kind_agrees(meta: Mapping[str, Any], where: str) -> None:
    """The fields that repeat the finding's kind say the same: its ``check``, its ``key`` and its ``unit``
    (``API/PRODUCT/KIND``). Whether an invariant's check is one of its API's is `check_case_matches`'s."""
    kind, check, key = meta["kind"], meta["check"], meta["key"]
    allowed = _CHECKS.get(kind)
    if allowed is not None and check not in allowed:
        raise InputError(f"{shown(check)[:80]!r} is not a check of a finding of kind {kind} (expected {' or '.join(allowed)})",
                         where=where, field="check")
    if allowed is None and check in (*NEGATIVE_CHECKS, DIFFERENTIAL_CHECK):
        raise InputError(f"{shown(check)[:80]!r} is not a check of a finding of kind {kind} (an invariant's name)",
                         where=where, field="check")
    starts = _KEY_STARTS.get(kind, (check + "!",))
    if not (key.startswith(starts) or (allowed is None and key == check)):
        raise InputError(f"{shown(key)[:80]!r} is not the key of a finding of kind {kind} and check {shown(check)[:80]!r}",
                         where=where, field="key")
    unit = meta.get("unit")
    if unit is not None and not (isinstance(unit, str) and unit.startswith(f"{meta['api']}/{meta['product']}/{kind}")):
        raise InputError(f"{shown(unit)[:80]!r}, but the finding is of kind {kind}, of {shown(meta['api'])[:80]} on "
                         f"{shown(meta['product'])[:80]}", where=where, field="unit")


def _check_overrides(overrides: Any, where: str) -> None:
    if overrides is None:
        return
    if not isinstance(overrides, dict):
        raise InputError("expected an object", where=where, field="tolerance_overrides")
    for k, top in (("rtol", math.inf), ("atol", math.inf), ("error_ratio", 1)):
        if overrides.get(k) is not None and not _number_in(overrides[k], 0, top):
            words = "from 0 to 1" if top == 1 else "at least 0"
            raise InputError(f"expected null or a finite number {words}", where=where,
                             field=f"tolerance_overrides.{k}")
    if not isinstance(overrides.get("exact", False), bool):
        raise InputError("expected true or false", where=where, field="tolerance_overrides.exact")


def check_case_matches(meta: Mapping[str, Any], case: Case, folder: Path) -> None:
    """The finding's ``api``, ``product``, (invariants) ``check`` and (negative findings) ``rule`` fit its
    case.json: InputError naming finding.json and the field otherwise (a finding that cannot hold is bad input, not
    a finding)."""
    where = shown(folder / FINDING_FILE)
    if meta["api"] != case.model.name:
        raise InputError(f"{shown(meta['api'])[:80]!r}, but case.json is a case of {case.model.name}", where=where,
                         field="api")
    if meta["product"] != case.product:
        raise InputError(f"{shown(meta['product'])[:80]!r}, but case.json is a case on {case.product}", where=where,
                         field="product")
    if meta["kind"] == "invariants" and meta["check"] not in invariant_names(case.model):
        raise InputError(f"{shown(meta['check'])[:80]!r} is not an invariant of {case.model.name}"
                         f"{did_you_mean(meta['check'], invariant_names(case.model))}", where=where, field="check")
    if meta["kind"] == "negative" and meta["rule"] not in case.model.rule_by_id:
        raise InputError(f"{shown(meta['rule'])[:80]!r} is not a rule of {case.model.name}"
                         f"{did_you_mean(meta['rule'], case.model.rule_by_id)}", where=where, field="rule")


def _number_in(value: Any, low: float, high: float) -> bool:
    """A finite JSON number (not a Boolean) within [low, high]."""
    return type(value) in (int, float) and math.isfinite(value) and low <= value <= high
