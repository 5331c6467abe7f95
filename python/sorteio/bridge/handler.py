"""The one request handler behind both Godot bridges (socket and in-process godot-python).

It turns a request dict into a reply dict and never raises: a malformed request, an unknown
method, a wrong token, a rule the engine refuses or a bug all become error replies, so a bridge
keeps serving. The rules stay in ``sorteio.engine``; this module only translates.

Methods (``params`` in brackets; every result carries ``snapshot`` = ``Engine.snapshot()``):

- ``ping`` -> ``{"pong": true, "protocol": 1}`` (with ``lang``: also ``"lang"``, ``"languages"``
  and ``"features": ["deck_text"]``; a server older than ``deck_text`` answers no ``features``)
- ``new_match`` [``deck``: path or built-in name or null, ``seed``: int or null, ``deck_text``:
  the deck's JSON text or null (``deck`` then only names it)]
  -> ``{"seed", "deck": <summary>, "snapshot"}``; a deck with no drawable card is ``empty_deck``
- ``start_turn`` -> ``{"turn": TurnStart, "snapshot"}``
- ``draw`` -> ``{"draw": Draw or null, "turn_end": TurnEnd or null, "ending": MatchEnd or null,
  "snapshot"}``; a null draw means the engine closed the turn
- ``choose`` [``option``: index into ``card.opcoes``]
  -> ``{"choice": Choice, "ending", "snapshot"}``
- ``save`` -> ``{"state": <JSON-safe dict for load>}``
- ``end_match`` -> ``{"ended": bool}`` (no snapshot): drops the match in play, if any (the node's
  ``abandon_match()``); then the match methods answer ``no_match`` again
- ``load`` [``state``: a dict from save, ``deck_text`` as in ``new_match``] -> same as
  ``state``, plus ``deck_update``: what adapting a save of another version of the deck changed,
  one sentence each (``[]`` when the save was made with this deck; README "Determinism and saved
  matches")
- ``state`` -> ``{"seed", "deck": <summary>, "pending": Draw or null, "ending", "snapshot"}``

Language (issue 15): any request may carry ``"lang": "pt-BR"|"en"`` (also ``pt``, ``pt_BR``,
``en_US``...) beside ``method``; from that request on, the session (this handler: one game, one
editor panel) speaks it: every ``texto``, every error ``message``. Without it the session speaks
the process's language (``SORTEIO_LANG``, else the system locale, else pt-BR), so an old client
keeps working. Error ``code``s never change with the language.

Texts for people come from ``sorteio.wording``, with the deck's names: every ``reason`` (of
``draw`` and ``pending``) carries ``texto`` (``obrigatória: emergência de Dignidade ...``), every
``turn.mandatory`` row and every ``ending`` too; the deck summary lists ``modos`` ``[{id, nome}]``.

Slow work stays off the socket server's event loop: ``job(request)`` splits a request into
``work`` (what may take long: read a deck file, compile a big deck; it touches no handler state,
so it may run in another thread) and ``finish`` (commit and reply, in the handler's own thread).
``handle(request)`` runs both in place. Methods listed in ``_background`` are split that way;
every other method runs whole in ``finish``.

The designers' requests (the Godot editor panel; no snapshot, no match needed; see
``sorteio.bridge.designer`` for params and results):

- ``validate`` [``deck``] -> every problem of the deck at once, one row each
- ``lint`` [``deck``] -> the coverage report
- ``preview`` [``deck``, ``state``: saved match path or null, ``seed``, ``policy``] -> next turn
- ``simulate_start`` [``deck``, ``matches``, ``seed``, ``policy``, ``sweep``] -> ``{"job", ...}``
- ``simulate_step`` [``job``, ``budget_ms``] -> progress, then the result
- ``simulate_cancel`` [``job``]
- ``sheet_export`` [``deck``, ``sheet``: .xlsx or .csv path] -> the file written, warnings
- ``sheet_import`` [``sheet``, ``out``: .json path] -> every problem by cell, or the deck written
- ``deck_table`` [``deck``, ``offset``, ``limit``] -> the card table's rows
- ``deck_edit`` [``deck``, ``edits``, ``expect``] -> writes the deck file, validates it
"""

