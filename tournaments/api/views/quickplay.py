"""Quick pairing: join the queue for a rated table, see how it goes, leave it."""

from __future__ import annotations

from django.utils import timezone
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.decorators import action
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response

from accounts.models import User
from cya_site.serializers import StrictInputSerializer
from cya_site.viewsets import ApiViewSet
from games.engine.rules import PRESETS
from tournaments import quickplay
from tournaments.models import QueueTicket


class QueueJoinInputSerializer(StrictInputSerializer):
    seats = serializers.IntegerField(min_value=2, max_value=6)
    preset = serializers.ChoiceField(choices=sorted(PRESETS), required=False, default="2021")
    bot_fill_after = serializers.IntegerField(
        required=False,
        allow_null=True,
        default=None,
        help_text="Seconds (15, 30, 60 or 120) after which bots take the seats no person "
        "took; null: never",
    )


class QueueTicketSerializer(serializers.ModelSerializer[QueueTicket]):
    waited_seconds = serializers.SerializerMethodField()
    rating_range = serializers.SerializerMethodField(
        help_text="How far from your rating table mates may be now; null: anyone"
    )

    class Meta:
        model = QueueTicket
        fields = (
            "status",
            "seats",
            "preset",
            "rating",
            "rating_range",
            "bot_fill_after",
            "joined_at",
            "ended_at",
            "waited_seconds",
            "game",
        )
        read_only_fields = fields

    def get_waited_seconds(self, ticket: QueueTicket) -> float:
        end = ticket.ended_at or timezone.now()
        return round((end - ticket.joined_at).total_seconds(), 1)

    def get_rating_range(self, ticket: QueueTicket) -> float | None:
        return quickplay.rating_range(self.get_waited_seconds(ticket))


def _user(request: Request) -> User:
    assert isinstance(request.user, User)  # IsAuthenticated ran
    return request.user


class QuickPairingViewSet(ApiViewSet[QueueTicket]):
    """Play a person now: a queue per table size and rules preset (docs/games.md)."""

    serializer_class = QueueTicketSerializer
    permission_classes = (IsAuthenticated,)
    queryset = QueueTicket.objects.none()  # one's own ticket only, through the service

    @extend_schema(responses={200: QueueTicketSerializer})
    @action(detail=False, methods=["get"])
    def mine(self, request: Request) -> Response:
        """Your latest wait (pairing the queue first while you wait); once ``seated``,
        ``game`` is your table. ``not_queued`` (404) if you never queued."""
        return Response(QueueTicketSerializer(quickplay.queue_ticket(user=_user(request))).data)

    @extend_schema(request=QueueJoinInputSerializer, responses={201: QueueTicketSerializer})
    def create(self, request: Request) -> Response:
        """Join the queue for a rated table; ``already_queued`` (409) while you wait."""
        data = QueueJoinInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        ticket = quickplay.queue_join(user=_user(request), **data.validated_data)
        return Response(QueueTicketSerializer(ticket).data, status=status.HTTP_201_CREATED)

    @extend_schema(request=None, responses={204: None})
    @action(detail=False, methods=["post"])
    def leave(self, request: Request) -> Response:
        """Leave the queue: ``already_seated`` (409, with ``game``) if a table was found
        first, ``not_queued`` (404) if you were not waiting."""
        quickplay.queue_leave(user=_user(request))
        return Response(status=status.HTTP_204_NO_CONTENT)
