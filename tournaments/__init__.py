"""Tournaments, leagues, ladders, ratings and standings."""
