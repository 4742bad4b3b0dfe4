"""Claude on Amazon Bedrock (``bedrock/MODEL``): the Messages API through the Anthropic SDK's own Bedrock client.

The model is Bedrock's id or inference profile (``bedrock/us.anthropic.claude-sonnet-4-5-20250929-v1:0``). The
client reads everything from the environment, as the SDK does: the region (``AWS_REGION``), then an API key
(``AWS_BEARER_TOKEN_BEDROCK``), or AWS credentials signed with SigV4 (which needs ``boto3``:
``pip install 'anthropic[bedrock]'``); ``ANTHROPIC_BEDROCK_BASE_URL`` or ``--base-url`` for another address.
Bedrock has no Message Batches the SDK sends, so ``--batch`` is refused; prompt caching is sent as to Anthropic.
"""

from __future__ import annotations

from typing import Any

from toolreplay.agents.providers.anthropic import ClaudeProvider, built, sdk
from toolreplay.agents.providers.base import Endpoint


class BedrockProvider(ClaudeProvider):
    name = "bedrock"
    api = "Amazon Bedrock"
    batches = False

    def client(self, endpoint: Endpoint) -> Any:
        return built(sdk().AnthropicBedrock, timeout=endpoint.timeout, base_url=endpoint.base_url)

    def async_client(self, endpoint: Endpoint) -> Any:
        return built(sdk().AsyncAnthropicBedrock, timeout=endpoint.timeout, base_url=endpoint.base_url)


PROVIDER = BedrockProvider()
