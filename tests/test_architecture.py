"""The package's imports obey its layers (docs/architecture.md), without cycles and without imports hidden in
functions to dodge one.

Every module of ``ascverify`` is parsed with `ast` (nothing is imported) and placed in a layer by its name.
The test fails when

(a) an ascverify import, at module level or inside a function, goes from a layer to a higher one;
(b) the module-level imports form a cycle (the cycle is printed);
(c) an import inside a function is not in `LAZY`, the short list of imports that are lazy for startup speed
    (they go down the layers and dodge no cycle): any other one either could be at module level, or hides a
    cycle.

Importing ``a.b.c`` runs the ``__init__`` of ``a.b`` first, so an import also depends on the packages around
its target (the package ``ascverify`` itself excepted: it is the top, and every import runs it).
Imports under ``if TYPE_CHECKING:`` never run: they are left out of the cycle check and may name a higher
layer only as listed in `TYPE_ONLY`.
"""

from __future__ import annotations

import ast
import fnmatch
from dataclasses import dataclass
from pathlib import Path

import pytest

import ascverify
from ascverify import apis

PACKAGE = Path(ascverify.__file__).parent

#: The layers, lowest first, each with the module name patterns it holds: a module may import its own layer and
#: the layers below (docs/architecture.md).
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("spec", ("ascverify.spec", "ascverify.spec.*")),
    ("cases", ("ascverify.cases", "ascverify.cases.*")),
    ("checking", ("ascverify.checking", "ascverify.checking.*")),
    ("core", ("ascverify.core", "ascverify.core.*")),
    ("models", ("ascverify.models", "ascverify.models.*")),
    ("engines", ("ascverify.engines", "ascverify.engines.*")),
    ("cli", ("ascverify.cli", "ascverify.cli.*")),
    ("public", ("ascverify", "ascverify.strategies", "ascverify.launch", "ascverify.__main__")),
)

#: Imports inside functions that are there for startup speed: (importer, target) name patterns, each going down
#: the layers. A command of the CLI loads the engine it runs when it runs (``ascverify check`` does not load the
#: solver's explanations, the generator, the fuzzer or Hypothesis).
LAZY: tuple[tuple[str, str], ...] = (
    ("ascverify.cli.*", "ascverify.engines.*"),
    ("ascverify.launch", "ascverify.cli"),  # the program takes Ctrl-C before it loads the command line
)

#: Type-only imports (``if TYPE_CHECKING:``) that name a higher layer: the model base's methods take the case
#: and the trace the layers above hand them.
TYPE_ONLY: tuple[tuple[str, str], ...] = (
    ("ascverify.spec.model", "ascverify.cases.case"),
    ("ascverify.spec.model", "ascverify.core.memory"),
)


@dataclass(frozen=True)
class Import:
    importer: str
    target: str
    line: int
    local: bool       # inside a function
    type_only: bool   # under ``if TYPE_CHECKING:``


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def read_package(root: Path) -> dict[str, tuple[str, bool]]:
    """Module name -> (source, is a package) for every module under ``root``."""
    return {module_name(p, root): (p.read_text(encoding="utf-8"), p.name == "__init__.py")
            for p in sorted(root.rglob("*.py"))}


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or \
        (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def imports_of(name: str, source: str, is_package: bool, modules: set[str]) -> list[Import]:
    """Every import of a module of ``modules`` that the module ``name`` makes."""
    found: list[Import] = []
    top = name.split(".")[0]

    def add(target: str, node: ast.AST, local: bool, type_only: bool) -> None:
        imp = Import(name, target, node.lineno, local, type_only)
        if imp not in found:
            found.append(imp)

    def visit(node: ast.AST, local: bool, type_only: bool) -> None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            local = True
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for child in node.body:
                visit(child, local, True)
            for child in node.orelse:
                visit(child, local, type_only)
            return
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == top:
                    add(alias.name, node, local, type_only)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".") if is_package else name.split(".")[:-1]
                base = base[:len(base) - node.level + 1]
                base_name = ".".join(base + ([node.module] if node.module else []))
            else:
                base_name = node.module or ""
            if base_name.split(".")[0] == top:
                for alias in node.names:
                    sub = f"{base_name}.{alias.name}"
                    add(sub if sub in modules else base_name, node, local, type_only)
        for child in ast.iter_child_nodes(node):
            visit(child, local, type_only)

    visit(ast.parse(source), False, False)
    return found


