"""JSON Lines read a block at a time give exactly what reading them one line at a time gives.

`caseio.read_documents` loads a batch of lines at once and tests the whole batch for what orjson lets through
(duplicate keys, deep nesting) with one re-serialization (`jsonread.lines_problems`). The reference here is
the slow path, line by line, with no shortcut: `caseio._one_line` (orjson, then `jsonread.checked` on every
line), and for the tricky lines the error each must give, written out by hand.
"""

from __future__ import annotations

import io
import json
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ascverify.cases import bounded_read, caseio, jsonread
from ascverify.cases.bounded_read import LineCursor, LineReader
from ascverify.spec.errors import InputError

GOOD = b'{"api":"A","args":{"x":1,"y":"a:b"},"tensors":{"dst":{"addr":0},"src":{"addr":32,"data":[1,2]}}}'
#: a first line past the 64 KiB the reader looks at for binary content: NUL bytes and bad UTF-8 after it are bad lines
PAD = b'{"pad":"' + b"x" * 70000 + b'"}'
DUP_KEY = "duplicate key {!r} (a key may appear once in an object)"

#: (line, the error it must give as (message, field), or None when it reads as its JSON value)
TRICKY: dict[str, tuple[bytes, tuple[str, str] | None]] = {
    "duplicate at the top": (b'{"api":"A","api":"B"}', (DUP_KEY.format("api"), "api")),
    "duplicate nested": (b'{"api":"A","args":{"x":1,"y":2,"x":3}}', (DUP_KEY.format("x"), "args.x")),
    "duplicate whose dropped value has colons": (b'{"a":"x:y:z","b":1,"a":"w"}', (DUP_KEY.format("a"), "a")),
    "duplicate key with a colon": (b'{"a:b":1,"a:b":2}', (DUP_KEY.format("a:b"), "a:b")),
    "duplicate spelled with an escape": (b'{"a":1,"\\u0061":2}', (DUP_KEY.format("a"), "a")),
    "duplicate with spaces and CR": (b'{ "a" : 1 , "a" : 2 }\r', (DUP_KEY.format("a"), "a")),
    "duplicate in a list item": (b'{"l":[{"k":1},{"k":1,"k":2}]}', (DUP_KEY.format("k"), "l[1].k")),
    "escaped colon, no duplicate": (b'{"a":"\\u003a","b":":"}', None),
    "duplicate hidden by an escaped colon": (b'{"a":1,"a":"\\u003a"}', (DUP_KEY.format("a"), "a")),
    "other escapes": (b'{"a":"q\\"u\\\\o\\nte\\/"}', None),
    "65 levels": (b'{"a":' + b"[" * 64 + b"]" * 64 + b"}", ("nested deeper than 64 levels", "a")),
    "64 levels": (b'{"a":' + b"[" * 63 + b"]" * 63 + b"}", None),
    "deep and a duplicate": (b'{"a":1,"a":2,"b":' + b"[" * 70 + b"]" * 70 + b"}",
                             ("nested deeper than 64 levels", "b")),
    "many brackets, shallow": (b'{"a":[' + b",".join([b"[]"] * 100) + b"]}", None),
    "brackets in strings": (b'{"a":"' + b"[{" * 50 + b'"}', None),
    "big integer": (b'{"a":18446744073709551616}', None),
    "a list": (b"[1,2,{}]", None),
    "a number": (b"3", None),
    "CRLF": (GOOD + b"\r", None),
}
#: lines orjson refuses, and the start of the message each gets (the line number is added where it shows)
REFUSED: dict[str, tuple[bytes, str, str]] = {
    "NaN": (b'{"a":NaN}', "NaN is not a JSON number (line {n}, column 6)", "a"),
    "-Infinity": (b'{"args":{"x":-Infinity}}', "-Infinity is not a JSON number (line {n}, column", "args.x"),
    "beyond a double": (b'{"a":[1,' + b"7" * 400 + b']}', "777777777777...777777 (400 characters) is outside any "
                        "representable number range (line {n}, column", "a[1]"),
    "cut short": (b'{"a":', "line {n}: invalid JSON: unexpected end of data", ""),
    "not UTF-8": (b'{"a":"\xff"}', "line {n}: invalid JSON: not UTF-8 text", ""),
    "a control character": (b'{"a":"\x00"}', "line {n}: invalid JSON: unexpected control character", ""),
}
BLANKS = [b"", b"   ", b"\t", b"\r", b"\x0c"]


