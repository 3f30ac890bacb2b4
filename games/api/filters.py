"""Query filters of the games list."""

from django.db.models import QuerySet
from django_filters import rest_framework as filters

from accounts.models import User
from cya_site.filters import IntegerFilter, TrueFalseFilter
from games import selectors
from games.models import Game


class GameFilter(filters.FilterSet):
    status = filters.ChoiceFilter(choices=Game.Status.choices)
    mode = filters.ChoiceFilter(choices=Game.Mode.choices)
    seats = IntegerFilter(field_name="seat_count", label="Tables of this many seats")
    mine = TrueFalseFilter(method="filter_mine", label="Only games you have a seat at")
    my_turn = TrueFalseFilter(
        method="filter_my_turn", label="Only games in play whose decision is yours"
    )
    player = filters.CharFilter(
        field_name="seats__user__username", lookup_expr="iexact", label="Games of this player"
    )

    class Meta:
        model = Game
        fields = ("status", "mode", "seats", "mine", "my_turn", "player")

    def filter_mine(self, queryset: QuerySet[Game], name: str, value: bool) -> QuerySet[Game]:
        user = self.request.user if self.request else None
        if user is None or not user.is_authenticated:
            return queryset.none() if value else queryset
        mine = queryset.filter(seats__user=user)
        return mine if value else queryset.exclude(pk__in=mine.values("pk"))

    def filter_my_turn(self, queryset: QuerySet[Game], name: str, value: bool) -> QuerySet[Game]:
        user = self.request.user if self.request else None
        if not isinstance(user, User):
            return queryset.none() if value else queryset
        waiting = selectors.games_waiting_on(user).values("pk")
        return queryset.filter(pk__in=waiting) if value else queryset.exclude(pk__in=waiting)
