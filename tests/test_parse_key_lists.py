"""The short parse path remembers how to read each list of argument keys it meets (`parse._readers_for`): only
lists made of the API's own spellings, and at most `parse.MAX_KEY_LISTS` of them per API (constant memory
whatever the input), and a remembered list reads later cases exactly as the general path does."""

from __future__ import annotations

from ascverify import get_api
from ascverify.cases import parse

DOC = {"api": "SetLoadDataRepeatWithStride", "product": "atlas-a2",
       "args": {"repeatTime": 1, "repeatStride": 0, "repeatMode": 0, "dstStride": 0}, "tensors": {}}


def _same_as_general(doc: dict) -> None:
    fast = parse._parse_common(doc, None, "")
    general = parse._parse_general(doc, None, "", None)
    assert fast is not None
    assert fast.model is general.model and fast.ctx is general.ctx
    assert list(fast.env.items()) == list(general.env.items())


def test_unknown_keys_are_not_remembered():
    plan = parse._plan(get_api(DOC["api"]))
    before = len(plan.by_keys)
    for i in range(3 * parse.MAX_KEY_LISTS):
        doc = {**DOC, "args": {**DOC["args"], f"bogus{i}": 1}}
        assert parse._parse_common(doc, None, "") is None
    assert len(plan.by_keys) == before


def test_a_remembered_key_list_reads_each_case_like_the_general_path():
    for repeat in (1, 2, 255, 0):  # the second case on the same keys reads through the remembered list
        _same_as_general({**DOC, "args": {**DOC["args"], "repeatTime": repeat}})
    reordered = {**DOC, "args": dict(reversed(list(DOC["args"].items())))}
    _same_as_general(reordered)


def test_a_key_list_missing_a_required_argument_declines_every_time():
    args = dict(DOC["args"])
    required = parse._plan(get_api(DOC["api"])).required_args
    if not required:
        return
    del args[required[0]]
    for _ in range(2):
        assert parse._parse_common({**DOC, "args": args}, None, "") is None
