"""How revmine should get tree-sitter grammars for seven more languages: per-language wheels or one language pack.

    python benchmarks/bench_grammars.py [--runs 5] [--keep DIR]

Groundwork for issue 21 item 6. Each option is pip-installed into a fresh virtualenv in a temporary folder,
next to the tree-sitter version of this environment (pinned, never changed here), and measured there:

* install size: bytes on disk of every distribution the option brings into site-packages (tree-sitter, pip
  and setuptools left out), and the time ``pip install --no-cache-dir`` took (informational: it includes the
  download and the same tree-sitter wheel for every option);
* parse speed per language, in files/s and MB/s, on every file of that language in
  ``../shared/fixtures/code_revisions/revisions.jsonl`` (both sides, ``before`` and ``after``, of its 30
  rows): a worker script runs inside each venv, parses everything once to warm up, then once timed. The
  options' workers alternate, ``--runs`` rounds, so that a busy machine slows both alike; each figure is the
  median over the rounds with the spread (min-max), and the ratio is taken round by round;
* whether the two options give identical parse trees (S-expressions of the root node) on every file, and
  each grammar's version (package version, grammar semantic version, ABI).

tree-sitter-language-pack 1.x is installed and tried too: its grammars are not in the wheel but fetched at
run time, which a machine without internet cannot do, so it is reported with its error and 0.13.0 (the last
release that ships its grammars) is the pack that gets measured.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from importlib.metadata import version
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = ROOT.parent / "shared" / "fixtures" / "code_revisions" / "revisions.jsonl"
LANGUAGES = ("python", "javascript", "typescript", "go", "c", "cpp", "csharp")
BASELINE = {"tree-sitter", "pip", "setuptools", "wheel"}


@dataclass(frozen=True)
class Option:
    """A way to get the grammars: what pip installs and how the worker turns a language name into a Language."""

    name: str
    requirements: tuple[str, ...]
    loader: str  # body of ``load(name) -> (Language, package version)`` inside the worker


WHEELS = {
    "python": ("tree_sitter_python", "language"),
    "javascript": ("tree_sitter_javascript", "language"),
    "typescript": ("tree_sitter_typescript", "language_typescript"),
    "go": ("tree_sitter_go", "language"),
    "c": ("tree_sitter_c", "language"),
    "cpp": ("tree_sitter_cpp", "language"),
    "csharp": ("tree_sitter_c_sharp", "language"),
}
PACK_LOADER = """
    import tree_sitter_language_pack as pack
    return pack.get_language(name), "tree-sitter-language-pack " + version("tree-sitter-language-pack")
"""
OPTIONS = (
    Option(
        "wheels",
        tuple(module.replace("_", "-") for module, _ in WHEELS.values()),
        f"""
    module, function = {WHEELS!r}[name]
    return Language(getattr(importlib.import_module(module), function)()), module.replace("_", "-") + " " + version(module.replace("_", "-"))
""",
    ),
    Option("pack 0.13.0", ("tree-sitter-language-pack==0.13.0",), PACK_LOADER),
    Option("pack latest", ("tree-sitter-language-pack",), PACK_LOADER),
)

WORKER = """
import importlib, json, sys, time
from importlib.metadata import version
from tree_sitter import Language, Parser

def load(name):
{loader}

request = json.load(sys.stdin)
files = {{}}
with open(request["fixture"], encoding="utf-8") as lines:
    for line in lines:
        row = json.loads(line)
        files.setdefault(row["language"], []).extend(row[side].encode() for side in ("before", "after"))
