"""Registration, login/logout, the current user, and API tokens."""

from django.contrib.auth import login, logout
from django.db.models import QuerySet
from drf_spectacular.utils import extend_schema
from rest_framework import mixins, status
from rest_framework.decorators import action
from rest_framework.exceptions import NotAuthenticated
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response

from accounts import selectors, services
from accounts.api.filters import TokenFilter
from accounts.api.serializers import (
    LoginInputSerializer,
    LoginSerializer,
    NewTokenSerializer,
    RegisterInputSerializer,
    TokenCreateInputSerializer,
    TokenSerializer,
    UserSerializer,
)
from accounts.models import ApiToken, User
from cya_site.viewsets import ApiViewSet


def _user(request: Request) -> User:
    """The authenticated user (the permission classes ran before this is called)."""
    user = request.user
    if not isinstance(user, User):
        raise NotAuthenticated
    return user


class AuthViewSet(ApiViewSet[User]):
    """Register, log in (get a token), log out (revoke it), and who am I."""

    serializer_class = UserSerializer
    throttle_scope: str | None = None

    @extend_schema(request=RegisterInputSerializer, responses={201: UserSerializer})
    @action(
        detail=False,
        methods=["post"],
        authentication_classes=[],
        permission_classes=[AllowAny],
        throttle_scope="auth",
    )
    def register(self, request: Request) -> Response:
        """Create a human account. Log in afterwards to get a token."""
        data = RegisterInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        user = services.user_register(**data.validated_data)
        return Response(UserSerializer(user).data, status=status.HTTP_201_CREATED)

    @extend_schema(request=LoginInputSerializer, responses={201: LoginSerializer})
    @action(
        detail=False,
        methods=["post"],
        authentication_classes=[],
        permission_classes=[AllowAny],
        throttle_scope="auth",
    )
    def login(self, request: Request) -> Response:
        """Check username and password; issue a new token (shown once) and a session."""
        data = LoginInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        user, token, key = services.user_login(**data.validated_data, request=request._request)
        # The session lets the browsable API and the admin work after an API login.
        login(request._request, user)
        body = LoginSerializer({"user": user, "token": token}, context={"keys": {token.pk: key}})
        return Response(body.data, status=status.HTTP_201_CREATED)

    @extend_schema(request=None, responses={204: None})
    @action(detail=False, methods=["post"])
    def logout(self, request: Request) -> Response:
        """Revoke the token this request used, and end the session."""
        if isinstance(request.auth, ApiToken):
            services.token_revoke(token=request.auth, by=_user(request))
        logout(request._request)
        return Response(status=status.HTTP_204_NO_CONTENT)

    @action(detail=False, methods=["get"])
    def me(self, request: Request) -> Response:
        """The authenticated user."""
        return Response(UserSerializer(_user(request)).data)


class TokenViewSet(mixins.ListModelMixin, ApiViewSet[ApiToken]):
    """The caller's own API tokens: list, create (key shown once), revoke."""

    serializer_class = TokenSerializer
    filterset_class = TokenFilter

    def get_queryset(self) -> QuerySet[ApiToken]:
        if getattr(self, "swagger_fake_view", False):  # schema generation has no user
            return ApiToken.objects.none()
        return selectors.token_list(user=_user(self.request))

    @extend_schema(request=TokenCreateInputSerializer, responses={201: NewTokenSerializer})
    def create(self, request: Request) -> Response:
        """Issue a token; the response is the only place its key is ever shown."""
        data = TokenCreateInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        token, key = services.token_create(user=_user(request), **data.validated_data)
        body = NewTokenSerializer(token, context={"keys": {token.pk: key}})
        return Response(body.data, status=status.HTTP_201_CREATED)

    @extend_schema(responses={204: None})
    def destroy(self, request: Request, pk: str) -> Response:
        """Revoke one of the caller's tokens (idempotent); others' tokens are not found."""
        services.token_revoke(token=self.get_object(), by=_user(request))
        return Response(status=status.HTTP_204_NO_CONTENT)
