"""Pagination for every list endpoint: ``?page=`` and ``?page_size=`` (at most 100).

Both are whole numbers, checked like any other input: ``?page_size=lots`` or
``?page_size=1000`` is 400 ``invalid`` naming the parameter, where DRF would quietly use
the default size or cut it to the largest. A page past the end is 404 ``not_found``.
"""

from typing import Any

from django.core.paginator import Paginator
from rest_framework import pagination, serializers
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request


class PageNumberPagination(pagination.PageNumberPagination):
    """Page-number pagination whose page size the client may set from 1 to 100."""

    page_size_query_param = "page_size"
    max_page_size = 100
    last_page_strings = ()  # ?page=last would be a string where the schema says integer

    def get_page_size(self, request: Request) -> int:
        """The ``page_size`` asked for, or the default one."""
        assert self.page_size is not None, "settings.REST_FRAMEWORK sets PAGE_SIZE"
        assert self.page_size_query_param is not None
        return _whole(request, self.page_size_query_param, self.page_size, self.max_page_size)

    def get_page_number(self, request: Request, paginator: Paginator[Any]) -> int:
        """The ``page`` asked for, or the first."""
        return _whole(request, self.page_query_param, 1, None)

    def get_schema_operation_parameters(self, view: Any) -> list[dict[str, Any]]:
        """DRF's parameters, with the bounds this paginator enforces."""
        parameters: list[dict[str, Any]] = super().get_schema_operation_parameters(view)
        for parameter in parameters:
            parameter["schema"]["minimum"] = 1
            if parameter["name"] == self.page_size_query_param:
                parameter["schema"]["maximum"] = self.max_page_size
        return parameters


def _whole(request: Request, name: str, default: int, maximum: int | None) -> int:
    raw = request.query_params.get(name)
    if raw is None:
        return default
    field = serializers.IntegerField(min_value=1)
    if maximum is not None:
        field = serializers.IntegerField(min_value=1, max_value=maximum)
    try:
        value: int = field.run_validation(raw)
    except ValidationError as error:
        raise ValidationError({name: error.detail}) from None
    return value