def layer_of(module: str) -> int | None:
    """The index of the module's layer in `LAYERS`, or None."""
    return next((i for i, (_, patterns) in enumerate(LAYERS)
                 if any(fnmatch.fnmatchcase(module, p) for p in patterns)), None)


def runs_first(importer: str, target: str, packages: set[str]) -> list[str]:
    """The modules an import of ``target`` runs: the packages around it (not the root, nor the importer's own
    packages, which are running already) and the target."""
    parts = target.split(".")
    out = []
    for i in range(2, len(parts)):
        pkg = ".".join(parts[:i])
        if pkg in packages and not (importer == pkg or importer.startswith(pkg + ".")):
            out.append(pkg)
    return out + [target]


def graph(found: list[Import], packages: set[str], *, local: bool = False) -> dict[str, set[str]]:
    """Module -> the modules its module-level (and, with ``local``, its function-local) run-time imports run."""
    edges: dict[str, set[str]] = {}
    for imp in found:
        if (imp.local and not local) or imp.type_only:
            continue
        for t in runs_first(imp.importer, imp.target, packages):
            if t != imp.importer and t != "ascverify":
                edges.setdefault(imp.importer, set()).add(t)
    return edges


def path_between(edges: dict[str, set[str]], start: str, goal: str) -> list[str] | None:
    """A shortest chain of imports from ``start`` to ``goal``, or None."""
    prev: dict[str, str | None] = {start: None}
    queue = [start]
    while queue:
        node = queue.pop(0)
        if node == goal:
            chain = [node]
            while prev[chain[-1]] is not None:
                chain.append(prev[chain[-1]])
            return chain[::-1]
        for nxt in sorted(edges.get(node, ())):
            if nxt not in prev:
                prev[nxt] = node
                queue.append(nxt)
    return None


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """One cycle through each strongly connected set of modules (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []
    counter = [0]

    def strong(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            members = []
            while True:
                w = stack.pop()
                on.discard(w)
                members.append(w)
                if w == v:
                    break
            if len(members) > 1:
                first = min(members)
                back = min((path_between(edges, nxt, first) or [] for nxt in edges[first] if nxt in members),
                           key=len)
                out.append([first, *back])

    for v in sorted(edges):
        if v not in index:
            strong(v)
    return out


def _matches(pairs: tuple[tuple[str, str], ...], importer: str, target: str) -> bool:
    return any(fnmatch.fnmatchcase(importer, a) and fnmatch.fnmatchcase(target, b) for a, b in pairs)


def problems(package: dict[str, tuple[str, bool]]) -> list[str]:
    """Every breach of the layering of ``package`` (module name -> (source, is a package)), one line each."""
    modules = set(package)
    packages = {m for m, (_, is_pkg) in package.items() if is_pkg}
    found = [imp for m, (src, is_pkg) in package.items() for imp in imports_of(m, src, is_pkg, modules)]
    out = [f"{m}: in no layer of LAYERS (place it in a layer's package)" for m in sorted(modules)
           if layer_of(m) is None]
    names = [n for n, _ in LAYERS]
    for imp in found:
        a, b = layer_of(imp.importer), layer_of(imp.target)
        if a is None or b is None or b <= a:
            continue
        if imp.type_only and _matches(TYPE_ONLY, imp.importer, imp.target):
            continue
        out.append(f"{imp.importer}:{imp.line}: imports {imp.target}: up from {names[a]} to {names[b]}")
    edges, all_edges = graph(found, packages), graph(found, packages, local=True)
    for cycle in cycles(edges):
        out.append("import cycle: " + " -> ".join(cycle))
    for imp in found:
        if not imp.local or imp.type_only:
            continue
        back = hidden = None
        for t in runs_first(imp.importer, imp.target, packages):
            back = back or path_between(edges, t, imp.importer)
            hidden = hidden or path_between(all_edges, t, imp.importer)
        if back is not None:
            out.append(f"{imp.importer}:{imp.line}: imports {imp.target} inside a function to dodge the cycle "
                       + " -> ".join([imp.importer, *back]))
        elif hidden is not None:
            out.append(f"{imp.importer}:{imp.line}: imports {imp.target} inside a function, closing the cycle "
                       + " -> ".join([imp.importer, *hidden]) + " (held together by imports inside functions)")
        elif not _matches(LAZY, imp.importer, imp.target):
            out.append(f"{imp.importer}:{imp.line}: imports {imp.target} inside a function; import it at module "
                       "level (or, for startup speed, add it to LAZY)")
    return out


# -- the package ------------------------------------------------------------------------------------------------

def test_imports_obey_the_layers():
    found = problems(read_package(PACKAGE))
    assert not found, "\n".join(found)


def test_the_lazy_imports_go_down_the_layers():
    for importer, target in LAZY + TYPE_ONLY:
        a, b = layer_of(importer.replace("*", "x")), layer_of(target.replace("*", "x"))
        assert a is not None and b is not None, (importer, target)
        if (importer, target) in LAZY:
            assert b < a, f"{importer} -> {target} does not go down"


def _registry_list() -> list[str]:
    """The module names of the registry list of ``ascverify/models/__init__.py`` (`REGISTRY`: the registry imports
    each module when one of its names is looked up)."""
    from ascverify.models import REGISTRY

    return [module for module, _ in REGISTRY]


def test_every_api_lives_in_models_and_the_registry_list_names_it():
    listed = _registry_list()
    assert len(listed) == len(set(listed))
    modules = []
    for model in apis():
        module = type(model).__module__
        assert module.startswith("ascverify.models."), f"{model.name} is defined in {module}, not in ascverify.models"
        assert module.rsplit(".", 1)[1] in listed, f"{model.name}: {module} is not in the registry list"
        modules.append(module.rsplit(".", 1)[1])
    assert set(listed) == set(modules), f"modules in the registry list that register no API: {set(listed) - set(modules)}"
    assert modules == sorted(modules, key=listed.index), "the registry list sets the order of ascverify.apis()"


# -- the checker of the layering itself, on small made-up packages --------------------------------------------

def _package(**sources: str) -> dict[str, tuple[str, bool]]:
    out = {"ascverify": ("", True)}
    for name, src in sources.items():
        dotted = "ascverify." + name.replace("__", ".")
        out[dotted] = (src, False)
        parts = dotted.split(".")
        for i in range(2, len(parts)):
            out.setdefault(".".join(parts[:i]), ("", True))
    return out


def test_an_upward_import_is_found():
    found = problems(_package(spec__rules="from ..core.run import run_case\n", core__run="run_case = 1\n"))
    assert found == ["ascverify.spec.rules:1: imports ascverify.core.run: up from spec to core"]


def test_an_upward_import_inside_a_function_is_found():
    found = problems(_package(cases__case="def f():\n    from ..engines import solver\n",
                              engines__solver="x = 1\n"))
    assert "ascverify.cases.case:2: imports ascverify.engines.solver: up from cases to engines" in found


def test_a_cycle_is_found_and_shown():
    found = problems(_package(core__memory="from .registers import Registers\n",
                              core__registers="from .memory import Fault\n"))
    assert found == ["import cycle: ascverify.core.memory -> ascverify.core.registers -> ascverify.core.memory"]


def test_a_cycle_through_a_package_init_is_found():
    found = problems(_package(engines__fuzz__plan="from ...models import bilinear\n",
                              models__bilinear="x = 1\n",
                              cli__common="from ..engines.fuzz import plan\n"))
    assert found == []
    pkg = _package(engines__fuzz__plan="x = 1\n", engines__solver="from .fuzz.plan import x\n",
                   engines__fuzz__runner="from ..solver import y\n")
    pkg["ascverify.engines.fuzz"] = ("from . import runner\n", True)
    found = problems(pkg)
    assert found and found[0].startswith("import cycle: ascverify.engines.fuzz -> ascverify.engines.fuzz.runner -> "
                                         "ascverify.engines.solver -> ascverify.engines.fuzz")


def test_a_function_local_import_that_dodges_a_cycle_is_found():
    found = problems(_package(cases__case="def data():\n    from .caseio import load\n",
                              cases__caseio="from .case import Case\n"))
    assert found == ["ascverify.cases.case:2: imports ascverify.cases.caseio inside a function to dodge the cycle "
                     "ascverify.cases.case -> ascverify.cases.caseio -> ascverify.cases.case"]


def test_a_cycle_of_imports_inside_functions_is_found():
    found = problems(_package(core__memory="def f():\n    from .registers import Registers\n",
                              core__registers="def g():\n    from .memory import Fault\n"))
    assert found == ["ascverify.core.memory:2: imports ascverify.core.registers inside a function, closing the cycle "
                     "ascverify.core.memory -> ascverify.core.registers -> ascverify.core.memory (held together by "
                     "imports inside functions)",
                     "ascverify.core.registers:2: imports ascverify.core.memory inside a function, closing the cycle "
                     "ascverify.core.registers -> ascverify.core.memory -> ascverify.core.registers (held together "
                     "by imports inside functions)"]


def test_a_function_local_import_that_could_be_at_module_level_is_found():
    found = problems(_package(models__bilinear="def inv():\n    from ..core.run import run_case\n",
                              core__run="x = 1\n"))
    assert found == ["ascverify.models.bilinear:2: imports ascverify.core.run inside a function; import it at "
                     "module level (or, for startup speed, add it to LAZY)"]


def test_a_lazy_import_of_the_cli_is_allowed_unless_it_dodges_a_cycle():
    assert problems(_package(cli__gen_cmd="def gen():\n    from ..engines.gen import generate\n",
                             engines__gen="x = 1\n")) == []
    found = problems(_package(cli__gen_cmd="def gen():\n    from ..engines.gen import generate\n",
                              engines__gen="from ..cli.gen_cmd import y\n"))
    assert any("up from engines to cli" in f for f in found)
    assert any("to dodge the cycle" in f for f in found)


def test_type_only_imports_are_no_cycle_but_obey_the_layers():
    src = "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ..cases.case import Case\n"
    assert problems(_package(spec__model=src, cases__case="from ..spec.model import ApiModel\n")) == []
    found = problems(_package(spec__rules=src, cases__case="from ..spec.rules import Rule\n"))
    assert found == ["ascverify.spec.rules:3: imports ascverify.cases.case: up from spec to cases"]


def test_a_module_outside_the_layers_is_found():
    assert problems(_package(helpers="x = 1\n")) == ["ascverify.helpers: in no layer of LAYERS (place it in a "
                                                     "layer's package)"]


@pytest.mark.parametrize("module, layer", [("ascverify.spec.rules", "spec"), ("ascverify.cases.caseio", "cases"),
                                           ("ascverify.engines.fuzz.plan", "engines"), ("ascverify", "public"),
                                           ("ascverify.strategies", "public"), ("ascverify.cli.common", "cli")])
def test_layer_of(module, layer):
    assert LAYERS[layer_of(module)][0] == layer
