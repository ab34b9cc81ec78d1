"""The package layout: which part of tuninglab may import which, read from the source with ast
(imports inside functions count too), and the size of a module and of a function.

The layers, each importing only its own package and the layers below it:
  0. the base: tuninglab.errors, tuninglab.units, tuninglab.files, tuninglab.visible import no
     other tuninglab module;
  1. tuninglab.results sits on the base;
  2. tuninglab.recipes sits on results (the metric table, results/metrics.py) and the base; so
     results never imports recipes;
  3. tuninglab.evidence (what the evidence says: claims, evidence sets, verdicts, the advice's
     judgement) sits on those;
  4. tuninglab.engine, tuninglab.site and tuninglab.contrib sit on those, side by side: none of
     the three imports another (site and contrib never import the engine);
  5. tuninglab.calibrate (`invoke lab.noise`) and tuninglab.campaign (`invoke claims.rerun`),
     commands that run the engine, and tuninglab.advise (`invoke advise`), which reads a server
     and its host beside the evidence, on those; advise never imports the site, nor anything
     that renders pages (Markdown, YAML);
  6. tuninglab.bench and tuninglab.fleet on all of those, side by side;
  7. tuninglab.cli on top: nothing in the package imports it; tasks.py does.

Inside the engine, its subpackages are layered the same way (ENGINE_LAYERS), and no package has
an import cycle among its own modules, whether the imports sit at the top of a file or in a
function. No module imports another's private name (one starting with _), and no import is
kept alive by a `noqa` comment.
"""

import ast
import sys
from pathlib import Path

from helpers import REPO

SRC = REPO / "src"
PACKAGE = SRC / "tuninglab"
LAYERS = [("errors", "units", "files", "visible"), ("results",), ("recipes",), ("evidence",),
          ("engine", "site", "contrib"), ("calibrate", "campaign", "advise"), ("bench", "fleet"),
          ("cli",)]
LAYER = {part: n for n, parts in enumerate(LAYERS) for part in parts}
MAX_LINES = 400
# The engine's subpackages, bottom up: the host and its work directory; the load generators and
# the storage sandboxes; the throwaway server; measuring a run; the lab VM; the run loop.
ENGINE_LAYERS = [("host",), ("workloads", "storage"), ("server",), ("measure",), ("lab",),
                 ("run",)]
ENGINE_LAYER = {part: n for n, parts in enumerate(ENGINE_LAYERS) for part in parts}


def module_name(path: Path) -> str:
    parts = path.relative_to(SRC).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def imports(path: Path) -> list[tuple[int, str]]:
    """(line, module) of every tuninglab import in the file, at any depth; `from a import b`
    counts as a.b when b is a module of the package, else as a."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: from the package, one level up per extra dot
                package = module_name(path).split(".")[:None if path.name == "__init__.py"
                                                          else -1]
                anchor = package[:len(package) - node.level + 1]
                base = ".".join(anchor + ([node.module] if node.module else []))
            for alias in node.names:
                full = f"{base}.{alias.name}"
                found.append((node.lineno, full if full in MODULES else base))
    return [(line, target) for line, target in found
            if target == "tuninglab" or target.startswith("tuninglab.")]


def part_of(module: str) -> str | None:
    """The top-level part of tuninglab a module belongs to (None: the package itself)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else None


def where(path: Path, line: int) -> str:
    return f"{path.relative_to(REPO)}:{line}"


def test_every_part_of_the_package_has_a_layer():
    parts = {part_of(name) for name in MODULES} - {None}
    assert parts, f"no modules found under {PACKAGE}"
    assert sorted(parts - set(LAYER)) == [], "parts of tuninglab with no layer in LAYERS"


def test_the_base_modules_import_no_other_tuninglab_module():
    offending = [f"{name} ({where(path, line)}) imports {target}"
                 for name, path in MODULES.items() if part_of(name) in LAYERS[0]
                 for line, target in imports(path) if part_of(target) != part_of(name)]
    assert offending == []


def test_each_part_imports_only_itself_and_the_layers_below():
    offending = []
    for name, path in MODULES.items():
        own = part_of(name)
        if own is None:
            continue
        for line, target in imports(path):
            other = part_of(target)
            if other is None or other == own or other not in LAYER:
                continue
            if LAYER[other] >= LAYER[own]:
                how = "beside it" if LAYER[other] == LAYER[own] else "above it"
                offending.append(f"{name} ({where(path, line)}) imports {target}: "
                                 f"layer {LAYER[other]} ({other}), {how}")
    assert offending == []


def test_nothing_in_the_package_imports_the_cli():
    offending = [f"{name} ({where(path, line)}) imports {target}"
                 for name, path in MODULES.items() if part_of(name) != "cli"
                 for line, target in imports(path) if part_of(target) == "cli"]
    assert offending == []
    assert "tuninglab.cli" in [target for _, target in imports(REPO / "tasks.py")]


