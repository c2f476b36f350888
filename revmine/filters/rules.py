"""Keyword rules that flag reviewer comments asking for no change to the method (noise).

Tufano et al. (ICSE 2021) removed comments that do not ask for a code change before training, with
keyword rules and a classifier. The paper names the kinds of comment it removed but its exact keyword
lists were not found (neither in the paper's text nor in a searchable copy of the replication package),
so the lists below were **derived** for revmine from the categories the paper describes and from what
Gerrit and GitHub review threads typically contain. They are tuned for precision: a rule should fire on
noise and stay silent on a comment that asks for a change, because a removed relevant comment is lost
for good while a missed noise comment can still be caught by the classifier
(:mod:`revmine.filters.classifier`), which uses these categories as features.
On the 1,719 published comments of the 2021 test split (every one kept by the authors' filter) the rules
fire on 36, of which 31 are hand-labelled noise (``revmine/data/LABELLING.md``); only the rules of
:data:`DROPPING_RULES` remove a comment by themselves in the default filter (13 published comments, 12
labelled noise), the others are features of the classifier.

Three kinds of rule:

* *whole-comment* rules (``empty_after_stopwords``, ``approval``, ``short_answer``) look at every word
  (``approval`` also takes praise that opens the comment and names what it likes, "Nice cleanup", when
  nothing after it hedges or asks);
* *dominant* rules (``thanks``, ``acknowledgement``, ``plus_one``, ``clarification``, ``reference``,
  ``link``, ``for_now``) fire when their phrase is there **and** the rest of the comment neither holds a
  change-request cue ("please", "should", "why not", an imperative such as "rename") nor more than a few
  content words, so "Thanks! Please make ``x`` final" is not a thank-you message;
* *topic* rules (``formatting``, ``add_tests``, ``documentation``, ``pr_organisation``) fire on their
  phrase unless much else is said, because such requests change files or lines the method pair does
  not capture (tests, Javadoc and layout are gone after abstraction), even when phrased as requests.
  A change request in a clause *without* the topic phrase still vetoes them: "This line is too long,
  extract a local variable" and "Please add a test and also check for null here" ask for code changes.
  Braces are formatting only where they go on a line: they are tokens of the abstracted method, so
  "add braces around the if body" asks for a change.

Matching is done on the prose: fenced blocks, inline code and URLs are taken out first (a comment
holding code or a GitHub ``suggestion`` block is never "empty" or a bare approval). Words are the runs
of word characters in any script; stop words are :func:`revmine.lang.stopwords.default_stopwords`; one-letter words and
contraction fragments ("don", "isn") are not content.
"""

from __future__ import annotations

import re
from typing import Callable

from ..lang.stopwords import default_stopwords

__all__ = ["DROPPING_RULES", "RULE_NAMES", "asks_for_change", "categories", "drops", "is_noise_by_rules",
           "message_body"]

_FENCE = re.compile(r"```.*?(?:```|\Z)", re.S)
_INLINE = re.compile(r"`[^`\n]+`")
_URL = re.compile(r"(?:https?://|www\.)\S+", re.I)
_WORD = re.compile(r"\w+")  # any script: a comment in Korean or Russian is not "empty"
_CONTRACTION_PARTS = frozenset({"don", "doesn", "didn", "isn", "aren", "wasn", "weren", "won", "wouldn",
                                "shouldn", "couldn", "ll", "ve", "re", "im", "ive"})

# Cues that the comment asks for a change; they veto the "dominant" rules.
_VERBS = (r"(?:rename|remove|delete|drop|add|use|make|change|replace|move|extract|inline|avoid|fix|check|"
          r"handle|return|throw|rethrow|catch|wrap|mark|declare|pass|call|log|reuse|revert|put|simplify|guard|"
          r"close|merge|introduce|switch|convert|swap|flip|invert|split|release|reset|store|cache|validate)")
