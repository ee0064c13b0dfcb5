"""Offline models for the inspect task: atlas_kit's stand-in as an inspect provider (`--model
atlas/atlas-offline-1`), and token usage for inspect's mockllm, whose own count would download a tokenizer.

The provider renders the conversation as inspect's Anthropic provider does and hands the body to
atlas_kit.models.standin.OfflineModel: a rule-based program, not an LLM, so its runs are simulated. Chapter 11.
"""
from __future__ import annotations

from inspect import isawaitable
from typing import Any

from inspect_ai.model import (ChatMessage, GenerateConfig, Model, ModelAPI, ModelCall, ModelOutput, ModelUsage,
                              model_output_from_anthropic)
from inspect_ai.tool import ToolChoice, ToolInfo

from ...models.standin.model import OFFLINE_MODEL, PROFILES, OfflineModel
from ...types.tokens import estimate_tokens, request_tokens
from .episode import ArgumentError
from .messages import anthropic_request
from ...types.exceptions import AtlasKitValueError

PROVIDER = "atlas"  # --model atlas/atlas-offline-1
_MAX_TOKENS = 1024  # atlas_kit's Bounds.max_tokens, when inspect's config sets none


class StandIn(ModelAPI):
    """The offline stand-in behind inspect's model interface. `-M profile=cautious` picks its unguided behaviour.

    Its seed is the generate config's (the task passes each episode's), else 0. A request's body and the
    stand-in's reply are logged as the model call, so the log shows exactly what the stand-in read.
    """

    def __init__(self, model_name: str, base_url: str | None = None, api_key: str | None = None,
                 config: GenerateConfig = GenerateConfig(), profile: str = "default", **model_args: object) -> None:
        super().__init__(model_name, base_url, api_key, [], config)
        if model_name != OFFLINE_MODEL:
            raise ArgumentError(f"The {PROVIDER} provider serves only the offline stand-in: use --model "
                             f"{PROVIDER}/{OFFLINE_MODEL}, not {PROVIDER}/{model_name}.")
        if model_args:
            raise ArgumentError(f"-M {', '.join(sorted(model_args))}: the stand-in takes only -M profile "
                             f"({', '.join(PROFILES)}); its seed comes from the task's -T seed.")
        if profile not in PROFILES:
            raise ArgumentError(f"-M profile={profile}: choose one of {', '.join(PROFILES)}.")
        self.profile = PROFILES[profile]

    async def generate(self, input: list[ChatMessage], tools: list[ToolInfo], tool_choice: ToolChoice,
                       config: GenerateConfig) -> tuple[ModelOutput, ModelCall]:
        body = dict(anthropic_request(input, tools, model=OFFLINE_MODEL, max_tokens=config.max_tokens or _MAX_TOKENS))
        reply = OfflineModel(seed=config.seed or 0, profile=self.profile)(body)
        output = await model_output_from_anthropic(dict(reply))
        return output, ModelCall.create(request=body, response=reply)


def episode_config(model: Model, *, seed: int) -> GenerateConfig:
    """The generate config for one episode: the stand-in gets the episode's seed; any other model, nothing extra."""
    return GenerateConfig(seed=seed) if isinstance(model.api, StandIn) else GenerateConfig()


def give_usage(model: Model) -> None:
    """Give inspect's mockllm outputs a token usage when they carry none, so inspect never counts them itself.

    inspect counts a usage-less mock output with tiktoken, whose first use downloads its encoding: offline, that
    fails. The figures set here are atlas_kit's rough estimate instead (transport.request_tokens, about 4 characters
    a token): a mock spends no tokens, so they only size the conversation. Outputs that carry a usage, and every
    other model, are left alone.
    """
    api: Any = model.api
    if str(model).split("/")[0] != "mockllm" or getattr(api, "_atlas_usage", False) or not hasattr(api, "outputs"):
        return
    source = api.outputs

    async def outputs(input: list[ChatMessage], tools: list[ToolInfo], tool_choice: ToolChoice,
                      config: GenerateConfig) -> ModelOutput:
        if callable(source):
            output = source(input, tools, tool_choice, config)
            if isawaitable(output):
                output = await output
        else:
            try:
                output = next(source)
            except StopIteration:
                raise AtlasKitValueError("custom_outputs ran out of values") from None
        if not isinstance(output, ModelOutput):
            raise AtlasKitValueError(f"mockllm outputs must be ModelOutput objects; got {type(output).__name__}.")
        if output.usage is None:
            n_in = request_tokens(dict(anthropic_request(input, tools, model=str(model), max_tokens=_MAX_TOKENS)))
            n_out = estimate_tokens(output.completion)
            output.usage = ModelUsage(input_tokens=n_in, output_tokens=n_out, total_tokens=n_in + n_out)
        return output

    api.outputs = outputs
    api._atlas_usage = True
