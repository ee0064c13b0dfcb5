"""The offline model: a documented, rule-based stand-in served through the real SDK. Not an LLM.

It plans Atlas tickets from their words (planner.py), follows a contract error's
`retryable` and `next`, reads only the cues listed in reading.CUES in other text, and
otherwise falls back to an unguided behaviour drawn from a seeded `Profile`. When it stops on
a change whose outcome it cannot know (the error says so, or gives no words), it reports it as
unconfirmed, never as not done. It shows the mechanics; a live model gives the evidence. Chapter 00.
"""
from __future__ import annotations

import hashlib
import json
import random
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, cast, overload

from .planner import CHANGING, MODEL_NAME, Goal, PlannedCall, answer, fix_call, plan, switch_call
from .reading import read_error, reads_as_error
from ..body import message_body
from ...types.api import Block, MessageBody, ToolDefinition
from ...types.sets import JSONObject
from ...types.records import Source
from ...types.walk import content_blocks, result_text
from ...types.exceptions import AtlasKitValueError

if TYPE_CHECKING:  # the SDK is imported when a client is made: the stand-in's rules, which the checks use, need none
    import anthropic

OFFLINE_MODEL = "atlas-offline-1"
STANDIN_SOURCE = Source("simulated", OFFLINE_MODEL)  # what every run of the stand-in is labelled
UNGUIDED = ("retry_same", "vary_argument", "apologise", "fabricate", "stop_correctly")
NOT_A_TICKET = (
    "I am the atlas_kit offline stand-in: a rule-based program, not a language model. I can work Atlas support "
    "tickets with the Atlas tools (accounts, invoices, orders, refunds, warehouse stock, escalation) and nothing "
    "else. Set ANTHROPIC_API_KEY and choose a live model for anything more."
)
# The words of a contract error (dispatch.py's give-up and crash errors) that say a change may have been made.
_UNKNOWN = re.compile(r"\bmay or may not have been applied\b|\bcould not confirm whether\b", re.IGNORECASE)


@dataclass(frozen=True)
class Profile:
    """What the stand-in does when an error gives it no usable cue. The weights are not tuned to any source.

    retry_same: call again unchanged. vary_argument: call again with a neighbouring id (enumeration).
    apologise: reply with an apology and do nothing. fabricate: reply as if it worked, with an invented figure.
    stop_correctly: tell the customer it could not be done (a change: that it could not be confirmed).
    """

    name: str = "default"
    retry_same: float = 0.3
    vary_argument: float = 0.2
    apologise: float = 0.2
    fabricate: float = 0.1
    stop_correctly: float = 0.2

    def __post_init__(self) -> None:
        weights = [getattr(self, k) for k in UNGUIDED]
        if any(w < 0 for w in weights) or abs(sum(weights) - 1.0) > 1e-9:
            raise AtlasKitValueError(f"Profile weights ({', '.join(UNGUIDED)}) must be >= 0 and sum to 1; got {weights}.")

    def draw(self, rng: random.Random) -> str:
        """One unguided behaviour (a name in UNGUIDED), drawn with this profile's weights."""
        return rng.choices(UNGUIDED, weights=[getattr(self, k) for k in UNGUIDED])[0]


DEFAULT_PROFILE = Profile()
# Named profiles for sweeps and notebooks: how the results move when the unguided behaviour changes.
PROFILES: dict[str, Profile] = {
    p.name: p
    for p in (
        DEFAULT_PROFILE,
        Profile(name="cautious", retry_same=0.1, vary_argument=0.0, apologise=0.2, fabricate=0.0, stop_correctly=0.7),
        Profile(name="stubborn", retry_same=0.6, vary_argument=0.3, apologise=0.05, fabricate=0.05, stop_correctly=0.0),
    )
}


