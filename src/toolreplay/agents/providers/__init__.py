"""The model providers, one module each, found by name (:data:`~toolreplay.agent_spec.PROVIDERS` names them):
each module is imported only when a replay asks one of its models, so its SDK is loaded by nothing else."""

from __future__ import annotations

import importlib

from toolreplay.agent_spec import ModelSpec
from toolreplay.agents.providers.base import Endpoint, Provider
from toolreplay.core.canonical import JSONObject

MODULES = {
    "anthropic": "toolreplay.agents.providers.anthropic",
    "bedrock": "toolreplay.agents.providers.bedrock",
    "vertex": "toolreplay.agents.providers.vertex",
    "openai": "toolreplay.agents.providers.openai",
}


def provider(name: str) -> Provider:
    """The provider ``name`` names (one of :data:`MODULES`)."""
    found: Provider = importlib.import_module(MODULES[name]).PROVIDER
    return found


def refusal(spec: ModelSpec, request: JSONObject, endpoint: Endpoint, batch: bool) -> str | None:
    """Why ``spec``'s provider cannot run a replay of ``request``'s settings as asked, in one line; None: it can."""
    return provider(spec.provider).refused(spec.model, request, endpoint, batch)
