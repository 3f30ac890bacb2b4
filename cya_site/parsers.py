"""The API's JSON parser: DRF's, refusing a body nested deeper than ``MAX_JSON_DEPTH``.

Python's json decoder recurses once per nested array or object, so a small body of 5,000
``[`` exhausted the interpreter's stack (RecursionError: a 500). The depth is measured
first, by a scan that never recurses, and a body too deep is refused before it is
decoded. No body the API takes is deeper than about 6 levels.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Mapping
from json import JSONDecodeError, JSONDecoder
from typing import IO, Any

from rest_framework import parsers
from rest_framework.exceptions import ParseError
from rest_framework.utils import json

from cya_site.errors import DomainError

MAX_JSON_DEPTH = 32
_STRING = re.compile(r'"[^"]*"')  # once escaped quotes are gone: a string is quote to quote
_NOT_BRACKETS = re.compile(r"[^\[\]{}]+")


def too_deep(text: str, limit: int = MAX_JSON_DEPTH) -> bool:
    """Whether ``text``'s arrays and objects nest deeper than ``limit`` levels.

    It never decodes or recurses: escapes and strings are dropped (brackets in a string
    are text), then the brackets left are counted. Exact for valid JSON; invalid text is
    counted alike up to where the decoder would fail, so it is never deeper than this.
    """
    if text.count("[") + text.count("{") <= limit:
        return False
    unescaped = text.replace("\\\\", "").replace('\\"', "")
    depth = 0
    for bracket in _NOT_BRACKETS.sub("", _STRING.sub("", unescaped)):
        depth += 1 if bracket in "[{" else -1
        if depth > limit:
            return True
    return False


class JSONParser(parsers.JSONParser):
    """DRF's JSONParser, refusing a body deeper than ``MAX_JSON_DEPTH`` with
    ``json_too_deep`` (400) before decoding it."""

    def parse(
        self,
        stream: IO[Any],
        media_type: str | None = None,
        parser_context: Mapping[str, Any] | None = None,
    ) -> Any:
        """The decoded body; ``malformed_json`` or ``json_too_deep`` if it cannot be."""
        # DRF's charset check, text encodings only (a bz2_codec body would expand past the
        # size limit); the function is missing from DRF's stubs
        encoding = parsers.get_encoding(parser_context or {})  # type: ignore[attr-defined]
        try:
            text = codecs.getreader(encoding)(stream).read()
        except ValueError as exc:
            raise ParseError(f"JSON parse error - {exc}") from None
        if too_deep(text):
            raise DomainError(
                "json_too_deep",
                f"The JSON body nests arrays and objects deeper than {MAX_JSON_DEPTH} levels.",
                {"max_depth": MAX_JSON_DEPTH},
                status=400,  # not JSON the API reads: the request's form, not a rule
            )
        try:
            return _decode(text, self.strict)
        except ValueError as exc:
            raise ParseError(f"JSON parse error - {exc}") from None


# Built once: json.loads builds a decoder on every call given a parse_constant (as DRF's
# strict wrapper always gives it), and building one cost a body more than decoding it.
_DECODERS = {True: JSONDecoder(parse_constant=json.strict_constant), False: JSONDecoder()}


def _decode(text: str, strict: bool) -> Any:
    """``json.loads(text)`` as DRF's wrapper runs it (``strict``: NaN and Infinity refused)."""
    if text.startswith("\ufeff"):  # as json.loads refuses it
        raise JSONDecodeError("Unexpected UTF-8 BOM (decode using utf-8-sig)", text, 0)
    return _DECODERS[strict].decode(text)
