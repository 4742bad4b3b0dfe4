"""Answering a candidate's tool calls from a recording, without executing anything.

A call is looked up by tool name and matched arguments (the rules file's
matching). A recorded call gets its recorded result; a call recorded several
times gets its results back in recorded order, and the last one again once they
run out. A call the recording never made has no honest answer: the run's
unrecorded-call policy decides (stop the run, return an error result, or return
a canned stub).
"""

from __future__ import annotations

from collections import defaultdict, deque
from collections.abc import Sequence
from typing import Generic, TypeVar

from toolreplay.analysis.classify import Classifier
from toolreplay.analysis.matching import Matcher
from toolreplay.core.canonical import JSONValue
from toolreplay.core.model import Call, CallClass, Origin
from toolreplay.core.records import record
from toolreplay.formats.stubs import Stub
from toolreplay.settings import Unrecorded

T = TypeVar("T")

# What an agent is told of a call the recording cannot answer: words a tool could say, nothing of a replay (the
# reports say how each call was answered).
UNRECORDED_ERROR = "Error: no result."
# The default answers by class (--on-unrecorded stub with no stubs file): what a tool might say, never the truth.
DEFAULT_DONE = "Done."
DEFAULT_NO_RESULT = UNRECORDED_ERROR


@record
class Answer:
    """A tool result to hand the candidate, and where it came from."""

    content: JSONValue
    is_error: bool
    origin: Origin  # recorded, a stub, or the error result
    index: int | None = None  # the recorded call that answered it, by its index in the recording


class Replies(Generic[T]):
    """Recorded replies queued by key: given back in recorded order, and the last one again once they run out."""

    def __init__(self) -> None:
        self._queues: dict[bytes, deque[T]] = defaultdict(deque)
        self._last: dict[bytes, T] = {}

    def add(self, key: bytes, reply: T) -> None:
        self._queues[key].append(reply)

    def next(self, key: bytes) -> T | None:
        queue = self._queues.get(key)
        if queue:
            self._last[key] = queue.popleft()
        return self._last.get(key)


class RecordedAnswers:
    """The recording's results, queued per matched call."""

    def __init__(self, calls: Sequence[Call], matcher: Matcher) -> None:
        self.matcher = matcher
        self._replies: Replies[Call] = Replies()
        for call in calls:
            self._replies.add(matcher.key(call), call)

    def answer(self, call: Call) -> Answer | None:
        recorded = self._replies.next(self.matcher.key(call))
        if recorded is None:
            return None
        return Answer(recorded.result, recorded.is_error, Origin.RECORDED, recorded.index)


def answer_call(
    answers: RecordedAnswers,
    call: Call,
    on_unrecorded: Unrecorded,
    stubs: Sequence[Stub] | None,
    classify: Classifier | None = None,
) -> Answer | None:
    """The answer a call gets: recorded, else what ``on_unrecorded`` says; None when the run is to stop.

    ``stub`` answers from ``stubs`` (an error result for a call no stub matches); with no stubs file at all
    (``stubs`` None), by the call's class: a plain success for a write or a deletion, so the agent goes on as
    if it had worked, and an error result for a read or an unknown call, which no default can answer honestly.
    """
    recorded = answers.answer(call)
    if recorded is not None:
        return recorded
    if on_unrecorded is Unrecorded.STOP:
        return None
    if on_unrecorded is Unrecorded.STUB and stubs is None:
        klass = classify.classify(call).klass if classify is not None else CallClass.UNKNOWN
        if klass in (CallClass.WRITE, CallClass.DESTRUCTIVE):
            return Answer(DEFAULT_DONE, False, Origin.DEFAULT)
        return Answer(DEFAULT_NO_RESULT, True, Origin.DEFAULT)
    if on_unrecorded is Unrecorded.STUB:
        for stub in stubs or ():
            if stub.matches(call):
                return Answer(stub.content, stub.is_error, Origin.STUB)
    return Answer(UNRECORDED_ERROR, True, Origin.ERROR)
