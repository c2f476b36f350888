"""CodeBLEU against the ``codebleu`` package 0.7.0 (the maintained CodeXGLUE evaluator), run unchanged in a
virtualenv of its own (it needs tree-sitter<0.23, we need >=0.25; see ``reference_venv.py``), on real raw
predictions of Tufano et al. 2021 and on degenerate pairs, on real consecutive revisions of whole Python,
Go, JavaScript, C, C++ and C# files, and on whole PHP, Ruby and Rust files of two releases of a package.

The PHP, Ruby and Rust files are not in the fixtures: the first test run fetches each release once with its
registry's own client into the reference cache, pinned by sha256 (``reference_venv.npm_package``,
``maven_artifact``, ``crate``), and reads the files out of the archives. Provenance (see ``RELEASES``):

* PHP: npm ``@wordpress/block-library`` 9.40.0 and 9.42.0 (GPL-2.0-or-later), ``package/src/<block>/index.php``,
  the first 12 blocks by name whose file changed and is under 30 kB (the blocks' server-side renderers).
* Ruby: Maven Central ``org.jruby:jruby-stdlib`` 9.4.7.0 and 9.4.8.0 (JRuby's copy of the Ruby standard
  library; these files Ruby's licence / BSD-2-Clause), ``META-INF/jruby.home/lib/ruby/stdlib/``: all 12 ``.rb``
  files under 20 kB that changed between the two.
* Rust: crate ``syn`` 2.0.60 and 2.0.70 (MIT OR Apache-2.0), ``src/``: the first 12 files by name under 20 kB
  that changed (``syn``'s generated and largest files left out: the reference takes seconds on each).

Two facts of the reference shape the comparisons:

* Its data-flow value depends on ``PYTHONHASHSEED`` (it orders merged parent names as a ``set`` iterates
  them). So the reference is run twice more: under two seeds, unchanged (where the two agree, we must
  agree), and with ``set`` in its two data-flow modules replaced by an insertion-ordered one (the order
  we keep), where every value must agree.
* Its grammar is tree-sitter-java 0.21 on tree-sitter 0.22, ours 0.23 on 0.26: trees of valid code are the
  same, error recovery on invalid code may differ. Structural values are compared exactly on the pairs
  whose both sides parse without ERROR/MISSING nodes, and within a small budget elsewhere.
"""

from __future__ import annotations

import json
import os
import random
import sys
import tarfile
import zipfile
from pathlib import Path

import numpy as np
import pytest

from revmine.errors import InputError

from reference_venv import ReferenceUnavailable, crate, maven_artifact, npm_package, reference_python, run_json
from revmine.metrics.codebleu import COMPONENTS, GRAMMARS, CodeBLEU, remove_comments
from revmine.metrics.predictions import read_predictions
from revmine.metrics.registry import make_metric
from revmine.metrics.tree import _sitter_parser

FIXTURE = Path(__file__).resolve().parents[2] / "shared" / "fixtures" / "tufano2021" / "predictions"
#: with the grammars its ``all`` extra asks for (tree-sitter-<lang> 0.21, C++'s and PHP's 0.22; on tree-sitter
#: 0.22) of every language compared
REFERENCE = ("codebleu-0.7.0-all", ["codebleu==0.7.0", "tree-sitter-java~=0.21.0", "tree-sitter-python~=0.21.0",
                                     "tree-sitter-go~=0.21.0", "tree-sitter-javascript~=0.21.0",
                                     "tree-sitter-c~=0.21.0", "tree-sitter-cpp~=0.22.0", "tree-sitter-c-sharp~=0.21.0",
                                     "tree-sitter-php~=0.22.0", "tree-sitter-ruby~=0.21.0", "tree-sitter-rust~=0.21.0"])
SAMPLE = 300
#: the reference's names for our components
NAMES = {"codebleu": "codebleu", "ngram": "ngram_match_score", "weighted_ngram": "weighted_ngram_match_score",
         "syntax": "syntax_match_score", "dataflow": "dataflow_match_score"}

