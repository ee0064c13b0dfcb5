"""A bare MCP server over stdio for the audit's tests: SERVE answers the handshake and hands every other request to
the script's own `answer(method, params)`, which returns {"result": ...} or {"error": ...}. A test's script is
SERVE plus its `answer` and a last line `serve(answer)`: just enough JSON-RPC to misbehave in one chosen way."""
from __future__ import annotations

__all__ = ["SERVE"]

SERVE = '''
import json, os, sys, time


def serve(answer, name="raw"):
    for line in sys.stdin:
        msg = json.loads(line)
        if "id" not in msg:
            continue
        method, params = msg.get("method"), msg.get("params") or {}
        if method == "initialize":
            reply = {"result": {"protocolVersion": params["protocolVersion"], "capabilities": {"tools": {}},
                                "serverInfo": {"name": name, "version": "1"}}}
        else:
            reply = answer(method, params)
        print(json.dumps({"jsonrpc": "2.0", "id": msg["id"], **reply}), flush=True)
'''
