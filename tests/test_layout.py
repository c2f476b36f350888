"""The package's layers: sub-packages never import each other, so none can grow a cycle with another.

revmine's stages (miners, preprocess, filters, dataset, metrics) talk through the Parquet files of
``revmine/schema.py``. What several of them use lives in the neutral layer: the top-level modules
(``schema.py``, ``errors.py``) and the sub-packages that group shared modules by what they are (``io/``,
``runtime/``, ``lang/``, ``algorithms/``), which import no stage. Only the top layer,
``cli.py`` and ``pipeline.py``, may import the stages. Every ``import`` of every module is read with
:mod:`ast` (also those inside functions), so a lazy import cannot hide a dependency.
"""

from __future__ import annotations

import ast
from pathlib import Path

import revmine

PACKAGE = Path(revmine.__file__).resolve().parent
#: Top-level modules that may import anything: the command line and the job runner drive every stage.
TOP_LAYER = frozenset({"cli", "pipeline"})
#: Sub-packages of shared modules (the neutral layer): any module may import them; they import no stage.
NEUTRAL = frozenset({"io", "runtime", "lang", "algorithms"})


def _modules(root: Path, name: str) -> dict[str, Path]:
    """Dotted name -> file of every module under ``root`` (a package ``name``)."""
    found = {}
    for path in sorted(root.rglob("*.py")):
        parts = [name, *path.relative_to(root).with_suffix("").parts]
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _imports(module: str, path: Path, known: set[str]) -> list[tuple[int, str]]:
    """(line, dotted module) for each import in ``path``; ``from p import x`` counts as ``p.x`` when that is
    a module (``from .. import filters`` imports a sub-package), else as ``p``."""
    is_package = path.name == "__init__.py"
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".")[: len(module.split(".")) - node.level + is_package]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            for alias in node.names:
                target = f"{source}.{alias.name}"
                found.append((node.lineno, target if target in known else source))
    return list(dict.fromkeys(found))  # ``from m import a, b``: one import of m


def layer_violations(root: Path, name: str, top_layer: frozenset[str] = TOP_LAYER,
                     neutral: frozenset[str] = NEUTRAL) -> list[str]:
    """Every import of package ``name`` (at ``root``) that crosses the layers, as ``file:line: a -> b``."""
    modules = _modules(root, name)
    problems = []
    for module, path in modules.items():
        parts = module.split(".")
        if len(parts) == 2 and parts[1] in top_layer:
            continue
        if len(parts) > 2 or (root / parts[-1]).is_dir():
            here = parts[1]  # a module of sub-package ``here`` (or the sub-package itself)
            if here in neutral:
                here = None  # a shared module: it may import only neutral modules
        else:
            here = None  # the root or a neutral top-level module
        for line, target in _imports(module, path, set(modules)):
            target_parts = target.split(".")
            if target_parts[0] != name or len(target_parts) < 2:
                continue  # another distribution, or the root package itself (``from .. import __version__``)
            first = target_parts[1]
            if first in top_layer:
                crossing = True
            elif first in neutral:
                crossing = False  # a group of shared modules: allowed from anywhere
            elif (root / first).is_dir():  # a stage: only its own modules may import it
                crossing = first != here
            else:
                crossing = False  # a neutral module: allowed from anywhere
            if crossing:
                problems.append(f"{path.relative_to(root.parent)}:{line}: {module} -> {target}")
    return problems


def test_no_sub_package_imports_another() -> None:
    assert layer_violations(PACKAGE, "revmine") == []


def test_the_scan_sees_the_package_imports() -> None:
    """The scan reads the real imports (else the test above would pass on nothing)."""
    modules = _modules(PACKAGE, "revmine")
    assert {"revmine.filters.stage", "revmine.dataset.split", "revmine.io.rows", "revmine.cli"} <= set(modules)
    split = {target for _, target in _imports("revmine.dataset.split", modules["revmine.dataset.split"],
                                              set(modules))}
    assert {"revmine.algorithms.near_duplicates", "revmine.io.rows", "revmine.io.staging", "revmine.errors"} <= split
    stage = {target for _, target in _imports("revmine.filters.stage", modules["revmine.filters.stage"],
                                              set(modules))}
    assert {"revmine.filters.tufano2021", "revmine.filters.classifier", "revmine.io.filter_report"} <= stage


def test_crossing_imports_are_reported(tmp_path: Path) -> None:
    """Each way of crossing a layer is caught; imports within a layer or downwards are not."""
    pkg = tmp_path / "pkg"
    files = {
        "__init__.py": "__version__ = '1'\n",
        "neutral.py": "import json\n",
        "leaky.py": "from .b import thing\n",  # a neutral module reaching into a stage
        "cli.py": "from .a import mod\nfrom .b import mod\n",  # the top layer: allowed
        "a/__init__.py": "",
        "a/mod.py": ("from .. import __version__\nfrom ..neutral import json\nfrom . import other\n"
                     "from ..b.mod import f\n"
                     "def lazy():\n    import pkg.b.mod\n    from .. import b\n    from ..cli import main\n"),
        "a/other.py": "from ..shared.util import g\n",  # a group of shared modules: allowed
        "shared/__init__.py": "",
        "shared/util.py": "from ..neutral import json\nfrom ..b import mod\n",  # reaching into a stage
        "b/__init__.py": "from .mod import f\n",
        "b/mod.py": "from pkg.a import other\n",
    }
    for name, text in files.items():
        (pkg / name).parent.mkdir(parents=True, exist_ok=True)
        (pkg / name).write_text(text)
    assert sorted(layer_violations(pkg, "pkg", neutral=frozenset({"shared"}))) == sorted([
        "pkg/leaky.py:1: pkg.leaky -> pkg.b",
        "pkg/a/mod.py:4: pkg.a.mod -> pkg.b.mod",
        "pkg/a/mod.py:6: pkg.a.mod -> pkg.b.mod",
        "pkg/a/mod.py:7: pkg.a.mod -> pkg.b",
        "pkg/a/mod.py:8: pkg.a.mod -> pkg.cli",
        "pkg/b/mod.py:1: pkg.b.mod -> pkg.a.other",
        "pkg/shared/util.py:2: pkg.shared.util -> pkg.b.mod",
    ])
