"""Generate revmine/data/review_comments_labelled.csv: synthetic, labelled reviewer comments.

The set trains the noise-comment classifier (revmine.filters.classifier). No real review data with
labels of the kind we need could be shipped, so comments are made from hand-written seed phrasings per
category (relevant = asks for a change in the method; noise = the rule categories of the paper plus
"other" talk), with slots filled from identifier lists and varied by style transforms (terse, lower
case, non-native phrasing, polite wrappers, GitHub markdown and quotes, Gerrit replies). Seeded and
deterministic: the same script gives the same file byte for byte.

Usage: python scripts/make_labelled_comments.py [--out PATH] [--seed N]
"""

from __future__ import annotations

import argparse
import csv
import io
import random
import re
from pathlib import Path

VARS = [
    "count", "index", "result", "buffer", "userId", "user_id", "timeoutMs", "retryCount", "conn", "stream",
    "reader", "items", "entries", "cache", "config", "path", "fileName", "response", "request", "session",
    "token", "key", "value", "builder", "node", "parent", "offset", "length", "size", "name", "ctx",
    "listener", "executor", "future", "lock", "tmp", "idx", "params", "headers", "payload", "status",
    "state", "errorCode", "maxSize", "startTime", "deadline", "handler", "callback", "iterator", "writer",
    "bytes", "charset", "locale", "tenantId", "accountId", "projectName", "changeId", "patchSet",
    "revision", "commitSha", "branch_name", "max_retries", "row_count", "isEnabled", "hasNext",
    "pendingTasks", "refs", "labels", "reviewers", "approvals", "metrics", "counter", "queue", "batch",
]
METHODS = [
    "getName", "parseHeader", "close", "flush", "init", "loadConfig", "save", "computeHash", "toString",
    "equals", "hashCode", "compareTo", "validateInput", "process", "handleRequest", "buildQuery", "execute",
    "run", "apply", "convert", "toJson", "fromJson", "readAll", "writeTo", "register", "unregister", "start",
    "stop", "shutdown", "submit", "resolve", "lookup", "findById", "findAll", "createUser", "deleteUser",
    "updateStatus", "refresh", "invalidate", "getInstance", "newBuilder", "build", "parse", "format",
    "encode", "decode", "sanitize", "normalizePath", "checkPermission", "onEvent", "onError", "dispose",
    "merge", "sort", "getChangeNotes", "loadAccount", "indexChange", "fetchRefs", "get_user", "parse_args",
    "reindex", "scheduleRetry", "evict", "toMillis", "openStream", "readLine", "getLabels", "canSubmit",
]
JDK = [
    "StringBuilder", "HashMap", "ArrayList", "LinkedList", "Optional", "Objects", "Collections", "Arrays",
    "Stream", "Collectors", "TimeUnit", "Duration", "Instant", "Preconditions", "ImmutableList",
    "ImmutableMap", "ConcurrentHashMap", "AtomicInteger", "CountDownLatch", "ExecutorService",
    "CompletableFuture", "Files", "Paths", "BufferedReader", "StandardCharsets", "Pattern", "UUID",
    "BigDecimal", "EnumSet", "EnumMap", "TreeMap", "HashSet", "Comparator", "ReentrantLock", "ThreadLocal",
    "LinkedHashMap", "ArrayDeque", "Map", "Set", "List", "Iterator", "Strings", "Splitter", "Joiner",
]
PROJECT = [
    "ChangeNotes", "ProjectConfig", "AccountCache", "RequestContext", "PatchSetUtil", "UserService",
    "OrderRepository", "PaymentGateway", "HttpClientFactory", "JsonParser", "ConfigLoader", "SessionManager",
    "EventBus", "MetricRegistry", "IndexWriter", "QueryBuilder", "CacheEntry", "TaskScheduler", "FileStore",
    "ReviewerSuggestion", "MergeValidator", "RefUpdate", "GitRepositoryManager", "SubmitStrategy",
]
TYPES = ["int", "long", "String", "boolean", "Integer", "Long", "List<String>", "Map<String, Object>",
         "Set<Account.Id>", "Optional<Change>", "byte[]", "double", "Duration"]
USERS = ["alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi", "ivan", "judy", "mallory",
         "oscar", "peggy", "trent", "victor", "walter", "kenji", "priya", "lukas", "ana", "mehmet", "sofia"]
