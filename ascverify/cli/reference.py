"""Reference listings: products, support matrix, spec notes, rules, the case-file schema."""

from __future__ import annotations

import shutil
import textwrap
from typing import Any, Sequence

from ..cases.schema import case_schema
from ..engines.report import table_text
from ..spec.citations import cite, prose, stored_source
from ..spec.products import BUFFERS, BUFFER_ALIGNMENT, POSITION_BUFFER, PRODUCTS, PRODUCT_IDS
from ..spec.errors import InputError
from ..spec.registry import apis
from .common import (
    FORMAT_OPTION,
    emit,
    is_terminal,
    joined_lines,
    main,
    model_for,
    print_json,
    product_for,
    rich_table,
)
from .options import api_argument, product_option, verbosity_options


# -- listings ------------------------------------------------------------------------------------------------------

def _size(n: int) -> str:
    return str(n) if n else "-"


@main.command()
@FORMAT_OPTION
@verbosity_options()
def products(fmt: str) -> None:
    """List the products: buffer sizes, vector length.

    Ids and aliases (any of them is accepted in a case file), the size in bytes of each
    buffer a kernel allocates (`-`: the product has none), the bytes the runtime keeps above
    it for the vendor library (atlas-350's UB), VL in bytes, and the TPosition -> buffer map.

    \b
    Examples:
      ascverify products
      ascverify products --format json

    Exit status: 0, or 2 for bad usage.
    """
    if fmt == "json":
        print_json({"products": [{"id": p.id, "aliases": list(p.aliases), "name": p.name, "arch": p.arch,
                             "buffers": {b: p.buffer_size(b) for b in BUFFERS}, "reserved": dict(p.reserved),
                             "vector_length": p.vector_length,
                             "notes": p.notes, "source": cite(p.source)} for p in PRODUCTS],
               "positions": {pos: {"buffer": buf, "alignment": BUFFER_ALIGNMENT[buf]}
                             for pos, buf in POSITION_BUFFER.items()}})
        return
    if is_terminal():  # KiB, names in a table of their own: both fit an 80-column terminal
        rows = [[p.id, p.arch, *(_size(p.buffer_size(b) // 1024) for b in BUFFERS), str(p.vector_length)]
                for p in PRODUCTS]
        rich_table(["id", "arch", *BUFFERS, "VL"], rows, "Products: buffer sizes in KiB, VL in bytes", "")
        names = [[p.id, p.name + (f" (aliases: {', '.join(p.aliases)})" if p.aliases else "")] for p in PRODUCTS]
        rich_table(["id", "name"], names, "", "name")
    else:  # bytes, the unit of `addr` in a case file
        headers = ["id", "aliases", "name", "arch", *BUFFERS, "VL"]
        rows = [[p.id, ", ".join(p.aliases) or "-", p.name, p.arch, *(_size(p.buffer_size(b)) for b in BUFFERS),
                 str(p.vector_length)] for p in PRODUCTS]
        emit("Products (buffer sizes and VL in bytes)\n" + table_text(headers, rows))
    reserved = [f"  {p.id}: {b} has {n} bytes above its {p.buffer_size(b)}: the vendor library's temporaries "
                f"(in bounds; a tensor there draws the warning PREFIX.TENSOR.reserved)\n"
                for p in PRODUCTS for b, n in p.reserved.items()]
    if reserved:
        emit("Reserved above a kernel's buffers:\n" + "".join(reserved))
    by_buffer: dict[str, list[str]] = {}
    for pos, buf in POSITION_BUFFER.items():
        by_buffer.setdefault(buf, []).append(pos)
    emit("TPosition -> buffer (start alignment):\n" + "".join(
        f"  {'/'.join(ps)} -> {buf} ({BUFFER_ALIGNMENT[buf]} bytes)\n" for buf, ps in by_buffer.items()))


@main.command()
@FORMAT_OPTION
@verbosity_options()
def support(fmt: str) -> None:
    """Show the API x product support matrix.

    Each cell lists the element types T the API supports on the product (`-`: unsupported). The
    table fits the terminal's width (COLUMNS, or 100 columns when not a terminal): long cells wrap.

    \b
    Examples:
      ascverify support
      ascverify support --format json

    Exit status: 0, or 2 for bad usage.
    """
    models = apis()
    if fmt == "json":
        print_json({"products": list(PRODUCT_IDS),
               "apis": [{"api": m.name, "aliases": list(m.aliases), "source": cite(m.support_source or f"{m.seed} Applicability"),
                         "support": {p: list(m.support.get(p, ())) for p in PRODUCT_IDS},
                         "not_modelled": {p: {"types": list(m.unmodelled_types.get(p, ())), "source": cite(src)}
                                          for p, src in m.unmodelled.items()}} for m in models]})
        return
    rows = [[m.name, *(_support_cell(m, p) for p in PRODUCT_IDS)] for m in models]
    width = _width()
    table = table_text(["API", *PRODUCT_IDS], rows)
    if max(len(line) for line in table.splitlines()) <= width:
        emit("Supported element types per product\n" + table)
        return
    emit("Supported element types per product\n"
         + "".join(_support_lines(m, width) for m in models))


def _width() -> int:
    """The terminal's width (COLUMNS when set; 100 when standard output is not a terminal)."""
    return max(40, shutil.get_terminal_size((100, 24)).columns)


def _support_kind(model: Any, product: str) -> tuple[int, tuple[str, ...]]:
    """0 and the types where the API is modelled, 1 and the documented types where it is accepted but not modelled
    (`ApiModel.unmodelled`), 2 where it is not supported."""
    if product in model.support:
        return 0, tuple(model.support[product])
    if product in model.unmodelled:
        return 1, tuple(model.unmodelled_types.get(product, ()))
    return 2, ()


def _support_cell(model: Any, product: str) -> str:
    kind, types = _support_kind(model, product)
    if kind == 1:
        return "not modelled" + (f" ({', '.join(types)})" if types else "")
    return ", ".join(types) or "-"


def _support_lines(model: Any, width: int) -> str:
    """One API's support as ``PRODUCTS: TYPES`` lines, products with the same types on one line, then the products
    where it is accepted but not modelled, then those without it, wrapped at ``width``."""
    groups: dict[tuple[int, tuple[str, ...]], list[str]] = {}
    for p in PRODUCT_IDS:
        groups.setdefault(_support_kind(model, p), []).append(p)
    lines = [model.name]
    for (kind, types), products in sorted(groups.items(), key=lambda g: g[0][0]):
        names = ", ".join(products)
        if kind == 0:
            text = f"{names}: {', '.join(types)}"
        elif kind == 1:
            text = (f"not modelled (accepted, the rules its page states there checked; `run` leaves its results "
                    f"unspecified): {names}" + (f": {', '.join(types)}" if types else ""))
        else:
            text = f"not supported: {names}"
        lines += textwrap.wrap(text, width, initial_indent="  ", subsequent_indent="      ", break_on_hyphens=False)
    return "\n".join(lines) + "\n"


def _note_json(n: Any) -> dict[str, Any]:
    return {"id": n.id, "title": prose(n.title), "reading": prose(n.reading), "why": prose(n.why),
            "sources": [cite(s) for s in n.sources], "seed_sources": [stored_source(s) for s in n.sources],
            "rules": list(n.rules)}


def _related_rules(model: Any, note_id: str, declared: Sequence[str]) -> list[str]:
    """The rules a note names, and the rules that cite the note."""
    cited = [r.id for r in model.rules if note_id in r.notes]
    return list(dict.fromkeys([*declared, *cited]))


def _rule_notes(model: Any, rule: Any) -> list[str]:
    """The notes a rule cites, and the notes that name the rule."""
    naming = [n.id for n in model.notes if rule.id in n.rules]
    return list(dict.fromkeys([*rule.notes, *naming]))


@main.command()
@api_argument(required=False)
@FORMAT_OPTION
@verbosity_options()
def notes(api: str | None, fmt: str) -> None:
    """List the spec notes (readings of unclear pages).

    A spec note records where the pages are silent or contradict each other, the reading the
    model takes, why, its sources, and the rules that depend on it.

    API (any accepted name) restricts the list to one model.

    \b
    Examples:
      ascverify notes
      ascverify notes BilinearInterpolation --format json

    Exit status: 0, or 2 for an unknown API.
    """
    models = (model_for(api),) if api is not None else apis()
    if fmt == "json":
        print_json({"apis": [{"api": m.name, "notes": [dict(_note_json(n), rules=_related_rules(m, n.id, n.rules))
                                                  for n in m.notes]} for m in models]})
        return
    lines: list[str] = []
    for m in models:
        lines.append(f"{m.name} ({len(m.notes)} spec notes)")
        for n in m.notes:
            lines.append(f"  {n.id}: {prose(n.title)}")
            lines.append(f"    reading: {prose(n.reading)}")
            lines.append(f"    why: {prose(n.why)}")
            if n.sources:
                lines.append(f"    sources: {'; '.join(cite(s) for s in n.sources)}")
            related = _related_rules(m, n.id, n.rules)
            if related:
                lines.append(f"    rules: {', '.join(related)}")
        lines.append("")
    emit(joined_lines(lines[:-1] if lines and not lines[-1] else lines))



@main.command()
@api_argument(required=False)
@product_option("Only the rules in force on PRODUCT.", dest="product_name")
@FORMAT_OPTION
@verbosity_options()
def rules(api: str | None, product_name: str | None, fmt: str) -> None:
    """List the rules of an API (without API: the APIs and how many rules each has).

    Every rule: id, severity, the products it applies to, what it requires, its source in the
    documentation, and its spec notes.

    \b
    Examples:
      ascverify rules
      ascverify rules BilinearInterpolation
      ascverify rules block_reduce_min -p atlas-350 --format json

    Exit status: 0, or 2 for an unknown API or product.
    """
    if api is None:
        _api_list(fmt, product_for(product_name) if product_name is not None else None)
        return
    model = model_for(api)  # an unknown API: the one message every command gives
    product = product_for(product_name) if product_name is not None else None
    if product is not None and product.id not in model.support and product.id not in model.unmodelled:
        raise InputError(f"{model.name} is not supported on {product.id} (supported: "
                         f"{', '.join(model.supported_products())})", field="--product")
    selected = model.rules_for(product.id) if product is not None else model.rules
    # a bound that depends on the product and type is given for each type the product supports (where the API is
    # documented but not modelled: the types documented there, else the default one)
    contexts = ([model.context(product.id, t) for t in model.documented_types(product.id, model.default_dtype)]
                if product is not None else [])
    if fmt == "json":
        print_json({"api": model.name, "product": product.id if product else None,
               "rules": [{"id": r.id, "severity": r.severity, "params": list(r.params),
                          "products": sorted(r.products) if r.products is not None else None,
                          "help": r.requirement(contexts), "message": r.message, "source": r.citation,
                          "seed": stored_source(r.source),
                          "kind": r.domain.get("kind", "custom"), "requires_data": list(r.requires_data),
                          "notes": _rule_notes(model, r)} for r in selected]})
        return
    on = f" on {product.id}" if product else ""
    lines = [f"{model.name}: {len(selected)} rules{on}"]
    for r in selected:
        where = "all products" if r.products is None else ", ".join(sorted(r.products))
        lines.append(f"{r.id}  {r.severity}  [{where}]")
        lines.append(f"    {r.requirement(contexts)}")
        lines.append(f"    source: {r.citation}")
        if r.requires_data:
            lines.append(f"    needs data: {', '.join(r.requires_data)}")
        rule_notes = _rule_notes(model, r)
        if rule_notes:
            lines.append(f"    notes: {', '.join(rule_notes)}")
    emit(joined_lines(lines))


def _api_list(fmt: str, product: Any = None) -> None:
    """The APIs, their other names and their rule counts (`rules` without an API); with a product, the APIs it
    supports and the rules in force there."""
    models = [m for m in apis() if product is None or product.id in m.support]

    def count(m: Any) -> int:
        return len(m.rules_for(product.id) if product is not None else m.rules)

    if fmt == "json":
        print_json({"product": product.id if product is not None else None,
                    "apis": [{"api": m.name, "aliases": list(m.aliases), "rules": count(m),
                              "products": list(m.supported_products())} for m in models]})
        return
    rows = [[m.name, ", ".join(m.aliases) or "-", str(count(m))] for m in models]
    title = f"APIs on {product.id}" if product is not None else "APIs"
    emit(f"{title} (ascverify rules API lists an API's rules)\n" + table_text(["API", "other names", "rules"], rows))


@main.command()
@verbosity_options()
def schema() -> None:
    """Print the JSON Schema of case files.

    The schema (draft 2020-12) is generated from the registered APIs: one subschema per API,
    selected by the `api` name.

    \b
    Examples:
      ascverify schema > case.schema.json

    Exit status: 0 (141 when standard output is closed early, as for every command).
    """
    print_json(case_schema())


