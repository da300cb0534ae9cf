"""`check` output built from remembered pieces (engines.report: `result_json`, `add_result_lines`): the same text as
orjson writes for ``Result.to_json()`` and as the documented line format, whatever was rendered before.

The reference texts are made here independently of the renderer: orjson on ``Result.to_json()`` (the definition of
an entry's shape), and the line format of docs/cli (``FILE:case N: error: [rule-id] message (source)``) worded from
the result's fields."""

from __future__ import annotations

import json

import orjson
import pytest
from click.testing import CliRunner

from ascverify.checking.checker import Result, Unchecked, Violation
from ascverify.cli import main
from ascverify.cli.common import DataCache, checked_stream
from ascverify.engines import report
from ascverify.engines.report import Counts, json_document, result_json, result_lines
from ascverify import get_api

# page 003 (SetLoadDataRepeatWithStride): repeatTime=0 is a NOP: legal, a warning (docs/severity.md)
WARNS = {"api": "SetLoadDataRepeatWithStride", "product": "atlas-350", "args": {"repeatTime": 0, "dstStride": 1}}
# src lies past the end of UB (an error) and isSetMask=false leaves the mask rules unchecked (notes)
BREAKS = {"api": "BlockReduceMax", "product": "atlas-a3", "dtype": "float",
          "args": {"repeatTime": 25, "mask": "MASK_PLACEHOLDER", "dstRepStride": 1, "srcBlkStride": 1,
                   "srcRepStride": 3, "isSetMask": False},
          "tensors": {"dst": {"position": "VECOUT", "addr": 32, "size": 225},
                      "src": {"position": "VECCALC", "addr": 1049632, "size": 674}}}
VALID = {**BREAKS, "tensors": {"dst": {"position": "VECOUT", "addr": 32, "size": 225},
                               "src": {"position": "VECCALC", "addr": 1024, "size": 674}}}
# a program whose second call breaks a range rule (repeat 300 > 255): its finding carries "call": 1
PROGRAM = {"product": "atlas-a2", "dtype": "half",
           "tensors": {"x": {"position": "VECIN", "addr": 0, "size": 128},
                       "z": {"position": "VECOUT", "addr": 512, "size": 16}},
           "calls": [{"api": "set_vector_mask", "args": {"mask": [255, 0]}},
                     {"api": "block_reduce_min",
                      "args": {"repeat": 300, "mask": "MASK_PLACEHOLDER", "dst_rep_stride": 1, "src_blk_stride": 1,
                               "src_rep_stride": 8, "is_set_mask": False},
                      "tensors": {"dst": "z", "src": "x"}}]}


@pytest.fixture
def files(tmp_path):
    """Case files of every kind of result: findings of each severity, notes, a program, unreadable cases, a file
    that cannot be read, and a file name JSON and a terminal must escape."""
    odd = tmp_path / 'odd "name"\tç.jsonl'
    odd.write_text("\n".join(json.dumps(d) for d in (BREAKS, WARNS, VALID, BREAKS, {"api": "Nope"}, WARNS))
                   + "\nnot json\n")
    prog = tmp_path / "program.json"
    prog.write_text(json.dumps(PROGRAM))
    return [str(odd), str(prog), str(tmp_path / "missing.json")]


def results_of(paths: list[str], strict: bool = False) -> list[Result]:
    out = [r for p in paths for r in checked_stream(p, 1 << 24, DataCache())]
    if strict:
        for r in out:
            r.promote_warnings()
    return out


def expected_lines(r: Result, verbose: bool) -> list[str]:
    """The documented line format, worded here from the result's fields."""
    loc = f"{r.file}:case {r.index}".replace("\t", "\\t")
    at = lambda x: loc if x.call is None else f"{loc}: call {x.call}"  # noqa: E731
    lines = []
    if verbose and not r.violations and r.api is not None:
        lines.append(f"{loc}: ok (program of {len(r.program.calls)} calls on {r.product})" if r.program is not None
                     else f"{loc}: ok ({r.api} on {r.product})")
    for v in r.violations:
        mark = " [warning made an error by --strict]" if v.promoted else ""
        lines.append(f"{at(v)}: error: [{v.rule.id}] {v.message} ({v.rule.citation}){mark}")
    lines += [f"{at(v)}: warning: [{v.rule.id}] {v.message} ({v.rule.citation})" for v in r.warnings]
    if r.violations or verbose:
        lines += [f"{at(u)}: note: not checked: [{u.rule_id}] {u.reason}" for u in r.unchecked]
    return lines


@pytest.mark.parametrize("strict", [False, True], ids=["plain", "strict"])
def test_entries_are_orjsons_text_of_to_json(files, strict):
    results = results_of(files, strict)
    kinds = {(r.error is not None, r.index is None, bool(r.violations), bool(r.warnings), bool(r.unchecked),
              r.program is not None) for r in results}
    assert len(kinds) >= 5  # errors, a file error, findings, warnings or notes alone, a program
    for _ in range(2):  # the second time from the memos
        for r in results:
            assert result_json(r) == orjson.dumps(r.to_json()).decode()
            one = json_document([r])  # orjson indents the entry at its depth in the document
            assert one.startswith('{\n  "format": "ascverify-check/2",\n  "results": [\n' + result_json(r, indent=True)
                                  + "\n  ],\n")


