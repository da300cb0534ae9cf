"""``fix -o``: the user's case file with one case fixed, and nothing else changed.

Only the values `fix` changed are rewritten, in place in the file's text: the user's spelling of the
arguments (pyasc names stay pyasc names), the other keys of the case (``name``, ``comment``,
``expect``, ``fmatrix``, ...), their order, the other cases of a list or JSON Lines file, and the
formatting around the values all stay as they were. A value the case left out (an argument it gave
no value, a tensor it omitted) is inserted at the end of its object. Only where a value must go
away (data that no longer fits a tensor's new size, a tensor now absent) or where the case spells
its arguments in a form that does not map one name to one argument (Load3D's packed words) is the
case written anew, in its own keys' order; a note says so.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Iterator

from ..cases.case import Case
from ..spec.errors import InputError
from ..spec.model import ApiModel

#: Deep enough for /INDEX/tensors/NAME/data.
_DEPTH = 8


def _pointer(*keys: Any) -> str:
    return "".join("/" + str(k).replace("~", "~0").replace("/", "~1") for k in keys)


def _layout(text: str, index: int) -> tuple[str, int, int, str]:
    """Where case ``index`` is in the file: (kind, start, end, prefix) with kind 'object', 'list' or 'lines', the
    character span of the text to edit and the pointer prefix of the case within that span."""
    kind, cases = _cases_of(text)
    if kind == "object":
        return "object", 0, len(text), ""
    if kind == "list":
        return "list", 0, len(text), f"/{index}"
    for k, _, start, end in cases:
        if k == index:
            return "lines", start, end, ""
    raise InputError(f"no case {index} in the file", field="--index")


def _spelling(model: ApiModel, raw_args: dict[str, Any], name: str) -> str:
    """``name`` as the spelling the case's other arguments use (pyasc when they are pyasc names)."""
    votes: dict[str, int] = {}
    for k in raw_args:
        for label in model.arg_names.get(k, ("", frozenset()))[1]:
            votes[label] = votes.get(label, 0) + 1
    if not votes:
        return name
    label = max(votes, key=lambda lb: (votes[lb], lb == model.canonical_spelling))
    if label == model.canonical_spelling:
        return name
    return model.arg_spellings.get(label, {}).get(name, name)


class _Edits:
    """The changes to one case: pointer -> new value; pointers to remove; whether it must be written anew."""

    def __init__(self) -> None:
        self.set: dict[tuple, Any] = {}
        self.remove: list[tuple] = []
        self.rewrite_args: dict[str, Any] | None = None
        self.notes: list[str] = []


def _edits(case: Case, fixed: Case, changed: list[str], dropped: list[str], raw: dict[str, Any],
           data_base: Path | None, out_dir: Path | None) -> _Edits:
    from ..engines.explain import spelled_params, struct_member

    model = case.model
    new = fixed.to_json()
    arg_key = tensor_key = spelled_params(model, raw)
    raw_args = raw.get("args") if isinstance(raw.get("args"), dict) else {}
    e = _Edits()
    done: set[str] = set()
    for name in changed:
        param = name.split(".")[0]
        if model.param_kinds.get(param) == "tensor":
            key = tensor_key.get(param, param)
            field = name.split(".", 1)[1] if "." in name else ""
            if field == "present":
                if param in new["tensors"]:
                    e.set[("tensors", key)] = new["tensors"][param]
                else:
                    e.remove.append(("tensors", key))
                continue
            if param in new["tensors"] and field in new["tensors"][param]:
                e.set[("tensors", key, field)] = new["tensors"][param][field]
            continue
        if model.param_kinds.get(param) == "struct" and param in arg_key and param in new["args"] \
                and isinstance(raw_args.get(arg_key[param]), dict):
            member = struct_member(model, name)
            if member is not None and member in new["args"][param]:
                e.set[("args", arg_key[param], member)] = new["args"][param][member]
                continue
        if param in done:
            continue
        done.add(param)
        if param not in new["args"]:
            if param in arg_key:
                e.remove.append(("args", arg_key[param]))
            continue
        if param in arg_key:
            e.set[("args", arg_key[param])] = new["args"][param]
        elif getattr(model, "normalize_args", None) is not None and raw_args:
            # a form whose names do not map one to one onto the arguments (packed words): written anew
            e.rewrite_args = new["args"]
            e.notes.append(f"the arguments are written in {model.name}'s documented names (the case gave them in "
                           "another form)")
        else:
            e.set[("args", _spelling(model, raw_args, param))] = new["args"][param]
    for name in dropped:
        key = tensor_key.get(name, name)
        e.remove.append(("tensors", key, "data"))
        e.notes.append(f"the data of {name} no longer fits its size and is dropped")
    # relative data paths, rewritten when the fixed file lands in another folder
    if data_base is not None and out_dir is not None and data_base.resolve() != out_dir.resolve():
        for canon, src in case.data_sources.items():
            if isinstance(src, str) and canon not in dropped and not Path(src).is_absolute():
                rel = os.path.relpath((data_base / src).resolve(), out_dir.resolve())
                e.set[("tensors", tensor_key.get(canon, canon), "data")] = rel
                if rel.split(os.sep, 1)[0] == os.pardir:  # outside the new file's folder: read only with --data-root
                    e.notes.append(f"the data of {_name_of(canon, tensor_key)} is {rel}, outside the folder of the "
                                   f"fixed file: check it with --data-root {_common_root(data_base, out_dir)} (or copy "
                                   f"the data beside it)")
    return e


