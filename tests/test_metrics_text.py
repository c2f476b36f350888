"""ROUGE, chrF, TER, METEOR family and the cmg2022 variants against hand-worked values and nltk."""

from __future__ import annotations

import random

import numpy as np
import pytest
from nltk.stem.porter import PorterStemmer
from nltk.translate.meteor_score import meteor_score

from revmine.metrics import wordnet
from revmine.metrics.cmg2022 import WordEditRate
from revmine.metrics.meteor import LogMnext, Meteor, MeteorNext
from revmine.metrics.text import Chrf, Rouge, Ter
from revmine.metrics.tokens import normalise


@pytest.fixture
def fresh_wordnet(monkeypatch):
    """WordNet state isolated per test: the env var is cleared and the located readers forgotten."""
    monkeypatch.delenv(wordnet.ENV_VAR, raising=False)
    wordnet.reset_cache()
    yield monkeypatch
    wordnet.reset_cache()


@pytest.fixture(scope="session")
def wn():
    status = wordnet.load_wordnet()
    if not status.available:
        pytest.skip(f"WordNet not installed ({status.reason}); CI installs Debian's wordnet-base")
    return status.reader


# --- ROUGE -----------------------------------------------------------------------------------------
# ref "the cat sat on the mat" (6 tokens), hyp "the cat on the mat" (5 tokens)
# ROUGE-1: clipped overlap the:2 cat:1 on:1 mat:1 = 5; P = 5/5, R = 5/6, F = 2PR/(P+R) = 10/11
# ROUGE-2: ref bigrams {the cat, cat sat, sat on, on the, the mat}, hyp {the cat, cat on, on the, the mat};
#          overlap 3; P = 3/4, R = 3/5, F = 2(9/20)/(27/20) = 2/3
# ROUGE-L: LCS "the cat on the mat" = 5 -> same as ROUGE-1 = 10/11
@pytest.mark.parametrize("variant,expected", [("1", 10 / 11), ("2", 2 / 3), ("L", 10 / 11)])
def test_rouge_hand_worked(variant, expected):
    m = Rouge(variant)
    assert m.score("the cat on the mat", "the cat sat on the mat") == pytest.approx(expected, abs=1e-12)
    assert m.column == f"rouge{variant}_f"


def test_rouge_stemming_switch_and_signature():
    # rouge-score Porter-stems tokens longer than 3 characters: cats->cat, running/runs->run
    assert Rouge("1").score("cats running", "cat runs") == 0.0
    stem = Rouge("1", stemmer=True)
    assert stem.score("cats running", "cat runs") == pytest.approx(1.0)
    assert stem.column == "rouge1_f_stem" and "stem:porter" in stem.signature()
    assert "stem:no" in Rouge("1").signature()


def test_rouge_empty_side_scores_zero():
    assert Rouge("L").score("", "a b") == 0.0 and Rouge("1").score("a b", "") == 0.0


# --- chrF ------------------------------------------------------------------------------------------
def test_chrf_hand_worked():
    # hyp "ab", ref "abc" (Popović 2015, n = 1..6, beta = 2, averaged over orders both sides have):
    # n=1: hyp {a,b}, ref {a,b,c}: P = 2/2, R = 2/3;  n=2: hyp {ab}, ref {ab,bc}: P = 1, R = 1/2
    # n>=3: no hypothesis n-grams.  avgP = 1, avgR = 7/12;  F2 = 5 P R / (4 P + R) = (35/12)/(55/12) = 7/11
    assert Chrf().score("ab", "abc") == pytest.approx(7 / 11, abs=1e-12)
    assert Chrf().score("same words", "same words") == pytest.approx(1.0)


def test_chrf_variants_columns_and_signature():
    assert Chrf().column == "chrf" and Chrf(word_order=2).column == "chrfpp"
    sig = Chrf(lowercase=True, eps_smoothing=True).signature()
    assert "nc:6|nw:0|beta:2|case:lc|space:no|smooth:eps" in sig and "impl:sacrebleu-" in sig


