"""Reading other people's files (docs/security.md, "Reading inputs"): confined data paths, bounded reads of
case and data files, streaming `check`, strict JSON (duplicate keys, depth, NaN), one range rule for data.

Every refusal is one line naming the file, the case and the field, exit status 2, never a traceback. Tests
that could exhaust memory or block run `ascverify` in a subprocess with an address-space limit (RLIMIT_AS)
and a generous timeout that only guards the test run."""

from __future__ import annotations

import json
import os
import resource
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from ascverify.cli import check_cmd, common, main
from ascverify.cli.check_cmd import line_chunks
from ascverify.cli.common import (PARALLEL_CHUNK_LINES, PARALLEL_FLIGHT_LINES, PARALLEL_MIN_CHUNK_LINES,
                                  parallel_chunk_lines)
from ascverify.core.faults import MAX_ITERATIONS, CoreLimit, within_iterations

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "bilinear_interpolation.json"
SRC0 = EXAMPLE.parent / "bilinear_src0.npy"
GiB = 1 << 30


def case_doc(**changes) -> dict:
    """The shipped example, its src0 data named relative to the case file (``bilinear_src0.npy``)."""
    doc = json.loads(EXAMPLE.read_text())
    doc.update(changes)
    return doc


def case_folder(folder: Path, doc: dict | None = None, name: str = "case.json") -> Path:
    """``folder`` with the example's data file and a case file; the case file's path."""
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copy(SRC0, folder / "bilinear_src0.npy")
    path = folder / name
    path.write_text(json.dumps(doc if doc is not None else case_doc()))
    return path


def with_src0(data: str | Path | list, **tensor) -> dict:
    doc = case_doc()
    doc["tensors"]["src0"]["data"] = data if isinstance(data, list) else str(data)
    doc["tensors"]["src0"].update(tensor)
    return doc


def invoke(*argv: str, input: str | bytes | None = None):
    return CliRunner().invoke(main, [str(a) for a in argv], input=input)


def error_lines(r) -> list[str]:
    """The input-error lines on stderr (the summary excluded), after checking there is no traceback."""
    text = r.stdout + r.stderr
    assert "Traceback" not in text and "internal error" not in text, text
    return [line for line in r.stderr.splitlines() if not line.split(": ")[0].endswith(("case", "cases"))
            or ":case " in line]


def the_error(r) -> str:
    lines = error_lines(r)
    assert r.exit_code == 2, (r.exit_code, r.output)
    assert len(lines) == 1, lines
    return lines[0]


def _limit_memory(limit: int):
    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    return apply


def run_limited(argv: list[str], *, limit: int = GiB, stdin=subprocess.DEVNULL, feed=None, cwd=None,
                timeout: float = 300) -> subprocess.CompletedProcess:
    """``python -m ascverify ARGV`` with at most ``limit`` bytes of address space; ``feed(pipe)`` writes its
    standard input from a thread (then closes it). The timeout only keeps a broken build from hanging the run."""
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    proc = subprocess.Popen([sys.executable, "-m", "ascverify", *map(str, argv)], stdin=subprocess.PIPE if feed else stdin,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, preexec_fn=_limit_memory(limit), env=env,
                            cwd=cwd or ROOT)
    writer = None
    if feed is not None:
        def write() -> None:
            try:
                feed(proc.stdin)
            except (BrokenPipeError, OSError):
                pass
            finally:
                try:
                    proc.stdin.close()
                except OSError:
                    pass
        writer = threading.Thread(target=write, daemon=True)
        writer.start()
    try:
        out, err = proc.communicate(timeout=timeout) if feed is None else _drain(proc, timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        pytest.fail(f"ascverify {' '.join(map(str, argv))} did not finish")
    if writer is not None:
        writer.join(timeout=30)
    return subprocess.CompletedProcess(argv, proc.returncode, out.decode(errors="replace"), err.decode(errors="replace"))


def _drain(proc: subprocess.Popen, timeout: float) -> tuple[bytes, bytes]:
    """stdout and stderr of a process whose stdin a thread writes (communicate() would write stdin itself)."""
    chunks: dict[str, list[bytes]] = {"out": [], "err": []}

    def read(stream, key: str) -> None:
        for block in iter(lambda: stream.read(1 << 16), b""):
            chunks[key].append(block)

    readers = [threading.Thread(target=read, args=(proc.stdout, "out"), daemon=True),
               threading.Thread(target=read, args=(proc.stderr, "err"), daemon=True)]
    for t in readers:
        t.start()
    proc.wait(timeout=timeout)
    for t in readers:
        t.join(timeout=30)
    return b"".join(chunks["out"]), b"".join(chunks["err"])


# -- item 4: data paths are confined to the case file's folder tree ------------------------------------------------

@pytest.fixture
def secret(tmp_path: Path) -> Path:
    """A readable .npy outside the case folder (a stand-in for any file of the user)."""
    path = tmp_path / "secret" / "key.npy"
    path.parent.mkdir()
    np.save(path, np.arange(12345, dtype=np.float16))
    return path


@pytest.mark.parametrize("how", ["absolute", "dotdot", "symlink", "symlinked-folder"])
def test_data_outside_the_case_folder_is_refused(tmp_path, secret, how):
    folder = tmp_path / "cases"
    folder.mkdir()
    if how == "absolute":
        given = str(secret)
    elif how == "dotdot":
        given = "../secret/key.npy"
    elif how == "symlink":
        (folder / "innocent.npy").symlink_to(secret)
        given = "innocent.npy"
    else:
        (folder / "data").symlink_to(secret.parent, target_is_directory=True)
        given = "data/key.npy"
    path = case_folder(folder, with_src0(given))
    r = invoke("check", path)
    line = the_error(r)
    assert line.startswith(f"{path}:case 0: tensors.src0.data: "), line
    assert "outside" in line
    # nothing about the target: not its size (12345 values), not what it holds
    assert "12345" not in line and str(secret.stat().st_size) not in line and "bytes" not in line
    assert r.stdout == ""


def test_refusal_does_not_tell_whether_the_target_exists(tmp_path, secret):
    folder = tmp_path / "cases"
    there = case_folder(folder, with_src0(str(secret)), "a.json")
    missing = str(secret.parent / "nope.npy")
    not_there = case_folder(folder, with_src0(missing), "b.json")
    a = the_error(invoke("check", there)).replace(str(there), "F").replace(str(secret), "P")
    b = the_error(invoke("check", not_there)).replace(str(not_there), "F").replace(missing, "P")
    assert a == b


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="the re-check reads /proc/self/fd")
def test_folder_swapped_for_a_link_after_the_check_is_caught(tmp_path, secret):
    folder = tmp_path / "cases"
    (folder / "d").mkdir(parents=True)
    shutil.copy(secret, folder / "d" / "key.npy")
    path = case_folder(folder, with_src0("d/key.npy"))
    from ascverify import read_cases
    from ascverify.spec.errors import InputError

    (entry,) = list(read_cases(str(path)))  # the path is checked here: inside
    shutil.rmtree(folder / "d")
    (folder / "d").symlink_to(secret.parent, target_is_directory=True)  # ... and swapped before the read
    with pytest.raises(InputError, match="outside the folder of the case file"):
        entry.case.data("src0")


