"""The process a ``python:`` agent's function runs in: one per replay side, started once, asked for every run.

Run by path (``python function_worker.py TARGET FUNCTION HOME``), with nothing of toolreplay imported: the standard
library and the ``mcp`` SDK only, so it can run as another user who may read none of the check's environment. It
imports the function (``TARGET`` a module, found from ``HOME`` and the installed packages, or a ``.py`` file, its
directory first on the path as ``python FILE`` puts it), says which of the names it gives the function takes, then
answers one JSON line with JSON lines on its standard streams, which are the protocol's alone (what the function
prints goes to standard error):

- ``{"op": "run", "run": N, "seed": S, "task": ..., "system": ..., "servers": [NAME, ...], "urls": {NAME: URL}}``
  starts a run: an MCP ``ClientSession`` per server, initialised, whose messages go out as ``{"run": N, "server":
  NAME, "mcp": TEXT}`` (the message's JSON text, as the SDK's stdio client would write it) and come back the
  same way (``"closed": true`` ends that server's connection); then the function is called, and its end said as
  ``{"run": N, "reply": TEXT}`` or ``{"run": N, "error": LINE, "traceback": TEXT}``. With ``"live": {NAME:
  SERVER}`` (``record``) a session is the SDK's own, with a real server: a command over stdio (``{"command":
  [...], "env": {...}}``, the recorder's proxy in front of it), or a URL.

Runs may overlap (``--concurrency``): an async function's runs are tasks of one event loop, a sync function's run
in threads of it, and every message carries its run's number. The check answers every message from the recording
and keeps what the run called: the function sees an MCP server, and nothing of toolreplay.
"""

import asyncio
import contextlib
import importlib
import importlib.util
import inspect
import json
import math
import os
import sys
import threading
import traceback
from collections.abc import Callable
from typing import Any, TextIO

GIVEN = ("task", "system", "session", "sessions", "url", "urls", "seed", "run")  # what a run gives, by name
TRACEBACK_LIMIT = 8000  # characters of a traceback kept
REPLY_LIMIT = 100_000  # characters of a final reply kept, as of a program's


def _load(target: str, name: str, home: str) -> Callable[..., Any]:
    """The function ``name`` of the module or file ``target``."""
    if target.endswith(".py"):
        path = os.path.abspath(target)
        sys.path.insert(0, os.path.dirname(path))
        stem = os.path.splitext(os.path.basename(path))[0]
        named = stem if stem.isidentifier() and stem not in sys.modules else "toolreplay_python_agent"
        spec = importlib.util.spec_from_file_location(named, path)  # by its own name: a spawned child imports it
        if spec is None or spec.loader is None:
            raise ImportError(f"{target} is not a Python file")
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
    else:
        sys.path.insert(0, home)
        module = importlib.import_module(target)
    function = getattr(module, name, None)
    if function is None:
        raise AttributeError(f"{target} has no {name}")
    if not callable(function):
        raise TypeError(f"{target}:{name} is not a function (it is of type {type(function).__name__})")
    chosen: Callable[..., Any] = function
    return chosen


def _parameters(function: Callable[..., Any]) -> list[str]:
    """The names of GIVEN the function takes; a parameter it needs that no run gives is refused."""
    taken: list[str] = []
    for parameter in inspect.signature(function).parameters.values():
        if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
            continue
        if parameter.name in GIVEN and parameter.kind is parameter.POSITIONAL_ONLY:
            raise TypeError(f"takes {parameter.name!r} by position only; a run gives it by name")
        if parameter.name in GIVEN:
            taken.append(parameter.name)
        elif parameter.default is parameter.empty:
            raise TypeError(
                f"takes {parameter.name!r}, which a run does not give (it gives {', '.join(GIVEN)}, by name)"
            )
    return taken


class _Mcp:
    """The mcp SDK's types, as this version of it names them."""

    def __init__(self) -> None:
        import anyio  # noqa: PLC0415 - loaded once the function is, so a missing SDK is said as a load failure
        import mcp  # noqa: PLC0415
        import mcp.shared.message  # noqa: PLC0415

        self.anyio = anyio
        self.ClientSession = mcp.ClientSession
        adapter = getattr(mcp.types, "jsonrpc_message_adapter", None)  # a 2.x SDK; 1.x has a root model
        root_model: Any = mcp.types.JSONRPCMessage
        self.parse = adapter.validate_json if adapter is not None else root_model.model_validate_json
        self.SessionMessage = getattr(mcp.shared.message, "SessionMessage", None)  # none: the streams carry messages

    def incoming(self, text: str) -> Any:
        """A message as the session takes it, from its JSON text (validated as the SDK's stdio client does)."""
        parsed = self.parse(text)
        return self.SessionMessage(parsed) if self.SessionMessage is not None else parsed

    def outgoing(self, item: Any) -> str:
        """A message the session sends, as JSON text (as the SDK's stdio client writes it)."""
        message = getattr(item, "message", item)
        text: str = message.model_dump_json(by_alias=True, exclude_unset=True)
        return text


