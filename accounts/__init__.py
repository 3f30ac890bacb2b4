"""Users and API tokens, for humans and bots: the lowest Django layer."""
