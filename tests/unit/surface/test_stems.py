"""The lint's index: a text is read only by the alternatives whose words it holds, so the index must never pass
over an alternative that matches. Held here against texts made from each alternative itself, with letters pressed
against both ends, where a pattern's word is not the text's word ("whoever", "preapproved", "unsafe")."""

from __future__ import annotations

import functools

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolreplay.surface.lint import _PATTERNS, _READ_RULES, LintRule, _alternatives, _first_match, _pattern
from toolreplay.surface.stems import Unread, needs, stems_of, top_level

PARTS = [(rule, part) for rule in _READ_RULES for part in top_level(_PATTERNS[rule])]
_AROUND = st.text(alphabet="aeiostwz -.:'", max_size=6)


@functools.cache
def _made(part: str) -> st.SearchStrategy[str]:
    return st.from_regex(part)


@st.composite
def _texts(draw: st.DrawFn) -> tuple[LintRule, str]:
    rule, part = draw(st.sampled_from(PARTS))
    return rule, draw(_AROUND) + draw(_made(part)).casefold() + draw(_AROUND)


@settings(max_examples=3000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_texts())
def test_the_index_finds_the_first_match_reading_the_whole_pattern_finds(case: tuple[LintRule, str]) -> None:
    rule, text = case
    whole = _pattern(rule).search(text)
    found = _first_match(rule, text, stems_of(text))
    assert (found.start() if found else None) == (whole.start() if whole else None), (rule, text)


@pytest.mark.parametrize(
    ("pattern", "text"),
    [
        (r"\bwho(?:ever)? (?:is )?reading this\b", "whoever is reading this"),
        (r"\bpre-?(?:approved|cleared)\b", "preapproved"),
        (r"\bpre-?(?:approved|cleared)\b", "pre-cleared"),
        (r"\b(?:un)?safe to run\b", "unsafe to run"),
        (r"authori[sz]ed", "unauthorized"),
        (r"~/\.ssh", "~/.sshd"),
        (r"\bllms?\b", "llms"),
        (r"\b(?:the )?bots?\b", "bot"),
    ],
)
def test_a_text_that_matches_holds_a_stem_of_every_group_the_alternative_needs(pattern: str, text: str) -> None:
    import re  # noqa: PLC0415

    assert re.search(pattern, text)
    groups = needs(pattern).groups
    assert all(group & stems_of(text) for group in groups), (groups, stems_of(text))


def test_words_a_pattern_fixes_are_needed_and_words_it_does_not_are_not() -> None:
    assert set(needs(r"\breveal the (?:secret|key)s?\b").groups) == {
        frozenset({"reve"}),
        frozenset({"the"}),
        frozenset({"secr", "key", "keys"}),
    }
    assert needs(r"secret").groups == ()  # nothing says where the text's word starts
    assert needs(r"\bsecret").groups == (frozenset({"secr"}),)
    assert needs(r"\bcc\b").groups == (frozenset({"cc"}),)
    assert needs(r"\bcc").groups == ()  # "ccs": a word shorter than a stem needs its end fixed too


def test_a_construct_the_index_does_not_know_is_refused_and_the_rule_is_read_whole() -> None:
    with pytest.raises(Unread):
        needs(r"\bfoo\p")
    with pytest.raises(Unread):
        needs(r"(?i)foo")
    # Every rule the lint reads is either indexed, alternative by alternative, or read whole.
    for rule in _READ_RULES:
        made = _alternatives(rule)
        assert len(made) == len(top_level(_PATTERNS[rule])) or (len(made) == 1 and made[0][1] == ())


def test_no_pattern_holds_a_quantifier_a_format_string_turned_into_a_tuple() -> None:
    import re  # noqa: PLC0415

    # rf"{0,12}" formats to "(0, 12)": a pattern that then matches the literal text "(0, 12)", never what it meant
    assert [rule for rule, pattern in _PATTERNS.items() if re.search(r"\(\d+, ?\d*\)", pattern)] == []
