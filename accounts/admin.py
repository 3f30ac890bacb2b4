"""Admin for users and tokens. Tokens are created through the API only, since the raw
key can be shown once to its owner; staff can revoke them here."""

from typing import cast

from django.contrib import admin, messages
from django.contrib.auth.admin import UserAdmin as DjangoUserAdmin
from django.db.models import QuerySet
from django.http import HttpRequest

from accounts.models import ApiToken, User
from accounts.services import token_revoke


@admin.register(User)
class UserAdmin(DjangoUserAdmin[User]):
    list_display = ("username", "email", "is_bot", "is_staff", "is_active", "date_joined")
    list_filter = ("is_bot", "is_staff", "is_superuser", "is_active")
    fieldsets = (*(DjangoUserAdmin.fieldsets or ()), ("Bot", {"fields": ("is_bot",)}))


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin[ApiToken]):
    list_display = ("prefix", "name", "user", "created_at", "last_used_at", "revoked_at")
    list_filter = (("revoked_at", admin.EmptyFieldListFilter),)
    search_fields = ("prefix", "name", "user__username")
    list_select_related = ("user",)
    readonly_fields = (
        "user",
        "name",
        "prefix",
        "key_hash",
        "created_at",
        "last_used_at",
        "revoked_at",
    )
    fields = readonly_fields
    actions = ("revoke",)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    @admin.action(description="Revoke selected tokens")
    def revoke(self, request: HttpRequest, queryset: QuerySet[ApiToken]) -> None:
        staff = cast(User, request.user)  # the admin site only lets staff users in
        for token in queryset:
            token_revoke(token=token, by=staff)
        self.message_user(request, f"Revoked {queryset.count()} token(s).", messages.SUCCESS)
