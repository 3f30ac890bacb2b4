"""Substitutes who take a seat for a player who left, and penalties an organiser gives."""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone

from games.models import Game
from tournaments.models.competitions import Competition, Competitor
from tournaments.models.leagues import GameNight, SubstitutePolicy
from tournaments.models.tournaments import TournamentRound


class Substitution(models.Model):
    """A substitute in a recorded game's seat, from a round on, for a player who left.

    The seat's ``GameEntry`` stays the absent player's; ``policy`` (the league's setting
    when it was recorded, kept so a later change of setting rewrites no history) says how
    that player's game is scored (tournaments.results.rows_for).
    """

    competition = models.ForeignKey(
        Competition, on_delete=models.CASCADE, related_name="substitutions"
    )
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="substitutions")
    seat = models.PositiveSmallIntegerField()
    absent = models.ForeignKey(Competitor, on_delete=models.PROTECT, related_name="absences")
    substitute_name = models.CharField(max_length=80)
    substitute_user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    from_round = models.PositiveSmallIntegerField(help_text="The first round the substitute plays")
    policy = models.CharField(max_length=8, choices=SubstitutePolicy.choices)
    reason = models.CharField(max_length=500)
    actor = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        ordering = ("competition", "created_at", "id")
        constraints = (
            models.UniqueConstraint(fields=["game", "seat"], name="tournaments_substitute_once"),
        )

    def __str__(self) -> str:
        return f"{self.substitute_name} for {self.absent} in game {self.game_id}"


class Penalty(models.Model):
    """Placement points or dollars taken from a competitor's standing, with a reason that
    every standings page shows. Given at a night (a season) or a round (a tournament):
    the clock of play counts it from there on; the clock of record from ``created_at``."""

    class Kind(models.TextChoices):
        POINTS = "points", "Placement points"
        DOLLARS = "dollars", "Dollars"

    competition = models.ForeignKey(Competition, on_delete=models.CASCADE, related_name="penalties")
    competitor = models.ForeignKey(Competitor, on_delete=models.CASCADE, related_name="penalties")
    kind = models.CharField(max_length=8, choices=Kind.choices)
    amount = models.FloatField(help_text="Taken off: points, or whole dollars")
    reason = models.CharField(max_length=500)
    night = models.ForeignKey(
        GameNight, on_delete=models.SET_NULL, null=True, blank=True, related_name="penalties"
    )
    round = models.ForeignKey(
        TournamentRound, on_delete=models.CASCADE, null=True, blank=True, related_name="penalties"
    )
    actor = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    # A penalty given by mistake is withdrawn, never deleted: from then on it counts on
    # neither clock, and the clock of record before then still shows it.
    withdrawn_at = models.DateTimeField(null=True, blank=True)
    withdrawn_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    withdraw_reason = models.CharField(max_length=500, blank=True)

    class Meta:
        ordering = ("competition", "created_at", "id")
        constraints = (
            models.CheckConstraint(condition=Q(amount__gt=0), name="tournaments_penalty_positive"),
        )

    def __str__(self) -> str:
        return f"{self.competitor}: -{self.amount:g} {self.kind}"

    @property
    def dollars(self) -> int:
        """A dollars penalty's amount as the whole dollars it is."""
        return int(self.amount)