#: Runs in the reference's virtualenv: {"pairs": [[hyp, [refs]], ...], "ordered": bool, "lang": str (default
#: java), "weights": [alpha, beta, gamma, theta] (default 0.25 each)} on stdin; prints
#: {"sentences": [calc_codebleu of each pair], "corpus": calc_codebleu of all}.
SCRIPT = r"""
import json, logging, sys
logging.disable(logging.WARNING)  # its degenerate-case warning
from codebleu import calc_codebleu
job = json.load(sys.stdin)
if job["ordered"]:
    import codebleu.dataflow_match, codebleu.parser.DFG
    class ordered(dict):  # a set that iterates in first-appearance order
        def __init__(self, items=()):
            super().__init__((item, None) for item in items)
        def add(self, item):
            self[item] = None
    codebleu.dataflow_match.set = codebleu.parser.DFG.set = ordered
pairs, lang, weights = job["pairs"], job.get("lang", "java"), tuple(job.get("weights", (0.25,) * 4))
out = {"sentences": [calc_codebleu([refs], [hyp], lang, weights) for hyp, refs in pairs],
       "corpus": calc_codebleu([refs for _, refs in pairs], [hyp for hyp, _ in pairs], lang, weights)}
print(json.dumps(out))
"""

DEGENERATE = [
    ("", "int x = 1 ;"),  # empty hypothesis
    ("a", ""),  # empty reference: no flow, one subtree
    ("return ;", "return ;"),  # no data flow on either side
    ("foo ( ) ;", "bar ( ) ;"),  # no data flow in the reference, a different call
    ("x", "x"),  # single tokens
    ("int x = y ; // comment", "int x = y ; /* other */"),  # comments are removed before parsing
    ('String s = "a // b" ;', 'String s = "a // b" ;'),  # ... but not inside strings
    ("public void m ( ) { for ( int i = 0 ; i < n ; i ++ ) { s += i ; } }",
     "public void m ( ) { for ( int i = 0 ; i < n ; i ++ ) { s = s + i ; } }"),
    ("void m ( ) { while ( a ) { b = a ; a = c ; } }", "void m ( ) { while ( a ) { a = c ; b = a ; } }"),
    ("void m ( ) { for ( X x : xs ) { y = x ; } if ( y ) { z = 1 ; } else { z = 2 ; } }",
     "void m ( ) { for ( X x : xs ) { y = x ; } if ( y ) z = 1 ; }"),
    ("public int f ( ) { return a ; ", "public int f ( ) { return a ; }"),  # cut mid-method
]


@pytest.fixture(scope="session")
def reference() -> Path:
    """The interpreter of the reference's virtualenv (made the first time, then reused)."""
    try:
        return reference_python(*REFERENCE)
    except ReferenceUnavailable as exc:  # the reference must run: no silent skip
        pytest.fail(f"the codebleu 0.7.0 reference could not be installed: {exc}")


def _reference(python: Path, pairs: list[tuple[str, list[str]]], ordered: bool, seed: int = 0,
               lang: str = "java", weights: tuple[float, ...] = (0.25,) * 4) -> dict:
    """``calc_codebleu`` per pair and on all pairs, in the reference's virtualenv (see ``SCRIPT``)."""
    try:
        return run_json(python, SCRIPT, {"pairs": pairs, "ordered": ordered, "lang": lang, "weights": weights},
                        env={"PYTHONHASHSEED": str(seed)})
    except ReferenceUnavailable as exc:
        pytest.fail(f"the codebleu 0.7.0 reference could not run: {exc}")


@pytest.fixture(scope="module")
def pairs() -> list[tuple[str, list[str]]]:
    """A sample of the raw k=1 predictions with their raw oracles, then the degenerate pairs."""
    preds = read_predictions(FIXTURE / "1-encoder_k1_raw.txt")
    hyps, refs = preds.flat()
    rows = random.Random(19).sample(range(len(hyps)), SAMPLE)
    return [(hyps[i], [refs[i]]) for i in rows] + [(h, [r]) for h, r in DEGENERATE]


@pytest.fixture(scope="module")
def ordered(reference, pairs) -> dict:
    return _reference(reference, pairs, ordered=True)


def _clean(text: str) -> bool:
    return not _sitter_parser().parse(remove_comments(text.strip()).encode()).root_node.has_error


def _compare(ours: dict[str, np.ndarray], theirs: list[dict], rows: np.ndarray, name: str) -> float:
    expected = np.array([theirs[i][NAMES[name]] for i in rows])
    difference = np.abs(ours[name][rows] - expected)
    assert difference.max(initial=0) <= 1e-6, (name, rows[np.argmax(difference)], difference.max())
    return float(difference.max(initial=0))


