"""Games, their seats, the action log (the truth), rounds and per-seat round scores.

A digital game's state is never stored as the truth: the action log is, and seed +
actions replay the game exactly (games.engine). The log has two row shapes: ``Event``,
one row per action with everything about it (actions sent one at a time), and
``Playout``, the codes of a whole stretch of actions decided in process and written at
once (built-in seats), whose other facts are derived by replay (games.store reads
both as one log). ``GameSnapshot`` is a derived
cache of the engine state at ``Game.version``. Round results are rows, so leagues and
standings can query dollars and tallies without touching the engine.
"""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone


class Game(models.Model):
    """One game of Cover Your Assets at a table of 2-6 (or up to 8 casual) seats."""

    class Status(models.TextChoices):
        OPEN = "open", "Open: seats are being taken"
        ACTIVE = "active", "Active: being played"
        FINISHED = "finished", "Finished"
        ABORTED = "aborted", "Aborted: void, never rated"

    class Mode(models.TextChoices):
        DIGITAL = "digital", "Played on the platform"
        RECORDED = "recorded", "Played at a real table, scores recorded"

    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="games_created"
    )
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.OPEN)
    mode = models.CharField(max_length=10, choices=Mode.choices, default=Mode.DIGITAL)
    rules = models.JSONField(help_text="games.engine.RuleSet.to_json(): every rule option")
    seat_count = models.PositiveSmallIntegerField()
    seed = models.BigIntegerField(null=True, blank=True, help_text="Secret until the game ends")
    version = models.PositiveIntegerField(
        default=0, help_text="Actions applied so far; every submission names the one it saw"
    )
    # The pending decision, denormalised from the engine state for cheap reads and waits.
    to_act = models.SmallIntegerField(null=True, blank=True)
    decision_kind = models.CharField(max_length=20, blank=True)
    round_number = models.PositiveSmallIntegerField(default=0)
    decision_seconds = models.PositiveIntegerField(
        null=True, blank=True, help_text="Per-decision time limit; empty for untimed play"
    )
    time_bank_seconds = models.PositiveIntegerField(null=True, blank=True)
    deadline = models.DateTimeField(null=True, blank=True)
    winners = models.JSONField(default=list, blank=True)
    end_reason = models.CharField(max_length=20, blank=True)
    bot_seats = models.JSONField(
        default=list, blank=True, help_text="Seats played by bots the platform moves"
    )
    auto_start = models.BooleanField(
        default=False, help_text="Starts by itself once every seat is taken"
    )
    # Set with the game's competition entries (tournaments): its end is announced with it
    # (games.signals.game_ended), so no receiver needs a query to learn it counts.
    rated = models.BooleanField(
        default=False,
        help_text="Opened as rated: its result moves the online ratings of everyone seated "
        "(tournaments.people_ratings), bot seats included",
    )
    in_competition = models.BooleanField(
        default=False, help_text="A competition counts this game (standings follow its end)"
    )
    # A fork starts at another game's position (games.store.initial_state): the parent
    # at step ``fork_step`` (its state after that many actions), handed to the engine's
    # ``fork`` with this game's own ``seed`` (for a re-deal and every later round).
    forked_from = models.ForeignKey(
        "self", on_delete=models.PROTECT, null=True, blank=True, related_name="forks"
    )
    fork_step = models.PositiveIntegerField(
        null=True, blank=True, help_text="The parent's actions played before the fork"
    )
    fork_redeal = models.BooleanField(
        default=False, help_text="Cards no seat had seen were dealt again from the seed"
    )
    # A rematch: the same rules and seats as an ended game, a new deal (services.game_rematch).
    rematch_of = models.OneToOneField(
        "self", on_delete=models.SET_NULL, null=True, blank=True, related_name="rematch"
    )

    class Meta:
        ordering = ("-created_at", "-id")
        indexes = (models.Index(fields=["status", "-created_at"]),)
        constraints = (
            models.CheckConstraint(
                condition=Q(seat_count__gte=2, seat_count__lte=8), name="games_game_seat_count_2_8"
            ),
            models.CheckConstraint(
                condition=~Q(status="active") | Q(seed__isnull=False) | Q(mode="recorded"),
                name="games_game_active_digital_has_seed",
            ),
            models.CheckConstraint(
                condition=Q(forked_from__isnull=True, fork_step__isnull=True, fork_redeal=False)
                | Q(forked_from__isnull=False, fork_step__isnull=False),
                name="games_game_fork_has_step",
            ),
        )

    def __str__(self) -> str:
        return f"Game {self.pk} ({self.status})"


