"""A ``sorteio serve`` as it was before decks sent as text (docs/protocol.md "Decks sent as
text"), for the Godot nodes' tests: the real server, whose handler ignores ``deck_text`` as the
old one did (its ``new_match`` / ``load`` read only ``deck``, ``seed`` and ``state``) and whose
hello (a ``ping`` with ``lang``) answers no ``features``, as the old one did not know them.
Everything else is today's server. Run it as ``python tests/old_server.py`` with ``sorteio
serve``'s options (``--port 0 --port-file F``)."""

import sys

from sorteio.bridge import handler, server


class OldHandler(handler.RequestHandler):
    """Today's handler, answering as one that predates ``deck_text``."""

    def job(self, request):
        params = request.get("params") if isinstance(request, dict) else None
        if isinstance(params, dict) and "deck_text" in params:
            request = {**request, "params": {k: v for k, v in params.items() if k != "deck_text"}}
        return super().job(request)

    def _hello(self, request, reply):
        reply = super()._hello(request, reply)
        if reply.get("ok"):
            reply["result"].pop("features", None)
        return reply


server.RequestHandler = OldHandler

if __name__ == "__main__":
    sys.exit(server.main())
