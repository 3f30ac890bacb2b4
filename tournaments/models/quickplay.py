"""Quick pairing: a person waiting for a table of a size and rules preset
(tournaments.quickplay seats them)."""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone

from games.models import Game


class QueueTicket(models.Model):
    """One wait in the quick-pairing queue, from joining to being seated or leaving."""

    class Status(models.TextChoices):
        WAITING = "waiting", "Waiting for a table"
        SEATED = "seated", "Seated at a table"
        LEFT = "left", "Left the queue"

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="queue_tickets"
    )
    seats = models.PositiveSmallIntegerField()
    preset = models.CharField(max_length=20)
    rating = models.FloatField(help_text="The online rating (mu - 3 sigma) when joining")
    bot_fill_after = models.PositiveIntegerField(
        null=True, blank=True, help_text="Seconds after which bots fill the empty seats"
    )
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.WAITING)
    joined_at = models.DateTimeField(default=timezone.now)
    ended_at = models.DateTimeField(null=True, blank=True)
    game = models.ForeignKey(Game, on_delete=models.SET_NULL, null=True, blank=True)

    class Meta:
        ordering = ("joined_at", "id")
        indexes = (models.Index(fields=["status", "seats", "preset", "joined_at"]),)
        constraints = (
            models.UniqueConstraint(
                fields=["user"],
                condition=Q(status="waiting"),
                name="tournaments_queueticket_one_wait",
            ),
            models.CheckConstraint(
                condition=Q(seats__gte=2, seats__lte=6), name="tournaments_queueticket_seats"
            ),
        )

    def __str__(self) -> str:
        return f"{self.user} for {self.seats} ({self.preset}): {self.status}"
