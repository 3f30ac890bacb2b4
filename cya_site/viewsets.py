"""The base of every API viewset: it refuses the query parameters its action does not read.

A misspelt filter (``?stauts=active``) or a parameter some other endpoint takes
(``?ordering=...``, ``?page=`` on a plain array) would otherwise be ignored, and the client
would get an answer to a question it did not ask. Each unknown parameter gets 400
``invalid`` with ``unknown_field`` under its name, as an unknown body field does
(cya_site.serializers.StrictInputSerializer), so the rule is the same for bodies and
query strings; a parameter with no value (``?status=``) gets ``blank``. Their values are
checked by whatever reads them: the filters (cya_site/filters.py), the paginator
(cya_site/pagination.py) or the action's query serializer.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypeVar

from django.db.models import Model, QuerySet
from django_filters.rest_framework import DjangoFilterBackend
from rest_framework import serializers, viewsets
from rest_framework.exceptions import ErrorDetail, ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.settings import api_settings

_M = TypeVar("_M", bound=Model)

READS = frozenset({"GET", "HEAD"})


class ApiViewSet(viewsets.GenericViewSet[_M]):
    """A GenericViewSet whose actions accept only the query parameters they read.

    Every action reads DRF's ``format`` (content negotiation). A GET action also reads the
    fields of its ``query_serializer``, if it declares one; the ``list`` action reads its
    filters and, when paginated, ``page`` and ``page_size``; another action that answers a
    page (declared with ``pages=True``) reads the page parameters only. Set
    ``query_serializer`` and ``pages`` per action through ``@action(...)``.
    """

    query_serializer: type[serializers.Serializer[Any]] | None = None
    pages = False

    def initial(self, request: Request, *args: Any, **kwargs: Any) -> None:
        """Authenticate, check permissions and throttles, then refuse unknown parameters."""
        super().initial(request, *args, **kwargs)
        if self.action is not None:  # else the method is not routed here: 405 follows
            query_check(request.query_params, self.query_params_read())

    def query_params_read(self) -> set[str]:
        """The names of the query parameters this request's action reads."""
        names = {api_settings.URL_FORMAT_OVERRIDE or "format"}
        if self.request.method not in READS:
            return names
        if self.query_serializer is not None:
            names.update(self.query_serializer().fields)
        if self.action == "list":
            names.update(self._filter_params())
        if self.paginator is not None and (self.action == "list" or self.pages):
            names.update(
                param["name"] for param in self.paginator.get_schema_operation_parameters(self)
            )
        return names

    def query_valid(self) -> dict[str, Any]:
        """The query parameters, validated by the action's ``query_serializer`` (else 400)."""
        assert self.query_serializer is not None, "the action declares no query_serializer"
        query = self.query_serializer(data=self.request.query_params)
        query.is_valid(raise_exception=True)
        return dict(query.validated_data)

    def _filter_params(self) -> set[str]:
        # django-filter is the one filter backend (settings.REST_FRAMEWORK); another one's
        # parameters would be refused until named here, which tests/cya_site/test_query_params.py
        # would show at once.
        names: set[str] = set()
        for backend in (backend_class() for backend_class in self.filter_backends):
            if isinstance(backend, DjangoFilterBackend):
                filterset = backend.get_filterset_class(self, self.get_queryset())
                names.update(filterset.base_filters if filterset is not None else ())
        return names

    def page_response(
        self,
        rows: QuerySet[Any],
        serializer: type[serializers.BaseSerializer[Any]],
        *,
        shape: Callable[[list[Any]], Iterable[Any]] | None = None,
        **kwargs: Any,
    ) -> Response:
        """One page of ``rows`` (a ``pages=True`` action), each serialized by ``serializer``;
        ``shape`` turns the page's objects into what the serializer reads, if they are not."""
        page = self.paginate_queryset(rows)
        assert page is not None, "page_response needs a paginated view"
        shaped = page if shape is None else shape(page)
        return self.get_paginated_response(serializer(shaped, many=True, **kwargs).data)


def query_check(params: Mapping[str, str], known: set[str]) -> None:
    """Raise ValidationError naming each parameter not in ``known`` (``unknown_field``) and
    each given without a value (``blank``: ``?status=`` is no status, not any status)."""
    problems = {
        name: [ErrorDetail("Unknown query parameter.", code="unknown_field")]
        for name in params
        if name not in known
    }
    problems.update(
        (name, [ErrorDetail("A query parameter needs a value.", code="blank")])
        for name, value in params.items()
        if value == "" and name not in problems
    )
    if problems:
        raise ValidationError(dict(sorted(problems.items())))
