"""Club leagues: the roster, seasons, game nights, who checked in and each night's seating draws."""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.db.models.functions import Lower
from django.utils import timezone

from tournaments.models.competitions import Competition, Competitor


class SubstitutePolicy(models.TextChoices):
    """How the game of a player who left is scored (docs/tournaments.md, "Substitutes")."""

    FIXED = "fixed", "Fixed score: last place, no points, $0 for the absent player"
    SEAT = "seat", "The seat's result, as the substitute finished it"


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
    organiser_entries_settle = models.BooleanField(
        default=False,
        help_text="An organiser's entry of a round counts at once; otherwise the table's "
        "players confirm it like any entry (the organiser can still settle it)",
    )
    substitute_policy = models.CharField(
        max_length=8,
        default=SubstitutePolicy.FIXED,
        choices=SubstitutePolicy.choices,
        help_text="How the game of a player who left, replaced by a substitute, is scored",
    )
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