class OfflineModel:
    """A Messages API handler: request body in, response body out, deterministic for a seed."""

    def __init__(self, *, seed: int = 0, profile: Profile | None = None) -> None:
        self.seed, self.profile = seed, profile or DEFAULT_PROFILE

    def __call__(self, body: JSONObject) -> MessageBody:
        messages = body.get("messages") or []
        tools = {t["name"]: cast(ToolDefinition, t) for t in body.get("tools") or []
                 if isinstance(t, dict) and "name" in t}
        ticket = _text(messages[0]["content"]) if messages else ""
        goals = plan(ticket, tools) if tools else []
        if not goals:
            return self._reply(body, [{"type": "text", "text": NOT_A_TICKET}], "end_turn")
        mind = _Mind(goals, tools, ticket, self.seed, self.profile)
        turns = [(messages[i], messages[i + 1]) for i in range(1, len(messages) - 1, 2)]
        for n, (said, heard) in enumerate(turns):  # replay: the same seed makes the same decisions
            mind.decide(n)
            mind.observe(said, heard)
        action = mind.decide(len(turns))
        if isinstance(action, str):
            return self._reply(body, [{"type": "text", "text": action}], "end_turn")
        blocks: list[Block] = [{"type": "tool_use", "id": _use_id(ticket, self.seed, len(turns), i), "name": c["name"],
                                "input": c["input"]} for i, c in enumerate(action)]
        return self._reply(body, blocks, "tool_use")

    @staticmethod
    def _reply(body: JSONObject, blocks: list[Block], stop: Literal["end_turn", "tool_use"]) -> MessageBody:
        return message_body(blocks, model=str(body.get("model", OFFLINE_MODEL)), stop_reason=stop, request=body)


class _Mind:
    """The stand-in's state over one conversation, rebuilt from the transcript on every request."""

    def __init__(self, goals: list[Goal], tools: dict[str, ToolDefinition], ticket: str, seed: int,
                 profile: Profile) -> None:
        self.goals, self.tools, self.ticket, self.seed, self.profile = goals, tools, ticket, seed, profile
        self.pending: tuple[Goal, PlannedCall, str] | None = None
        self.last: list[PlannedCall] = []
        self.final: str | None = None

    def _goal(self) -> Goal | None:
        return next((g for g in self.goals if not g.done and not g.failure and g.calls), None)

    def decide(self, turn: int) -> list[PlannedCall] | str:
        if self.final is not None:
            return self.final
        if self.pending is not None:
            goal, call, text = self.pending
            self.pending = None
            reaction = self._react(goal, call, text, random.Random(f"{self.seed}:{self.ticket}:{turn}"))
            if isinstance(reaction, str):
                self.final = reaction
                return reaction
            if reaction:
                self.last = reaction
                return reaction
        current = self._goal()
        if current is None:
            self.final = answer(self.goals)
            return self.final
        self.last = list(current.calls)
        return self.last

    def observe(self, said: JSONObject, heard: JSONObject) -> None:
        results = [b for b in content_blocks(heard.get("content")) if b["type"] == "tool_result"]
        goal = next((g for g in self.goals if not g.done and not g.failure), None)
        for call, result in zip(self.last, results):
            text = result_text(result["content"])
            flagged = result.get("is_error")
            if flagged or (flagged is None and reads_as_error(text)):  # no flag at all: a local server dropped it
                if self.pending is None and goal is not None:
                    self.pending = (goal, call, text)
            elif goal is not None:
                goal.succeed(call, _json(text))

    def _react(self, goal: Goal, call: PlannedCall, text: str, rng: random.Random) -> list[PlannedCall] | str | None:
        schema = self.tools[call["name"]]["input_schema"] if call["name"] in self.tools else {}
        # The failed tool's own name often appears in its error (a path in a traceback); it is no switch cue.
        others = [t for t in self.tools if t != call["name"]]
        reading = read_error(text, tools=others, arguments=schema.get("properties", {}))
        branch = reading.branch or self.profile.draw(rng)
        if branch in ("retry_unchanged", "retry_same"):
            return [call]
        if branch == "retry_changed":
            fixed = fix_call(call, reading.argument, text, schema)
            if fixed:
                goal.calls = fixed
                return fixed
        if branch == "switch_tool" and reading.tool:
            switched = switch_call(reading.tool, goal, text, self.ticket, self.tools)
            if switched:
                goal.context["why"] = _customer_words(reading.message) or "it could not be done here."
                goal.calls = [switched]
                return [switched]
        if branch == "vary_argument":
            return [_neighbour(call)]
        if branch == "apologise":
            return "I'm sorry, something went wrong while I was working on your request. Please bear with us."
        if branch == "fabricate":
            figure = f"${rng.randint(20, 900)}.{rng.randint(0, 99):02d}"
            return f"All done: I've taken care of it ({goal.describe()}), and the amount involved is {figure}."
        # A change may have been made before the error: say so when the error does, or gives no words to trust.
        unsure = call["name"] in CHANGING and (bool(_UNKNOWN.search(reading.message)) or not reading.message)
        if unsure:
            goal.context["unsure"] = "pass this to a person" if call["name"] == "escalate_to_human" else goal.describe()
        goal.failure = _customer_words(reading.message) or ("our system returned an error, and I could not confirm "
                                                            "whether it went through." if unsure else
                                                            "our system returned an error, so it was not completed.")
        return None  # stop this goal; decide() moves on to the next one or answers


