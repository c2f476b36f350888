"""Keyword rules: each category trips on comments made for it and stays silent on change requests."""

from __future__ import annotations

import pytest

from revmine.filters import rules
from revmine.filters.rules import (DROPPING_RULES, RULE_NAMES, asks_for_change, categories, drops,
                                   is_noise_by_rules)

TRIPS = [
    ("empty_after_stopwords", "?"),
    ("empty_after_stopwords", "And this one?"),
    ("approval", "LGTM"),
    ("approval", "Looks good to me now!"),
    # praise that names what it likes, with nothing after it that hedges or asks
    ("approval", "Nice cleanup"),
    ("approval", "I like this approach a lot"),
    ("approval", "This is much cleaner now."),
    ("acknowledgement", "Done."),
    ("acknowledgement", "Good catch, fixed in the next patch set."),
    ("acknowledgement", "Right, the caller already handles that."),
    ("formatting", "nit: trailing whitespace"),
    ("formatting", "Please fix the indentation here."),
    ("formatting", "This line exceeds 100 characters."),
    ("formatting", "Please fix the indentation, and the trailing whitespace too."),
    ("thanks", "Thanks a lot for the quick update!"),
    ("thanks", "thx"),
    ("add_tests", "Please add a unit test for the empty list case."),
    ("add_tests", "Is this covered by a test?"),
    ("clarification", "why?"),
    ("clarification", "Can you explain why this is needed?"),
    ("clarification", "What does this change do?"),
    ("clarification", "why did you change this?"),
    ("reference", "Same as above."),
    ("reference", "See my previous comment"),
    ("link", "https://docs.oracle.com/javase/8/docs/api/java/util/Map.html"),
    ("link", "FYI: https://github.com/org/repo/issues/12"),
    ("documentation", "Please add Javadoc to this method."),
    ("documentation", "@param timeout is missing"),
    ("pr_organisation", "Could you split this PR into two?"),
    ("pr_organisation", "Please squash the commits and rebase on master."),
    ("plus_one", "+1"),
    ("plus_one", "+1 to what Bob said"),
    ("for_now", "Let's keep it for now."),
    ("for_now", "Fine for the time being, we can revisit later."),
    ("short_answer", "Nope."),
    ("short_answer", "yes, it is"),
]

RELEVANT = [
    "Why not use a Map here?",
    "Thanks! Please make `count` final.",
    "+1, but rename foo to bar",
    "LGTM, but `conn` is never closed: use try-with-resources.",
    "Same problem as above: `reader` is never closed, use try-with-resources.",
    "```suggestion\n    return items.isEmpty();\n```",
    "Off-by-one: this should be < not <=.",
    "Not needed, validate() already checks this.",
    "Why is this synchronized? It shouldn't be needed.",
    "Split this method into two smaller ones.",
    "Rename `tmp` to `retryCount`.",
    "This can throw an NPE when user is null.",
    "Use equals() instead of ==.",
    "Extract this into a helper method.",
    "Consider using a StringBuilder in this loop.",
    "Could we use Optional here?",
    "The second call to format() is redundant.",
    "> Thanks!\n\nMake `cache` a ConcurrentHashMap, this is called from several threads.",
    "@alice you can drop the else branch, the if returns.",
    "Catching Exception is too broad; catch IOException.",
    "Why not make parse() return an Optional?",
    "magic number 1000, extract please",
    # praise words before a request, a hedge or a wish are not praise
    "Nice, but the reader is never closed here.",
    "It would be nice to have a constant for 42.",
    "Good to have a null check here.",
    "Nice idea; could we use a Set instead?",
    # A change request beside a topic phrase (or braces, which are tokens of the abstracted method).
    "Please add braces around the if body",
    "This line is too long, extract a local variable",
    "Please add a test for the empty list and also check for null here",
    "Please add a test for this. Also, rename `tmp` to `retries`.",
    "Fix the indentation and use a constant for 42.",
    # Questions that name a property of the code imply the change (the 2021 dataset keeps them).
    "Why is `cache` protected?",
    "Is this check still needed?",
    "what's the point of wrapping and rethrowing the same exception?",
    # Tokens in a style remark, a defect said with stop words, code beside a reference or a link.
    "style nit: drop the braces around this one-line if",
    "nope, not final",
    "This doesn't look right for negative sizes.",
    "Ditto: `count >= 0`",
    "See [the guide](https://example.org/guide): use `Objects.equals` here.",
    # A mention of tests is not a request for tests; a comment in another script is not empty.
    "The test case already sorts the input, so sorting again here is wasted.",
    "Это лишняя проверка, убери её.",
    # sed substitutions are edits spelled out, even when every word is a stop word.
    "s/the the/the/",
    "nit: s/an/a/",
    "s/it's/its",
]