def test_sentence_values_and_components_equal_reference(pairs, ordered):
    hyps, refs = [h for h, _ in pairs], [r[0] for _, r in pairs]
    ours = CodeBLEU().components(hyps, refs)
    theirs = ordered["sentences"]
    everything = np.arange(len(pairs))
    clean = np.array([i for i, (h, (r,)) in enumerate(pairs) if _clean(h) and _clean(r)])
    assert len(clean) > SAMPLE // 2
    for name in ("ngram", "weighted_ngram"):
        _compare(ours, theirs, everything, name)
    for name in ("syntax", "dataflow", "codebleu"):
        _compare(ours, theirs, clean, name)
        # where error recovery differs between the grammars, a few pairs may differ
        off = np.abs(ours[name] - [t[NAMES[name]] for t in theirs]) > 1e-6
        assert off.sum() <= len(pairs) // 100, (name, np.flatnonzero(off))
    np.testing.assert_array_equal(CodeBLEU().sentence_scores(hyps, refs), ours["codebleu"])
    for name in COMPONENTS:
        np.testing.assert_array_equal(CodeBLEU(component=name).sentence_scores(hyps, refs), ours[name])


def test_corpus_values_equal_reference(reference, pairs):
    clean = [(h, r) for h, r in pairs if _clean(h) and _clean(r[0])]
    theirs = _reference(reference, clean, ordered=True)["corpus"]
    hyps, reference_sets = [h for h, _ in clean], [r for _, r in clean]
    metric = CodeBLEU()
    ours = metric.corpus_components(hyps, reference_sets)
    for name, key in NAMES.items():
        assert abs(ours[name] - theirs[key]) <= 1e-6, (name, ours[name], theirs[key])
    assert metric.multi_reference_corpus_score(hyps, reference_sets) == ours["codebleu"]
    assert metric.corpus_score(hyps, [r[0] for r in reference_sets]) == ours["codebleu"]


def test_unpatched_reference_agrees_where_its_seed_does_not_matter(reference, pairs):
    """Under two hash seeds the reference's data-flow values differ on some pairs; elsewhere they are ours."""
    runs = [_reference(reference, pairs, ordered=False, seed=seed)["sentences"] for seed in (1, 2)]
    ours = CodeBLEU().components([h for h, _ in pairs], [r[0] for _, r in pairs])
    values = np.array([[s["dataflow_match_score"] for s in run] for run in runs])
    stable = np.flatnonzero((values[0] == values[1])
                            & np.array([_clean(h) and _clean(r[0]) for h, r in pairs]))
    assert len(stable) > SAMPLE // 2
    _compare(ours, runs[0], stable, "dataflow")


def test_degenerate_corpus_without_data_flow(reference, caplog):
    """No flow in any reference: the component is 0 and counts as 1 in CodeBLEU, with no warning."""
    hyps, refs = ["foo ( ) ;", "return ;"], ["bar ( ) ;", "return ;"]
    theirs = _reference(reference, [(h, [r]) for h, r in zip(hyps, refs)], ordered=True)
    ours = CodeBLEU().corpus_components(hyps, [[r] for r in refs])
    assert ours["dataflow"] == theirs["corpus"]["dataflow_match_score"] == 0
    assert abs(ours["codebleu"] - theirs["corpus"]["codebleu"]) <= 1e-9
    assert not caplog.records


def test_multi_reference_equals_reference(reference):
    hyps = ["int x = a + b ;", "return y ;"]
    reference_sets = [["int x = a + c ;", "int z = a + b ;"], ["return y ;", "return ( y ) ;", "y"]]
    theirs = _reference(reference, list(zip(hyps, reference_sets)), ordered=True)
    metric = CodeBLEU()
    np.testing.assert_allclose(metric.multi_reference_scores(hyps, reference_sets),
                               [s["codebleu"] for s in theirs["sentences"]], rtol=0, atol=1e-9)
    assert abs(metric.multi_reference_corpus_score(hyps, reference_sets) - theirs["corpus"]["codebleu"]) <= 1e-9


