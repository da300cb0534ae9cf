"""Files `fuzz` and `replay` read that they did not write: the example database, finding folders, a target's
registers.json, a campaign file. Each is hostile: a read is bounded and never hangs, a write never leaves the
folder, and bad content is one line naming the file (exit status 2), never a traceback or an internal error."""

from __future__ import annotations

import hashlib
import json
import os
import resource
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from ascverify.cli import main
from ascverify.engines.fuzz.database import MAX_EXAMPLE_BYTES, open_database
from ascverify.engines.fuzz.targets import ANY_INDEX, Malformed, read_registers

ROOT = Path(__file__).resolve().parents[1]
TARGETS = ROOT / "examples" / "targets"
GOOD = f"{TARGETS / 'bilinear_numpy.py'}:bilinear"
BUGGY = f"{TARGETS / 'bilinear_buggy.py'}:bilinear"
BAD_CASE = ROOT / "examples" / "bad" / "bad.json"
GiB = 1 << 30


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (3 * GiB, 3 * GiB))


def ascverify(*argv: object, cwd: Path, timeout: float = 180) -> subprocess.CompletedProcess:
    """``python -m ascverify ARGV`` in a process of its own (3 GiB of address space, a time limit: a hang or an
    unbounded read fails the test instead of the test run)."""
    return subprocess.run([sys.executable, "-m", "ascverify", *map(str, argv)], cwd=cwd, capture_output=True,
                          text=True, timeout=timeout, preexec_fn=_limit_memory)


def python(code: str, cwd: Path, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, capture_output=True, text=True, timeout=timeout,
                          preexec_fn=_limit_memory)


def _hash(key: bytes) -> str:  # Hypothesis's name of a key's folder and of a value's file
    return hashlib.sha384(key).hexdigest()[:16]


def _no_internal_error(r: subprocess.CompletedProcess) -> None:
    text = r.stdout + r.stderr
    assert "Traceback" not in text and "internal error" not in text and r.returncode != 3, text[-2000:]


# -- 1. the example database ---------------------------------------------------------------------------------------

_DB_SCRIPT = """
import json, sys
from ascverify.engines.fuzz.database import open_database
db = open_database(sys.argv[1] if len(sys.argv) > 1 else "db")
print(json.dumps(sorted(v.decode("latin-1") for v in db.fetch(b"k"))))
"""


def test_example_database_reads_only_small_regular_files_and_never_follows_links(tmp_path):
    db = open_database(str(tmp_path / "db"))
    db.save(b"k", b"good")
    key_dir = tmp_path / "db" / _hash(b"k")
    assert (key_dir / _hash(b"good")).is_file()
    secret = tmp_path / "secret"
    secret.write_bytes(b"secret")
    os.mkfifo(key_dir / "ffffffffffffffff")                       # would block an open() for reading
    (key_dir / "eeeeeeeeeeeeeeee").symlink_to("/dev/zero")          # an endless read
    (key_dir / "dddddddddddddddd").symlink_to(secret)               # a file outside the database
    (key_dir / "cccccccccccccccc").write_bytes(b"x" * (MAX_EXAMPLE_BYTES + 1))  # too large for an example
    (key_dir / "bbbbbbbbbbbbbbbb").mkdir()
    r = python(_DB_SCRIPT, tmp_path, timeout=30)
    assert r.returncode == 0, r.stderr[-2000:]
    assert json.loads(r.stdout) == ["good"]


def test_example_database_never_writes_or_deletes_through_a_linked_key_folder(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / _hash(b"v")).write_bytes(b"v")  # a file of someone else's, named like the value's file
    (tmp_path / "db").mkdir()
    (tmp_path / "db" / _hash(b"k")).symlink_to(outside, target_is_directory=True)
    (tmp_path / "db" / _hash(b".hypothesis-keys")).symlink_to(outside, target_is_directory=True)
    db = open_database(str(tmp_path / "db"))
    db.save(b"k", b"new")
    db.save(b"other", b"x")
    db.delete(b"k", b"v")
    db.move(b"k", b"other", b"v")
    db.move(b"other", b"k", b"x")
    assert sorted(p.name for p in outside.iterdir()) == [_hash(b"v")]  # nothing written there, nothing deleted
    assert list(db.fetch(b"k")) == []                                   # nor read from there
    assert (tmp_path / "db" / _hash(b"k")).is_symlink()                 # the link is left as it is
    assert list(db.fetch(b"other")) == [b"v"]  # moved there (a move out of the link saves it), x moved away


