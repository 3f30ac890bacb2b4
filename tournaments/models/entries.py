"""Who sat where in which game of a competition, and the results standings are computed from."""

from django.db import models
from django.db.models import Q

from games.models import Game
from tournaments.models.competitions import Competition, Competitor
from tournaments.models.leagues import GameNight, NightRound
from tournaments.models.tournaments import TournamentRound


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
