"""What has standings (a league season or a tournament) and who is ranked in it."""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.db.models.functions import Lower
from django.utils import timezone

from bots.models import BotVersion


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
