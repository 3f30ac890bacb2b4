"""Sign in, register, sign out and the page language: sessions on the API's accounts.

Credentials, registration and the kept language go through accounts.services, exactly as
the API's login and register endpoints do. Attempts are counted against the API's
``auth`` rate (THROTTLE_AUTH) per client address, and failed sign-ins against the one
lockout of every way in (accounts.lockout).
"""

from __future__ import annotations

from django import forms
from django.conf import settings
from django.contrib.auth import login, logout
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from accounts import lockout, services
from accounts.models import User
from accounts.web.forms import RegisterForm, SignInForm
from cya_site.errors import DomainError
from cya_site.throttling import page_rate_spent

LANGUAGE_COOKIE_MAX_AGE = 365 * 24 * 3600


def _next(request: HttpRequest, default: str = "/") -> str:
    """Where to go afterwards: the ``next`` asked for, if it is on this site."""
    target = request.POST.get("next") or request.GET.get("next") or ""
    if target and url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return target
    return default


def throttled(request: HttpRequest, form: forms.Form, scope: str = "auth") -> bool:
    """Count this attempt against the ``scope`` rate of the client's address; once it is
    spent, say so above the form and refuse."""
    wait = page_rate_spent(request, scope)
    if wait is None:
        return False
    form.add_error(
        None,
        _("Too many attempts from here: try again in %(seconds)d seconds.")
        % {"seconds": max(1, round(wait))},
    )
    return True


def sign_in(request: HttpRequest) -> HttpResponse:
    """The sign-in page; a success goes back where the player came from."""
    form = SignInForm(request.POST or None)
    refusal: DomainError | None = None
    if request.method == "POST" and form.is_valid() and not throttled(request, form):
        try:
            user = services.user_authenticate(**form.cleaned_data, request=request)
        except DomainError as error:
            form.add_error(None, error.message)
            refusal = error
        else:
            login(request, user)
            return _language_response(redirect(_next(request)), user)
    context = {"form": form, "next": _next(request, "")}
    if refusal is not None and refusal.http_status == lockout.LOCKED_OUT:  # beside the form
        response = render(request, "accounts/sign_in.html", context, status=lockout.LOCKED_OUT)
        response["Retry-After"] = str(refusal.details["wait_seconds"])
        return response
    return render(request, "accounts/sign_in.html", context, status=400 if form.errors else 200)


def register(request: HttpRequest) -> HttpResponse:
    """Create an account (the same rules as the API's register) and sign in; a guest who
    registers becomes the account, keeping their games."""
    form = RegisterForm(request.POST or None)
    if request.method == "POST" and form.is_valid() and not throttled(request, form):
        try:
            guest = request.user if isinstance(request.user, User) else None  # a guest's
            user = services.user_register(**form.cleaned_data, guest=guest)
        except DomainError as error:
            field = {"username_invalid": "username", "username_taken": "username"}.get(
                error.code, "password"
            )
            form.add_error(field, error.message)
        else:
            login(request, user, backend="django.contrib.auth.backends.ModelBackend")
            return redirect(_next(request))
    status = 400 if form.errors else 200
    context = {
        "form": form,
        "next": _next(request, ""),
        "guest": getattr(request.user, "is_guest", False),
    }
    return render(request, "accounts/register.html", context, status=status)


@require_POST
def sign_out(request: HttpRequest) -> HttpResponse:
    """End the session (a POST with the CSRF token, never a link a page could fire)."""
    logout(request)
    return redirect(reverse("home"))


@require_POST
def language(request: HttpRequest) -> HttpResponse:
    """Switch the page language; a signed-in player's choice is kept on the account."""
    code = request.POST.get("language", "")
    if code not in dict(settings.LANGUAGES):
        code = settings.LANGUAGE_CODE
    user = request.user
    if isinstance(user, User):
        services.user_language_set(user=user, language=code)
    response = redirect(_next(request))
    response.set_cookie(
        settings.LANGUAGE_COOKIE_NAME,
        code,
        max_age=LANGUAGE_COOKIE_MAX_AGE,
        samesite="Lax",
        secure=request.is_secure(),
    )
    return response


def _language_response(response: HttpResponseRedirect, user: User) -> HttpResponseRedirect:
    """After sign-in, the browser's language cookie follows the player's kept choice."""
    if user.language:
        response.set_cookie(
            settings.LANGUAGE_COOKIE_NAME,
            user.language,
            max_age=LANGUAGE_COOKIE_MAX_AGE,
            samesite="Lax",
        )
    return response
