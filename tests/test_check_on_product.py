"""`check --product P` reads each case as if it named P and checks it there once, as the file is read (the same
windows, workers and output as plain `check`). The reference is plain `check` on a copy of the file whose lines name
P themselves (the product field rewritten here, not by the code under test)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from ascverify.checking.checker import Result
from ascverify.cli import check_cmd, common, main
from ascverify.spec.errors import InputError
from mixed_cases import PROGRAM, mixed_case


def _docs(n: int) -> list[dict | None]:
    """n documents (None: a line that is not JSON)."""
    out: list[dict | None] = []
    for i in range(n):
        if i % 97 == 50:
            out.append(None)
            continue
        doc = mixed_case(i)
        if i % 31 == 7:
            doc = {**json.loads(json.dumps(PROGRAM)), "product": doc["product"]}
        elif i % 5 == 1:  # fits the larger buffers of atlas-350 only
            doc["tensors"]["src"]["addr"] = 200 * 1024
        out.append(doc)
    return out


def _write(folder, docs: list[dict | None], product: str | None = None) -> None:
    """docs as cases.jsonl in ``folder`` (``product``: every document names it)."""
    folder.mkdir()
    lines = []
    for doc in docs:
        if doc is None:
            lines.append("not json {")
            continue
        lines.append(json.dumps({**doc, "product": product} if product else doc))
    (folder / "cases.jsonl").write_text("\n".join(lines) + "\n")


def _run(monkeypatch, folder, *argv: str):
    monkeypatch.chdir(folder)  # the same relative file name in both runs: the outputs name it
    return CliRunner().invoke(main, ["check", *argv, "cases.jsonl"])


def _without_regions(value):
    if isinstance(value, dict):
        return {k: _without_regions(v) for k, v in value.items() if k != "region"}
    if isinstance(value, list):
        return [_without_regions(v) for v in value]
    return value


@pytest.mark.parametrize("product", ["atlas-a3", "atlas-350"])
@pytest.mark.parametrize("argv", [[], ["-v"], ["--format", "json"], ["--format", "jsonl", "-v", "--strict"],
                                  ["--format", "sarif"]])
def test_moved_cases_say_what_cases_naming_the_product_say(tmp_path, monkeypatch, product, argv):
    docs = _docs(400)
    _write(tmp_path / "given", docs)
    _write(tmp_path / "named", docs, product)
    moved = _run(monkeypatch, tmp_path / "given", "--product", product, *argv)
    named = _run(monkeypatch, tmp_path / "named", *argv)
    if argv == ["--format", "sarif"]:  # its regions point into each file, whose product fields differ in length
        assert _without_regions(json.loads(moved.stdout)) == _without_regions(json.loads(named.stdout))
        assert (moved.stderr, moved.exit_code) == (named.stderr, named.exit_code)
        return
    assert (moved.stdout, moved.stderr, moved.exit_code) == (named.stdout, named.stderr, named.exit_code)
    assert moved.exit_code == 2  # the lines that are not JSON
    if argv == ["--format", "json"]:
        results = json.loads(moved.stdout)["results"]
        assert {r["product"] for r in results if "error" not in r} == {product}
        assert any(r["valid"] for r in results if "error" not in r)
        assert any(not r["valid"] for r in results if "error" not in r)


def test_each_case_is_checked_once_in_windows(tmp_path, monkeypatch):
    """Streamed like plain `check`: windows of at most STREAM_WINDOW cases, each case checked on P only (before, every
    case was checked on its own product, and all were kept until the end of the input)."""
    docs = _docs(2600)
    _write(tmp_path / "given", docs)
    monkeypatch.setattr(common, "STREAM_WINDOW", 500)
    sizes: list[int] = []
    products: set[str] = set()
    real = common.check_cases

    def spy(cases, *a, **kw):
        sizes.append(len(cases))
        products.update(c.ctx.product.id for c in cases)
        return real(cases, *a, **kw)

    monkeypatch.setattr(common, "check_cases", spy)
    r = _run(monkeypatch, tmp_path / "given", "--product", "atlas-a3", "--format", "jsonl")
    single = sum(1 for d in docs if d is not None and "api" in d)
    assert sum(sizes) == single and max(sizes) <= 500 and len(sizes) >= single // 500
    assert products == {"atlas-a3"}
    assert len(r.stdout.splitlines()) == len(docs)


def test_workers_say_what_one_process_says(tmp_path, monkeypatch):
    _write(tmp_path / "given", _docs(3000))
    monkeypatch.setattr(check_cmd, "PARALLEL_MIN_BYTES", 0)  # this small file split between the workers too
    monkeypatch.setattr(common, "PARALLEL_MIN_CHUNK_LINES", 400)
    one = _run(monkeypatch, tmp_path / "given", "--product", "atlas-a3", "--format", "json", "--workers", "1")
    two = _run(monkeypatch, tmp_path / "given", "--product", "atlas-a3", "--format", "json", "--workers", "2")
    assert (one.stdout, one.stderr, one.exit_code) == (two.stdout, two.stderr, two.exit_code)
    assert json.loads(one.stdout)["summary"]["invalid"] > 0


@pytest.mark.parametrize("argv, why", [(["--format", "sarif", "--product", "all"], "--format sarif"),
                                       (["--format", "sarif"], "--format sarif")])
def test_workers_a_run_cannot_use_are_named_not_ignored_silently(tmp_path, monkeypatch, argv, why):
    """--format sarif checks in one process: asked for workers, `check` says so on
    standard error (once, before the summary), and prints what one process prints."""
    _write(tmp_path / "given", _docs(300))
    monkeypatch.setattr(check_cmd, "PARALLEL_MIN_BYTES", 0)  # a file the workers would otherwise take
    one = _run(monkeypatch, tmp_path / "given", *argv)
    two = _run(monkeypatch, tmp_path / "given", *argv, "--workers", "2")
    note = f"note: --workers 2 is not used with {why}: the check runs in one process\n"
    assert two.stderr.count("--workers") == 1 and two.stderr.startswith(note)
    assert (two.stdout, two.stderr[len(note):], two.exit_code) == (one.stdout, one.stderr, one.exit_code)
    assert "--workers" not in one.stderr


def _spy_on_workers(monkeypatch) -> list[bool]:
    """Whether each file `check` considered for the workers went to them (True) or stayed in this process."""
    parallel: list[bool] = []
    real = check_cmd._parallel_reports

    def spy(*args, **kwargs):
        parts = real(*args, **kwargs)
        parallel.append(parts is not None)
        return parts

    monkeypatch.setattr(check_cmd, "_parallel_reports", spy)
    return parallel


@pytest.mark.parametrize("argv", [[], ["-v", "--strict"], ["--format", "json"], ["--format", "jsonl", "--strict"]])
def test_workers_check_on_every_product_as_one_process_does(tmp_path, monkeypatch, argv):
    """--product all with --workers: chunks of the file checked on every product by the workers, printed in file
    order: the same standard output, standard error and exit status as one process (lines that are not JSON,
    programs and cases invalid on some products only among them)."""
    _write(tmp_path / "given", _docs(1500))
    monkeypatch.setattr(check_cmd, "PORTABILITY_PARALLEL_MIN_BYTES", 0)  # this small file goes to the workers
    monkeypatch.setattr(check_cmd, "PORTABILITY_CHUNK_LINES", 400)  # in 4 chunks
    parallel = _spy_on_workers(monkeypatch)
    one = _run(monkeypatch, tmp_path / "given", "--product", "all", *argv)
    two = _run(monkeypatch, tmp_path / "given", "--product", "all", *argv, "--workers", "2")
    assert parallel == [True]  # only the run with workers asked for them, and they took the file
    assert (two.stdout, two.stderr, two.exit_code) == (one.stdout, one.stderr, one.exit_code)
    assert one.exit_code == 2 and "not json" not in one.stdout  # the broken lines: standard error
    assert one.stderr.count("cases.jsonl:case ") == sum(1 for d in _docs(1500) if d is None)
    if argv == ["--format", "json"]:
        doc = json.loads(one.stdout)
        assert len(doc["results"]) == 1500
        assert doc["summary"]["portable"] > 0 and doc["summary"]["not_portable"] > 0


def test_a_file_too_small_for_the_workers_is_checked_here(tmp_path, monkeypatch):
    """Below PORTABILITY_PARALLEL_MIN_BYTES a file is checked in this process: starting the workers would cost more."""
    _write(tmp_path / "given", _docs(120))  # one line not JSON
    assert (tmp_path / "given" / "cases.jsonl").stat().st_size < check_cmd.PORTABILITY_PARALLEL_MIN_BYTES
    monkeypatch.setattr(check_cmd, "_check_chunk", None)  # a worker job would fail
    r = _run(monkeypatch, tmp_path / "given", "--product", "all", "--workers", "2")
    assert r.exit_code == 2 and "--workers" not in r.stderr and ": atlas-a3: " in r.stdout


def test_a_part_on_every_product_counts_what_could_not_be_read():
    """The report of a part that is one problem with the file (it grew past --max-bytes while the workers read it):
    its line on standard error, counted unreadable, nothing on standard output."""
    err = check_cmd.bare_error(InputError("larger than 10 bytes"), "cases.jsonl")
    for fmt in ("text", "json", "jsonl"):
        rep = check_cmd._part([Result("cases.jsonl", None, None, error=err)], fmt, False, False, "all")
        assert rep.errs == [check_cmd.error_line("cases.jsonl", None, err)]
        assert (rep.tally.unreadable, rep.tally.portable, rep.tally.not_portable) == (1, 0, 0)
        assert "".join(rep.out) == "" and rep.counts.files == 1


@pytest.mark.parametrize("argv", [["--format", "jsonl"], ["--product", "all"]])
def test_workers_validate_against_the_schema_as_one_process_does(tmp_path, monkeypatch, argv):
    """--schema with --workers: the workers validate their chunks (it ran in one process, and validation is most of
    the time: 100,000 cases 49 s in one process, 27 s with 2 workers). Cases the schema refuses (an
    API name in capitals, which the reader takes) are unreadable in both, with the same lines, in file order."""
    docs = _docs(1200)
    for i in range(3, len(docs), 150):
        if docs[i] is not None and "calls" not in docs[i]:
            docs[i] = {**docs[i], "api": docs[i]["api"].upper()}
    _write(tmp_path / "given", docs)
    monkeypatch.setattr(check_cmd, "PARALLEL_MIN_BYTES", 0)  # this small file goes to the workers
    monkeypatch.setattr(check_cmd, "PORTABILITY_PARALLEL_MIN_BYTES", 0)
    monkeypatch.setattr(common, "PARALLEL_MIN_CHUNK_LINES", 300)
    monkeypatch.setattr(check_cmd, "PORTABILITY_CHUNK_LINES", 300)
    parallel = _spy_on_workers(monkeypatch)
    one = _run(monkeypatch, tmp_path / "given", "--schema", *argv)
    two = _run(monkeypatch, tmp_path / "given", "--schema", *argv, "--workers", "2")
    assert parallel == [True]
    assert (two.stdout, two.stderr, two.exit_code) == (one.stdout, one.stderr, one.exit_code)
    assert one.stderr.count("does not match the case schema: $.api: ") == 8
