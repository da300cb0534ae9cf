"""Where a model's field is in a case file: its JSON pointer (``/args/hRepeat``, ``/tensors/dst/addr``)."""

from __future__ import annotations

from typing import Iterable

from ..spec.model import ApiModel


def json_pointer(model: ApiModel, name: str, raw_args: Iterable[str] = ()) -> str:
    """The JSON pointer of a field (or parameter) in a case file: /args/hRepeat, /tensors/dst/addr.

    Mask fields point at the mask argument; ``raw_args`` (the argument keys the case used) picks the
    spelling the case uses. ``product`` and ``dtype`` are top-level keys.
    """
    if name in ("product", "dtype", "api"):
        return f"/{name}"
    param = name.split(".")[0]
    kind = model.param_kinds.get(param)
    if kind == "tensor":
        rest = name.split(".", 1)[1] if "." in name else ""
        if rest == "present":
            rest = ""
        return f"/tensors/{param}" + (f"/{rest}" if rest else "")
    key = param
    for k in raw_args:
        canon = model.arg_names.get(k, (None,))[0]
        if canon == param:
            key = k
            break
    return f"/args/{key}"
