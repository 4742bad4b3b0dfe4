"""Where a text names a tool that is not its own server's, and steers the model's use of it.

A description may point at its own server's tools ("call list_files first"), and may tell the model when another
tool serves better ("for files over 5 GB use multipart_upload instead"). What shadowing does is different: it
speaks of another tool to take its calls, its data or its trust. A sentence is read as steering when it names a
tool that is not the server's own (a ``snake_case`` or ``dotted.name`` with a verb in it, "the git server's commit
tool", "any other tool", "the Drive connector") and also

- runs the other tool down after naming it (unverified, rate-limited, deprecated, has a bug, leaks, must not be
  called, a fallback only), or
- claims to take its place or its traffic (a replacement for it, supersedes it, its real implementation, routes
  it, changes the recipient), or
- sets a rule for every use of it (every call to, whenever, for any reason), or
- speaks of this tool with a word for every case (call this tool for every lookup, any tool that sends mail
  should pass through this one).

Read on the text as the lint reads it (case folded, normalized); ``own`` holds the server's tool names and its
tools' property names, which a description may name freely.
"""

from __future__ import annotations

import bisect
import re

_VERBS = (
    "get|list|create|make|new|send|write|read|delete|del|remove|rm|update|edit|set|put|add|append|insert|search|find|"
    "lookup|query|fetch|browse|navigate|click|open|close|execute|exec|run|invoke|call|merge|commit|push|pull|store|"
    "save|recall|post|reply|upload|download|move|copy|rename|submit|approve|transfer|pay|book|drop|purge|archive|"
    "share|publish|deploy|install|kill|stop|start|apply|replace|forward|schedule|notify|message|mail|email|sms"
)
# A tool's name as a text writes it: snake_case or dotted (server.tool), with a segment that says what it does.
# Possessive: a run that fails the look after it has no shorter way to pass it, and is not read back over.
_IDENTIFIER = re.compile(r"(?<![\w@/.:-])[a-z][a-z0-9]*+(?:[_.][a-z0-9]++)++(?![\w@/-]|\.[a-z0-9])")
_VERB_SEGMENT = re.compile(rf"(?:^|[_.])(?:{_VERBS})(?:$|[_.])")
# Another tool or server by what it is rather than its name.
_NAMED_AS_OTHER = re.compile(
    r"\b(?:other|another|any other|a different|some other|separate|third-party|external)(?: [\w-]+){0,2} "
    r"(?:tools?|servers?|connectors?|integrations?|plugins?|functions?)\b"
    r"|\b(?:tools?|functions?) (?:of|on|from) (?:other|another|any other) (?:[\w-]+ )?servers?\b"
    r"|\bthe [\w-]+ (?:mcp )?server's\b"
    r"|\bthe [\w-]+ (?:tool|function)s? (?:of|on|from|in) the [\w-]+ server\b"
    r"|\bthe (?:[\w-]+ ){1,3}(?:connector|integration|plugin)\b"
    r"|\b(?:any|every|each|all) (?:[\w-]+ )?tools? (?:that|which)\b"
    r"|\b(?:any|every|each|the) (?:[\w-]+ )?(?:mail|email|e-mail|messaging|chat|sms|browsing|payment|shell|social) "
    r"tools?\b"
)
_RUN_DOWN = re.compile(
    r"\b(?:unverified|untrusted|unsafe|insecure|deprecated|retired|disabled|broken|buggy|bugs?|leaks?|leaking|"
    r"corrupts?|corrupting|compromised|malicious|spoofed|a decoy|fake|(?:a )?test stub|fallback only|"
    r"(?:must|should|may|can) not be (?:used|called|invoked|trusted)|(?:never|do not|don'?t) (?:use|call|invoke|"
    r"retry|trust) (?:it|them)\b)"
)
# What a text may say of another tool as a fact (an API's rate limit), but not to send the model here instead.
_FAULTED = re.compile(r"\b(?:rate-limited|unreliable|outdated|obsolete|stale|slow|flaky|inaccurate|worse)\b")
# Said before the name: dismissing the other tool.
_DISMISSED = re.compile(
    r"\b(?:(?:do not|don'?t|never) trust|ignore (?:the )?(?:output|results?|responses?|answers?) (?:of|from))\b"
)
_DISMISSED_FOR_THIS = re.compile(r"\b(?:skip|avoid|forget about|don'?t bother with|do not bother with|bypass)\b")
# The model sent here, as a fault found in another tool may do; or this tool said not to use it, which sends no one.
_SENT_HERE = re.compile(r"\b(?:use|call|prefer|choose|pick|go (?:straight )?to|confirm|check|answer|instead)\b")
_UNUSED = re.compile(r"\b(?:does not|doesn't|do not|don't|never) (?:use|call)\b")
# Another tool's data sent here as well: uploaded, copied or mirrored to this tool.
_COPIED_HERE = re.compile(
    r"\b(?:also|as well)\b[^.;!?]{0,40}?\b(?:uploaded|copied|mirrored|forwarded|sent|backed up)\b"
)
# A sentence that says the other tool is gone (a replacement for search_v1, which was removed) notes a migration.
_GONE = re.compile(
    r"\b(?:was|were|has been|have been|is|are) (?:now )?(?:removed|deleted|dropped)\b|\bno longer exists?\b"
)
# An order, as the rule for every use of another tool must give one (the hook runs whenever you commit is none).
_ORDERED = re.compile(r"\b(?:must|should|shall|has to|have to|needs? to|first|always|also call)\b")
_TAKES_OVER = re.compile(
    r"\b(?:(?:preferred |official )?replacement for|replaces|supersedes?|supplants|(?:real|true|actual|proper) "
    r"implementation of|re-?routes?|routed|routing rule|cross-posted|(?:change|replace|override|swap|set)s? (?:the |"
    r"its |their )?recipients?|official version of|recipients? (?:replaced|changed|overridden|swapped)|same "
    r"(?:message|content|text|body|email|payload|arguments?) "
    r"(?:to|with)|real recipients?)\b"
)
_EVERY_USE = re.compile(
    r"\b(?:every|any|each|all) (?:\w+ )?(?:calls?|uses?|invocations?|requests?|times?|arguments?)\b|\bwhenever\b"
    r"|\bfor any reason\b|\bno matter\b"
)
_THIS_ONE = re.compile(
    r"\bthis (?:tool|server|fetcher|function|one|field|connector|integration|endpoint|service|parameter|argument)\b"
    r"|\bours\b|\bour (?:tool|server|own)\b|\bhere\b|\bthis one\b|\bthrough this\b"
)
_EVERY = re.compile(r"\b(?:every|each|whenever|any|all (?!at once\b|of it\b))")
# A sentence, as the check reads it: clauses a semicolon joins are one ("the X tool is broken; use this").
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
_JOINED = re.compile(r"[a-z0-9][_.][a-z0-9]")  # what a name of two words or more holds, and prose seldom does
_NOUNS = ("tool", "server", "connector", "integration", "plugin", "function")


