"""The match server: a thin asyncio shell over the rules, the protocol and Redis."""