import hmac
import math
import secrets
import sys
import traceback
from typing import Any, Callable, Dict, NamedTuple, Optional, Tuple

from .. import __version__, i18n
from ..errors import NotASavedMatch
from ..i18n import _
from ..loader import (
    DeckError,
    NoDrawableCardError,
    SorteioError,
    load_deck,
    require_drawable,
    resolve_deck_path,
)
from ..pieces import stop_point
from ..wording import Names, ending_with_text, obligations_with_texts, with_texts
from . import protocol

PROTOCOL_VERSION = 1
# The editor panel's requests (sorteio.bridge.designer), dispatched like the others.
DESIGNER_METHODS = ("validate", "lint", "preview", "simulate_start", "simulate_step",
                    "simulate_cancel", "sheet_export", "sheet_import",
                    "deck_table", "deck_edit")
# What this handler takes beyond protocol 1's first release, answered by ``ping`` so a newer
# game can tell an older ``sorteio serve`` (which answers no ``features``) and send it only what
# it reads: ``deck_text`` (new_match / load take a deck's JSON text, "Decks sent as text").
FEATURES = ("deck_text",)
STATE_FORMAT = 1
SEED_LIMIT = 2**31  # seeds fit a Godot int and a JSON number exactly


class RequestError(Exception):
    """A request refused before reaching the engine: ``code`` and a message for the reply."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def _default_engine_cls() -> Any:
    # The oracle itself (issue 16): a bitmask copy of the rules saved ~15 us of a ~100 us draw
    # request, which no player feels, and cost every rule fix a fourth copy.
    from ..engine import Engine

    return Engine


def _load_engine(engine_cls: Any, deck: Any, data: Any) -> Tuple[Any, list]:
    """``(engine, deck_update notes)``: a save of an earlier version of the deck is adapted to
    it (``sorteio.upgrade``), the notes saying what changed, for the game to log. An injected
    engine class with its own ``from_state`` loads with it (and gives no notes)."""
    from ..engine import Engine
    from ..state import restore_state

    if getattr(engine_cls.from_state, "__func__", None) is not Engine.from_state.__func__:
        return engine_cls.from_state(deck, data), []
    engine = engine_cls(deck)
    return engine, restore_state(engine, data)


def _format_problem(found: Any) -> str:
    """Why a saved state of format ``found`` (not ``STATE_FORMAT``) cannot load, and what to do:
    a higher whole number is a save by a newer sorteio than this one; anything else no sorteio
    writes (every version so far writes format 1)."""
    if isinstance(found, int) and not isinstance(found, bool) and found > STATE_FORMAT:
        return _("this save is newer than this game: it is saved state format {found}, written "
                 "by a newer version of sorteio, and this one ({version}) reads format "
                 "{expected}; update the game's sorteio addon to load it").format(
                     found=found, version=__version__, expected=STATE_FORMAT)
    return _("saved state format {found!r} is not one any sorteio writes (this version, "
             "{version}, writes and reads format {expected}): the save is damaged or was not "
             "made by save; use a state that save returned, unchanged").format(
                 found=found, version=__version__, expected=STATE_FORMAT)


def _id_problem(value: Any) -> Optional[str]:
    """Why ``value`` cannot be echoed back as a request id (None when it can)."""
    if isinstance(value, float) and not math.isfinite(value):
        return _("'id' must be a finite number, a string or null")
    if isinstance(value, str) and protocol.lone_surrogate(value):
        return _("'id' must be valid text (it holds a lone surrogate)")
    if value is None or isinstance(value, (str, int, float)):
        return None
    # Echoed back as is, so it must be plain: a nested id could not even be re-encoded.
    return _("'id' must be a number, a string or null")


def _deck_text(params: Dict[str, Any]) -> Optional[str]:
    """The ``deck_text`` param of ``new_match`` / ``load``: the deck's JSON text, which a game
    sends for a deck inside its pack instead of writing a copy Python could read (issue 14: a
    game killed mid-request leaves no copy). The deck's name (``deck``) then only names it."""
    text = params.get("deck_text")
    if text is not None and not isinstance(text, str):
        raise RequestError(protocol.BAD_REQUEST, _("'deck_text' must be the deck's JSON text "
                                                   "or null"))
    return text


