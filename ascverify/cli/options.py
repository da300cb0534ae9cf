"""The options every command shares, defined once: one name, one metavar, one unit, one meaning.

``-p/--product PRODUCT``, ``--workers N``, ``--timeout SECONDS``, ``-v/--verbose``, ``-q/--quiet``,
``-o/--output``; API arguments and product names complete in the shell (click's ``shell_complete``:
``eval "$(_ASCVERIFY_COMPLETE=bash_source ascverify)"``). Older spellings (``-j/--jobs``,
``--timeout-ms``) stay accepted, hidden, with a deprecation note on standard error. The table of all
options and exit statuses is docs/cli.md.
"""

from __future__ import annotations

import functools
import inspect
import math
import os
import sys
from typing import Any, Callable

import click
from click.shell_completion import CompletionItem

from ..engines.interrupts import MAX_TIMEOUT
from ..spec.products import PRODUCTS
from ..spec.registry import apis
from .common import emit_error, set_verbosity

#: Metavars, the same in every command's help.
PRODUCT_METAVAR = "PRODUCT"
API_METAVAR = "API"


# -- shell completion -------------------------------------------------------------------------------------------------

def complete_product(ctx: click.Context, param: click.Parameter, incomplete: str, *, with_all: bool = False
                     ) -> list[CompletionItem]:
    """Product ids (and aliases when the prefix matches one) starting with ``incomplete``."""
    low = incomplete.lower()
    out = [CompletionItem(p.id, help=p.name) for p in PRODUCTS if p.id.startswith(low)]
    ids = {c.value for c in out}
    out += [CompletionItem(a, help=p.name) for p in PRODUCTS for a in p.aliases
            if a.lower().startswith(low) and a not in ids and low]
    if with_all and "all".startswith(low):
        out.append(CompletionItem("all", help="every product"))
    return out


