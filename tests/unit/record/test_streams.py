"""A stream passed through to the caller: every item reaches it unchanged, the recorder sees each and the end once,
blocking or async, and every other attribute is the SDK's stream's own."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from typing import Any

from toolreplay.record.streams import PassThrough


class _Stream:
    """An SDK's stream, as far as a caller uses one."""

    def __init__(self, items: list[int]) -> None:
        self.items = items
        self.entered = self.exited = 0
        self.response = "the SDK's own"

    def __iter__(self) -> Iterator[int]:
        return iter(self.items)

    async def _items(self) -> AsyncIterator[int]:
        for item in self.items:
            yield item

    def __aiter__(self) -> AsyncIterator[int]:
        return self._items()

    def __enter__(self) -> _Stream:
        self.entered += 1
        return self

    def __exit__(self, *exc: object) -> None:
        self.exited += 1


class _Seen(PassThrough):
    def __init__(self, stream: Any) -> None:
        super().__init__(stream)
        self.seen: list[Any] = []

    def add(self, item: Any) -> None:
        self.seen.append(item)

    def end(self) -> None:
        self.seen.append("end")


def test_each_item_reaches_the_caller_and_the_recorder_sees_each_then_the_end() -> None:
    stream = _Stream([1, 2, 3])
    passed = _Seen(stream)
    with passed as entered:
        assert list(entered) == [1, 2, 3]
    assert passed.seen == [1, 2, 3, "end"]
    assert (stream.entered, stream.exited) == (1, 1)
    assert passed.response == "the SDK's own"


def test_a_stream_left_before_its_end_is_never_said_to_have_ended() -> None:
    passed = _Seen(_Stream([1, 2, 3]))
    for item in passed:
        if item == 2:
            break
    assert passed.seen == [1, 2]


def test_the_async_stream_passes_through_as_the_blocking_one() -> None:
    passed = _Seen(_Stream([4, 5]))

    async def read() -> list[Any]:
        return [item async for item in passed]

    assert asyncio.run(read()) == [4, 5]
    assert passed.seen == [4, 5, "end"]
