"""A bare DRF endpoint for benchmarks/api.py: one read and one write, nothing else.

Mounted at /api/v1/bench/rw/ only when BENCH_ENDPOINTS is on. It runs the same
authentication, throttling and error handling as every endpoint, so the benchmark
compares the action endpoint with the cheapest honest request the stack can serve.
"""

from __future__ import annotations

from django.utils import timezone
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.exceptions import NotAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.models import ApiToken, User


class BenchResultSerializer(serializers.Serializer[dict[str, object]]):
    username = serializers.CharField()
    touched = serializers.IntegerField()


class BenchReadWriteView(APIView):
    """Read the caller's user row, write its token's timestamp: the baseline request."""

    @extend_schema(request=None, responses={200: BenchResultSerializer}, exclude=True)
    def post(self, request: Request) -> Response:
        if not isinstance(request.user, User) or not isinstance(request.auth, ApiToken):
            raise NotAuthenticated("The benchmark endpoint takes a bearer token.")
        user = User.objects.only("username").get(pk=request.user.pk)
        token = ApiToken.objects.filter(pk=request.auth.pk)
        touched = token.update(last_used_at=timezone.now())
        return Response(BenchResultSerializer({"username": user.username, "touched": touched}).data)
