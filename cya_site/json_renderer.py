"""The API's JSON renderer: the bytes DRF's JSONRenderer sends, encoded by orjson.

Every JSON answer of the API goes through the renderer; DRF's encodes with the standard
library's ``json`` and a Python ``default`` for what it cannot encode, which was a few
percent of an action's CPU. orjson encodes the same documents several times faster:

- compact, UTF-8, keys as given (DRF's ``COMPACT_JSON`` and ``UNICODE_JSON``, on here);
- an aware datetime at UTC offset zero ends in ``Z``, as DRF writes it; other values
  orjson does not know (lazy translations, Decimal, timedelta, bytes, sets, querysets)
  go through DRF's own encoder, so they come out as DRF would write them;
- U+2028 and U+2029 are escaped, as DRF does, so the JSON is also valid JavaScript;
- a number key is written as a string, as ``json.dumps`` does.

An indented rendering (``Accept: application/json; indent=4``, the browsable API) is
left to DRF's renderer: orjson indents by two spaces only. Floats may be spelt another
way (``1e-5`` for ``1e-05``): the same number.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson
from rest_framework import renderers
from rest_framework.utils.encoders import JSONEncoder

_OPTIONS = orjson.OPT_UTC_Z | orjson.OPT_NON_STR_KEYS
_default = JSONEncoder().default
_LINE_SEPARATOR, _PARAGRAPH_SEPARATOR = "\u2028".encode(), "\u2029".encode()


class JSONRenderer(renderers.JSONRenderer):  # noqa: TID251 - the one subclass
    """DRF's JSONRenderer with orjson doing the encoding (see the module docstring)."""

    def render(
        self,
        data: Any,
        accepted_media_type: str | None = None,
        renderer_context: Mapping[str, Any] | None = None,
    ) -> bytes:
        """``data`` as JSON bytes: what DRF's renderer answers, sooner."""
        if data is None:
            return b""
        if self.get_indent(accepted_media_type or "", renderer_context or {}) is not None:
            return super().render(data, accepted_media_type, renderer_context)  # type: ignore[no-any-return]
        out = orjson.dumps(data, default=_default, option=_OPTIONS)
        if _LINE_SEPARATOR in out or _PARAGRAPH_SEPARATOR in out:
            out = out.replace(_LINE_SEPARATOR, b"\\u2028").replace(_PARAGRAPH_SEPARATOR, b"\\u2029")
        return out