def test_data_inside_the_case_folder_is_read(tmp_path):
    folder = tmp_path / "cases"
    (folder / "sub").mkdir(parents=True)
    shutil.copy(SRC0, folder / "sub" / "x.npy")
    (folder / "link.npy").symlink_to(folder / "sub" / "x.npy")  # a link that stays inside
    for given in ("sub/x.npy", "link.npy", "sub/../sub/x.npy", str(folder / "sub" / "x.npy")):
        path = case_folder(folder, with_src0(given))
        r = invoke("check", path)
        assert r.exit_code == 0, (given, r.output)


def test_data_root_option_names_another_root(tmp_path, secret):
    folder = tmp_path / "cases"
    path = case_folder(folder, with_src0(str(SRC0)))
    assert the_error(invoke("check", path))  # the shipped data file lies outside the case folder
    r = invoke("check", "--data-root", SRC0.parent, path)
    assert r.exit_code == 0, r.output
    # the root replaces the case folder: a path inside the case folder but outside the root is refused
    inside = case_folder(folder, case_doc(), "inside.json")
    assert "outside" in the_error(invoke("check", "--data-root", secret.parent, inside))


@pytest.mark.parametrize("command", ["run", "explain", "fix"])
def test_every_command_that_reads_cases_confines_data(tmp_path, secret, command):
    folder = tmp_path / "cases"
    path = case_folder(folder, with_src0(str(secret)))
    argv = [command, path] + (["-o", tmp_path / "out"] if command == "run" else [])
    r = invoke(*argv)
    assert r.exit_code == 2, r.output
    assert "tensors.src0.data" in r.stderr and "outside" in r.stderr and "Traceback" not in r.output
    assert not (tmp_path / "out" / "src0.npy").exists()
    # and the option is there, on every one of them
    ok = case_folder(tmp_path / "ok", with_src0(str(SRC0)))
    argv = [command, "--data-root", SRC0.parent, ok] + (["-o", tmp_path / "out2"] if command == "run" else [])
    r = invoke(*argv)
    assert r.exit_code in (0, 1), r.output
    assert "outside" not in r.stderr


def test_stdin_data_root_is_the_current_folder(tmp_path, secret, monkeypatch):
    folder = tmp_path / "cwd"
    folder.mkdir()
    shutil.copy(SRC0, folder / "bilinear_src0.npy")
    monkeypatch.chdir(folder)
    r = invoke("check", "-", input=json.dumps(case_doc()))
    assert r.exit_code == 0, r.output
    line = the_error(invoke("check", "-", input=json.dumps(with_src0("../secret/key.npy"))))
    assert line.startswith("-:case 0: tensors.src0.data: ") and "outside" in line


def test_register_data_is_confined(tmp_path, secret):
    doc = json.loads((ROOT / "examples" / "reg_mask_gen.json").read_text())
    doc = doc[0] if isinstance(doc, list) else doc
    doc["registers"] = {"vreg": {"3": {"dtype": "half", "data": str(secret)}}}
    path = tmp_path / "cases" / "reg.json"
    path.parent.mkdir()
    path.write_text(json.dumps(doc))
    line = the_error(invoke("check", path))
    assert "registers.vreg.3.data" in line and "outside" in line


# -- item 5: only regular files, every read bounded ---------------------------------------------------------------

def test_devices_are_refused_before_reading(tmp_path):
    (tmp_path / "zero.json").symlink_to("/dev/zero")
    for target in ("/dev/zero", "/dev/urandom", tmp_path / "zero.json"):
        r = run_limited(["check", target], limit=GiB)
        assert r.returncode == 2, (target, r.returncode, r.stderr[-500:])
        assert r.stderr.splitlines()[0] == f"{target}: is not a regular file (a character device); " \
                                           f"only regular files and - are read", r.stderr


