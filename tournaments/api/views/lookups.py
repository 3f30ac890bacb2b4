"""What handlers look up for a request: the signed-in user, a member of a league's roster."""

from __future__ import annotations

from rest_framework.exceptions import NotAuthenticated
from rest_framework.request import Request

from accounts.models import User
from cya_site.errors import DomainError
from tournaments.models import Member


def signed_in(request: Request) -> User:
    """The signed-in user; NotAuthenticated (401) for an anonymous request."""
    if not isinstance(request.user, User):
        raise NotAuthenticated
    return request.user


def roster_member(league_id: int, pk: int | str) -> Member:
    """A member of the league's roster; ``not_on_roster`` (404) if it has no such member."""
    member = Member.objects.filter(league_id=league_id, pk=int(pk)).select_related("user").first()
    if member is None:
        raise DomainError(
            "not_on_roster", "That player is not on this club's roster.", {"member": pk}, 404
        )
    return member