@pytest.mark.parametrize("strict", [False, True], ids=["plain", "strict"])
def test_check_json_and_jsonl_are_the_documents_of_to_json(files, strict):
    flags = ["--strict"] if strict else []
    runner = CliRunner()
    reference = results_of(files, strict)
    got = runner.invoke(main, ["check", "--format", "json", *flags, *files])
    assert got.exit_code == 2  # unreadable input
    assert got.stdout == json_document(reference)
    got = runner.invoke(main, ["check", "--format", "jsonl", *flags, *files])
    assert got.stdout == "".join(orjson.dumps(r.to_json()).decode() + "\n" for r in reference)


@pytest.mark.parametrize("verbose", [False, True], ids=["plain", "verbose"])
def test_text_lines_follow_the_documented_format(files, verbose):
    results = [r for r in results_of(files) if r.error is None]
    assert any(r.violations for r in results) and any(r.warnings for r in results)
    for _ in range(2):
        for r in results:
            assert result_lines(r, verbose=verbose) == expected_lines(r, verbose)
    got = CliRunner().invoke(main, ["check", *(["-v"] if verbose else []), *files])
    assert got.stdout == "".join(line + "\n" for r in results for line in expected_lines(r, verbose))


def test_a_remembered_warning_still_prints_promoted_under_strict(tmp_path):
    """The memos saw the warning unpromoted first; --strict after, in the same process, still marks it."""
    path = tmp_path / "warns.json"
    path.write_text(json.dumps(WARNS))
    runner = CliRunner()
    for fmt in ("text", "json", "jsonl", "text", "json", "jsonl"):
        plain = runner.invoke(main, ["check", "--format", fmt, str(path)])
        strict = runner.invoke(main, ["check", "--format", fmt, "--strict", str(path)])
        assert (plain.exit_code, strict.exit_code) == (0, 1)
        if fmt == "text":
            assert ": warning: [set_load_data_repeat.repeatTime.noop]" in plain.stdout
            assert "--strict" not in plain.stdout
            assert strict.stdout.rstrip("\n").endswith(" [warning made an error by --strict]")
        else:
            doc = json.loads(plain.stdout if fmt == "jsonl" else plain.stdout)
            entry = doc if fmt == "jsonl" else doc["results"][0]
            assert [w.get("promoted") for w in entry["warnings"]] == [None] and entry["violations"] == []
            doc = json.loads(strict.stdout)
            entry = doc if fmt == "jsonl" else doc["results"][0]
            assert entry["warnings"] == []
            assert [(v["severity"], v["promoted"]) for v in entry["violations"]] == [
                ("error", "warning made an error by --strict")]


def test_findings_differ_by_rule_call_promotion_and_value_type():
    """Two findings alike but for their rule, their call, their promotion, or a message 1 against True each print
    their own."""
    rules = get_api("BlockReduceMax").rules
    a, b = rules[0], rules[1]
    words = [Violation(a, "same words"), Violation(b, "same words"), Violation(a, "same words", call=0),
             Violation(a, "same words", call=1), Violation(a, "same words", promoted=True)]
    made = words + [Violation(a, 1), Violation(a, True)]  # type: ignore[arg-type]
    notes = [Unchecked("x.rule", "why", a.source), Unchecked("x.rule", "why", a.source, call=2)]
    for _ in range(2):
        for v in made:
            r = Result("f.json", 0, None, violations=[v], unchecked=notes)
            assert result_json(r) == orjson.dumps(r.to_json()).decode()
            assert result_json(r, indent=True) in json_document([r])
        for v in words:
            r = Result("f.json", 0, None, violations=[v], unchecked=notes)
            assert result_lines(r) == expected_lines(r, False)
            r = Result("f.json", 0, None, warnings=[v], unchecked=notes)
            assert result_lines(r, verbose=True) == expected_lines(r, True)


def test_a_shared_note_prints_as_each_result_that_holds_it():
    """A note (read-only, shared by many results) is found again by identity: the same text in every result, and a
    new note with other words prints its own, also one whose reason cannot be remembered (not a str)."""
    shared = Unchecked("x.rule", "depends on earlier calls", "src")
    for i in range(3):
        own = Unchecked("x.rule", f"no data given for src{i}", "src")
        odd = Unchecked("x.rule", ["not", "a", "str"], "src")  # type: ignore[arg-type]
        for r in (Result("f.json", i, None, unchecked=[shared, own]), Result("f.json", i, None, unchecked=[odd])):
            assert result_json(r) == orjson.dumps(r.to_json()).decode()
            assert result_json(r, indent=True) in json_document([r])


def test_memos_start_over_when_full(files, monkeypatch):
    memos = [report._FILES, report._OKS, report._ERRORS, report._WARNINGS, report._NOTES]
    for layout in (report._COMPACT, report._INDENTED):
        memos += [layout.heads, layout.mids, layout.findings, layout.notes]
    for m in memos:
        m.clear()
    monkeypatch.setattr(report, "_MEMO_MAX", 2)
    results = results_of(files, strict=True) + results_of(files)
    for r in results:
        assert result_json(r) == orjson.dumps(r.to_json()).decode()
        assert result_json(r, indent=True) in json_document([r])
        if r.error is None:
            assert result_lines(r, verbose=True) == expected_lines(r, True)
    assert all(len(m) <= 2 for m in memos)


def test_counts_of_the_summary(files):
    counts = Counts()
    for r in results_of(files):
        counts.add(r)
    # odd: 3 BREAKS-like cases (2 broken, VALID valid), 2 WARNS valid, 2 unreadable; program broken; 1 file missing
    assert (counts.valid, counts.invalid, counts.unreadable, counts.files) == (3, 3, 2, 1)
