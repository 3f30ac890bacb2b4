"""The base of every page form: plain labels, and a service's refusal beside its field."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from django import forms

from cya_site.errors import DomainError


class PageForm(forms.Form):
    """A form whose labels read as plain words (``Username``, not ``Username:``)."""

    # The field a service's refusal is shown beside, by its code, when it names none.
    error_fields: ClassVar[Mapping[str, str]] = {}

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("label_suffix", "")
        super().__init__(*args, **kwargs)

    def refuse(self, error: DomainError, fields: Mapping[str, str] | None = None) -> None:
        """Show a service's refusal beside the field it is about (``details.field``, or
        the field ``fields`` maps its code to), else above the form."""
        field = error.details.get("field") or {**self.error_fields, **(fields or {})}.get(
            error.code
        )
        self.add_error(field if field in self.fields else None, error.message)
