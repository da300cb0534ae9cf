"""`fuzz --config FILE`: a campaign file read key by key, each value checked as its option checks it.

A campaign file may be someone else's (a pull request's ``ci/campaign.toml``): every error names the file and the
key (``campaign.toml: --config: timeout: ...``), the files it writes stay under the current folder, and an
existing file there is replaced only when ascverify wrote it (`check_config_writes`).
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any, Callable, Iterable

import click

from ..cases.sources import read_bytes
from ..engines.outputs import is_stdout
from ..engines.own_reports import written_by_ascverify
from ..spec.errors import InputError, did_you_mean, one_line
from .common import model_for, product_for

#: Keys a campaign file may set: each is an option of `ascverify fuzz` (``apis`` is the API argument), by the
#: type of value it holds in the file. Checked before click converts them: click would take a seed of 1.5 as 1
#: and a list as a file name.
CONFIG_TYPES: dict[str, str] = {
    **dict.fromkeys(("apis", "product", "kind"), "names"),
    **dict.fromkeys(("target", "target_cmd", "junit", "report", "findings", "database", "shard"), "text"),
    **dict.fromkeys(("examples", "seed", "workers"), "integer"),
    **dict.fromkeys(("time", "rtol", "atol", "error_ratio", "timeout"), "number"),
    **dict.fromkeys(("shrink", "coverage", "quiet", "exact", "keep_unspecified"), "flag"),
}
CONFIG_KEYS = tuple(CONFIG_TYPES)

#: Campaign-file keys naming what the campaign writes: a file or folder under the folder the command runs in.
CONFIG_WRITES = ("junit", "report", "findings", "database")

#: Campaign-file keys naming one file the campaign writes whole (replacing what is there: `check_config_writes`).
CONFIG_FILES = ("report", "junit")

#: Campaign-file keys naming code to run: it runs only with --config-target.
CONFIG_TARGETS = ("target", "target_cmd")

#: The largest campaign file read (one is a few lines of options).
CONFIG_MAX_BYTES = 1 << 20

#: Campaign-file keys whose option stores under another name.
PARAM_NAMES = {"time": "seconds"}


def read_config(path: str, command: click.Command | None = None) -> dict[str, Any]:
    """The options a campaign file sets (TOML, or JSON), by parameter name; InputError naming the file and the key
    for anything else: a file that is not a regular file or is over `CONFIG_MAX_BYTES`, an unknown key, a value of
    the wrong type, a path to write outside the current folder; with ``command`` (the command whose options the
    keys set), also a value its option refuses (out of range, an unknown API, product or kind)."""
    doc = _parsed(path)
    out: dict[str, Any] = {}
    for key, value in doc.items():
        k = str(key).replace("-", "_")
        k = {"api": "apis", "products": "product", "kinds": "kind"}.get(k, k)
        if k not in CONFIG_TYPES:
            raise InputError(f"unknown option {key!r}{did_you_mean(k, CONFIG_KEYS)}", where=path, field="--config")
        if k in ("apis", "product", "kind") and isinstance(value, str):
            value = [value]
        _check_config_value(k, value, path)
        if command is not None:
            _check_as_option(k, value, path, command)
        out[PARAM_NAMES.get(k, k)] = value
    return out


def _parsed(path: str) -> dict[str, Any]:
    """The table of options of a campaign file (its ``[fuzz]`` table when it has one)."""
    try:
        text = read_bytes(path, CONFIG_MAX_BYTES).decode("utf-8")
    except InputError as exc:
        raise InputError(exc.message, where=path, field="--config") from None
    except UnicodeDecodeError as exc:
        raise InputError(f"not UTF-8 text (byte {exc.start})", where=path, field="--config") from None
    try:
        if Path(path).suffix.lower() == ".json":
            try:
                doc = json.loads(text, object_pairs_hook=_no_repeated_keys)  # as TOML refuses a key given twice
            except InputError as exc:
                raise InputError(exc.message, where=path, field="--config") from None
        else:
            try:
                import tomllib
            except ImportError:  # Python 3.10
                raise InputError("TOML campaign files need Python 3.11 (use a .json file)", where=path,
                                 field="--config") from None
            doc = tomllib.loads(text)
    except InputError:
        raise
    except Exception as exc:  # noqa: BLE001 - a malformed file is bad input
        raise InputError(f"cannot parse: {one_line(str(exc))[:200]}", where=path, field="--config") from None
    if isinstance(doc, dict) and isinstance(doc.get("fuzz"), dict):
        others = [k for k in doc if k != "fuzz"]
        if others:  # a table beside [fuzz] would be read by nothing, silently (audit 20)
            raise InputError(f"unknown key {others[0]!r} beside the [fuzz] table", where=path, field="--config")
        doc = doc["fuzz"]
    if not isinstance(doc, dict):
        raise InputError("expected a table of options", where=path, field="--config")
    return doc


def _no_repeated_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object of a campaign file; InputError when it gives a key twice (the last one would win unsaid)."""
    out: dict[str, Any] = {}
    for k, v in pairs:
        if k in out:
            raise InputError(f"the key {k!r} is given twice")
        out[k] = v
    return out


