"""pydantic's validation errors in the run's language (issue 15 "One language").

pydantic writes its messages in English; its error ``type`` and ``ctx`` are its stable API
(https://docs.pydantic.dev/latest/errors/validation_errors/), so the sentence is made from them
here, never by reading pydantic's English text. An English run keeps pydantic's own sentence
(what English users and tests have always read; the catalog's English entries are there for
another language to start from). A type not listed says "invalid value (pydantic: <type>)" in
any other language, so a new pydantic error is never silent. Our own validators' messages
(``value_error``, ``assertion_error``) are already in the run's language (``deck.py`` raises
them with ``_``).
"""

from typing import Any, Mapping, Optional

from .i18n import N_, _, current

# type -> message, formatted with the error's ctx (and {input}: a short repr of the value).
MESSAGES = {
    "missing": N_("required field missing"),
    "extra_forbidden": N_("unknown field (not part of the format; a typo?)"),
    "int_type": N_("must be a whole number, not {input}"),
    "int_parsing": N_("must be a whole number, not {input}"),
    "int_from_float": N_("must be a whole number, not {input}"),
    "int_parsing_size": N_("the number is too large"),
    "float_type": N_("must be a number, not {input}"),
    "float_parsing": N_("must be a number, not {input}"),
    "finite_number": N_("must be a finite number"),
    "bool_type": N_("must be true or false, not {input}"),
    "bool_parsing": N_("must be true or false, not {input}"),
    "string_type": N_("must be text, not {input}"),
    "string_too_short": N_("must have at least {min_length} character(s)"),
    "string_too_long": N_("must have at most {max_length} characters"),
    "string_pattern_mismatch": N_("must match the pattern {pattern}"),
    "dict_type": N_("must be an object ({{...}}), not {input}"),
    "model_type": N_("must be an object ({{...}}), not {input}"),
    "model_attributes_type": N_("must be an object ({{...}}), not {input}"),
    "list_type": N_("must be a list ([...]), not {input}"),
    "too_short": N_("must have at least {min_length} item(s), has {actual_length}"),
    "too_long": N_("must have at most {max_length} item(s), has {actual_length}"),
    "greater_than_equal": N_("must be {ge} or more, not {input}"),
    "less_than_equal": N_("must be {le} or less, not {input}"),
    "greater_than": N_("must be more than {gt}, not {input}"),
    "less_than": N_("must be less than {lt}, not {input}"),
    "enum": N_("must be one of {expected}, not {input}"),
    "literal_error": N_("must be {expected}, not {input}"),
    "none_required": N_("must be null"),
    "json_invalid": N_("invalid JSON: {error}"),
}
UNKNOWN = N_("invalid value (pydantic: {type})")
SHORT = 60


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= SHORT else text[: SHORT - 3] + "..."


def error_text(error: Mapping[str, Any], overrides: Optional[Mapping[str, str]] = None) -> str:
    """One of pydantic's ``ValidationError.errors()`` rows as a sentence in the run's language
    (``i18n.current()``): ``deve ser um número inteiro, não '55'``. ``overrides``: message ids
    (``N_``) by error type, for a caller that says it better (a blank sheet cell)."""
    kind = error.get("type", "")
    ctx = dict(error.get("ctx") or {})
    if kind in ("value_error", "assertion_error") and "error" in ctx:
        return str(ctx["error"])
    if overrides and kind in overrides:
        return _(overrides[kind])
    template = MESSAGES.get(kind)
    if current() == "en":
        return str(error.get("msg", ""))
    if template is None:
        return _(UNKNOWN).format(type=kind)
    fields = {key: (value if isinstance(value, (int, float)) else str(value))
              for key, value in ctx.items()}
    if kind == "literal_error" and " or " in fields.get("expected", ""):
        # pydantic joins the allowed values in English ("'a', 'b' or 'c'").
        head, last = fields["expected"].rsplit(" or ", 1)
        fields["expected"] = _("{values} or {last}").format(values=head, last=last)
    try:
        return _(template).format(input=_short(error.get("input")), **fields)
    except (KeyError, IndexError, ValueError):  # a ctx this pydantic version shapes otherwise
        return _(UNKNOWN).format(type=kind)
