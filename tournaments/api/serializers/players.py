"""Output serializers of a player's profile (tournaments.players), and its query."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from cya_site.serializers import StrictInputSerializer


class PersonRatingChangeSerializer(serializers.Serializer[Any]):
    game = serializers.IntegerField()
    at = serializers.DateTimeField()
    place = serializers.IntegerField()
    table_size = serializers.IntegerField()
    expected_place = serializers.FloatField()
    rating_before = serializers.FloatField()
    rating_after = serializers.FloatField()
    explanation = serializers.CharField()


class PlayerRatingSerializer(serializers.Serializer[Any]):
    pool = serializers.CharField(help_text='"online", or the league\'s name')
    rating = serializers.FloatField(help_text="mu - 3 sigma, as the bot ladder ranks")
    mu = serializers.FloatField()
    sigma = serializers.FloatField()
    games = serializers.IntegerField()
    provisional = serializers.BooleanField()
    history = serializers.ListField(
        child=serializers.FloatField(), help_text="The rating after each rated game, in order"
    )
    changes = PersonRatingChangeSerializer(many=True, help_text="The latest changes, newest first")


class PlayerStatsSerializer(serializers.Serializer[Any]):
    games = serializers.IntegerField()
    average_place = serializers.FloatField(allow_null=True)
    wins = serializers.IntegerField()
    rounds_won = serializers.IntegerField()
    steals_tried = serializers.IntegerField()
    steals_won = serializers.IntegerField()
    defences = serializers.IntegerField()
    defences_won = serializers.IntegerField()
    biggest_stack = serializers.IntegerField(help_text="Most sets in the stack at a round's end")
    best_round = serializers.IntegerField(help_text="Most dollars in the stack at a round's end")
    favourite_asset = serializers.CharField(allow_null=True)
    logged_games = serializers.IntegerField(help_text="Digital games whose event log was read")


class OnlineGameSerializer(serializers.Serializer[Any]):
    game = serializers.IntegerField()
    status = serializers.CharField()
    rated = serializers.BooleanField()
    at = serializers.DateTimeField()
    table_size = serializers.IntegerField()
    place = serializers.IntegerField(allow_null=True)
    dollars = serializers.IntegerField(allow_null=True)
    rounds_won = serializers.IntegerField(allow_null=True)
    opponents = serializers.ListField(child=serializers.CharField())


class ClubGameSerializer(serializers.Serializer[Any]):
    game = serializers.IntegerField()
    mode = serializers.CharField()
    competition = serializers.CharField()
    kind = serializers.CharField()
    league = serializers.CharField(allow_null=True)
    night = serializers.DateField(allow_null=True)
    at = serializers.DateTimeField()
    table_size = serializers.IntegerField()
    place = serializers.IntegerField()
    dollars = serializers.IntegerField()
    rounds_won = serializers.IntegerField()


class RecordSerializer(serializers.Serializer[Any]):
    opponent = serializers.CharField()
    games = serializers.IntegerField()
    wins = serializers.IntegerField(help_text="Games the player finished above the opponent")
    losses = serializers.IntegerField()
    ties = serializers.IntegerField()


class MeetingSerializer(serializers.Serializer[Any]):
    game = serializers.IntegerField()
    place = serializers.IntegerField()
    their_place = serializers.IntegerField()


class HeadToHeadSerializer(RecordSerializer):
    meetings = MeetingSerializer(many=True)


class PlayerProfileSerializer(serializers.Serializer[Any]):
    name = serializers.CharField()
    guest = serializers.BooleanField(help_text="A roster guest: no account")
    leagues = serializers.ListField(child=serializers.CharField())
    ratings = PlayerRatingSerializer(many=True)
    stats = PlayerStatsSerializer()
    opponents = RecordSerializer(many=True, help_text="The accounts met most often")
    online_games = OnlineGameSerializer(
        many=True, help_text="The latest 50, newest first; every one a page at a time: games/"
    )
    club_games = ClubGameSerializer(
        many=True, help_text="The latest 50, newest first; every one a page at a time: club-games/"
    )


class HeadToHeadQuerySerializer(StrictInputSerializer):
    vs = serializers.CharField(max_length=150, help_text="The other player's username")