def test_fifo_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "cases.jsonl"
    os.mkfifo(fifo)
    r = run_limited(["check", fifo], timeout=120)  # no writer: opening it for reading would block forever
    assert r.returncode == 2, r.stderr
    assert f"{fifo}: is not a regular file (a FIFO)" in r.stderr


def test_fifo_with_an_endless_writer_is_refused(tmp_path):
    fifo = tmp_path / "cases.jsonl"
    os.mkfifo(fifo)
    stop = threading.Event()

    def writer() -> None:
        try:
            fd = os.open(fifo, os.O_WRONLY)
        except OSError:
            return
        try:
            while not stop.is_set():
                os.write(fd, b'{"api": "BilinearInterpolation"}\n' * 1000)
        except OSError:
            pass
        finally:
            os.close(fd)

    t = threading.Thread(target=writer, daemon=True)
    t.start()
    try:
        r = run_limited(["check", "--max-bytes", 10 << 20, fifo], timeout=120)
    finally:
        stop.set()
        try:  # unblock a writer still waiting for a reader
            os.close(os.open(fifo, os.O_RDONLY | os.O_NONBLOCK))
        except OSError:
            pass
    assert r.returncode == 2, r.stderr[-500:]
    assert "not a regular file" in r.stderr


def test_stdin_is_read_with_the_bound():
    line = (json.dumps(case_doc()) + "\n").encode()

    def endless(pipe) -> None:
        while True:
            pipe.write(line * 200)

    r = run_limited(["check", "--max-bytes", 4 << 20, "-"], feed=endless, cwd=EXAMPLE.parent)
    assert r.returncode == 2, r.stderr[-500:]
    assert r.stderr.splitlines()[-2] == f"-: input is larger than the limit of {4 << 20} bytes"


def test_data_file_that_is_not_a_regular_file(tmp_path):
    folder = tmp_path / "cases"
    folder.mkdir()
    os.mkfifo(folder / "fifo.npy")
    (folder / "zero.bin").symlink_to("/dev/zero")
    (folder / "dir.npy").mkdir()
    for given in ("fifo.npy", "zero.bin", "dir.npy"):
        path = case_folder(folder, with_src0(given))
        r = run_limited(["check", "--data-root", "/", path], timeout=120)
        assert r.returncode == 2, (given, r.stderr)
        (line, _) = r.stderr.splitlines()
        assert line.startswith(f"{path}:case 0: tensors.src0.data: ") and "not a regular file" in line, line


# -- item 7: sizes from stat and the .npy header, before any data is read -----------------------------------------

def test_huge_bin_for_a_small_tensor_is_refused_from_its_size(tmp_path):
    folder = tmp_path / "cases"
    folder.mkdir()
    with open(folder / "src0.bin", "wb") as f:  # sparse: 2 GiB that take no disk
        f.truncate(2 * GiB)
    path = case_folder(folder, with_src0("src0.bin"))
    r = run_limited(["check", path])
    assert r.returncode == 2, r.stderr[-800:]
    line = r.stderr.splitlines()[0]
    assert line == f"{path}:case 0: tensors.src0.data: data file 'src0.bin' holds {GiB} half values " \
                   f"(2147483648 bytes); the tensor has 512 elements", line


def _npy_header(shape: tuple, descr: str = "<f2") -> bytes:
    """A .npy version 1.0 header (magic string included) claiming ``shape``; the data after it is up to the caller."""
    import io

    import numpy.lib.format as fmt

    buf = io.BytesIO()
    fmt.write_array_header_1_0(buf, {"descr": descr, "fortran_order": False, "shape": shape})
    return buf.getvalue()


def test_npy_header_claiming_huge_data_is_refused_from_the_header(tmp_path):
    folder = tmp_path / "cases"
    folder.mkdir()
    (folder / "src0.npy").write_bytes(_npy_header((10**11,)) + b"\0" * 64)
    path = case_folder(folder, with_src0("src0.npy"))
    r = run_limited(["check", path])
    assert r.returncode == 2, r.stderr[-800:]
    line = r.stderr.splitlines()[0]
    assert line == f"{path}:case 0: tensors.src0.data: data file 'src0.npy' holds 100000000000 values; " \
                   "the tensor has 512 elements", line


def test_npy_shorter_than_its_header_says(tmp_path):
    folder = tmp_path / "cases"
    folder.mkdir()
    (folder / "src0.npy").write_bytes(_npy_header((512,)) + b"\0" * 100)
    line = the_error(invoke("check", case_folder(folder, with_src0("src0.npy"))))
    assert line.endswith("tensors.src0.data: data file 'src0.npy' is truncated: its header says 512 float16 "
                         "values (1024 bytes), it holds 100 bytes of data"), line


def test_npy_of_objects_is_refused(tmp_path):
    folder = tmp_path / "cases"
    folder.mkdir()
    np.save(folder / "src0.npy", np.array([1, "x", None], dtype=object), allow_pickle=True)
    line = the_error(invoke("check", case_folder(folder, with_src0("src0.npy"))))
    assert line.endswith("tensors.src0.data: data file 'src0.npy' holds Python objects (a pickle), not numbers"), line


def test_npy_in_fortran_order_is_read_in_element_order(tmp_path):
    folder = tmp_path / "cases"
    folder.mkdir()
    src0 = np.load(SRC0)
    np.save(folder / "src0.npy", np.asfortranarray(src0.reshape(16, 32)))
    path = case_folder(folder, with_src0("src0.npy"))
    from ascverify import read_cases

    (entry,) = list(read_cases(str(path)))
    assert np.array_equal(entry.case.data("src0"), src0.reshape(-1))