def test_rule_names_cover_the_paper_categories() -> None:
    assert len(RULE_NAMES) == 14 and len(set(RULE_NAMES)) == 14
    assert {name for name, _ in TRIPS} == set(RULE_NAMES)


@pytest.mark.parametrize(("rule", "text"), TRIPS)
def test_rule_trips_on_made_comment(rule: str, text: str) -> None:
    assert rule in categories(text)
    assert is_noise_by_rules(text)


@pytest.mark.parametrize("text", RELEVANT)
def test_rules_stay_silent_on_change_requests(text: str) -> None:
    assert categories(text) == []
    assert not is_noise_by_rules(text)


@pytest.mark.parametrize("text", RELEVANT)
def test_no_rule_drops_a_change_request(text: str) -> None:
    assert not drops(text)


def test_only_the_clear_rules_drop_a_comment_by_themselves() -> None:
    assert DROPPING_RULES < set(RULE_NAMES)
    # the wording says it all: dropped before the classifier
    assert all(drops(text) for text in ("Done", "LGTM", "Thanks!", "+1", "Same as above."))
    # topic remarks trip their rule but are left to the classifier, which has the rule as a feature
    for rule, text in (("formatting", "nit: trailing whitespace"), ("pr_organisation", "Please squash the commits."),
                       ("documentation", "Missing Javadoc.")):
        assert rule in categories(text) and is_noise_by_rules(text) and not drops(text)


def test_categories_follow_rule_order() -> None:
    found = categories("Thanks, done.")
    assert found == sorted(found, key=RULE_NAMES.index)
    assert {"thanks", "acknowledgement"} <= set(found)


def test_quoted_text_and_code_are_not_the_reviewers_words() -> None:
    assert categories("> Please add a unit test.\n\nRename `x` to `width`.") == []
    assert "empty_after_stopwords" not in categories("`final`")
    assert "link" not in categories("> see https://example.org\n\nInline this variable.")


def test_asks_for_change() -> None:
    assert asks_for_change("Why not use a Map here?")
    assert asks_for_change("Please remove this.")
    assert not asks_for_change("Thanks for the explanation!")


@pytest.mark.parametrize(("message", "body"), [
    # Gerrit's change-message header (Documentation/rest-api-changes.txt, ChangeMessageInfo) is not the reviewer's
    ("Patch Set 2:\n\n(1 comment)\n\nPlease rename x", "Please rename x"),
    ("Patch Set 3: Code-Review+2\n\nOn second thought, meh.  LGTM.", "On second thought, meh.  LGTM."),
    # a message that is only its header keeps the votes, one sign each, or the words Gerrit gave them
    ("Patch Set 3: Code-Review+2 Verified+1", "+1 +1"),
    ("Patch Set 2: Code-Review-1", "-1"),
    ("Patch Set 1: Looks good to me, approved", "Looks good to me, approved"),
    ("Patch Set 1: No score; Looks good to me, but someone else must approve",
     "Looks good to me, but someone else must approve"),
    # only the header and the count of inline comments: the message itself says nothing
    ("Patch Set 14:\n\n(2 comments)", ""),
    ("Patch Set 3:", ""),
    # anything else is left as it is
    ("Rename x", "Rename x"),
    ("See Patch Set 2: it had the fix", "See Patch Set 2: it had the fix"),
])
def test_message_body_drops_the_gerrit_header(message: str, body: str) -> None:
    assert rules.message_body(message) == body


def test_a_bare_gerrit_approval_is_dropped_and_a_request_behind_a_header_is_not() -> None:
    assert rules.drops("Patch Set 1: Looks good to me, approved")
    assert rules.drops("Patch Set 3: Code-Review+2 Verified+1")
    assert rules.drops("Patch Set 14:\n\n(2 comments)")
    assert not rules.drops("Patch Set 2: Code-Review-1\n\n(1 comment)\n\nThis leaks the stream; close it in finally.")