NUMBERS = ["0", "1", "-1", "2", "10", "42", "100", "256", "1000", "1024", "3600", "5000", "30000", "60"]
URLS = [
    "https://docs.oracle.com/javase/8/docs/api/java/util/{C}.html",
    "https://stackoverflow.com/questions/{id}/",
    "https://github.com/{user}/revmine/issues/{n}",
    "https://github.com/google/guava/wiki/CollectionUtilitiesExplained",
    "https://bugs.openjdk.org/browse/JDK-{id}",
    "https://gerrit-review.googlesource.com/c/gerrit/+/{id}",
    "https://errorprone.info/bugpattern/{C}",
    "https://www.baeldung.com/java-{word}",
    "https://en.wikipedia.org/wiki/Double-checked_locking",
    "https://google.github.io/styleguide/javaguide.html",
    "http://wiki.example.org/display/DEV/Code+Review+Guidelines",
    "https://issues.apache.org/jira/browse/HADOOP-{n}",
]
URL_WORDS = ["streams", "optional", "concurrenthashmap", "try-with-resources", "equals-hashcode",
             "string-builder", "completablefuture", "immutable-collections"]
CODE_LINES = [
    "if ({v} == null) {\n    return {C}.emptyList();\n}",
    "final {T} {v} = {m}();",
    "return {v}.isEmpty();",
    "LOG.debug(\"{m} took {} ms\", {v});",
    "for (String {v2} : {v}) {",
    "Objects.requireNonNull({v}, \"{v}\");",
    "try (BufferedReader {v} = Files.newBufferedReader(path, StandardCharsets.UTF_8)) {",
    "String {v2} = {v}.trim();",
    "return {v} != null && {v}.{m}();",
    "{v}.computeIfAbsent(key, k -> new ArrayList<>()).add({v2});",
    "private static final int {CONST} = {n};",
    "if ({v} <= 0) {\n    throw new IllegalArgumentException(\"{v} must be positive: \" + {v});\n}",
    "return {v}.stream().map({P}::{m}).collect(Collectors.toList());",
    "} catch (IOException e) {\n    throw new UncheckedIOException(e);\n}",
    "synchronized (lock) {",
    "{v} = Math.max(0, {v} - 1);",
    "Optional.ofNullable({v}).ifPresent(this::{m});",
    "private {T} {m}() {",
    "long {v} = TimeUnit.SECONDS.toMillis({n});",
    "return {C}.unmodifiableList({v});",
]

