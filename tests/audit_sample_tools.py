"""Tools for tests/test_audit_*.py: one invoice lookup three ways, as `--python tests.audit_sample_tools:X` reads.

BETA is the SDK's @beta_tool (a failure reaches the model as repr(exc)), BETA_ASYNC its @beta_async_tool; CONTRACT is @contract_tool raising the
contract's ToolFailure; ATLAS is an atlas_kit Tool behind the Dispatcher. NOT_TOOLS is a list of something else.
"""
from __future__ import annotations

from anthropic import beta_async_tool, beta_tool

from atlas_kit import ToolFailure
from atlas_kit.bridges.tool_runner import contract_tool
from atlas_kit.dispatch.tool import CallContext, Tool

INVOICES = {"INV-20411": 65000}


@beta_tool
def get_invoice(invoice_id: str) -> str:
    """Look up one invoice by its id, such as INV-20411."""
    return f"total {INVOICES[invoice_id]}"  # an unknown id raises KeyError with the id in it


@beta_async_tool(name="get_invoice")
async def get_invoice_async(invoice_id: str) -> str:
    """Look up one invoice by its id, such as INV-20411."""
    return f"total {INVOICES[invoice_id]}"


@contract_tool(name="get_invoice")
def get_invoice_contract(invoice_id: str) -> str:
    """Look up one invoice by its id, such as INV-20411."""
    if invoice_id not in INVOICES:
        raise ToolFailure("not_found", "No invoice has that invoice_id; find it with list_invoices.")
    return f"total {INVOICES[invoice_id]}"


def _lookup(args: dict[str, object], ctx: CallContext) -> str:
    if args["invoice_id"] not in INVOICES:
        raise ToolFailure("not_found", "No invoice has that invoice_id; find it with list_invoices.")
    return f"total {INVOICES[str(args['invoice_id'])]}"


BETA = [get_invoice]
BETA_ASYNC = (get_invoice_async,)
CONTRACT = [get_invoice_contract]
ATLAS = [Tool("get_invoice", "Look up one invoice by its id, such as INV-20411.",
              {"type": "object", "properties": {"invoice_id": {"type": "string", "pattern": "^INV-[0-9]{5}$"}},
               "required": ["invoice_id"], "additionalProperties": False}, _lookup)]
NOT_TOOLS = ["get_invoice"]
