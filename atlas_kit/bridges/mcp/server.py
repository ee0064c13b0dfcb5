"""Atlas as an MCP server: the seven tools, a `finish` tool and the 27 tickets as prompts, over stdio.

Built on the official SDK's low-level Server, so the Dispatcher owns every error: a failed call is an
`isError` result in the chosen style; an unknown tool or prompt name is a JSON-RPC protocol error, as the
spec has it; a failure of the server's own is never its exception text (guard.py). `atlas-kit mcp` runs it over
stdio (stdio.py); episode.py holds one episode's work. Chapter 15.
"""
from __future__ import annotations

import json
import shlex
import sys
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Callable, Literal, Union

try:
    import mcp_types as types
    from mcp import MCPError
    from mcp.server import Server
except ImportError as err:  # the SDK is an optional extra
    raise ImportError("Atlas over MCP needs the MCP SDK: pip install -e '.[mcp]' (or pip install 'mcp>=2,<3').") from err

from ...contract.arguments import check_arguments
from ...dispatch.styles import STYLES
from ...atlas.tickets import TICKETS, Ticket
from ...atlas.session import atlas_session
from ...atlas.faults import Fault
from ...dispatch.styles import Failure
from ...dispatch.dispatcher import argument_error
from .episode import (FINISH, ClientInfo, McpEpisode, McpRecord, finish_definition, next_record, no_episode,
    open_episode)
from .guard import Guard, RequestContext
from .log import append_record, logged_keys
from ...contract.vocab import MCPResult
from .wording import call_result, unknown_prompt, unknown_tool
from ...types.exceptions import AtlasKitValueError

SERVER_NAME = "atlas"
INVALID_PARAMS = -32602  # JSON-RPC: the spec's code for a tools/call or prompts/get naming nothing the server has
INSTRUCTIONS = (
    "Atlas is the mock billing and catalogue company of the atlas_kit course. The user opens an episode by picking "
    "a ticket prompt (T01 to T27). Work it with the seven Atlas tools only, not with files or other tools, then hand "
    "your reply to the customer in with the finish tool: the episode is graded on Atlas's end state and that reply."
)
_BRIEF = ("\n\nWork the customer's message that follows with the Atlas tools of this server only; do not read files or "
          "use other tools. When your reply to the customer is ready, call the finish tool with it as `answer` (and "
          "your model name as `model`, if you know it): the episode is graded on what you hand in.")
ClientKind = Literal["claude-code", "claude-desktop", "inspector"]
Paging = Union[types.PaginatedRequestParams, None]  # a list request's cursor; Atlas lists all in one page


def _version() -> str:
    try:
        return metadata.version("atlas_kit")
    except metadata.PackageNotFoundError:  # a checkout on sys.path without an install
        return "0"