# A change verb asked for: an imperative ("rename", "please use") or "could you / we should" + verb.
_CHANGE_VERB = (
    r"(?:^|[.!?;:,]\s*|\band\s+|\bbut\s+|\balso\s+)(?:please\s+|pls\s+|kindly\s+|let's\s+|let us\s+)?"
    + _VERBS + r"\b"
    r"|\b(?:(?:could|can|would) (?:we|you)|(?:we|you) (?:can|could|should|might|may|need to|have to)) "
    r"(?:just |also |simply |please |probably )?" + _VERBS + r"\b"
)
_ASKS_CHANGE_VERB = re.compile(_CHANGE_VERB, re.I)
_REQUEST = re.compile(
    _CHANGE_VERB
    + r"|(?:^|[.!?;:,]\s*)(?:please\s+)?(?:don't|do not|never)\b"
    r"|\b(?:please|pls|plz|kindly|should|shouldn't|must|need to|needs to|has to|have to|"
    r"why not|how about|what about|instead|rather than|i'd|i would|suggest|prefer|consider|"
    r"would be (?:better|cleaner|nicer|simpler|safer|clearer)|better to|better use|is wrong|is broken|"
    r"not needed|unnecessary|redundant|unused|never (?:used|read|closed|released)|"
    r"bug|npe|leak|null ?pointer|off[- ]by[- ]one|race condition|not thread[- ]safe)\b"
    r"|(?:n't|\bnot) (?:look |seem |sound )?(?:right|correct)\b",
    re.I,
)
_QUOTE = re.compile(r"^\s*>.*$", re.M)
_ADDRESS = re.compile(r"^\s*(?:(?:hi|hello|hey|dear)\s+@?[\w.-]+\s*[,:!]?\s+|@[\w.-]+\s*[,:]?\s+|[\w.-]+:\s+)(?=\S)")
_OPERATOR = re.compile(r"[<>=!]=|[<>]|&&|\|\|")


#: The header Gerrit writes at the top of a change message (Documentation/rest-api-changes.txt, ChangeMessageInfo):
#: "Patch Set 3: Code-Review+2 Verified+1" or "Patch Set 1: Looks good to me, approved", then "(2 comments)".
_GERRIT_HEADER = re.compile(r"\A\s*Patch Set \d+:([^\n]*)(?:\n|\Z)(?:\s*\(\d+ (?:inline )?comments?\)[ \t]*(?:\n|\Z))?", re.I)
_VOTE = re.compile(r"\b[A-Za-z][\w-]*([+-])\d\b")


def message_body(text: str) -> str:
    """What the reviewer wrote in a Gerrit change message: the header line of votes and the count of inline
    comments dropped. A message that is only its header keeps its votes, as ``+1`` or ``-1`` each
    (``Code-Review+2 Verified+1`` -> ``+1 +1``), or the words Gerrit gave them ("Looks good to me, approved"):
    a bare approval is praise, and the rules see it as one. A header with neither votes nor text ("Patch Set 4:"
    over "(2 comments)": the reviewer's words are in the inline comments) leaves nothing. Any other text is
    returned unchanged."""
    header = _GERRIT_HEADER.match(text)
    if header is None:
        return text
    body = text[header.end():].strip()
    if body:
        return body
    return _VOTE.sub(lambda m: f"{m.group(1)}1", header.group(1)).strip().removeprefix("No score;").strip()


def _prose(text: str) -> str:
    """Lower-case prose of ``text``: quoted lines, code, suggestion blocks and URLs removed."""
    text = text.replace("\u2019", "'").replace("\u2018", "'")
    text = _URL.sub(" ", _INLINE.sub(" ", _FENCE.sub(" ", _QUOTE.sub(" ", text))))
    text = " ".join(text.lower().split())
    greeting = _ADDRESS.match(text)
    # Drop "@bob", "Hi bob," or "bob:" before the comment proper, but keep "nit:" and its kin.
    if greeting and greeting.group(0).strip(" ,:!@").split()[-1] not in _NOT_NAMES:
        text = text[greeting.end():]
    return text