#: Per kind of campaign-file value: whether a value is one, and its name in messages.
_CONFIG_KINDS: dict[str, tuple[Callable[[Any], bool], str]] = {
    "names": (lambda v: isinstance(v, list) and all(isinstance(x, str) for x in v), "a name or a list of names"),
    "text": (lambda v: isinstance(v, str), "a string"),
    "integer": (lambda v: type(v) is int, "an integer"),
    "number": (lambda v: type(v) is int or (type(v) is float and math.isfinite(v)), "a finite number"),
    "flag": (lambda v: type(v) is bool, "true or false"),
}


def _check_config_value(key: str, value: Any, path: str) -> None:
    """A campaign-file value of the type its key holds; a path to write is under the current folder."""
    holds, wanted = _CONFIG_KINDS[CONFIG_TYPES[key]]
    if not holds(value):
        shown = json.dumps(value, default=str)  # as the file spells it (TOML's dates: their text)
        raise InputError(f"{key}: expected {wanted}, got {one_line(shown)[:80]}", where=path, field="--config")
    if key in CONFIG_WRITES and value == "":  # not "none": an empty name would turn saving off without a word
        raise InputError(f"{key}: an empty path: give a file or folder name", where=path, field="--config")
    if any("\x00" in v for v in (value if isinstance(value, list) else [value]) if isinstance(v, str)):
        raise InputError(f"{key}: holds a NUL character (no file name, command or name does)", where=path,
                         field="--config")
    # here, as the command's other engine imports: `fuzz --help` and `replay` start without Hypothesis and Z3
    from ..engines.fuzz.database import is_redis, no_database

    if key in CONFIG_WRITES and not (key == "database" and (is_redis(value) or no_database(value))):
        here = Path.cwd().resolve()
        if Path(value).is_absolute() or not (here / value).resolve().is_relative_to(here):
            raise InputError(f"{key}: {value!r} is not under the current folder: a campaign file writes only there "
                             "(give the path on the command line to write elsewhere)", where=path, field="--config")


def _check_as_option(key: str, value: Any, path: str, command: click.Command) -> None:
    """``value`` is one its option takes: the option's own type (its range, its choices: the bounds are the
    option's declaration, not repeated here), or a known API or product name; InputError naming the file and the
    key otherwise (not the option: the user did not type it)."""
    name = PARAM_NAMES.get(key, key)
    param = next((p for p in command.params if p.name == name), None)
    values = value if isinstance(value, list) else [value]
    try:
        for v in values:
            if key == "apis":
                model_for(v)
            elif key == "product":
                product_for(v)
            elif param is not None:
                param.type.convert(v, param, None)
    except InputError as exc:
        raise InputError(f"{key}: {exc.message}", where=path, field="--config") from None
    except click.BadParameter as exc:
        raise InputError(f"{key}: {exc.message.rstrip('.')}", where=path, field="--config") from None


def check_config_writes(campaign_file: str, writes: Iterable[tuple[str, str | None]]) -> None:
    """Each file a campaign file names to write (``(key, path)``) is new, or a report ascverify wrote earlier
    (`written_by_ascverify`: the marker its writer puts first); InputError naming the campaign file, the key and the
    path otherwise: a campaign file may be someone else's, and would replace a source file or ``.git/config``."""
    for key, path in writes:
        if path and not is_stdout(path) and os.path.lexists(path) and not written_by_ascverify(path):
            raise InputError(f"{key}: {one_line(path)!r} exists and is not a report ascverify wrote: a campaign file "
                             "replaces none of your files (remove it, or give the path on the command line)",
                             where=campaign_file, field="--config")
