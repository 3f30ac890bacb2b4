"""Leagues, seasons, game nights, tournaments, real-table score ledgers and standings.

A ``Competition`` is what has standings: a league season or a tournament. Its
``Competitor`` rows are the people (or bot versions) ranked, taken from the league's
roster (``Member``) where there is one, and ``GameEntry`` rows say who sat at which seat
of which game, digital or recorded. A game night's ``CheckIn`` rows say who came, and
each ``NightRound`` is a seating draw among them. ``Result`` rows are derived:
one per competitor per counted game, each valid from one moment to the next correction,
so standings can be computed as of any date. The truth of a recorded game is its
append-only ``ScoreRecord`` ledger with ``ScoreVote`` confirmations; every organiser
change also lands in the competition's append-only ``ChangeLog``.
"""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.db.models.functions import Lower
from django.utils import timezone

from bots.models import BotVersion
from games.models import Game


class Competition(models.Model):
    """Something with standings: a league season or a tournament."""

    class Kind(models.TextChoices):
        SEASON = "season", "League season"
        TOURNAMENT = "tournament", "Tournament"

    kind = models.CharField(max_length=12, choices=Kind.choices)
    name = models.CharField(max_length=120)
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    tiebreaks = models.JSONField(
        default=list, blank=True, help_text="Standings order; empty for the default"
    )
    best_of = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="Count each competitor's best N game nights only"
    )
    lot_seed = models.CharField(max_length=64, help_text="Seeds the final deterministic lot")

    def __str__(self) -> str:
        return self.name


class Competitor(models.Model):
    """Who is ranked: a person (with an account or a guest name) or a bot version."""

    competition = models.ForeignKey(
        Competition, on_delete=models.CASCADE, related_name="competitors"
    )
    name = models.CharField(max_length=80)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True
    )
    bot_version = models.ForeignKey(BotVersion, on_delete=models.PROTECT, null=True, blank=True)
    member = models.ForeignKey(
        "Member",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="competitors",
        help_text="The league roster's entry this person was taken from",
    )
    number = models.PositiveIntegerField(help_text="0..n-1: the index seating plans use")
    joined_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ("competition", "number")
        constraints = (
            models.UniqueConstraint(
                fields=["competition", "number"], name="tournaments_competitor_number"
            ),
            models.UniqueConstraint(
                "competition", Lower("name"), name="tournaments_competitor_name_ci"
            ),
            models.UniqueConstraint(
                fields=["competition", "user"],
                condition=Q(user__isnull=False),
                name="tournaments_competitor_user",
            ),
            models.UniqueConstraint(
                fields=["competition", "member"],
                condition=Q(member__isnull=False),
                name="tournaments_competitor_member",
            ),
        )

    def __str__(self) -> str:
        return self.name


class League(models.Model):
    """A club's league: organisers, a default rule set, seasons of game nights."""

    name = models.CharField(max_length=120)
    slug = models.SlugField(max_length=60, unique=True)
    description = models.TextField(blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="leagues_created"
    )
    organisers = models.ManyToManyField(settings.AUTH_USER_MODEL, related_name="leagues_organised")
    rules = models.JSONField(help_text="The RuleSet its games use unless a night says otherwise")
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    def __str__(self) -> str:
        return self.name


class Member(models.Model):
    """A player on a league's roster: an account, or a guest known by name.

    The roster is the club's list of people, typed once: every season, night and
    tournament of the league takes its competitors from it (``Competitor.member``).
    """

    league = models.ForeignKey(League, on_delete=models.CASCADE, related_name="members")
    name = models.CharField(max_length=80)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="memberships",
    )
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        ordering = ("league", "name", "id")
        constraints = (
            models.UniqueConstraint("league", Lower("name"), name="tournaments_member_name_ci"),
            models.UniqueConstraint(
                fields=["league", "user"],
                condition=Q(user__isnull=False),
                name="tournaments_member_user",
            ),
        )

    def __str__(self) -> str:
        return self.name


