"""Joins the round clock and organiser entries (issue 27) with quick pairing (issue 29),
written side by side."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("tournaments", "0005_league_organiser_entries"),
        ("tournaments", "0005_quick_pairing"),
    ]

    operations = []