# --- TER -------------------------------------------------------------------------------------------
def test_ter_snover_shift_example():
    # Snover et al. 2006, Section 2: shifting "THIS WEEK" after "denied", substituting THE->SAUDI and
    # SAUDIS->ARABIA, inserting AMERICAN: 4 edits over 13 reference words.
    ref = "SAUDI ARABIA denied THIS WEEK information published in the AMERICAN new york times"
    hyp = "THIS WEEK THE SAUDIS denied information published in the new york times"
    t = Ter()
    assert t.score(hyp, ref) == pytest.approx(4 / 13, abs=1e-12)
    assert t.higher_is_better is False and t.column == "ter"
    assert "case:lc|tok:tercom" in t.signature()


def test_ter_can_exceed_one_and_case_switch():
    assert Ter().score("a b c d", "x") == pytest.approx(4.0)  # 1 substitution + 3 deletions over 1 word
    assert Ter().score("Fix Bug", "fix bug") == 0.0
    assert Ter(case_sensitive=True).score("Fix Bug", "fix bug") == pytest.approx(1.0)


# --- METEOR family ---------------------------------------------------------------------------------
HYP, REF = "bugs fixed in parser", "fixed parser bug"
# tokens hyp [bugs fixed in parser] (4), ref [fixed parser bug] (3)
# exact: parser(3,1), fixed(1,0); stem: bugs~bug (0,2); 'in' unmatched -> 2 exact + 1 stem, 3 matches
# in hypothesis order (0,2) (1,0) (3,1): 3 chunks, frag = 3/3 = 1


def test_meteor_hand_worked_nltk_parameters():
    # P = 3/4, R = 1; Fmean = PR/(0.9P + 0.1R) = 0.75/0.775; penalty 0.5 * 1^3
    expected = 0.75 / 0.775 * 0.5
    assert Meteor(synonyms=False).score(HYP, REF) == pytest.approx(expected, abs=1e-12)


def test_meteor_next_hand_worked_rank_weights():
    # rank: w = exact 1, stem 0.6 -> 2.6 weighted; P = 2.6/4, R = 2.6/3; alpha .85; penalty 0.6 * 1^0.2
    p, r = 2.6 / 4, 2.6 / 3
    expected = p * r / (0.85 * p + 0.15 * r) * (1 - 0.6)
    m = MeteorNext(synonyms=False)
    assert m.score(HYP, REF) == pytest.approx(expected, abs=1e-12)
    assert MeteorNext(synonyms=False).column == "meteor_next_nosyn"
    assert MeteorNext("hter", synonyms=False).column == "meteor_next_hter_nosyn"
    assert "task:rank" in m.signature() and "w:1/0.6/0.8" in m.signature()


def test_log_mnext_hand_worked_and_complete_alignment_rule():
    # w = 1/0.8 -> 2.8 weighted; P = 0.7, R = 2.8/3; alpha .85; incomplete -> penalty 0.45 * 1^2.35
    p, r = 0.7, 2.8 / 3
    expected = p * r / (0.85 * p + 0.15 * r) * (1 - 0.45)
    m = LogMnext(synonyms=False)
    assert m.score(HYP, REF) == pytest.approx(expected, abs=1e-12)
    # complete alignment in 2 chunks: no penalty for Log-MNEXT, METEOR 1.5's rule still penalises
    assert m.score("parser fixed", "fixed parser") == pytest.approx(1.0)
    assert MeteorNext(synonyms=False).score("parser fixed", "fixed parser") == pytest.approx(1 - 0.6)
    # lower-casing and punctuation removal are on by default; identical strings score 1 (nltk's does not)
    assert m.score("Fix: the Bug!", "fix the bug") == pytest.approx(1.0)
    assert MeteorNext(synonyms=False).score("fix bug", "fix bug") == pytest.approx(1.0)
    assert Meteor(synonyms=False).score("fix bug", "fix bug") == pytest.approx(1 - 0.5 * 0.5**3)


def test_switches_change_columns_and_signatures():
    cased = LogMnext(lowercase=False, punctuation="none", synonyms=False)
    assert cased.column == "log_mnext_cased_keeppunct_nosyn"
    assert "case:mixed|punct:none" in cased.signature() and "syn:off" in cased.signature()
    assert cased.score("Fix bug", "fix bug") < 1.0
    assert normalise("Don't (fix) it!", True, "ascii") == "dont fix it"
    assert normalise("a+b=c|d", False, "cmg2022") == "a+b=c|d"  # Dey et al.'s set keeps + = |