report = {{}}
for name in request["languages"]:
    try:
        language, package = load(name)
    except Exception as error:
        report[name] = {{"error": f"{{type(error).__name__}}: {{error}}"}}
        continue
    parser = Parser(language)
    sources = files[name]
    trees = [parser.parse(source) for source in sources]  # warm-up pass, also the trees compared
    start = time.perf_counter()
    for source in sources:
        parser.parse(source)
    seconds = time.perf_counter() - start
    report[name] = {{
        "seconds": seconds,
        "files": len(sources),
        "bytes": sum(map(len, sources)),
        "errors": sum(tree.root_node.has_error for tree in trees),
        "trees": [str(tree.root_node) for tree in trees] if request["trees"] else [],
        "grammar": f"{{package}}: grammar {{'.'.join(map(str, language.semantic_version or ())) or 'version not recorded'}}, "
                   f"ABI {{language.abi_version}}, {{language.node_kind_count}} node kinds",
    }}
json.dump(report, sys.stdout)
"""

SIZE = """
import json, sys
from importlib.metadata import distributions
sizes = {}
for dist in distributions():
    name = dist.metadata["Name"].lower()
    if name not in set(sys.argv[1:]):
        sizes[f"{name} {dist.version}"] = sum(f.locate().stat().st_size for f in dist.files or () if f.locate().is_file())
json.dump(sizes, sys.stdout)
"""


@dataclass
class Venv:
    """An option installed in its own virtualenv, or the pip line saying why it is not."""

    option: Option
    python: Path
    install_seconds: float
    sizes: dict[str, int]
    failure: str | None


def install(option: Option, folder: Path) -> Venv:
    """Fresh venv + ``pip install`` of the option beside this environment's tree-sitter."""
    folder.mkdir(parents=True)
    subprocess.run([sys.executable, "-m", "venv", str(folder)], check=True)
    python = folder / "bin" / "python"
    start = time.perf_counter()
    pip = subprocess.run(
        [str(python), "-m", "pip", "install", "--no-cache-dir", "--disable-pip-version-check", "-q",
         f"tree-sitter=={version('tree-sitter')}", *option.requirements],
        capture_output=True, text=True,
    )
    seconds = time.perf_counter() - start
    if pip.returncode:
        lines = [line for line in pip.stderr.splitlines() if "ERROR" in line] or pip.stderr.splitlines()[-1:]
        return Venv(option, python, seconds, {}, lines[0] if lines else f"pip exited {pip.returncode}")
    sizes = json.loads(subprocess.run([str(python), "-c", SIZE, *BASELINE], capture_output=True, text=True,
                                      check=True, cwd=folder).stdout)
    return Venv(option, python, seconds, sizes, None)


def measure(venv: Venv, trees: bool = False) -> dict[str, dict]:
    """One round of the worker in the option's venv (run from the venv's folder, so this project is not on its path)."""
    request = json.dumps({"fixture": str(FIXTURE), "languages": LANGUAGES, "trees": trees})
    done = subprocess.run([str(venv.python), "-c", WORKER.format(loader=venv.option.loader)], input=request,
                          capture_output=True, text=True, check=True, cwd=venv.python.parents[1])
    return json.loads(done.stdout)


def first_difference(x: str, y: str, context: int = 60) -> str:
    """Where S-expression ``x`` first departs from ``y``, with some context, to see what changed."""
    at = next((i for i, (p, q) in enumerate(zip(x, y)) if p != q), min(len(x), len(y)))
    return f"...{x[max(0, at - context):at + context]}..."


