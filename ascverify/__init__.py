"""ascverify: verify and fuzz the hardware constraints of Ascend C kernel APIs.

The public surface: read cases, check them, run them on the core, list models and notes.
"""

from __future__ import annotations

from .case import Case, TensorInfo
from .caseio import parse_case, read_cases
from .checker import Result, Unchecked, Violation, check_case, check_cases
from .errors import AscverifyError, InputError, ModelDefinitionError
from .model import ApiModel, SpecNote
from .products import PRODUCTS, Product, get_product
from .registry import api_names, apis, get_api, register
from .rules import Rule

__version__ = "0.1.0"

__all__ = [
    "ApiModel", "AscverifyError", "Case", "InputError", "ModelDefinitionError", "PRODUCTS", "Product", "Result",
    "Rule", "SpecNote", "TensorInfo", "Unchecked", "Violation", "api_names", "apis", "check_case", "check_cases",
    "get_api", "get_product", "parse_case", "read_cases", "register", "run_case",
]


def run_case(case: Case, *, seed: int = 0, strict: bool = True):
    """Execute a case on the numpy core (see `ascverify.core.run.run_case`)."""
    from .core.run import run_case as _run

    return _run(case, seed=seed, strict=strict)