class Worker:
    def __init__(self, protocol: TextIO, function: Callable[..., Any], taken: list[str]) -> None:
        self.protocol = protocol
        self.function = function
        self.taken = taken
        self.lock = threading.Lock()
        self.streams: dict[tuple[Any, Any], Any] = {}  # (run, server) -> the send side of that session's read stream
        self.tasks: dict[int, asyncio.Task[None]] = {}
        self.sdk = _Mcp()
        self.loop: asyncio.AbstractEventLoop | None = None

    def say(self, message: object) -> None:
        line = json.dumps(message) + "\n"
        with self.lock:
            self.protocol.write(line)
            self.protocol.flush()

    def heard(self, message: dict[str, Any]) -> None:
        """One line from the check, on the event loop."""
        if message.get("op") == "run":
            assert self.loop is not None
            self.tasks[message["run"]] = self.loop.create_task(self.run(message))
            return
        key = (message.get("run"), message.get("server"))
        stream = self.streams.get(key)
        if stream is None:
            return  # a run already over
        if message.get("closed"):
            stream.close()
            return
        try:
            stream.send_nowait(self.sdk.incoming(message["mcp"]))  # the message's JSON text
        except Exception as exc:  # the stream is closed, or the message no JSON-RPC: the session's to hear
            with contextlib.suppress(Exception):
                stream.send_nowait(exc)

    async def connect(self, number: int, server: str, stack: contextlib.AsyncExitStack) -> Any:
        anyio = self.sdk.anyio
        to_session, read = anyio.create_memory_object_stream(math.inf)
        write, from_session = anyio.create_memory_object_stream(math.inf)
        self.streams[(number, server)] = to_session

        async def pump() -> None:
            async with from_session:
                async for item in from_session:
                    self.say({"run": number, "server": server, "mcp": self.sdk.outgoing(item)})

        pumping = asyncio.ensure_future(pump())
        stack.push_async_callback(_cancelled, pumping)
        session = await stack.enter_async_context(self.sdk.ClientSession(read, write))
        await session.initialize()
        return session

    async def connect_live(self, server: Any, stack: contextlib.AsyncExitStack) -> Any:
        """A session with a real server (``record``): a command started over stdio (``{"command": [...], "env":
        {...}}``), or a URL over Streamable HTTP."""
        if isinstance(server, str):
            import mcp.client.streamable_http as http  # noqa: PLC0415

            opened = getattr(http, "streamable_http_client", None) or getattr(http, "streamablehttp_client")  # noqa: B009 - 1.x
            streams = await stack.enter_async_context(opened(server))
        else:
            from mcp import StdioServerParameters  # noqa: PLC0415
            from mcp.client.stdio import get_default_environment, stdio_client  # noqa: PLC0415

            env = {**get_default_environment(), **server.get("env", {})}
            command = StdioServerParameters(command=server["command"][0], args=server["command"][1:], env=env)
            streams = await stack.enter_async_context(stdio_client(command))
        session = await stack.enter_async_context(self.sdk.ClientSession(streams[0], streams[1]))
        await session.initialize()
        return session

    async def run(self, message: dict[str, Any]) -> None:
        number = message["run"]
        try:
            async with contextlib.AsyncExitStack() as stack:
                sessions: dict[str, Any] = {}
                live = message.get("live") or {}
                wanted = live or {"session", "sessions"} & set(self.taken)  # a url alone: the function connects
                for server in message["servers"] if wanted else ():
                    if server in live:
                        sessions[server] = await self.connect_live(live[server], stack)
                    else:
                        sessions[server] = await self.connect(number, server, stack)
                urls = message.get("urls") or {}
                values = {
                    "task": message["task"],
                    "system": message["system"],
                    "session": next(iter(sessions.values()), None),
                    "sessions": sessions,
                    "url": next(iter(urls.values()), None),
                    "urls": urls,
                    "seed": message.get("seed"),
                    "run": number,
                }
                arguments = {name: values[name] for name in self.taken}
                if inspect.iscoroutinefunction(self.function):
                    reply = await self.function(**arguments)
                else:
                    reply = await self.sdk.anyio.to_thread.run_sync(_caught, self.function, arguments)
                    if isinstance(reply, _Raised):
                        raise reply.exc
                if inspect.isawaitable(reply):
                    reply = await reply
            if reply is not None and not isinstance(reply, str):
                raise TypeError(f"returned {type(reply).__name__}, not the final reply's text (a str, or None)")
            self.say({"run": number, "reply": reply[:REPLY_LIMIT] if reply is not None else None})
        except BaseException as raised:  # the user's code, whatever it raises (sys.exit too), but a cancellation
            if isinstance(raised, asyncio.CancelledError):
                raise
            exc = _innermost(raised)
            self.say({"run": number, "error": _line(exc), "traceback": _traceback(exc)})
        finally:
            for key in [key for key in self.streams if key[0] == number]:
                self.streams.pop(key).close()
            self.tasks.pop(number, None)


class _Raised:
    """What a sync function raised in its thread, carried out of it (a SystemExit there would end only the thread)."""

    def __init__(self, exc: BaseException) -> None:
        self.exc = exc


