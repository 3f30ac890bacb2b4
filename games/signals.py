"""What a game tells the apps above it, which games may not import (the layers contract).

``game_ended`` is sent, with the game's id and whether a competition counts it
(``Game.in_competition``), once the transaction that finished or aborted the game has
committed (``games.services``, with the change's other announcements). It
is best effort, like every announcement after a commit: a receiver must be idempotent,
and whatever it starts needs a periodic safety net for a send lost to a crash between
the commit and the send. ``tournaments`` receives it to take a competition game's
result in at once (tournaments.apps); ``in_competition`` spares it a query for every
other game (a ladder's, a lobby's). ``rated`` (``Game.rated``) likewise tells it that
the game moves the online ratings of people (tournaments.people_ratings).

``bot_acted`` is sent when a bot's account (``User.is_bot``) has answered its decision
through the action API (an API-client bot), with the game's id, the seat, the version
it answered, the action as sent and the bot's optional ``debug`` note: the bots app keeps
them in the bot's decision log, which only its owner reads (bots.decision_log).
"""

from __future__ import annotations

from django.dispatch import Signal

game_ended = Signal()  # sender: games.models.Game; keywords: game_id, in_competition, rated
bot_acted = Signal()  # sender: games.models.Game; keywords: game_id, seat, version, action, debug