_NOT_NAMES = frozenset({"nit", "nits", "typo", "minor", "optional", "suggestion", "note", "question", "fyi",
                        "nb", "ps", "edit", "update", "same", "done", "fixed", "ok", "okay", "yes", "no",
                        "thanks", "thx", "hmm", "ack", "why", "cf", "see", "related", "context", "ref",
                        "background", "also", "again", "here", "this", "that", "simplify", "naming", "bug",
                        "param", "return", "throws", "since", "deprecated", "nullable", "override", "link",
                        "inheritdoc", "suppresswarnings", "visiblefortesting", "nonnull", "author"})


def _has_code(text: str) -> bool:
    own = _QUOTE.sub(" ", text)
    return bool(_FENCE.search(own) or _INLINE.search(own))


def _content(prose: str, ignore: frozenset[str] = frozenset()) -> list[str]:
    """Words that carry meaning: not stop words, not one letter, not in ``ignore``."""
    stop = default_stopwords()
    return [w for w in _WORD.findall(prose)
            if len(w) > 1 and w not in stop and w not in _CONTRACTION_PARTS and w not in ignore]


def _rest(prose: str, pattern: re.Pattern[str]) -> str:
    # "_" (not a space) keeps "why this change" from leaving a sentence-initial "change" behind.
    return pattern.sub(" _ ", prose)


# Words that often pad a thank-you, an approval or an acknowledgement without asking for anything.
_PADDING = frozenset({
    "lot", "much", "guys", "man", "mate", "again", "patch", "change", "pr", "review", "reviewing",
    "looking", "quick", "fixing", "update", "updating", "updated", "contribution", "effort", "work",
    "job", "explanation", "clarification", "info", "pointer", "answer", "reply", "response", "catch",
    "now", "looks", "ps", "patchset", "version", "revision", "comment", "comments", "feedback", "sir",
    "team", "fix", "done", "ok", "okay", "good", "great", "nice", "lgtm", "sense", "makes", "see",
    "agree", "agreed", "right", "true", "point", "fine", "cool", "thx", "thanks", "thank", "cheers",
})


def _dominant(pattern: re.Pattern[str], limit: int, code_vetoes: bool = False) -> Callable[[str, str], bool]:
    """A rule firing when ``pattern`` matches and the rest has no request cue and <= ``limit`` words;
    with ``code_vetoes``, code in the comment vetoes it too ("Ditto `input != null`" spells the change out)."""
    def rule(prose: str, text: str) -> bool:
        if not pattern.search(prose) or (code_vetoes and _has_code(text)):
            return False
        rest = _rest(prose, pattern)
        return not _REQUEST.search(rest) and len(_content(rest, _PADDING)) <= limit
    return rule


# Clause boundaries: punctuation, and the conjunctions that start a second request.
_CLAUSE = re.compile(r"[.!?;:,]+|\s(?:and|but|also|then|plus)\s")
_TOPIC_MARK = "\x00"


def _topic(pattern: re.Pattern[str], vocabulary: frozenset[str], limit: int,
           veto: re.Pattern[str] | None = None) -> Callable[[str, str], bool]:
    """A rule firing when ``pattern`` matches, the rest holds <= ``limit`` other content words, and no
    clause without the topic phrase asks for a change verb ("please fix" next to the phrase belongs to it,
    and a lone "please" asks for nothing new); ``veto`` matching the rest silences it."""
    def rule(prose: str, _text: str) -> bool:
        if not pattern.search(prose) or (veto is not None and veto.search(_rest(prose, pattern))):
            return False
        marked = pattern.sub(f" {_TOPIC_MARK} ", prose)
        if any(_ASKS_CHANGE_VERB.search(clause.strip()) for clause in _CLAUSE.split(marked)
               if _TOPIC_MARK not in clause):
            return False
        return len(_content(_rest(prose, pattern), vocabulary | _PADDING)) <= limit
    return rule


def _empty_after_stopwords(prose: str, text: str) -> bool:
    # "This isn't right." is all stop words but points at a defect: the request cues veto.
    return (not _has_code(text) and not _OPERATOR.search(prose) and not _REQUEST.search(prose)
            and not _content(prose))


