"""The ``ascverify`` command line.

Exit status of every command: 0 clean, 1 problems found (a rule broken, a fault), 2 the input could
not be read (a one-line message naming the file and the field), 3 an internal error (a bug of
ours: one line, or the traceback with ``ascverify --debug``). Results go to standard output,
input errors and summaries to standard error.

A command is one function decorated with ``@main.command()``; raise `InputError` for bad input and
let anything else propagate: the group turns both into the exit statuses above.

Each command lives in its own module and registers itself on `main` when imported. The modules are imported
when a command is looked up (`COMMAND_MODULES` names the module of each command): ``ascverify check`` imports
the check command only, not the generator's, the fuzzer's or the simulator's (startup time). Listing the
commands (``--help``, completion, iterating ``main.commands``) imports them all.
"""

from __future__ import annotations

import importlib
from typing import Any, Iterator

from .common import main

#: Command name -> the module of this package that defines it (and registers it on `main` when imported).
COMMAND_MODULES: dict[str, str] = {
    "check": "check_cmd",
    "decode": "codec_cmd", "encode": "codec_cmd",
    "diff-products": "lint_cmd", "lint": "lint_cmd",
    "explain": "explain_cmd", "fix": "explain_cmd",
    "fuzz": "fuzz_cmd", "replay": "fuzz_cmd", "selftest": "fuzz_cmd",
    "gen": "gen_cmd",
    "notes": "reference", "products": "reference", "rules": "reference", "schema": "reference", "support": "reference",
    "run": "run_cmd",
    "show": "show_cmd",
    "synth": "synth_cmd",
}


class _LazyCommands(dict):
    """`main.commands`: a command's module is imported when the command is first looked up; iterating imports
    every command module (so listings, help and completion see every command)."""

    def _load(self, name: Any) -> None:
        module = COMMAND_MODULES.get(name) if isinstance(name, str) else None
        if module is not None and not dict.__contains__(self, name):
            importlib.import_module(f"{__name__}.{module}")

    def _load_all(self) -> None:
        for name in COMMAND_MODULES:
            self._load(name)

    def get(self, name: Any, default: Any = None) -> Any:
        self._load(name)
        return dict.get(self, name, default)

    def __getitem__(self, name: Any) -> Any:
        self._load(name)
        return dict.__getitem__(self, name)

    def __contains__(self, name: Any) -> bool:
        self._load(name)
        return dict.__contains__(self, name)

    def __iter__(self) -> Iterator[Any]:
        self._load_all()
        return dict.__iter__(self)

    def __len__(self) -> int:
        self._load_all()
        return dict.__len__(self)

    def keys(self) -> Any:
        self._load_all()
        return dict.keys(self)

    def values(self) -> Any:
        self._load_all()
        return dict.values(self)

    def items(self) -> Any:
        self._load_all()
        return dict.items(self)


main.commands = _LazyCommands(main.commands)

__all__ = ["COMMAND_MODULES", "main"]
