"""A parsed case: one call of one API on one product, with its fields and (optional) tensor contents."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Mapping

import numpy as np

from ..spec.dtypes import DType
from ..spec.errors import InputError
from ..spec.model import ApiModel
from ..spec.params import EnumType, LevelsArg, MaskArg, StructArg
from ..spec.products import POSITION_BUFFER
from ..spec.rules import POSITION_NAMES, Context, Values
from .registers import registers_json
from .sources import load_tensor_data


@dataclass(frozen=True)
class TensorInfo:
    """Where a tensor lives, concretely."""

    name: str
    position: str
    buffer: str
    addr: int
    size: int
    dtype: DType
    present: bool

    @property
    def nbytes(self) -> int:
        """Bytes the tensor spans (int4b_t: two elements per byte)."""
        return self.dtype.nbytes(self.size)

    @property
    def end(self) -> int:
        return self.addr + self.nbytes


class Case:
    """One call: model, context, flat field values and tensor data sources."""

    __slots__ = ("model", "ctx", "env", "data_sources", "origin", "base_dir", "_data", "registers")

    def __init__(self, model: ApiModel, ctx: Context, env: dict[str, Any],
                 data_sources: Mapping[str, Any] | None = None, origin: str = "",
                 base_dir: Path | None = None, registers: Mapping[str, Mapping[int, np.ndarray]] | None = None) -> None:
        self.model = model
        self.ctx = ctx
        self.env = env
        self.data_sources = dict(data_sources or {})
        self.origin = origin
        self.base_dir = base_dir
        self._data: dict[str, np.ndarray] = {}
        #: initial register contents the case gives (its ``registers`` object): file -> index -> bytes
        self.registers: dict[str, dict[int, np.ndarray]] = {f: dict(r) for f, r in (registers or {}).items()}

    @property
    def product(self) -> str:
        return self.ctx.product.id

    @property
    def dtype(self) -> DType:
        return self.ctx.dtype

    def values(self) -> Values:
        return Values(self.env, self.ctx, self.model)

    def arg(self, name: str) -> Any:
        """An argument's concrete value: int/bool, enum name, or for a mask (count | list of words)."""
        decl = self.model.arg(name)
        if isinstance(decl, MaskArg):
            if decl.placeholder and self.env.get(f"{name}.placeholder"):
                return decl.placeholder
            if self.env[f"{name}.bitwise"]:
                return [int(self.env[f"{name}.w{i}"]) for i in range(min(int(self.env[f"{name}.nwords"]), self.model.mask_words))]
            return int(self.env[f"{name}.count"])
        if isinstance(decl, LevelsArg):  # {key: [first levels entries]}, None when absent
            if decl.optional and not self.env[f"{name}.present"]:
                return None
            n = min(max(int(self.env[f"{name}.levels"]), 0), decl.max_levels)
            return {key: [int(self.env[f"{name}.{stem}{k}"]) for k in range(n)] for key, stem, _ in decl.lists}
        if isinstance(decl, StructArg):  # {member: value or [values]}, None when absent
            if not self.env[f"{name}.present"]:
                return None
            out: dict[str, Any] = {}
            for m in decl.members:
                vals = [self.env[f.name] for f in decl.member_fields(m)]
                vals = [bool(x) if m.type.kind == "bool" else m.type.choices[int(x)] if isinstance(m.type, EnumType)
                        else int(x) for x in vals]
                out[m.name] = vals if decl.list_length(m.name) is not None else vals[0]
            return out
        value = self.env[name]
        if isinstance(decl.type, EnumType):
            return decl.type.choices[int(value)]
        return value

    def tensor(self, name: str) -> TensorInfo:
        decl = self.model.tensor(name)
        position = POSITION_NAMES[int(self.env[f"{name}.position"])]
        present = bool(self.env[f"{name}.present"]) if decl.optional else True
        return TensorInfo(name, position, POSITION_BUFFER[position], int(self.env[f"{name}.addr"]),
                          int(self.env[f"{name}.size"]), self.ctx.tensor_dtype(name), present)

    def has_data(self, name: str) -> bool:
        return name in self._data or name in self.data_sources

    def data(self, name: str) -> np.ndarray | None:
        """The tensor's given contents (loaded on first use), or None."""
        if name in self._data:
            return self._data[name]
        src = self.data_sources.get(name)
        if src is None:
            return None

        arr = load_tensor_data(src, self.ctx.tensor_dtype(name), self.base_dir, f"tensors.{name}.data",
                               int(self.env[f"{name}.size"]))
        self._data[name] = arr
        return arr

    def set_data(self, name: str, array: np.ndarray) -> None:
        self._data[name] = np.asarray(array, dtype=self.ctx.tensor_dtype(name).numpy)

    def forget_data(self, names: Iterable[str] | None = None) -> None:
        """Drop the contents loaded or set (of ``names``, default all): `data` gives only what the case's data
        sources hold again."""
        if names is None:
            self._data = {}
        else:
            for name in names:
                self._data.pop(name, None)

    def with_fields(self, **changes: Any) -> "Case":
        env = dict(self.env)
        env.update(changes)
        c = Case(self.model, self.ctx, env, self.data_sources, self.origin, self.base_dir, self.registers)
        c._data = dict(self._data)
        return c

    def to_json(self, with_data: bool = False) -> dict[str, Any]:
        """The case in the file format (args and tensors by their documented names)."""
        args: dict[str, Any] = {}
        for a in self.model.args:
            if getattr(a, "optional", False) and not self.env[f"{a.name}.present"]:
                continue  # an optional argument the case leaves out
            args[a.name] = self.arg(a.name)
        tensors: dict[str, Any] = {}
        for decl in self.model.tensors:
            t = self.tensor(decl.name)
            if not t.present:
                continue
            entry: dict[str, Any] = {"position": t.position, "addr": t.addr, "size": t.size}
            if t.dtype.name != self.ctx.dtype.name:
                entry["dtype"] = t.dtype.name
            if with_data and self.has_data(decl.name):
                entry["data"] = self.data(decl.name).tolist()
            tensors[decl.name] = entry
        out = {"api": self.model.name, "product": self.ctx.product.id, "dtype": self.ctx.dtype.name,
               "args": args, "tensors": tensors}
        if self.registers:
            out["registers"] = registers_json(self.registers)
        return out

    def __repr__(self) -> str:
        return f"<Case {self.model.name} on {self.product} {self.origin}>"


def require(cond: bool, message: str, field: str) -> None:
    if not cond:
        raise InputError(message, field=field)


def fresh(case: Case) -> Case:
    """A copy of the case without cached data (so that each run draws its inputs anew)."""
    return Case(case.model, case.ctx, dict(case.env), case.data_sources, case.origin, case.base_dir)
