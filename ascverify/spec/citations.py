"""Citations users can follow: a rule's source as the documentation page's title and section, in English.

Models cite their sources the way they were found (``"000_f2fe3f8fa92b9dd9.txt Table 2, vROffset"``,
``"003_… 约束说明"``, ``"HARDWARE_NOTES.md Masks (vector ops)"``): exact, traceable to the seed
pages, but meaningless to a user who has only the vendor's documentation. `cite` renders such a
source as ``"BilinearInterpolation, Parameters: vROffset"``: the page by its title, tables by their
captions, Chinese headings in English. The raw source stays available (``rules --format json``
shows both).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Mapping

__all__ = ["Page", "PAGES", "HARDWARE_NOTES_TITLE", "cite", "page_title", "prose", "stored_source"]


@dataclass(frozen=True)
class Page:
    """One documentation page: its title and its tables' captions (by number)."""

    title: str
    tables: Mapping[str, str] = field(default_factory=dict)


#: The seed pages ascverify models, by file name: the title a user finds them under.
PAGES: dict[str, Page] = {
    "000_f2fe3f8fa92b9dd9.txt": Page("BilinearInterpolation", {"1": "Template parameters", "2": "Parameters"}),
    "001_fa274d527d3e292b.txt": Page("Moving Data into MaskReg (LoadAlign, MaskGenWithRegTensor)", {
        "1": "Parameters (AddrReg offset)", "2": "Parameters (POST_MODE_NORMAL)",
        "3": "Parameters (POST_MODE_UPDATE)", "4": "Parameters (RegTensor into MaskReg)"}),
    "002_70a359bc6af47a68.txt": Page("Load3DBitMode (LoadData)", {
        "1": "Template parameters", "2": "Common parameters", "3": "Load3DBitModeParam",
        "4": "Load3DBitModeConfig0", "5": "Load3DBitModeConfig1"}),
    "003_6cb328d34acb8cee.txt": Page("SetLoadDataRepeatWithStride", {
        "1": "Parameters", "2": "LoadDataRepeatParamWithStride"}),
    "004_2ad9555534615f32.txt": Page("asc.language.basic.block_reduce_min (pyasc)"),
}

#: How the facts the pages leave out are cited (the file ships as docs/hardware-notes.md).
HARDWARE_NOTES_TITLE = "ascverify hardware notes (docs/hardware-notes.md)"

#: Chinese headings and phrases of the pages, in English (longest first when applied).
PHRASES: dict[str, str] = {
    "对应的Ascend C函数原型": "Corresponding Ascend C prototype",
    "产品支持情况": "Product support",
    "功能说明": "Description",
    "函数原型": "Prototype",
    "参数说明": "Parameters",
    "约束说明": "Restrictions",
    "调用示例": "Example",
    "返回值说明": "Returns",
    "地址重叠": "address overlap",
    "计算后的目的操作数数据不能覆盖未参与计算的源操作数":
        "the destination written must not overwrite source data still to be used",
    "调用LoadDataWithStride接口时，必须配置本接口中的dstStride参数":
        "dstStride must be configured before LoadDataWithStride is called",
    "repeatTime=0: NOP": "repeatTime=0: no operation",
    "通用说明和约束-通用地址对齐约束": "General Address Alignment Restrictions",
    "通用地址对齐约束": "General Address Alignment Restrictions",
    "表": "Table ",
}

#: Section headings after which a parameter name follows (``Parameters, src`` -> ``Parameters: src``).
_HEADINGS = ("Parameters", "Restrictions", "Corresponding Ascend C prototype", "Product support", "Description",
             "Example", "Prototype")

#: Patterns as strings, compiled by `re` on first use (its cache): `check` starts without compiling them.
_SEED = r"\b(\d{3}_[0-9a-f]{16}\.txt)"
_TABLE = r"^(?:Table |表)(\d+)(?:,\s*|\s+)?"
_CJK = r"[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]"


def page_title(seed: str) -> str:
    """The title of the page stored as ``seed`` (the file name itself when unknown)."""
    page = PAGES.get(seed)
    return page.title if page else seed


def _translate(text: str) -> str:
    for zh in sorted(PHRASES, key=len, reverse=True):
        text = text.replace(zh, PHRASES[zh])
    return text.replace("，", ", ").replace("：", ": ").replace("（", " (").replace("）", ")")


def _section(page: Page, rest: str) -> str:
    """A page's section: ``Table 2, vROffset`` -> ``Parameters: vROffset``; other tables by caption too."""
    m = re.match(_TABLE, rest)
    if m and m.group(1) in page.tables:
        caption = page.tables[m.group(1)]
        tail = rest[m.end():]
        if tail.startswith(caption):
            tail = tail[len(caption):].lstrip(", ")
        return f"{caption}: {tail}" if tail else caption
    return re.sub(r"\b(?:Table |表)(\d+)\b",
                  lambda mm: page.tables.get(mm.group(1), mm.group(0)), rest)