# ---------------------------------------------------------------- relevant: asks for a change in the method
RELEVANT = {
    "rename": [
        "Rename {v} to {v2}.", "{v} is not a very descriptive name. Maybe {v2}?",
        "Could you call this {v2} instead of {v}? It does not hold a {v} at all.",
        "nit: {v2} would read better than {v}", "please rename, {v} is confusing here",
        "This method does more than its name says; {m2} would be a better name than {m}.",
        "{v} shadows the field with the same name, please rename the local variable.",
        "typo in the variable name: {typo} -> {v}", "I think better name is {v2}, because it is not only {v}",
        "rename pls", "The name {m} suggests there are no side effects but it writes to {v}. Rename it to {m2}?",
        "Naming: {v} is a list, so {v}List or {v2} would be clearer.", "Use camelCase: {v2} instead of {v}.",
        "Misleading name: {m} does not return anything, call it {m2}.", "{typo}? Should be {v}.",
        "We usually name these {v2} in this codebase, can you rename?", "s/{v}/{v2}/",
        "kindly rename {v} into {v2}, is more clear", "Boolean variable should start with is/has, e.g. is{V}.",
    ],
    "null_check": [
        "{v} can be null here, this will throw an NPE.", "What happens if {m} returns null?",
        "Missing null check on {v}.", "Please add Objects.requireNonNull({v}) at the start of the method.",
        "Need to check {v} != null before calling {m}.", "{v} is @Nullable, dereferencing it directly is not safe.",
        "Validate {v} here and throw IllegalArgumentException if it's negative.",
        "Use Preconditions.checkArgument({v} > 0) instead of the if/throw.", "I think here {v} can be null, need check",
        "guard against empty {v}", "Should we return early when {v} is empty?",
        "{m} may return null when the {P} is not loaded yet, handle that case.",
        "This NPEs if the caller passes null for {v}. Either annotate it @Nullable and check, or requireNonNull.",
        "null check missing", "{v} could be empty, then {v}.get(0) blows up.",
        "If {v} is null we silently skip, I'd rather fail fast with a clear message.",
        "Add a check that {v} is not negative, otherwise {m} loops forever.",
    ],
    "simplify": [
        "This if/else can be simplified to return {v} != null;", "You can drop the else branch, the if returns.",
        "Invert the condition and return early to reduce nesting.",
        "Extract lines {n}-{n2} into a private helper, {m} is getting too long.",
        "Inline {v}, it's only used once.", "This loop can be replaced by {v}.stream().anyMatch(...).",
        "This duplicates the code in {m2}. Please reuse it.", "Merge these two ifs into one.",
        "No need for the temporary variable, return directly.", "A ternary would be clearer here.",
        "Use a switch on the enum instead of this if chain.", "This can be a one-liner with {C}.",
        "These three lines are the same as in {m2}, could be extracted into a method.",
        "Simplify: {v} == true -> {v}", "The nested loops could be flattened with flatMap.",
        "Could you move the {v} computation into its own method? {m} is hard to follow.",
        "too complex, split the condition into two well named booleans",
        "This whole block is equivalent to {v}.getOrDefault(key, {n}).",
        "Collapse the catch blocks with a multi-catch.",
        "Better to early return here, then the rest of the method is not indented.",
        "The while(true) with break is hard to read, use a normal loop condition.",
    ],
    "api_usage": [
        "Why not use a {C} here?", "Use {v}.isEmpty() instead of {v}.size() == 0.",
        "Prefer StringBuilder over += in a loop.", "Use try-with-resources so {v} is closed on all paths.",
        "Compare strings with equals(), not ==.", "Use StandardCharsets.UTF_8 instead of the \"UTF-8\" string.",
        "Return {C}.unmodifiableList({v}) here, callers should not modify it.",
        "Use {v}.getOrDefault(key, 0) instead of the containsKey/get pair.",
        "Prefer Optional.ofNullable({v}).map(...) over the nested null checks.",
        "Could use Map.computeIfAbsent here.", "Use TimeUnit.SECONDS.toMillis({n}) rather than multiplying by 1000.",
        "Use System.nanoTime() to measure elapsed time, currentTimeMillis can jump.",
        "You can use Files.readAllLines(path) here.", "Use the diamond operator.",
        "Should be {C}<String>, not the raw type.", "Use an EnumSet instead of a HashSet of enum values.",
        "How about String.join(\", \", {v})?", "Better use {C} here, {C2} is not needed for this.",
        "{C} already has a method for this: {C}.{m}().", "Use Duration instead of a long with millis for {v}.",
        "Please use {P}.{m} instead of calling the REST endpoint directly.",
        "Use assertThat({v}).isEqualTo(...) instead of assertTrue({v}.equals(...)), the failure message is better.",
        "Prefer {C}.of() for the empty case.", "Use Instant instead of Date for {v}.",
        "Please use our {P} helper, it handles retries already.",
    ],
    "remove": [
        "Remove this, it's unused.", "{v} is never read, please remove it.", "This cast is redundant.",
        "Not needed, {m} already does this check.",
        "Dead code: this branch can never be reached because {v} is checked earlier.",
        "Remove the System.out.println before merging.",
        "The synchronized is not needed here, {v} is confined to this thread.", "Unused parameter {v}.",
        "this else is redundant", "Drop the redundant this. prefix.", "unused",
        "Not needed anymore since {P} does the conversion.", "Delete this debug code.",
        "{v} is assigned but never used.", "The second call to {m} is redundant.",
        "We don't need to copy {v} here, it's already immutable.",
        "Please remove the catch block, {m} doesn't throw anymore.", "remove",
        "This {C} wrapping is unnecessary.", "no need for this variable",
    ],
    "exceptions": [
        "Don't swallow the exception, at least log it.", "Catching Exception is too broad; catch IOException.",
        "Rethrow as {P}Exception with the cause attached.",
        "This should throw IllegalStateException instead of returning null.",
        "Please don't use printStackTrace(), use the logger.", "The exception message should include {v}.",
        "If {m} fails we leak {v}; close it in a finally block.",
        "Restore the interrupt flag when catching InterruptedException.", "catch block empty, why?",
        "Wrapping into RuntimeException loses the type, throw a checked {P}Exception.",
        "Don't catch NullPointerException, check for null instead.",
        "e.getMessage() can be null, pass the exception itself to the logger.",
        "This should not be a checked exception, make it unchecked.",
        "Swallowing the error here hides real failures of {m}.",
    ],
    "logging": [
        "Use LOG.debug here, this is too noisy at info level.",
        "Use parameterized logging: log.debug(\"{m} {}\", {v}).", "Log message should say which {v} failed.",
        "Please remove this log line, it leaks the {v}.",
        "Guard with log.isDebugEnabled(), building the string is expensive.",
        "Log the exception too, not only the message.", "This should be a warning, not an error.",
        "String concatenation in the log call, use placeholders.", "Add {v} to the log message please",
        "logging at error level but we recover, use warn",
    ],
    "bug": [
        "Off-by-one: this should be < not <=.", "This condition is inverted, it should be !{v}.isEmpty().",
        "Wrong variable: you pass {v} but I think you meant {v2}.",
        "Integer overflow if {v} is large, use long.", "This divides by zero when {v} is 0.",
        "The order of arguments to {m} is swapped.", "Missing break in the switch case.",
        "This returns before releasing the lock.", "{v} is an Integer, comparing with == is wrong, use equals().",
        "This loop never terminates if {m} returns false.",
        "hashCode is not consistent with equals, {v} is missing from it.",
        "You modify {v} while iterating over it, this throws ConcurrentModificationException.",
        "Bug: the result of {m} is ignored.", "Use UTC explicitly here, the default time zone differs per server.",
        "This is wrong when {v} is negative.", "The lock is never released if {m} throws.",
        "{v} is reset on every iteration, move it out of the loop.",
        "Here the {v} must be updated also, otherwise the cache is stale",
        "This compares the reference, not the content of the arrays. Use Arrays.equals.",
        "Looks like {v} and {v2} are mixed up.", "BigDecimal.equals also compares the scale, use compareTo.",
        "the index starts from 1 here but the list is 0-based",
    ],
    "modifiers_types": [
        "Make {v} final.", "This can be private.", "Should be static, it doesn't use any instance state.",
        "Use long here, {v} can exceed Integer.MAX_VALUE.", "Return List instead of ArrayList in the signature.",
        "Make this method package-private, nobody outside the package calls it.",
        "Use primitive int instead of Integer, it can't be null.", "final?", "static?", "private?",
        "Make {v} a local variable, it doesn't need to be a field.",
        "The parameter type should be the interface {C}, not the implementation.",
        "This field should be volatile or final.", "{T} is the wrong type for {v}, it should be a {C}.",
        "Please declare it as final", "Can be static final.",
    ],
    "constants": [
        "Extract {n} into a named constant.", "Magic number.",
        "Move this string to a constant, it's also used in {m2}.", "Hardcoded path, please read it from {v}.",
        "Use {C}.ZERO instead of new BigDecimal(0).", "What is {n}? Please make it a constant with a meaningful name.",
        "magic number {n}, extract please", "This timeout should come from the {P}, not be hardcoded.",
    ],
    "concurrency": [
        "This isn't thread-safe: use ConcurrentHashMap.", "Use AtomicInteger for {v}.",
        "{v} should be volatile, it's read from another thread.", "Double-checked locking without volatile is broken.",
        "Don't hold the lock while calling {m}, it can block.",
        "Use shutdown() and awaitTermination() instead of Thread.sleep.",
        "Race condition: check-then-act on {v} needs to be atomic, use putIfAbsent.",
        "This is called from several threads, {v} needs synchronization.",
        "SimpleDateFormat is not thread safe, use DateTimeFormatter.",
        "Calling {m} on the event thread will freeze the UI, move it to the executor.",
    ],
    "performance": [
        "{m} is called twice; store the result in a local.", "Move this out of the loop, it doesn't change.",
        "Pre-size the {C} with {v}.size().", "Compile the Pattern once as a static final field.",
        "This is O(n^2); use a HashSet for the lookup.", "Avoid creating a new {C} on every call.",
        "This loads the whole {P} just to read one field, use {m2} instead.",
        "Batch the {m} calls, one request per item is too slow.",
        "Use a lazy iterator here instead of materializing all {v}.",
    ],
    "question_change": [
        "Why not use a {C} here?", "Shouldn't this be {v2}?", "Wouldn't it be simpler to return {C}.emptyList()?",
        "Can we make this private?", "Can't we just reuse {m2} here?",
        "Isn't {v} always non-null at this point? Then the check can go.", "What about using {m2} instead?",
        "Do we need the copy? Returning {v} directly should be fine.", "Should this be >=?",
        "Maybe {C} would be a better fit?", "Why not just {m2}({v})?",
        "Could we avoid the extra lookup by using {v}.get() directly?", "Should {v} be final?",
        "Why not a {C2} instead of {C}?", "isn't it better to throw here instead of returning null?",
        "Can we move this check into {m2}? Then both callers get it.", "Shouldn't we close {v} here?",
        "What if {v} is empty? get(0) will throw then.", "Wouldn't a plain for loop be more readable?",
        "can we use {m2} here?", "Why not make {m} return {C}?",
    ],
    "terse": [
        "final", "NPE", "unused", "typo: {typo}", "redundant", "inline", "private", "{m}?", "equals()",
        "magic number", "leak", "this can be null", "nullable", "dup of {m2}", "{v2}?", "isEmpty()",
        "missing return", "wrong order", "static", "not closed", "long", "try-with-resources",
    ],
}

