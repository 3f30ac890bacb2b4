"""A signed-in person's own account: a new password, a new email address (confirmed from
that address), the data download, and deleting the account. Thin over accounts.lifecycle,
as the API's ``/api/v1/account/`` is; attempts count per client address against the
``account`` rate, and mails sent against the ``mail`` rate."""

from __future__ import annotations

import orjson
from django.contrib import messages
from django.contrib.auth import logout, update_session_auth_hash
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from accounts import lifecycle
from accounts.models import User
from accounts.web.forms import DeleteAccountForm, EmailChangeForm, PasswordChangeForm
from accounts.web.views import throttled
from cya_site.errors import DomainError
from cya_site.throttling import page_rate_spent


def _me(request: HttpRequest) -> User:
    user = request.user
    assert isinstance(user, User)  # login_required ran
    return user


def _page(request: HttpRequest, status: int = 200, **forms: object) -> HttpResponse:
    context = {
        "password_form": PasswordChangeForm(),
        "email_form": EmailChangeForm(),
        "delete_form": DeleteAccountForm(),
        **forms,
    }
    return render(request, "accounts/account.html", context, status=status)


@login_required
def account(request: HttpRequest) -> HttpResponse:
    """The account page: every setting, each its own form."""
    return _page(request)


@login_required
@require_POST
def password(request: HttpRequest) -> HttpResponse:
    """A new password; this session stays signed in, every other one ends."""
    form = PasswordChangeForm(request.POST)
    if form.is_valid() and not throttled(request, form, "account"):
        user = _me(request)
        try:
            lifecycle.user_password_change(user=user, **form.cleaned_data)
        except DomainError as error:
            form.refuse(error)
        else:
            update_session_auth_hash(request, user)
            messages.success(request, _("Password changed: every other session is signed out."))
            return redirect(reverse("account"))
    return _page(request, 400, password_form=form)


@login_required
@require_POST
def email(request: HttpRequest) -> HttpResponse:
    """Mail a confirmation link to a new address; the old one stays until it is followed."""
    form = EmailChangeForm(request.POST)
    if form.is_valid() and not throttled(request, form, "mail"):
        lifecycle.email_change_request(user=_me(request), request=request, **form.cleaned_data)
        messages.success(
            request,
            _("We sent a link to %(email)s: your address changes once you follow it.")
            % {"email": form.cleaned_data["email"]},
        )
        return redirect(reverse("account"))
    return _page(request, 400, email_form=form)


def email_confirm(request: HttpRequest, token: str) -> HttpResponse:
    """A confirmation link: the page asks for a tap (a POST), so a mail scanner that
    fetches links confirms nothing."""
    if request.method != "POST":
        return render(request, "accounts/email_confirm.html", {"token": token})
    try:
        user = lifecycle.email_change_confirm(token=token)
    except DomainError as error:
        context = {"token": token, "error": error.message}
        return render(request, "accounts/email_confirm.html", context, status=400)
    messages.success(request, _("Your email address is now %(email)s.") % {"email": user.email})
    return redirect(reverse("account") if request.user.is_authenticated else reverse("home"))


@login_required
def data(request: HttpRequest) -> HttpResponse:
    """The data download: everything kept about the person, as one JSON file."""
    wait = page_rate_spent(request, "account")
    if wait is not None:
        messages.error(
            request,
            _("Too many attempts from here: try again in %(seconds)d seconds.")
            % {"seconds": max(1, round(wait))},
        )
        return redirect(reverse("account"))
    body = orjson.dumps(lifecycle.user_export(user=_me(request)), option=orjson.OPT_INDENT_2)
    response = HttpResponse(body, content_type="application/json")
    name = f"cover-your-assets-{_me(request).username}.json"
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response


@login_required
@require_POST
def delete(request: HttpRequest) -> HttpResponse:
    """Delete the account (with the password), sign out, and say so on the home page."""
    form = DeleteAccountForm(request.POST)
    if form.is_valid() and not throttled(request, form, "account"):
        try:
            lifecycle.user_delete(user=_me(request), password=form.cleaned_data["password"])
        except DomainError as error:
            form.refuse(error)
        else:
            logout(request)
            messages.success(request, _("Your account is deleted. Thank you for playing."))
            return redirect(reverse("home"))
    return _page(request, 400, delete_form=form)