def _headed(text: str) -> str:
    """``Parameters, src`` / ``Parameters src`` -> ``Parameters: src`` (a heading, then the name it is about)."""
    for h in _HEADINGS:
        text = re.sub(rf"\b{re.escape(h)}(?:, | )(?=[A-Za-z_])", f"{h}: ", text)
    return text


def _piece(piece: str, previous: str = "") -> tuple[str, str]:
    """One source rendered, and the page it is on (``previous``: the page of the source before it, not repeated)."""
    piece = piece.strip()
    head = ""
    m = re.match(_SEED, piece)
    if m:
        page = PAGES.get(m.group(1), Page(m.group(1)))
        rest = _section(page, piece[m.end():].strip())
        head = page.title
        piece = rest if head == previous and rest else f"{head}, {rest}" if rest else head
    elif piece.startswith("HARDWARE_NOTES.md"):
        rest = piece[len("HARDWARE_NOTES.md"):].strip()
        head = HARDWARE_NOTES_TITLE
        piece = rest if head == previous and rest else f"{head}, {rest}" if rest else head
    # a page or the notes named inside a remark
    piece = re.sub(_SEED, lambda mm: page_title(mm.group(1)), piece)
    piece = piece.replace("HARDWARE_NOTES.md", "hardware notes")
    return _headed(_translate(piece)), head


#: The file the hardware notes ship as (sources name the development workspace's HARDWARE_NOTES.md).
HARDWARE_NOTES_FILE = "docs/hardware-notes.md"


def stored_source(source: str) -> str:
    """``source`` with the file names as they are stored: the pages' files as sources name them, the hardware notes
    as the file this repository ships (``rules --format json``'s ``seed``)."""
    return re.sub(r"\bHARDWARE_NOTES\.md\b", HARDWARE_NOTES_FILE, source)


@lru_cache(maxsize=4096)
def cite(source: str) -> str:
    """``source`` as users read it: pages by title and section, in English; ``;`` separates sources."""
    out, previous = [], ""
    for p in source.split(";"):
        if p.strip():
            text, previous = _piece(p, previous)
            out.append(text)
    return "; ".join(out)


#: ``page 002``, ``Page 000's``, ``page 002 Tables 4-5``, ``pages 000 and 004``: a seed page named by its number in
#: a note's prose.
_PAGE_NUMBER = r"\b([Pp])age (\d{3})(?![_\d])('s)?((?: Tables? \d+(?:(?:-|, | and )\d+)*)?)"
_PAGES_NUMBERS = r"\b([Pp])ages (\d{3}) and (\d{3})\b"
_NOTES_NAMED = r"(\b[Tt]he )?HARDWARE_NOTES(?:\.md)?"


def _page_by_number(number: str) -> Page | None:
    for seed, page in PAGES.items():
        if seed.startswith(number + "_"):
            return page
    return None


def prose(text: str) -> str:
    """A spec note's or a message's prose as users read it: pages named by their number (``page 002``) or file by
    their title, the hardware notes by their name, Chinese headings in English. Citations use `cite`."""
    text = re.sub(_SEED, lambda m: f"the {page_title(m.group(1))} page", text)

    def pages(m: re.Match) -> str:
        a, b = _page_by_number(m.group(2)), _page_by_number(m.group(3))
        if a is None or b is None:
            return m.group(0)
        return f"{'T' if m.group(1) == 'P' else 't'}he {a.title} and {b.title} pages"

    def page(m: re.Match) -> str:
        found = _page_by_number(m.group(2))
        if found is None:
            return m.group(0)
        tables = m.group(4).strip()
        return (f"{'T' if m.group(1) == 'P' else 't'}he {found.title} page{m.group(3) or ''}"
                + (f" ({tables})" if tables else ""))

    def notes(m: re.Match) -> str:
        if m.group(1):  # "the HARDWARE_NOTES"
            return f"{m.group(1)}hardware notes"
        before = m.string[:m.start()].rstrip()
        return ("The " if not before or before.endswith(".") else "the ") + "hardware notes"

    text = re.sub(_PAGES_NUMBERS, pages, text)
    text = re.sub(_PAGE_NUMBER, page, text)
    text = re.sub(_NOTES_NAMED, notes, text)
    return _translate(text)


def has_untranslated(text: str) -> bool:
    """``text`` still holds a seed file name, a page by its number (``page 002``), Chinese characters, a path into the
    vendor's Chinese documentation tree (``docs/zh/...``: a page is named by its title) or the hardware notes' file
    name (a citation users cannot follow)."""
    return bool(re.search(_SEED, text) or re.search(_CJK, text) or "HARDWARE_NOTES" in text or "docs/zh" in text
                or re.search(_PAGE_NUMBER, text) or re.search(_PAGES_NUMBERS, text))