# ---------------------------------------------------------------- noise: asks for no change in the method
NOISE = {
    "empty_after_stopwords": [
        "?", "...", "Hmm.", "And this?", "Here?", "This one too?", "So?", "And?", "Why not?", "Really?",
        "???", "Which one?", "Was it?", "This?", "Is it?", "Then?", "Again?", "Hmm...", "Same?", "Is that so?",
    ],
    "approval": [
        "LGTM", "lgtm!", "Looks good.", "Looks good to me", "Nice!", "Nice one", "Great work", "Perfect.",
        "Much better now.", "Awesome!", "Good job!", "Cool", "Very nice", "SGTM", "Excellent", "Neat",
        "Looks great overall", "Looks fine to me.", "Good", "great, looks good now", "Beautiful.", "OK",
        "Solid.", "Fine.", "Approved", "Looks good now",
    ],
    "acknowledgement": [
        "Done", "Done.", "Fixed.", "Fixed in PS{n}.", "Will do.", "Good catch!", "Good point, done.", "Ack",
        "Ack, thanks", "Makes sense.", "You're right.", "Agreed.", "Fair enough.", "Got it.",
        "I see, thanks for explaining.", "Ok, will fix in the next patch set.", "Sure, will update.",
        "Addressed.", "Oops, my bad.", "Ah right, {v} can't be null there.", "Right, {m} already handles that.",
        "Done, also renamed it in {m2}.", "Good catch, fixed.", "Noted.", "Understood.", "i see",
        "Updated.", "Nice catch, done", "done in the new patchset", "You are right, I missed it.",
    ],
    "formatting": [
        "nit: trailing whitespace", "Indentation is off.", "Please fix the indentation.", "Tabs instead of spaces.",
        "Line too long (>100 chars).", "Missing space after if.", "Extra blank line.", "Please run the formatter.",
        "Run spotless:apply please", "nit: remove the empty line", "Wrong indentation, we use 4 spaces.",
        "Opening brace should be on the same line.", "Unused import.", "Please remove the unused imports",
        "Wildcard import, please expand.", "Checkstyle complains about this line", "Alignment is off here",
        "nit: extra space", "Format this according to google java format.", "This line exceeds 120 characters.",
        "Please wrap at 100 columns.", "nit: newline at end of file", "Missing space around =.",
        "formatting", "indent", "whitespace only change?", "The import order is wrong.",
        "nit: blank line before return", "Please don't reformat the whole file, it makes the diff hard to read.",
    ],
    "thanks": [
        "Thanks!", "Thank you!", "Thanks for the fix.", "Thx", "Thanks for addressing my comments.",
        "Thanks for taking care of this.", "Thanks a lot for the quick update!", "Cheers", "Many thanks",
        "Thank you for the explanation.", "Thanks, much appreciated.", "Thanks for the contribution, {user}!",
        "Thanks for the review!", "ty", "Danke!", "Merci", "Thanks for fixing {m}!",
        "Thank you very much for review", "thanks {user}", "Thanks for looking into it.",
        "Thanks for the detailed answer, that clarifies it.", "Appreciated!", "Kudos, {user}!",
    ],
    "add_tests": [
        "Please add a unit test for this.", "Can you add a test covering the null case?", "Missing tests.",
        "This needs a test.", "Could you write a regression test for the bug?", "Is this covered by a test?",
        "We should have a test for {m} with an empty {v}.", "Test coverage for {P} is low, please add some tests.",
        "Add an integration test in {P}Test.", "Please add a test case where {v} is negative.", "Any tests?",
        "Can we get a test that reproduces the original issue?", "I'd like to see a unit test for the new branch.",
        "Please extend {P}Test to cover this path.", "no test for this?", "please add test",
        "Would be good to have a test for the {m} change.",
    ],
    "clarification": [
        "Why?", "why", "What is this?", "What does this do?", "Why this change?", "Why did you remove the check?",
        "Can you explain why this is needed?", "I don't understand this part.", "What do you mean?",
        "Not sure I follow, can you elaborate?", "What is the purpose of {v}?", "Why is {v} static?",
        "How does this work with {P}?", "Where is {m} called from?", "Is this intended?",
        "Just curious: why {C} and not {C2}?", "Why do we need {m} here?", "Is this needed?",
        "Why the change from {C} to {C2}?", "I not understand why this", "Why you changed this?",
        "What's the reason for the {n} here?", "How is {v} set?",
        "Can you clarify what {m} returns when the {P} is missing?",
        "Could you explain the idea behind this?", "Is this really necessary?", "what is {v} for?",
        "Why here and not in {m2}?",
    ],
    "reference": [
        "Same as above.", "Same here.", "Ditto.", "See my previous comment.", "See above.", "As above.",
        "Same comment as in {m2}.", "Same issue as in {P}.java", "See comment in {P}.", "Same applies here.",
        "Here too.", "same", "Also here.", "Like above.", "As mentioned before.", "See the other thread.",
        "Same thing below.", "^ same", "see my other comment", "As discussed in the previous comment.",
    ],
    "link": [
        "{url}", "See {url}", "FYI: {url}", "Related: {url}", "More info here: {url}", "Cf. {url}",
        "[docs]({url})", "This explains it: {url}", "Background: {url}", "Context: {url}", "ref {url}",
    ],
    "documentation": [
        "Please add Javadoc.", "Missing Javadoc for {m}.", "Add a comment explaining why {v} is needed.",
        "Can you document the return value?", "The Javadoc says it returns null but it actually throws.",
        "Typo in the comment: 'recieve'.", "@param {v} is missing.", "Please update the README.",
        "Document this in the changelog.", "This deserves a short comment.",
        "Could you add a comment here explaining the magic?", "nit: typo in Javadoc", "The comment is outdated now.",
        "Please add the @since tag", "Javadoc first sentence should end with a period.",
        "Add a code comment why we skip {v} here.", "document please", "Please add docs for {m}.",
        "The doc comment of {m} still mentions {v}.",
    ],
    "pr_organisation": [
        "Could you split this into two PRs?", "Please squash the commits before merge.", "Needs a rebase.",
        "Please rebase on master.", "This refactoring should be a separate change.",
        "Unrelated change, please move to another PR.", "Commit message should reference the bug.",
        "Please put the rename in a follow-up PR.", "There are merge conflicts.", "Out of scope for this PR.",
        "Let's do this in a separate commit.", "Please cherry-pick to stable-3.5 too.",
        "Can you link the Jira ticket in the commit message?",
        "Please amend the commit title to follow our convention.",
        "Split the {P} changes into their own patch, please.", "rebase please", "squash?",
        "This PR does too many things, please split it up.",
    ],
    "plus_one": [
        "+1", "+1!", "+1 to {user}'s comment", "+1 on this", "\U0001F44D", ":+1:", "+1, agreed", "+1 from me",
        "+1 to what {user} said", "+1 here", "\U0001F44D\U0001F44D",
    ],
    "for_now": [
        "OK for now.", "Fine for now.", "Let's leave it for now.", "Good enough for now, we can revisit later.",
        "Leave it as is for the moment.", "We can do this in a follow-up.", "Not in this PR.",
        "Can wait for the next release.", "For now this is fine, {P} will be rewritten anyway.", "Keep it for now",
        "ok for the time being", "Fine as it is.",
    ],
    "short_answer": [
        "Yes.", "No.", "Nope.", "Yep", "Sure.", "Correct.", "Exactly.", "True.", "Right.", "Maybe.", "Probably.",
        "Indeed", "Absolutely", "Definitely not.", "No idea", "idk", "Hmm, maybe", "yes, it is", "no, it isn't",
        "Yeah", "Nah",
    ],
    "other": [
        "Interesting, I didn't know {C} behaves like that.", "I wonder if {P} has the same problem.",
        "FYI, {user} is working on a larger rework of {P}.", "cc @{user}", "@{user} can you take a look at this part?",
        "Did you run the benchmarks?", "This is the part I was worried about, but it seems fine.", "Not a blocker.",
        "I'm not a fan of this pattern, but it's consistent with the rest of the file.",
        "We discussed this offline; keeping the current approach.", "Note to self: check the caller in {P}.",
        "This matches what {P} does.", "Nice, this removes the race we saw in production.",
        "The CI failure is unrelated, it's a flaky job in {P}.", "I think the previous version was also correct.",
        "This is how upstream does it as well.", "Happy to approve once the build is green.", "recheck",
        "Patch Set {n}: Code-Review+2", "Heads up: {m} is deprecated in Java 17, but we still support 11 so it's fine.",
        "The reason is that {P} calls {m} before the config is loaded, so {v} may not be initialized yet. "
        "I kept it lazy for that reason.",
        "I ran it locally with {n} entries and it works.", "Not sure this is worth it, but up to you.",
        "No strong opinion here.", "Ok, let's go with this approach.", "Let's discuss this in the meeting tomorrow.",
        "This was the behaviour before the refactoring too, {m} never handled it.",
        "Good to know that {C} is already thread safe.", "I have fixed it", "It's ok for me", "is done",
        "Nice, {m} is much easier to read now.", "The new {m} reads much better.", "Nice refactoring.",
        "{user}: this touches your area, any concerns?", "Works for me, I verified it on staging with {P}.",
        "This was discussed in the design doc, the decision was to keep {v} mutable.",
        "Both options are fine with me.", "I'd keep it, it's consistent with {m2}.",
        "Ah, now I remember why we did this: {P} needs the old format during the migration.",
        "Retrigger the build, it timed out.", "Build failed on Windows, looks infra related.",
        "This is a known issue in {C}, nothing we can do here.",
        "{m} is only called from the admin page, so performance is not a concern.",
        "Looks like the same approach as in {P}, which has been working fine for years.",
        "Just a thought, not for this change: we might want a shared {C} cache one day.",
        "{user} and I talked about {m}, we agreed to keep it as is.", "Let me think about it a bit more.",
        "I'll leave the final decision to {user}.", "Hmm, hard to say without profiling.",
        "This is a generated file.", "The behaviour of {m} did not change here, right? Only moved.",
    ],
}

