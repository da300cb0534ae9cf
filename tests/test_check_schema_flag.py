"""`check --schema` validates every case with jsonschema against the published schema as well."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from click.testing import CliRunner

from ascverify.cli import main

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "bilinear_interpolation.json"


def test_schema_flag_accepts_the_example():
    r = CliRunner().invoke(main, ["check", "--schema", str(EXAMPLE)])
    assert r.exit_code == 0, r.output


def test_schema_flag_reports_schema_problems_as_input_errors(tmp_path):
    doc = json.loads(EXAMPLE.read_text())
    doc["args"]["hRepeat"] = 1.5  # not an integer: both readers refuse it
    path = tmp_path / "case.json"
    path.write_text(json.dumps(doc))
    shutil.copy(EXAMPLE.parent / doc["tensors"]["src0"]["data"], tmp_path)  # data files: beside the case file
    r = CliRunner().invoke(main, ["check", "--schema", str(path)])
    assert r.exit_code == 2
    assert "args.hRepeat" in r.stderr or "$.args.hRepeat" in r.stderr
