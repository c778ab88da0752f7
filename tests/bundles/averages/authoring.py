"""The averages bundle's authoring hooks: the locked cell ``sync-solutions`` writes into the
source notebook (and ``--check`` compares), kept here as its one copy."""

from __future__ import annotations

SAVE_EVIDENCE = """\
values = [1.0, 2.0, 3.0, 6.0]
evidence = {"mean_example": {"values": values, "mean": mean(values)}, "limitation": LIMITATION}
with open("averages_evidence.json", "w", encoding="utf-8") as handle:
    json.dump(evidence, handle, indent=2)
print("saved averages_evidence.json")
"""


def locked_cells() -> dict[str, str]:
    """grade_id -> the exact text of a locked cell of the source notebook."""
    return {"save_evidence": SAVE_EVIDENCE}
