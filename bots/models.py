"""Bot entries, their immutable versions, ladder matches, strikes and rating changes.

A bot plays as its own user account (``is_bot``), so it sits at tables and answers
decisions like anyone else. What plays is fixed per version (a built-in strategy, a
webhook URL and secret, or an API client holding the bot's token); ratings belong to
versions. A match is one table of versions playing one or more games: with duplicate
deals, the same shuffled deck once per seat rotation, rated on the aggregate.
"""

from django.conf import settings
from django.db import models
from django.db.models.functions import Lower
from django.utils import timezone

from games.models import Game, Seat

DEFAULT_MU = 25.0
DEFAULT_SIGMA = 25.0 / 3


class Bot(models.Model):
    """A bot entry, owned by a person, playing as its own user."""

    class Kind(models.TextChoices):
        BUILTIN = "builtin", "Built-in strategy, run by the platform"
        WEBHOOK = "webhook", "Webhook: the platform calls the bot's URL"
        API_CLIENT = "api_client", "API client: the bot calls the action API"

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="bots"
    )
    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="bot"
    )
    name = models.CharField(max_length=40)
    kind = models.CharField(max_length=12, choices=Kind.choices)
    description = models.CharField(max_length=500, blank=True)
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    is_active = models.BooleanField(default=True, help_text="Inactive bots are not scheduled")
    alert_url = models.URLField(
        max_length=500, blank=True, help_text="The owner's webhook, told when a version is paused"
    )

    class Meta:
        ordering = ("name",)
        constraints = (models.UniqueConstraint(Lower("name"), name="bots_bot_name_ci_unique"),)

    def __str__(self) -> str:
        return self.name


class BotVersion(models.Model):
    """What plays, fixed once created; it must pass validation before it is ranked."""

    class Status(models.TextChoices):
        PENDING = "pending", "Waiting for validation"
        VALIDATING = "validating", "Validation running"
        READY = "ready", "Validated: plays ranked games"
        FAILED = "failed", "Validation failed"
        PAUSED = "paused", "Paused: off the ladder until resumed"
        RETIRED = "retired", "Replaced or withdrawn"

    class PauseReason(models.TextChoices):
        STRIKES = "strikes", "Strikes in a row across games"
        AUTOPILOT = "autopilot", "Games on autopilot within the window"
        OWNER = "owner", "Paused by its owner"

    bot = models.ForeignKey(Bot, on_delete=models.CASCADE, related_name="versions")
    number = models.PositiveIntegerField()
    tag = models.CharField(max_length=60, blank=True, help_text="The owner's name for it")
    strategy = models.CharField(max_length=20, blank=True, help_text="Built-in strategy name")
    url = models.URLField(max_length=500, blank=True, help_text="Webhook endpoint")
    secret = models.CharField(max_length=200, blank=True, help_text="Webhook signing secret")
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.PENDING)
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    validated_at = models.DateTimeField(null=True, blank=True)
    dispatched_at = models.DateTimeField(
        default=timezone.now, help_text="When its validation was last sent to the workers"
    )
    validation_log = models.JSONField(default=list, blank=True)
    mu = models.FloatField(default=DEFAULT_MU)
    sigma = models.FloatField(default=DEFAULT_SIGMA)
    games_played = models.PositiveIntegerField(default=0)
    matches_played = models.PositiveIntegerField(default=0)
    # Health (bots.health): strikes in a row across games, reset by a good answer; a
    # version is paused, off the ladder, when they or its autopilot games pile up.
    strike_streak = models.PositiveIntegerField(default=0)
    health_since = models.DateTimeField(
        null=True, blank=True, help_text="Its last resume: autopilot games before it do not count"
    )
    paused_at = models.DateTimeField(null=True, blank=True)
    pause_reason = models.CharField(max_length=12, choices=PauseReason.choices, blank=True)
    pause_detail = models.CharField(max_length=300, blank=True)
    pause_notified_at = models.DateTimeField(
        null=True, blank=True, help_text="When its owner was told of the pause"
    )

    class Meta:
        ordering = ("bot", "-number")
        constraints = (
            models.UniqueConstraint(fields=["bot", "number"], name="bots_version_unique_number"),
        )

    def __str__(self) -> str:
        return f"{self.bot.name} v{self.number}"

    @property
    def ordinal(self) -> float:
        """The conservative rating shown on the leaderboard: mu - 3 sigma."""
        return self.mu - 3 * self.sigma


