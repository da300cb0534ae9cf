"""The registry of API models: one module per API registers its model here."""

from __future__ import annotations

import importlib
from typing import Iterator

from .errors import InputError, ModelDefinitionError, did_you_mean
from .model import ApiModel

_MODELS: dict[str, ApiModel] = {}
_NAMES: dict[str, ApiModel] = {}
_loaded = False


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


def _load() -> None:
    global _loaded
    if not _loaded:
        _loaded = True
        importlib.import_module("ascverify.models")


def apis() -> tuple[ApiModel, ...]:
    """Every registered model, in registration order."""
    _load()
    return tuple(_MODELS.values())


def api_names() -> tuple[str, ...]:
    """Every accepted API name (documented names and aliases)."""
    _load()
    return tuple(_NAMES)


def lookup_api(name: str) -> ApiModel | None:
    """The model for a name or alias (exact, then case-insensitive), or None."""
    _load()
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
