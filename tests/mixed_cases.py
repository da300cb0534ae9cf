"""Cases for the tests of `check`'s streaming (`--product P|all`, SARIF): examples/block_reduce_max.json's call, some
misaligned (dst addr 17), some with too many repeats (300 > 255), some naming atlas-350; and a program."""

from __future__ import annotations

import json
from typing import Any

BASE: dict[str, Any] = {
    "api": "BlockReduceMax", "product": "atlas-a2", "dtype": "half",
    "args": {"repeatTime": 1, "mask": 128, "dstRepStride": 8, "srcBlkStride": 1, "srcRepStride": 8, "isSetMask": True},
    "tensors": {"dst": {"position": "VECOUT", "addr": 256, "size": 16},
                "src": {"position": "VECIN", "addr": 0, "size": 128}}}

# a program: SetVectorMask, then BlockReduceMin with the mask it set
PROGRAM: dict[str, Any] = {
    "product": "atlas-a2", "dtype": "half",
    "tensors": {"x": {"position": "VECIN", "addr": 0, "size": 128},
                "z": {"position": "VECOUT", "addr": 512, "size": 16}},
    "calls": [{"api": "set_vector_mask", "args": {"mask": [255, 0]}},
              {"api": "block_reduce_min", "args": {"repeat": 1, "mask": "MASK_PLACEHOLDER", "dst_rep_stride": 1,
                                                   "src_blk_stride": 1, "src_rep_stride": 8, "is_set_mask": False},
               "tensors": {"dst": "z", "src": "x"}}]}


def mixed_case(i: int) -> dict[str, Any]:
    """The i-th case of a mixed file (a fresh copy of `BASE`, changed as the module says for some i)."""
    doc = json.loads(json.dumps(BASE))
    if i % 7 == 3:
        doc["tensors"]["dst"]["addr"] = 17
    if i % 11 == 5:
        doc["args"]["repeatTime"] = 300
    if i % 13 == 6:
        doc["product"] = "atlas-350"
    return doc