# -- item 8: check streams ---------------------------------------------------------------------------------------

def test_check_streams_standard_input_in_bounded_memory():
    """1.2 GB of cases through a pipe, checked within 1 GiB of address space: nothing is held but a batch."""
    doc = case_doc(comment="x" * (1 << 20))  # 1 MiB of text per case, dropped once the case is parsed
    bad = case_doc(comment="y" * (1 << 20))
    bad["args"]["hRepeat"] = 0
    good_line, bad_line = (json.dumps(doc) + "\n").encode(), (json.dumps(bad) + "\n").encode()
    n = 1200

    def feed(pipe) -> None:
        for i in range(n):
            pipe.write(bad_line if i % 100 == 7 else good_line)

    r = run_limited(["check", "--max-bytes", 4 * GiB, "-"], feed=feed, cwd=EXAMPLE.parent, timeout=600)
    assert r.returncode == 1, r.stderr[-800:]
    assert r.stderr.splitlines()[-1] == f"{n} cases: {n - 12} valid, 12 invalid, 0 unreadable"
    assert len({line.split(": error:")[0] for line in r.stdout.splitlines()}) == 12


def test_jsonl_format(tmp_path):
    good = case_doc()
    bad = case_doc()
    bad["args"]["hRepeat"] = 0
    path = tmp_path / "cases.jsonl"
    shutil.copy(SRC0, tmp_path)
    path.write_text("\n".join([json.dumps(good), json.dumps(bad), "{not json", json.dumps(good)]) + "\n")
    r = invoke("check", "--format", "jsonl", path)
    assert r.exit_code == 2
    rows = [json.loads(line) for line in r.stdout.splitlines()]
    assert [(row["index"], row["valid"]) for row in rows] == [(0, True), (1, False), (2, False), (3, True)]
    assert rows[1]["violations"] and "error" in rows[2] and rows[0]["file"] == str(path)
    assert r.stderr.splitlines()[-1] == "4 cases: 2 valid, 1 invalid, 1 unreadable"


def test_json_format_is_one_document_streamed(tmp_path):
    shutil.copy(SRC0, tmp_path)
    path = tmp_path / "cases.jsonl"
    path.write_text("\n".join(json.dumps(case_doc()) for _ in range(5000)) + "\n")
    r = invoke("check", "--format", "json", path, tmp_path / "missing.json")
    doc = json.loads(r.stdout)
    assert [res["index"] for res in doc["results"][:-1]] == list(range(5000))
    assert doc["results"][-1]["error"] == "no such file" and r.exit_code == 2
    empty = invoke("check", "--format", "json", tmp_path / "missing.json")
    assert json.loads(empty.stdout)["results"] == [{"file": str(tmp_path / "missing.json"), "index": None, "api": None,
                                                    "product": None, "valid": False, "violations": [],
                                                    "warnings": [], "unchecked": [], "error": "no such file"}]


def _mixed_cases_file(tmp_path, bad_every: int, broken_line: int, n: int = 12000):
    """A JSON Lines file of ``n`` cases: every ``bad_every``-th breaks a rule, line ``broken_line`` is not JSON."""
    shutil.copy(SRC0, tmp_path)
    bad = case_doc()
    bad["args"]["hRepeat"] = 0
    lines = [json.dumps(bad if i % bad_every == 0 else case_doc()) for i in range(n)]
    lines[broken_line] = "{broken"
    path = tmp_path / "cases.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_parallel_check_streams_in_file_order(tmp_path, monkeypatch):
    path = _mixed_cases_file(tmp_path, 7, 100)
    monkeypatch.setattr(check_cmd, "PARALLEL_MIN_BYTES", 0)  # this small file split between 2 workers too
    one = invoke("check", path)
    two = invoke("check", "--jobs", "2", path)
    assert one.exit_code == two.exit_code == 2
    assert one.stdout == two.stdout and one.stderr == two.stderr


def test_parallel_check_in_several_chunks_matches_one_process(tmp_path, monkeypatch):
    """A file split into chunks of the size `parallel_chunk_lines` gives (here 3 workers, 4,000 lines each) says
    exactly what one process says, in every format."""
    path = _mixed_cases_file(tmp_path, 5, 7001)
    monkeypatch.setattr(check_cmd, "PARALLEL_MIN_BYTES", 0)
    monkeypatch.setattr(common, "PARALLEL_MIN_CHUNK_LINES", 100)
    sizes: list[int] = []

    def recorded(size, sample, jobs):
        sizes.append(common.parallel_chunk_lines(size, sample, jobs))
        return sizes[-1]

    monkeypatch.setattr(check_cmd, "parallel_chunk_lines", recorded)
    for fmt in ("text", "json", "jsonl"):
        one = invoke("check", "--format", fmt, "--workers", "1", path)
        three = invoke("check", "--format", fmt, "--workers", "3", path)
        assert one.exit_code == three.exit_code == 2
        assert one.stdout == three.stdout and one.stderr == three.stderr
    # every line has the same length but the broken one: about 12,000 / 3 lines per chunk
    assert sizes and all(3900 <= s <= 4100 for s in sizes), sizes


