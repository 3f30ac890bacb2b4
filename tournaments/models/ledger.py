"""The append-only score ledger of a real-table game, and the votes that confirm its rows."""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone

from games.models import Game


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