def _named_source(source: Optional[str], text: Optional[str]) -> str:
    """How a message names the deck of a request, as ``load_deck`` names it."""
    if text is not None:
        return source if source and source.strip() else "(deck)"
    return str(resolve_deck_path(source or None))


def _dict(value: Any) -> Optional[Dict[str, Any]]:
    return None if value is None else value.to_dict()


def deck_summary(deck: Any, source: Optional[str]) -> Dict[str, Any]:
    """What a display needs to know about a deck: names of meters, actors, levels and modes
    (``modos``: every mode the cards use, named by the deck's ``modos`` or by its id)."""
    return {
        "nome": deck.nome,
        "source": source,
        "cartas_por_turno": deck.parametros.cartas_por_turno,
        # GDD 06 §3.3: a meter at or below limite_emergencia asks an emergency card; one below
        # limite_medidor pulls a linked card (the demo colors its meter bars by them).
        "limite_emergencia": deck.parametros.limite_emergencia,
        "limite_medidor": deck.parametros.limite_medidor,
        "cards": len(deck.cartas),
        # Cards the draw can ever show (the rest are placeholders the rules skip, GDD 06 §3.1).
        "playable": sum(1 for c in deck.cartas if c.playable),
        "medidores": [{"id": m.id, "nome": m.nome, "inicial": m.inicial} for m in deck.medidores],
        "atores": [
            {"id": a.id, "nome": a.nome, "satisfacao_inicial": a.satisfacao_inicial}
            for a in deck.atores
        ],
        "niveis": [
            {
                "id": lv.id,
                "nome": lv.nome,
                "minimo": lv.minimo,
                "maximo": lv.maximo,
                "funcao": lv.funcao,
            }
            for lv in deck.niveis
        ],
        "modos": Names.of(deck).mode_list(),
    }


def describe(deck: Any, source: Optional[str], engine: Any, seed: Optional[int]) -> Dict[str, Any]:
    """The ``state`` result of a match (also what ``load`` answers); the pending card's reason
    and the ending carry their ``texto`` (``sorteio.wording``)."""
    names = Names.of(deck)
    return {
        "seed": seed,
        "deck": deck_summary(deck, source),
        # The card awaiting a choice is the engine's own (saved with it), not a copy.
        "pending": with_texts(names, _dict(engine.current)),
        "ending": ending_with_text(names, _dict(engine.ending)),
        "snapshot": engine.snapshot(),
    }


class Outcome(NamedTuple):
    """What ``Job.run`` gives ``Job.finish``: the work's value, or the exception it raised."""

    value: Any = None
    error: Optional[BaseException] = None


class Job:
    """One request, split so that a server need not block on it (see the module docstring).

    ``slow``: True when ``work`` may take long (the socket server then runs it in a thread with a
    time bound); ``run()`` never raises; ``finish(outcome)`` returns the reply and never raises.
    """

    def __init__(
        self,
        handler: "RequestHandler",
        request_id: Any,
        work: Optional[Callable[[], Any]] = None,
        commit: Optional[Callable[[Any], Dict[str, Any]]] = None,
        reply: Optional[Dict[str, Any]] = None,
        lang: Optional[str] = None,
    ) -> None:
        self.handler = handler
        # The session's language when the request came: work and commit speak it, in whichever
        # thread they run (a language is per thread, i18n.use).
        self.lang = lang or i18n.current()
        self.request_id = request_id
        self.slow = work is not None
        self._work = work
        self._commit = commit
        self._reply = reply

    def run(self) -> Outcome:
        if self._work is None:
            return Outcome()
        try:
            with i18n.use(self.lang):
                return Outcome(self._work())
        except Exception as exc:
            return Outcome(error=exc)

    def finish(self, outcome: Outcome) -> Dict[str, Any]:
        if self._reply is not None:
            return self._reply
        if outcome.error is not None:
            return self.handler.error_reply(self.request_id, outcome.error)
        try:
            with i18n.use(self.lang):
                return protocol.ok_reply(self.request_id, self._commit(outcome.value))
        except Exception as exc:
            return self.handler.error_reply(self.request_id, exc)