def test_line_chunks_are_bounded_in_lines_and_bytes_and_count_cases():
    lines = [b'{"a": 1}', b"", b"x" * 100, b'{"b": 2}', b"y" * 300, b"z"]  # an empty line is not a case
    numbered = list(enumerate(lines, start=1))
    by_lines = list(line_chunks(numbered, 2, 10**6))
    assert [(t, i, f) for t, i, f in by_lines] == [
        (b'{"a": 1}\n', 0, 0), (b"x" * 100 + b'\n{"b": 2}', 1, 2), (b"y" * 300 + b"\nz", 3, 4)]
    by_bytes = list(line_chunks(numbered, 100, 120))
    # at most 120 bytes, a newline after each line counted: 9 + 1 + 101 + 9 = 120 fit; the 301-byte line alone
    # is longer (a chunk of its own), and "z" would not fit after it
    assert [(t, i, f) for t, i, f in by_bytes] == [
        (b'{"a": 1}\n\n' + b"x" * 100 + b'\n{"b": 2}', 0, 0), (b"y" * 300, 3, 4), (b"z", 4, 5)]
    assert b"\n".join(t for t, _, _ in by_bytes) == b"\n".join(lines)


def test_parallel_check_of_long_lines_in_byte_bounded_chunks(tmp_path, monkeypatch):
    """Chunks cut by bytes (cases with long lines) say what one process says."""
    path = _mixed_cases_file(tmp_path, 3, 50, n=600)
    monkeypatch.setattr(check_cmd, "PARALLEL_MIN_BYTES", 0)
    monkeypatch.setattr(check_cmd, "PARALLEL_CHUNK_BYTES", 20_000)  # about 60 of these lines a chunk: 10 chunks
    one = invoke("check", "--format", "jsonl", "--workers", "1", path)
    two = invoke("check", "--format", "jsonl", "--workers", "2", path)
    assert one.exit_code == two.exit_code == 2
    assert one.stdout == two.stdout and one.stderr == two.stderr
    assert len(one.stdout.splitlines()) == 600  # one object per line, the broken line's with its input error