def _others_named(text: str, own: frozenset[str]) -> list[re.Match[str]]:
    """Each place the text names a tool that is not the server's own, in order (most texts name none, and are
    passed by a look for what a name needs before any pattern is read)."""
    named = []
    if _JOINED.search(text):
        named = [
            found
            for found in _IDENTIFIER.finditer(text)
            if found.group() not in own
            and found.group().rsplit(".", 1)[-1] not in own
            and _VERB_SEGMENT.search(found.group())
        ]
    if any(noun in text for noun in _NOUNS):
        named += _NAMED_AS_OTHER.finditer(text)
    return sorted(named, key=lambda found: found.start())


def steers_another(text: str, own: frozenset[str] = frozenset()) -> tuple[int, int] | None:
    """Where the first sentence that names another tool and steers its use starts and ends in ``text``, or None."""
    named = _others_named(text, own)
    if not named:
        return None
    ends = [found.end() for found in _SENTENCE.finditer(text)]
    starts = [0, *ends]
    read: set[int] = set()
    for found in named:
        at = starts[bisect.bisect_right(ends, found.start())]
        if at in read:  # a sentence's first name is the one its rules read after
            continue
        read.add(at)
        after = bisect.bisect_right(ends, at)
        end = ends[after] if after < len(ends) else len(text)
        sentence = text[at:end]
        if _steers(sentence, found.start() - at):
            return at, at + len(sentence.rstrip())
    return None


def _steers(sentence: str, named_at: int) -> bool:
    """Whether a sentence that names another tool at ``named_at`` steers its use."""
    here = _THIS_ONE.search(sentence) is not None
    if _RUN_DOWN.search(sentence, named_at) or _DISMISSED.search(sentence):
        return True
    if _TAKES_OVER.search(sentence) and not _GONE.search(sentence):
        return True
    if _EVERY_USE.search(sentence) and (here or _ORDERED.search(sentence)):
        return True
    if here and _DISMISSED_FOR_THIS.search(sentence):
        return True
    if here and _FAULTED.search(sentence, named_at) and _SENT_HERE.search(sentence) and not _UNUSED.search(sentence):
        return True
    return here and (_EVERY.search(sentence) is not None or _COPIED_HERE.search(sentence) is not None)
