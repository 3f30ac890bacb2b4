"""The tournaments API, one module per resource; each handler parses, calls one service,
renders."""
