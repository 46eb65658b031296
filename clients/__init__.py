"""Programs that speak the protocol: the client library, robots, the terminal table."""
