"""The offline stand-in as an MCP host: it connects to an Atlas MCP server with the SDK's in-memory client,
opens a ticket through its prompt, turns the stand-in's tool_use blocks into `tools/call` requests and hands
its reply in with `finish`. Every episode it drives is labelled simulated. Chapter 15.
"""
from __future__ import annotations

import asyncio
import concurrent.futures
from dataclasses import dataclass
from typing import Sequence

import mcp_types as types
from mcp import Client

from .episode import FINISH, McpRecord
from .server import AtlasMCP
from ...models.replies import APIFailure, read_reply
from ...models.standin.model import OFFLINE_MODEL, Profile, offline_client
from ...types.api import Block, Message, MessagesRequest, ToolDefinition
from ...types.sets import JSONObject
from ...types.clients import AsyncMessagesClient, wire
from ...types.exceptions import AtlasKitValueError

HOST_NAME = "atlas-offline-host"  # the clientInfo name the server logs for the stand-in's episodes


@dataclass(frozen=True)
class Exchange:
    """One tools/call as the host saw it: the tool, the arguments, and the CallToolResult that came back."""

    tool: str
    arguments: JSONObject
    result: JSONObject  # the wire form: content, isError and structuredContent when present

    @property
    def is_error(self) -> bool:
        """Whether the result came back with isError set."""
        return bool(self.result.get("isError"))

    @property
    def text(self) -> str:
        """The result's text content, joined."""
        return "".join(b.get("text", "") for b in self.result.get("content", []))


@dataclass(frozen=True)
class HostedEpisode:
    """What one ticket left: the calls, the answer handed in, the server's reply to finish, and its record."""

    ticket: str
    exchanges: tuple[Exchange, ...]
    answer: str | None
    verdict: str | None  # finish's reply; None when the step bound came first and nothing was handed in
    record: McpRecord | None


async def asimulate(server: AtlasMCP, tickets: Sequence[str], *, seed: int = 0, profile: Profile | None = None,
                    max_steps: int = 30) -> list[HostedEpisode]:
    """Work `tickets` in order over one in-memory MCP connection, as a learner would in one client session.

    `max_steps` bounds the stand-in's turns per ticket; keep it above the server's `max_calls`, which is the
    bound that ends (and grades) a looping episode.
    """
    if not server.simulated:
        raise AtlasKitValueError("asimulate drives the offline stand-in, so the server must label its episodes: "
                         "build it with AtlasMCP(..., simulated=True).")
    model = offline_client(seed=seed, profile=profile, async_=True)
    info = types.Implementation(name=HOST_NAME, version="1")
    out, first = [], len(server.records)
    async with Client(server.server, mode="legacy", client_info=info) as mcp:
        listed = await mcp.list_tools()
        # The stand-in plans from Atlas's tools; finish is the host's to call, as a person's client would end a chat.
        tools: list[ToolDefinition] = [
            {"name": t.name, "description": t.description or "", "input_schema": t.input_schema}
            for t in listed.tools if t.name != FINISH]
        for ticket in tickets:
            out.append(await _episode(mcp, model, tools, ticket, max_steps))
    server.close()  # an episode the step bound cut short is written now, as not handed in
    # Each prompt closes the episode before it, so the server wrote one record per ticket, in order.
    written = server.records[first:]
    return [HostedEpisode(e.ticket, e.exchanges, e.answer, e.verdict, r) for e, r in zip(out, written)]


async def _episode(mcp: Client, model: AsyncMessagesClient, tools: list[ToolDefinition], ticket: str,
                   max_steps: int) -> HostedEpisode:
    prompt = await mcp.get_prompt(ticket)
    *brief, customer = [m.content.text for m in prompt.messages if isinstance(m.content, types.TextContent)]
    messages: list[Message] = [{"role": "user", "content": customer}]
    exchanges: list[Exchange] = []
    for _ in range(max_steps):
        request: MessagesRequest = {"model": OFFLINE_MODEL, "max_tokens": 1024, "system": "\n\n".join(brief),
                                    "tools": tools, "messages": messages}
        reply = read_reply(await model.messages.create(**wire(request)))
        if isinstance(reply, APIFailure):  # the stand-in always answers a message; say so if it ever does not
            raise RuntimeError(f"the offline stand-in's reply was not a message: {reply.line()}")
        messages.append({"role": "assistant", "content": reply.content})
        uses = reply.tool_uses
        if not uses:
            answer = reply.text
            done = await mcp.call_tool(FINISH, {"answer": answer or "(no reply)", "model": OFFLINE_MODEL})
            verdict = "".join(b.text for b in done.content if isinstance(b, types.TextContent))
            return HostedEpisode(ticket, tuple(exchanges), answer, verdict, None)
        results: list[Block] = []
        for use in uses:
            called = await mcp.call_tool(use["name"], use["input"])
            body = called.model_dump(by_alias=True, mode="json", exclude_none=True, exclude={"meta", "result_type"})
            exchanges.append(Exchange(use["name"], use["input"], body))
            results.append({"type": "tool_result", "tool_use_id": use["id"], "content": exchanges[-1].text,
                            "is_error": exchanges[-1].is_error})
        messages.append({"role": "user", "content": results})
    return HostedEpisode(ticket, tuple(exchanges), None, None, None)


def simulate(server: AtlasMCP, tickets: Sequence[str], *, seed: int = 0, profile: Profile | None = None,
             max_steps: int = 30) -> list[HostedEpisode]:
    """`asimulate` from sync code, also inside Jupyter (whose event loop is already running)."""
    run = asimulate(server, tickets, seed=seed, profile=profile, max_steps=max_steps)
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(run)
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, run).result()
