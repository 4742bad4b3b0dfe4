"""``--on-unrecorded stub`` with no stubs file: a call the recording never made is answered by its class."""

from __future__ import annotations

from tests.conftest import SAMPLES
from toolreplay.analysis.classify import Classifier, Policy
from toolreplay.analysis.matching import Matcher
from toolreplay.answers import DEFAULT_DONE, DEFAULT_NO_RESULT, RecordedAnswers, answer_call
from toolreplay.core.model import Call, CallClass, Origin
from toolreplay.formats.recording import load_session
from toolreplay.formats.stubs import Stub
from toolreplay.settings import Unrecorded

SESSION = load_session(SAMPLES / "ops" / "session.json")
CLASSIFY = Classifier(Policy(), SESSION.context.tools if SESSION.context is not None else ())
NONE = RecordedAnswers((), Matcher())


def _answer(tool: str, stubs: tuple[Stub, ...] | None = None) -> tuple[object, bool, Origin]:
    call = Call(0, tool, {"host": "nowhere", "path": "/x"}, None, 0)
    found = answer_call(NONE, call, Unrecorded.STUB, stubs, CLASSIFY)
    assert found is not None
    return found.content, found.is_error, found.origin


def test_a_write_or_a_deletion_succeeds_and_a_read_or_an_unknown_call_fails() -> None:
    assert CLASSIFY.classify(Call(0, "delete_path", {}, None, 0)).klass is CallClass.DESTRUCTIVE
    assert _answer("delete_path") == (DEFAULT_DONE, False, Origin.DEFAULT)
    assert _answer("archive_path") == (DEFAULT_DONE, False, Origin.DEFAULT)
    assert _answer("list_dir") == (DEFAULT_NO_RESULT, True, Origin.DEFAULT)
    assert _answer("no_such_tool") == (DEFAULT_NO_RESULT, True, Origin.DEFAULT)


def test_with_a_stubs_file_a_call_no_stub_matches_still_gets_the_error_result() -> None:
    stub = Stub("list_dir", (), '{"entries": []}', False)
    assert _answer("list_dir", (stub,)) == ('{"entries": []}', False, Origin.STUB)
    content, is_error, origin = _answer("delete_path", (stub,))
    assert (is_error, origin) == (True, Origin.ERROR)
    assert content != DEFAULT_DONE  # a stubs file is the user's word: no default is made up beside it


def test_a_replay_without_stubs_says_which_calls_got_a_default() -> None:
    from tests.conftest import ROOT, run_cli  # noqa: PLC0415

    args = ("samples/ops/session.json", "--system", "samples/ops/prompt-v2.txt", "--on-unrecorded", "stub")
    result = run_cli("replay", *args, "--repeat", "5", cwd=ROOT)
    assert result.code == 1  # the deletions still fail the replay: a default answer hides nothing
    unrecorded = result.stdout.split("calls the recording never made (--on-unrecorded stub):\n")[1].splitlines()
    assert unrecorded[0].endswith("destructive, answered: default by class")