class Seat(models.Model):
    """A place at the table: empty until someone takes it."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="seats")
    number = models.PositiveSmallIntegerField()
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="seats",
    )
    joined_at = models.DateTimeField(null=True, blank=True)
    resigned_at = models.DateTimeField(null=True, blank=True)
    time_bank_ms = models.PositiveIntegerField(null=True, blank=True)
    # final result, set when the game ends
    place = models.PositiveSmallIntegerField(null=True, blank=True)
    tally = models.IntegerField(null=True, blank=True)
    round_wins = models.PositiveSmallIntegerField(null=True, blank=True)
    is_winner = models.BooleanField(default=False)

    class Meta:
        ordering = ("game", "number")
        constraints = (
            models.UniqueConstraint(fields=["game", "number"], name="games_seat_unique_number"),
            models.UniqueConstraint(
                fields=["game", "user"],
                condition=Q(user__isnull=False),
                name="games_seat_one_per_user",
            ),
        )

    def __str__(self) -> str:
        return f"Game {self.game_id} seat {self.number}"


class Event(models.Model):
    """One entry of a game's action log: the action, who sent it, and what it caused.

    ``seq`` 0 is the deal (no action); seq n applies the action that took the game from
    version n-1 to n. Replaying every action from the seed rebuilds the game exactly.
    """

    class Origin(models.TextChoices):
        """Who chose a log entry's action. Stored in every row (pinned by
        tests/engine/test_stored_codes.py) and the label of cya_actions_submitted_total."""

        DEAL = "deal", "The deal (no action)"
        API = "api", "A client of the action API"
        WEB = "web", "A person on the game page"
        BUILTIN = "builtin", "A built-in strategy"
        AUTOPILOT = "autopilot", "A built-in strategy in a person's place"
        WEBHOOK = "webhook", "A webhook bot's answer"
        FALLBACK = "fallback", "The engine's safe default after a bot's fault"
        TIMEOUT = "timeout", "The engine's safe default at a deadline"
        RESIGN = "resign", "A resignation"

    # no index of its own: the unique (game, seq) index serves every lookup by game, and
    # each index costs every one of the ~300 rows a game writes
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="events", db_index=False)
    seq = models.PositiveIntegerField()
    seat = models.SmallIntegerField(null=True, blank=True)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True
    )
    action = models.JSONField(null=True, blank=True, help_text="The action's JSON form")
    action_code = models.IntegerField(null=True, blank=True, help_text="The engine's packed action")
    public_events = models.JSONField(default=list, help_text="What every seat saw happen")
    origin = models.CharField(max_length=20, choices=Origin.choices, default=Origin.API)
    idempotency_key = models.CharField(max_length=100, blank=True, default="")
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        ordering = ("game", "seq")
        constraints = (
            models.UniqueConstraint(fields=["game", "seq"], name="games_event_unique_seq"),
            models.UniqueConstraint(
                fields=["game", "idempotency_key"],
                condition=~Q(idempotency_key=""),
                name="games_event_unique_idempotency_key",
            ),
        )

    def __str__(self) -> str:
        return f"Game {self.game_id} #{self.seq}"


class Playout(models.Model):
    """A stretch of a game's log decided in process and written in one go (built-in seats).

    It holds the log entries ``first_seq`` .. ``first_seq + len(codes) - 1`` as the
    engine's action codes only. Everything else an ``Event`` row would hold follows from
    them exactly: the seat is the one to act before each action, the actor is that seat's
    user, the action's JSON form comes from its code, and the public events are what
    replaying the code produces (the engine is deterministic). One row instead of
    hundreds: a game of built-in strategies costs the database one statement.
    """

    game = models.ForeignKey(
        Game, on_delete=models.CASCADE, related_name="playouts", db_index=False
    )  # the unique (game, first_seq) index serves every lookup by game
    first_seq = models.PositiveIntegerField()
    codes = models.JSONField(help_text="The engine's packed actions, in log order")
    origin = models.CharField(max_length=20, choices=Event.Origin.choices)
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        ordering = ("game", "first_seq")
        constraints = (
            models.UniqueConstraint(
                fields=["game", "first_seq"], name="games_playout_unique_first_seq"
            ),
            models.CheckConstraint(
                condition=Q(first_seq__gte=1), name="games_playout_after_the_deal"
            ),
        )

    def __str__(self) -> str:
        return f"Game {self.game_id} #{self.first_seq}-{self.last_seq}"

    @property
    def last_seq(self) -> int:
        return self.first_seq + len(self.codes) - 1


class GameSnapshot(models.Model):
    """A derived cache: the engine state at a version. Rebuildable any time from the log.

    ``state`` is ``state_to_json`` as JSON bytes: written with every action and read only
    when a process lacks the state in memory, so it is stored as opaque bytes, which
    neither side parses on the way (a ``jsonb`` column costs the database a parse of
    several kilobytes per action).
    """

    game = models.OneToOneField(Game, on_delete=models.CASCADE, related_name="snapshot")
    version = models.PositiveIntegerField()
    state = models.BinaryField(help_text="games.engine.state_to_json(state) as JSON bytes")

    def __str__(self) -> str:
        return f"Game {self.game_id} snapshot @{self.version}"


class Round(models.Model):
    """A finished round of a game."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="rounds")
    number = models.PositiveSmallIntegerField()
    finished_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ("game", "number")
        constraints = (
            models.UniqueConstraint(fields=["game", "number"], name="games_round_unique_number"),
        )

    def __str__(self) -> str:
        return f"Game {self.game_id} round {self.number}"


class RoundScore(models.Model):
    """One seat's dollars in one round, and its running tally after it."""

    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="scores")
    seat = models.ForeignKey(Seat, on_delete=models.CASCADE, related_name="round_scores")
    dollars = models.PositiveIntegerField()
    tally = models.PositiveIntegerField()
    won_round = models.BooleanField(default=False)

    class Meta:
        ordering = ("round", "seat__number")
        constraints = (
            models.UniqueConstraint(fields=["round", "seat"], name="games_roundscore_unique_seat"),
        )

    def __str__(self) -> str:
        return f"{self.round} seat {self.seat.number}: ${self.dollars:,}"