def test_weights_settings_and_registry(reference):
    metric = make_metric("codebleu(alpha=0.1, beta=0.1, gamma=0.4, theta=0.4)")
    assert isinstance(metric, CodeBLEU) and metric.column == "codebleu"
    assert "alpha:0.1" in metric.signature() and "theta:0.4" in metric.signature()
    assert make_metric("codebleu(component=syntax)").column == "codebleu_syntax"
    hyp, ref = ["int x = a ;"], ["int x = b ;"]
    parts = CodeBLEU().components(hyp, ref)
    dataflow = np.where(parts["dataflow"] == 0, 1.0, parts["dataflow"])
    expected = 0.1 * parts["ngram"] + 0.1 * parts["weighted_ngram"] + 0.4 * parts["syntax"] + 0.4 * dataflow
    np.testing.assert_allclose(metric.sentence_scores(hyp, ref), expected, rtol=0, atol=1e-12)
    theirs = _reference(reference, [(hyp[0], ref)], ordered=True, weights=(0.1, 0.1, 0.4, 0.4))  # independently
    np.testing.assert_allclose(metric.sentence_scores(hyp, ref), [theirs["sentences"][0]["codebleu"]], rtol=0,
                               atol=1e-9)
    with pytest.raises(ValueError):
        CodeBLEU(lang="cobol")
    assert CodeBLEU(lang="python").settings()["parser"].startswith("tree-sitter-python-")
    # the reference's name of C# is accepted, as ours (the signature names one language once)
    assert CodeBLEU(lang="c_sharp").settings() == CodeBLEU(lang="csharp").settings()
    assert CodeBLEU(lang="c_sharp").settings()["parser"].startswith("tree-sitter-c-sharp-")
    # the evaluator's languages that revmine does not mine name their grammars too
    assert CodeBLEU(lang="php").settings()["parser"].startswith("tree-sitter-php-")
    with pytest.raises(ValueError):
        CodeBLEU(component="bleu")


def test_subtrees_cut_from_the_root_are_each_nodes_own(pairs):
    """The S-expressions cut out of the root's equal tree-sitter's ``str(node)`` of every inner node."""
    from revmine.metrics.codebleu import _JavaFlow, _structures, _Table

    texts = sorted({t.strip() for h, refs in pairs for t in (h, *refs)})
    by_string: dict[str, int] = {}
    by_id: dict[int, str] = {}
    for text, (numbers, _, _) in zip(texts, _structures(texts)):
        code = remove_comments(text)
        root = _sitter_parser().parse(code.encode()).root_node
        strings = [str(node) for node in _Table(root, code.split("\n"), _JavaFlow).inner_nodes]
        assert len(strings) == len(numbers)
        for string, number in zip(strings, numbers):  # one id per distinct string, across texts
            assert by_string.setdefault(string, number) == number and by_id.setdefault(number, string) == string


# ---------------------------------------------------------------------------------------------------
# Python, Go, JavaScript, C, C++ and C#: real consecutive revisions of real files; PHP, Ruby and Rust: real
# files of two releases of a package
# ---------------------------------------------------------------------------------------------------

