"""Reference listings: products, support matrix, spec notes, rules, the case-file schema."""

from __future__ import annotations

from typing import Any, Sequence

import click

from ..cases.schema import case_schema
from ..engines.report import table_text
from ..spec.citations import cite
from ..spec.products import BUFFERS, BUFFER_ALIGNMENT, POSITION_BUFFER, PRODUCTS, PRODUCT_IDS
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


# -- listings ------------------------------------------------------------------------------------------------------

def _size(n: int) -> str:
    return str(n) if n else "-"


@main.command()
@FORMAT_OPTION
def products(fmt: str) -> None:
    """List the products: buffer sizes, vector length.

    Ids and aliases (any of them is accepted in a case file), the size in bytes of each
    physical buffer (`-`: the product has none), VL in bytes, and the TPosition -> buffer map.

    \b
    Examples:
      ascverify products
      ascverify products --format json
    """
    if fmt == "json":
        print_json({"products": [{"id": p.id, "aliases": list(p.aliases), "name": p.name, "arch": p.arch,
                             "buffers": {b: p.buffer_size(b) for b in BUFFERS}, "vector_length": p.vector_length,
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
    by_buffer: dict[str, list[str]] = {}
    for pos, buf in POSITION_BUFFER.items():
        by_buffer.setdefault(buf, []).append(pos)
    emit("TPosition -> buffer (start alignment):\n" + "".join(
        f"  {'/'.join(ps)} -> {buf} ({BUFFER_ALIGNMENT[buf]} bytes)\n" for buf, ps in by_buffer.items()))


@main.command()
@FORMAT_OPTION
def support(fmt: str) -> None:
    """Show the API x product support matrix.

    Each cell lists the element types T the API supports on the product (`-`: unsupported).

    \b
    Examples:
      ascverify support
      ascverify support --format json
    """
    models = apis()
    if fmt == "json":
        print_json({"products": list(PRODUCT_IDS),
               "apis": [{"api": m.name, "aliases": list(m.aliases), "source": cite(m.support_source or f"{m.seed} Applicability"),
                         "support": {p: list(m.support.get(p, ())) for p in PRODUCT_IDS}} for m in models]})
        return
    rows = [[m.name, *(", ".join(m.support.get(p, ())) or "-" for p in PRODUCT_IDS)] for m in models]
    emit("Supported element types per product\n" + table_text(["API", *PRODUCT_IDS], rows))



def _note_json(n: Any) -> dict[str, Any]:
    return {"id": n.id, "title": n.title, "reading": n.reading, "why": n.why,
            "sources": [cite(s) for s in n.sources], "seed_sources": list(n.sources), "rules": list(n.rules)}


def _related_rules(model: Any, note_id: str, declared: Sequence[str]) -> list[str]:
    """The rules a note names, and the rules that cite the note."""
    cited = [r.id for r in model.rules if note_id in r.notes]
    return list(dict.fromkeys([*declared, *cited]))


def _rule_notes(model: Any, rule: Any) -> list[str]:
    """The notes a rule cites, and the notes that name the rule."""
    naming = [n.id for n in model.notes if rule.id in n.rules]
    return list(dict.fromkeys([*rule.notes, *naming]))


@main.command()
@click.argument("api", required=False)
@FORMAT_OPTION
def notes(api: str | None, fmt: str) -> None:
    """List the spec notes (readings of unclear pages).

    A spec note records where the pages are silent or contradict each other, the reading the
    model takes, why, its sources, and the rules that depend on it.

    API (any accepted name) restricts the list to one model.

    \b
    Examples:
      ascverify notes
      ascverify notes BilinearInterpolation --format json
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
            lines.append(f"  {n.id}: {n.title}")
            lines.append(f"    reading: {n.reading}")
            lines.append(f"    why: {n.why}")
            if n.sources:
                lines.append(f"    sources: {'; '.join(cite(s) for s in n.sources)}")
            related = _related_rules(m, n.id, n.rules)
            if related:
                lines.append(f"    rules: {', '.join(related)}")
        lines.append("")
    emit(joined_lines(lines[:-1] if lines and not lines[-1] else lines))



@main.command()
@click.argument("api")
@click.option("--product", "product_name", metavar="P", help="Only the rules in force on product P.")
@FORMAT_OPTION
def rules(api: str, product_name: str | None, fmt: str) -> None:
    """List the rules of an API.

    Every rule: id, severity, the products it applies to, what it requires, its source in the
    documentation, and its spec notes.

    \b
    Examples:
      ascverify rules BilinearInterpolation
      ascverify rules BilinearInterpolation --product atlas-350 --format json
    """
    model = model_for(api)
    product = product_for(product_name) if product_name is not None else None
    selected = model.rules_for(product.id) if product is not None else model.rules
    if fmt == "json":
        print_json({"api": model.name, "product": product.id if product else None,
               "rules": [{"id": r.id, "severity": r.severity, "params": list(r.params),
                          "products": sorted(r.products) if r.products is not None else None,
                          "help": r.help or r.message, "message": r.message, "source": r.citation, "seed": r.source,
                          "kind": r.domain.get("kind", "custom"), "requires_data": list(r.requires_data),
                          "notes": _rule_notes(model, r)} for r in selected]})
        return
    on = f" on {product.id}" if product else ""
    lines = [f"{model.name}: {len(selected)} rules{on}"]
    for r in selected:
        where = "all products" if r.products is None else ", ".join(sorted(r.products))
        lines.append(f"{r.id}  {r.severity}  [{where}]")
        lines.append(f"    {r.help or r.message}")
        lines.append(f"    source: {r.citation}")
        if r.requires_data:
            lines.append(f"    needs data: {', '.join(r.requires_data)}")
        rule_notes = _rule_notes(model, r)
        if rule_notes:
            lines.append(f"    notes: {', '.join(rule_notes)}")
    emit(joined_lines(lines))


@main.command()
def schema() -> None:
    """Print the JSON Schema of case files.

    The schema (draft 2020-12) is generated from the registered APIs: one subschema per API,
    selected by the `api` name.

    \b
    Examples:
      ascverify schema > case.schema.json
    """
    print_json(case_schema())


