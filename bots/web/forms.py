"""Forms of the bot pages: they parse what was typed; bots.services decides.

A service's refusal (a DomainError) is shown beside the field it is about
(``cya_site.forms.PageForm.refuse``), with what was typed kept.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from django import forms
from django.utils.translation import gettext_lazy as _

from bots.models import Bot
from bots.strategies import STRATEGIES
from cya_site import outbound
from cya_site.forms import PageForm

SECRET_MIN = 16  # as bots.services.version_create asks

KINDS = {
    Bot.Kind.WEBHOOK: _("Webhook: the platform calls your bot's URL"),
    Bot.Kind.API_CLIENT: _("API client: your bot calls the platform's action API"),
    Bot.Kind.BUILTIN: _("Built-in strategy, run by the platform (staff only)"),
}


class BotForm(PageForm):
    """Register a bot: its name, how it plays, what it is."""

    error_fields: ClassVar[Mapping[str, str]] = {
        "invalid_bot_name": "name",
        "bot_name_taken": "name",
        "invalid_bot_kind": "kind",
        "permission_denied": "kind",
    }

    name = forms.CharField(
        label=_("Name"),
        max_length=40,
        help_text=_("2-40 letters, digits, '-' or '_'; it plays as the account bot.<name>."),
    )
    kind = forms.ChoiceField(label=_("How it plays"), widget=forms.RadioSelect)
    description = forms.CharField(
        label=_("Description"), max_length=500, required=False, widget=forms.Textarea({"rows": 3})
    )
    name.widget.attrs.update(autocomplete="off", autocapitalize="none", spellcheck="false")

    def __init__(self, *args: Any, staff: bool = False, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        kinds = [Bot.Kind.WEBHOOK, Bot.Kind.API_CLIENT] + ([Bot.Kind.BUILTIN] if staff else [])
        field = self.fields["kind"]
        assert isinstance(field, forms.ChoiceField)
        field.choices = [(kind.value, KINDS[kind]) for kind in kinds]
        field.initial = Bot.Kind.WEBHOOK


class VersionForm(PageForm):
    """A new version of a bot, with the fields its kind takes: a webhook's URL and secret,
    a built-in's strategy, an API client's tag alone."""

    error_fields: ClassVar[Mapping[str, str]] = {
        "webhook_address_refused": "url",
        "webhook_host_not_found": "url",
        "unknown_strategy": "strategy",
    }

    tag = forms.CharField(
        label=_("Tag"),
        max_length=60,
        required=False,
        help_text=_("Your name for this version, such as a commit or 'v2'."),
    )
    url = forms.CharField(
        label=_("Webhook URL"),
        max_length=500,
        help_text=_("http:// or https://, at a public internet address."),
    )
    secret = forms.CharField(
        label=_("Secret"),
        min_length=SECRET_MIN,
        max_length=200,
        strip=False,
        error_messages={"min_length": _("A webhook secret needs 16 characters or more.")},
        help_text=_(
            "16 characters or more: type your own, or generate one. It signs every request "
            "to your bot and is never shown again: set it on your bot's server before you save."
        ),
    )
    strategy = forms.ChoiceField(
        label=_("Strategy"), choices=[(name, name) for name in sorted(STRATEGIES)]
    )
    url.widget.attrs.update(autocomplete="off", inputmode="url", spellcheck="false")
    secret.widget.attrs.update(autocomplete="off", spellcheck="false")

    def clean_url(self) -> str:
        """The URL's form, judged with the other fields (the service then resolves it)."""
        url: str = self.cleaned_data["url"]
        problem = outbound.url_form_problem(url)
        if problem is not None:
            raise forms.ValidationError(problem, code="invalid")
        return url

    def __init__(self, *args: Any, kind: str, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        keep = {"tag"} | {
            Bot.Kind.WEBHOOK: {"url", "secret"},
            Bot.Kind.BUILTIN: {"strategy"},
        }.get(Bot.Kind(kind), set())
        for name in set(self.fields) - keep:
            del self.fields[name]


class TokenForm(PageForm):
    """A token for an API-client bot: a name to tell it apart by."""

    name = forms.CharField(
        label=_("Token name"),
        max_length=100,
        initial="bot",
        help_text=_("Where it will be used, such as 'laptop'."),
    )
    name.widget.attrs.update(autocomplete="off")


class AlertsForm(PageForm):
    """The webhook told when a version of the bot is paused (bots.health)."""

    error_fields: ClassVar[Mapping[str, str]] = {
        "webhook_address_refused": "url",
        "webhook_host_not_found": "url",
    }

    url = forms.CharField(
        label=_("Alert webhook URL"),
        max_length=500,
        required=False,
        help_text=_(
            "Optional. Told (a POST of JSON) when a version is paused; leave empty for none. "
            "An email goes to your account's address too, if it has one."
        ),
    )
    url.widget.attrs.update(autocomplete="off", inputmode="url", spellcheck="false")
