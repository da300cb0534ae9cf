"""Writing a picture or a page: one file, atomically, never over an input of the command."""

from __future__ import annotations

from pathlib import Path

from ..outputs import Inputs, check_file_path, is_stdout, make_dir, write_named_file


def check_path(path: str, field: str, inputs: Inputs | None = None, *, probe: bool = False) -> Path:
    """``path`` can be written (see ``outputs.check_file_path``; ``probe``: a file is created and removed in its
    folder, before a long run): a picture or page never overwrites an input."""
    return check_file_path(path, field, inputs, probe=probe)


def write_file(path: str, data: bytes, field: str, inputs: Inputs | None = None) -> None:
    """Write ``data`` to ``path`` (its folder created; ``-``: standard output), through a temporary file and a rename (`write_named_file`:
    a device or a link the user named is written through, never replaced)."""
    p = check_path(path, field, inputs)
    if not is_stdout(path):
        make_dir(p.parent if str(p.parent) else Path("."), field=field)
    write_named_file(p, lambda f: f.write(data))
