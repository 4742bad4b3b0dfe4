"""Claude on Bedrock and on Vertex: the same Messages API body through the Anthropic SDK's own Bedrock and Vertex
clients, each configured from the environment only, against the local stand-in (which answers any path)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.fakes.anthropic_server import FakeMessagesAPI, message, serve
from toolreplay.agent_spec import ModelSpec
from toolreplay.agents.providers import refusal
from toolreplay.agents.providers.base import Endpoint, shown_url
from toolreplay.agents.providers.bedrock import PROVIDER as BEDROCK
from toolreplay.agents.providers.vertex import PROVIDER as VERTEX
from toolreplay.core.canonical import JSONObject
from toolreplay.core.errors import UsageError
from toolreplay.core.model import ToolDef

TOOLS = (ToolDef("read", "Read a file.", {"type": "object"}),)
OPENING: list[JSONObject] = [{"role": "user", "content": "Read a."}]


@pytest.fixture
def api() -> Iterator[FakeMessagesAPI]:
    with serve() as fake:
        yield fake


def test_bedrock_is_asked_at_its_invoke_path_with_its_api_key(
    api: FakeMessagesAPI, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AWS_REGION", "us-east-1")
    monkeypatch.setenv("AWS_BEARER_TOKEN_BEDROCK", "bedrock-key-0000")
    monkeypatch.setenv("ANTHROPIC_BEDROCK_BASE_URL", api.url)
    api.queue(message([{"type": "text", "text": "Done."}]))
    agent = BEDROCK.blocking("us.anthropic.claude-sonnet-4-5-20250929-v1:0", {"max_tokens": 64}, Endpoint())
    turn = agent.respond("Be careful.", TOOLS, OPENING)
    assert turn.text == "Done."
    assert api.paths == ["/model/us.anthropic.claude-sonnet-4-5-20250929-v1:0/invoke"]
    assert api.headers[0]["authorization"] == "Bearer bedrock-key-0000"
    assert "model" not in api.requests[0]
    assert api.requests[0]["anthropic_version"]
    assert api.requests[0]["system"][0]["cache_control"] == {"type": "ephemeral"}  # prompt caching, as to Anthropic


def test_vertex_is_asked_at_its_raw_predict_path_with_the_token_from_the_environment(
    api: FakeMessagesAPI, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CLOUD_ML_REGION", "us-east5")
    monkeypatch.setenv("ANTHROPIC_VERTEX_PROJECT_ID", "my-project")
    monkeypatch.setenv("ANTHROPIC_VERTEX_ACCESS_TOKEN", "ya29.token")
    api.queue(message([{"type": "text", "text": "Done."}]))
    agent = VERTEX.blocking("claude-sonnet-4-5@20250929", {"max_tokens": 64}, Endpoint(api.url + "/v1"))
    assert agent.respond("", TOOLS, OPENING).text == "Done."
    assert api.paths == [
        "/v1/projects/my-project/locations/us-east5/publishers/anthropic/models/claude-sonnet-4-5@20250929:rawPredict"
    ]
    assert api.headers[0]["authorization"] == "Bearer ya29.token"


def test_a_cloud_without_its_region_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("CLOUD_ML_REGION", "AWS_REGION", "AWS_DEFAULT_REGION"):
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(UsageError, match=r"could not be made: .*region"):
        VERTEX.blocking("claude-sonnet-4-5@20250929", {}, Endpoint())


def test_neither_cloud_sends_message_batches_and_each_says_where_it_asks() -> None:
    for cloud in ("bedrock", "vertex"):
        said = refusal(ModelSpec("claude-x", cloud), {}, Endpoint(), batch=True)
        assert said is not None
        assert "replay without --batch" in said
        assert refusal(ModelSpec("claude-x", cloud), {}, Endpoint(), batch=False) is None
    assert refusal(ModelSpec("claude-x"), {}, Endpoint(), batch=True) is None
    assert BEDROCK.where(Endpoint()) == "Amazon Bedrock"
    assert VERTEX.where(Endpoint("https://proxy.example/v1?key=secret")) == (
        "Google Cloud Vertex AI at https://proxy.example/v1?…"
    )
    assert shown_url("http://127.0.0.1:8000/v1") == "http://127.0.0.1:8000/v1"
