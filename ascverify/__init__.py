"""ascverify: verify and fuzz the hardware constraints of Ascend C kernel APIs.

The public surface: read cases, check them, run them on the core, list models and notes. Importing the
package declares every API model (`ascverify.models`: each model's module is imported when its name is first
looked up); docs/architecture.md describes the layers.
"""

from __future__ import annotations

import gc as _gc

# Importing the package allocates tens of thousands of objects that live as long as the process: the cyclic GC
# would scan them again and again while they are made (about a tenth of `ascverify check`'s startup). Paused for the
# imports, restored after them.
_GC_WAS_ENABLED = _gc.isenabled()
_gc.disable()

from . import models  # noqa: F401  (declares every API model: the registry imports each when its name is looked up)
from .cases.case import Case, TensorInfo
from .cases.caseio import read_cases
from .cases.parse import parse_case
from .checking.checker import Result, Unchecked, Violation, check_case, check_cases
from .core.faults import CoreLimit, Fault
from .core.run import RunResult, run_case as _run_case
from .spec.errors import AscverifyError, InputError, ModelDefinitionError
from .spec.model import ApiModel, SpecNote
from .spec.products import PRODUCTS, Product, get_product
from .spec.registry import api_names, apis, get_api, register
from .spec.rules import Rule
from .spec.version import __version__

if _GC_WAS_ENABLED:
    _gc.enable()

__all__ = [
    "ApiModel", "AscverifyError", "Case", "CoreLimit", "Fault", "InputError", "ModelDefinitionError", "PRODUCTS",
    "Product", "Result", "Rule", "SpecNote", "TensorInfo", "Unchecked", "Violation", "api_names", "apis",
    "check_case", "check_cases", "get_api", "get_product", "parse_case", "read_cases", "register", "run_case",
]


def run_case(case: Case, *, seed: int = 0, strict: bool = True) -> RunResult:
    """Execute a case on the numpy core (see `ascverify.core.run.run_case`). With ``strict`` the first access that
    breaks a constraint raises `Fault`; a case asking for more iterations than any legal case (a hostile file)
    raises `CoreLimit` before anything is allocated."""
    return _run_case(case, seed=seed, strict=strict)