_APPROVAL_KEYS = frozenset({
    "lgtm", "sgtm", "good", "great", "nice", "perfect", "awesome", "excellent", "cool", "neat", "fine",
    "ok", "okay", "better", "beautiful", "lovely", "brilliant", "elegant", "approved", "ship", "superb",
    "fantastic", "wonderful", "impressive", "solid", "amazing", "sweet",
})
_APPROVAL_PADDING = frozenset({"looks", "look", "job", "work", "overall", "much", "really", "very", "so",
                               "now", "me", "to", "it", "this", "that", "the", "a", "all", "quite", "pretty",
                               "indeed", "stuff", "change", "patch", "pr", "one", "idea", "here", "lgtm"})


# Praise that names what it likes ("Nice cleanup", "I like this approach a lot", "This is much cleaner now"):
# it opens the comment, and nothing after it hedges, asks or proposes ("would be nice to", "but", "?", "use").
# The words are the rubric's praise (docs/comment-rubric.md); on the 3,452 real change requests labelled against it
# (the 2021 split, comments_labelled.csv, the Gerrit evaluation set: revmine/data/LABELLING.md) it fires on none.
_PRAISE = re.compile(
    r"^\W*(?:(?:very|really|so|pretty|quite) )?(?:nice|good|great|excellent|awesome|cool|neat|lovely|beautiful|"
    r"brilliant|elegant|perfect|wow|yay|sweet|love|like|i (?:really )?(?:like|love)|well done|kudos|clever|smart|"
    r"much (?:better|cleaner|nicer|simpler|clearer)|(?:this|that|it)(?: i|')s (?:a )?(?:much |really |very |so )?"
    r"(?:nice|good|great|better|cleaner|nicer|simpler|clearer|neat|awesome|cool|clever|elegant|beautiful))\b")
_PRAISE_HEDGE = re.compile(
    r"\b(?:would|could|should|might|may|if|but|though|however|instead|rather|maybe|perhaps|consider|prefer|"
    r"suggest|why|not|no|don't|remove|rename|add|use|move|change)\b|\b(?:good|nice|great|better|best|cool) to\b|\?")


def _approval(prose: str, text: str) -> bool:
    words = _WORD.findall(prose)
    if _has_code(text) or not words:
        return False
    if len(words) <= 5 and any(w in _APPROVAL_KEYS for w in words) and all(
            w in _APPROVAL_KEYS or w in _APPROVAL_PADDING or w in default_stopwords() for w in words):
        return True
    return (_PRAISE.match(prose) is not None and _PRAISE_HEDGE.search(prose) is None
            and _REQUEST.search(prose) is None and len(_content(prose, _PADDING)) <= 6)


_ANSWERS = frozenset({
    "yes", "yeah", "yep", "yup", "no", "nope", "nah", "sure", "right", "correct", "exactly", "true",
    "false", "indeed", "maybe", "probably", "possibly", "absolutely", "definitely", "np", "ok", "okay",
    "k", "kk", "hmm", "hm", "idk", "nvm", "perhaps", "agreed",
})


def _short_answer(prose: str, text: str) -> bool:
    words = [w for w in _WORD.findall(prose) if w not in _CONTRACTION_PARTS and w not in ("s", "t")]
    # Every word after the answer must be an answer or a stop word: "no public" names what to change.
    return (not _has_code(text) and 0 < len(words) <= 3 and words[0] in _ANSWERS
            and all(w in _ANSWERS or w in default_stopwords() for w in words[1:]))


def _link(prose: str, text: str) -> bool:
    if not _URL.search(_QUOTE.sub(" ", text)) or _has_code(text):  # code beside a link names the change
        return False
    return not _REQUEST.search(prose) and len(_content(prose, _PADDING)) <= 2


_PLUS_ONE = re.compile(r"(?:^|\s)\+1\b|\+1(?=\s|$|[.!,])|\U0001F44D|:\+1:|:thumbsup:", re.I)