class _NoSynonyms:
    """A WordNet stand-in without synsets: nltk then matches exact and stem only."""

    def synsets(self, word):
        return []


def _random_pairs(vocab, n, seed):
    rng = random.Random(seed)
    sentence = lambda: " ".join(rng.choice(vocab) for _ in range(rng.randint(1, 12)))
    return [(sentence(), sentence()) for _ in range(n)]


def test_meteor_equals_nltk_without_synonyms():
    # inflected forms and repeated words exercise the stem module and the greedy order
    vocab = "fix fixes fixed fixing Fix test tests tested add adds added the a of bug bugs Bug parser".split()
    pairs = _random_pairs(vocab, 400, seed=1)
    ours = Meteor(synonyms=False).sentence_scores([h for h, _ in pairs], [r for _, r in pairs])
    theirs = [meteor_score([r.split()], h.split(), wordnet=_NoSynonyms()) for h, r in pairs]
    np.testing.assert_allclose(ours, theirs, rtol=0, atol=1e-12)


def test_meteor_equals_nltk_with_wordnet(wn):
    # nltk looks synonyms up on Porter stems of left-over words, we on the words: the definitions
    # coincide on words their stem leaves unchanged, so the vocabulary is filtered to those.
    stem = PorterStemmer().stem
    words = "car auto big large quick fast bug glitch error fix repair set get add test run the a is".split()
    vocab = [w for w in words if stem(w) == w]
    assert len(vocab) >= 15
    pairs = _random_pairs(vocab, 300, seed=2)
    m = Meteor()
    assert "syn:wn3.0" in m.signature() and m.synonyms_used
    ours = m.sentence_scores([h for h, _ in pairs], [r for _, r in pairs])
    theirs = [meteor_score([r.split()], h.split(), wordnet=wn) for h, r in pairs]
    np.testing.assert_allclose(ours, theirs, rtol=0, atol=1e-12)
    assert m.score("the car", "the auto") > Meteor(synonyms=False).score("the car", "the auto")


def test_meteor_syn_nltk_equals_nltk_pair_by_pair(wn):
    # syn=nltk looks synonyms up for the stems the stem module left, as nltk >= 3.6.6: equal to nltk's
    # meteor_score on any vocabulary, inflected words included (the surface lookup is not).
    vocab = ("use uses function functions change changed position positions always forever car cars auto "
             "big large fix fixes repair repairs bug bugs glitch the a for").split()
    pairs = _random_pairs(vocab, 400, seed=5)
    m = Meteor(syn="nltk")
    assert "synmatch:nltk" in m.signature() and m.column == "meteor_synnltk"
    ours = m.sentence_scores([h for h, _ in pairs], [r for _, r in pairs])
    theirs = [meteor_score([r.split()], h.split(), wordnet=wn) for h, r in pairs]
    np.testing.assert_allclose(ours, theirs, rtol=0, atol=1e-12)
    # the two examples of issue 12: nltk 0.1316 and 0; the surface lookup 0 and 0.5
    hyp, ref = "use <unk>", "change position for functions"
    assert m.score(hyp, ref) == pytest.approx(meteor_score([ref.split()], hyp.split(), wordnet=wn), abs=1e-12)
    assert m.score(hyp, ref) == pytest.approx(0.1316, abs=5e-5) and Meteor().score(hyp, ref) == 0.0
    assert m.score("always", "forever") == 0.0 and Meteor().score("always", "forever") == pytest.approx(0.5)
    with pytest.raises(ValueError, match="syn"):
        Meteor(syn="stems")


def test_log_mnext_cmg2022_alignment_quirk(wn):
    # hyp [fixes bug now], ref [fix bug]: exact bug(1,1); stem fixes~fix (0,0). Their script runs the
    # synonym module again over fixes/fix (WordNet lists "fix" among the lemmas of "fixes"): (0,0) twice.
    # Weighted count 1 + 0.8 (the repeated pair is not weighted again): P = 1.8/3, R = 1.8/2.
    # Pairs (0,0) (0,0) (1,1): 2 chunks over 3 matches; the definition has (0,0) (1,1): 1 chunk over 2.
    p, r = 0.6, 0.9
    fmean = p * r / (0.85 * p + 0.15 * r)
    script = LogMnext(alignment="cmg2022")
    assert script.column == "log_mnext_cmg2022" and "punct:cmg2022|" in script.signature()
    assert script.score("fixes bug now", "fix bug") == pytest.approx(fmean * (1 - 0.45 * (2 / 3) ** 2.35), abs=1e-12)
    assert LogMnext().score("fixes bug now", "fix bug") == pytest.approx(fmean * (1 - 0.45 * 0.5**2.35), abs=1e-12)


