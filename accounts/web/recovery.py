"""A forgotten password: Django's own reset views, with this site's templates and rates.

Asking for a link counts against the ``mail`` rate of the client's address and always
answers the same "check your inbox" page, whether or not an account has the address (no
account enumeration); setting the new password counts against ``auth``. A reset ends every
session and revokes every API token of the account. Under ``make run`` the mail, link
included, is printed on the console; the tests read Django's in-memory outbox.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import views as auth_views
from django.contrib.auth.forms import PasswordResetForm, SetPasswordForm
from django.http import HttpResponse
from django.urls import reverse_lazy

from accounts import lifecycle
from accounts.web.views import throttled


class _PlainLabels:
    def get_form_kwargs(self) -> dict[str, Any]:
        kwargs: dict[str, Any] = super().get_form_kwargs()  # type: ignore[misc]
        kwargs["label_suffix"] = ""
        return kwargs


class ResetRequestView(_PlainLabels, auth_views.PasswordResetView):
    """Ask for a reset link by email address."""

    template_name = "accounts/password_reset.html"
    form_class = lifecycle.ResetForm  # its mails counted per address (THROTTLE_MAIL_TO)
    email_template_name = "accounts/email/password_reset.txt"
    subject_template_name = "accounts/email/password_reset_subject.txt"
    success_url = reverse_lazy("password-reset-sent")

    def form_valid(self, form: PasswordResetForm) -> HttpResponse:
        if throttled(self.request, form, "mail"):
            return self.render_to_response(self.get_context_data(form=form), status=429)
        return super().form_valid(form)


class ResetSentView(auth_views.PasswordResetDoneView):
    template_name = "accounts/password_reset_sent.html"


class ResetConfirmView(_PlainLabels, auth_views.PasswordResetConfirmView):
    """The link's page: a new password, twice."""

    template_name = "accounts/password_reset_confirm.html"
    success_url = reverse_lazy("password-reset-done")

    def form_valid(self, form: SetPasswordForm[Any]) -> HttpResponse:
        if throttled(self.request, form):
            return self.render_to_response(self.get_context_data(form=form), status=429)
        response = super().form_valid(form)
        lifecycle.tokens_revoke_all(user=form.user)
        return response


class ResetDoneView(auth_views.PasswordResetCompleteView):
    template_name = "accounts/password_reset_done.html"