# Hard relevant: noise-like openings followed by an explicit request.
HARD_RELEVANT_WRAPPERS = [
    "Thanks for the update! {r}", "Thanks. {r}", "Looks good overall, one thing: {r}", "LGTM, but {r}",
    "+1, but {r}", "Same as above: {r}", "Nice cleanup. {r}", "Good idea, however {r}", "Almost there. {r}",
    "{r} See {url}", "{r} (see {url})", "Done, but {r}", "I'm fine with the approach. {r}",
    "Not a big deal, but {r}", "Minor: {r}", "One more: {r}", "Sorry to be picky, but {r}", "Also here: {r}",
    "Same problem as in {m2}: {r}",
]
# Hard noise: request-like words that ask for no change in the method.
HARD_NOISE = [
    "Please take a look, {user}.", "Could you please re-trigger the CI?", "Can you rebase and push again?",
    "Please update the commit message.", "Should we also announce this on the mailing list?",
    "Why not? It looks fine.", "Why not, if it helps.", "Use your judgement.", "Should be fine.",
    "Please consider reviewing {P} too, {user}.", "I would merge this once {user} approves.",
    "Can you explain this in the PR description?", "Please add the ticket number to the title.",
    "We should talk about {C} usage in general at some point.", "Please ping me when this is ready.",
    "Could you share the benchmark numbers?", "You should get a +2 from the owner of {P}.",
    "Don't forget to update the release notes.", "Make sure the docs build still passes.",
]