def shown(items: Iterator[tuple[int, Any, InputError | None]]) -> list[tuple]:
    """Items as comparable tuples (an InputError by its message, field and where)."""
    return [(i, v, None if e is None else (e.message, e.field, e.where)) for i, v, e in items]


def per_line(data: bytes) -> list[tuple]:
    """The reference: every non-blank line alone through the slow path."""
    out: list[tuple[int, Any, InputError | None]] = []
    for lineno, line in enumerate(data.split(b"\n"), 1):
        if line.strip():
            out.append((len(out), *caseio._one_line(line, lineno)))
    return shown(out)


@contextmanager
def sizes(block: int, batch: int) -> Iterator[None]:
    """Reads of ``block`` bytes, batches of ``batch`` lines (small ones put every boundary in play)."""
    saved = bounded_read.BLOCK, caseio.BATCH_LINES
    bounded_read.BLOCK, caseio.BATCH_LINES = block, batch
    try:
        yield
    finally:
        bounded_read.BLOCK, caseio.BATCH_LINES = saved


def test_the_tricky_lines_give_the_errors_written_here():
    """Each tricky line among good ones, at the start, the middle and the end of a batch of 8 lines."""
    good = orjson.loads(GOOD)
    for name, (line, expected) in {**TRICKY, **{k: (v[0], v) for k, v in REFUSED.items()}}.items():
        for at in (1, 4, 7, 8, 15):
            lines = [PAD] + [GOOD] * 15
            lines[at] = line
            with sizes(1 << 20, 8):
                got = shown(caseio.iter_documents(b"\n".join(lines), "t.jsonl"))
            assert [i for i, _, _ in got] == list(range(16)), name
            assert all(v == good and e is None for i, v, e in got if i not in (0, at)), name
            _, value, err = got[at]
            if name in REFUSED:
                _, message, field = REFUSED[name]
                assert value is None and err[0].startswith(message.format(n=at + 1)) and err[1] == field, \
                    (name, err)
            elif expected is None:
                assert err is None and value == orjson.loads(line), name
            else:
                assert value is None and err == (*expected, ""), (name, err)


def test_an_escaped_colon_never_makes_up_for_a_dropped_key_in_another_line():
    """Sums over a batch: a \\u escape writing one colon more than its line's text must not hide a line that
    dropped a key (the two would balance)."""
    lines = [GOOD, b'{"a":"\\u003a"}', b'{"api":"A","api":"B"}', GOOD]
    data = b"\n".join(lines)
    with sizes(1 << 20, 512):
        got = shown(caseio.iter_documents(b"\n".join([GOOD, GOOD, data]), "t.jsonl"))
    assert got[4] == (4, None, (DUP_KEY.format("api"), "api", ""))
    assert got[3] == (3, {"a": ":"}, None)


def test_duplicates_at_several_places_in_one_batch():
    """Several bad lines in one batch of otherwise good lines: each named, none of the good ones touched."""
    lines = [GOOD] * 40
    bad = {3: b'{"p":1,"p":2}', 4: b'{"q":{"r":"s:t","r":"u"}}', 20: b'{"w":[{"z":0,"z":0}]}', 39: b'{"v":1,"v":1}'}
    for i, line in bad.items():
        lines[i] = line
    data = b"\n".join(lines) + b"\n"
    for batch in (1, 5, 40, 512):
        with sizes(1 << 20, batch):
            got = shown(caseio.iter_documents(data, "t.jsonl"))
        assert got == per_line(data)
        assert [(i, e[1]) for i, _, e in got if e] == [(3, "p"), (4, "q.r"), (20, "w[0].z"), (39, "v")]


corpus_lines = st.sampled_from([GOOD] * 4 + [v[0] for v in TRICKY.values()] + [v[0] for v in REFUSED.values()]
                               + BLANKS)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(lines=st.lists(corpus_lines, max_size=60), block=st.integers(1, 300) | st.integers(4096, 70000),
       batch=st.integers(1, 12), newline=st.sampled_from([b"\n", b"\r\n"]), trailing=st.booleans())
