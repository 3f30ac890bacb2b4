"""A bot's decision log in one game, downloaded from the replay as NDJSON (its owner only)."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse

from accounts.models import User
from bots import decision_log, selectors
from cya_site.errors import DomainError


@login_required
def download(request: HttpRequest, name: str, game: int) -> HttpResponse:
    """The API's ``GET /api/v1/bots/{id}/decision-log/?game=`` for the replay's link."""
    bot = selectors.bot_named(name)
    if bot is None or not isinstance(request.user, User):
        raise Http404
    try:
        found = decision_log.bot_lines(bot=bot, game_id=game, user=request.user)
    except DomainError as error:
        if error.http_status == 403:
            raise PermissionDenied(error.message) from None
        raise Http404(error.message) from None
    return decision_log.download(found, f"game-{game}-{bot.name}-decisions.ndjson")