STYLE_OPENERS = ["nit: ", "Nit: ", "Minor: ", "Optional: ", "IMHO ", "I think ", "Maybe ", "(not blocking) ",
                 "Suggestion: ", "**nit**: "]
ADDRESSING = ["@{user} ", "Hi {user}, ", "{user}: ", "@{user}: "]
NON_NATIVE = [(r"\bthe ", ""), (r"\ba ", ""), (r"\bCould you\b", "Can you please"), (r"\bisn't\b", "is not"),
              (r"\bdoesn't\b", "is not"), (r"\bIt's\b", "Is"), (r"\bit's\b", "is")]
_SLOT = re.compile(r"\{(v2|v|V|m2|m|C2|C|P|n2|n|user|url|typo|T|CONST|id|word)\}")


def _typo(name: str, rng: random.Random) -> str:
    if len(name) < 4:
        return name + name[-1]
    i = rng.randrange(1, len(name) - 2)
    return name[:i] + name[i + 1] + name[i] + name[i + 2:]


class Filler:
    """Fills a template's slots consistently within one comment, in one code-mention style."""

    def __init__(self, rng: random.Random):
        self.rng = rng

    def fill(self, template: str) -> str:
        rng = self.rng
        quote = rng.random() < 0.35          # backticks around code mentions (GitHub markdown habit)
        call = rng.random() < 0.5            # write methods as name()
        v, v2 = rng.sample(VARS, 2)
        m, m2 = rng.sample(METHODS, 2)
        c, c2 = rng.sample(JDK, 2)
        values = {
            "v": v, "v2": v2, "V": v[:1].upper() + v[1:], "m": m + ("()" if call else ""),
            "m2": m2 + ("()" if call else ""), "C": c, "C2": c2, "P": rng.choice(PROJECT),
            "n": rng.choice(NUMBERS), "n2": str(rng.randint(3, 400)), "user": rng.choice(USERS),
            "typo": _typo(v, rng), "T": rng.choice(TYPES), "CONST": re.sub(r"(?<!^)([A-Z])", r"_\1", v).upper(),
            "id": str(rng.randint(10000, 99999999)), "word": rng.choice(URL_WORDS),
        }
        values["url"] = _SLOT.sub(lambda mt: values[mt.group(1)], rng.choice(URLS))
        code_slots = {"v", "v2", "V", "m", "m2", "typo", "T", "CONST"}

        def sub(match: re.Match[str]) -> str:
            key = match.group(1)
            text = values[key]
            return f"`{text}`" if quote and key in code_slots else text
        return _SLOT.sub(sub, template)


