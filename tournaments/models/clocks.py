"""A round's clock at a game night: its length, what happens at time, pauses and extensions."""

from django.conf import settings
from django.db import models
from django.utils import timezone

from tournaments.models.leagues import NightRound


class RoundClock(models.Model):
    """The clock of a night's round, kept as moments so the time left is always read from
    the server's clock (tournaments.clocks.remaining): a page reloaded shows the same."""

    class Policy(models.TextChoices):
        FINISH_ROUND = "finish_round", "Finish the round in play"
        STOP = "stop", "Stop at time"

    night_round = models.OneToOneField(NightRound, on_delete=models.CASCADE, related_name="clock")
    length_seconds = models.PositiveIntegerField()
    policy = models.CharField(max_length=12, choices=Policy.choices)
    started_at = models.DateTimeField(default=timezone.now)
    paused_at = models.DateTimeField(null=True, blank=True)
    paused_seconds = models.PositiveIntegerField(default=0, help_text="Pauses ended so far")
    extended_seconds = models.PositiveIntegerField(default=0)
    started_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )

    def __str__(self) -> str:
        return f"Clock of {self.night_round}"
