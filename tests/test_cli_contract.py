"""One contract for every command (docs/cli.md): the same options, `-` as standard input and output, the exit
statuses, messages in the user's words, and `fix -o` that changes only what it fixed."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from ascverify.cli import main
from ascverify.cli import options
from ascverify.cli.options import complete_api, complete_product, usable_cores, workers_option
from ascverify.engines.fuzz.reports import check_rows, checks_of, junit_xml
from ascverify.engines.fuzz.runner import ItemResult
from ascverify.engines.fuzz.plan import Unit

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
BAD = EXAMPLES / "bad" / "bad.json"
#: A BlockReduceMin call in pyasc's spelling, with extra keys; mask=200 breaks the contiguous range [1, 128] of
#: half (the pyasc page: 128 elements of 16 bits per repeat).
PYASC = {"name": "mine", "api": "block_reduce_min", "comment": "x", "product": "atlas-a2", "dtype": "half",
         "args": {"repeat": 2, "mask": 200, "dst_rep_stride": 1, "src_blk_stride": 1, "src_rep_stride": 8,
                  "is_set_mask": True},
         "tensors": {"dst": {"position": "VECOUT", "addr": 0, "size": 32},
                     "src": {"position": "VECIN", "addr": 64, "size": 256}},
         "expect": "failed"}


def invoke(*argv, input: str | bytes | None = None, env: dict | None = None):
    return CliRunner(env=env).invoke(main, [str(a) for a in argv], input=input)


# -- one vocabulary ---------------------------------------------------------------------------------------------------

def _options(cmd) -> dict:
    return {o: p for p in cmd.params for o in getattr(p, "opts", [])}


@pytest.mark.parametrize("name", sorted(main.commands))
def test_every_command_takes_help_verbose_and_quiet(name):
    cmd = main.commands[name]
    opts = _options(cmd)
    assert {"-v", "--verbose", "-q", "--quiet"} <= set(opts), name
    text = invoke(name, "-h").stdout
    assert "--verbose" in text and "--quiet" in text
    for old in ("--jobs", "--timeout-ms"):  # the old names work, hidden
        assert old not in text


@pytest.mark.parametrize("name", sorted(main.commands))
def test_the_same_option_has_the_same_name_and_metavar(name):
    opts = _options(main.commands[name])
    if "--product" in opts:
        assert "-p" in opts and opts["-p"] is opts["--product"]
        assert opts["--product"].metavar.startswith("PRODUCT")
    if "--workers" in opts:
        assert opts["--workers"].metavar == "N" and opts["-j"].hidden and opts["--jobs"] is opts["-j"]
    if "--timeout" in opts:
        assert opts["--timeout"].metavar == "SECONDS"
    assert "--timeout-ms" not in opts or opts["--timeout-ms"].hidden


def _commands():
    """Every command, subcommands of groups included, with its path of names."""
    for name, cmd in sorted(main.commands.items()):
        yield [name], cmd
        for sub, subcmd in sorted(getattr(cmd, "commands", {}).items()):
            yield [name, sub], subcmd


@pytest.mark.parametrize("path,cmd", [pytest.param(p, c, id=" ".join(p)) for p, c in _commands()])
def test_no_number_option_takes_nan_or_infinity(path, cmd):
    """A float option refuses ``nan``, ``inf`` and a number too large for a float, which Python reads as
    numbers and no range refuses (NaN compares false with any bound): a sweep found `diff-products --time-budget
    nan` an internal error."""
    ctx = click.Context(cmd)
    floats = [p for p in cmd.params if isinstance(p.type, click.types.FloatParamType)]
    for p in floats:
        for value in ("nan", "inf", "-inf", "1e999"):
            with pytest.raises(click.BadParameter, match="not a finite number|not in the range"):
                p.type.convert(value, p, ctx)


@pytest.mark.parametrize("path,cmd", [pytest.param(p, c, id=" ".join(p)) for p, c in _commands()
                                      if any("--workers" in getattr(q, "opts", ()) for q in c.params)])
def test_workers_are_bounded(path, cmd):
    """``--workers`` takes at most `MAX_WORKERS`: a sweep's `fuzz --workers 99999999999999999999` split its campaign
    into that many parts before starting anything (it never ended)."""
    r = invoke(*path, "--workers", str(options.MAX_WORKERS + 1), "SetVectorMask")
    assert r.exit_code == 2 and "--workers" in r.stderr and f"0<=x<={options.MAX_WORKERS}" in r.stderr


def test_a_time_budget_of_nan_is_bad_usage():
    r = invoke("diff-products", "atlas-a2", "atlas-350", "--time-budget", "nan")
    assert r.exit_code == 2 and "internal error" not in r.output
    assert "--time-budget" in r.stderr and "not a finite number" in r.stderr


@pytest.mark.parametrize("argv, names", [
    (["check", "-p", "all", "-p", "atlas-a2", str(EXAMPLES / "bilinear_interpolation.json")], "-p/--product"),
    (["rules", "BlockReduceMin", "-p", "atlas-a2", "--product", "atlas-350"], "-p/--product"),
    (["synth", "BlockReduceMin", "-p", "atlas-a2", "-p", "atlas-350", "-n", "1"], "-p/--product"),
    (["check", "--format", "json", "--format", "text", str(EXAMPLES / "bilinear_interpolation.json")], "--format"),
    # audit 23: a hidden older spelling beside the option it stands for escaped the check (one of them won silently)
    (["check", "--workers", "1", "--jobs", "2", str(EXAMPLES / "bilinear_interpolation.json")],
     "--workers (or its older spelling -j/--jobs)"),
    (["lint", "SetVectorMask", "-p", "atlas-a2", "--timeout-ms", "5000", "--timeout", "1"],
     "--timeout (or its older spelling --timeout-ms)"),
])
def test_an_option_of_one_value_given_twice_is_bad_usage(argv, names):
    """audit 22: click kept the last value silently (`check -p all -p atlas-a2` checked atlas-a2 only), while lint and
    fuzz take a repeated -p as a list: now one line, exit 2, before anything runs."""
    r = invoke(*argv)
    assert r.exit_code == 2 and r.stdout == "", r.output
    assert len(r.stderr.strip().splitlines()) == 1 and f"{names} given 2 times: it takes one value" in r.stderr


def test_repeatable_options_and_flags_may_come_twice():
    assert invoke("lint", "SetVectorMask", "-p", "atlas-a2", "-p", "atlas-350", "--timeout", "5").exit_code == 0
    assert invoke("check", "-v", "-v", str(EXAMPLES / "bilinear_interpolation.json")).exit_code == 0


def test_old_option_names_still_work():
    a = invoke("lint", "SetVectorMask", "-p", "atlas-a2", "-j", "1", "--timeout-ms", "5000")
    b = invoke("lint", "SetVectorMask", "-p", "atlas-a2", "--workers", "1", "--timeout", "5")
    assert a.exit_code == b.exit_code == 0 and a.stdout == b.stdout


def test_usable_cores_are_the_affinity_mask_not_the_machine(monkeypatch):
    # taskset or a container's cpuset leave this process 2 of the machine's cores: `--workers 0` means 2
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {1, 5}, raising=False)
    monkeypatch.setattr(os, "cpu_count", lambda: 64)
    assert usable_cores() == 2
    monkeypatch.delattr(os, "sched_getaffinity", raising=False)  # no affinity masks (macOS, Windows)
    assert usable_cores() == 64
    monkeypatch.setattr(os, "cpu_count", lambda: None)
    assert usable_cores() == 1


@pytest.mark.parametrize("argv, want", [([], 3), (["--workers", "0"], 3), (["--workers", "2"], 2), (["-j", "0"], 3),
                                        (["-j", "1"], 1)])
def test_workers_zero_is_resolved_once_for_every_command(monkeypatch, argv, want):
    monkeypatch.setattr(options, "usable_cores", lambda: 3)

    @click.command()
    @workers_option(0)
    def cmd(workers: int) -> None:
        click.echo(workers)

    got = CliRunner().invoke(cmd, argv)
    assert got.exit_code == 0 and got.stdout.strip() == str(want)


def test_api_and_product_names_complete():
    apis = [c.value for c in complete_api(None, None, "block_re")]
    assert apis[:3] == ["block_reduce_min", "block_reduce_max", "block_reduce_sum"][:len(apis[:3])]
    assert "BlockReduceMin" in [c.value for c in complete_api(None, None, "BlockRed")]
    assert [c.value for c in complete_product(None, None, "atlas-a")] == ["atlas-a3", "atlas-a2"]
    assert "all" in [c.value for c in complete_product(None, None, "", with_all=True)]
    # through the shell protocol, as bash asks
    env = dict(os.environ, _ASCVERIFY_COMPLETE="bash_complete", COMP_WORDS="ascverify gen BlockReduceMin -p atlas-2",
               COMP_CWORD="4")
    r = subprocess.run([sys.executable, "-m", "ascverify"], env=env, capture_output=True, text=True, timeout=60)
    assert "plain,atlas-200i-500-a2" in r.stdout.splitlines()


# -- `-` is standard input and standard output ----------------------------------------------------------------------

def test_standard_input_is_read_once_by_every_command(tmp_path):
    text = BAD.read_text()
    r = invoke("explain", "-", input=text)
    assert r.exit_code == 1 and "-:case 0: error: [bilinear.vROffset.range]" in r.stdout
    r = invoke("run", "-", "-o", tmp_path / "out", input=text)
    assert r.exit_code == 1 and (tmp_path / "out" / "dst.npy").is_file()
    r = invoke("fix", "-", input=text)
    assert r.exit_code == 1 and "vROffset: 100 -> 128" in r.stdout


def test_output_dash_is_standard_output(tmp_path):
    r = invoke("fix", BAD, "-o", "-")
    assert r.exit_code == 0 and not (Path.cwd() / "-").exists()
    fixed = json.loads(r.stdout)
    assert fixed["args"]["vROffset"] == 128 and fixed["name"] == "vertical rows too close"
    assert "vROffset: 100 -> 128" in r.stderr
    r = invoke("synth", "BlockReduceMin", "-p", "atlas-a2", "-n", "2", "-o", "-")
    assert r.exit_code == 0 and len(r.stdout.splitlines()) == 2
    r = invoke("run", BAD, "-o", "-")
    assert r.exit_code == 2 and "-o: needs a folder" in r.stderr


# -- fix -o changes only what it fixed ------------------------------------------------------------------------------

def test_fix_keeps_the_users_spelling_keys_order_and_formatting(tmp_path):
    src = tmp_path / "pyasc.json"
    text = json.dumps(PYASC, indent=4) + "\n"
    src.write_text(text)
    out = tmp_path / "fixed.json"
    r = invoke("fix", src, "-o", out)
    assert r.exit_code == 0, r.output
    assert "fixed case written to" in r.stderr
    # the only change: mask 200 -> 128 (the largest contiguous mask for half, the nearest valid value)
    assert out.read_text() == text.replace('"mask": 200', '"mask": 128')
    assert invoke("check", out).exit_code == 0


def test_fix_changes_one_case_of_a_list_and_of_json_lines(tmp_path):
    good = dict(PYASC, args=dict(PYASC["args"], mask=128))
    for name, text in (("list.json", json.dumps([good, PYASC, good], indent=1)),
                       ("lines.jsonl", "\n".join(json.dumps(d) for d in (good, PYASC, good)) + "\n")):
        src = tmp_path / name
        src.write_text(text)
        out = tmp_path / f"fixed-{name}"
        r = invoke("fix", src, "--index", "1", "-o", out)
        assert r.exit_code == 0, r.output
        assert out.read_text() == text.replace('"mask": 200', '"mask": 128')
        assert invoke("check", out).stderr.strip() == "3 cases: 3 valid, 0 invalid, 0 unreadable"


def test_fix_inserts_a_value_the_case_left_out_in_its_spelling(tmp_path):
    doc = json.loads(json.dumps(PYASC))
    del doc["args"]["is_set_mask"]  # default true: the mask is the call's own
    src = tmp_path / "c.json"
    src.write_text(json.dumps(doc))
    r = invoke("fix", src, "-o", tmp_path / "f.json")
    assert r.exit_code == 0
    fixed = json.loads((tmp_path / "f.json").read_text())
    assert list(fixed) == list(doc) and list(fixed["args"]) == list(doc["args"])  # nothing added that was not needed


def test_fix_without_output_writes_nothing_and_says_so(tmp_path):
    src = tmp_path / "c.json"
    src.write_text(json.dumps(PYASC))
    before = sorted(os.listdir(tmp_path))
    r = invoke("fix", src)
    assert r.exit_code == 1
    assert sorted(os.listdir(tmp_path)) == before
    assert "fixed" not in r.stderr and "not written" in r.stderr
    assert r.stdout.splitlines()[1:] == ["  mask: 200 -> 128"]  # the user's name for the argument


def test_fix_rewrites_relative_data_paths_for_another_folder(tmp_path):
    case = json.loads((EXAMPLES / "bilinear_interpolation.json").read_text())
    case["args"]["vROffset"] = 100
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "c.json").write_text(json.dumps(case))
    (tmp_path / "in" / "bilinear_src0.npy").write_bytes((EXAMPLES / "bilinear_src0.npy").read_bytes())
    (tmp_path / "out").mkdir()
    r = invoke("fix", tmp_path / "in" / "c.json", "-o", tmp_path / "out" / "f.json")
    assert r.exit_code == 0, r.output
    fixed = json.loads((tmp_path / "out" / "f.json").read_text())
    assert fixed["tensors"]["src0"]["data"] == "../in/bilinear_src0.npy"
    # data outside the fixed file's folder is read only with --data-root: the note says so, and naming the
    # folder it gives makes the fixed case check (without it, check refuses the data)
    note = next(line for line in r.stdout.splitlines() if "outside the folder of the fixed file" in line)
    root = note.split("--data-root ")[1].split(" ")[0]
    assert Path(root).resolve() == tmp_path.resolve()
    assert invoke("check", tmp_path / "out" / "f.json").exit_code == 2
    assert invoke("check", "--data-root", root, tmp_path / "out" / "f.json").exit_code == 0


# -- exit statuses --------------------------------------------------------------------------------------------------

def test_gen_interrupted_exits_130_not_aborted(tmp_path):
    p = subprocess.Popen([sys.executable, "-m", "ascverify", "gen", "BlockReduceMin", "-p", "atlas-a2", "-n", "100000",
                          "-o", str(tmp_path / "g")], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(4)
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=120)
    assert p.returncode == 130, err
    assert "Aborted!" not in err and "Traceback" not in err


# -- messages -------------------------------------------------------------------------------------------------------

def test_explain_names_values_as_the_case_does(tmp_path):
    src = tmp_path / "c.json"
    src.write_text(json.dumps(PYASC))
    r = invoke("explain", src)
    assert r.exit_code == 1
    values = [l for l in r.stdout.splitlines() if l.startswith("  values:")]
    # not the internal fields mask.count, isSetMask: the case's spellings. is_set_mask takes part: with false the
    # mask argument has no effect (a warning, block_reduce_min.mask.ignored), so either change ends the error
    assert values == ["  values: mask=200, is_set_mask=true  (change at least one)"]
    doc = json.loads(invoke("explain", src, "--format", "json").stdout)
    assert doc["conflicts"][0]["values"] == {"mask": 200, "is_set_mask": True}
    assert doc["conflicts"][0]["pointers"] == ["/args/is_set_mask", "/args/mask"]


def test_explain_and_fix_print_no_python_objects(tmp_path):
    case = json.loads((EXAMPLES / "load3d_example.json").read_text())
    case["args"]["fmatrix"]["padList"] = [300, 1, 1, 1]  # padList is uint8: 300 does not fit
    (tmp_path / "c.json").write_text(json.dumps(case))
    (tmp_path / "load3d_example_src.npy").write_bytes((EXAMPLES / "load3d_example_src.npy").read_bytes())
    text = invoke("explain", tmp_path / "c.json").stdout + invoke("fix", tmp_path / "c.json").stdout
    assert "values: fmatrix.padList=[300, 1, 1, 1]" in text.splitlines()[1]
    assert "  fmatrix.padList: [300, 1, 1, 1] -> [255, 1, 1, 1]" in text.splitlines()
    ours = [l for l in text.splitlines() if l.startswith("  ")]  # the values and changes (not the rules' messages)
    assert not any("{'" in l or "padList0" in l or "(300," in l for l in ours)
    r = invoke("fix", tmp_path / "c.json", "-o", tmp_path / "f.json")
    assert r.exit_code == 0, r.output
    fixed = json.loads((tmp_path / "f.json").read_text())
    assert fixed["comment"] == case["comment"] and fixed["args"]["fmatrix"] == dict(case["args"]["fmatrix"],
                                                                                   padList=[255, 1, 1, 1])


def test_overlap_names_the_iterations():
    # bad.json: vROffset=100, dstBlkStride=1, half: a block is 16 elements; iteration 1's block 0 starts at element
    # 100, iteration 0's block 6 at 6*16 = 96: they share elements 100..111
    r = invoke("check", BAD)
    line = next(l for l in r.stdout.splitlines() if "vertical_overlap" in l)
    assert "vertical iterations 0 and 1 write overlapping dst blocks (block 6 of iteration 0 at element 96, " \
           "block 0 of iteration 1 at element 100;" in line


def test_diff_products_blames_the_argument():
    r = invoke("diff-products", "atlas-a2", "foo")
    assert r.exit_code == 2 and r.stderr.strip() == "ascverify: B: unknown product 'foo'"
    r = invoke("diff-products", "fooo", "atlas-a2")
    assert r.exit_code == 2 and r.stderr.startswith("ascverify: A: unknown product 'fooo'")


def test_plurals_and_unreadable_files(tmp_path):
    r = invoke("explain", BAD)
    assert r.stderr.strip().endswith("3 broken rules explained")
    src = tmp_path / "c.json"
    src.write_text(json.dumps(PYASC))
    assert invoke("explain", src).stderr.strip().endswith(": 1 broken rule explained")
    r = invoke("run", EXAMPLES / "bilinear_interpolation.json", "-o", tmp_path / "o")
    assert "wrote 5 tensors" in r.stderr
    r = invoke("check", tmp_path / "missing.json")
    assert r.exit_code == 2
    assert r.stderr.splitlines()[-1] == "1 file cannot be read; 0 cases: 0 valid, 0 invalid, 0 unreadable"


def test_rules_lists_the_apis():
    r = invoke("rules")
    assert r.exit_code == 0 and "BlockReduceMin" in r.stdout and "block_reduce_min" in r.stdout
    r = invoke("rules", "NoSuchApi")
    assert r.exit_code == 2 and "BilinearInterpolation, BlockReduceMin" in r.stderr


def test_check_quiet_prints_findings_only():
    r = invoke("check", "-q", BAD)
    assert r.exit_code == 1 and r.stderr == "" and len(r.stdout.splitlines()) == 3


def test_citations_name_pages_by_title_in_english(tmp_path):
    text = invoke("check", BAD).stdout + invoke("explain", BAD).stdout + invoke("rules", "BilinearInterpolation").stdout
    assert "000_f2fe3f8fa92b9dd9.txt" not in text and "约束" not in text
    assert "(BilinearInterpolation, Parameters: vROffset" in text


# -- gen ------------------------------------------------------------------------------------------------------------

def test_gen_block_reduce_min_cases_say_something(tmp_path):
    r = invoke("gen", "BlockReduceMin", "-p", "atlas-a2", "-n", "30", "--seed", "3", "-o", tmp_path / "g")
    assert r.exit_code == 0, r.output
    man = json.loads((tmp_path / "g" / "manifest.json").read_text())
    for c in man["cases"]:
        case = json.loads((tmp_path / "g" / c["case_file"]).read_text())
        assert case["args"]["isSetMask"] is True and case["args"]["mask"] != "MASK_PLACEHOLDER"


def test_gen_negative_cases_read_back_and_come_in_order(tmp_path):
    r = invoke("gen", "BlockReduceMin", "-p", "atlas-a2", "--mode", "negative", "-o", tmp_path / "n")
    assert r.exit_code == 0, r.output
    man = json.loads((tmp_path / "n" / "manifest.json").read_text())
    files = [tmp_path / "n" / c["case_file"] for c in man["cases"]]
    check = invoke("check", *files)
    assert check.exit_code == 1 and ", 0 unreadable" in check.stderr  # every case a file check reads
    for f in files:
        for word in json.loads(f.read_text())["args"]["mask"] if isinstance(
                json.loads(f.read_text())["args"]["mask"], list) else []:
            assert isinstance(word, int)
    breaks = [c["breaks"] for c in man["cases"] if c["breaks"]]
    first_type = next(i for i, b in enumerate(breaks) if any(r.endswith(".type") for r in b))
    assert all(not any(r.endswith(".type") for r in b) for b in breaks[:first_type])
    assert all(any(r.endswith(".type") for r in b) for b in breaks[first_type:])  # C-type limits last
    # overlap first: the in-place rule, a warning (the case breaks no rule and warns of it), then the errors
    assert man["cases"][0]["breaks"] == [] and "block_reduce_min.dst.src.in_place" in man["cases"][0]["warns"]
    assert breaks[0] == ["block_reduce_min.dst.align"]


# -- fuzz -----------------------------------------------------------------------------------------------------------

def test_fuzz_target_cmd_without_its_program_is_bad_input(tmp_path):
    r = invoke("fuzz", "BilinearInterpolation", "-p", "atlas-a2", "--examples", "2", "--findings", tmp_path / "f",
               "--target-cmd", str(tmp_path / "no-such-program") + " {dir}")
    assert r.exit_code == 2 and "no such program" in r.stderr and r.stdout == ""
    r = invoke("fuzz", "BilinearInterpolation", "-p", "atlas-a2", "--examples", "2", "--findings", tmp_path / "f",
               "--target-cmd", "no-such-program-anywhere {dir}")
    assert r.exit_code == 2 and "command not found" in r.stderr


def test_an_interrupted_item_is_a_skipped_testcase():
    done = ItemResult(Unit("BilinearInterpolation", "atlas-a2", "invariants"), status="passed")
    names = checks_of("BilinearInterpolation", "invariants")
    done.cases, done.checks = 10, {c: 10 for c in names}
    cut = ItemResult(Unit("BilinearInterpolation", "atlas-a3", "invariants"), status="interrupted")
    cut.cases, cut.checks = 3, {c: 3 for c in names}
    rows = check_rows([done, cut], [])
    assert rows and all(r.status == "skipped" for r in rows)
    xml = junit_xml([done, cut], [], elapsed=1.0, properties={}).decode()
    assert "<skipped" in xml and "interrupted after" in xml


def test_fix_output_drops_data_that_no_longer_fits_and_keeps_the_rest(tmp_path):
    """Where a value must go away (data too large for a tensor's new size) the case is written anew: its keys in
    their order, the other cases of the file as they were."""
    from ascverify.cases.parse import parse_case
    from ascverify.cli.fix_output import fixed_file_text

    doc = json.loads(BAD.read_text())
    other = {"name": "other", **{k: v for k, v in doc.items() if k != "name"}}
    text = json.dumps([other, doc], indent=2) + "\n"
    case = parse_case(doc, base_dir=tmp_path)
    new, notes = fixed_file_text(text, 1, case, case, [], ["src1"], None)
    out = json.loads(new)
    assert out[0] == other and new.startswith(json.dumps([other], indent=2)[:-2])  # the first case untouched
    assert "data" not in out[1]["tensors"]["src1"] and out[1]["tensors"]["src0Offset"] == doc["tensors"]["src0Offset"]
    assert list(out[1]) == list(doc) and out[1]["name"] == doc["name"]
    assert any("no longer fits" in n for n in notes) and any("written anew" in n for n in notes)