# Noise categories where a reviewer's hedging opener ("nit:", "I think") is as natural as on a request.
HEDGED_NOISE = {"formatting", "documentation", "add_tests", "pr_organisation", "other", "hard_noise", "for_now"}


def _style(text: str, category: str, rng: random.Random, filler: Filler) -> tuple[str, str]:
    """Vary surface form the same way for both classes, so style is not a label artefact."""
    style = "plain"
    r = rng.random()
    if r < 0.12:
        for pattern, repl in NON_NATIVE:
            if rng.random() < 0.6:
                text = re.sub(pattern, repl, text)
        style = "non-native"
    elif r < 0.26:
        text = text.lower().rstrip(".!")
        style = "terse"
    elif r < 0.38 and (category in RELEVANT or category in HEDGED_NOISE) and len(text) > 12:
        opener = rng.choice(STYLE_OPENERS)
        text = opener + text[:1].lower() + text[1:] if text[:2] != "I " else opener + text
        style = "polite"
    elif r < 0.42:
        text = filler.fill(rng.choice(ADDRESSING)) + text
        style = "addressed"
    elif r < 0.47:
        quoted = filler.fill(rng.choice(rng.choice(list(RELEVANT.values()) + list(NOISE.values()))))
        text = f"> {quoted}\n\n{text}"
        style = "quote-reply"
    if rng.random() < 0.05:
        text += rng.choice([" :)", " \U0001F642", " Thanks.", " WDYT?", " (not sure)"])
    return text, style


