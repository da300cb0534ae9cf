"""`gen --mode negative` writes only cases whose file `check` refuses by the rule the manifest names (audit 20: for
LoadAlignRegTensor 11 of 27 "expect failed" cases were valid -- optional arguments the solver set were left out of
the file, a fifth AddrReg level was dropped; LoadAlign had 8 of 24)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from ascverify import check_case, parse_case
from ascverify.cli import main


@pytest.mark.parametrize("api", ["LoadAlignRegTensor", "LoadAlign", "LoadAlignDataBlock"])
def test_every_negative_case_file_breaks_its_rule(tmp_path, api):
    out = tmp_path / "g"
    got = CliRunner().invoke(main, ["gen", api, "-p", "atlas-350", "-o", str(out), "--mode", "negative"])
    assert got.exit_code == 0, got.output
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["cases"]
    for entry in manifest["cases"]:
        path = out / entry["case_file"]
        case = parse_case(json.loads(path.read_text()), base_dir=path.parent)
        result = check_case(case)
        drawn = {v.id for v in (*result.violations, *result.warnings)}
        # every rule the manifest names is drawn (an error, or a warning target's warning), and the verdict is the
        # one the manifest expects
        assert set(entry["breaks"]) <= drawn, (entry["case_file"], drawn)
        assert (entry["expect"] == "failed") == (not result.valid), (entry["case_file"], entry["expect"])
