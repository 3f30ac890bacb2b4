"""Leagues, seasons, game nights, tournaments, real-table score ledgers and standings.

A ``Competition`` is what has standings: a league season or a tournament. Its
``Competitor`` rows are the people (or bot versions) ranked, taken from the league's
roster (``Member``) where there is one, and ``GameEntry`` rows say who sat at which seat
of which game, digital or recorded. A game night's ``CheckIn`` rows say who came, and
each ``NightRound`` is a seating draw among them. ``Result`` rows are derived:
one per competitor per counted game, each valid from one moment to the next correction,
so standings can be computed as of any date. The truth of a recorded game is its
append-only ``ScoreRecord`` ledger with ``ScoreVote`` confirmations. A ``Substitution``
seats a substitute for a player who left (its policy scores the absent player's game); a
``Penalty`` takes points or dollars off a standing, with its reason. Every organiser
change also lands in the competition's append-only ``ChangeLog``. People's ratings
(``RatingPool``, ``PersonRating``, each ``PersonRatingChange``) are derived from games:
tournaments.people_ratings.

Each subject has its module; every model is imported here, so ``from tournaments.models
import X`` is the one way to import a model, and Django and the migrations find them all.
"""

from tournaments.models.changes import ChangeLog, Delivery, Webhook
from tournaments.models.clocks import RoundClock
from tournaments.models.competitions import Competition, Competitor
from tournaments.models.discipline import Penalty, Substitution
from tournaments.models.entries import GameEntry, Result
from tournaments.models.leagues import (
    CheckIn,
    GameNight,
    League,
    Member,
    NightRound,
    Season,
    SubstitutePolicy,
)
from tournaments.models.ledger import ScoreRecord, ScoreVote
from tournaments.models.quickplay import QueueTicket
from tournaments.models.ratings import PersonRating, PersonRatingChange, RatingPool
from tournaments.models.tournaments import Tournament, TournamentRound

__all__ = [
    "ChangeLog",
    "CheckIn",
    "Competition",
    "Competitor",
    "Delivery",
    "GameEntry",
    "GameNight",
    "League",
    "Member",
    "NightRound",
    "Penalty",
    "PersonRating",
    "PersonRatingChange",
    "QueueTicket",
    "RatingPool",
    "Result",
    "RoundClock",
    "ScoreRecord",
    "ScoreVote",
    "Season",
    "SubstitutePolicy",
    "Substitution",
    "Tournament",
    "TournamentRound",
    "Webhook",
]