@dataclass
class AtlasMCP:
    """One learner's Atlas server: options, the open episode, and the records written so far.

    `simulated` labels every episode as the stand-in's (mcp_host.py sets it); `log` appends each episode's
    record to a JSONL file (check it first with log.check_log); `max_calls` ends an episode on step_limit. `warn`
    takes the one line that says an append failed (stderr by default). `server` is the SDK's low-level Server.
    """

    style: str = "contract"
    faults: bool = True
    seed: int = 0
    log: Path | None = None
    simulated: bool = False
    max_calls: int = 12
    episode: McpEpisode | None = None
    records: list[McpRecord] = field(default_factory=list)
    warn: Callable[[str], None] = field(default=lambda line: print(line, file=sys.stderr, flush=True), repr=False)

    def __post_init__(self) -> None:
        if self.style not in STYLES:
            raise AtlasKitValueError(f"style {self.style!r} is not one of: {', '.join(STYLES)}.")
        if self.log is not None:
            self.log = Path(self.log)
        probe = atlas_session("T01")  # the tool surface is the same for every ticket
        self._tools = [types.Tool(name=d["name"], description=d["description"], input_schema=d["input_schema"],
                                  annotations=types.ToolAnnotations(read_only_hint=not probe.dispatcher.tools[d["name"]].side_effect))
                       for d in probe.tools()]
        finish = finish_definition()
        self._tools.append(types.Tool(name=FINISH, description=finish["description"], input_schema=finish["input_schema"]))
        self.server: Server[dict[str, object]] = Server(
            SERVER_NAME, version=_version(), instructions=INSTRUCTIONS,
            on_list_tools=self._list_tools, on_call_tool=self._call_tool,
            on_list_prompts=self._list_prompts, on_get_prompt=self._get_prompt,
        )
        self.server.middleware.append(Guard(self))  # innermost: the SDK's tracing middleware still sees every answer

    @property
    def tool_names(self) -> list[str]:
        return [t.name for t in self._tools]

    # --- episodes ----------------------------------------------------------------------------
    def open(self, ticket: Ticket | str, *, client: ClientInfo | None = None, faults: bool | tuple[Fault, ...] | None = None,
             customer: str | None = None) -> McpEpisode:
        """Close any open episode (logged as not handed in) and open a fresh one of `ticket`."""
        self.close()
        self.episode = open_episode(ticket, style=self.style, faults=self.faults if faults is None else faults,
                                    seed=self.seed, client=client, simulated=self.simulated, customer=customer,
                                    max_calls=self.max_calls)
        return self.episode

    def close(self, *, why: str | None = None) -> McpRecord | None:
        """Write the open episode's record (graded, or not handed in) and close it; returns the record.

        why: how an episode not handed in ended, for its record ("the server was stopped by SIGTERM"). Never raises
        for the log: an append that fails is reported through `warn`, and the record is kept in `records`.
        """
        episode, self.episode = self.episode, None
        if episode is None:
            return None
        keys = {r["key"] for r in self.records} | (logged_keys(self.log) if self.log else set())
        record = next_record(episode, keys, why=why)
        self.records.append(record)
        problem = append_record(self.log, record) if self.log is not None else None
        if problem is not None:
            self.warn(problem)
        return record

    # --- the MCP handlers --------------------------------------------------------------------
    async def _list_tools(self, ctx: RequestContext, params: Paging) -> types.ListToolsResult:
        return types.ListToolsResult(tools=self._tools)

    async def _call_tool(self, ctx: RequestContext, params: types.CallToolRequestParams) -> types.CallToolResult:
        return self.answer_call(ctx, params.name, params.arguments)

    def answer_call(self, ctx: RequestContext, name: str, arguments: object) -> types.CallToolResult:
        """One tools/call, whatever its arguments (guard.py sends those that are not an object here, in the
        contract style): a protocol error for an unknown tool, else a result in the server's style."""
        if name not in self.tool_names:
            # The spec makes an unknown tool a protocol error, not a result; the message is the style's.
            raise MCPError(INVALID_PARAMS, unknown_tool(self.style, name, self.tool_names))
        episode = self.episode
        if episode is None:
            return types.CallToolResult.model_validate(self._no_episode(name, arguments))
        if episode.client == ClientInfo():  # opened with --ticket, before any client spoke
            episode.client = _client(ctx)
        if name == FINISH:
            result, _ = episode.hand_in(arguments if arguments is not None else {})
        else:
            result = episode.call(name, arguments)
        if episode.result is not None:  # graded: handed in, or stopped at max_calls
            self.close()
        return types.CallToolResult.model_validate(result)

    def _no_episode(self, name: str, arguments: object) -> MCPResult:
        """No ticket is open. Arguments that break the tool's schema are still answered first, in the style's own
        words, as with a ticket open; only a well-formed call gets the harness's "no ticket" error."""
        schema = next(t.input_schema for t in self._tools if t.name == name)
        problem = check_arguments(schema, arguments if arguments is not None else {})
        if problem is None:
            return no_episode()
        return call_result(self.style, Failure(name, argument_error("mcp", problem), problem.raw))

    async def _list_prompts(self, ctx: RequestContext, params: Paging) -> types.ListPromptsResult:
        return types.ListPromptsResult(prompts=[
            types.Prompt(name=t.id, description=f"Atlas ticket {t.id}: {t.title} (customer {t.customer}). "
                                                "Opens a fresh episode.") for t in TICKETS.values()])

    async def _get_prompt(self, ctx: RequestContext, params: types.GetPromptRequestParams) -> types.GetPromptResult:
        if params.name not in TICKETS:
            raise MCPError(INVALID_PARAMS, unknown_prompt(self.style))
        episode = self.open(params.name, client=_client(ctx))
        ticket = episode.ticket
        text = [episode.session.system + _BRIEF, ticket.message]  # the briefing, then the customer's own words
        return types.GetPromptResult(
            description=f"Atlas ticket {ticket.id}: {ticket.title}",
            messages=[types.PromptMessage(role="user", content=types.TextContent(type="text", text=t)) for t in text])


def _client(ctx: RequestContext) -> ClientInfo:
    """The client's name and version as it reports them: at initialize, or in a 2026-era request's _meta."""
    params = ctx.session.client_params
    info = params.client_info if params is not None else None
    if info is None and isinstance(ctx.meta, dict):
        info = types.Implementation.model_validate(ctx.meta.get(types.CLIENT_INFO_META_KEY) or {"name": "", "version": ""})
    return ClientInfo.reported(info.name if info else None, info.version if info else None)


def client_config(kind: ClientKind, *, executable: str, args: list[str]) -> str:
    """The exact text to connect a client: a `claude mcp add` line, a Claude Desktop snippet, or an Inspector line."""
    if kind == "claude-code":
        return " ".join(["claude mcp add --scope user", SERVER_NAME, "--", shlex.quote(executable), *map(shlex.quote, args)])
    if kind == "claude-desktop":
        return json.dumps({"mcpServers": {SERVER_NAME: {"command": executable, "args": args}}}, indent=2)
    if kind == "inspector":
        return " ".join(["npx @modelcontextprotocol/inspector", shlex.quote(executable), *map(shlex.quote, args)])
    raise AtlasKitValueError(f"kind {kind!r} is not one of: claude-code, claude-desktop, inspector.")
