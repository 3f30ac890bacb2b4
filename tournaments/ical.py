"""An iCalendar (RFC 5545) feed of a league's game nights: pure, values in, text out.

Each night is an all-day event (a night has a date, not yet a time), with its venue, its
notes and its page's address; its UID is stable, so a calendar that subscribed updates
the night in place when its venue or notes change.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, datetime, timedelta

PRODID = "-//Cover Your Assets club platform//game nights//EN"


@dataclass(frozen=True)
class Event:
    """One night as the feed states it."""

    uid: str
    day: date
    summary: str
    location: str
    description: str
    url: str


def _escape(text: str) -> str:
    """TEXT values (RFC 5545 3.3.11): backslash, semicolon, comma and newline escaped."""
    return (
        text.replace("\\", "\\\\")
        .replace(";", "\\;")
        .replace(",", "\\,")
        .replace("\r\n", "\\n")
        .replace("\n", "\\n")
    )


def _fold(line: str) -> str:
    """Lines longer than 75 octets continue on the next line after a space (3.1)."""
    data = line.encode()
    parts: list[str] = []
    while len(data) > 75:
        cut = 75 if not parts else 74
        while cut and (data[cut] & 0xC0) == 0x80:  # never split a UTF-8 character
            cut -= 1
        parts.append(data[:cut].decode())
        data = data[cut:]
    parts.append(data.decode())
    return "\r\n ".join(parts)


def calendar(name: str, events: Iterable[Event], *, stamp: datetime) -> str:
    """The feed: one VEVENT a night, CRLF line ends, folded lines."""
    lines = [
        "BEGIN:VCALENDAR",
        "VERSION:2.0",
        f"PRODID:{PRODID}",
        "CALSCALE:GREGORIAN",
        "METHOD:PUBLISH",
        f"X-WR-CALNAME:{_escape(name)}",
    ]
    stamped = stamp.strftime("%Y%m%dT%H%M%SZ")
    for event in events:
        lines += [
            "BEGIN:VEVENT",
            f"UID:{event.uid}",
            f"DTSTAMP:{stamped}",
            f"DTSTART;VALUE=DATE:{event.day:%Y%m%d}",
            f"DTEND;VALUE=DATE:{event.day + timedelta(days=1):%Y%m%d}",
            f"SUMMARY:{_escape(event.summary)}",
        ]
        if event.location:
            lines.append(f"LOCATION:{_escape(event.location)}")
        if event.description:
            lines.append(f"DESCRIPTION:{_escape(event.description)}")
        lines += [f"URL:{event.url}", "END:VEVENT"]
    lines.append("END:VCALENDAR")
    return "".join(_fold(line) + "\r\n" for line in lines)