REVISIONS = Path(__file__).resolve().parents[2] / "shared" / "fixtures" / "code_revisions" / "revisions.jsonl"
LANGUAGES = ("python", "go", "javascript", "c", "cpp", "csharp", "php", "ruby", "rust")
#: per language: each release's archive (fetched once, pinned), the folder of the files inside, the files
RELEASES = {
    "php": (lambda: npm_package("@wordpress/block-library", "9.40.0",
                                "ac32cef37eacd4e75cfc51fe658963ff404e6aff91f2e7fefbe9deb84c6ec8ce"),
            lambda: npm_package("@wordpress/block-library", "9.42.0",
                                "07b9b846757f83661f777302c9fab6e60e994884454428298f066bb60e7ea84d"),
            "package/src/", [f"{block}/index.php" for block in (
                "accordion-item", "button", "cover", "icon", "image", "navigation-link", "navigation-submenu",
                "page-list", "playlist", "post-featured-image", "query-title", "search")]),
    "ruby": (lambda: maven_artifact("org.jruby", "jruby-stdlib", "9.4.7.0",
                                    "e5a43e0470182fadb9ed7825af0a190d064cd2b63a714eb94a0adfd71d7735f7"),
             lambda: maven_artifact("org.jruby", "jruby-stdlib", "9.4.8.0",
                                    "65fe84ad475e01ef265d4359af7d0dd2da8d563154cc246f3ac43f2bbcedc621"),
             "META-INF/jruby.home/lib/ruby/stdlib/", [
                 "fiddle/jruby.rb", "jopenssl/_compat23.rb", "jopenssl/load.rb", "jopenssl/version.rb",
                 "openssl/buffering.rb", "openssl/config.rb", "openssl/hmac.rb", "openssl/ssl.rb", "openssl/x509.rb",
                 "uri/rfc2396_parser.rb", "uri/rfc3986_parser.rb", "uri/version.rb"]),
    "rust": (lambda: crate("syn", "2.0.60", "909518bc7b1c9b779f1bbf07f2929d35af9f0f37e47c6e9ef7f9dddc1e1821f3"),
             lambda: crate("syn", "2.0.70", "2f0209b68b3613b093e0ec905354eccaedcfe83b8cb37cbdeae64026c3064c16"),
             "{root}/src/", ["buffer.rs", "data.rs", "derive.rs", "discouraged.rs", "error.rs", "file.rs", "group.rs",
                             "ident.rs", "lifetime.rs", "lookahead.rs", "mac.rs", "macros.rs"]),
}
#: small texts of the constructs of PHP's, Ruby's and Rust's data flow that the release files lack or rarely
#: have (a ``for`` with its re-read part, a ``foreach`` over a variable, a ``while`` modifier, ``for ... in``,
#: ``let`` conditions, ``while let``), each compared with its neighbour, in both orders
CONSTRUCTS = {
    "php": ["<?php\nfor ($i = 0; $i < $n; $i++) { $s += $a[$i]; }\nforeach ($xs as $x) { $t = $t . $x; }",
            "<?php\nfunction f($a, $b = 2) { if ($a) { $c = $b; } else { $c = $a; } return $c; }",
            "<?php\nwhile ($k > 0) { $k--; $m = $k * 2; }\nforeach ($this->xs as $key => $x) { $y = $x; }"],
    "ruby": ["for i in 0..n do\n  s += a[i]\nend\nx = y while x < 10",
             "def f(a, b: 2)\n  c, d = b, a\n  if a then c = d elsif b then c = 1 else c = 2 end\n  c\nend",
             "until done\n  done = step(done)\nend\ncase v\nwhen 1 then w = v\nelse w = 0\nend"],
    "rust": ["fn f(a: i32) -> i32 { let mut s = 0; for i in 0..a { s += i; } s }\npub fn g(x: u8) {}",
             "fn h(v: Option<u8>) { if let Some(x) = v { y = x; } while let Some(z) = it.next() { w = z; } }",
             "fn k(n: u32) { loop { n -= 1; if n == 0 { break; } } match n { 0 => a = 1, _ => a = n } }"],
}
#: the reference's names of languages where they differ from ours
THEIR_NAMES = {"csharp": "c_sharp"}
#: rows read per language: all 30, but the first 12 of C, C++ and C# (whole C files average 25 kB: the
#: reference takes about 0.6 s a pair there, and the module must stay near a minute)
ROWS = {"c": 12, "cpp": 12, "csharp": 12, "php": 12, "ruby": 12, "rust": 12}

#: Runs in our environment with the reference's grammars first on the path: our components of
#: {"pairs": [[hyp, ref], ...], "lang": str} as lists.
OURS = r"""
import json, sys, warnings
warnings.simplefilter("ignore")  # tree-sitter 0.26 on a 0.21 grammar: its int-pointer deprecation
from revmine.metrics.codebleu import CodeBLEU
job = json.load(sys.stdin)
parts = CodeBLEU(lang=job["lang"]).components([h for h, _ in job["pairs"]], [r for _, r in job["pairs"]])
print(json.dumps({name: value.tolist() for name, value in parts.items()}))
"""


def _release_files(lang: str) -> list[dict[str, str]]:
    """The files of ``RELEASES[lang]`` as rows of ``before`` (the older release) and ``after`` texts."""
    old, new, folder, names = RELEASES[lang]
    try:
        archives = [old(), new()]
    except ReferenceUnavailable as exc:  # the real code must be read: no silent skip
        pytest.fail(f"the {lang} release files could not be fetched: {exc}")
    texts = []
    for archive in archives:
        if archive.suffix == ".jar":
            with zipfile.ZipFile(archive) as jar:
                texts.append([jar.read(folder + name).decode("utf-8") for name in names])
            continue
        with tarfile.open(archive) as tar:  # a crate's files are under <name>-<version>/
            prefix = folder.format(root=archive.name.removesuffix(".crate"))
            texts.append([tar.extractfile(prefix + name).read().decode("utf-8") for name in names])
    assert all(before != after for before, after in zip(*texts))
    return [{"before": before, "after": after} for before, after in zip(*texts)]


