"""axe-core in the browser tests: ``violations(page)`` runs it on the page as it stands
and returns what it finds (rule id, impact, the elements), for an assertion of none.

axe is evaluated through the browser's debugging protocol, not added to the page as a
script, so the page's Content-Security-Policy (no inline script) stays as it is served.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

from playwright.sync_api import Page

AXE = Path(__file__).resolve().parent / "vendor" / "axe-core" / "axe.min.js"
# WCAG 2.1 A and AA, and axe's best practices
TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"]


@cache
def _source() -> str:
    return AXE.read_text()


def violations(page: Page) -> list[dict[str, Any]]:
    """Every axe violation on the page now: ``{"id", "impact", "nodes": [selector]}``."""
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.evaluate(_source() + "\n;undefined")
    found: list[dict[str, Any]] = page.evaluate(
        """async (tags) => {
          const result = await window.axe.run(document, { runOnly: { type: "tag", values: tags } });
          return result.violations.map((v) => ({
            id: v.id, impact: v.impact, help: v.help,
            nodes: v.nodes.map((n) => n.target.join(" ") + " :: " + n.failureSummary),
          }));
        }""",
        TAGS,
    )
    return found