def _name_of(canon: str, tensor_key: dict[str, str]) -> str:
    """A tensor as the case file names it."""
    return tensor_key.get(canon, canon)


def _common_root(a: Path, b: Path) -> str:
    """The nearest folder holding both ``a`` and ``b``, as a path a user can type (relative when below the
    current folder)."""
    common = Path(os.path.commonpath([a.resolve(), b.resolve()]))
    try:
        return str(common.relative_to(Path.cwd())) or "."
    except ValueError:
        return str(common)


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _splice(text: str, prefix: str, edits: _Edits) -> str | None:
    """``text`` with the values replaced or inserted in place; None when the edits need the case written anew."""
    from ..engines.sarif import json_positions

    if edits.remove or edits.rewrite_args is not None:
        return None
    try:
        pos = json_positions(text, max_depth=_DEPTH)
    except (ValueError, IndexError):
        return None
    decoder = json.JSONDecoder()
    spans: list[tuple[int, int, str]] = []
    for keys, value in edits.set.items():
        ptr = prefix + _pointer(*keys)
        if ptr in pos:
            start = pos[ptr]
            _, end = decoder.raw_decode(text, start)
            spans.append((start, end, _dumps(value)))
            continue
        parent = prefix + _pointer(*keys[:-1])
        if parent not in pos or text[pos[parent]] != "{":
            return None
        _, end = decoder.raw_decode(text, pos[parent])
        close = end - 1
        before = text[pos[parent] + 1:close]
        member = f"{_dumps(keys[-1])}: {_dumps(value)}"
        if before.strip():
            last = pos[parent] + 1 + len(before.rstrip())
            spans.append((last, last, ", " + member))
        else:
            spans.append((close, close, member))
    out = text
    for start, end, new in sorted(spans, key=lambda s: (s[0], s[1]), reverse=True):
        out = out[:start] + new + out[end:]
    return out


def _rewritten(raw: dict[str, Any], edits: _Edits) -> dict[str, Any]:
    doc = json.loads(json.dumps(raw))
    if edits.rewrite_args is not None:
        doc["args"] = edits.rewrite_args
    for keys, value in edits.set.items():
        if edits.rewrite_args is not None and keys[0] == "args":
            continue
        node = doc
        for k in keys[:-1]:
            node = node.setdefault(k, {})
        node[keys[-1]] = value
    for keys in edits.remove:
        node = doc
        for k in keys[:-1]:
            node = node.get(k, {})
        if isinstance(node, dict):
            node.pop(keys[-1], None)
    return doc


def _indent(text: str) -> int:
    for line in text.splitlines()[1:]:
        stripped = line.lstrip(" ")
        if stripped and len(stripped) < len(line):
            return len(line) - len(stripped)
    return 2


def fixed_file_text(text: str, index: int, case: Case, fixed: Case, changed: list[str], dropped: list[str],
                    out_dir: Path | None) -> tuple[str, list[str]]:
    """The case file's ``text`` with case ``index`` replaced by its fix (see the module docstring), and the notes
    on what could not stay as the user wrote it. ``out_dir``: the folder the file is written to (relative data
    paths are rewritten for it; None: standard output, paths stay)."""
    kind, start, end, prefix = _layout(text, index)
    part = text[start:end]
    whole = json.loads(part)
    raw = whole[index] if kind == "list" else whole
    edits = _edits(case, fixed, changed, dropped, raw, case.base_dir, out_dir)
    spliced = _splice(part, prefix, edits)
    if spliced is None:
        doc = _rewritten(raw, edits)
        edits.notes.append("the case is written anew (its keys in their order; the rest of the file as it was)")
        if kind == "object":
            spliced = json.dumps(doc, indent=_indent(part), ensure_ascii=False) + ("\n" if part.endswith("\n") else "")
        elif kind == "lines":
            spliced = json.dumps(doc, ensure_ascii=False)
        else:
            whole[index] = doc
            sub = _splice(part, "", _element_edit({(str(index),): doc}))
            spliced = sub if sub is not None else json.dumps(whole, indent=_indent(part), ensure_ascii=False) + "\n"
    text = text[:start] + spliced + text[end:]
    if out_dir is not None and case.base_dir is not None:  # the other cases' data, read from the new folder too
        text, moved = moved_data_paths(text, index, case.base_dir, out_dir)
        edits.notes.extend(moved)
    return text, edits.notes


