"""Query filters of the accounts lists."""

from django.db.models import QuerySet
from django_filters import rest_framework as filters

from accounts.models import ApiToken
from cya_site.filters import TrueFalseFilter


class TokenFilter(filters.FilterSet):
    active = TrueFalseFilter(method="filter_active", label="Only tokens not revoked")

    class Meta:
        model = ApiToken
        fields = ("active",)

    def filter_active(
        self, queryset: QuerySet[ApiToken], name: str, value: bool
    ) -> QuerySet[ApiToken]:
        return queryset.filter(revoked_at__isnull=value)