def spread(values: list[float], digits: int = 0) -> str:
    """Median (min-max)."""
    return f"{statistics.median(values):,.{digits}f} ({min(values):,.{digits}f}-{max(values):,.{digits}f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="alternating rounds of the workers")
    parser.add_argument("--keep", type=Path, help="build the venvs here and keep them (default: a temporary folder)")
    args = parser.parse_args()

    base = args.keep or Path(tempfile.mkdtemp(prefix="bench_grammars_"))
    try:
        venvs = [install(option, base / option.name.replace(" ", "-")) for option in OPTIONS]
        print(f"tree-sitter {version('tree-sitter')} in every venv; Python {sys.version.split()[0]}; "
              f"fixture {FIXTURE.name}")
        usable: list[Venv] = []
        first: dict[str, dict[str, dict]] = {}
        for venv in venvs:
            name = venv.option.name
            if venv.failure:
                print(f"{name}: install FAILED: {venv.failure}")
                continue
            first[name] = measure(venv, trees=True)
            errors = {lang: r["error"] for lang, r in first[name].items() if "error" in r}
            print(f"{name}: {sum(venv.sizes.values()) / 1e6:,.1f} MB on disk in "
                  f"{', '.join(f'{d} ({b / 1e6:.2f} MB)' for d, b in sorted(venv.sizes.items()))}; "
                  f"pip install {venv.install_seconds:.1f} s (informational)")
            if errors:
                print(f"  UNUSABLE here, no grammar loads: {next(iter(errors.values()))}")
            else:
                usable.append(venv)
        if len(usable) < 2:
            print("fewer than two usable options: nothing to compare")
            return

        rounds: dict[str, list[dict[str, dict]]] = {venv.option.name: [] for venv in usable}
        for _ in range(args.runs):
            for venv in usable:
                rounds[venv.option.name].append(measure(venv))

        a, b = (venv.option.name for venv in usable[:2])
        differ: list[str] = []
        width = 40
        for lang in LANGUAGES:
            ra, rb = first[a][lang], first[b][lang]
            pairs = list(zip(ra["trees"], rb["trees"]))
            identical = sum(x == y for x, y in pairs)
            print(f"\n{lang}: {ra['files']} files, {ra['bytes'] / 1e6:.2f} MB; identical S-expressions on "
                  f"{identical}/{ra['files']} files; files with ERROR/MISSING nodes: {a} {ra['errors']}, {b} {rb['errors']}")
            print(f"  grammar {a}: {ra['grammar']}\n  grammar {b}: {rb['grammar']}")
            if identical < ra["files"]:
                differ.append(lang)
                x, y = next((x, y) for x, y in pairs if x != y)
                print(f"  first difference: {a} {first_difference(x, y)} | {b} {first_difference(y, x)}")
            print(f"  {'':10}{a:>{width}}{b:>{width}}")
            for label, unit, scale, digits in (("files/s", "files", 1, 0), ("MB/s", "bytes", 1e6, 1)):
                cells = [spread([r[lang][unit] / r[lang]["seconds"] / scale for r in rounds[name]], digits)
                         for name in (a, b)]
                print(f"  {label:10}{cells[0]:>{width}}{cells[1]:>{width}}")
            ratio = [y[lang]["seconds"] / x[lang]["seconds"] for x, y in zip(rounds[a], rounds[b])]
            print(f"  {a} / {b} speed, round by round: {spread(ratio, 2)}x")

        size = {venv.option.name: sum(venv.sizes.values()) for venv in usable}
        total = {name: [sum(r[lang]["bytes"] for lang in LANGUAGES) / sum(r[lang]["seconds"] for lang in LANGUAGES)
                        for r in rounds[name]] for name in (a, b)}
        ratio = [x / y for x, y in zip(total[a], total[b])]
        print(f"\nall seven languages: {a} {spread([t / 1e6 for t in total[a]], 1)} MB/s, "
              f"{b} {spread([t / 1e6 for t in total[b]], 1)} MB/s; {a} / {b} speed {spread(ratio, 2)}x")
        small, large = sorted((a, b), key=size.get)
        speed = statistics.median(ratio) if small == a else 1 / statistics.median(ratio)
        trees = (f"trees differ on {', '.join(differ)} (other grammar revisions)" if differ
                 else "same trees on every file")
        pick = small if speed >= 0.9 else large
        print(f"recommendation: {pick} -- {size[large] / size[small]:.0f}x smaller install for {small} "
              f"({size[small] / 1e6:.1f} vs {size[large] / 1e6:.1f} MB), {small} parses at {speed:.2f}x the "
              f"speed of {large}, {trees}" + "".join(f"; {v.option.name} unusable" for v in venvs if v not in usable))
    finally:
        if not args.keep:
            shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
