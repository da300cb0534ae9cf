"""Text taken from input is drawn as it is (review 73, finding 3): a case file named ``a$\\bogus$.json`` made
`show --svg` stop with an internal error (matplotlib parsed the name in the title as TeX math), and
``b$x^{2}$.json`` was drawn as a formula."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from ascverify.cli import main

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


@pytest.mark.parametrize("name", ["a$\\bogus$.json", "b$x^{2}$.json"])
def test_a_name_with_dollars_is_drawn_as_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str):
    monkeypatch.chdir(tmp_path)
    shutil.copy(EXAMPLES / "bad" / "bad.json", name)
    runner = CliRunner()
    got = runner.invoke(main, ["show", name, "--svg", "map.svg", "-q"])
    assert got.exit_code == 1, got.output  # the example is invalid: a finding, not an internal error (3)
    svg = Path("map.svg").read_text()
    escaped = name.replace("&", "&amp;").replace("<", "&lt;")
    assert f"{escaped}:case 0</text>" in svg  # the title's text, as written
    got = runner.invoke(main, ["show", name, "--png", "map.png", "-q"])
    assert got.exit_code == 1, got.output
    assert Path("map.png").read_bytes().startswith(b"\x89PNG")
