"""Writing a picture or a page: one file, atomically, never over an input of the command."""

from __future__ import annotations

import os
from pathlib import Path

from ..outputs import Inputs, OutputError, atomic_write, make_dir, os_error, shown


def check_path(path: str, field: str, inputs: Inputs | None = None) -> Path:
    """``path`` can be written: not a folder, not an input (the case file, its data), its name not too long;
    OutputError (one line, exit status 2) otherwise. Checked before the work that fills it."""
    p = Path(path)
    if not p.name or len(os.fsencode(p.name)) > 255:
        raise OutputError("cannot write: not a file name" if not p.name else
                          f"cannot write: File name too long ({len(os.fsencode(p.name))} bytes)",
                          where=shown(path), field=field)
    try:
        if p.is_dir():
            raise OutputError("is a folder; give the path of a file", where=shown(path), field=field)
        for parent in (p.parent, *p.parent.parents):
            if parent.exists():
                if not parent.is_dir():
                    raise OutputError(f"cannot write: {shown(parent)} is not a folder", where=shown(path), field=field)
                break
    except OSError as exc:
        raise os_error(exc, path, field=field) from None
    what = inputs.which(p) if inputs is not None else None
    if what:
        raise OutputError(f"is {what}: an input is never overwritten; choose another file", where=shown(path),
                          field=field)
    return p


def write_file(path: str, data: bytes, field: str, inputs: Inputs | None = None) -> None:
    """Write ``data`` to ``path`` (its folder created), through a temporary file and a rename."""
    p = check_path(path, field, inputs)
    make_dir(p.parent if str(p.parent) else Path("."), field=field)
    atomic_write(p, lambda f: f.write(data))