def test_blocks_and_batches_of_any_size_read_like_line_by_line(lines, block, batch, newline, trailing):
    """JSON Lines (a good first line, then anything of the corpus), whatever the sizes of reads and batches.
    NUL bytes and bad UTF-8 come after the first 64 KiB (else the file is refused as binary): with large reads."""
    if block < 4096:
        lines = [line for line in lines if b"\x00" not in line and b"\xff" not in line]
    else:
        lines = [PAD, *lines]
    data = newline.join([GOOD, *lines]) + (newline if trailing else b"")
    with sizes(block, batch):
        assert shown(caseio.iter_documents(data, "t.jsonl")) == per_line(data)
        assert shown(caseio._iter_lines(data, "t.jsonl", 10)) == [
            (i, v, None if e is None else (e[0].replace(f"line {n}", f"line {n + 10}"), e[1], e[2]))
            for (i, v, e), n in zip(per_line(data), _linenos(data))]


def _linenos(data: bytes) -> list[int]:
    return [n for n, line in enumerate(data.split(b"\n"), 1) if line.strip()]


def test_a_bad_first_line_then_json_lines(tmp_path):
    data = b"\n".join([b"{oops", GOOD, b'{"a":1,"a":2}', GOOD, b"", GOOD])
    path = tmp_path / "c.jsonl"
    path.write_bytes(data)
    got = shown(caseio.read_documents(str(path), 1 << 20))
    assert got == per_line(data)
    assert got[0][2][0].startswith("line 1: invalid JSON") and got[2][2] == (DUP_KEY.format("a"), "a", "")
    assert len(got) == 5


def test_a_document_over_several_lines(tmp_path):
    docs = [orjson.loads(GOOD), {"b": [1, 2]}]
    path = tmp_path / "c.json"
    path.write_text(json.dumps(docs, indent=2))
    with sizes(16, 2):
        assert shown(caseio.read_documents(str(path), 1 << 20)) == [(0, docs[0], None), (1, docs[1], None)]


def test_binary_and_non_utf8_heads_are_refused(tmp_path):
    for content, says in ((GOOD + b"\n\x00\x01", "binary content"), (b'{"a":"\xff\xfe"}\n' + GOOD, "not UTF-8 text")):
        path = tmp_path / "c.jsonl"
        path.write_bytes(content)
        with pytest.raises(InputError, match=says):
            list(caseio.read_documents(str(path), 1 << 20))


def test_standard_input(monkeypatch):
    data = b"\n".join([GOOD, b'{"a":1,"a":2}', b"", GOOD, b'{"a":NaN}']) + b"\n"

    class Stdin:
        buffer = io.BytesIO(data)

    monkeypatch.setattr(sys, "stdin", Stdin)
    with sizes(7, 2):
        assert shown(caseio.read_documents("-", 1 << 20)) == per_line(data)


def test_standard_input_larger_than_the_limit_hands_out_lines_then_the_error(monkeypatch):
    """The lines read within the limit, each as line by line, then the error (no line past the limit; the
    first 64 KiB are read before any line is handed out)."""
    data = b"\n".join(([GOOD] * 50 + [b'{"a":1,"a":2}'] * 50) * 20)

    class Stdin:
        buffer = io.BytesIO(data)

    monkeypatch.setattr(sys, "stdin", Stdin)
    limit = 100_000
    got = []
    with sizes(300, 4), pytest.raises(InputError, match=f"larger than the limit of {limit} bytes"):
        for item in caseio.read_documents("-", limit):
            got.append(item)
    got = shown(got)
    assert got == per_line(data)[:len(got)]
    assert 0 < len(got) and sum(len(line) + 1 for line in data.split(b"\n")[:len(got)]) <= limit


def test_a_file_growing_past_the_limit(tmp_path):
    """A file within the limit when opened, written to while it is read: its lines, then the error."""
    path = tmp_path / "c.jsonl"
    row = GOOD + b"\n"
    path.write_bytes(row * 1000)
    limit = 1100 * len(row)
    with sizes(4096, 512):
        it = caseio.read_documents(str(path), limit)
        got = [next(it)]
        with path.open("ab") as f:  # after the file was opened and its first 64 KiB read
            f.write(row * 200)
        with pytest.raises(InputError, match=f"larger than the limit of {limit} bytes"):
            for item in it:
                got.append(item)
    assert 1000 <= len(got) < 1100
    assert shown(got) == per_line(row * len(got))


def test_the_private_name_still_reads():
    assert caseio._read_documents is caseio.read_documents


# -- the pieces ------------------------------------------------------------------------------------------------

@settings(max_examples=200, deadline=None)
@given(data=st.text(alphabet="ab\n\r é", max_size=300).map(str.encode), block=st.integers(1, 40),
       consumed=st.integers(0, 10))
