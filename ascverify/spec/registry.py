"""The registry of API models: one module per API registers its model here.

`ascverify.models` declares its API modules and the names each one registers (its registry list, `declare`);
the registry imports that package (by name, `MODELS_PACKAGE`) before it is first read, so every name is known
whenever it is read, whichever module of ascverify was imported first. A module is imported (with `importlib`, by the name the list gives) when one
of its names is first looked up: checking a file of one API imports that API's module only. `apis` and
`iter_apis` import every module and list the models in the order of the registry list. A module that registers a
name its line of the list does not declare, or declares a name it does not register, is a `ModelDefinitionError`.
"""

from __future__ import annotations

import importlib
from typing import Any, Iterator, Sequence

from .errors import InputError, ModelDefinitionError, UnknownName, did_you_mean
from .model import ApiModel

_MODELS: dict[str, ApiModel] = {}
_NAMES: dict[str, ApiModel] = {}
#: every declared name and alias -> the module that registers it
_DECLARED: dict[str, str] = {}
#: module -> the names it declares, in the order of the registry list
_MODULES: dict[str, tuple[str, ...]] = {}
#: case-folded name -> name (declared and registered), for lookups that ignore case
_FOLDED: dict[str, str] = {}


def declare(package: str, modules: Sequence[tuple[str, Sequence[str]]]) -> None:
    """Declare API modules of ``package`` (in registration order), each with the API name and aliases it registers;
    each module is imported when one of its names is first looked up."""
    for module, names in modules:
        full = f"{package}.{module}"
        if full in _MODULES:
            raise ModelDefinitionError(f"module {full} is declared twice")
        _MODULES[full] = tuple(names)
        for n in names:
            if n in _DECLARED:
                raise ModelDefinitionError(f"API name {n!r} is declared by {_DECLARED[n]} and {full}")
            _DECLARED[n] = full
            _FOLDED.setdefault(n.lower(), n)


def register(cls: type[ApiModel]) -> type[ApiModel]:
    """Class decorator: build the model once and make it reachable by its name and aliases."""
    _declare_models()  # a model registered outside ascverify.models meets the names declared there
    model = cls()
    if model.name in _MODELS:
        raise ModelDefinitionError(f"{model.name} is registered twice")
    names = (model.name, *model.aliases)
    declared = _MODULES.get(cls.__module__)
    if declared is not None and set(declared) != set(names):
        raise ModelDefinitionError(f"{model.name}: the registry list of {cls.__module__} declares {sorted(declared)}, "
                                   f"the model registers {sorted(names)}")
    for n in names:
        if n in _NAMES and _NAMES[n] is not model:
            raise ModelDefinitionError(f"API name {n!r} is claimed by {_NAMES[n].name} and {model.name}")
        owner = _DECLARED.get(n)
        if owner is not None and owner != cls.__module__:
            raise ModelDefinitionError(f"API name {n!r} is declared by {owner} and registered by {cls.__module__}")
    _MODELS[model.name] = model
    for n in names:
        _NAMES[n] = model
        _FOLDED.setdefault(n.lower(), n)
    return cls


#: The package whose import declares the API modules of ascverify (imported by name, as the modules it declares).
MODELS_PACKAGE = "ascverify.models"


def _declare_models() -> None:
    """Make sure `MODELS_PACKAGE` has declared its modules (a dictionary lookup once it has)."""
    importlib.import_module(MODELS_PACKAGE)


def _load(module: str) -> None:
    importlib.import_module(module)


def _load_all() -> None:
    _declare_models()
    for module in _MODULES:
        _load(module)


def _order(model: ApiModel) -> int:
    module = type(model).__module__
    return list(_MODULES).index(module) if module in _MODULES else len(_MODULES)


def apis() -> tuple[ApiModel, ...]:
    """Every registered model, in the order of the registry list (then models registered elsewhere)."""
    _load_all()
    return tuple(sorted(_MODELS.values(), key=_order))  # sorted() is stable: the others in registration order


def api_names() -> tuple[str, ...]:
    """Every accepted API name (documented names and aliases)."""
    _load_all()
    return tuple(n for m in apis() for n in (m.name, *m.aliases))


#: pyasc's basic API, which pyasc also exports as ``asc.NAME`` (``asc.block_reduce_sum``, ``asc.load_data``)
PYASC_BASIC = "asc.language.basic."


def lookup_api(name: str) -> ApiModel | None:
    """The model for a name or alias (exact, then case-insensitive; pyasc's ``asc.NAME`` as
    ``asc.language.basic.NAME``), or None."""
    got = _lookup(name)
    if got is None and isinstance(name, str) and name.startswith("asc.") and not name.startswith("asc.language."):
        got = _lookup(PYASC_BASIC + name[len("asc."):])
    return got


def _lookup(name: str) -> ApiModel | None:
    if not isinstance(name, str):
        return None
    got = _NAMES.get(name)
    if got is not None:
        return got
    _declare_models()
    if name not in _DECLARED:
        name = _FOLDED.get(name.lower(), "")
        got = _NAMES.get(name)
        if got is not None or name not in _DECLARED:
            return got
    _load(_DECLARED[name])
    got = _NAMES.get(name)
    if got is None:
        raise ModelDefinitionError(f"{_DECLARED[name]} declares the API name {name!r} but registers no model by it")
    return got


def get_api(name: str) -> ApiModel:
    """The model for a name; `UnknownName` (an InputError with a did-you-mean, and a KeyError) when unknown."""
    got = lookup_api(name)
    if got is None:
        raise UnknownName(f"unknown API {name!r}{did_you_mean(name, api_names())}", field="api")
    return got


def overload_for(model: ApiModel, args: Any) -> ApiModel:
    """The model of the overload a call's ``args`` name: ``model.overloads`` maps an argument only that overload takes
    (LoadAlign's ``dstReg``: the RegTensor load) to its model's name; ``model`` itself otherwise."""
    if model.overloads and type(args) is dict:
        for k, target in model.overloads.items():  # in the model's order: the first one the call gives
            if k in args:
                return overload_for(get_api(target), args) if target != model.name else model
    return model


def iter_apis() -> Iterator[ApiModel]:
    return iter(apis())
