"""`check_cases` remembers a rule's message (and a model's `unchecked` hook) per values of the fields it read,
within one API and context: cases that share those values share the message, cases that differ in them get their
own. Each batch result is compared with `check_case` on the case alone (no remembering there), and the messages
with the values the case file gives."""

from __future__ import annotations

import copy
import dataclasses

import pytest

from ascverify import check_case, check_cases, parse_case

# a valid BlockReduceMax call on atlas-a2 in half (examples/block_reduce_max.json, Ascend C spelling):
# 8 repeats of 128 halves read from src (256 bytes each, srcRepStride 8 blocks), one 2-half result per repeat
BASE = {
    "api": "BlockReduceMax", "product": "atlas-a2", "dtype": "half",
    "args": {"repeatTime": 1, "mask": 128, "dstRepStride": 8, "srcBlkStride": 1, "srcRepStride": 8,
             "isSetMask": True},
    "tensors": {"dst": {"position": "VECOUT", "addr": 256, "size": 16},
                "src": {"position": "VECIN", "addr": 0, "size": 128}},
}


def _case(**args: object) -> dict:
    doc = copy.deepcopy(BASE)
    doc["args"].update(args)
    return doc


def _summary(result) -> tuple:
    return ([(v.id, v.message) for v in result.violations], [(v.id, v.message) for v in result.warnings],
            [(u.rule_id, u.reason) for u in result.unchecked])


def test_messages_follow_each_case_values() -> None:
    # repeatTime is an 8-bit field: 0..255 (Ascend C BlockReduceMax page, parameter table)
    docs = [_case(repeatTime=256), _case(repeatTime=300), _case(repeatTime=256), _case(repeatTime=1),
            _case(repeatTime=300)]
    cases = [parse_case(d) for d in docs]
    assert len({id(c.ctx) for c in cases}) == 1  # one batch
    batch = check_cases(cases)
    for c, got in zip(cases, batch):
        assert _summary(got) == _summary(check_case(c))
    range_msgs = [[v.message for v in r.violations if v.id.endswith("repeatTime.range")] for r in batch]
    assert [len(m) for m in range_msgs] == [1, 1, 1, 0, 1]
    assert "256" in range_msgs[0][0] and "300" not in range_msgs[0][0]
    assert "300" in range_msgs[1][0] and "256" not in range_msgs[1][0]
    assert range_msgs[0] == range_msgs[2] and range_msgs[1] == range_msgs[4]


def test_unchecked_hook_follows_each_case() -> None:
    # isSetMask=false: the mask is set elsewhere (SetVectorMask), so the mask rules are reported as not checked
    docs = [_case(isSetMask=False), _case(isSetMask=True), _case(isSetMask=False, repeatTime=2), _case(isSetMask=True)]
    cases = [parse_case(d) for d in docs]
    batch = check_cases(cases)
    for c, got in zip(cases, batch):
        assert _summary(got) == _summary(check_case(c))
    assert batch[0].unchecked and batch[2].unchecked
    assert not batch[1].unchecked and not batch[3].unchecked
    # notes are read-only (frozen), so results may share one note object (a batch does, per rule and per distinct
    # notes); what a result marks (its violations: `promote_warnings`) stays its own, see the next test
    with pytest.raises(dataclasses.FrozenInstanceError):
        batch[0].unchecked[0].reason = "changed"
    assert [u.rule_id for u in batch[0].unchecked] == [u.rule_id for u in batch[2].unchecked]


def test_remembered_messages_are_not_shared_objects_across_results() -> None:
    cases = [parse_case(_case(repeatTime=256)) for _ in range(3)]
    batch = check_cases(cases)
    batch[0].promote_warnings()
    ids = [id(v) for r in batch for v in r.violations]
    assert len(ids) == len(set(ids))