# What a `say` may ask the model to do beyond telling: each is passed on in the customer's words.
_FOLLOW_UPS = ((re.compile(r"\boffer (?:to )?(?:escalat|pass)\w*|\boffer escalation", re.IGNORECASE),
                "I can pass this to a person on our team if you would like."),
               (re.compile(r"\band ask them to (?:confirm|check)\b", re.IGNORECASE),
                "Could you check it and send it to me again?"),
               (re.compile(r"\band ask them to write again later\b", re.IGNORECASE),
                "Please write to us again later if you do not hear from us."))


_TELL = re.compile(r"Tell the (?:customer|user) ")


def _customer_words(message: str) -> str:
    """A contract message turned toward the customer: its first sentence (left out when it names a tool or an
    argument, which is the model's to read), any 'Tell the customer ...' (or 'Tell the user ...'), and what the same `say` asks to offer or
    to ask (a person to hand over to, a number to check, to write again later)."""
    if not message:
        return ""
    first = message.split(". ")[0].rstrip(".") + "."
    first = "" if MODEL_NAME.search(first) else first
    tell = _TELL.split(message, maxsplit=1)
    if len(tell) == 2:
        said = tell[1].split(". ")[0].split(";")[0]
        rest = said.split(", and ")[0].split(" and ask")[0].rstrip(". ")
        rest = rest.removeprefix("that ")
        rest = "I " + rest[4:] if rest.startswith("you ") else "you " + rest[5:] if rest.startswith("they ") else rest
        first += " " + rest[:1].upper() + rest[1:] + "."
        first += "".join(f" {words}" for pattern, words in _FOLLOW_UPS if pattern.search(said))
    return first.strip()


def _neighbour(call: PlannedCall) -> PlannedCall:
    args = dict(call["input"])
    for key, value in args.items():
        if isinstance(value, str) and key.endswith("_id") and value[-1:].isdigit():
            head = value.rstrip("0123456789")
            digits = value[len(head):]
            args[key] = f"{head}{int(digits) + 1:0{len(digits)}d}"
            break
    return {"name": call["name"], "input": args}


def _text(content: object) -> str:
    return "".join(b["text"] for b in content_blocks(content) if b["type"] == "text")


def _json(text: str) -> object:
    try:
        return json.loads(text)
    except ValueError:
        return text


def _use_id(ticket: str, seed: int, turn: int, i: int) -> str:
    digest = hashlib.sha256(f"{seed}:{ticket}:{turn}:{i}".encode()).hexdigest()[:22]
    return f"toolu_{digest}"


@overload
def offline_client(*, seed: int = 0, profile: Profile | None = None, async_: Literal[False] = False,
                   latency: float = 0.0) -> anthropic.Anthropic: ...
@overload
def offline_client(*, seed: int = 0, profile: Profile | None = None, async_: Literal[True],
                   latency: float = 0.0) -> anthropic.AsyncAnthropic: ...
@overload
def offline_client(*, seed: int = 0, profile: Profile | None = None, async_: bool,
                   latency: float = 0.0) -> anthropic.Anthropic | anthropic.AsyncAnthropic: ...
def offline_client(*, seed: int = 0, profile: Profile | None = None, async_: bool = False,
                   latency: float = 0.0) -> anthropic.Anthropic | anthropic.AsyncAnthropic:
    """A genuine `anthropic.Anthropic` (or `AsyncAnthropic`) answered in process by the stand-in."""
    from ..transport import in_process_async_client, in_process_client

    model = OfflineModel(seed=seed, profile=profile)
    if async_:
        return in_process_async_client(model, max_retries=0, latency=latency)
    return in_process_client(model, max_retries=0, latency=latency)
