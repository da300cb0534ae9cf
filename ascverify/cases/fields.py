"""Reading one JSON value of a case: its type for a message, an integer, an element type name."""

from __future__ import annotations

from typing import Any

from ..spec.dtypes import DType, dtype_names, lookup_dtype
from ..spec.errors import InputError, did_you_mean
from ..spec.params import ABS_MAX, ABS_MIN


def type_name(x: Any) -> str:
    if x is None:
        return "null"
    if isinstance(x, bool):
        return "a boolean"
    if isinstance(x, int):
        return "an integer"
    if isinstance(x, float):
        return "a number"
    if isinstance(x, str):
        return "a string"
    if isinstance(x, list):
        return "a list"
    if isinstance(x, dict):
        return "an object"
    return type(x).__name__


def read_int(x: Any, field: str) -> int:
    if type(x) is int:
        if ABS_MIN <= x <= ABS_MAX:
            return x
        raise InputError(f"{x} is outside any representable integer range", field=field)
    if isinstance(x, float) and x == x and not (ABS_MIN <= x <= ABS_MAX):
        raise InputError(f"{x:g} is outside any representable integer range", field=field)
    raise InputError(f"expected an integer, got {type_name(x)} ({short(x)})", field=field)


def short(x: Any) -> str:
    s = repr(x)
    return s if len(s) <= 40 else s[:37] + "..."


def read_dtype(name: Any, field: str) -> DType:
    t = lookup_dtype(name)
    if t is None:
        if not isinstance(name, str):
            raise InputError(f"expected an element type name, got {type_name(name)}", field=field)
        raise InputError(f"unknown element type {short(name)}{did_you_mean(name, dtype_names())}", field=field)
    return t
