from __future__ import annotations

import json
from datetime import date

import pytest

from atlas_kit.atlas.data import FIRST_DAY, LAST_DAY, REGIONS, TENANTS, World
from atlas_kit.atlas.formats import money


def test_money_formats_cents_with_thousands_and_two_decimals():
    assert money(12000) == "$120.00"
    assert money(125050) == "$1,250.50"
    assert money(7) == "$0.07"
    assert money(-4500) == "-$45.00"


def test_same_seed_gives_the_same_data():
    a, b = World(7), World(7)
    assert a._s is b._s  # built once per seed, shared
    assert [i.invoice_id for i in a.invoices_of("ACC-4471")] == [i.invoice_id for i in b.invoices_of("ACC-4471")]
    assert a.stock("SKU-2041", FIRST_DAY, LAST_DAY) == b.stock("SKU-2041", FIRST_DAY, LAST_DAY)


def test_different_seeds_differ_in_filler_and_warehouse_but_keep_the_ticket_records():
    a, b = World(0), World(1)
    assert {x.account_id for x in a.accounts_of("acme")} != {x.account_id for x in b.accounts_of("acme")}
    assert a.stock("SKU-2041", FIRST_DAY, LAST_DAY) != b.stock("SKU-2041", FIRST_DAY, LAST_DAY)
    assert a.invoice("INV-20411") == b.invoice("INV-20411")
    assert a.account("ACC-4472").tenant == b.account("ACC-4472").tenant == "globex"


def test_every_record_belongs_to_exactly_one_tenant():
    w = World(3)
    for tenant in TENANTS:
        accounts = w.accounts_of(tenant)
        assert len(accounts) >= 3
        for acc in accounts:
            assert w.tenant_of(acc.account_id) == tenant
            for inv in w.invoices_of(acc.account_id):
                assert w.tenant_of(inv.invoice_id) == tenant
                assert inv.status in ("paid", "unpaid", "overdue") and isinstance(inv.amount_cents, int)
            for order in w.orders_of(acc.account_id):
                assert w.tenant_of(order.order_id) == tenant
    assert w.tenant_of("ACC-6601") is None


def test_warehouse_is_large_and_a_query_reports_rows_scanned():
    w = World(0)
    everything = w.rows_scanned(FIRST_DAY, LAST_DAY, None)
    assert 20_000 <= everything <= 50_000
    assert w.rows_scanned(FIRST_DAY, FIRST_DAY, "west") == len(w.products)
    found = w.stock("SKU-1107", date(2024, 3, 1), date(2024, 3, 31))
    assert found["units_shipped"] == sum(r["units_shipped"] for r in found["by_region"])
    assert [r["region"] for r in found["by_region"]] == list(REGIONS)
    assert all(r["on_hand"] >= 0 for r in found["by_region"])


def test_worlds_share_static_data_but_never_mutable_state():
    a, b = World(0), World(0)
    a.refund("INV-20410", 100, "test", key="k1")
    a.change_order("ORD-77120", status="cancelled", key="k2")
    a.advance(1.5)
    assert b.snapshot() == {"refunds": [], "order_changes": [], "escalations": [], "idempotency_keys": []}
    assert b.order("ORD-77120").status == "open" and a.order("ORD-77120").status == "cancelled"
    assert b.clock == 0.0 and a.clock == 1.5


def test_snapshot_is_json_and_leaves_the_clock_out():
    w = World(0)
    w.escalate("ACC-4471", "general", "a reason here", key="k")
    w.remember("k", {"escalation_id": "ESC-0001"})
    snap = w.snapshot()
    assert json.loads(json.dumps(snap)) == snap
    before = w.snapshot()
    w.advance(10)
    assert w.snapshot() == before
    assert snap["idempotency_keys"] == ["k"]


def test_world_seed_must_be_an_int():
    with pytest.raises(TypeError, match="seed"):
        World("0")  # type: ignore[arg-type]
