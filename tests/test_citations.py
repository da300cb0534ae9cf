"""Citations users can follow: every rule and spec note names its page by title, in English."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from ascverify import apis, get_api
from ascverify.cli import main
from ascverify.spec.citations import cite, has_untranslated, prose

MODELS = apis()


@pytest.mark.parametrize("model", MODELS, ids=[m.name for m in MODELS])
def test_every_rule_cites_a_page_users_can_find(model):
    for r in model.rules:
        assert not has_untranslated(r.citation), (r.id, r.citation)
        assert r.citation.strip(), r.id
        # the message and the requirement are read beside the citation (`check`, `rules`)
        assert not has_untranslated(r.message) and not has_untranslated(r.requirement()), r.id


@pytest.mark.parametrize("model", MODELS, ids=[m.name for m in MODELS])
def test_every_note_source_is_translated(model):
    for n in model.notes:
        for s in n.sources:
            assert not has_untranslated(cite(s)), (n.id, cite(s))


def test_the_issue_example():
    # issue 12 §5: "BilinearInterpolation, Parameters: vROffset" for page 000's Table 2 (its caption: "Parameters")
    assert cite("000_f2fe3f8fa92b9dd9.txt Table 2, vROffset") == "BilinearInterpolation, Parameters: vROffset"


def test_chinese_headings_in_english():
    # page 003's "约束说明" heading is the page's Restrictions section; "表2 X" is its Table 2, captioned X
    assert cite("003_6cb328d34acb8cee.txt 约束说明") == "SetLoadDataRepeatWithStride, Restrictions"
    assert cite("003_6cb328d34acb8cee.txt 表2 LoadDataRepeatParamWithStride, dstStride") == \
        "SetLoadDataRepeatWithStride, LoadDataRepeatParamWithStride: dstStride"
    assert cite("004_2ad9555534615f32.txt 参数说明, src") == \
        "asc.language.basic.block_reduce_min (pyasc), Parameters: src"


def test_hardware_notes_point_at_the_shipped_copy():
    got = cite("HARDWARE_NOTES.md Masks (vector ops)")
    assert got == "ascverify hardware notes (docs/hardware-notes.md), Masks (vector ops)"


def test_a_page_named_twice_is_named_once():
    got = cite("002_70a359bc6af47a68.txt Table 4, kStep; 002_70a359bc6af47a68.txt Table 4, kPos")
    assert got == "Load3DBitMode (LoadData), Load3DBitModeConfig0: kStep; Load3DBitModeConfig0: kPos"


def test_rules_json_keeps_the_seed_for_traceability():
    r = CliRunner().invoke(main, ["rules", "BilinearInterpolation", "--format", "json"])
    assert r.exit_code == 0, r.output
    rules = {x["id"]: x for x in json.loads(r.stdout)["rules"]}
    rng = rules["bilinear.vROffset.range"]
    assert rng["seed"].startswith("000_f2fe3f8fa92b9dd9.txt Table 2, vROffset")
    assert rng["source"].startswith("BilinearInterpolation, Parameters: vROffset")
    assert rng["source"] == get_api("BilinearInterpolation").rule_by_id["bilinear.vROffset.range"].citation


@pytest.mark.parametrize("model", MODELS, ids=[m.name for m in MODELS])
def test_every_note_reads_in_english_with_pages_by_title(model):
    # a note's reading and why named pages by number ("page 002"), the notes by their file, and quoted Chinese
    for n in model.notes:
        for text in (n.title, n.reading, n.why):
            assert not has_untranslated(prose(text)), (n.id, prose(text))


def test_prose_names_pages_by_title():
    got = prose("Page 000's example says [0, 8]; page 004 says [8, 0]. HARDWARE_NOTES (vendor code) confirm page 004.")
    assert got == ("The BilinearInterpolation page's example says [0, 8]; the asc.language.basic.block_reduce_min "
                   "(pyasc) page says [8, 0]. The hardware notes (vendor code) confirm the "
                   "asc.language.basic.block_reduce_min (pyasc) page.")
    assert prose("fields (page 002 Tables 4-5); HARDWARE_NOTES: bytes") == \
        "fields (the Load3DBitMode (LoadData) page (Tables 4-5)); the hardware notes: bytes"
    assert prose("pages 000 and 004, mask") == \
        "the BilinearInterpolation and asc.language.basic.block_reduce_min (pyasc) pages, mask"
    assert prose("约束说明: x") == "Restrictions: x"
    assert has_untranslated("see page 002") and has_untranslated("HARDWARE_NOTES say") and not has_untranslated(
        "the Load3DBitMode (LoadData) page")


@pytest.mark.parametrize("args", [["notes"], ["notes", "--format", "json"], ["decode", "--help"], ["encode", "--help"]])
def test_what_users_read_names_no_seed_page(args):
    r = CliRunner().invoke(main, args)
    assert r.exit_code == 0, r.output
    text = r.stdout
    if args[-1] == "json":
        doc = json.loads(r.stdout)
        text = "\n".join(f"{n['title']} {n['reading']} {n['why']} {' '.join(n['sources'])}"
                         for a in doc["apis"] for n in a["notes"])
    assert not has_untranslated(text), [line for line in text.splitlines() if has_untranslated(line)][:5]


def test_the_stored_file_of_a_rule_exists_under_that_name():
    """audit 22: `rules --format json` gave `"seed": "HARDWARE_NOTES.md ..."`, a file this repository does not hold
    (it ships docs/hardware-notes.md); the SARIF rules' `seed` property the same."""
    root = Path(__file__).resolve().parents[1]
    seen = 0
    for model in apis():
        out = CliRunner().invoke(main, ["rules", model.name, "--format", "json"]).stdout
        for rule in json.loads(out)["rules"]:
            assert "HARDWARE_NOTES.md" not in rule["seed"], rule["id"]
            if "hardware-notes.md" in rule["seed"]:
                assert "docs/hardware-notes.md" in rule["seed"] and (root / "docs" / "hardware-notes.md").is_file()
                seen += 1
    assert seen > 20
    example = root / "examples" / "cases.jsonl"
    # review 75: SARIF (read in code-scanning views) names pages by title only: no stored seed file, no Chinese
    out = CliRunner().invoke(main, ["check", "--format", "sarif", str(example)]).stdout
    sarif = json.loads(out)
    rules = [r for run in sarif["runs"] for r in run["tool"]["driver"]["rules"]]
    assert rules and all("seed" not in r["properties"] and r["properties"]["source"] for r in rules)
    assert not re.search(r"\d{3}_[0-9a-f]{16}\.txt", out) and not has_untranslated(out)
    notes = json.loads(CliRunner().invoke(main, ["notes", "--format", "json"]).stdout)  # audit 24: seed_sources too
    sources = [x for api in notes["apis"] for n in api["notes"] for x in n["seed_sources"]]
    assert any("docs/hardware-notes.md" in x for x in sources) and not any("HARDWARE_NOTES.md" in x for x in sources)