class Season(models.Model):
    """A season of a league: its competition holds the standings."""

    league = models.ForeignKey(League, on_delete=models.CASCADE, related_name="seasons")
    competition = models.OneToOneField(Competition, on_delete=models.PROTECT, related_name="season")
    name = models.CharField(max_length=120)
    starts_on = models.DateField()
    ends_on = models.DateField(null=True, blank=True)

    class Meta:
        ordering = ("league", "-starts_on")

    def __str__(self) -> str:
        return f"{self.league} {self.name}"


class GameNight(models.Model):
    """One evening of a season: its games are digital or recorded at real tables."""

    season = models.ForeignKey(Season, on_delete=models.CASCADE, related_name="nights")
    date = models.DateField()
    venue = models.CharField(max_length=120, blank=True)
    notes = models.TextField(blank=True)

    class Meta:
        ordering = ("season", "date", "id")

    def __str__(self) -> str:
        return f"{self.season} {self.date}"


class CheckIn(models.Model):
    """A competitor present at a game night: the night's seating draws seat them."""

    night = models.ForeignKey(GameNight, on_delete=models.CASCADE, related_name="checkins")
    competitor = models.ForeignKey(Competitor, on_delete=models.CASCADE, related_name="checkins")
    by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        ordering = ("night", "created_at", "id")
        constraints = (
            models.UniqueConstraint(
                fields=["night", "competitor"], name="tournaments_checkin_once"
            ),
        )

    def __str__(self) -> str:
        return f"{self.competitor} at {self.night}"


class NightRound(models.Model):
    """A seating draw at a game night: its tables each play one recorded game.

    Who sits where is in the games' ``GameEntry`` rows (``night_round``, ``table``,
    ``seat``); the round keeps the draw's seed and the seating's quality figures.
    """

    night = models.ForeignKey(GameNight, on_delete=models.CASCADE, related_name="rounds")
    number = models.PositiveSmallIntegerField()
    seed = models.BigIntegerField(help_text="The seating search's seed: the draw is reproducible")
    quality = models.JSONField(default=dict, blank=True, help_text="Meeting figures of the season")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        ordering = ("night", "number")
        constraints = (
            models.UniqueConstraint(fields=["night", "number"], name="tournaments_night_round_no"),
        )

    def __str__(self) -> str:
        return f"{self.night} round {self.number}"


class Tournament(models.Model):
    """A round-robin or Swiss tournament over tables of 2-6, for people or bots."""

    class Format(models.TextChoices):
        ROUND_ROBIN = "round_robin", "Round robin: everyone meets as evenly as possible"
        SWISS = "swiss", "Swiss: tables filled top-down by the standings"

    class Entrants(models.TextChoices):
        HUMANS = "humans", "People"
        BOTS = "bots", "Bot versions"

    class Status(models.TextChoices):
        DRAFT = "draft", "Taking entrants"
        RUNNING = "running", "Running"
        FINISHED = "finished", "Finished"

    competition = models.OneToOneField(
        Competition, on_delete=models.PROTECT, related_name="tournament"
    )
    organiser = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="tournaments_organised"
    )
    league = models.ForeignKey(
        League,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="tournaments",
        help_text="The club whose roster and organisers it shares, if any",
    )
    format = models.CharField(max_length=12, choices=Format.choices)
    entrants = models.CharField(max_length=8, choices=Entrants.choices)

    class Play(models.TextChoices):
        DIGITAL = "digital", "On the platform"
        RECORDED = "recorded", "At real tables, scores recorded"

    status = models.CharField(max_length=10, choices=Status.choices, default=Status.DRAFT)
    play = models.CharField(max_length=10, choices=Play.choices, default=Play.DIGITAL)
    rules = models.JSONField(help_text="RuleSet options each table plays (seats set per table)")
    rounds = models.PositiveSmallIntegerField()
    table_sizes = models.JSONField(default=list, help_text="Allowed table sizes, e.g. [3, 4, 5]")
    preferred_size = models.PositiveSmallIntegerField(default=4)
    seed = models.BigIntegerField(help_text="Seats and deals derive from it: reproducible")
    decision_ms = models.PositiveIntegerField(default=1000)
    time_bank_ms = models.PositiveIntegerField(default=15_000)
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    def __str__(self) -> str:
        return self.competition.name