class Match(models.Model):
    """One table of bot versions playing one game per seat rotation (or one game)."""

    class Kind(models.TextChoices):
        LADDER = "ladder", "Ladder"
        VALIDATION = "validation", "Validation game of a new version"
        FRIENDLY = "friendly", "Unrated"

    class Status(models.TextChoices):
        SCHEDULED = "scheduled", "Scheduled"
        RUNNING = "running", "Running"
        FINISHED = "finished", "Finished"
        VOIDED = "voided", "Voided by a platform fault: never rated"

    kind = models.CharField(max_length=12, choices=Kind.choices, default=Kind.LADDER)
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.SCHEDULED)
    rules = models.JSONField()
    seed = models.BigIntegerField(help_text="Every game of the match deals from it")
    duplicate = models.BooleanField(default=True, help_text="One game per seat rotation")
    decision_ms = models.PositiveIntegerField(default=1000)
    time_bank_ms = models.PositiveIntegerField(default=15_000)
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    dispatched_at = models.DateTimeField(
        default=timezone.now, help_text="When it was last sent to the workers to be played"
    )
    attempts = models.PositiveSmallIntegerField(default=0)
    rated_at = models.DateTimeField(null=True, blank=True)
    void_reason = models.CharField(max_length=200, blank=True)
    result = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ("-created_at", "-id")
        indexes = (models.Index(fields=["status", "kind"]),)

    def __str__(self) -> str:
        return f"Match {self.pk} ({self.kind}, {self.status})"


class MatchEntry(models.Model):
    """A version's place in a match: its position (seat in the first game) and result."""

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="entries")
    version = models.ForeignKey(BotVersion, on_delete=models.PROTECT, related_name="entries")
    position = models.PositiveSmallIntegerField()
    place = models.PositiveSmallIntegerField(null=True, blank=True)
    dollars = models.BigIntegerField(null=True, blank=True)
    forfeited = models.BooleanField(default=False)

    class Meta:
        ordering = ("match", "position")
        constraints = (
            models.UniqueConstraint(fields=["match", "position"], name="bots_entry_unique_pos"),
            models.UniqueConstraint(fields=["match", "version"], name="bots_entry_unique_version"),
        )

    def __str__(self) -> str:
        return f"{self.match} #{self.position}: {self.version}"


class MatchGame(models.Model):
    """One game of a match; ``rotation`` r seats position p at seat (p + r) mod n."""

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="match_games")
    game = models.OneToOneField(Game, on_delete=models.CASCADE, related_name="match_game")
    rotation = models.PositiveSmallIntegerField()

    class Meta:
        ordering = ("match", "rotation")
        constraints = (
            models.UniqueConstraint(fields=["match", "rotation"], name="bots_mg_unique_rotation"),
        )

    def __str__(self) -> str:
        return f"{self.match} rotation {self.rotation}"


class SeatControl(models.Model):
    """Who plays a bot's seat: its version, or the autopilot after three strikes."""

    seat = models.OneToOneField(Seat, on_delete=models.CASCADE, related_name="control")
    version = models.ForeignKey(BotVersion, on_delete=models.PROTECT, related_name="controls")
    strikes = models.PositiveSmallIntegerField(default=0)
    autopilot_since = models.DateTimeField(null=True, blank=True)
    time_bank_ms = models.PositiveIntegerField()

    def __str__(self) -> str:
        return f"{self.seat} by {self.version}"


class Strike(models.Model):
    """A late, broken or illegal answer, and why: shown to the bot's owner."""

    class Reason(models.TextChoices):
        TIMEOUT = "timeout", "No answer before the deadline"
        CONNECTION = "connection_error", "Could not connect, or the connection dropped"
        HTTP = "http_error", "Answered with an HTTP error status"
        MALFORMED = "malformed", "The answer was not a well-formed action"
        ILLEGAL = "illegal", "The action was not legal"

    control = models.ForeignKey(SeatControl, on_delete=models.CASCADE, related_name="strike_log")
    game_version = models.PositiveIntegerField(help_text="The decision it happened at")
    reason = models.CharField(max_length=20, choices=Reason.choices)
    detail = models.CharField(max_length=500, blank=True)
    elapsed_ms = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ("control", "created_at")

    def __str__(self) -> str:
        return f"{self.control}: {self.reason}"


