"""The registry of API models: one module per API registers its model here.

The registry only stores: `ascverify.models` imports every API module, and ``import ascverify`` (which any
``import ascverify.X`` runs first) imports `ascverify.models`, so the registry is full whenever it is read.
"""

from __future__ import annotations

from typing import Iterator

from .errors import InputError, ModelDefinitionError, did_you_mean
from .model import ApiModel

_MODELS: dict[str, ApiModel] = {}
_NAMES: dict[str, ApiModel] = {}


def register(cls: type[ApiModel]) -> type[ApiModel]:
    """Class decorator: build the model once and make it reachable by its name and aliases."""
    model = cls()
    if model.name in _MODELS:
        raise ModelDefinitionError(f"{model.name} is registered twice")
    _MODELS[model.name] = model
    for n in (model.name, *model.aliases):
        if n in _NAMES and _NAMES[n] is not model:
            raise ModelDefinitionError(f"API name {n!r} is claimed by {_NAMES[n].name} and {model.name}")
        _NAMES[n] = model
    return cls


def apis() -> tuple[ApiModel, ...]:
    """Every registered model, in registration order."""
    return tuple(_MODELS.values())


def api_names() -> tuple[str, ...]:
    """Every accepted API name (documented names and aliases)."""
    return tuple(_NAMES)


def lookup_api(name: str) -> ApiModel | None:
    """The model for a name or alias (exact, then case-insensitive), or None."""
    if not isinstance(name, str):
        return None
    got = _NAMES.get(name)
    if got is None:
        low = name.lower()
        got = next((m for n, m in _NAMES.items() if n.lower() == low), None)
    return got


def get_api(name: str) -> ApiModel:
    """The model for a name; InputError with a did-you-mean when unknown."""
    got = lookup_api(name)
    if got is None:
        raise InputError(f"unknown API {name!r}{did_you_mean(name, api_names())}", field="api")
    return got


def iter_apis() -> Iterator[ApiModel]:
    return iter(apis())