def test_no_module_is_over_400_lines():
    lengths = {name: len(path.read_text().splitlines()) for name, path in MODULES.items()}
    assert [f"{name} ({MODULES[name].relative_to(REPO)}): {n} lines"
            for name, n in lengths.items() if n > MAX_LINES] == []


def engine_part(module: str) -> str | None:
    """The engine subpackage a module belongs to (None: not in one)."""
    parts = module.split(".")
    return parts[2] if len(parts) > 3 and parts[1] == "engine" else None


def test_every_engine_module_is_in_a_layered_subpackage():
    loose = [name for name in MODULES if part_of(name) == "engine" and name != "tuninglab.engine"
             and engine_part(name) is None and name.count(".") == 2
             and not (PACKAGE / "engine" / name.split(".")[2]).is_dir()]
    assert loose == [], "engine modules outside its subpackages"
    parts = {engine_part(name) for name in MODULES} - {None}
    assert sorted(parts - set(ENGINE_LAYER)) == [], "engine subpackages with no layer"


def test_each_engine_subpackage_imports_only_itself_and_the_layers_below():
    offending = []
    for name, path in MODULES.items():
        own = engine_part(name)
        for line, target in imports(path) if own else ():
            other = engine_part(target)
            if other is None or other == own:
                continue
            if ENGINE_LAYER[other] >= ENGINE_LAYER[own]:
                offending.append(f"{name} ({where(path, line)}) imports {target}: "
                                 f"engine layer {ENGINE_LAYER[other]} ({other})")
    assert offending == []


def cycles(graph: dict) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_no_package_has_an_import_cycle():
    graph = {name: {target for _, target in imports(path) if target in MODULES and target != name}
             for name, path in MODULES.items()}
    assert cycles(graph) == []


def test_the_cycle_finder_finds_a_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


MAX_FUNCTION_LINES = 60


def test_no_function_is_over_60_lines():
    long = []
    for name, path in MODULES.items():
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                lines = node.end_lineno - node.lineno + 1
                if lines > MAX_FUNCTION_LINES:
                    long.append(f"{where(path, node.lineno)} {node.name}: {lines} lines")
    assert long == []


def test_no_module_imports_another_modules_private_name():
    """A name starting with _ is its module's own: a helper two modules share is public, in the
    module whose subject it is."""
    offending = []
    for name, path in MODULES.items():
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("tuninglab"):
                offending += [f"{where(path, node.lineno)} imports {node.module}.{a.name}"
                              for a in node.names if a.name.startswith("_")]
    assert offending == []


def test_no_import_is_kept_alive_by_noqa():
    """A re-export that only a noqa comment keeps is an import from the wrong module."""
    offending = [f"{where(path, n)}" for name, path in MODULES.items()
                 for n, line in enumerate(path.read_text().splitlines(), start=1)
                 if "noqa: F401" in line]
    assert offending == []


def third_party_imports(path: Path) -> set[str]:
    """The top-level names of the modules outside tuninglab a file imports, at any depth."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            found.add(node.module.split(".")[0])
    return found - {"tuninglab"}


def closure(start: str) -> set[str]:
    """Every tuninglab module a module's imports reach, itself included."""
    seen, todo = set(), [start]
    while todo:
        name = todo.pop()
        if name in seen or name not in MODULES:
            continue
        seen.add(name)
        todo += [target for _, target in imports(MODULES[name])]
        parent = name.rsplit(".", 1)[0]  # importing a.b.c runs a/__init__ and a/b/__init__
        todo += [parent] if parent != name else []
    return seen


def test_advise_reaches_no_site_module_nor_the_page_machinery():
    """`invoke advise` (advise/report.py, through cli.py) weighs the evidence without the site:
    no tuninglab.site module, no Markdown, no YAML, no MkDocs."""
    reached = closure("tuninglab.advise.report") | closure("tuninglab.advise.examples")
    assert sorted(m for m in reached if part_of(m) == "site") == []
    outside = set().union(*(third_party_imports(MODULES[m]) for m in reached))
    assert sorted(outside & {"markdown", "yaml", "mkdocs", "pymdownx", "plotly"}) == []


def test_the_lab_vm_guest_needs_only_the_standard_library_and_pymysql():
    """engine/lab/guest.py runs inside the VM on the image's Python: the standard library and
    Debian's python3-pymysql (engine/lab/image.py installs it), nothing from the virtualenv."""
    reached = closure("tuninglab.engine.lab.guest")
    outside = set().union(*(third_party_imports(MODULES[m]) for m in reached))
    assert sorted(outside - set(sys.stdlib_module_names)) == ["pymysql"]