class TournamentRound(models.Model):
    """A round of a tournament: its seating plan and its tables."""

    class Status(models.TextChoices):
        SEATED = "seated", "Seated"
        PLAYING = "playing", "Playing"
        FINISHED = "finished", "Finished"

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="round_set")
    number = models.PositiveSmallIntegerField()
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.SEATED)
    plan = models.JSONField(default=list, help_text="Tables: competitor numbers in seat order")
    quality = models.JSONField(default=dict, blank=True, help_text="Meeting statistics so far")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ("tournament", "number")
        constraints = (
            models.UniqueConstraint(fields=["tournament", "number"], name="tournaments_round_no"),
        )

    def __str__(self) -> str:
        return f"{self.tournament} round {self.number}"


class GameEntry(models.Model):
    """Who sat where: a competitor at a seat of a game counted by a competition."""

    competition = models.ForeignKey(Competition, on_delete=models.CASCADE, related_name="entries")
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="competition_entries")
    seat = models.PositiveSmallIntegerField()
    competitor = models.ForeignKey(Competitor, on_delete=models.PROTECT, related_name="entries")
    night = models.ForeignKey(GameNight, on_delete=models.SET_NULL, null=True, blank=True)
    round = models.ForeignKey(TournamentRound, on_delete=models.CASCADE, null=True, blank=True)
    night_round = models.ForeignKey(
        NightRound, on_delete=models.CASCADE, null=True, blank=True, related_name="entries"
    )
    table = models.PositiveSmallIntegerField(null=True, blank=True, help_text="0-based")

    class Meta:
        ordering = ("competition", "game", "seat")
        constraints = (
            models.UniqueConstraint(
                fields=["competition", "game", "seat"], name="tournaments_entry_seat"
            ),
            models.UniqueConstraint(
                fields=["competition", "game", "competitor"], name="tournaments_entry_once"
            ),
        )

    def __str__(self) -> str:
        return f"{self.competitor} at game {self.game_id} seat {self.seat}"


class Result(models.Model):
    """A competitor's result in one counted game, valid until a correction replaces it."""

    competition = models.ForeignKey(Competition, on_delete=models.CASCADE, related_name="results")
    competitor = models.ForeignKey(Competitor, on_delete=models.CASCADE, related_name="results")
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="+")
    night = models.ForeignKey(GameNight, on_delete=models.SET_NULL, null=True, blank=True)
    table_size = models.PositiveSmallIntegerField()
    place = models.PositiveSmallIntegerField()
    points = models.FloatField(help_text="Placement points of the competition's scale")
    placement = models.FloatField(help_text="(n - place) / (n - 1)")
    dollars = models.BigIntegerField()
    dsi = models.FloatField(help_text="Dollars over the table's average")
    rounds_won = models.PositiveSmallIntegerField()
    won = models.BooleanField()
    valid_from = models.DateTimeField()
    valid_to = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = (
            models.Index(
                fields=["competition", "valid_to", "competitor"], name="tournaments_result_now"
            ),
        )
        constraints = (
            models.UniqueConstraint(
                fields=["competition", "competitor", "game"],
                condition=Q(valid_to__isnull=True),
                name="tournaments_result_current_once",
            ),
        )

    def __str__(self) -> str:
        return f"{self.competitor} in game {self.game_id}: place {self.place}"