def _data_keys(node: Any, keys: tuple = (), depth: int = 0) -> Iterator[tuple[tuple, str]]:
    """The ``"data": "PATH"`` members below ``node`` (a tensor's or a register's data file): their keys and paths."""
    if depth > _DEPTH:
        return
    if isinstance(node, dict):
        for k, v in node.items():
            if k == "data" and isinstance(v, str):
                yield (*keys, k), v
            elif isinstance(v, (dict, list)):
                yield from _data_keys(v, (*keys, k), depth + 1)
    elif isinstance(node, list):
        for i, v in enumerate(node):
            if isinstance(v, (dict, list)):
                yield from _data_keys(v, (*keys, str(i)), depth + 1)


def _cases_of(text: str) -> tuple[str, list[tuple[int, Any, int, int]]]:
    """The file's kind ('object', 'list', 'lines') and its cases: (index, document, start, end of its text; for a
    list the whole text). A line that does not parse is left out."""
    try:
        doc = json.loads(text)
    except ValueError:
        doc = None
    if isinstance(doc, dict):
        return "object", [(0, doc, 0, len(text))]
    if isinstance(doc, list):
        return "list", [(i, d, 0, len(text)) for i, d in enumerate(doc)]
    out: list[tuple[int, Any, int, int]] = []
    pos, k = 0, 0
    for line in text.splitlines(keepends=True):
        if line.strip():
            body = line.rstrip("\r\n")
            try:
                out.append((k, json.loads(body), pos, pos + len(body)))
            except ValueError:
                pass
            k += 1
        pos += len(line)
    return "lines", out


def documents(text: str) -> list[Any]:
    """The JSON documents of a case file's ``text`` (one, a list's elements, or the readable lines)."""
    return [doc for _, doc, _, _ in _cases_of(text)[1]]


def moved_data_paths(text: str, fixed_index: int, base: Path, out_dir: Path) -> tuple[str, list[str]]:
    """``text`` with the relative data paths of every case but ``fixed_index`` (whose own are rewritten with its
    fix) made relative to ``out_dir``, the folder the file is written to; and the notes (a path now outside that
    folder, a case whose paths could not be rewritten in place)."""
    if base.resolve() == out_dir.resolve():
        return text, []
    kind, cases = _cases_of(text)
    notes: list[str] = []
    outside: list[str] = []
    spans: list[tuple[int, int, _Edits, str]] = []
    whole = _Edits()
    for index, doc, start, end in cases:
        if index == fixed_index:
            continue
        edits = whole if kind == "list" else _Edits()
        for keys, src in _data_keys(doc):
            if Path(src).is_absolute():
                continue
            rel = os.path.relpath((base / src).resolve(), out_dir.resolve())
            edits.set[((str(index),) if kind == "list" else ()) + keys] = rel
            if rel.split(os.sep, 1)[0] == os.pardir:
                outside.append(f"case {index}")
        if edits.set and kind != "list":
            spans.append((start, end, edits, f"case {index}"))
    if kind == "list" and whole.set:
        spans.append((0, len(text), whole, "the other cases"))
    for start, end, edits, what in sorted(spans, key=lambda s: s[0], reverse=True):
        spliced = _splice(text[start:end], "", edits)
        if spliced is None:
            notes.append(f"the relative data paths of {what} could not be rewritten for the new folder")
            continue
        text = text[:start] + spliced + text[end:]
    if outside:
        notes.append(f"data of {', '.join(dict.fromkeys(outside))} now lies outside the folder of the written file: "
                     f"check it with --data-root {_common_root(base, out_dir)} (or copy the data beside it)")
    return text, notes


def _element_edit(values: dict[tuple, Any]) -> _Edits:
    e = _Edits()
    e.set.update(values)
    return e
