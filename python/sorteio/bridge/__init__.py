"""Bridges between the sorteio core and Godot 3: one request handler, two transports.

- ``handler``: ``RequestHandler``, the single place that turns requests into engine calls.
- ``server``: the loopback socket server (``sorteio serve``), framed JSON with a token.
- ``portfile``: the server's port file and start-up error file, written without following links.
- ``inprocess``: what the godot-python script calls (JSON text in, JSON text out).
- ``protocol``: framing, reply shapes and error codes shared by both.

Nothing here imports ``godot``; the only file that does is
``addons/sorteio/python/sorteio_python_bridge.py`` in the Godot addon.
"""