class ScoreRecord(models.Model):
    """One entry of a recorded game's ledger: a round's dollars, as entered or corrected.

    Records are never changed: a correction is a new record that supersedes the old one
    (``supersedes``), with its reason. The effective round is the newest record for it.
    """

    class Kind(models.TextChoices):
        ENTER = "enter", "Entered"
        CORRECT = "correct", "Corrected"
        VOID = "void", "Round removed"

    class Status(models.TextChoices):
        PENDING = "pending", "Waiting for confirmation"
        CONFIRMED = "confirmed", "Confirmed"
        DISPUTED = "disputed", "Disputed: the organiser decides"

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="score_records")
    round_number = models.PositiveSmallIntegerField()
    dollars = models.JSONField(help_text="Dollars by seat")
    kind = models.CharField(max_length=8, choices=Kind.choices)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    supersedes = models.OneToOneField(
        "self", on_delete=models.PROTECT, null=True, blank=True, related_name="superseded_by"
    )
    actor = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT)
    reason = models.CharField(max_length=500, blank=True)
    idempotency_key = models.CharField(max_length=100, blank=True, default="")
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        ordering = ("game", "round_number", "created_at", "id")
        constraints = (
            models.UniqueConstraint(
                fields=["game", "idempotency_key"],
                condition=~Q(idempotency_key=""),
                name="tournaments_score_idempotency",
            ),
        )

    def __str__(self) -> str:
        return f"Game {self.game_id} round {self.round_number} ({self.kind}, {self.status})"


class ScoreVote(models.Model):
    """A seated player's (or the organiser's) confirmation or dispute of a record."""

    class Verdict(models.TextChoices):
        CONFIRM = "confirm", "Confirmed"
        DISPUTE = "dispute", "Disputed"

    record = models.ForeignKey(ScoreRecord, on_delete=models.CASCADE, related_name="votes")
    voter = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT)
    verdict = models.CharField(max_length=8, choices=Verdict.choices)
    reason = models.CharField(max_length=500, blank=True)
    as_organiser = models.BooleanField(default=False)
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        ordering = ("record", "created_at")
        constraints = (
            models.UniqueConstraint(fields=["record", "voter"], name="tournaments_vote_once"),
        )

    def __str__(self) -> str:
        return f"{self.voter} {self.verdict}s {self.record}"


class ChangeLog(models.Model):
    """The append-only history of a competition: who changed what, when, why, before, after."""

    competition = models.ForeignKey(Competition, on_delete=models.CASCADE, related_name="changes")
    actor = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True)
    action = models.CharField(max_length=40)
    subject = models.CharField(max_length=200, help_text="What was changed, e.g. 'game 12 round 2'")
    reason = models.CharField(max_length=500, blank=True)
    before = models.JSONField(null=True, blank=True)
    after = models.JSONField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        ordering = ("competition", "-created_at", "-id")

    def __str__(self) -> str:
        return f"{self.created_at:%Y-%m-%d %H:%M} {self.action} {self.subject}"


class Webhook(models.Model):
    """An organiser's endpoint for signed result notifications of a competition."""

    competition = models.ForeignKey(Competition, on_delete=models.CASCADE, related_name="webhooks")
    url = models.URLField(max_length=500)
    secret = models.CharField(max_length=200)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT)
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    is_active = models.BooleanField(default=True)

    def __str__(self) -> str:
        return self.url


class Delivery(models.Model):
    """One attempt to deliver a notification: the delivery log organisers can read."""

    webhook = models.ForeignKey(Webhook, on_delete=models.CASCADE, related_name="deliveries")
    event = models.CharField(max_length=40)
    payload = models.JSONField()
    attempts = models.PositiveSmallIntegerField(default=0)
    status_code = models.PositiveSmallIntegerField(null=True, blank=True)
    error = models.CharField(max_length=500, blank=True)
    delivered_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        ordering = ("-created_at",)

    def __str__(self) -> str:
        return f"{self.event} to {self.webhook}"
