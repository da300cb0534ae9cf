"""``check --format sarif``: the verdicts as a SARIF 2.1.0 log for code-scanning displays.

Each broken rule is one result. Its location is the JSON pointer of the offending value in the case
file (``/args/hRepeat``, ``/tensors/dst/addr``; in a file holding a list of cases, the case index
comes first: ``/3/args/hRepeat``), given three ways: as ``properties.jsonPointer``, as a logical
location (``fullyQualifiedName``: ``case 3/args/hRepeat``, so JSON Lines cases are told apart), and
as a physical region (line and column of the value in the file, found by scanning the file's JSON
text; JSON Lines: the case's line). The other parameters the rule reads are related locations.
Every rule of the APIs checked is in ``tool.driver.rules``, its help text carrying the rule's
source in the documentation and its spec notes. A case that could not be read is a tool
execution notification (level error) at its location, as are files that could not be read.
"""

from __future__ import annotations

import bisect
import json
import os
from array import array
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterable, Sequence
from urllib.parse import quote

from ..cases.pointers import json_pointer
from ..cases.bounded_read import LineReader, NotRegular, open_regular
from ..cases.sources import _LIMITS, open_source
from ..checking.checker import Result
from ..spec.citations import prose
from ..spec.errors import InputError, shown_path
from ..spec.model import ApiModel
from ..spec.rules import Rule
from ..spec.version import __version__

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
INFO_URI = "https://github.com/ascverify/ascverify"
#: Depth of the pointers recorded by the position scanner: /i/tensors/NAME/key is 4 deep.
MAX_DEPTH = 5


# -- JSON positions ---------------------------------------------------------------------------------------------------

