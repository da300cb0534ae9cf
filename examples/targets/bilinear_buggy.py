"""A deliberately buggy BilinearInterpolation (for ascverify's own tests and demos): the two words of a
bitwise mask are read in the wrong order (mask[0] taken as the high 64 lanes), the mistake the BilinearInterpolation page's
example sentence invites. Every case with a contiguous mask, or with equal words, still passes.

    ascverify fuzz BilinearInterpolation -p atlas-a2 --target examples/targets/bilinear_buggy.py:bilinear
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

_spec = importlib.util.spec_from_file_location("_bilinear_numpy", Path(__file__).with_name("bilinear_numpy.py"))
_ref = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_ref)


def bilinear(case: dict, inputs: dict) -> dict:
    mask = case["args"]["mask"]
    if isinstance(mask, list) and len(mask) == 2:
        case = {**case, "args": {**case["args"], "mask": [mask[1], mask[0]]}}
    return _ref.bilinear(case, inputs)
