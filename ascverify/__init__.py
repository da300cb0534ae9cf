"""ascverify: verify and fuzz the hardware constraints of Ascend C kernel APIs.

The public surface: read cases, check them, run them on the core, list models and notes. The names below are
loaded when one of them is first used (`__getattr__`, PEP 562), so that ``import ascverify`` costs nothing and the
command line (`ascverify.launch`) takes Ctrl-C from its first instant; loading them declares every API model
(`ascverify.models`: each model's module is imported when its name is first looked up). docs/architecture.md
describes the layers.
"""

from __future__ import annotations

import gc as _gc
import importlib as _importlib
import typing as _typing

from .spec.version import __version__

if _typing.TYPE_CHECKING:  # what `__getattr__` loads, for type checkers and readers
    from .cases.case import Case, TensorInfo
    from .cases.caseio import read_cases
    from .cases.parse import parse_case
    from .checking.checker import Result, Unchecked, Violation, check_case, check_cases
    from .core.faults import CoreLimit, Fault
    from .core.run import RunResult, run_case
    from .spec.errors import AscverifyError, InputError, ModelDefinitionError, UnknownName
    from .spec.model import ApiModel, SpecNote
    from .spec.products import PRODUCTS, Product, get_product
    from .spec.registry import api_names, apis, get_api, register
    from .spec.rules import Rule

#: Each public name and the module (under ``ascverify.``) that defines it.
_PUBLIC: dict[str, str] = {
    "Case": "cases.case", "TensorInfo": "cases.case",
    "read_cases": "cases.caseio",
    "parse_case": "cases.parse",
    "Result": "checking.checker", "Unchecked": "checking.checker", "Violation": "checking.checker",
    "check_case": "checking.checker", "check_cases": "checking.checker",
    "CoreLimit": "core.faults", "Fault": "core.faults",
    "RunResult": "core.run", "run_case": "core.run",
    "AscverifyError": "spec.errors", "InputError": "spec.errors", "ModelDefinitionError": "spec.errors",
    "UnknownName": "spec.errors",
    "ApiModel": "spec.model", "SpecNote": "spec.model",
    "PRODUCTS": "spec.products", "Product": "spec.products", "get_product": "spec.products",
    "api_names": "spec.registry", "apis": "spec.registry", "get_api": "spec.registry", "register": "spec.registry",
    "Rule": "spec.rules",
}

__all__ = sorted(_PUBLIC)


def _load_public() -> None:
    """Import the modules behind the public names and bind the names here. The imports allocate tens of thousands of
    objects that live as long as the process: the cyclic GC, which would scan them again and again while they are
    made (about a tenth of `ascverify check`'s startup), is paused for them."""
    was_enabled = _gc.isenabled()
    _gc.disable()
    try:
        _importlib.import_module(f"{__name__}.models")  # declares every API model to the registry
        for name, module in _PUBLIC.items():
            globals()[name] = getattr(_importlib.import_module(f"{__name__}.{module}"), name)
    finally:
        if was_enabled:
            _gc.enable()


def __getattr__(name: str) -> _typing.Any:
    """A public name, loaded on first use."""
    if name not in _PUBLIC:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    _load_public()
    return globals()[name]


def __dir__() -> list[str]:
    """The public names (loaded or not) and the module's own dunder attributes."""
    return sorted(set(__all__) | {n for n in globals() if n.startswith("__")})