def _caught(function: Callable[..., Any], arguments: dict[str, Any]) -> Any:
    try:
        return function(**arguments)
    except BaseException as exc:  # the user's code, whatever it raises
        return _Raised(exc)


async def _cancelled(task: asyncio.Future[None]) -> None:
    task.cancel()
    with contextlib.suppress(BaseException):
        await task


def _innermost(exc: BaseException) -> BaseException:
    """What the function raised, out of the task groups it was raised through (the SDK's session runs in one)."""
    while isinstance(exc, BaseExceptionGroup):
        leaves = [inner for inner in exc.exceptions if not isinstance(inner, asyncio.CancelledError)]
        if not leaves:
            break
        exc = leaves[0]
    return exc


def _said(exc: BaseException) -> str:
    """What an exception says of itself; one whose ``str`` raises says its type's name, and that."""
    try:
        return str(exc)
    except BaseException:  # the user's __str__, whatever it raises
        return f"(its str() raised; {type(exc).__name__} at {id(exc):#x})"


def _line(exc: BaseException) -> str:
    """What was raised, in one line, with where in the user's code."""
    said = _said(exc).strip().splitlines()
    line = f"{type(exc).__name__}: {said[0]}" if said else type(exc).__name__
    frames = [
        f for f in traceback.extract_tb(exc.__traceback__) if f.filename != __file__ and not f.filename.startswith("<")
    ]
    own = [frame for frame in frames if not _installed(frame.filename)] or frames  # the user's code, before a library's
    if own:
        line += f" (at {os.path.basename(own[-1].filename)}:{own[-1].lineno} in {own[-1].name})"
    return line[:400]


_LIBRARIES = tuple(
    {os.path.join(os.path.realpath(prefix), "lib") for prefix in (sys.prefix, sys.base_prefix, sys.exec_prefix)}
)


def _installed(filename: str) -> bool:
    """Whether a frame's file is the standard library's or an installed package's, not the user's own."""
    real = os.path.realpath(filename)
    return real.startswith(_LIBRARIES) or "site-packages" in real.split(os.sep)


def _traceback(exc: BaseException) -> str:
    """The traceback as Python prints it, from the function's own frames on (none of the worker's)."""
    try:
        told = traceback.TracebackException.from_exception(exc)
        told.stack = traceback.StackSummary.from_list([frame for frame in told.stack if frame.filename != __file__])
        return "".join(told.format())[-TRACEBACK_LIMIT:]
    except BaseException:  # an exception that cannot even be told (its __str__ raises, say): where it was raised
        frames = traceback.extract_tb(exc.__traceback__)
        return "".join(traceback.format_list([f for f in frames if f.filename != __file__]))[-TRACEBACK_LIMIT:]


def _read(worker: Worker, loop: asyncio.AbstractEventLoop, heard: TextIO) -> None:
    for line in heard:
        try:
            message = json.loads(line)
        except ValueError:
            continue
        loop.call_soon_threadsafe(worker.heard, message)
    loop.call_soon_threadsafe(loop.stop)  # the replay is gone: so is the worker (main ends it, threads and all)


def main() -> int:
    protocol = os.fdopen(os.dup(1), "w", encoding="utf-8")
    heard = os.fdopen(os.dup(0), "r", encoding="utf-8", errors="surrogateescape")
    os.dup2(2, 1)  # what the function prints, to standard error
    nothing = os.open(os.devnull, os.O_RDONLY)
    os.dup2(nothing, 0)  # what it reads of standard input: nothing, never the protocol
    os.close(nothing)
    sys.stdout, sys.stdin = sys.stderr, open(os.devnull, encoding="utf-8")  # noqa: SIM115 - for the process's life
    sys.dont_write_bytecode = True  # nothing written beside the user's files
    target, name, home = sys.argv[1:4]
    sys.argv[:] = [target]  # the function's own name for itself, as python FILE or -m would give it
    sys.path[:] = [entry for entry in sys.path if os.path.abspath(entry or ".") != os.path.dirname(__file__)]

    def say(message: object) -> None:
        protocol.write(json.dumps(message) + "\n")
        protocol.flush()

    try:
        import mcp  # noqa: F401, PLC0415 - what every session is made with, before the user's code is loaded
    except ImportError as exc:
        say(
            {"error": f"needs the mcp SDK, which {sys.executable} cannot import ({exc}): pip install 'toolreplay[mcp]'"}
        )
        return 1
    try:
        function = _load(target, name, home)
        taken = _parameters(function)
        worker = Worker(protocol, function, taken)
    except BaseException as exc:  # the user's code, whatever it raises
        say({"error": f"failed to load: {_line(exc)}", "traceback": _traceback(exc)})
        return 1
    say({"ok": "loaded", "takes": taken})
    loop = asyncio.new_event_loop()
    worker.loop = loop
    threading.Thread(target=_read, args=(worker, loop, heard), daemon=True).start()
    loop.run_forever()
    sys.stderr.flush()
    os._exit(0)  # a sync function still running in a thread would keep the process alive: nothing outlives the replay


if __name__ == "__main__":
    raise SystemExit(main())