@pytest.fixture(scope="module")
def campaign_db(tmp_path_factory) -> Path:
    """The findings folder of a small campaign (its example database in .examples), the findings removed."""
    base = tmp_path_factory.mktemp("db")
    r = ascverify("fuzz", "BilinearInterpolation", "-p", "atlas-a2", "--target", BUGGY, "--examples", "20",
                  "--seed", "1", "--findings", "F", "-q", cwd=base)
    assert r.returncode == 1, r.stderr[-2000:]
    for p in (base / "F").iterdir():
        if not p.name.startswith("."):
            shutil.rmtree(p)
    assert any((base / "F" / ".examples").iterdir())
    return base / "F"


def test_fuzz_with_fifos_devices_and_linked_folders_in_its_database_neither_hangs_nor_writes_outside(
        tmp_path, campaign_db):
    findings = tmp_path / "F"
    shutil.copytree(campaign_db, findings, symlinks=True)
    outside = tmp_path / "outside"
    outside.mkdir()
    key_dirs = sorted(p for p in (findings / ".examples").iterdir() if p.is_dir())
    for i, d in enumerate(key_dirs):
        if i % 2:  # half the key folders replaced by links to a folder outside
            shutil.rmtree(d)
            d.symlink_to(outside, target_is_directory=True)
        else:
            os.mkfifo(d / "ffffffffffffffff")
            (d / "eeeeeeeeeeeeeeee").symlink_to("/dev/zero")
    r = ascverify("fuzz", "BilinearInterpolation", "-p", "atlas-a2", "--target", BUGGY, "--examples", "20",
                  "--seed", "7", "--findings", "F", "-q", cwd=tmp_path, timeout=240)
    _no_internal_error(r)
    assert r.returncode == 1, r.stderr[-2000:]  # the campaign ran and found the bug
    assert list(outside.iterdir()) == []
    for d in key_dirs:
        assert d.is_symlink() or (d / "ffffffffffffffff").exists()  # nothing planted was removed or followed


