"""Claude on Google Cloud Vertex AI (``vertex/MODEL``): the Messages API through the Anthropic SDK's own Vertex client.

The model is Vertex's id (``vertex/claude-sonnet-4-5@20250929``). The client reads the region
(``CLOUD_ML_REGION``) and the project (``ANTHROPIC_VERTEX_PROJECT_ID``) from the environment, as the SDK does;
the token is ``ANTHROPIC_VERTEX_ACCESS_TOKEN`` when it is set (what ``gcloud auth print-access-token`` prints),
else Google's application default credentials (``pip install 'anthropic[vertex]'``). ``ANTHROPIC_VERTEX_BASE_URL``
or ``--base-url`` for another address. ``--batch`` is refused: Vertex batches go through Cloud Storage.
"""

from __future__ import annotations

import os
from typing import Any

from toolreplay.agents.providers.anthropic import ClaudeProvider, built, sdk
from toolreplay.agents.providers.base import Endpoint

TOKEN = "ANTHROPIC_VERTEX_ACCESS_TOKEN"


class VertexProvider(ClaudeProvider):
    name = "vertex"
    api = "Google Cloud Vertex AI"
    batches = False

    def _options(self, endpoint: Endpoint) -> dict[str, Any]:
        return {"timeout": endpoint.timeout, "base_url": endpoint.base_url, "access_token": os.environ.get(TOKEN)}

    def client(self, endpoint: Endpoint) -> Any:
        return built(sdk().AnthropicVertex, **self._options(endpoint))

    def async_client(self, endpoint: Endpoint) -> Any:
        return built(sdk().AsyncAnthropicVertex, **self._options(endpoint))


PROVIDER = VertexProvider()
