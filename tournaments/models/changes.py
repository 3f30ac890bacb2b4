"""A competition's append-only change log, and the webhooks that announce its changes."""

from django.conf import settings
from django.db import models
from django.utils import timezone

from tournaments.models.competitions import Competition


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
