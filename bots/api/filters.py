"""Query filters of the matches list."""

from django.db.models import QuerySet
from django_filters import rest_framework as filters

from bots import selectors
from bots.models import Match


class MatchFilter(filters.FilterSet):
    kind = filters.ChoiceFilter(choices=Match.Kind.choices)
    status = filters.ChoiceFilter(choices=Match.Status.choices)
    bot = filters.CharFilter(
        method="filter_bot",
        max_length=40,
        label=(
            "Matches a version of this bot played: its id (a number) or its name (any letter case)"
        ),
    )

    class Meta:
        model = Match
        fields = ("kind", "status", "bot")

    def filter_bot(self, queryset: QuerySet[Match], name: str, value: str) -> QuerySet[Match]:
        """A bot no one has (by id or name) played no match: an empty list, as for a kind
        of match that none has."""
        played = selectors.matches_of(selectors.bot_filter(value))
        return queryset.filter(pk__in=played.values("pk"))
