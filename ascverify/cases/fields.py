"""Reading one JSON value of a case: its type for a message, an integer, an element type or product name."""

from __future__ import annotations

from typing import Any

from ..spec.dtypes import DType, dtype_names, lookup_dtype
from ..spec.errors import InputError, did_you_mean
from ..spec.params import ABS_MAX, ABS_MIN, EnumType
from ..spec.products import POSITIONS, UNMODELLED_POSITIONS, Product, lookup_product, product_names


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
    if isinstance(x, float) and x == x and (not (ABS_MIN <= x <= ABS_MAX) or x == ABS_MIN):
        # an integer past 64 bits arrives as a float, rounded (-2**63 - 1 reads as -2**63): outside either way
        raise InputError(f"{literal_text(x)} is outside any representable integer range", field=field)
    raise InputError(f"expected an integer, got {type_name(x)} ({short(x)})", field=field)


def literal_text(x: Any) -> str:
    """A value as the file most likely wrote it: a JSON integer past 64 bits arrives as a float (the parser's), shown
    whole (18446744073709551616, not 1.8446744073709552e+19) where a double holds it exactly enough (below 1e20),
    else in short form (1e+30); anything else as `short` shows it."""
    if isinstance(x, float) and x == ABS_MIN:  # -2**63 - 1 and below, rounded to the float -2**63
        return "a negative integer past 64 bits"
    if isinstance(x, float) and x == x and abs(x) >= 2.0**63 and x.is_integer():
        return f"{int(x)}" if abs(x) < 1e20 else f"{x:g}"
    return short(x)


def expected_number(x: Any) -> str:
    """Why ``x`` is not a data value: not a number, or a NaN (which JSON cannot hold)."""
    if isinstance(x, float) and x != x:
        return "NaN is not a JSON number (give NaN inputs in a .npy or .bin data file)"
    return f"expected a number, got {type_name(x)} ({short(x)})"


def short(x: Any) -> str:
    s = repr(x)
    return s if len(s) <= 40 else s[:37] + "..."


def enum_refusal(t: EnumType, value: Any) -> str:
    """Why ``value`` is not a value of the enum ``t``: a value of an overload ascverify does not model said so, else
    the choices and the closest one."""
    why = t.other(value)
    if why is not None:
        return f"{short(value)}: {why}"
    return f"expected one of {', '.join(t.choices)}; got {short(value)}{did_you_mean(value, t.choices)}"


def read_dtype(name: Any, field: str) -> DType:
    t = lookup_dtype(name)
    if t is None:
        if not isinstance(name, str):
            raise InputError(f"expected an element type name, got {type_name(name)}", field=field)
        raise InputError(f"unknown element type {short(name)}{did_you_mean(name, dtype_names())}", field=field)
    return t


def read_supported_type(model: Any, product: Product, dtype: Any, product_field: str, dtype_field: str) -> str:
    """The element type ``model`` runs with on ``product``: ``dtype`` (any accepted name) or, when None, the first
    type the product supports; `InputError` naming ``product_field`` or ``dtype_field`` for a product that does not
    support the API or a type it does not support."""
    supported = model.support.get(product.id, ())
    if not supported:
        ok = ", ".join(model.supported_products())
        if product.id in model.unmodelled:
            raise InputError(f"{model.name} is not modelled on {product.id} (the vendor documents it there; "
                             f"`check` checks its argument rules): cases are drawn and run on {ok}", field=product_field)
        raise InputError(f"{model.name} is not supported on {product.id} (supported: {ok})", field=product_field)
    if dtype is None:
        return supported[0]
    t = read_dtype(dtype, dtype_field)
    if t.name not in supported:
        raise InputError(f"{model.name} does not support T={t.name} on {product.id} (supported: "
                         f"{', '.join(supported)})", field=dtype_field)
    return t.name


def read_product(name: str, field: str) -> Product:
    """The product an id or alias names; `InputError` naming ``field``, with the names that come close."""
    p = lookup_product(name)
    if p is None:
        raise InputError(f"unknown product {short(name)}{did_you_mean(str(name), product_names())}", field=field)
    return p


def unknown_position(name: Any) -> str:
    """Why ``name`` is not a position a case may give: a TPosition ascverify does not model, or an unknown name."""
    why = UNMODELLED_POSITIONS.get(name) if isinstance(name, str) else None
    if why is None:
        return f"unknown TPosition {short(name)}{did_you_mean(name, POSITIONS)}"
    if why == "not modelled":
        return f"TPosition {name} is not modelled (no modelled API takes a tensor there; positions: {', '.join(POSITIONS)})"
    return f"TPosition {name}: {why}"