def _plus_one(prose: str, text: str) -> bool:
    # _prose keeps "+1" and the thumbs-up emoji; the rest test mirrors the dominant rules.
    if not _PLUS_ONE.search(prose):
        return False
    rest = _rest(prose, _PLUS_ONE)
    return not _REQUEST.search(rest) and len(_content(rest, _PADDING)) <= 3


_THANKS = re.compile(
    r"\b(?:thanks?(?: you)?|thank u|thx|tnx|ty|tysm|cheers|(?:much |really )?appreciated?|grazie|danke|"
    r"merci|gracias|kudos)\b", re.I)
_ACK = re.compile(
    r"^(?:done|fixed|will do|will fix|good catch|nice catch|great catch|good point|fair point|fair enough|"
    r"you(?:'re| are) right|makes sense|agreed|i agree|ack|acknowledged|noted|got it|understood|i see|"
    r"sounds good|ok(?:ay)?,? (?:i'll|i will|will)|sure,? (?:i'll|i will|will)|addressed|resolved|"
    r"updated|changed|thanks?,? (?:fixed|done)|oh,? i see|ah,? (?:i see|right|ok)|right(?=,)|oops|my bad)\b", re.I)
# Questions asking only for an explanation. A question naming a property of the code ("why is this
# public?", "is this needed?", "what's the point of catching here?") implies the change (visibility,
# removal) and is a change request: the 2021 dataset keeps such questions.
_CLARIFICATION = re.compile(
    r"^(?:why|what|how|huh|h+m+|eh|what's this|what is this)\s*\?*$"
    r"|\b(?:can|could|would) you (?:please )?(?:explain|clarify|elaborate|describe)\b"
    r"|\bwhat (?:does|did) (?:this|that|the|your) (?:change|patch|commit|pr) (?:do|bring|fix|mean)\b"
    r"|\bwhy (?:was|were|did) (?:this|that|it|you) (?:done|do it|do this|change it|change this|changed)\s*\?*$"
    r"|\bi (?:don't|do not|dont|didn't|did not) (?:understand|get|follow)(?: (?:this|that|it|you))?\s*[.?!]*$"
    r"|\bwhat do you mean\b|\bjust curious\b"
    r"|\bis (?:this|that|it) (?:really )?(?:intended|expected|on purpose)\b", re.I)
_REFERENCE = re.compile(
    r"\b(?:same (?:as|here|comment|issue|thing|below|above|applies|again|problem|question|remark|story|"
    r"everywhere|elsewhere)|ditto|as (?:above|below|before|mentioned|discussed|said|noted|commented)|"
    r"see (?:above|below|my (?:previous |earlier |other |first )?comment|(?:the )?(?:previous|earlier|"
    r"other) (?:comment|thread)|comment (?:above|below|in|on))|(?:previous|earlier|other|my) comments?|"
    r"like (?:above|before)|here too|also here|and here|applies here|same$|^same\b)", re.I)
_FOR_NOW = re.compile(
    r"\b(?:for now|for the time being|for the moment|leave it as is|(?:fine|ok|okay|good) as (?:it )?is|"
    r"in a (?:later|future|follow[- ]?up|separate)|later on|next (?:iteration|release|pr|patch|version)|"
    r"not (?:in )?this (?:pr|patch|change)|can wait|let's revisit|revisit later)\b", re.I)
