"""Startup work is done when it is needed: the registry imports an API's module when the API is named, and the
command line imports a command's module when the command runs (issue 15 §1). What is checked here is which
modules a fresh interpreter imports, never how long it takes (performance lives in bench/)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

import ascverify
from ascverify.cli import COMMAND_MODULES, main
from ascverify.models import REGISTRY
from ascverify.spec.dtypes import DTYPES, FINITE_MAX, get_dtype

ROOT = Path(__file__).resolve().parents[1]


def _modules_after(code: str, prefix: str = "ascverify") -> set[str]:
    """The modules named ``prefix...`` (ascverify's by default) a fresh interpreter has imported after running
    ``code``."""
    probe = code + f"\nimport sys, json\nprint(json.dumps(sorted(m for m in sys.modules if m.startswith({prefix!r}))))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT, check=True).stdout
    return set(json.loads(out.splitlines()[-1]))


def test_importing_the_package_imports_no_api_module():
    got = _modules_after("import ascverify")
    api_modules = {f"ascverify.models.{m}" for m, _ in REGISTRY}
    assert not got & api_modules


def test_importing_the_package_loads_its_public_names_on_first_use():
    # `import ascverify` runs before the program can take Ctrl-C (ascverify.launch): it loads nothing heavy
    probe = "import ascverify, sys\nprint(sorted(m for m in ('numpy', 'click', 'z3', 'hypothesis') if m in sys.modules))"
    got = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT, check=True)
    assert got.stdout.strip() == "[]"
    # every public name resolves, to what its module defines, and dir() lists it
    from ascverify.checking.checker import check_case
    assert ascverify.check_case is check_case and ascverify.run_case.__module__ == "ascverify.core.run"
    assert all(getattr(ascverify, name) is not None for name in ascverify.__all__)
    assert set(ascverify.__all__) <= set(dir(ascverify)) and "_PUBLIC" not in dir(ascverify)
    with pytest.raises(AttributeError):
        ascverify.no_such_name


def test_naming_an_api_imports_its_module_only():
    got = _modules_after("from ascverify import get_api\nassert get_api('SetVectorMask').name == 'SetVectorMask'")
    assert "ascverify.models.set_vector_mask" in got
    assert not got & {"ascverify.models.bilinear", "ascverify.models.load3d", "ascverify.models.block_reduce_min"}


def test_an_alias_and_another_case_reach_the_model_without_the_others():
    got = _modules_after("from ascverify.spec.registry import lookup_api\n"
                         "assert lookup_api('LOAD3D').name == 'Load3DBitMode'\n"
                         "assert lookup_api('asc.language.basic.block_reduce_min').name == 'BlockReduceMin'\n"
                         "assert lookup_api('NoSuchApi') is None")
    assert {"ascverify.models.load3d", "ascverify.models.block_reduce_min"} <= got
    assert "ascverify.models.bilinear" not in got


def test_the_registry_list_declares_what_each_module_registers_in_its_order():
    # every model registers exactly the names its line declares (register() refuses a mismatch) ...
    for module, names in REGISTRY:
        models = [m for m in ascverify.apis() if type(m).__module__ == f"ascverify.models.{module}"]
        assert len(models) == 1, module
        assert set(names) == {models[0].name, *models[0].aliases}
    # ... and apis() lists them in the list's order, whatever order they were imported in
    assert [m.name for m in ascverify.apis()] == [names[0] for _, names in REGISTRY]
    assert ascverify.api_names() == tuple(n for m in ascverify.apis() for n in (m.name, *m.aliases))


def test_every_command_is_in_the_table_of_command_modules():
    listed = sorted(main.commands)  # iterating imports every command module
    assert listed == sorted(COMMAND_MODULES)
    for name, module in COMMAND_MODULES.items():
        assert main.commands[name].callback.__module__ == f"ascverify.cli.{module}", name


def test_check_imports_neither_the_other_commands_nor_the_other_apis(tmp_path):
    case = ROOT / "examples" / "reg_mask_gen.json"
    got = _modules_after("import sys\nfrom ascverify.cli import main\n"
                         f"sys.argv = ['ascverify', 'check', {str(case)!r}]\n"
                         "try:\n    main(prog_name='ascverify')\nexcept SystemExit:\n    pass")
    assert "ascverify.cli.check_cmd" in got
    assert not got & {f"ascverify.cli.{m}" for m in ("run_cmd", "fuzz_cmd", "gen_cmd", "synth_cmd", "lint_cmd",
                                                      "explain_cmd", "codec_cmd")}
    assert "ascverify.models.reg_mask_gen" in got
    assert not got & {"ascverify.models.bilinear", "ascverify.models.load3d"}
    assert not {m for m in got if m.startswith("ascverify.engines.") and m.split(".")[2] in
                ("solver", "gen", "fuzz", "properties", "lint", "explain")}


@pytest.mark.parametrize("argv", [["fuzz", "--help"], ["replay", "--help"]])
def test_the_fuzz_commands_help_starts_without_the_solver_or_hypothesis(argv):
    """Their module imports the campaign engine where the command runs (a module-level import of it made `fuzz
    --help` take 0.45 s instead of 0.19 s)."""
    code = ("import sys\nfrom ascverify.cli import main\n"
            f"sys.argv = ['ascverify', *{argv!r}]\n"
            "try:\n    main(prog_name='ascverify')\nexcept SystemExit:\n    pass")
    assert not _modules_after(code, "z3") and not _modules_after(code, "hypothesis")


def _check_modules(case: Path, prefix: str) -> set[str]:
    return _modules_after("import sys\nfrom ascverify.cli import main\n"
                          f"sys.argv = ['ascverify', 'check', {str(case)!r}]\n"
                          "try:\n    main(prog_name='ascverify')\nexcept SystemExit:\n    pass", prefix)


def test_check_to_standard_output_starts_without_tempfile():
    """tempfile (with shutil, random, bz2 and lzma: about 4 ms) is imported where a file is written; `check` printing
    its results writes none (a module-level import of it for the output probe cost every start)."""
    got = _check_modules(ROOT / "examples" / "reg_mask_gen.json", "")
    assert "ascverify.cli.check_cmd" in got
    assert not got & {"tempfile", "shutil", "bz2", "lzma"}


def test_ml_dtypes_is_imported_only_for_its_types(tmp_path):
    # numpy's own types (half here) need no ml_dtypes: `check` starts without it
    assert not _check_modules(ROOT / "examples" / "bilinear_interpolation.json", "ml_dtypes")
    # a float padValue range (Load3DBitMode's pad rule) is the format's largest finite value (`FINITE_MAX`), for
    # ml_dtypes' own types too: checking them needs no ml_dtypes (its import took 0.68 s in version 0.7)
    example = json.loads((ROOT / "examples" / "load3d_example.json").read_text())
    for dtype in ("half", "bfloat16", "fp8_e4m3fn", "fp8_e5m2"):
        src = {k: v for k, v in example["tensors"]["src"].items() if k != "data"}
        case = {**example, "dtype": dtype, "tensors": {"dst": example["tensors"]["dst"], "src": src}}
        (tmp_path / f"{dtype}.json").write_text(json.dumps(case))
        assert not _check_modules(tmp_path / f"{dtype}.json", "ml_dtypes"), dtype
    # ... while ml_dtypes still gives bfloat16 its numpy type, where the core needs one
    got = _modules_after("from ascverify.spec.dtypes import get_dtype\n"
                         "import ml_dtypes\n"
                         "assert get_dtype('bf16').numpy == ml_dtypes.bfloat16", "ml_dtypes")
    assert "ml_dtypes" in got


def test_the_float_formats_largest_finite_values_are_finfos():
    """`FINITE_MAX`, written from each format's exponent and mantissa widths, is what numpy's or ml_dtypes' finfo
    says, and `finite_max` gives it for every float type that has a numpy type."""
    for name, top in FINITE_MAX.items():
        t = get_dtype(name)
        info = ml_dtypes.finfo(t.numpy) if t.numpy_name.startswith("ml_dtypes.") else np.finfo(t.numpy)
        assert top == float(info.max) == t.finite_max(), name
    assert set(FINITE_MAX) == {t.name for t in DTYPES if t.kind == "float" and t.name != "hifloat8"}
