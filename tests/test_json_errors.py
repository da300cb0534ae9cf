"""Bad input under --format json: a script reading standard output gets a JSON document, not nothing; and a file
with no case in it (empty, or the empty list) is bad input however it is written (newcomer review, L2 and L3)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from ascverify.cli import main

ROOT = Path(__file__).resolve().parents[1]
BAD_API = '{"api": "NoSuchApi", "product": "atlas-a2", "dtype": "half", "args": {}}\n'


def cli(*argv, input=None):
    return CliRunner().invoke(main, [str(a) for a in argv], input=input)


@pytest.mark.parametrize("command", ["explain", "fix", "show"])
def test_a_case_that_cannot_be_read_is_a_json_document(command):
    got = cli(command, "--format", "json", "-", input=BAD_API)
    assert got.exit_code == 2, got.output
    doc = json.loads(got.stdout)  # one document on standard output, nothing else
    assert doc["exit_status"] == 2
    assert doc["where"] == "-:case 0" and doc["field"] == "api"
    assert "unknown API 'NoSuchApi'" in doc["message"]
    # the line on standard error is the document's "error", as text output shows it
    assert got.stderr.strip() == f"ascverify: {doc['error']}"
    text = cli(command, "-", input=BAD_API)
    assert text.exit_code == 2 and text.stdout == "" and text.stderr == got.stderr


def test_options_that_name_nothing_are_json_documents_too():
    index = cli("explain", "--format", "json", ROOT / "examples" / "bad" / "bad.json", "--index", "7")
    assert index.exit_code == 2
    doc = json.loads(index.stdout)
    assert doc["field"] == "--index" and doc["message"] == "no case 7: the file holds 1 case"
    codec = cli("decode", "--format", "json", "nope", "1", "2")
    assert codec.exit_code == 2 and json.loads(codec.stdout)["field"] == "CODEC"
    rules = cli("rules", "--format", "json", "NoSuchApi")
    assert rules.exit_code == 2 and "unknown API 'NoSuchApi'" in json.loads(rules.stdout)["message"]


def test_text_output_stays_without_a_document():
    got = cli("decode", "nope", "1", "2")
    assert got.exit_code == 2 and got.stdout == ""


def test_check_keeps_one_document_of_its_own():
    """check reports an unreadable case in its own document (exit 2): the error document is not added to it (a
    second document would make standard output unreadable as JSON)."""
    got = cli("check", "--format", "json", "-", input=BAD_API)
    assert got.exit_code == 2
    doc = json.loads(got.stdout)
    assert doc["summary"]["unreadable"] == 1 and doc["results"][0]["error"].startswith("api: unknown API")


@pytest.mark.parametrize("text", ["[]", " [ ]\n", "[\n]\n"])
def test_an_empty_list_is_no_case_like_an_empty_file(tmp_path, text):
    empty = tmp_path / "empty.json"
    empty.write_text("")
    listed = tmp_path / "list.json"
    listed.write_text(text)
    got_empty, got_list = cli("check", empty), cli("check", listed)
    assert got_empty.exit_code == 2 and "empty file" in got_empty.stderr
    assert got_list.exit_code == 2, got_list.output  # was 0: "0 cases" read as all valid
    assert f"{listed}: an empty list: no case in it" in got_list.stderr
    assert "1 file cannot be read" in got_list.stderr
    piped = cli("check", "-", input=text)
    assert piped.exit_code == 2 and "-: an empty list" in piped.stderr


def test_a_list_with_cases_is_still_read():
    case = json.loads((ROOT / "examples" / "bad" / "bad.json").read_text())
    got = cli("check", "-", input=json.dumps([case]))
    assert got.exit_code == 1 and "1 case: 0 valid, 1 invalid" in got.stderr


def test_an_empty_name_under_json_is_a_document_too():
    """The empty-name refusal runs before the command: the JSON document covers it as well."""
    got = cli("explain", "--format", "json", "")
    assert got.exit_code == 2
    doc = json.loads(got.stdout)
    assert doc["field"] == "CASE_FILE" and doc["message"] == "an empty value: give what it names"


def test_no_document_after_a_picture_on_standard_output(tmp_path):
    """show --svg - writes the picture on standard output; a later failure (--png on a full device) must not append a
    JSON document to it (the picture's bytes bypass the text writer)."""
    full = Path("/dev/full")
    if not full.exists():
        pytest.skip("no /dev/full here")
    got = cli("show", ROOT / "examples" / "bad" / "bad.json", "--svg", "-", "--png", full, "--format", "json")
    assert got.exit_code == 2
    assert got.stdout.rstrip().endswith("</svg>") and '"exit_status"' not in got.stdout