def test_wordnet_missing_degrades_with_one_warning(fresh_wordnet):
    fresh_wordnet.setenv(wordnet.ENV_VAR, "none")
    with pytest.warns(wordnet.WordNetMissingWarning, match="syn:none"):
        m = Meteor()
    assert "syn:none" in m.signature() and not m.synonyms_used
    assert m.column == "meteor"  # same metric, degraded: the signature tells
    with _no_warning():  # once per process
        Meteor()
    pairs = _random_pairs("fix fixes car auto the bug".split(), 50, seed=3)
    np.testing.assert_array_equal(
        m.sentence_scores([h for h, _ in pairs], [r for _, r in pairs]),
        Meteor(synonyms=False).sentence_scores([h for h, _ in pairs], [r for _, r in pairs]),
    )


def test_wordnet_parameter_and_bad_path(fresh_wordnet, tmp_path):
    with pytest.warns(wordnet.WordNetMissingWarning):
        assert "syn:none" in Meteor(wordnet="none").signature()
    with pytest.raises(FileNotFoundError, match="index.noun"):
        Meteor(wordnet=tmp_path)


def test_wordnet_lexnames_written_for_debian_layout(tmp_path):
    source = tmp_path / "dict"
    source.mkdir()
    for name in wordnet.REQUIRED_FILES:
        (source / name).write_text("x")
    shim = wordnet._materialise(source, tmp_path / "corpora")
    lines = (shim / "lexnames").read_text().splitlines()
    assert len(lines) == 45 and lines[0] == "00\tadj.all\t3" and lines[3] == "03\tnoun.Tops\t1"
    assert lines[29] == "29\tverb.body\t2" and lines[44] == "44\tadj.ppl\t3"
    assert wordnet._materialise(source, tmp_path / "corpora") == shim  # reused, not rebuilt


class _no_warning:
    def __enter__(self):
        import warnings

        self._ctx = warnings.catch_warnings(record=True)
        self._log = self._ctx.__enter__()
        warnings.simplefilter("always")

    def __exit__(self, *exc):
        self._ctx.__exit__(*exc)
        assert not [w for w in self._log if issubclass(w.category, wordnet.WordNetMissingWarning)]


# --- cmg2022 variants ------------------------------------------------------------------------------
def _offbyone_table(hyp: list[str], ref: list[str]) -> float:
    """Dey et al.'s table written out: N x M cells, boundary on row/column 0, answer in the last cell."""
    n, m = len(hyp), len(ref)
    table = [[0] * m for _ in range(n)]
    for i in range(n):
        for j in range(m):
            if i == 0 or j == 0:
                table[i][j] = max(i, j)
            else:
                table[i][j] = min(
                    table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + (hyp[i] != ref[j])
                )
    return table[n - 1][m - 1] / m


def test_word_edit_rate_hand_worked():
    m = WordEditRate()
    # hyp[1:] = [b c], ref[1:] = [x c d]: substitute b->x, insert d = 2 edits over 4 reference words
    assert m.score("a b c", "a x c d") == pytest.approx(0.5)
    assert m.score("x b", "a b") == 0.0  # the first words are never compared
    assert m.higher_is_better is False and m.column == "ter_cmg2022"
    assert np.isnan(m.score("", "a b")) and np.isnan(m.score("a", ""))


def test_word_edit_rate_equals_the_table():
    pairs = _random_pairs("a b c d e".split(), 300, seed=4)
    ours = WordEditRate().sentence_scores([h for h, _ in pairs], [r for _, r in pairs])
    table = [_offbyone_table(h.split(), r.split()) for h, r in pairs]
    np.testing.assert_allclose(ours, table, rtol=0, atol=1e-12)


