"""Persistent games over the rules engine (games.engine, which never imports Django).

Keep this module empty: the engine may not import anything in games outside games.engine.
"""