def test_a_default_database_that_is_a_link_out_of_the_findings_folder_is_refused(tmp_path):
    """FINDINGS/.examples is where the campaign keeps its examples by default: a link planted there would send its
    writes to another folder. Refused (exit 2, one line naming it) before anything runs; nothing written outside."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (tmp_path / "F").mkdir()
    (tmp_path / "F" / ".examples").symlink_to(outside, target_is_directory=True)
    r = ascverify("fuzz", "BilinearInterpolation", "-p", "atlas-a2", "--examples", "5", "--seed", "1",
                  "--findings", "F", "-q", cwd=tmp_path)
    _no_internal_error(r)
    assert r.returncode == 2, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "F/.examples" in lines[0] and "--database" in lines[0] and "link" in lines[0], lines
    assert list(outside.iterdir()) == []
    # named on purpose with --database, the folder it points to is the user's choice: used
    r = ascverify("fuzz", "BilinearInterpolation", "-p", "atlas-a2", "--examples", "5", "--seed", "1",
                  "--findings", "F", "--database", "F/.examples", "-q", cwd=tmp_path)
    _no_internal_error(r)
    assert r.returncode == 0, r.stderr


# -- 2. replay: finding folders of someone else's ---------------------------------------------------------------------

META = {"seed": 0, "api": "BilinearInterpolation", "product": "atlas-a2"}
#: Per kind: a check and key a finding of that kind records (finding.json's fields must agree: review 73).
CHECK_KEY = {"invariants": {"check": "writes_inside_footprint", "key": "writes_inside_footprint"},
             "negative": {"check": "rejects_exactly_the_broken_rule", "key": "negative.exactly"},
             "differential": {"check": "differential", "key": "differential.mismatch:dst"}}


def finding(tmp_path: Path, name: str, *, case: str | None = None, meta: dict | None = None,
            finding_text: str | None = None) -> Path:
    """A finding folder: finding.json (``meta`` over an invariants finding, or ``finding_text``) and case.json
    (``case``, default the shipped bad case)."""
    folder = tmp_path / name
    folder.mkdir()
    kind = (meta or {}).get("kind", "invariants")
    doc = {"kind": "invariants", **META, **CHECK_KEY.get(kind, CHECK_KEY["invariants"]), **(meta or {})}
    (folder / "finding.json").write_text(finding_text if finding_text is not None else json.dumps(doc))
    (folder / "case.json").write_text(case if case is not None else BAD_CASE.read_text())
    return folder


def replay(*argv: object):
    return CliRunner().invoke(main, ["replay", *map(str, argv)])


def _one_error_line(r, path: Path, *words: str) -> None:
    """Exit status 2, one line on standard error naming ``path`` and saying ``words``; no traceback."""
    assert r.exit_code == 2, (r.exit_code, r.output, r.exception)
    lines = [line for line in r.stderr.splitlines() if line.startswith("ascverify: ")]
    assert len(lines) == 1, r.stderr
    assert lines[0].startswith(f"ascverify: {path}"), lines[0]
    for w in words:
        assert w in lines[0], lines[0]
    assert "Traceback" not in r.output and "internal error" not in r.output and "still fails" not in r.stdout


DEEP = "[" * 100_000 + "]" * 100_000


@pytest.mark.parametrize("text", [DEEP, '{"args": ' + DEEP + "}", '{"args": ' + "[" * 500 + "]" * 500 + "}"])
@pytest.mark.parametrize("which", ["finding.json", "case.json"])
def test_replay_of_deeply_nested_json_is_one_line_naming_the_file(tmp_path, which, text):
    f = finding(tmp_path, "deep", **({"finding_text": text} if which == "finding.json" else {"case": text}))
    _one_error_line(replay(f), f / which)


@pytest.mark.parametrize("case, words", [
    ("[1, 2]", "expected one case"),
    ("[]", "expected one case"),
    ('"text"', "expected one case"),
    (json.dumps({**json.loads(BAD_CASE.read_text()), "tensors": "x"}), "tensors"),
    (json.dumps({**json.loads(BAD_CASE.read_text()), "tensors": [1, 2]}), "tensors"),
])
def test_replay_of_a_case_json_of_the_wrong_shape_names_the_file(tmp_path, case, words):
    f = finding(tmp_path, "shape", case=case)
    _one_error_line(replay(f), f / "case.json", words)


@pytest.mark.parametrize("old, new, words", [
    ('"hRepeat": 2', '"hRepeat": NaN', ["args.hRepeat", "NaN is not a JSON number"]),
    ('"hRepeat": 2', '"hRepeat": 2, "hRepeat": 300', ["args.hRepeat", "duplicate key"]),
])
def test_replay_reads_case_json_as_strictly_as_a_case_file(tmp_path, old, new, words):
    f = finding(tmp_path, "strict", case=BAD_CASE.read_text().replace(old, new))
    r = replay(f)
    _one_error_line(r, f / "case.json", *words)
    check = CliRunner().invoke(main, ["check", str(f / "case.json")])  # the case-file reader says the same
    assert check.exit_code == 2 and words[-1] in check.stderr


def test_replay_of_a_data_file_outside_the_finding_names_the_case_file(tmp_path):
    case = BAD_CASE.read_text().replace('"size": 512}', '"size": 512, "data": "/etc/passwd"}')
    f = finding(tmp_path, "outside", case=case, meta={"kind": "differential"})
    _one_error_line(replay(f, "--target", GOOD), f / "case.json", "tensors.src0.data", "is outside")


@pytest.mark.parametrize("meta, field", [
    ({"seed": -1}, "seed"),
    ({"seed": 2**64}, "seed"),
    ({"seed": 1.5}, "seed"),
    ({"kind": "negative", "rule": "no.such.rule"}, "rule"),
    ({"kind": "negative", "rule": 5}, "rule"),
    ({"kind": "sideways"}, "kind"),
    ({"api": 5}, "api"),
    ({"api": "LoadAlign"}, "api"),
    ({"product": "atlas-350"}, "product"),
])
def test_replay_of_invalid_finding_fields_is_bad_input_not_a_finding(tmp_path, meta, field):
    f = finding(tmp_path, "fields", meta=meta)
    _one_error_line(replay(f), f / "finding.json", field)


def test_replay_of_a_valid_negative_finding_still_replays(tmp_path):
    case = BAD_CASE.read_text().replace('"vROffset": 100', '"vROffset": 128')  # breaks one rule only
    f = finding(tmp_path, "negative", case=case, meta={"kind": "negative", "rule": "bilinear.dst.vertical_overlap"})
    r = replay(f)
    assert r.exit_code in (0, 1) and r.stdout.startswith(f"{f}: "), r.output


# -- 3. a target's registers.json ---------------------------------------------------------------------------------

def test_deeply_nested_registers_json_is_a_protocol_finding(tmp_path):
    script = tmp_path / "t_reg.sh"
    script.write_text('#!/bin/sh\nmkdir -p "$1/outputs"\n'
                      'python3 -c "print(\'[\'*100000+\']\'*100000)" > "$1/outputs/registers.json"\n')
    script.chmod(0o755)
    r = ascverify("fuzz", "LoadAlign", "-p", "atlas-350", "--target-cmd", f"{script} {{dir}}", "--examples", "3",
                  "--no-shrink", "--seed", "1", "--findings", "F", "-q", cwd=tmp_path)
    _no_internal_error(r)
    assert r.returncode == 1, r.stderr[-2000:]
    (found,) = [p for p in (tmp_path / "F").iterdir() if not p.name.startswith(".")]
    meta = json.loads((found / "finding.json").read_text())
    assert "registers.json" in meta["message"] and "depth limit" in meta["message"], meta["message"]
    assert meta["kind"] == "differential" and meta["key"].startswith("differential."), meta


def test_read_registers_refuses_nesting_and_non_json(tmp_path):
    for text in ("[" * 100_000 + "]" * 100_000, '{"mask": {"0": ' + "[" * 200 + "]" * 200 + "}}", "{nope"):
        (tmp_path / "registers.json").write_text(text)
        got = read_registers(tmp_path)
        assert isinstance(got["mask"][ANY_INDEX], Malformed), (text[:20], got)


# -- 4. the campaign file ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("key", ["report", "findings", "junit", "database", "target_cmd", "shard"])
def test_a_nul_in_a_campaign_file_value_is_one_line_naming_file_and_key(tmp_path, monkeypatch, key):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "c.json").write_text(json.dumps({key: "a\u0000b"}))
    r = CliRunner().invoke(main, ["fuzz", "--config", "c.json"])
    assert r.exit_code == 2, (r.output, r.exception)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("ascverify: c.json") and f"{key}:" in lines[0], r.stderr
    assert "NUL" in lines[0] and "internal error" not in r.output


def test_a_folder_in_the_way_of_a_new_finding_is_not_taken_for_it(tmp_path):
    """A folder (or a link) someone made under a new finding's name made the finding "known": nothing saved, no
    reproducer, "0 new". The finding is known only when that folder's finding.json names its id; otherwise the
    campaign says it could not be saved (exit 2, the finding printed in full) and leaves the folder alone."""
    first = ascverify("fuzz", "BilinearInterpolation", "-p", "atlas-a2", "--target", BUGGY, "--examples", "50",
                      "--seed", "1", "--findings", "F", "-q", cwd=tmp_path)
    assert first.returncode == 1, first.stderr[-2000:]
    (saved,) = [p for p in (tmp_path / "F").iterdir() if not p.name.startswith(".")]
    fid = json.loads((saved / "finding.json").read_text())["id"]
    again = ascverify("fuzz", "BilinearInterpolation", "-p", "atlas-a2", "--target", BUGGY, "--examples", "50",
                      "--seed", "1", "--findings", "F", cwd=tmp_path)
    assert again.returncode == 1 and "1 finding (0 new)" in again.stderr  # the real folder: known
    outside = tmp_path / "outside"
    outside.mkdir()
    for kind in ("empty folder", "link"):
        planted = tmp_path / kind.replace(" ", "_")
        planted.mkdir()
        if kind == "link":
            (planted / saved.name).symlink_to(outside, target_is_directory=True)
        else:
            (planted / saved.name).mkdir()
        r = ascverify("fuzz", "BilinearInterpolation", "-p", "atlas-a2", "--target", BUGGY, "--examples", "50",
                      "--seed", "1", "--findings", planted, cwd=tmp_path)
        _no_internal_error(r)
        assert r.returncode == 2, (kind, r.stderr[-1500:])
        assert f"finding {fid} not saved" in r.stderr and "is in the way: not this finding's folder" in r.stderr
        assert "fuzz: finding: {" in r.stderr  # printed in full instead
        assert not any(outside.iterdir()) and not any((planted / saved.name).iterdir())