def test_parallel_chunk_lines_share_a_small_file_and_cap_a_large_one():
    sample = [b"x" * 99] * 10  # 100 bytes a line
    assert parallel_chunk_lines(100 * 100_000, sample, 2) == 50_000  # 100,000 lines shared by 2 workers
    assert parallel_chunk_lines(100 * 10**7, sample, 2) == PARALLEL_CHUNK_LINES  # never more than the window
    assert parallel_chunk_lines(100 * 1000, sample, 8) == PARALLEL_MIN_CHUNK_LINES  # never less than the minimum
    assert parallel_chunk_lines(0, [], 2) == PARALLEL_MIN_CHUNK_LINES
    # many workers: the chunks in flight (one more than the workers) hold at most PARALLEL_FLIGHT_LINES lines
    many = parallel_chunk_lines(100 * 10**7, sample, 63)
    assert many == max(PARALLEL_MIN_CHUNK_LINES, PARALLEL_FLIGHT_LINES // 64) and many < PARALLEL_CHUNK_LINES


# -- item 11: strict JSON ---------------------------------------------------------------------------------------------

def test_duplicate_key_is_refused_naming_it(tmp_path):
    shutil.copy(SRC0, tmp_path)
    text = json.dumps(case_doc())
    path = tmp_path / "dup.json"
    # a second "product" used to switch the product silently
    path.write_text(text.replace('"product": "atlas-a2"', '"product": "atlas-a2", "product": "atlas-350"'))
    line = the_error(invoke("check", path))
    assert line == f"{path}:case 0: product: duplicate key 'product' (a key may appear once in an object)", line
    nested = text.replace('"addr": 512', '"addr": 512, "addr": 0')
    path.write_text(nested)
    assert the_error(invoke("check", path)).startswith(f"{path}:case 0: tensors.src0.addr: duplicate key 'addr'")
    # an escaped key is the same key
    path.write_text(text.replace('"addr": 512', '"addr": 512, "\\u0061ddr": 0'))
    assert the_error(invoke("check", path)).startswith(f"{path}:case 0: tensors.src0.addr: duplicate key 'addr'")


def test_duplicates_in_lists_and_lines_name_their_case(tmp_path):
    shutil.copy(SRC0, tmp_path)
    good = json.dumps(case_doc())
    dup = good.replace('"dtype": "half"', '"dtype": "half", "dtype": "float"')
    path = tmp_path / "list.json"
    path.write_text(f"[{good}, {dup}, {good}]")
    r = invoke("check", path)
    assert the_error(r).startswith(f"{path}:case 1: dtype: duplicate key 'dtype'")
    assert r.stderr.splitlines()[-1] == "3 cases: 2 valid, 0 invalid, 1 unreadable"
    path = tmp_path / "lines.jsonl"
    path.write_text("\n".join([good, dup, good]))
    r = invoke("check", path)
    assert the_error(r).startswith(f"{path}:case 1: dtype: duplicate key 'dtype'")


def test_colons_in_strings_are_not_duplicates(tmp_path):
    shutil.copy(SRC0, tmp_path)
    doc = case_doc(name="a: b", comment='{"product": "x", "product": "y"}')
    path = tmp_path / "c.json"
    path.write_text(json.dumps(doc).replace('"a: b"', '"a\\u003a b"'))
    r = invoke("check", path)
    assert r.exit_code == 0, r.output


@pytest.mark.parametrize("depth", [70, 982, 1000, 1023])
def test_deep_nesting_is_one_line_per_case(tmp_path, depth):
    shutil.copy(SRC0, tmp_path)
    good = json.dumps(case_doc())
    deep = good.replace('"hRepeat": 2', '"hRepeat": ' + "[" * depth + "]" * depth)
    path = tmp_path / "cases.jsonl"
    path.write_text("\n".join([deep, good]) + "\n")
    r = invoke("check", path)
    line = the_error(r)
    if depth + 2 <= 1024:  # deeper than orjson reads at all: an invalid JSON line of its own
        assert line == f"{path}:case 0: args.hRepeat: nested deeper than 64 levels", line
    assert r.stderr.splitlines()[-1] == "2 cases: 1 valid, 0 invalid, 1 unreadable"


def test_bad_first_line_of_json_lines_loses_only_itself(tmp_path):
    shutil.copy(SRC0, tmp_path)
    good = json.dumps(case_doc())
    for first in ("garbage", "[1,", good[:-30], "{"):
        path = tmp_path / "cases.jsonl"
        path.write_text("\n".join([first, good, good]) + "\n")
        r = invoke("check", path)
        line = the_error(r)
        assert line.startswith(f"{path}:case 0: line 1: invalid JSON"), line
        assert r.stderr.splitlines()[-1] == "3 cases: 2 valid, 0 invalid, 1 unreadable", (first, r.stderr)


def test_pretty_printed_documents_are_still_one_document(tmp_path):
    shutil.copy(SRC0, tmp_path)
    path = tmp_path / "pretty.json"
    path.write_text(json.dumps([case_doc(), case_doc()], indent=2))
    r = invoke("check", path)
    assert r.exit_code == 0 and r.stderr.splitlines()[-1] == "2 cases: 2 valid, 0 invalid, 0 unreadable"
    path.write_text("[\n" + json.dumps(case_doc()) + "\n]\n")
    assert invoke("check", path).exit_code == 0
    path.write_text(json.dumps(case_doc(), indent=2)[:-3])  # a broken document: one line for the file
    line = the_error(invoke("check", path))
    assert line.startswith(f"{path}: invalid JSON"), line


# -- item 12: one range rule for inline and file data -------------------------------------------------------------

@pytest.mark.parametrize("values, shown", [(np.array([1, 7_000_000_000], dtype=np.int64), "7000000000"),
                                           (np.array([1.0, 1e10]), "10000000000.0")])
def test_file_data_out_of_range_is_refused_like_inline(tmp_path, values, shown):
    folder = tmp_path / "cases"
    folder.mkdir()
    np.save(folder / "src0.npy", values)
    from_file = the_error(invoke("check", case_folder(folder, with_src0("src0.npy"))))
    assert from_file.endswith(f"tensors.src0.data[1]: {shown} overflows half (in 'src0.npy')"), from_file
    inline = the_error(invoke("check", case_folder(folder, with_src0(values.tolist()), "inline.json")))
    assert inline.endswith(f"tensors.src0.data[1]: {shown} overflows half"), inline


def test_file_data_for_an_integer_tensor(tmp_path):
    folder = tmp_path / "cases"
    folder.mkdir()
    doc = case_doc()
    offsets = doc["tensors"]["src0Offset"]["data"]
    for name, arr, bad in (("big.npy", np.array(offsets[:3] + [2**33], dtype=np.int64), "8589934592"),
                           ("neg.npy", np.array(offsets[:3] + [-32], dtype=np.int64), "-32"),
                           ("frac.npy", np.array(offsets[:3] + [1.5]), "1.5")):
        np.save(folder / name, arr)
        doc["tensors"]["src0Offset"]["data"] = name
        line = the_error(invoke("check", case_folder(folder, doc, "c.json")))
        assert line.endswith(f"tensors.src0Offset.data[3]: {bad} is not a uint32 value (in '{name}')"), line
    np.save(folder / "ok.npy", np.array(offsets, dtype=np.float64))  # integral floats convert exactly
    doc["tensors"]["src0Offset"]["data"] = "ok.npy"
    assert invoke("check", case_folder(folder, doc, "c.json")).exit_code == 0


# -- item 13: NaN and Infinity name their field ----------------------------------------------------------------------

@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity"])
def test_non_finite_literal_names_its_field(tmp_path, literal):
    shutil.copy(SRC0, tmp_path)
    good = json.dumps(case_doc())
    bad = good.replace('"hRepeat": 2', f'"hRepeat": {literal}')
    path = tmp_path / "case.json"
    path.write_text(bad)
    line = the_error(invoke("check", path))
    assert line.startswith(f"{path}:case 0: args.hRepeat: {literal} is not a JSON number (line 1, column "), line
    path = tmp_path / "cases.jsonl"
    path.write_text("\n".join([good, bad.replace('"addr": 1664', f'"addr": {literal}'), good]) + "\n")
    r = invoke("check", path)
    assert the_error(r).startswith(f"{path}:case 1: args.hRepeat: {literal} is not a JSON number (line 2, column ")
    assert r.stderr.splitlines()[-1] == "3 cases: 2 valid, 0 invalid, 1 unreadable"
    path = tmp_path / "list.json"
    path.write_text(json.dumps([case_doc(), case_doc()], indent=1).replace('"addr": 1664', f'"addr": {literal}', 1))
    line = the_error(invoke("check", path))
    assert line.startswith(f"{path}:case 0: tensors.src1.addr: {literal} is not a JSON number (line "), line


# -- file names are printed on one line --------------------------------------------------------------------------------

def test_file_names_with_control_characters_are_escaped(tmp_path):
    folder = tmp_path / "cases"
    bad = case_doc()
    bad["args"]["hRepeat"] = 0
    path = case_folder(folder, bad, "evil\nname\x1b[31m.json")
    unreadable = case_folder(folder, case_doc(product="nope"), "evil\rtwo.json")
    r = invoke("check", path, unreadable)
    assert r.exit_code == 2
    for line in r.stdout.splitlines():
        assert line.startswith(str(folder / "evil\\nname\\x1b[31m.json") + ":case 0: error: ["), line
    assert str(folder / "evil\\rtwo.json") + ":case 0: product: unknown product" in r.stderr
    assert "\x1b" not in r.output and "\r" not in r.output


# -- work no legal case asks for -------------------------------------------------------------------------------------

HUGE_REPEAT = {"api": "BlockReduceMax", "product": "atlas-a2", "dtype": "half",
               "args": {"repeatTime": 2**31 - 1, "mask": 128, "dstRepStride": 1, "srcBlkStride": 1,
                        "srcRepStride": 8},
               "tensors": {"dst": {"addr": 0, "size": 16}, "src": {"addr": 256, "size": 128}}}


@pytest.mark.parametrize("argv", [["run", "-o", "OUT"], ["show"], ["check", "--show"]])
def test_a_repeat_count_no_legal_case_asks_for_is_not_run(tmp_path, argv):
    """BlockReduce's repeatTime is an int32 (the page allows 0 to 255): a file asking for 2**31 - 1 repeats made
    `run` index 16 GiB (MemoryError where memory was limited) and `show` / `check --show` list the predicted
    footprint, 2**31 intervals in Python (24 GB resident when the kernel killed it). Now the case is reported as not
    run, naming the value and the limit, within 1 GiB of address space."""
    case = tmp_path / "case.json"
    case.write_text(json.dumps(HUGE_REPEAT))
    argv = [str(tmp_path / "out") if a == "OUT" else a for a in argv]
    r = run_limited([*argv, case], limit=GiB, timeout=120)
    text = " ".join((r.stdout + r.stderr).split())  # the map wraps its lines
    assert r.returncode == 1, text
    assert "Traceback" not in text and "MemoryError" not in text
    assert "repeatTime=2147483647 asks for 2,147,483,647 iterations; the core runs at most 65,536" in text
    assert "block_reduce_max.repeatTime.range" in text  # the rule it breaks, as for any invalid case


def test_the_core_runs_every_legal_count():
    """The limit is above every legal case's iterations: 255 repeats for BlockReduce (its page's range), 255 x 255
    for BilinearInterpolation (hRepeat and vRepeat are uint8); the first count above it is refused."""
    assert within_iterations(255 * 255, "hRepeat*vRepeat") == 255 * 255
    assert within_iterations(MAX_ITERATIONS, "repeatTime") == MAX_ITERATIONS
    with pytest.raises(CoreLimit, match="repeatTime=65537 asks for 65,537 iterations"):
        within_iterations(MAX_ITERATIONS + 1, "repeatTime")


def test_a_program_asking_for_too_many_iterations_is_not_run(tmp_path):
    """The same in a program's call: `run` reported an internal error (exit 3); now the program's verdict, `not
    executed` and why, run.json saying so, exit 1."""
    program = json.loads((ROOT / "examples" / "program_block_reduce_min.json").read_text())
    call = next(c for c in program["calls"] if "src_rep_stride" in c["args"])
    call["args"]["repeat"] = 2**31 - 1
    path = tmp_path / "program.json"
    path.write_text(json.dumps(program))
    r = run_limited(["run", path, "-o", tmp_path / "out"], limit=GiB, timeout=120)
    assert r.returncode == 1, r.stderr
    assert "Traceback" not in r.stderr + r.stdout and "internal error" not in r.stderr
    assert "call 1: error: [block_reduce_min.repeatTime.range]" in r.stdout
    assert "not executed: repeatTime=2147483647 asks for 2,147,483,647 iterations" in r.stdout
    doc = json.loads((tmp_path / "out" / "run.json").read_text())
    assert doc["executed"] is False and "2,147,483,647 iterations" in doc["not_executed_reason"]
    assert doc["check"]["valid"] is False and doc["tensors"] == {}


@pytest.mark.parametrize("where, value", [(("tensors", "x", "addr"), -1), (("tensors", "x", "addr"), 2**64 - 1),
                                          (("tensors", "z", "size"), -2),
                                          (("calls", 1, "args", "src_blk_stride"), 2**64 - 1)])
def test_run_reports_a_program_it_cannot_execute(tmp_path, where, value):
    """`run` of a program applies what it applies to one case: a call with values beyond their C type or tensors
    beyond their buffer is not executed, and the program's verdict says why (these were internal errors, exit 3:
    OverflowError, a Fault while laying out the inputs, "negative byte count"); `show` draws it."""
    program = json.loads((ROOT / "examples" / "program_block_reduce_min.json").read_text())
    node = program
    for key in where[:-1]:
        node = node[key]
    node[where[-1]] = value
    path = tmp_path / "program.json"
    path.write_text(json.dumps(program))
    r = run_limited(["run", path, "-o", tmp_path / "out"], limit=GiB, timeout=120)
    assert r.returncode == 1, r.stderr
    assert "Traceback" not in r.stderr + r.stdout and "internal error" not in r.stderr
    assert ": error: [" in r.stdout and "not executed: " in r.stdout
    assert json.loads((tmp_path / "out" / "run.json").read_text())["executed"] is False
    shown = run_limited(["show", path], limit=GiB, timeout=120)
    assert shown.returncode == 1 and "Traceback" not in shown.stderr + shown.stdout, shown.stderr


def test_a_repeat_register_no_legal_call_sets_is_not_run(tmp_path):
    """LoadDataWithStride reads its repeat count from the register an earlier SetLoadDataRepeatWithStride set: a
    program setting 2**31 - 1 repeats made `run` index 16 GiB (MemoryError, an internal error) and `show` say so."""
    program = json.loads((ROOT / "examples" / "program_load_data_with_stride.json").read_text())
    call = next(c for c in program["calls"] if "repeatTime" in c.get("args", {}))
    call["args"]["repeatTime"] = 2**31 - 1
    path = tmp_path / "program.json"
    path.write_text(json.dumps(program))
    shutil.copy(ROOT / "examples" / "program_load_data_with_stride_fm.npy", tmp_path)
    for argv in (["run", path, "-o", tmp_path / "out"], ["show", path]):
        r = run_limited(argv, limit=GiB, timeout=120)
        text = " ".join((r.stdout + r.stderr).split())
        assert r.returncode == 1 and "Traceback" not in text and "MemoryError" not in text, text[-500:]
        assert "not executed" in text or "not run" in text


def _one_finding(tmp_path: Path) -> Path:
    """The folder of the one finding of a tiny differential campaign (a target that crashes)."""
    findings = tmp_path / "findings"
    r = CliRunner().invoke(main, ["fuzz", "BlockReduceMin", "-p", "atlas-a2", "--target-cmd", "sh -c 'exit 3'",
                                  "--examples", "1", "--no-shrink", "--seed", "1", "--findings", str(findings),
                                  "--no-coverage"])
    assert r.exit_code == 1, r.output
    (found,) = [p for p in findings.iterdir() if p.is_dir() and not p.name.startswith(".")]
    return found


def test_replay_refuses_a_tampered_finding_and_replays_the_others(tmp_path):
    """A campaign saves only cases the core ran: a finding folder whose case.json asks for 2**31 - 1 repeats, or a
    dst address beyond 64 bits, came from someone else. Each is one line naming its case.json (these were internal
    errors: CoreLimit, OverflowError), the other folders are replayed, exit 2."""
    found = _one_finding(tmp_path)
    tampered = []
    for name, change in (("repeats", ("args", "repeatTime", 2**31 - 1)),
                         ("address", ("tensors", "dst", "addr", 2**64 - 1))):
        copy = tmp_path / name
        shutil.copytree(found, copy)
        doc = json.loads((copy / "case.json").read_text())
        node = doc
        for key in change[:-2]:
            node = node[key]
        node[change[-2]] = change[-1]
        (copy / "case.json").write_text(json.dumps(doc))
        tampered.append(copy)
    r = run_limited(["replay", tampered[0], found, tampered[1], "--target-cmd", "sh -c 'exit 3'"], limit=GiB,
                    timeout=120)
    assert r.returncode == 2, r.stderr
    assert "Traceback" not in r.stderr and "internal error" not in r.stderr
    assert f"ascverify: {tampered[0] / 'case.json'}: not a case the core runs (repeatTime=2147483647 asks for" in r.stderr
    assert f"ascverify: {tampered[1] / 'case.json'}: not a case the core runs (the core needs representable" in r.stderr
    assert r.stdout.startswith(f"{found}: still fails: ")  # the intact finding, replayed between them
    assert "1 finding replayed: 1 still fail, 0 fixed; 2 folders could not be replayed" in r.stderr


def test_the_library_raises_core_limit_before_allocating():
    """`ascverify.run_case` on such a case raises the exported CoreLimit (a library caller can catch it), at once
    (in a process of its own with 1 GiB of address space: were the limit gone, the run would ask for 16 GiB)."""
    program = ("import json, sys, ascverify\n"
               "case = ascverify.parse_case(json.loads(sys.argv[1]))\n"
               "try:\n    ascverify.run_case(case, strict=False)\n"
               "except ascverify.CoreLimit as exc:\n    print('CoreLimit:', exc)\n")
    r = subprocess.run([sys.executable, "-c", program, json.dumps(HUGE_REPEAT)], capture_output=True, text=True,
                       preexec_fn=_limit_memory(GiB), timeout=120, cwd=ROOT)
    assert r.returncode == 0, r.stderr[-800:]
    assert r.stdout.startswith("CoreLimit: repeatTime=2147483647 asks for 2,147,483,647 iterations")


def test_replay_replays_a_negative_finding_whose_rule_the_core_cannot_run(tmp_path):
    """A negative finding's case breaks a rule on purpose, of any kind: one on a C type (the checker's own bug, say)
    is replayed as a negative finding (the core is not run on it), not refused like a tampered differential case."""
    found = _one_finding(tmp_path)
    doc = json.loads((found / "case.json").read_text())
    doc["tensors"]["dst"]["addr"] = 2**64 - 1  # breaks block_reduce_min.dst.addr.type (and more)
    (found / "case.json").write_text(json.dumps(doc))
    meta = json.loads((found / "finding.json").read_text())
    meta.update(kind="negative", rule="block_reduce_min.dst.addr.type", check="rejects_exactly_the_broken_rule",
                key="negative.exactly", unit=f"{meta['api']}/{meta['product']}/negative")  # its fields agree
    (found / "finding.json").write_text(json.dumps(meta))
    r = run_limited(["replay", found], limit=GiB, timeout=120)
    assert "not a case the core runs" not in r.stderr and "Traceback" not in r.stderr, r.stderr
    assert r.returncode in (0, 1) and r.stdout.startswith(f"{found}: "), r.stderr
