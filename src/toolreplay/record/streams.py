"""A stream an SDK returns, passed through to the caller item by item while a recorder sees each item and the end.

Both SDK wrappers hand the caller this in place of the SDK's own stream: it
iterates (blocking or async), enters and exits as the SDK's does, and answers
every other attribute from it, so the caller cannot tell the two apart.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any


class PassThrough:
    """``stream``, with :meth:`add` told of each item as it passes and :meth:`end` once it has run out."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream

    def add(self, item: Any) -> None:
        """One item, as the caller gets it."""

    def end(self) -> None:
        """The stream ran out (never called for a stream the caller left before its end)."""

    def __iter__(self) -> Iterator[Any]:
        for item in self._stream:
            self.add(item)
            yield item
        self.end()

    def __aiter__(self) -> AsyncIterator[Any]:
        return self._async_items()

    async def _async_items(self) -> AsyncIterator[Any]:
        async for item in self._stream:
            self.add(item)
            yield item
        self.end()

    def __enter__(self) -> PassThrough:
        self._stream.__enter__()
        return self

    def __exit__(self, *exc: object) -> Any:
        return self._stream.__exit__(*exc)

    async def __aenter__(self) -> PassThrough:
        await self._stream.__aenter__()
        return self

    async def __aexit__(self, *exc: object) -> Any:
        return await self._stream.__aexit__(*exc)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)