def complete_api(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[CompletionItem]:
    """API names (documented names, then pyasc names) starting with ``incomplete`` (case-insensitive)."""
    low = incomplete.lower()
    out = []
    for m in apis():
        for name in (m.name, *m.aliases):
            if name.lower().startswith(low):
                out.append(CompletionItem(name, help=m.name if name != m.name else None))
    return out


# -- the shared options -----------------------------------------------------------------------------------------------

def product_option(help: str, *, required: bool = False, multiple: bool = False, with_all: bool = False,
                   dest: str = "product") -> Callable:
    """``-p/--product PRODUCT`` (``PRODUCT|all`` where ``with_all``), completed in the shell."""
    return click.option("-p", "--product", dest, required=required, multiple=multiple,
                        metavar=PRODUCT_METAVAR + ("|all" if with_all else ""), help=help,
                        shell_complete=functools.partial(complete_product, with_all=with_all))


def api_argument(name: str = "api", *, nargs: int = 1, required: bool = True) -> Callable:
    """The API argument (``API`` or ``[API]...``), completed in the shell."""
    metavar = API_METAVAR if nargs == 1 else f"[{API_METAVAR}]..."
    if nargs == 1 and not required:
        metavar = f"[{API_METAVAR}]"
    return click.argument(name, nargs=nargs, required=required, metavar=metavar, shell_complete=complete_api)


def deprecated(old: str, new: str) -> None:
    """One line on standard error when it is a terminal (a person can act on it; scripts and logs stay as they
    were): ``old`` still works, ``new`` is the name to use. docs/cli.md lists the old names."""
    try:
        interactive = sys.stderr.isatty()
    except (AttributeError, ValueError):
        interactive = False
    if interactive:
        emit_error(f"ascverify: note: {old} is deprecated; use {new}")


def usable_cores() -> int:
    """The CPU cores this process may run on: its affinity mask where the system has one (``taskset``, a
    container's cpuset), else every core of the machine (``os.cpu_count()`` alone counts cores it may not use)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # no affinity masks here (macOS, Windows)
        return os.cpu_count() or 1


#: The most worker processes a command starts (more would only wait for cores and file descriptors: a campaign of
#: 10**20 workers split its work into that many parts before starting any).
MAX_WORKERS = 256


def workers_option(default: int, why: str = "") -> Callable:
    """``--workers N`` (0: one per usable CPU core, `usable_cores`); the hidden ``-j/--jobs N`` of older versions
    means the same. The command receives the count resolved: never 0."""

    def deco(f: Callable) -> Callable:
        @functools.wraps(f)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            old = kwargs.pop("jobs_alias", None)
            if old is not None:
                deprecated("-j/--jobs", "--workers")
                if click.get_current_context().get_parameter_source("workers") != \
                        click.core.ParameterSource.COMMANDLINE:
                    kwargs["workers"] = old
            kwargs["workers"] = kwargs["workers"] or usable_cores()
            return f(*args, **kwargs)

        wrapper = click.option("-j", "--jobs", "jobs_alias", type=click.IntRange(0, MAX_WORKERS), default=None,
                               hidden=True, metavar="N")(wrapper)
        wrapper.__click_params__[-1].alias_of = "workers"  # `--workers 2 --jobs 3`: one option given twice
        return click.option("--workers", type=click.IntRange(0, MAX_WORKERS), default=default, show_default=True,
                            metavar="N", help=f"Worker processes (0: one per CPU core this process may use; at most "
                                              f"{MAX_WORKERS})."
                                 + (f" {why}" if why else ""))(wrapper)

    return deco


def timeout_option(help: str, *, default: float | None = None, dest: str = "timeout") -> Callable:
    """``--timeout SECONDS`` (a float); the hidden ``--timeout-ms MS`` of older versions means the same."""

    def deco(f: Callable) -> Callable:
        @functools.wraps(f)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            old = kwargs.pop("timeout_ms_alias", None)
            if old is not None:
                deprecated("--timeout-ms MS", "--timeout SECONDS")
                if click.get_current_context().get_parameter_source(dest) != click.core.ParameterSource.COMMANDLINE:
                    kwargs[dest] = old / 1000.0
            return f(*args, **kwargs)

        wrapper = click.option("--timeout-ms", "timeout_ms_alias", type=click.IntRange(min=1), default=None,
                               hidden=True, metavar="MS")(wrapper)
        wrapper.__click_params__[-1].alias_of = dest  # `--timeout 1 --timeout-ms 5`: one option given twice
        return click.option("--timeout", dest, type=FiniteFloatRange(min=0.001, max=MAX_TIMEOUT), default=default,
                            show_default=default is not None, metavar="SECONDS", help=help)(wrapper)

    return deco


class FiniteFloatRange(click.FloatRange):
    """A float option within its range and finite: ``nan`` and ``inf``, which Python's float() reads and a range
    does not refuse (NaN compares false with any bound), are a usage error (exit 2)."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:  # noqa: D102
        got = super().convert(value, param, ctx)
        if not math.isfinite(got):
            self.fail(f"{value!r} is not a finite number.", param, ctx)
        return got


def verbosity_options(verbose_help: str = "Accepted by every command (docs/cli.md); this one prints nothing more.",
                      quiet_help: str = "Print no summary or progress on standard error (errors still print).") -> Callable:
    """``-v/--verbose`` and ``-q/--quiet`` (with both, -q wins). The function receives ``verbose`` and ``quiet``
    only when its signature names them; either way `ascverify.cli.common.quiet` tells whether summaries print."""

    def deco(f: Callable) -> Callable:
        names = set(inspect.signature(f).parameters)

        @functools.wraps(f)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            verbose, quiet = kwargs.pop("verbose"), kwargs.pop("quiet")
            set_verbosity(-1 if quiet else 1 if verbose else 0)
            if "verbose" in names:
                kwargs["verbose"] = verbose and not quiet
            if "quiet" in names:
                kwargs["quiet"] = quiet
            return f(*args, **kwargs)

        wrapper = click.option("-q", "--quiet", is_flag=True, help=quiet_help)(wrapper)
        return click.option("-v", "--verbose", is_flag=True, help=verbose_help)(wrapper)

    return deco