def reply_text(reply: Dict[str, Any]) -> str:
    """A reply dict as the JSON text the in-process bridges hand to Godot. Never raises."""
    try:
        return protocol.encode_text(reply)
    except protocol.FrameError as exc:  # not expected: ids are scalars, results plain data
        return protocol.encode_text(protocol.error_reply(None, protocol.INTERNAL_ERROR, str(exc)))


class RequestHandler:
    """Holds one match (deck + engine) and answers requests about it.

    ``token``: when set, every request must carry it (the socket bridge sets one per launch;
    the in-process bridge has no other client and passes None).
    ``engine_cls``: the engine class (``sorteio.engine.Engine``, the oracle, unless a caller
    injects another).
    """

    def __init__(self, token: Optional[str] = None, engine_cls: Any = None) -> None:
        self.token = token
        # The session's language once a request named one (``lang``); None: the process's.
        self.lang: Optional[str] = None
        self._engine_cls = engine_cls
        self.deck: Any = None
        self.deck_source: Optional[str] = None
        self.names: Names = Names({}, {}, {}, {})
        # Validate a deck's cards in pieces (``load_deck(in_pieces=True)``): the in-process
        # bridge's work thread sets it, so the game's frame gets the GIL between pieces.
        self.load_in_pieces = False
        self.engine: Any = None
        self.seed: Optional[int] = None
        self._methods: Dict[str, Callable[[Dict[str, Any]], Dict[str, Any]]] = {
            "ping": self._ping,
            "new_match": self._new_match,
            "start_turn": self._start_turn,
            "draw": self._draw,
            "choose": self._choose,
            "save": self._save,
            "load": self._load,
            "state": self._state,
            "end_match": self._end_match,
        }
        # Methods whose slow part runs off the socket server's event loop: name -> (work, finish).
        # ``work(params)`` may take long and must not touch ``self``; ``finish(work's value)``
        # commits and returns the result (the identity for a method that changes nothing, such as
        # checking a deck). Each is also in ``_methods`` (run whole, in place).
        self._background: Dict[str, Tuple[Callable[[Dict[str, Any]], Any], Callable]] = {
            "new_match": (self._prepare_new_match, self._start_match),
            "load": (self._prepare_load, self._start_match),
        }
        self._simulations: Any = None  # designer.Simulations, made at the first simulate_*
        for name in DESIGNER_METHODS:
            self._methods[name] = self._designer(name)

    @property
    def methods(self) -> list:
        return sorted(self._methods)

    # -- entry points -------------------------------------------------------------------

    def handle_json(self, text: str) -> str:
        """In-process bridge entry: request JSON text in, reply JSON text out."""
        job = self.job_from_text(text)
        return reply_text(job.finish(job.run()))

    def job_from_text(self, text: str, deck_text: Optional[str] = None) -> Job:
        """``job`` for a request given as JSON text (text that is not a JSON request gives a job
        whose ``finish`` returns the error reply). ``deck_text``, when given, becomes the
        request's ``params.deck_text``: the Godot 4 in-process entry hands a deck's text beside
        the request, as Godot escaping megabytes into the JSON (and Python reading them back)
        took the game's frame ~0.5 s for 30,000 cards. Never raises."""
        try:
            with i18n.use(self.lang or i18n.current()):
                request = protocol.decode_text(text)
        except protocol.FrameError as exc:
            return Job(self, None, reply=protocol.error_reply(None, exc.code, str(exc)))
        if deck_text is not None and isinstance(request, dict):
            params = request.get("params")
            request["params"] = dict(params if isinstance(params, dict) else {},
                                     deck_text=str(deck_text))
        return self.job(request)

    def handle(self, request: Any) -> Dict[str, Any]:
        """Answer one decoded request, all in the calling thread. Never raises."""
        job = self.job(request)
        return job.finish(job.run())

    def job(self, request: Any) -> Job:
        """Check one decoded request and split it into a ``Job``. Never raises; a refused
        request gives a job whose ``finish`` returns the error reply."""
        bad_lang = self._choose_language(request)
        with i18n.use(self.lang or i18n.current()):
            request_id = request.get("id") if isinstance(request, dict) else None
            problem = _id_problem(request_id)
            if problem is not None:
                return Job(self, None,
                           reply=protocol.error_reply(None, protocol.BAD_REQUEST, problem))
            try:
                method, params = self._check(request)
                if bad_lang is not None:
                    raise bad_lang()
            except RequestError as exc:
                return Job(self, request_id, reply=self.error_reply(request_id, exc))
        if method in self._background:
            work, finish = self._background[method]
            return Job(self, request_id, work=lambda: work(params), commit=finish, lang=self.lang)
        if method == "ping":
            pong = protocol.ok_reply(request_id, self._ping(params))
            return Job(self, request_id, lang=self.lang, reply=self._hello(request, pong))
        return Job(self, request_id, commit=lambda _: self._methods[method](params),
                   lang=self.lang)

    def error_reply(self, request_id: Any, exc: BaseException) -> Dict[str, Any]:
        """The reply for an exception raised while answering; a bug is printed, not fatal."""
        if isinstance(exc, RequestError):
            return protocol.error_reply(request_id, exc.code, str(exc))
        if isinstance(exc, NoDrawableCardError):
            return protocol.error_reply(request_id, protocol.EMPTY_DECK, str(exc))
        if isinstance(exc, DeckError):
            return protocol.error_reply(request_id, protocol.DECK_ERROR, str(exc))
        if isinstance(exc, SorteioError):
            return protocol.error_reply(request_id, protocol.RULE_ERROR, str(exc))
        # A bug must not take the bridge down (its message is Python's, not translated).
        traceback.print_exception(type(exc), exc, exc.__traceback__, file=sys.stderr)
        message = f"{type(exc).__name__}: {exc}"
        return protocol.error_reply(request_id, protocol.INTERNAL_ERROR, message)

    def authorized(self, request: Any) -> bool:
        """True when no token is required or the request carries the right one."""
        if self.token is None:
            return True
        token = request.get("token") if isinstance(request, dict) else None
        if not isinstance(token, str):
            return False
        # surrogatepass: a token holding a lone surrogate is simply a wrong token.
        given = token.encode("utf-8", "surrogatepass")
        return hmac.compare_digest(given, self.token.encode("utf-8", "surrogatepass"))

    def _check(self, request: Any) -> Any:
        if not isinstance(request, dict):
            raise RequestError(protocol.BAD_REQUEST, _("a request must be a JSON object"))
        if not self.authorized(request):
            raise RequestError(protocol.UNAUTHORIZED, _("missing or wrong token"))
        checked = {k: v for k, v in request.items() if k != "token"}
        params = checked.get("params")
        if isinstance(params, dict) and isinstance(params.get("deck_text"), str):
            # A deck's text is the deck loader's to check, as a file's (a lone surrogate in it is
            # a deck problem naming its card and field); scanning megabytes here as well would
            # cost the in-process bridge's caller ~0.2 s for a 30,000-card deck.
            checked["params"] = {k: v for k, v in params.items() if k != "deck_text"}
        surrogate = protocol.lone_surrogate(checked)
        if surrogate is not None:
            where, escape = surrogate
            raise RequestError(
                protocol.BAD_REQUEST,
                _("'{field}' is not valid text: it holds a lone surrogate ({escape}); a JSON "
                  "\\u escape of a surrogate must be one of a pair").format(field=where,
                                                                           escape=escape),
            )
        method = request.get("method")
        if not isinstance(method, str):
            raise RequestError(protocol.BAD_REQUEST, _("a request needs a 'method' string"))
        if method not in self._methods:
            known = ", ".join(self.methods)
            raise RequestError(
                protocol.UNKNOWN_METHOD,
                _("unknown method '{method}' (known: {known})").format(method=method, known=known),
            )
        params = request.get("params")
        if params is None:
            params = {}
        if not isinstance(params, dict):
            raise RequestError(protocol.BAD_REQUEST, _("'params' must be a JSON object"))
        return method, params

    def _choose_language(self, request: Any) -> Optional[Any]:
        """A request's ``lang`` becomes the session's language, from this request on (only with
        the right token: a stranger cannot change it). A tag that names no language of ours
        changes nothing; its ``bad_request`` message is returned (as a zero-argument callable,
        said in the session's language) for ``job`` to reply."""
        if not isinstance(request, dict) or request.get("lang") is None:
            return None
        if not self.authorized(request):
            return None  # the token check refuses the request
        given = request["lang"]
        lang = i18n.normalize(given)
        if lang is None:
            return lambda: RequestError(protocol.BAD_REQUEST, _(
                "'lang' must be one of {choices} (or a locale such as pt_BR or en_US), not "
                "{value!r}").format(choices=", ".join(i18n.LANGUAGES), value=given))
        self.lang = lang
        return None

    # -- helpers --------------------------------------------------------------------------

    def _designer(self, name: str) -> Callable[[Dict[str, Any]], Dict[str, Any]]:
        """The designer request ``name``; its own refusals (``DesignerError``) become request
        errors. ``designer`` (lint, sweeps, reports) is imported at the first such request: a
        game never pays for it (it adds ~0.2 s to the handler's import)."""

        def call(params: Dict[str, Any]) -> Dict[str, Any]:
            from . import designer

            if name.startswith("simulate_"):
                if self._simulations is None:
                    self._simulations = designer.Simulations()
                method = getattr(self._simulations, name[len("simulate_"):])
            else:
                method = getattr(designer, name)
            try:
                return method(params)
            except designer.DesignerError as exc:
                raise RequestError(exc.code, str(exc)) from None

        return call

    @property
    def engine_cls(self) -> Any:
        if self._engine_cls is None:
            self._engine_cls = _default_engine_cls()
        return self._engine_cls

    def _engine(self) -> Any:
        if self.engine is None:
            # The nodes' names first: a game programmer calls those, not the requests (issue 14).
            raise RequestError(protocol.NO_MATCH, _(
                "no match: call start_match() or load_state() first (the requests new_match or "
                "load)"))
        return self.engine

    def _ending(self) -> Optional[Dict[str, Any]]:
        return ending_with_text(self.names, _dict(self.engine.ending))

    def _draw_dict(self, drawn: Any) -> Optional[Dict[str, Any]]:
        return with_texts(self.names, _dict(drawn))

    def _snapshot(self) -> Dict[str, Any]:
        return self.engine.snapshot()

    @staticmethod
    def _int_param(params: Dict[str, Any], name: str, required: bool) -> Optional[int]:
        value = params.get(name)
        if value is None and not required:
            return None
        # JSON from Godot may carry 3.0 for 3; bool is an int subclass and is refused.
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if not isinstance(value, int) or isinstance(value, bool):
            raise RequestError(protocol.BAD_REQUEST,
                               _("'{name}' must be an integer").format(name=name))
        return value

    # -- methods --------------------------------------------------------------------------

    def _ping(self, params: Dict[str, Any]) -> Dict[str, Any]:
        return {"pong": True, "protocol": PROTOCOL_VERSION}

    def _hello(self, request: Dict[str, Any], reply: Dict[str, Any]) -> Dict[str, Any]:
        """A ``ping`` that carried ``lang`` (the hello of a client that names its language) also
        answers the session's language and the ones we have, and ``features``: what this handler
        takes that older servers did not (``FEATURES``); an old client's ping is unchanged."""
        if reply.get("ok") and request.get("method") == "ping" and request.get("lang") is not None:
            reply["result"].update(lang=self.lang, languages=list(i18n.LANGUAGES),
                                   features=list(FEATURES))
        return reply

    def _new_match(self, params: Dict[str, Any]) -> Dict[str, Any]:
        return self._start_match(self._prepare_new_match(params))

    def _start_match(self, prepared: Tuple[Any, ...]) -> Dict[str, Any]:
        # The commit of new_match / load: swap the whole match at once; the result was built
        # with it.
        self.deck, self.deck_source, self.engine, self.seed, result = prepared
        self.names = Names.of(self.deck)
        return result

    def _prepare_new_match(self, params: Dict[str, Any]) -> Tuple[Any, ...]:
        source = params.get("deck")
        if source is not None and not isinstance(source, str):
            raise RequestError(protocol.BAD_REQUEST, _("'deck' must be a path, a name or null"))
        seed = self._int_param(params, "seed", required=False)
        if seed is None:
            seed = secrets.randbelow(SEED_LIMIT)
        elif not 0 <= seed < SEED_LIMIT:
            raise RequestError(
                protocol.BAD_REQUEST,
                _("'seed' must be from 0 to {most}, not {seed}").format(most=SEED_LIMIT - 1,
                                                                        seed=seed),
            )
        text = _deck_text(params)
        deck = load_deck(source or None, in_pieces=self.load_in_pieces, text=text)
        # GDD 06 §1: a match draws its cards from the deck; one with none would be 0 cards long.
        require_drawable(deck, _named_source(source, text))
        stop_point()  # the in-process bridge closed meanwhile: no engine to build (issue 13)
        engine = self.engine_cls(deck, seed=seed)
        result = {
            "seed": seed,
            "deck": deck_summary(deck, source or None),
            "snapshot": engine.snapshot(),
        }
        return deck, source or None, engine, seed, result

    def _start_turn(self, params: Dict[str, Any]) -> Dict[str, Any]:
        turn = self._engine().start_turn().to_dict()
        turn["mandatory"] = obligations_with_texts(self.names, turn["mandatory"])
        return {"turn": turn, "snapshot": self._snapshot()}

    def _draw(self, params: Dict[str, Any]) -> Dict[str, Any]:
        engine = self._engine()
        drawn = engine.draw()
        draw = self._draw_dict(drawn)
        turn_end = None if drawn is not None else _dict(engine.last_turn_end)
        return {
            "draw": draw,
            "turn_end": turn_end,
            "ending": self._ending(),
            "snapshot": self._snapshot(),
        }

    def _choose(self, params: Dict[str, Any]) -> Dict[str, Any]:
        engine = self._engine()
        option = self._int_param(params, "option", required=True)
        choice = engine.choose(option)
        return {"choice": choice.to_dict(), "ending": self._ending(), "snapshot": self._snapshot()}

    def _save(self, params: Dict[str, Any]) -> Dict[str, Any]:
        engine = self._engine()
        state = {
            "format": STATE_FORMAT,
            "deck": self.deck_source,
            "seed": self.seed,
            "engine": engine.to_state(),
        }
        return {"state": state}

    def _load(self, params: Dict[str, Any]) -> Dict[str, Any]:
        return self._start_match(self._prepare_load(params))

    def _prepare_load(self, params: Dict[str, Any]) -> Tuple[Any, ...]:
        state = params.get("state")
        if not isinstance(state, dict) or not isinstance(state.get("engine"), dict):
            raise RequestError(protocol.BAD_REQUEST, _("'state' must be a dict returned by save"))
        if state.get("format") != STATE_FORMAT:
            raise RequestError(protocol.BAD_REQUEST, _format_problem(state.get("format")))
        source = state.get("deck")
        if source is not None and not isinstance(source, str):
            raise RequestError(protocol.BAD_REQUEST,
                               _("saved 'deck' must be a path, a name or null"))
        deck = load_deck(source or None, in_pieces=self.load_in_pieces,
                         text=_deck_text(params))
        stop_point()  # the in-process bridge closed meanwhile (issue 13)
        try:
            engine, notes = _load_engine(self.engine_cls, deck, state["engine"])
        except NotASavedMatch as exc:  # one sentence naming the field, not one per field
            raise RequestError(protocol.BAD_REQUEST, _(
                "the saved state's 'engine' is not a saved match ({count} of the {total} fields "
                "it holds are missing: {fields}): load the 'state' that save returned, "
                "unchanged").format(count=len(exc.missing), total=exc.total,
                                    fields=", ".join(exc.missing[:4])
                                    + (", ..." if len(exc.missing) > 4 else ""))) from None
        seed = state.get("seed")
        valid_seed = isinstance(seed, int) and not isinstance(seed, bool)
        seed = seed if valid_seed and 0 <= seed < SEED_LIMIT else None
        result = describe(deck, source or None, engine, seed)
        result["deck_update"] = notes
        return deck, source or None, engine, seed, result

    def _state(self, params: Dict[str, Any]) -> Dict[str, Any]:
        return describe(self.deck, self.deck_source, self._engine(), self.seed)

    def _end_match(self, params: Dict[str, Any]) -> Dict[str, Any]:
        # A game's restart (abandon_match): forget the match, so save/draw answer no_match as
        # before any match instead of continuing the abandoned one. Idempotent.
        ended = self.engine is not None
        self.deck, self.deck_source, self.engine, self.seed = None, None, None, None
        self.names = Names({}, {}, {}, {})
        return {"ended": ended}
