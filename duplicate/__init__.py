"""The ``duplicate`` command line: the director's tools and, later, the server."""
