"""How a side's counters are arranged in the VASSAL palette.

A palette is a grid a player can scan: counters wrap into rows of `COLUMNS` (VASSAL's PanelWidget
with a fixed cell size; without it VASSAL lays a panel's counters out as one horizontal strip).
A side with more unit types than fit a few rows gets a tab per group of arms, chosen from the
symbol each counter shows (counters.nato_kind), so the grouping is the one the player sees; the
types keep the order the designer declared them in within each group.
"""

from __future__ import annotations

COLUMNS = 8  # counters per row (8 x 56 px: the group tabs fit in two rows)
GROUP_ABOVE = 24  # a side with more unit types than this (four rows) gets a tab per group

# Palette groups by counter symbol, in tab order.
GROUPS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("Armor & mechanized", ("armor", "mechanized")),
    ("Infantry", ("infantry", "mountain", "airborne", "engineer")),
    ("Cavalry & recon", ("cavalry", "recon")),
    ("Artillery & anti-tank", ("artillery", "antitank", "antiaircraft")),
    ("HQ, leaders & supply", ("headquarters", "leader", "supply")),
    ("Naval", ("naval",)),
    ("Air", ("air",)),
)
OTHER = "Other"


def group_of(kind: str) -> str:
    return next((title for title, kinds in GROUPS if kind in kinds), OTHER)


def arrange(types: list[tuple[str, str]], group_above: int | None = None) -> list[tuple[str | None, list[str]]]:
    """Tabs for a side's unit types, given as (type name, symbol kind) in declaration order:
    [(group title, type names)], or one untitled group [(None, all)] when the side has no more
    than `group_above` (GROUP_ABOVE) types or they all fall in one group."""
    group_above = GROUP_ABOVE if group_above is None else group_above
    if not types:
        return []
    order = [title for title, _ in GROUPS] + [OTHER]
    groups: dict[str, list[str]] = {}
    for name, kind in types:
        groups.setdefault(group_of(kind), []).append(name)
    if len(types) <= group_above or len(groups) == 1:
        return [(None, [name for name, _ in types])]
    return [(title, groups[title]) for title in order if title in groups]
