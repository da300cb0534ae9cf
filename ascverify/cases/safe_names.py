"""Names from other people's files that become file names: plain names only, and writes confined to a folder.

A program's tensor names (``"tensors": {"x": ...}``) become ``x.npy`` and ``x.bin`` under ``run -o DIR``; the
keys a Python target returns become file names in a finding's ``actual/`` folder. A name is *plain* when it
is one path component that cannot climb out of a folder or hide in it: word characters (letters, digits,
``_``, in any script), ``.``, ``-`` and ``+``, starting with a word character, at most `MAX_NAME`
characters. So ``../x``, ``/etc/x``, ``a/b``, ``.hidden``, ``a\\nb`` and the empty name are refused.

`confined` is the second line of defence, used for every file ascverify writes into an output folder:
the path must stay inside the folder once symbolic links in its parent folders are resolved.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from ..spec.errors import InputError, one_line

#: Longest plain name: leaves room for ``.unspecified.npy`` and a temporary file's prefix and suffix within
#: the 255 bytes a file name may have on common file systems, even in a 3-byte-per-character script.
MAX_NAME = 64
_PLAIN = re.compile(r"\w[\w.+-]*\Z")


def plain_name_problem(name: Any) -> str | None:
    """Why ``name`` is not a plain name (None when it is)."""
    if not isinstance(name, str):
        return f"expected a string, got {type(name).__name__}"
    if not name:
        return "an empty name"
    if _PLAIN.match(name) is None:
        return "not a plain name (letters, digits, '_', '.', '-', '+', starting with a letter, digit or '_'; no " \
               "path separators)"
    if len(name) > MAX_NAME:
        return f"a name of {len(name)} characters (at most {MAX_NAME})"
    return None


def shown(name: Any) -> str:
    """``name`` quoted for a message, control characters escaped, cut to a readable length."""
    text = repr(name) if isinstance(name, str) else type(name).__name__
    return text if len(text) <= 80 else text[:77] + "..."


def check_plain_name(name: Any, field: str) -> str:
    """``name`` when it is plain; InputError naming ``field`` otherwise (the caller adds the file and case)."""
    problem = plain_name_problem(name)
    if problem is not None:
        raise InputError(problem if problem.startswith("expected") else f"is {problem}", field=field)
    return name


def check_tensor_names(tensors: Any, field: str = "tensors") -> None:
    """Every key of a program's ``tensors`` object is a plain name (they become file names under ``run -o``)."""
    if isinstance(tensors, dict):
        for name in tensors:
            if plain_name_problem(name) is not None:
                check_plain_name(name, f"{field}.{_field_key(name)}")


def _field_key(name: Any) -> str:
    return one_line(str(name))[:60]


class EscapeError(InputError):
    """A write that would land outside its output folder."""


def confined(root: Path | str, relative: str | os.PathLike[str]) -> Path:
    """``root / relative``, refused (EscapeError) unless it stays inside ``root``.

    ``relative`` is a relative path without ``..`` components; the resolved folder it lands in (symbolic
    links followed) must be ``root`` or inside it. The file itself may be a symbolic link: writers replace
    it (rename over it), never write through it.
    """
    root = Path(root)
    rel = Path(relative)
    if rel.is_absolute() or not rel.parts or any(p in ("..", ".", "") for p in rel.parts) or "\x00" in str(rel):
        raise EscapeError("refused: would write outside the output folder", where=_shown_path(root / rel))
    path = root / rel
    base = root.resolve()
    parent = path.parent.resolve()
    if parent != base and base not in parent.parents:
        raise EscapeError(f"refused: would write outside the output folder {_shown_path(base)} (into {_shown_path(parent)})",
                          where=_shown_path(path))
    return path


def _shown_path(p: Any) -> str:
    return one_line(str(p))