_FORMATTING = re.compile(
    r"\b(?:indentation|indent(?:ed|ing)?|whitespaces?|white space|trailing (?:spaces?|whitespace)|tabs?|"
    r"blank lines?|empty lines?|new ?line at (?:the )?end|line (?:is )?too long|line length|"
    r"(?:exceeds?|over|more than) \d+ (?:char(?:acter)?s|columns)|\d+ (?:char(?:acter)?s|columns)|"
    r"wrap(?:ping)? (?:this|the)? ?lines?|line wrap|formatting|formatter|reformat(?:ted)?|code style|"
    r"format(?:ted)? (?:this|it|the (?:code|file|line)s?)|"
    r"checkstyle|spotless|spacing|extra spaces?|missing spaces?|space (?:after|before|around|between)|"
    r"(?:on|in|to) (?:its|their) own lines?|line ?breaks?|(?:unnecessary|extra) (?:new ?|blank |empty )lines?|"
    r"alignment|align(?:ed)?|import order|unused imports?|wildcard imports?|style nit|"
    r"(?:(?:opening|closing|curly) )?braces? (?:\w+ ){0,3}(?:on|to) (?:the |a |its own )?"
    r"(?:same|next|previous|new|separate|own) line|"
    r"eclipse formatter|google java format)\b", re.I)
# Braces, parentheses and semicolons are tokens of the abstracted method: asking to add or drop them is
# a change request even in a "style nit" (their place on a line is matched by _FORMATTING and taken out).
_TOKENS = re.compile(r"\b(?:braces?|brackets?|curl(?:y|ies)|parenthes[ie]s|parens?|semicolons?)\b|[{}();]")
_FORMATTING_WORDS = frozenset({"fix", "line", "lines", "code", "file", "style", "space", "spaces", "nit",
                               "column", "columns", "char", "chars", "characters", "import", "imports",
                               "opening", "closing", "curly", "wrong", "misaligned", "consistent", "run",
                               "project", "settings", "mixed", "formatter", "limit", "long", "nits"})
# A request for (more) tests, not a mention of one: "the test case calls this" or "all tests that extend
# this class" are about the code under review, which may itself be a test.
_ADD_TESTS = re.compile(
    r"\b(?:add|adding|write|writing|missing|include|provide|create|cover|covered by|any|more)\b"
    r"[^.?!]{0,40}?\b(?:unit |integration |regression |junit |more |some |a |separate )?(?:tests?|test cases?)\b"
    r"|\bneeds? (?:a |an |some |more |new |unit )?tests?\b|\btest coverage\b|\btestcase\b", re.I)
_TEST_WORDS = frozenset({"test", "tests", "case", "cases", "scenario", "covering", "verify", "verifies",
                         "edge", "corner", "empty", "null", "input", "behaviour", "behavior", "new",
                         "path", "branch", "class", "method", "suite", "assert", "asserts", "reproduce",
                         "regression", "testing", "junit", "mock", "exercise", "exercises"})
_DOCUMENTATION = re.compile(
    r"\b(?:javadocs?|java doc|docstrings?|doc comments?|documentation|documented|document (?:this|it|the|"
    r"that|why|what|how|return|param|please)|document$|add (?:some |the )?docs?\b|"
    r"add (?:a |some |an )?(?:short |brief |small |inline )?(?:code )?comments?|"
    r"comments? (?:explaining|describing|on why|why|here)|"
    r"readme|changelog|release notes|typo in (?:the )?(?:comment|javadoc|doc|message|log message)|"
    r"explain (?:this |it )?in a comment|code comments?|the comment (?:is|says))\b"
    r"|(?<!\w)@(?:param|return|throws|since|deprecated)\b", re.I)
_DOC_WORDS = frozenset({"explain", "explaining", "describe", "describing", "method", "class", "field",
                        "parameter", "parameters", "param", "return", "value", "behaviour", "behavior",
                        "public", "api", "typo", "outdated", "stale", "update", "doc", "docs", "wording",
                        "sentence", "grammar", "spelling", "misspelled", "describes", "says"})
_PR_ORGANISATION = re.compile(
    r"\b(?:split(?:ting)? (?:this|the|it) (?:pr|patch|change|commit|cl|pull request)s?\b|split(?:ting)? (?:this|it)"
    r"(?: up)?(?=\s*(?:[.?!,]|$)| into (?:\w+ )?(?:prs|patches|changes|commits|cls|pull requests)\b)|"
    r"separate (?:pr|patch|change|commit|cl|review|pull request)s?|"
    r"squash(?:ed|ing)?|rebase[ds]?|rebasing|cherry[- ]?pick(?:ed)?|follow[- ]?up (?:pr|patch|change|commit|cl)|"
    r"commit (?:message|msg|title)|merge conflicts?|another (?:pr|patch|change|commit|cl)|"
    r"unrelated (?:change|to this)|out of scope|own (?:pr|patch|commit|change)|git history|"
    r"force[- ]push(?:ed)?|amend(?:ed)?|topic branch|stacked (?:pr|change)s?|bug (?:number|id) in|"
    r"jira (?:ticket|issue)|link (?:the|an|to the) (?:issue|ticket|bug))\b", re.I)
