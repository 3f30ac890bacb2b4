"""Pagination for every list endpoint: ``?page=`` and ``?page_size=`` (at most 100)."""

from rest_framework import pagination


class PageNumberPagination(pagination.PageNumberPagination):
    """Page-number pagination whose page size the client may lower or raise up to 100."""

    page_size_query_param = "page_size"
    max_page_size = 100