def _revision_pairs(lang: str) -> list[tuple[str, list[str]]]:
    """Whole files: each row's ``after`` as hypothesis of its ``before`` (a small real edit), then of the
    next row's ``before`` (another file of the project: low scores, every component exercised); for PHP,
    Ruby and Rust then the ``CONSTRUCTS`` texts."""
    if lang in RELEASES:
        rows = _release_files(lang)
    else:
        rows = [row for row in map(json.loads, REVISIONS.read_text(encoding="utf-8").splitlines())
                if row["language"] == lang][:ROWS.get(lang)]
    assert len(rows) >= ROWS.get(lang, 20)
    texts = CONSTRUCTS.get(lang, [])
    return ([(row["after"], [row["before"]]) for row in rows]
            + [(rows[(k + 1) % len(rows)]["after"], [row["before"]]) for k, row in enumerate(rows)]
            + [(texts[k], [texts[k - 1]]) for k in range(len(texts))] + [(t, [t]) for t in texts])


@pytest.fixture(scope="module", params=LANGUAGES)
def revisions(request, reference) -> tuple[str, list, list[dict]]:
    """(language, pairs, the ordered reference's sentence values) of the revisions of one language."""
    pairs = _revision_pairs(request.param)
    theirs = _reference(reference, pairs, ordered=True, lang=THEIR_NAMES.get(request.param, request.param))
    return request.param, pairs, theirs["sentences"]


def test_revisions_with_the_reference_grammars_equal_reference(revisions, reference, tmp_path):
    """On the reference's own grammars (its tree-sitter-<lang> 0.21/0.22 package put first on our path) every
    component of every pair is the reference's: the data-flow reading and the cleaning are the same."""
    lang, pairs, theirs = revisions
    site = next(reference.parent.parent.glob("lib/python*/site-packages"))
    module = GRAMMARS[lang].module
    for package in (module, f"{module}.libs"):
        if (site / package).exists():
            (tmp_path / package).symlink_to(site / package)
    ours = run_json(Path(sys.executable), OURS, {"pairs": [(h, r[0]) for h, r in pairs], "lang": lang},
                    env={"PYTHONPATH": os.pathsep.join([str(tmp_path), *sys.path])})
    for name in NAMES:
        _compare({key: np.array(value) for key, value in ours.items()}, theirs, np.arange(len(pairs)), name)


def test_revisions_with_our_grammars(revisions):
    """On the installed grammars the n-gram components are the reference's; the structural ones differ
    where the newer grammar names or shapes nodes otherwise (most pairs do), so only stay close."""
    lang, pairs, theirs = revisions
    ours = CodeBLEU(lang=lang).components([h for h, _ in pairs], [r[0] for _, r in pairs])
    everything = np.arange(len(pairs))
    for name in ("ngram", "weighted_ngram"):
        _compare(ours, theirs, everything, name)
    for name in ("syntax", "dataflow", "codebleu"):
        np.testing.assert_allclose(ours[name], [t[NAMES[name]] for t in theirs], rtol=0, atol=0.2)


#: Runs in the reference's virtualenv: its cleaning of {"texts": [...], "lang": str} (the text unchanged
#: where it raises, as its callers do).
CLEANING = r"""
import json, sys
from codebleu.parser.utils import remove_comments_and_docstrings
job = json.load(sys.stdin)
def clean(text):
    try:
        return remove_comments_and_docstrings(text, job["lang"])
    except Exception:
        return text
print(json.dumps([clean(text) for text in job["texts"]]))
"""


@pytest.mark.parametrize("lang", LANGUAGES)
def test_cleaning_equals_reference(reference, lang):
    """Comments (and Python's docstrings) removed as the reference does, on the revisions and on texts
    that ``tokenize`` rejects."""
    texts = [text.strip() for pair in _revision_pairs(lang) for text in (pair[0], *pair[1])]
    texts += ['def f(x):\n    """Doc."""\n    # note\n    return x  # why\n', "x = (\n\n", "x = 1\n  y = 2\n"]
    theirs = run_json(reference, CLEANING, {"texts": texts, "lang": THEIR_NAMES.get(lang, lang)})
    assert [remove_comments(text, lang) for text in texts] == theirs


def test_missing_grammar_names_the_extra(monkeypatch):
    import revmine.metrics.codebleu as codebleu

    monkeypatch.setattr(codebleu, "find_spec", lambda name: None)
    with pytest.raises(InputError, match=r"lang: .*revmine\[languages\]"):  # one line, no traceback
        CodeBLEU(lang="go")