def test_line_blocks_are_the_lines_and_the_text_they_point_at(data, block, consumed):
    """`LineReader.line_blocks`: the lines of ``data.split(b"\\n")`` (no empty last one after a final newline),
    numbered from 1, each block's ``buf[start:end]`` their text; a cursor hands out lines then the rest."""
    expected = data.split(b"\n")
    if expected[-1] == b"":
        expected.pop()
    with sizes(block, 512):
        blocks = list(LineReader(io.BytesIO(data), len(data) + 1, "t").line_blocks())
        cursor = LineCursor(LineReader(io.BytesIO(data), len(data) + 1, "t").line_blocks())
        head_items = [item for _, item in zip(range(consumed), cursor)]
        head = [line for _, line in head_items]
        rest = list(cursor.rest())
    assert [line for b in blocks for line in b.lines] == expected
    assert [n for b in blocks for n in range(b.first, b.first + len(b.lines))] == list(range(1, len(expected) + 1))
    for b in blocks + rest:
        assert b.buf[b.start:b.end] == b"\n".join(b.lines)
    assert [n for n, _ in head_items] == list(range(1, len(head) + 1))
    assert head + [line for b in rest for line in b.lines] == expected
    assert [n for b in rest for n in range(b.first, b.first + len(b.lines))] == \
        list(range(len(head) + 1, len(expected) + 1))


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-2**63, 2**63 - 1) | st.text(alphabet=":{}[],\"ab\\ é", max_size=6),
    lambda inner: st.lists(inner, max_size=4) | st.lists(st.tuples(st.text(alphabet=":ab\" é", max_size=3), inner),
                                                         max_size=4),
    max_leaves=20)


def _text(value: Any) -> str:
    """JSON text of ``value`` where a list of (key, value) pairs is an object written with every pair, repeated
    keys included; no \\u escape (non-ASCII written as is)."""
    if isinstance(value, list) and value and all(isinstance(p, tuple) for p in value):
        return "{" + ",".join(json.dumps(k, ensure_ascii=False) + ":" + _text(v) for k, v in value) + "}"
    if isinstance(value, list):
        return "[" + ",".join(_text(v) for v in value) + "]"
    return json.dumps(value, ensure_ascii=False)


def _has_duplicate(value: Any) -> bool:
    if isinstance(value, list) and value and all(isinstance(p, tuple) for p in value):
        keys = [k for k, _ in value]
        return len(set(keys)) < len(keys) or any(_has_duplicate(v) for _, v in value)
    if isinstance(value, list):
        return any(_has_duplicate(v) for v in value)
    return False


@settings(max_examples=300, deadline=None)
@given(values=st.lists(json_values, min_size=1, max_size=8))
def test_colons_of_a_reserialization_never_exceed_the_texts_and_equal_them_without_duplicates(values):
    """The lemma under the batch test (written independently of it): with no \\u escape, orjson's
    re-serialization has at most the colons of the text, exactly as many when no key repeats; and the batch
    test gives, line by line, what `jsonread.checked` gives."""
    lines = [_text(v).encode() for v in values]
    parsed = [orjson.loads(line) for line in lines]
    for line, value, tree in zip(lines, parsed, values):
        if b"\\u" not in line:
            out = orjson.dumps(value).count(b":")
            assert out <= line.count(b":")
            assert (out == line.count(b":")) == (not _has_duplicate(tree))
    buf = b"\n".join(lines)
    expected = {i: jsonread.checked(v, line) for i, (v, line) in enumerate(zip(parsed, lines))}
    got = jsonread.lines_problems(lines, parsed, buf, 0, len(buf))
    assert {i: (e.message, e.field) for i, e in got.items()} == \
        {i: (e.message, e.field) for i, e in expected.items() if e is not None}


def test_a_huge_file_is_never_held_whole(tmp_path):
    """A batch is at most a block read (1 MiB) or one line: 8 MiB of lines go through in batches of that size."""
    path = tmp_path / "c.jsonl"
    line = b'{"a":"' + b"x" * 1000 + b'"}'
    path.write_bytes((line + b"\n") * 8000)
    reader = LineReader(path.open("rb"), 1 << 30, str(path))
    biggest = 0
    for batch in caseio._json_lines(reader.line_blocks(), 0):
        batch = list(batch)
        biggest = max(biggest, len(batch))
    assert biggest <= caseio.BATCH_LINES and biggest * (len(line) + 1) <= bounded_read.BLOCK
