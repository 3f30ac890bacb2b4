"""Input and output serializers of the accounts API (output ones are read-only)."""

from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from accounts.models import ApiToken, User
from cya_site.serializers import StrictInputSerializer


# anyOf, not the oneOf drf-spectacular writes: a validator that does not check formats
# finds "" matches both branches, and oneOf then refuses it.
@extend_schema_field(
    {
        "anyOf": [
            {"type": "string", "format": "email", "maxLength": 254},
            {"type": "string", "maxLength": 0},
        ]
    }
)
class EmailOrBlankField(serializers.EmailField):
    """An email address, or "" for an account that gave none (the one spelling of none)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(allow_blank=True, max_length=254, **kwargs)


class RegisterInputSerializer(StrictInputSerializer):
    username = serializers.CharField(max_length=150)
    password = serializers.CharField(max_length=128, trim_whitespace=False, write_only=True)
    email = EmailOrBlankField(required=False, default="")


class LoginInputSerializer(StrictInputSerializer):
    username = serializers.CharField(max_length=150)
    password = serializers.CharField(max_length=128, trim_whitespace=False, write_only=True)
    token_name = serializers.CharField(max_length=100, required=False, default="login")


class TokenCreateInputSerializer(StrictInputSerializer):
    name = serializers.CharField(max_length=100)


class UserSerializer(serializers.ModelSerializer[User]):
    email = EmailOrBlankField(read_only=True)

    class Meta:
        model = User
        fields = ("id", "username", "email", "is_bot", "is_staff", "date_joined")
        read_only_fields = fields


class TokenSerializer(serializers.ModelSerializer[ApiToken]):
    is_active = serializers.BooleanField(read_only=True)

    class Meta:
        model = ApiToken
        fields: tuple[str, ...] = (
            "id",
            "name",
            "prefix",
            "created_at",
            "last_used_at",
            "revoked_at",
            "is_active",
        )
        read_only_fields: tuple[str, ...] = fields


class NewTokenSerializer(TokenSerializer):
    """A token just created, with its raw key: the only response that ever shows it."""

    key = serializers.SerializerMethodField(help_text="The raw token; it is never shown again.")

    class Meta(TokenSerializer.Meta):
        fields = (*TokenSerializer.Meta.fields, "key")
        read_only_fields = fields

    def get_key(self, token: ApiToken) -> str:
        key: str = self.context["keys"][token.pk]
        return key


class LoginSerializer(serializers.Serializer[Any]):
    user = UserSerializer(read_only=True)
    token = NewTokenSerializer(read_only=True)
