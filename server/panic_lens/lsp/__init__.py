"""The language server (pygls): handlers in server.py, state in session.py, converters."""
