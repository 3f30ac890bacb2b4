"""People's ratings: one online pool (rated tables, by account) and one club pool per
league (its seasons' and tournaments' games, by roster entry, guests included). Every
change is kept with its reason (tournaments.people_ratings)."""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone

from bots.models import DEFAULT_MU, DEFAULT_SIGMA
from games.models import Game
from tournaments.models.leagues import League, Member


class RatingPool(models.Model):
    """The online pool (no league) or a league's club pool, and what it was computed from."""

    league = models.OneToOneField(
        League, on_delete=models.CASCADE, null=True, blank=True, related_name="rating_pool"
    )
    fingerprint = models.CharField(
        max_length=64, blank=True, help_text="A club pool: the results it was computed from"
    )
    last_played_at = models.DateTimeField(null=True, blank=True)
    last_game_id = models.BigIntegerField(
        null=True, blank=True, help_text="The online pool: the last game applied, in order"
    )
    computed_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = (
            models.UniqueConstraint(
                fields=["league"],
                nulls_distinct=False,
                name="tournaments_ratingpool_one_online",
            ),
        )

    def __str__(self) -> str:
        return f"ratings of {self.league or 'online play'}"


class PersonRating(models.Model):
    """A person's OpenSkill rating in one pool: by account online, by roster entry in a club."""

    pool = models.ForeignKey(RatingPool, on_delete=models.CASCADE, related_name="ratings")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="ratings",
    )
    member = models.ForeignKey(
        Member, on_delete=models.CASCADE, null=True, blank=True, related_name="ratings"
    )
    mu = models.FloatField(default=DEFAULT_MU)
    sigma = models.FloatField(default=DEFAULT_SIGMA)
    games = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ("pool", "-mu")
        constraints = (
            models.CheckConstraint(
                condition=Q(user__isnull=False, member__isnull=True)
                | Q(user__isnull=True, member__isnull=False),
                name="tournaments_personrating_one_holder",
            ),
            models.UniqueConstraint(
                fields=["pool", "user"],
                condition=Q(user__isnull=False),
                name="tournaments_personrating_user_once",
            ),
            models.UniqueConstraint(
                fields=["pool", "member"],
                condition=Q(member__isnull=False),
                name="tournaments_personrating_member_once",
            ),
        )

    def __str__(self) -> str:
        return f"{self.user or self.member}: {self.mu:.2f} ± {self.sigma:.2f}"

    @property
    def conservative(self) -> float:
        """mu - 3 sigma: the rating shown and ranked by, as the bot ladder does."""
        return self.mu - 3 * self.sigma


class PersonRatingChange(models.Model):
    """How one game moved one rating, and why: the place expected against the place taken."""

    rating = models.ForeignKey(PersonRating, on_delete=models.CASCADE, related_name="changes")
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="+")
    number = models.PositiveIntegerField(help_text="The holder's n-th rated game in the pool")
    played_at = models.DateTimeField()
    table_size = models.PositiveSmallIntegerField()
    place = models.PositiveSmallIntegerField()
    expected_place = models.FloatField()
    mu_before = models.FloatField()
    sigma_before = models.FloatField()
    mu_after = models.FloatField()
    sigma_after = models.FloatField()

    class Meta:
        ordering = ("rating", "number")
        constraints = (
            models.UniqueConstraint(
                fields=["rating", "game"], name="tournaments_personratingchange_once"
            ),
        )

    def __str__(self) -> str:
        return f"{self.rating} in game {self.game_id}: {self.mu_before:.2f} -> {self.mu_after:.2f}"
