"""The clubs' part of a person's data download and deletion (accounts.belongings): league
memberships, competitions entered and score-sheet entries. Deleting the account renames
the person's roster and competitor entries to the deleted account's name, so standings,
sheets and results keep every row and no longer show the person's name."""

from __future__ import annotations

from typing import Any

from accounts import belongings
from accounts.models import User
from tournaments.models import Competitor, Member, ScoreRecord


def memberships_export(user: User) -> list[dict[str, Any]]:
    members = Member.objects.filter(user=user).select_related("league").order_by("id")
    return [{"league": m.league.name, "name": m.name} for m in members]


def competitions_export(user: User) -> list[dict[str, Any]]:
    competitors = Competitor.objects.filter(user=user).select_related("competition")
    return [
        {"competition": c.competition.name, "kind": c.competition.kind, "name": c.name}
        for c in competitors.order_by("id")
    ]


def score_entries_export(user: User) -> list[dict[str, Any]]:
    records = ScoreRecord.objects.filter(actor=user).order_by("id")
    return [
        {
            "game": r.game_id,
            "round": r.round_number,
            "dollars": r.dollars,
            "kind": r.kind,
            "reason": r.reason,
            "created_at": r.created_at.isoformat(),
        }
        for r in records
    ]


def names_depart(user: User, shown_as: str) -> None:
    """Rosters and competitors show the deleted account's name instead of the person's."""
    Member.objects.filter(user=user).update(name=shown_as)
    Competitor.objects.filter(user=user).update(name=shown_as)


def register() -> None:
    belongings.register_export("league_memberships", memberships_export)
    belongings.register_export("competitions", competitions_export)
    belongings.register_export("score_entries", score_entries_export)
    belongings.register_departure("tournaments", names_depart)
