"""Bot entries, the webhook protocol, built-in strategies and the match runner."""