def _escape(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


def json_positions(text: str, max_depth: int = MAX_DEPTH) -> dict[str, int]:
    """JSON pointer -> character offset of the value, for every value up to ``max_depth`` deep."""
    from json.decoder import scanstring

    decoder = json.JSONDecoder()
    out: dict[str, int] = {}
    ws = " \t\n\r"
    n = len(text)

    def skip(i: int) -> int:
        while i < n and text[i] in ws:
            i += 1
        return i

    def value(i: int, ptr: str, depth: int) -> int:
        i = skip(i)
        out[ptr] = i
        if i >= n:
            raise ValueError("unexpected end")
        c = text[i]
        if depth >= max_depth and c in "{[":
            _, end = decoder.raw_decode(text, i)
            return end
        if c == "{":
            i = skip(i + 1)
            if i < n and text[i] == "}":
                return i + 1
            while True:
                i = skip(i)
                key, i = scanstring(text, i + 1)
                i = skip(i)
                i = value(i + 1, f"{ptr}/{_escape(key)}", depth + 1)
                i = skip(i)
                if text[i] == ",":
                    i += 1
                    continue
                return i + 1
        if c == "[":
            i = skip(i + 1)
            if i < n and text[i] == "]":
                return i + 1
            k = 0
            while True:
                i = value(i, f"{ptr}/{k}", depth + 1)
                k += 1
                i = skip(i)
                if text[i] == ",":
                    i += 1
                    continue
                return i + 1
        if c == '"':
            _, end = scanstring(text, i + 1)
            return end
        _, end = decoder.raw_decode(text, i)
        return end

    try:
        value(0, "", 0)
    finally:
        # `value` calls itself through its closure: a reference cycle that would keep every line's positions (and
        # the text) until the garbage collector ran, which `check` pauses while it reads
        del value
    return out


#: Cases of a JSON Lines file whose parsed line and value positions `_FileText` keeps (then it starts over).
LINES_KEPT = 4096
#: Files up to this size are kept as text while their cases are reported; a larger JSON Lines file is read again ...
WHOLE_TEXT = 8 << 20
#: ... a block of this many bytes (or one longer line) at a time.
LINE_BLOCK = 1 << 20


def _json_lines_head(head: bytes) -> bool:
    """The file starts like JSON Lines: its first non-empty line is a JSON object by itself and another non-empty
    line follows (so the file as a whole is not one JSON document)."""
    lines = head.split(b"\n")[:-1]  # complete lines only
    rest = iter(lines)
    for line in rest:
        text = line.decode("utf-8", errors="replace")
        if text.strip():
            try:
                first = json.loads(text)
            except (ValueError, RecursionError):  # (nested deeper than Python's parser goes: not a case either)
                return False
            return isinstance(first, dict) and any(more.decode("utf-8", errors="replace").strip() for more in rest)
    return False


class _FileText:
    """A case file's text, how it holds its cases, and where each value is. A large JSON Lines file is not kept: the
    offsets of its case lines are, and each line is read again when its case is reported (in file order, a block of
    `LINE_BLOCK` bytes at a time)."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.text: str | None = None
        self.kind = "unknown"  # "object", "list", "lines" or "unknown" (unreadable, stdin)
        self.line_starts: list[int] = [0]
        self._positions: dict[int, dict[str, int]] = {}
        self._case_lines: Sequence[int] = []
        self.raw: dict[int, Any] = {}
        self.lines: list[str] = []
        #: a large JSON Lines file: each case line's byte offset and length; the block of the file read last
        self._starts: array | None = None
        self._lengths = array("q")
        self._block: tuple[int, bytes] = (0, b"")
        if path == "-":
            return
        try:  # bounded, regular files only: the file may be a device or a FIFO someone named (docs/security.md)
            reader = open_source(path, _LIMITS.get().max_bytes)
        except InputError:
            return
        try:
            head = reader.peek_head(WHOLE_TEXT + 1)
            if len(head) <= WHOLE_TEXT or not _json_lines_head(head):
                self._whole(reader.read_all().decode("utf-8"))
            else:
                self._offsets(reader)
        except (InputError, OSError, UnicodeDecodeError):
            self.kind, self.text, self.lines, self._case_lines, self._starts = "unknown", None, [], [], None
        finally:
            reader.close()

    def _whole(self, text: str) -> None:
        """The file kept as text: one document (object or list), or JSON Lines."""
        self.text = text
        self.line_starts = [0] + [i + 1 for i, ch in enumerate(text) if ch == "\n"]
        stripped = text.strip()
        try:
            doc = json.loads(stripped)
            self.kind = "list" if isinstance(doc, list) else "object"
            if isinstance(doc, list):
                self.raw = dict(enumerate(doc))
            else:
                self.raw = {0: doc}
        except (ValueError, RecursionError):  # (a line nested deeper than Python's parser goes: no positions there)
            if stripped[:1] == "{":
                self.kind = "lines"
                self.lines = text.split("\n")
                self._case_lines = [lineno for lineno, line in enumerate(self.lines) if line.strip()]

    def _offsets(self, reader: LineReader) -> None:
        """A large JSON Lines file: where each case line is (its text is read again when needed)."""
        numbers, starts, lengths = array("q"), array("q"), array("q")
        offset = 0
        for n, line in reader.lines():
            if line.decode("utf-8").strip():  # a file that is not UTF-8 throughout has no positions, as a whole text
                numbers.append(n - 1)
                starts.append(offset)
                lengths.append(len(line))
            offset += len(line) + 1
        self.kind, self._case_lines, self._starts, self._lengths = "lines", numbers, starts, lengths

    def _line(self, index: int) -> str | None:
        """The text of case ``index``'s line (None when the file changed since it was read)."""
        if self._starts is None:
            return self.lines[self._case_lines[index]]
        start, n = self._starts[index], self._lengths[index]
        first, block = self._block
        if not first <= start <= start + n <= first + len(block):
            try:
                fd, _ = open_regular(self.path)
                try:
                    os.lseek(fd, start, os.SEEK_SET)
                    block = os.read(fd, max(n, LINE_BLOCK))
                finally:
                    os.close(fd)
            except (OSError, NotRegular):
                return None
            first = start
            self._block = (first, block)
        try:
            return block[start - first:start - first + n].decode("utf-8")
        except UnicodeDecodeError:
            return None

    def raw_case(self, index: int) -> Any:
        if index in self.raw:
            return self.raw[index]
        if self.kind == "lines" and 0 <= index < len(self._case_lines):
            line = self._line(index)
            if len(self.raw) >= LINES_KEPT:  # cases are reported in file order: the earlier lines are done
                self.raw.clear()
            try:
                self.raw[index] = json.loads(line) if line is not None else None
            except (ValueError, RecursionError):
                self.raw[index] = None
            return self.raw[index]
        return None

    def file_pointer(self, index: int, ptr: str) -> str:
        """The pointer into the file (list files: prefixed with the case index)."""
        return f"/{index}{ptr}" if self.kind == "list" else ptr

    def region(self, index: int, ptr: str) -> dict[str, int] | None:
        """Line and column (1-based) of the value at ``ptr`` of case ``index`` (its nearest present ancestor)."""
        if self.kind == "unknown":
            return None
        if self.kind == "lines":
            if not (0 <= index < len(self._case_lines)):
                return None
            lineno = self._case_lines[index]
            key = index
            if key not in self._positions:
                if len(self._positions) >= LINES_KEPT:
                    self._positions.clear()
                line = self._line(index)
                try:
                    self._positions[key] = json_positions(line) if line is not None else {"": 0}
                except (ValueError, IndexError, RecursionError):  # (a line nested too deep: the line's start)
                    self._positions[key] = {"": 0}
            pos = self._positions[key]
            off = _nearest(pos, ptr)
            return {"startLine": lineno + 1, "startColumn": off + 1}
        if 0 not in self._positions:
            try:
                self._positions[0] = json_positions(self.text)
            except (ValueError, IndexError, RecursionError):
                self._positions[0] = {"": 0}
        pos = self._positions[0]
        off = _nearest(pos, self.file_pointer(index, ptr))
        line = bisect.bisect_right(self.line_starts, off) - 1
        return {"startLine": line + 1, "startColumn": off - self.line_starts[line] + 1}


def _field_pointer(field: str) -> str:
    """An input error's field (``tensors.dst.addr``, ``args.mask[1]``) as a JSON pointer; '' for options."""
    import re

    if not field or field.startswith("-"):
        return ""
    return "/" + re.sub(r"\[(\d+)\]", r".\1", field).replace(".", "/")


def _nearest(pos: dict[str, int], ptr: str) -> int:
    while ptr and ptr not in pos:
        ptr = ptr.rsplit("/", 1)[0]
    return pos.get(ptr, 0)


# -- pointers of rules --------------------------------------------------------------------------------------------------

def rule_pointers(model: ApiModel, rule: Rule, raw: Any) -> list[str]:
    """The JSON pointers (within one case) of the values a rule reads, the most specific first."""
    args = list(raw.get("args", {}) or {}) if isinstance(raw, dict) else []
    dom = rule.domain
    out: list[str] = []
    kind = dom.get("kind")
    if "field" in dom:
        out.append(json_pointer(model, dom["field"], args))
    elif kind == "align" and "tensor" in dom:
        out.append(f"/tensors/{dom['tensor']}/addr")
    elif kind in ("fits", "min_size") and "tensor" in dom:
        out.append(f"/tensors/{dom['tensor']}/size")
    elif kind == "disjoint":
        out.extend(f"/tensors/{t}" for t in dom["tensors"])
    elif kind == "data":
        out.extend(f"/tensors/{t}/data" for t in rule.requires_data)
    for p in rule.params:
        ptr = json_pointer(model, p, args)
        if ptr not in out:
            out.append(ptr)
    return out or ["/api"]


def program_pointer(ptr: str, call: int, shared: dict[str, str]) -> str:
    """A call's pointer within a program file: its arguments under /calls/N, its tensors at the program's shared
    tensor they name (/tensors/x/addr), the product and element type at the top."""
    if ptr.startswith("/tensors/"):
        parts = ptr.split("/")
        name = parts[2]
        if name in shared:
            return "/".join(["", "tensors", _escape(shared[name]), *parts[3:]])
    if ptr in ("/product", "/dtype"):
        return ptr
    return f"/calls/{call}{ptr}"


# -- the document -------------------------------------------------------------------------------------------------------

@lru_cache(maxsize=1024)
def uri_of(path: str) -> str:
    if path == "-":
        return "stdin"
    p = Path(path)
    if p.is_absolute():
        return p.as_uri()
    return quote(os.fsencode(p.as_posix()))  # the name's bytes, UTF-8 or not


def fingerprint_path(path: str) -> str:
    """A case file's name in a fingerprint: the same for every spelling of the same file from the same working
    folder (``a.json``, ``./a.json``, ``sub/../a.json``, its absolute path): relative to the working folder, with
    ``/``, when the file is inside it, else absolute. Standard input is ``-``."""
    return path if path == "-" else _fingerprint_path(path, os.getcwd())


@lru_cache(maxsize=256)
def _fingerprint_path(path: str, cwd: str) -> str:
    full = os.path.normpath(os.path.join(cwd, path))
    rel = os.path.relpath(full, cwd)
    shown = full if rel == os.pardir or rel.startswith(os.pardir + os.sep) else rel
    return shown_path(Path(shown).as_posix())


def _rule_descriptor(model: ApiModel, r: Rule) -> dict[str, Any]:
    notes = [n for n in model.notes if r.id in n.rules or n.id in r.notes]
    help_text = f"{r.help or r.message}\nSource: {r.citation}"
    md = f"**{r.help or r.message}**\n\nSource: {r.citation}"
    for n in notes:
        help_text += f"\nSpec note {n.id} ({prose(n.title)}): {prose(n.reading)}"
        md += f"\n\nSpec note `{n.id}` ({prose(n.title)}): {prose(n.reading)}"
    return {
        "id": r.id,
        "name": r.id,
        "shortDescription": {"text": r.help or r.message},
        "fullDescription": {"text": f"{model.name}: {r.help or r.message} ({r.citation})"},
        "help": {"text": help_text, "markdown": md},
        "defaultConfiguration": {"level": "warning" if r.severity == "warning" else "error"},
        "properties": {"api": model.name, "source": r.citation,
                       "kind": r.domain.get("kind", "custom"),
                       "products": sorted(r.products) if r.products is not None else "all",
                       "notes": [n.id for n in notes], "tags": [model.name, r.domain.get("kind", "custom")]},
    }


class SarifLog:
    """A SARIF log built batch by batch (`results`), for a writer that prints each batch's results as they come and
    the rest of the run (`run_tail`: the rules, the files, the invocation) at the end. Memory: the rules of the APIs
    met, the files met, the notifications, and the text of the files whose cases are being reported (a few)."""

    def __init__(self) -> None:
        self.models: set[str] = set()
        self.rules: list[dict[str, Any]] = []
        self.index: dict[str, int] = {}
        self.artifacts: list[dict[str, Any]] = []
        self.art_index: dict[str, int] = {}
        self.texts: dict[str, _FileText] = {}
        self.notifications: list[dict[str, Any]] = []

    def _model(self, m: ApiModel) -> None:
        """Every rule of an API, the first time one of its cases is met (``ruleIndex`` points into this list)."""
        if m.name not in self.models:
            self.models.add(m.name)
            for rule in m.rules:
                if rule.id not in self.index:
                    self.index[rule.id] = len(self.rules)
                    self.rules.append(_rule_descriptor(m, rule))

    def _text(self, path: str) -> _FileText:
        """The file's text and positions, read once while its cases are reported (the most recent files kept)."""
        ft = self.texts.get(path)
        if ft is None:
            if len(self.texts) >= TEXTS_KEPT:
                self.texts.pop(next(iter(self.texts)))
            ft = self.texts[path] = _FileText(path)
        return ft

    def _artifact(self, path: str) -> int:
        if path not in self.art_index:
            self.art_index[path] = len(self.artifacts)
            self.artifacts.append({"location": {"uri": uri_of(path)}})
        return self.art_index[path]

    def _location(self, path: str, idx: int | None, ptr: str, name: str) -> dict[str, Any]:
        ai = self._artifact(path)
        phys: dict[str, Any] = {"artifactLocation": {"uri": uri_of(path), "index": ai}}
        if idx is not None:
            region = self._text(path).region(idx, ptr)
            if region is not None:
                phys["region"] = region
        loc: dict[str, Any] = {"physicalLocation": phys}
        if idx is not None:
            loc["logicalLocations"] = [{"name": name, "fullyQualifiedName": f"case {idx}{ptr}", "kind": "member"}]
        return loc

    def results(self, results: Sequence[Result], products: Sequence[str | None] | None = None) -> list[dict[str, Any]]:
        """The SARIF results of ``results`` (in order; an unreadable case becomes a notification instead).
        ``products``: for ``--product all``, the product each result was checked on (by position)."""
        for r in results:
            for c in ([call.case for call in r.program.calls] if r.program is not None else [r.case] if r.case else []):
                self._model(c.model)
        out: list[dict[str, Any]] = []
        for pos, r in enumerate(results):
            if r.error is not None:
                note: dict[str, Any] = {"level": "error", "message": {"text": r.error.line()},
                                        "descriptor": {"id": "input-error"}}
                if r.file:
                    ptr = _field_pointer(r.error.field)
                    note["locations"] = [self._location(r.file, r.index, ptr, r.error.field or "case")]
                self.notifications.append(note)
                continue
            if r.case is None and r.program is None:
                continue
            out.extend(self._findings(r, products[pos] if products is not None else None))
        return out

    def _findings(self, r: Result, product: str | None) -> list[dict[str, Any]]:
        self._artifact(r.file)
        ft = self._text(r.file)
        raw = ft.raw_case(r.index)
        out = []
        for v, level in [(v, "error") for v in r.violations] + [(v, "warning") for v in r.warnings]:
            if r.program is not None and v.call is not None:
                call = r.program.calls[v.call]
                model = call.case.model
                raw_call = raw.get("calls", [None] * (v.call + 1))[v.call] if isinstance(raw, dict) else None
                ptrs = [program_pointer(p, v.call, call.shared) for p in rule_pointers(model, v.rule, raw_call)]
            else:
                model = r.case.model if r.case is not None else r.program.calls[0].case.model
                ptrs = rule_pointers(model, v.rule, raw)
            main_ptr = ptrs[0]
            if v.rule.id not in self.index:  # a rule of the program, not of an API (program.pointer.before_start)
                self.index[v.rule.id] = len(self.rules)
                self.rules.append(_rule_descriptor(model, v.rule))
            text = v.message if product is None else f"on {product}: {v.message}"
            res: dict[str, Any] = {
                "ruleId": v.rule.id,
                "ruleIndex": self.index[v.rule.id],
                "level": level,
                "kind": "fail",
                "message": {"text": text},
                "locations": [self._location(r.file, r.index, main_ptr, main_ptr.rsplit("/", 1)[-1])],
                # file, case, call of a program (empty for a single case), rule, product: one result's identity
                # across runs (v2 printed the path as typed: ./a.json and a.json differed; v1 printed Python's
                # "None" for a single case's call)
                "partialFingerprints": {"ascverifyCaseRule/v3": f"{fingerprint_path(r.file)}:{r.index}:"
                                                                f"{'' if v.call is None else v.call}:{v.rule.id}:"
                                                                f"{product or r.product}"},
                "properties": {"jsonPointer": ft.file_pointer(r.index, main_ptr), "caseIndex": r.index,
                               "api": model.name, "product": product or r.product, "source": v.rule.citation},
            }
            related = []
            for k, ptr in enumerate(ptrs[1:], start=1):
                loc = self._location(r.file, r.index, ptr, ptr.rsplit("/", 1)[-1])
                loc["id"] = k
                loc["message"] = {"text": f"{ptr} is read by {v.rule.id}"}
                related.append(loc)
            if related:
                res["relatedLocations"] = related
            if v.call is not None:
                res["properties"]["call"] = v.call
            out.append(res)
        return out

    def run_tail(self, exit_code: int | None = None, interrupted: str | None = None) -> dict[str, Any]:
        """The run's members after its results: the rules of every API met, the files, the invocation.
        ``interrupted``: the signal's name (``SIGINT``) when Ctrl-C or SIGTERM stopped the run before every case was
        checked: the invocation is then unsuccessful and says so in a notification (the results are the cases
        checked before)."""
        notes = self.notifications
        if interrupted is not None:
            notes = [*notes, {"level": "error", "descriptor": {"id": "interrupted"},
                              "message": {"text": f"interrupted ({interrupted}): the results are those of the cases "
                                                  "checked before; the other cases were not checked"}}]
        invocation: dict[str, Any] = {"executionSuccessful": not notes, "toolExecutionNotifications": notes}
        if exit_code is not None:
            invocation["exitCode"] = exit_code
        return {
            "tool": {"driver": {"name": "ascverify", "version": __version__, "semanticVersion": __version__,
                                "informationUri": INFO_URI, "rules": self.rules}},
            "artifacts": self.artifacts,
            "invocations": [invocation],
            "columnKind": "unicodeCodePoints",
        }


#: Files whose text a `SarifLog` keeps at once (results come in file order; a batch of ``--product all`` may
#: go back to the file before).
TEXTS_KEPT = 4
#: The top of every log, before its one run (whose results come first, then `SarifLog.run_tail`).
LOG_HEAD = {"$schema": SCHEMA, "version": "2.1.0"}


def sarif_document(results: Sequence[Result], *, products: Sequence[str | None] | None = None,
                   exit_code: int | None = None) -> dict[str, Any]:
    """The SARIF log of ``check`` results (in order; unreadable cases become notifications), whole.

    ``products``: for ``--product all``, the product each result was checked on (by position).
    """
    log = SarifLog()
    found = log.results(results, products)
    return {**LOG_HEAD, "runs": [{"results": found, **log.run_tail(exit_code)}]}


def sarif_text(results: Iterable[Result], **kw: Any) -> str:
    import orjson

    return orjson.dumps(sarif_document(list(results), **kw), option=orjson.OPT_INDENT_2).decode() + "\n"
