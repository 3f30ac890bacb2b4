"""The caller's own account: password, email address, password reset, data download and
deletion; the API twin of the account page (accounts.web.account), over the same
accounts.lifecycle. Mail-sending endpoints use the ``mail`` rate, the others ``account``;
the reset endpoints answer alike whether or not an account has the address."""

from typing import Any

from django.contrib.auth import logout, update_session_auth_hash
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.decorators import action
from rest_framework.exceptions import NotAuthenticated
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response

from accounts import lifecycle
from accounts.api.serializers import UserSerializer
from accounts.models import ApiToken, User
from cya_site.serializers import StrictInputSerializer
from cya_site.viewsets import ApiViewSet


class PasswordChangeInputSerializer(StrictInputSerializer):
    current = serializers.CharField(max_length=128, trim_whitespace=False, write_only=True)
    new = serializers.CharField(max_length=128, trim_whitespace=False, write_only=True)


class EmailChangeInputSerializer(StrictInputSerializer):
    email = serializers.EmailField(max_length=254)


class EmailConfirmInputSerializer(StrictInputSerializer):
    token = serializers.CharField(max_length=1000)


class PasswordResetInputSerializer(StrictInputSerializer):
    email = serializers.EmailField(max_length=254)


class PasswordResetConfirmInputSerializer(StrictInputSerializer):
    uid = serializers.CharField(max_length=100)
    token = serializers.CharField(max_length=100)
    password = serializers.CharField(max_length=128, trim_whitespace=False, write_only=True)


class AccountDeleteInputSerializer(StrictInputSerializer):
    password = serializers.CharField(
        max_length=128, trim_whitespace=False, write_only=True, required=False, default=""
    )


class AcceptedSerializer(serializers.Serializer[Any]):
    detail = serializers.CharField(read_only=True)


_SENT = "If the address is right, a link is on its way."


def _user(request: Request) -> User:
    """The authenticated user (the permission classes ran before this is called)."""
    user = request.user
    if not isinstance(user, User):
        raise NotAuthenticated
    return user


class AccountViewSet(ApiViewSet[User]):
    """Change your password or email address, reset a forgotten password, download your
    data, delete your account."""

    serializer_class = UserSerializer  # OPTIONS describes the account
    throttle_scope: str | None = "account"

    @extend_schema(request=PasswordChangeInputSerializer, responses={204: None})
    @action(detail=False, methods=["post"])
    def password(self, request: Request) -> Response:
        """A new password; every other session ends and every other API token is revoked
        (the token this request used stays). ``wrong_password`` (403), ``weak_password``."""
        data = PasswordChangeInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        user = _user(request)
        keep = request.auth if isinstance(request.auth, ApiToken) else None
        lifecycle.user_password_change(user=user, keep_token=keep, **data.validated_data)
        if request.auth is None:  # a session: it stays signed in
            update_session_auth_hash(request._request, user)
        return Response(status=status.HTTP_204_NO_CONTENT)

    @extend_schema(request=EmailChangeInputSerializer, responses={202: AcceptedSerializer})
    @action(detail=False, methods=["post"], throttle_scope="mail")
    def email(self, request: Request) -> Response:
        """Mail a confirmation link to a new address; the address changes once the link
        (or ``email/confirm/`` with its token) is followed."""
        data = EmailChangeInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        lifecycle.email_change_request(
            user=_user(request), request=request._request, **data.validated_data
        )
        return Response({"detail": _SENT}, status=status.HTTP_202_ACCEPTED)

    @extend_schema(request=EmailConfirmInputSerializer, responses={204: None})
    @action(
        detail=False,
        methods=["post"],
        url_path="email/confirm",
        authentication_classes=[],
        permission_classes=[AllowAny],
        throttle_scope="auth",
    )
    def email_confirm(self, request: Request) -> Response:
        """Confirm a new address with the token of its link. ``link_invalid``."""
        data = EmailConfirmInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        lifecycle.email_change_confirm(**data.validated_data)
        return Response(status=status.HTTP_204_NO_CONTENT)

    @extend_schema(request=PasswordResetInputSerializer, responses={202: AcceptedSerializer})
    @action(
        detail=False,
        methods=["post"],
        url_path="password-reset",
        authentication_classes=[],
        permission_classes=[AllowAny],
        throttle_scope="mail",
    )
    def password_reset(self, request: Request) -> Response:
        """Mail a reset link to the accounts with this address; the same answer whether
        or not there are any."""
        data = PasswordResetInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        lifecycle.password_reset_request(request=request._request, **data.validated_data)
        return Response({"detail": _SENT}, status=status.HTTP_202_ACCEPTED)

    @extend_schema(request=PasswordResetConfirmInputSerializer, responses={204: None})
    @action(
        detail=False,
        methods=["post"],
        url_path="password-reset/confirm",
        authentication_classes=[],
        permission_classes=[AllowAny],
        throttle_scope="auth",
    )
    def password_reset_confirm(self, request: Request) -> Response:
        """Set a new password with the ``uid`` and ``token`` of a reset link (the last two
        parts of its path). Every session and token of the account ends. ``link_invalid``,
        ``weak_password``."""
        data = PasswordResetConfirmInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        lifecycle.password_reset_confirm(**data.validated_data)
        return Response(status=status.HTTP_204_NO_CONTENT)

    @extend_schema(
        responses={200: OpenApiResponse(description="Everything kept about you, as JSON")}
    )
    @action(detail=False, methods=["get"])
    def data(self, request: Request) -> Response:
        """Your data download: the account, tokens (no keys), games, bots, clubs and score
        entries, as the account page's download."""
        return Response(lifecycle.user_export(user=_user(request)))

    @extend_schema(request=AccountDeleteInputSerializer, responses={204: None})
    @action(detail=False, methods=["post"], url_path="delete")
    def delete_account(self, request: Request) -> Response:
        """Delete your account (a guest gives no password). Games, score sheets and
        standings keep their rows under ``deleted-player-…``. ``wrong_password`` (403)."""
        data = AccountDeleteInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        lifecycle.user_delete(user=_user(request), **data.validated_data)
        logout(request._request)
        return Response(status=status.HTTP_204_NO_CONTENT)