def test_rouge101_swaps_arguments():
    pytest.importorskip("rouge")
    from rouge import Rouge as PackageRouge

    from revmine.metrics.cmg2022 import Rouge101

    # the package splits "sentences" on '.', and its union LCS is not symmetric in them
    hyp, ref = "the cat sat. on the mat", "the cat. sat on the mat"
    swapped = PackageRouge().get_scores(ref, hyp)[0]
    assert Rouge101("L").score(hyp, ref) == pytest.approx(swapped["rouge-l"]["f"]) == pytest.approx(1.0)
    assert Rouge101("L", swapped=False).score(hyp, ref) == pytest.approx(0.8)
    assert Rouge101("1").score(hyp, ref) == pytest.approx(Rouge101("1", swapped=False).score(hyp, ref))
    assert np.isnan(Rouge101("1").score("", "a"))
    assert Rouge101("2").column == "rouge2_f_cmg2022" and "args:swapped" in Rouge101("2").signature()


# --- optimised batch paths equal the plain per-pair library calls ------------------------------------
def _batch_pairs(tufano_dir, n_real=240):
    """Real beam pairs (each reference repeated k times), random ones, exact duplicates and empty sides."""
    from revmine.metrics.predictions import read_predictions

    hyps, refs = read_predictions(tufano_dir / "predictions" / "1-encoder_k10_abstracted.txt").flat()
    pairs = list(zip(hyps[:n_real], refs[:n_real]))
    vocab = "Fix fix fixes fixed the a bug bugs parser, (null) x_y don't car auto . ; é 42".split()
    pairs += _random_pairs(vocab, 150, seed=7)
    pairs += [("", ""), ("", "fix the bug"), ("fix the bug", ""), ("  ", "a"), ("a", "   "), ("!!", "?")]
    pairs += pairs[:40] + pairs[250:270]  # duplicates, far from their first occurrence
    random.Random(8).shuffle(pairs)
    return [h for h, _ in pairs], [r for _, r in pairs]


def _rouge_reference(variant, stemmer):
    from rouge_score import rouge_scorer

    scorer = rouge_scorer.RougeScorer([f"rouge{variant}"], use_stemmer=stemmer)
    return lambda h, r: scorer.score(r, h)[f"rouge{variant}"].fmeasure


@pytest.mark.parametrize("variant", ["1", "2", "L"])
@pytest.mark.parametrize("stemmer", [False, True])
def test_rouge_batch_equals_rouge_score_per_pair(tufano_dir, variant, stemmer):
    hyps, refs = _batch_pairs(tufano_dir)
    per_pair = _rouge_reference(variant, stemmer)
    expected = [per_pair(h, r) for h, r in zip(hyps, refs)]
    # bit for bit: our n-gram counts and rouge-score's public fmeasure give its exact floats
    np.testing.assert_array_equal(Rouge(variant, stemmer).sentence_scores(hyps, refs), expected)


@pytest.mark.parametrize("settings", [{}, {"word_order": 2}, {"lowercase": True, "whitespace": True},
                                      {"eps_smoothing": True, "char_order": 4, "beta": 1}])
def test_chrf_batch_equals_sacrebleu_per_pair(tufano_dir, settings):
    from sacrebleu.metrics import CHRF

    hyps, refs = _batch_pairs(tufano_dir)
    lib = CHRF(**settings)
    expected = [lib.sentence_score(h, [r]).score / 100 for h, r in zip(hyps, refs)]
    np.testing.assert_allclose(Chrf(**settings).sentence_scores(hyps, refs), expected, rtol=0, atol=1e-12)


@pytest.mark.parametrize("settings", [{}, {"case_sensitive": True, "normalized": True}, {"no_punct": True}])
def test_ter_batch_equals_sacrebleu_per_pair(tufano_dir, settings):
    from sacrebleu.metrics import TER

    hyps, refs = _batch_pairs(tufano_dir, n_real=120)
    lib = TER(**settings)
    expected = [lib.sentence_score(h, [r]).score / 100 for h, r in zip(hyps, refs)]
    np.testing.assert_allclose(Ter(**settings).sentence_scores(hyps, refs), expected, rtol=0, atol=1e-12)


