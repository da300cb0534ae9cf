"""Severity: errors decide the exit status; warnings only with --strict; JSON and SARIF carry the level."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from ascverify import apis
from ascverify.cli import main
from ascverify.spec.rules import ERROR, WARNING

# page 003, 约束说明: "repeatTime=0表示不执行搬运 ... 视为NOP" — legal, but the load it configures does nothing:
# a warning, not an error (docs/severity.md: the call works, it just does not do what it seems to)
NOOP = {"api": "SetLoadDataRepeatWithStride", "product": "atlas-350", "args": {"repeatTime": 0, "dstStride": 1}}


def run(tmp_path, *args, doc=NOOP):
    path = tmp_path / "case.json"
    path.write_text(json.dumps(doc))
    return CliRunner().invoke(main, ["check", *args, str(path)])


def test_a_warning_alone_exits_0(tmp_path):
    r = run(tmp_path)
    assert r.exit_code == 0, r.output
    assert ": warning: [set_load_data_repeat.repeatTime.noop]" in r.stdout


def test_strict_makes_warnings_errors(tmp_path):
    r = run(tmp_path, "--strict")
    assert r.exit_code == 1, r.output
    assert ": error: [set_load_data_repeat.repeatTime.noop]" in r.stdout and "--strict" in r.stdout


def test_json_carries_severity(tmp_path):
    plain = json.loads(run(tmp_path, "--format", "json").stdout)["results"][0]
    assert plain["valid"] is True and plain["violations"] == []
    assert [w["severity"] for w in plain["warnings"]] == ["warning"]
    strict = json.loads(run(tmp_path, "--format", "json", "--strict").stdout)["results"][0]
    assert strict["valid"] is False and [v["severity"] for v in strict["violations"]] == ["error"]


def test_sarif_level_follows_severity(tmp_path):
    log = json.loads(run(tmp_path, "--format", "sarif").stdout)
    levels = [res["level"] for res in log["runs"][0]["results"]]
    assert levels == ["warning"]
    log = json.loads(run(tmp_path, "--format", "sarif", "--strict").stdout)
    assert [res["level"] for res in log["runs"][0]["results"]] == ["error"]


@pytest.mark.parametrize("model", apis(), ids=[m.name for m in apis()])
def test_every_rule_declares_a_known_severity(model):
    assert {r.severity for r in model.rules} <= {ERROR, WARNING}


def test_a_type_given_to_an_api_without_one_is_a_warning(tmp_path):
    """SetLoadDataRepeatWithStride has no template type (page 003's prototype); a case written with the kernel's T
    was refused as 'T=half is not supported (supported: uint64)'. Now a warning that T is ignored."""
    doc = {"api": "SetLoadDataRepeatWithStride", "product": "atlas-350", "dtype": "half", "args": {"dstStride": 4}}
    r = run(tmp_path, doc=doc)
    assert r.exit_code == 0, r.output
    assert ": warning: [set_load_data_repeat.dtype.support]" in r.stdout and "T=half is ignored" in r.stdout
    # an API with a type still refuses one it does not support
    typed = {"api": "BlockReduceMin", "product": "atlas-training", "dtype": "float",
             "args": {"repeatTime": 1, "mask": 64, "dstRepStride": 1, "srcBlkStride": 1, "srcRepStride": 8},
             "tensors": {"dst": {"position": "VECOUT", "addr": 0, "size": 8},
                         "src": {"position": "VECIN", "addr": 512, "size": 64}}}
    r = run(tmp_path, doc=typed)
    assert r.exit_code == 1 and ": error: [block_reduce_min.dtype.support]" in r.stdout
