"""The language server (pygls): handlers in server.py, state in session.py, converters.

Importing it first routes attrs' method compilation through `codecache`, before lsprotocol
(imported by every module here) defines its classes.
"""

from panic_lens.lsp import codecache

codecache.install()