@pytest.mark.parametrize("cls", [Meteor, MeteorNext, LogMnext])
def test_meteor_batch_equals_per_pair_alignment(tufano_dir, cls):
    from revmine.metrics.meteor import align, meteor_from_alignment

    hyps, refs = _batch_pairs(tufano_dir)
    m = cls()

    def per_pair(h, r):  # what sentence_scores did before it cached tokens and distinct pairs
        hyp, ref = m.tokens(h), m.tokens(r)
        return meteor_from_alignment(align(hyp, ref, m._stem, m._synonyms, m.alignment), len(hyp), len(ref),
                                     m.parameters, m.exemption)

    expected = [per_pair(h, r) for h, r in zip(hyps, refs)]
    np.testing.assert_allclose(m.sentence_scores(hyps, refs), expected, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(m.sentence_scores(hyps[:0], refs[:0]), np.zeros(0))


def test_word_edit_rate_batch_equals_per_pair(tufano_dir):
    hyps, refs = _batch_pairs(tufano_dir)
    m = WordEditRate(lowercase=True, punctuation="ascii")

    def per_pair(h: str, r: str) -> float:  # the script's table on the normalised words; NaN on an empty side
        hyp, ref = normalise(h, True, "ascii").split(), normalise(r, True, "ascii").split()
        return _offbyone_table(hyp, ref) if hyp and ref else np.nan

    expected = [per_pair(h, r) for h, r in zip(hyps, refs)]
    assert not np.isnan(expected).all()
    np.testing.assert_allclose(m.sentence_scores(hyps, refs), expected, rtol=0, atol=1e-12)


def test_nl_metrics_pickle_and_score_the_same(tufano_dir):
    import pickle

    from revmine.metrics.registry import default_metrics

    hyps, refs = _batch_pairs(tufano_dir, n_real=60)
    for m in default_metrics("nl") + [WordEditRate(), LogMnext(alignment="cmg2022")]:
        copy = pickle.loads(pickle.dumps(m))
        assert copy.signature() == m.signature() and copy.column == m.column
        assert copy.sentence_scores(hyps, refs).tobytes() == m.sentence_scores(hyps, refs).tobytes(), m.column


def test_meteor_unpickled_where_wordnet_differs_is_an_error(fresh_wordnet, wn):
    import pickle

    blob = pickle.dumps(Meteor())  # built with WordNet
    fresh_wordnet.setenv(wordnet.ENV_VAR, "none")
    wordnet.reset_cache()
    with pytest.raises(RuntimeError, match="wn3.0"):
        pickle.loads(blob)


_CHRF_EDGES = [("", "abc"), ("abc", ""), ("", ""), ("a", "a"), ("ab c", "abc"), ("aaaa aa", "aaa"),
               ("Ünïcödé  çhars\tok", "unicode chars ok"), ("(hi) there, friend.", "hi (there) friend"),
               ("fix bug\nin parser", "Fix the bug in the parser."), ("x" * 9, "x" * 7), ("𝔘 ok", "𝔘 ok !")]


@pytest.mark.parametrize("compiled", [True, False])
@pytest.mark.parametrize("settings", [{}, {"word_order": 2}, {"lowercase": True, "char_order": 3, "word_order": 1},
                                      {"eps_smoothing": True, "word_order": 2}])
def test_chrf_compiled_and_counters_equal_sacrebleu_bit_for_bit(monkeypatch, tufano_dir, compiled, settings):
    """The batch pairs plus empty sides, strings shorter than the orders, repeated characters, non-ASCII,
    tabs and newlines, punctuation that chrF++ splits off: the compiled statistics (used from
    ``NUMBA_MIN_PAIRS`` pairs) and sacrebleu's Counters both give sacrebleu's exact floats."""
    from sacrebleu.metrics import CHRF

    from revmine.metrics import _bleu, text

    if compiled and not _bleu.AVAILABLE:
        pytest.skip("numba is not installed")
    hyps, refs = _batch_pairs(tufano_dir)
    hyps, refs = list(hyps) + [h for h, _ in _CHRF_EDGES], list(refs) + [r for _, r in _CHRF_EDGES]
    monkeypatch.setattr(text, "NUMBA_MIN_PAIRS", 1 if compiled else len(hyps) + 1)
    lib = CHRF(**settings)
    expected = [lib.sentence_score(h, [r]).score / 100 for h, r in zip(hyps, refs)]
    np.testing.assert_array_equal(Chrf(**settings).sentence_scores(hyps, refs), expected)
