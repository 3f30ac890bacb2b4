"""Sign-in and registration forms: they parse; accounts.services decides."""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from django import forms
from django.utils.translation import gettext_lazy as _

from cya_site.forms import PageForm


class SignInForm(PageForm):
    username = forms.CharField(label=_("Username"), max_length=150)
    password = forms.CharField(
        label=_("Password"), max_length=128, strip=False, widget=forms.PasswordInput
    )

    username.widget.attrs.update(autocomplete="username", autocapitalize="none")
    password.widget.attrs.update(autocomplete="current-password")


class RegisterForm(PageForm):
    username = forms.CharField(
        label=_("Username"),
        max_length=150,
        help_text=_("Letters, digits and @ . + - _ only. Your name on every table and standing."),
    )
    email = forms.EmailField(label=_("Email (optional)"), required=False)
    password = forms.CharField(
        label=_("Password"),
        max_length=128,
        strip=False,
        widget=forms.PasswordInput,
        help_text=_("At least 8 characters, not only digits, not a common password."),
    )

    username.widget.attrs.update(autocomplete="username", autocapitalize="none")
    email.widget.attrs.update(autocomplete="email")
    password.widget.attrs.update(autocomplete="new-password")


class PasswordChangeForm(PageForm):
    error_fields: ClassVar[Mapping[str, str]] = {
        "wrong_password": "current",
        "weak_password": "new",
    }

    current = forms.CharField(
        label=_("Current password"), max_length=128, strip=False, widget=forms.PasswordInput
    )
    new = forms.CharField(
        label=_("New password"),
        max_length=128,
        strip=False,
        widget=forms.PasswordInput,
        help_text=_("At least 8 characters, not only digits, not a common password."),
    )

    current.widget.attrs.update(autocomplete="current-password")
    new.widget.attrs.update(autocomplete="new-password")


class EmailChangeForm(PageForm):
    email = forms.EmailField(
        label=_("New email address"),
        help_text=_("We send a link there: your address changes once you follow it."),
    )

    email.widget.attrs.update(autocomplete="email")


class DeleteAccountForm(PageForm):
    error_fields: ClassVar[Mapping[str, str]] = {"wrong_password": "password"}

    password = forms.CharField(
        label=_("Your password"),
        max_length=128,
        strip=False,
        required=False,
        widget=forms.PasswordInput,
    )
    confirm = forms.BooleanField(
        label=_("I understand: my name leaves every game, sheet and standing for good."),
    )

    password.widget.attrs.update(autocomplete="current-password")