_PR_WORDS = frozenset({"pr", "prs", "patch", "patches", "commit", "commits", "change", "changes", "cl",
                       "branch", "master", "main", "refactoring", "refactor", "rename", "renames", "unrelated",
                       "separately", "history", "message", "ticket", "issue", "review", "easier", "reviewers"})

_RULES: dict[str, Callable[[str, str], bool]] = {
    "empty_after_stopwords": _empty_after_stopwords,
    "approval": _approval,
    "acknowledgement": _dominant(_ACK, 4),
    "formatting": _topic(_FORMATTING, _FORMATTING_WORDS, 3, veto=_TOKENS),
    "thanks": _dominant(_THANKS, 3),
    "add_tests": _topic(_ADD_TESTS, _TEST_WORDS, 6),
    "clarification": _dominant(_CLARIFICATION, 6, code_vetoes=True),
    "reference": _dominant(_REFERENCE, 2, code_vetoes=True),
    "link": _link,
    "documentation": _topic(_DOCUMENTATION, _DOC_WORDS, 5),
    "pr_organisation": _topic(_PR_ORGANISATION, _PR_WORDS, 6),
    "plus_one": _plus_one,
    "for_now": _dominant(_FOR_NOW, 5),
    "short_answer": _short_answer,
}

#: Rule names in a fixed order (the classifier's binary features follow it).
RULE_NAMES: tuple[str, ...] = tuple(_RULES)
#: The rules that remove a comment by themselves in the default filter: noise whose wording says it all
#: (approvals, acknowledgements, thanks, "+1", short answers, bare pointers and links, no content words).
#: The topic rules (formatting, tests, documentation, PR organisation) and ``clarification`` / ``for_now``
#: only feed the classifier: on the 2021 test split they would drop 23 more published comments (4 of
#: them change requests, the rest noise the 2021 filter kept), more than the 1.5% of published comments
#: the filter may lose; the model, which sees the same rules as features, still removes 96% of the
#: synthetic formatting remarks out-of-fold (``revmine/data/LABELLING.md``).
DROPPING_RULES: frozenset[str] = frozenset({"empty_after_stopwords", "approval", "acknowledgement", "thanks",
                                            "plus_one", "short_answer", "reference", "link"})


#: A sed substitution ("s/recieve/receive/", "nit: s/the the/the/") spells out an edit: reviewers' shorthand on
#: Gerrit and mailing lists, often all stop words, which the empty and dominant rules would read as noise.
_SUBSTITUTION = re.compile(r"(?:^|[\s(:])s/[^/\s][^/]*/")


def categories(text: str) -> list[str]:
    """Names of the noise rules ``text`` trips, in :data:`RULE_NAMES` order (empty: looks relevant)."""
    text = message_body(text)
    prose = _prose(text)
    if _SUBSTITUTION.search(prose):
        return []
    return [name for name, rule in _RULES.items() if rule(prose, text)]


def is_noise_by_rules(text: str) -> bool:
    """True when any keyword rule says the comment asks for no change to the method."""
    return bool(categories(text))


def drops(text: str) -> bool:
    """True when a rule of :data:`DROPPING_RULES` fires: the default filter removes the comment unseen."""
    return not DROPPING_RULES.isdisjoint(categories(text))


def asks_for_change(text: str) -> bool:
    """True when the prose holds a change-request cue ("please", "should", "why not", an imperative)."""
    return bool(_REQUEST.search(_prose(message_body(text))))