class DecisionLog(models.Model):
    """A batch of one bot seat's decisions in one game, for its owner (bots.decision_log):
    zlib-compressed NDJSON, one line per decision. The match runner writes a game's batch
    once the game ends; an API client's decision, and a turn at a people's table, are a
    batch of one. Deleted ``DECISION_LOG_DAYS`` after it was written."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="decision_logs")
    seat = models.PositiveSmallIntegerField()
    version = models.ForeignKey(BotVersion, on_delete=models.CASCADE, related_name="decision_logs")
    first_version = models.PositiveIntegerField(help_text="The game version of its first decision")
    decisions = models.PositiveIntegerField(help_text="How many lines it holds")
    raw_bytes = models.PositiveIntegerField(help_text="The NDJSON's size before compression")
    data = models.BinaryField(help_text="zlib-compressed NDJSON, one decision a line")
    created_at = models.DateTimeField(default=timezone.now, db_index=True)

    class Meta:
        ordering = ("game", "seat", "first_version", "id")
        indexes = (models.Index(fields=["game", "seat"]),)

    def __str__(self) -> str:
        return f"decisions of seat {self.seat} in game {self.game_id} from {self.first_version}"


class RatingChange(models.Model):
    """How a match moved a version's rating, and why: expected place against actual."""

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="rating_changes")
    version = models.ForeignKey(BotVersion, on_delete=models.CASCADE, related_name="rating_changes")
    mu_before = models.FloatField()
    sigma_before = models.FloatField()
    mu_after = models.FloatField()
    sigma_after = models.FloatField()
    expected_place = models.FloatField(help_text="Predicted place before the match (1 = first)")
    actual_place = models.PositiveSmallIntegerField()
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ("match", "actual_place")
        constraints = (
            models.UniqueConstraint(fields=["match", "version"], name="bots_rating_once"),
        )

    def __str__(self) -> str:
        return f"{self.version} in {self.match}: {self.mu_before:.2f} -> {self.mu_after:.2f}"


class Challenge(models.Model):
    """An owner's unrated match of ``deals`` duplicate deals: their bot against chosen
    versions and built-ins (bots.challenges). Each deal is one friendly match, one game
    per rotation of the seats; nothing of it is ever rated."""

    by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="challenges"
    )
    bot = models.ForeignKey(Bot, on_delete=models.CASCADE, related_name="challenges")
    deals = models.PositiveSmallIntegerField()
    rules = models.JSONField()
    seed = models.BigIntegerField(help_text="Deal d deals from the d-th of its deal seeds")
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        ordering = ("-created_at", "-id")
        indexes = (models.Index(fields=["by", "created_at"]),)

    def __str__(self) -> str:
        return f"Challenge {self.pk} by {self.bot}"


class ChallengeDeal(models.Model):
    """One deal of a challenge: its friendly match (played by ``bots.play_match``)."""

    challenge = models.ForeignKey(Challenge, on_delete=models.CASCADE, related_name="deal_rows")
    number = models.PositiveSmallIntegerField(help_text="1, 2, ...")
    match = models.OneToOneField(Match, on_delete=models.CASCADE, related_name="challenge_deal")

    class Meta:
        ordering = ("challenge", "number")
        constraints = (
            models.UniqueConstraint(fields=["challenge", "number"], name="bots_deal_unique"),
        )

    def __str__(self) -> str:
        return f"{self.challenge} deal {self.number}"


class Lease(models.Model):
    """Who may run a piece of work just now (bots.leases): a row that survives a database
    restart, unlike an advisory lock. ``token`` grows by one at every take-over (the
    fencing token every finishing write checks); ``expires_at`` is pushed on while the
    holder runs, so a holder that died lets go by itself."""

    namespace = models.BigIntegerField()
    key = models.BigIntegerField()
    owner = models.CharField(max_length=120)
    token = models.BigIntegerField(default=0)
    expires_at = models.DateTimeField()

    class Meta:
        constraints = (
            models.UniqueConstraint(fields=["namespace", "key"], name="bots_lease_once"),
        )

    def __str__(self) -> str:
        return f"lease {self.namespace}:{self.key} #{self.token} ({self.owner})"
