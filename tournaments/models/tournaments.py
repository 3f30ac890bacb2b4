"""Tournaments and their rounds."""

from django.conf import settings
from django.db import models
from django.utils import timezone

from tournaments.models.competitions import Competition
from tournaments.models.leagues import League


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
