"""The fixed Atlas records the tickets name: eight accounts, their invoices and orders, the catalogue.

Plain tuples, so a reader sees the whole story at a glance; data.py turns them into
records and adds the seeded filler around them. Introduced in chapter 04.
"""
from __future__ import annotations

ACCOUNTS = (
    ("ACC-4471", "acme", "Acme Corp", "business"), ("ACC-4475", "acme", "Acme Labs", "starter"),
    ("ACC-4472", "globex", "Globex Corporation", "enterprise"), ("ACC-5120", "globex", "Globex Retail", "business"),
    ("ACC-3308", "initech", "Initech", "business"), ("ACC-6610", "umbrella", "Umbrella Health", "enterprise"),
    ("ACC-7702", "hooli", "Hooli", "starter"), ("ACC-8815", "stark", "Stark Industries", "enterprise"),
)
INVOICES = (  # id, account, status, cents, issued, due, paid_on
    ("INV-20410", "ACC-4471", "paid", 12000, "2024-10-20", "2024-11-19", "2024-11-04"),
    ("INV-20411", "ACC-4471", "paid", 65000, "2024-11-01", "2024-12-01", "2024-11-20"),
    ("INV-20412", "ACC-4471", "unpaid", 31050, "2024-12-11", "2025-01-10", None),
    ("INV-20413", "ACC-4471", "overdue", 8999, "2024-11-01", "2024-12-01", None),
    ("INV-20420", "ACC-4475", "paid", 7500, "2024-09-15", "2024-10-15", "2024-10-01"),
    ("INV-20421", "ACC-4475", "paid", 7500, "2024-10-15", "2024-11-14", "2024-11-01"),
    ("INV-20430", "ACC-4472", "unpaid", 128000, "2024-12-01", "2025-01-01", None),
    ("INV-20431", "ACC-5120", "paid", 39900, "2024-08-01", "2024-08-31", "2024-08-20"),
    ("INV-20432", "ACC-5120", "paid", 39900, "2024-11-01", "2024-12-01", "2024-11-18"),
    ("INV-20433", "ACC-5120", "paid", 24000, "2024-03-01", "2024-03-31", "2024-03-15"),
    ("INV-20440", "ACC-3308", "paid", 8900, "2024-12-01", "2024-12-31", "2024-12-02"),
    ("INV-20441", "ACC-3308", "paid", 8900, "2024-12-01", "2024-12-31", "2024-12-02"),
    ("INV-20442", "ACC-3308", "unpaid", 125000, "2024-12-15", "2025-01-14", None),
    ("INV-20450", "ACC-6610", "paid", 48000, "2024-11-25", "2024-12-25", "2024-12-10"),
    ("INV-20451", "ACC-6610", "paid", 4500, "2024-12-01", "2024-12-31", "2024-12-05"),
    ("INV-20452", "ACC-6610", "overdue", 99900, "2024-10-01", "2024-10-31", None),
    ("INV-20460", "ACC-7702", "paid", 19900, "2024-11-10", "2024-12-10", "2024-12-09"),
    ("INV-20470", "ACC-8815", "paid", 240000, "2024-10-01", "2024-10-31", "2024-10-28"),
    ("INV-20471", "ACC-8815", "unpaid", 56000, "2024-12-20", "2025-01-19", None),
)
ORDERS = (  # id, account, status, sku, quantity, ship_to, placed_on
    ("ORD-77120", "ACC-4471", "open", "SKU-2041", 10, "14 Mill Lane, Leeds", "2024-12-20"),
    ("ORD-77121", "ACC-4471", "shipped", "SKU-1107", 5, "14 Mill Lane, Leeds", "2024-12-02"),
    ("ORD-77122", "ACC-4471", "deleted", "SKU-3300", 12, "14 Mill Lane, Leeds", "2024-11-28"),
    ("ORD-77130", "ACC-4472", "open", "SKU-2041", 3, "9 Oak Street, Springfield", "2024-12-18"),
    ("ORD-77140", "ACC-3308", "shipped", "SKU-3300", 20, "4120 Congress Ave, Austin", "2024-12-16"),
    ("ORD-77150", "ACC-6610", "open", "SKU-1107", 4, "1 Hive Road, Raccoon City", "2024-12-21"),
    ("ORD-77160", "ACC-7702", "open", "SKU-5012", 2, "1600 Amphitheatre Way, Palo Alto", "2024-12-22"),
    ("ORD-77170", "ACC-8815", "open", "SKU-2041", 40, "10880 Malibu Point, Malibu", "2024-12-19"),
)
PRODUCTS = (
    "SKU-1107 Handheld barcode scanner 14900; SKU-2041 Thermal label printer 32900; "
    "SKU-3300 Shipping labels, roll of 500 1900; SKU-5012 Receipt paper, case of 50 4500; "
    "SKU-1010 Packing tape, 36 rolls 5400; SKU-1024 Cardboard box, small 120; SKU-1025 Cardboard box, large 260; "
    "SKU-1200 Bubble wrap, 100 m 3900; SKU-1310 Pallet wrap film 2700; SKU-1402 Label printer ribbon 1500; "
    "SKU-1505 Shelf bin, blue 450; SKU-1506 Shelf bin, grey 450; SKU-1620 Hand truck 18900; "
    "SKU-1701 Safety gloves, pair 650; SKU-1808 Box cutter 890; SKU-1910 Weighing scale 24500; "
    "SKU-2002 Receipt printer 27900; SKU-2110 Cash drawer 11900; SKU-2215 Card reader 7900; "
    "SKU-2320 Tablet stand 3900; SKU-2433 Inventory tags, 1000 2200; SKU-2540 RFID reader 45900; "
    "SKU-2655 Dock scanner cradle 6900; SKU-2760 Mobile printer 38900; SKU-2871 Wristband printer 52900; "
    "SKU-2980 Price gun 2400; SKU-3050 Price labels, 10 rolls 1300; SKU-3120 Stretch wrapper 129000; "
    "SKU-3210 Forklift battery 489000; SKU-3415 Loading ramp 97500"
)