def _suggestion(rng: random.Random, filler: Filler) -> str:
    prose = rng.choice(["", "Suggest:", "Simpler:", "How about this?", "nit:", "This avoids the extra lookup:",
                        "Something like this:", "Proposed change:", "Let's make it explicit.",
                        "Otherwise this fails for empty input."])
    code = filler.fill(rng.choice(CODE_LINES)).replace("`", "")
    indent = " " * rng.choice([0, 4, 8])
    body = "\n".join(indent + line for line in code.split("\n"))
    block = f"```suggestion\n{body}\n```"
    return f"{prose}\n{block}" if prose else block


def _list_comment(rng: random.Random, filler: Filler) -> str:
    items = rng.sample([t for key, ts in RELEVANT.items() if key != "terse" for t in ts], rng.randint(2, 3))
    head = rng.choice(["A few things:", "Some remarks:", "Two points:", ""])
    body = "\n".join(f"- {filler.fill(t)}" for t in items)
    return f"{head}\n{body}" if head else body


def generate(seed: int) -> list[dict[str, str]]:
    """All rows, deterministic for ``seed``; category targets sized to cover every rule and phrasing."""
    rng = random.Random(seed)
    filler = Filler(rng)
    rows: list[dict[str, str]] = []
    seen: set[str] = set()

    def emit(category: str, label: str, make, target: int) -> None:
        made, attempts = 0, 0
        while made < target and attempts < target * 40:
            attempts += 1
            text, style = _style(make(), category, rng, filler)
            text = text.strip()
            if text and text not in seen:
                seen.add(text)
                rows.append({"text": text, "label": label, "category": category, "style": style})
                made += 1

    relevant_targets = {"rename": 75, "null_check": 85, "simplify": 95, "api_usage": 110, "remove": 70,
                        "exceptions": 60, "logging": 45, "bug": 95, "modifiers_types": 60, "constants": 40,
                        "concurrency": 45, "performance": 45, "question_change": 95, "terse": 45}
    for category, target in relevant_targets.items():
        emit(category, "relevant", lambda c=category: filler.fill(rng.choice(RELEVANT[c])), target)
    emit("suggestion_block", "relevant", lambda: _suggestion(rng, filler), 80)
    emit("review_list", "relevant", lambda: _list_comment(rng, filler), 30)
    requests = [t for key, ts in RELEVANT.items() if key != "terse" for t in ts]

    def hard_relevant() -> str:
        request = rng.choice(requests)
        return filler.fill(rng.choice(HARD_RELEVANT_WRAPPERS).replace("{r}", request[:1].lower() + request[1:]))
    emit("hard_relevant", "relevant", hard_relevant, 90)

    noise_targets = {"empty_after_stopwords": 45, "approval": 75, "acknowledgement": 85, "formatting": 80,
                     "thanks": 75, "add_tests": 70, "clarification": 100, "reference": 60, "link": 60,
                     "documentation": 75, "pr_organisation": 70, "plus_one": 40, "for_now": 45,
                     "short_answer": 50, "other": 130}
    for category, target in noise_targets.items():
        emit(category, "noise", lambda c=category: filler.fill(rng.choice(NOISE[c])), target)
    emit("hard_noise", "noise", lambda: filler.fill(rng.choice(HARD_NOISE)), 50)
    composites = ["thanks", "approval", "acknowledgement", "plus_one", "for_now"]
    emit("noise_combination", "noise", lambda: " ".join(
        filler.fill(rng.choice(NOISE[c])) for c in rng.sample(composites, 2)), 60)
    rng.shuffle(rows)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parents[1]
                        / "revmine" / "data" / "review_comments_labelled.csv")
    parser.add_argument("--seed", type=int, default=2021)
    args = parser.parse_args()
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=["text", "label", "category", "style"], lineterminator="\n")
    writer.writeheader()
    writer.writerows(generate(args.seed))
    args.out.write_text(buffer.getvalue(), encoding="utf-8")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
