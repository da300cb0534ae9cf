"""`check` reads a line it has seen before once (`cases.repeats`): a kernel's trace repeats the same call thousands
of times. A line's verdict must not depend on that: every occurrence of a line gets the verdict the line gets alone
in its own file (its index and line number its own), whatever came before it, in every format, with --strict (a
warning made an error on one occurrence only changes that one) and with two workers. The file is long enough that
repeats cross the reader's batches (512 lines), its parse blocks (4,096 cases) and check's windows (set small here)."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from ascverify.cases import repeats as repeats_module
from ascverify.cases.caseio import read_cases
from ascverify.cases.columnar import parse_block
from ascverify.cases.repeats import Repeats
from ascverify.cli import main
from ascverify.checking import checker
from ascverify.cli import check_cmd, common

from mixed_cases import BASE, PROGRAM, mixed_case

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def _distinct_lines() -> list[str]:
    """Lines of every kind: valid and invalid calls of several APIs (the shipped examples' lines), a warning
    (repeatTime 0: a NOP the pages warn about), a program, inline data, and lines that cannot be read."""
    lines = [line for line in (EXAMPLES / "cases.jsonl").read_text().splitlines() if line.strip()]
    lines += [json.dumps(mixed_case(i)) for i in (0, 3, 5, 6, 19)]
    zero = json.loads(json.dumps(BASE))
    zero["args"]["repeatTime"] = 0
    lines.append(json.dumps(zero))
    lines.append(json.dumps(PROGRAM))
    data = json.loads(json.dumps(BASE))
    data["tensors"]["src"]["data"] = [1.0] * 128
    lines.append(json.dumps(data))
    lower = json.loads(json.dumps(BASE))
    lower["api"] = "blockreducemax"  # read (any letter case), but not the schema's spelling: refused by --schema
    lines.append(json.dumps(lower))
    lines += ['{"api": "BlockReduceMax", "api": "BlockReduceMin"}', '{not json', '42',
              '{"api": "NoSuchApi", "product": "atlas-a2", "args": {}, "tensors": {}}']
    return lines


def _file(tmp_path: Path, n: int, seed: int = 0) -> tuple[Path, list[str], list[int]]:
    """``n`` lines drawn from `_distinct_lines`, a blank line now and then; the file, its lines, and per case
    its line number (1-based)."""
    rng = random.Random(seed)
    distinct = _distinct_lines()
    text: list[str] = []
    linenos: list[int] = []
    for _ in range(n):
        if rng.random() < 0.01:
            text.append("")
        text.append(rng.choice(distinct))
        linenos.append(len(text))
    path = tmp_path / "trace.jsonl"
    path.write_text("\n".join(text) + "\n")
    return path, text, linenos


def _check(*argv: str) -> tuple[int, str, str]:
    got = CliRunner().invoke(main, ["check", *argv])
    return got.exit_code, got.stdout, got.stderr


def _alone(tmp_path: Path, line: str, *options: str) -> dict:
    """The verdict of ``line`` alone in its own file (its jsonl record)."""
    one = tmp_path / "one" / "trace.jsonl"
    one.parent.mkdir(exist_ok=True)
    one.write_text(line + "\n")
    _, out, _ = _check("--format", "jsonl", "--workers", "1", *options, str(one))
    records = [json.loads(r) for r in out.splitlines() if r.strip()]
    assert len(records) == 1
    return records[0]


def _comparable(record: dict, lineno: int) -> dict:
    """The record without its place; an input error without the line number it names, which must be ``lineno``
    (alone in its file, a line is a whole document: its error names no line)."""
    out = {k: v for k, v in record.items() if k not in ("file", "index")}
    if "error" in out:
        m = re.match(r"line (\d+): (.*)$", out["error"])
        if m:
            assert int(m.group(1)) == lineno, record
            out["error"] = m.group(2)
        # alone, the line is a whole document: its place is `line 1 column C (char N)`; a line of JSON Lines says
        # its column only (its number is given first)
        out["error"] = re.sub(r": line 1 column (\d+) \(char \d+\)$", r" (column \1)", out["error"])
    return out


@pytest.mark.parametrize("options", [(), ("--strict",)], ids=["plain", "strict"])
def test_each_occurrence_gets_the_verdict_of_its_line_alone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                           options: tuple[str, ...]) -> None:
    monkeypatch.setattr(common, "STREAM_WINDOW", 3000)  # several windows: a case remembered from an earlier one
    path, text, linenos = _file(tmp_path, 9000)
    code, out, err = _check("--format", "jsonl", "--workers", "1", *options, str(path))
    assert code == 2  # unreadable lines
    records = [json.loads(r) for r in out.splitlines() if r.strip()]
    assert [r["index"] for r in records] == list(range(len(linenos)))
    expected: dict[str, dict] = {}
    for record, lineno in zip(records, linenos):
        line = text[lineno - 1]
        if line not in expected:
            expected[line] = _comparable(_alone(tmp_path, line, *options), 1)
        assert _comparable(record, lineno) == expected[line], (record["index"], line)
    # each unreadable case is one line on standard error, with its own line number
    unreadable = [(r["index"], lineno) for r, lineno in zip(records, linenos) if "error" in r]
    lines = [e for e in err.splitlines() if ":case " in e]
    assert len(lines) == len(unreadable) > 100
    assert all(f":case {i}: line {n}: " in e for (i, n), e in zip(unreadable, lines) if ": line " in e)


def _named_prologue(tmp_path: Path) -> Path:
    """600 distinct lines (each case named), then 3,000 lines repeating them."""
    distinct = []
    for i in range(600):
        doc = mixed_case(i)
        doc["name"] = f"call {i}"
        distinct.append(json.dumps(doc))
    rng = random.Random(3)
    path = tmp_path / "prologue.jsonl"
    path.write_text("\n".join(distinct + [rng.choice(distinct) for _ in range(3000)]) + "\n")
    return path


#: The runs compared, each with repeated lines remembered and read afresh: every format, two workers, --schema (a
#: document validated once), --product all / P.
RUNS = [*(("--format", f, "--workers", "1") for f in ("text", "json", "jsonl", "sarif", "junit")),
        ("--format", "jsonl", "--workers", "2"),
        ("--product", "all", "--workers", "1"),
        ("--product", "all", "--strict", "--format", "json"),
        ("--product", "atlas-350", "--format", "jsonl"),
        ("--schema", "--format", "jsonl")]


@pytest.mark.parametrize("run", RUNS, ids=[" ".join(r) for r in RUNS])
@pytest.mark.parametrize("most_lines,kind", [(None, "mixed"), (8, "mixed"), (50, "prologue")],
                         ids=["default", "forgetting", "turned-off"])
def test_repeats_change_no_byte_of_any_format(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                              most_lines: int | None, kind: str, run: tuple[str, ...]) -> None:
    """The whole output with repeated lines remembered and with each line read afresh (`read_cases` without
    ``repeats``) is the same, in every format (`RUNS`); also when the memory is full every few lines (forgotten and
    started again) and when a file of distinct lines turns remembering off before its repeats."""
    if most_lines is not None:
        monkeypatch.setattr(repeats_module, "MOST_LINES", most_lines)
    # --schema validates every line of the run that reads each afresh (about 1.5 ms a line): 4,500 lines, still
    # past a parse block of 4,096
    lines = 4500 if "--schema" in run else 6000
    path = _file(tmp_path, lines, seed=1)[0] if kind == "mixed" else _named_prologue(tmp_path)
    remembered = _check(*run, str(path))
    original_read, original_lines = check_cmd.read_cases, check_cmd.cases_from_lines
    monkeypatch.setattr(check_cmd, "read_cases", lambda *a, **k: original_read(*a, **{**k, "repeats": False}))
    monkeypatch.setattr(check_cmd, "cases_from_lines",
                        lambda *a, **k: original_lines(*a, **{**k, "repeats": False}))
    assert _check(*run, str(path)) == remembered


def test_a_repeated_line_is_read_once_into_one_case(tmp_path: Path) -> None:
    path, text, linenos = _file(tmp_path, 9000, seed=2)
    entries = list(read_cases(str(path), repeats=True))
    by_line: dict[str, set[int]] = {}
    for e, lineno in zip(entries, linenos):
        if e.case is not None:
            by_line.setdefault(text[lineno - 1], set()).add(id(e.case))
    # each plain line is one case object (a line with inline data or register contents is read each time: its
    # data is its own)
    assert len(by_line) > 10
    for line, ids in by_line.items():
        own_data = '"data"' in line or '"registers"' in line
        assert len(ids) == (len([x for x in linenos if text[x - 1] == line]) if own_data else 1), line
    afresh = list(read_cases(str(path)))
    assert len({id(e.case) for e in afresh if e.case is not None}) == sum(e.case is not None for e in afresh)


def _doc(i: int) -> dict:
    doc = mixed_case(0)
    doc["args"]["repeatTime"] = 1 + i % 200
    doc["tensors"]["src"]["addr"] = 32 * (i // 200)
    return doc


def test_memory_stays_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(repeats_module, "MOST_LINES", 50)
    monkeypatch.setattr(repeats_module, "MOST_ROWS", 12)
    memo = Repeats()
    for i in range(175):  # past MOST_LINES: forgotten and started again
        memo.remember_value(f"line {i}".encode(), {"i": i})
        assert len(memo.values) <= 50
    assert len(memo.values) == 25  # cleared at lines 50, 100 and 150
    memo.remember_value(b"x" * (repeats_module.MOST_LINE_BYTES + 1), {"long": True})
    memo.remember_value(b"program", {"calls": []})
    assert b"program" not in memo.values and len(memo.values) == 25
    # cases read column-wise keep their block alive: at most MOST_ROWS rows of blocks
    memo.clear()
    blocks = []
    for b in range(6):  # six blocks of 5 rows
        docs = [_doc(5 * b + r) for r in range(5)]
        lines = [json.dumps(d).encode() for d in docs]
        for line, d in zip(lines, docs):
            memo.remember_value(line, d)
        cases = parse_block(docs, [f"t:case {5 * b + r}" for r in range(5)], None)
        assert all(c is not None for c in cases)
        for d, c in zip(docs, cases):
            memo.remember_case(d, c)
            assert memo.case(d) is c
        blocks.append((docs, cases))
        assert sum(len(block) for block, _ in memo._blocks.values()) <= 12  # noqa: SLF001
    # the oldest blocks' cases are forgotten, the newest kept
    assert all(memo.case(d) is None for d in blocks[0][0])
    assert all(memo.case(d) is c for d, c in zip(*blocks[-1]))


def test_a_file_of_distinct_lines_turns_remembering_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(repeats_module, "MOST_LINES", 40)
    few, many = Repeats(), Repeats()
    for batch in range(10):
        fresh = [f"line {batch} {i}".encode() for i in range(10)]
        for memo, lines in ((few, fresh), (many, fresh[:5] + [b"again %d" % i for i in range(5)])):
            if not memo.active:
                continue
            for line, value in zip(lines, memo.seen(lines)):
                if value is None:
                    memo.remember_value(line, {"line": line.decode()})
    # 40 lines remembered, none seen again: off (and forgotten); half the lines repeats: on
    assert not few.active and not few.values
    assert many.active and many.hits >= 5 * 7 and many.values  # forgotten once (at 40 lines), then seen again


def test_a_value_is_remembered_only_as_the_object_held() -> None:
    memo = Repeats()
    first, second = {"api": "x"}, {"api": "x"}
    memo.remember_value(b'{"api":"x"}', first)
    memo.remember_value(b'{"api":"x"}', second)  # the same line read twice in one batch: the first is kept
    assert memo.values[b'{"api":"x"}'] is first
    case = parse_block([_doc(0)] * 32, [f"t:case {i}" for i in range(32)], None)[0]
    memo.remember_case(second, case)  # not the value held: a later line never gives this object
    assert memo.case(second) is None
    memo.remember_case(first, case)
    assert memo.case(first) is case and memo.case({"api": "x"}) is None


def test_a_case_that_comes_again_in_a_later_window_is_not_checked_again(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """The verdict of a repeated line is remembered with its case (`Repeats.remember_verdict`): a later window of
    `check` copies it instead of checking the case again (the first test above: the verdicts are each line's own)."""
    monkeypatch.setattr(common, "STREAM_WINDOW", 1000)  # nine windows
    path, text, linenos = _file(tmp_path, 9000, seed=4)
    checked: list = []  # the cases themselves (held: ids of freed cases come again)
    original = checker._check_distinct
    monkeypatch.setattr(checker, "_check_distinct", lambda cases: (checked.extend(cases), original(cases))[1])

    def plain_checked() -> list:
        """The cases checked that are not read afresh each time (a line with its own data or registers) nor a
        program's call (checked with the program's state)."""
        checked.clear()
        code, out, _ = _check("--format", "jsonl", "--workers", "1", str(path))
        assert code == 2 and len(out.splitlines()) == len(linenos)
        return [c for c in checked if not c.data_sources and not c.registers and ": call " not in c.origin]

    once = plain_checked()
    assert len({id(c) for c in once}) == len(once) >= 5  # each case object checked once over the nine windows
    monkeypatch.setattr(common, "check_cases", lambda cases, verdicts=None: checker.check_cases(cases))
    every_window = plain_checked()  # without the memo: once per window it comes in
    assert len(every_window) > 5 * len(once)


def test_a_remembered_verdict_is_handed_out_as_a_copy() -> None:
    """A caller sets a result's file, index and error's place: the verdict kept is not the one handed out."""
    memo = Repeats()
    doc = _doc(0)
    doc["tensors"]["src"]["addr"] = 1  # off its 32-byte alignment: a violation
    memo.remember_value(json.dumps(doc).encode(), doc)
    case = parse_block([doc] * 32, [f"t:case {i}" for i in range(32)], None)[0]
    memo.remember_case(doc, case)
    first = checker.check_cases([case, case], memo)
    kept = memo.verdict(case)
    assert first[0] is not first[1] and all(r is not kept for r in first) and first[0].violations
    first[0].file, first[0].index = "a.jsonl", 7
    again = checker.check_cases([case], memo)[0]
    assert again is not kept and again.index != 7 and again.file != "a.jsonl"
    assert [v.rule.id for v in again.violations] == [v.rule.id for v in first[1].violations]
    # a case the memo does not remember gets no verdict kept (it would be held alive, unbounded)
    other = parse_block([_doc(1)] * 32, [f"t:case {i}" for i in range(32)], None)[0]
    checker.check_cases([other], memo)
    assert memo.verdict(other) is None


def test_a_verdict_is_forgotten_with_its_case(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(repeats_module, "MOST_ROWS", 12)
    memo = Repeats()
    kept = []
    for b in range(4):  # four blocks of 5 rows: the first two are forgotten
        docs = [_doc(5 * b + r) for r in range(5)]
        for d in docs:
            memo.remember_value(json.dumps(d).encode(), d)
        cases = parse_block(docs, [f"t:case {5 * b + r}" for r in range(5)], None)
        for d, c in zip(docs, cases):
            memo.remember_case(d, c)
        checker.check_cases(cases, memo)
        kept.append(cases)
    assert all(memo.verdict(c) is None for c in kept[0])
    assert all(memo.verdict(c) is not None for c in kept[-1])
    assert len(memo._verdicts) == sum(len(values) for _, values in memo._blocks.values())  # noqa: SLF001
    memo.clear()
    assert all(memo.verdict(c) is None for c in kept[-1]) and not len(memo._verdicts)  # noqa: SLF001
