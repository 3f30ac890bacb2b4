"""Sign-in and registration forms: they parse; accounts.services decides."""

from __future__ import annotations

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
