"""A league's roster: the club's players, typed once and reused by every season, night
and tournament of the league (``Competitor.member``). One transaction each.

A member is an account, or a guest known by name; linking a guest to an account later
makes the guest's competitors (and so all their results) the account's.
"""

from __future__ import annotations

from django.db import transaction
from django.utils.translation import gettext as _

from accounts.models import User
from cya_site.errors import DomainError
from tournaments import selectors
from tournaments.changelog import log
from tournaments.models import Competitor, League, Member


def require_league_organiser(league: League, user: User) -> None:
    """Refuse anyone but the league's organisers (and staff)."""
    if not selectors.is_league_organiser(league, user):
        raise DomainError("permission_denied", _("Only an organiser may do that."), status=403)


@transaction.atomic
def member_add(*, league: League, by: User, name: str = "", user: User | None = None) -> Member:
    """Put a player on the roster: an account (named as the account unless a name is
    given) or a guest by name (organisers)."""
    require_league_organiser(league, by)
    name = (name or (user.username if user else "")).strip()
    if not name:
        raise DomainError("invalid", _("A player needs a name."), {"field": "name"})
    _refuse_taken(league, name, user)
    return Member.objects.create(league=league, name=name, user=user)


def member_for(*, league: League, name: str, user: User | None) -> Member:
    """The roster's entry for this account or name, put on the roster if missing (the
    caller holds the transaction and has checked who may add)."""
    if user is not None:
        found = Member.objects.filter(league=league, user=user).first()
    else:
        found = Member.objects.filter(league=league, name__iexact=name, user=None).first()
    if found is not None:
        return found
    _refuse_taken(league, name, user)
    return Member.objects.create(league=league, name=name, user=user)


@transaction.atomic
def member_link(*, member: Member, by: User, user: User) -> Member:
    """Make a guest an account's (organisers): the member and every competitor taken
    from it become the account's, with all their results."""
    member = Member.objects.select_for_update().get(pk=member.pk)
    require_league_organiser(member.league, by)
    if member.user_id is not None:
        raise DomainError("already_linked", _("This player already has an account."), status=409)
    competitors = list(Competitor.objects.filter(member=member).select_related("competition"))
    clash = Competitor.objects.filter(
        competition__in=[c.competition_id for c in competitors], user=user
    )
    if clash.exists():
        raise DomainError(
            "already_entered",
            _("That account already plays in a competition this player is in."),
            {"competitions": sorted(clash.values_list("competition_id", flat=True))},
            409,
        )
    if Member.objects.filter(league=member.league_id, user=user).exists():
        raise DomainError(
            "already_on_roster", _("That account is already on the roster."), status=409
        )
    member.user = user
    member.save(update_fields=["user"])
    for competitor in competitors:
        competitor.user = user
        competitor.save(update_fields=["user"])
        log(
            competitor.competition,
            by,
            "guest_linked",
            competitor.name,
            after={"user": user.username},
        )
    return member


def _refuse_taken(league: League, name: str, user: User | None) -> None:
    if Member.objects.filter(league=league, name__iexact=name).exists():
        raise DomainError(
            "name_taken",
            _("Someone on the roster is called “%(name)s”.") % {"name": name},
            {"name": name},
            409,
        )
    if user is not None and Member.objects.filter(league=league, user=user).exists():
        raise DomainError(
            "already_on_roster", _("That account is already on the roster."), status=409
        )
