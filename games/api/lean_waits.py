"""The crowd's long-poll answered lean (cya_site.lean): an anonymous
``GET /api/v1/games/{id}/wait/`` on a game this process's hub follows.

A crowd of spectators asks again at each change of the game it watches, and the hub
heard each change (games.api.waits.heard_row): the answer needs no database and no
Django. This answers it on the event loop with what the DRF action would do for it: the
same query, the same rate limits, the same caps, the same wait (``waits.until_changed``)
and the same body. It leaves to the view, as before, every request that is not plainly
that: a query that is not two plain numbers, a game the hub has not heard of, and every
refusal (the view then refuses it, with the rate limits' verdict already counted).
"""

from __future__ import annotations

import logging
import re
from urllib.parse import parse_qsl

from cya_site.errors import DomainError, api_server_error, render_error
from cya_site.json_renderer import JSONRenderer
from cya_site.lean import LeanRequest
from cya_site.throttling import COUNTED, address_from, anonymous_spent
from games import notify
from games.api import waits
from games.api.hub import existing_hub
from games.api.serializers import DEFAULT_WAIT_SECONDS, MAX_WAIT_SECONDS

log = logging.getLogger(__name__)
SCOPE = "wait"  # GameViewSet.wait's throttle_scope
_WHOLE = re.compile(r"[0-9]{1,15}")
_DECIMAL = re.compile(r"[0-9]{1,6}(\.[0-9]{1,6})?")
_render = JSONRenderer().render


def plain_query(query_string: bytes) -> tuple[int, float] | None:
    """``after`` and ``timeout`` when the query is plainly valid (each once, digits, the
    timeout within its bound, nothing else); None for anything the view's serializer
    should judge."""
    try:
        pairs = parse_qsl(query_string.decode("ascii"), strict_parsing=True)
    except (UnicodeDecodeError, ValueError):
        return None
    query = dict(pairs)
    if len(query) != len(pairs) or not set(query) <= {"after", "timeout"}:
        return None
    after, timeout = query.get("after"), query.get("timeout")
    if after is None or not _WHOLE.fullmatch(after):
        return None
    if timeout is None:
        return int(after), float(DEFAULT_WAIT_SECONDS)
    if not _DECIMAL.fullmatch(timeout) or float(timeout) > MAX_WAIT_SECONDS:
        return None
    return int(after), float(timeout)


async def anonymous_wait(request: LeanRequest) -> bool:
    """Answer an anonymous wait on a game the hub follows; False: the view answers."""
    query = plain_query(request.scope["query_string"])
    hub = existing_hub()
    if query is None or hub is None:
        return False
    game_id, (after, timeout) = int(request.kwargs["pk"]), query
    channel = notify.channel(game_id)
    mark = hub.mark(channel)  # with the row, before anything awaits: as the view does
    row = waits.heard(hub, channel)
    if row is None:
        return False
    request.begin()
    address = address_from(request.meta())
    spent = await anonymous_spent(address, SCOPE)
    if spent is not None:
        request.fall_back(COUNTED, spent)  # the view refuses it 429, not counted again
        return False
    body, wait = waits.waiting(game_id, None, row, after, timeout)
    if wait is not None:
        try:
            place = waits.admit(address, None)
        except DomainError:
            request.fall_back(COUNTED, None)  # the view refuses it by the caps
            return False
        try:
            found = await request.while_connected(waits.until_changed(wait, (hub, mark)))
        except Exception:  # as Django's handler would: logged, and the one 500
            log.exception("a lean wait failed: %s", request.scope["path"])
            await request.respond_with(api_server_error())
            return True
        finally:
            place.release()
        if found is None:
            return True  # the client went away: nobody to answer
        try:
            body = waits.answer(wait, found[0])
        except DomainError as error:  # the game was deleted meanwhile
            await request.respond_with(render_error(error))
            return True
    await request.respond(200, _render(body))
    return True
