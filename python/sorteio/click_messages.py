"""click's own messages that a user of ``sorteio`` reads (usage errors, help headings), so the
catalogs translate them too (issue 15 "One language"; ``i18n.install_for_click``).

click writes them with the standard library's ``gettext`` under the global domain, which the
CLI points at our catalog. These are click's message ids, word for word, for click 8.1 (what
CPython 3.8 gets) and 8.2+ (where a few changed); ``tests/test_i18n.py`` checks that every
user-facing message of the installed click is here. Nothing imports this module: it exists to be
extracted (``scripts/i18n.py``).

``ARGPARSE``: the same for argparse, whose words (``usage:``, its errors) the socket server's own
command line says (``python -m sorteio.bridge.server``, the frozen ``sorteio-serve``), for the
Pythons we run on (``optional arguments`` until 3.9, ``options`` from 3.10).
"""

from typing import Tuple

from .i18n import N_


def ngettext(singular: str, plural: str, n: int) -> Tuple[str, str]:
    """Marks one of click's plural messages for extraction. click says these with
    ``gettext.ngettext``, which finds only a catalog entry that has a plural (``msgid_plural``):
    as two plain entries they stayed English in a pt-BR run ("Did you mean '--policy'?")."""
    return singular, plural

MESSAGES = (
    N_("Usage:"), N_("Options"), N_("Commands"), N_("Positional arguments"),
    N_("Show this message and exit."), N_("Show the version and exit."),
    N_("%(prog)s, version %(version)s"),
    N_("Error: {message}"), N_("Try '{command} {option}' for help."),
    N_("Invalid value: {message}"), N_("Invalid value for {param_hint}: {message}"),
    N_("Missing argument"), N_("Missing option"), N_("Missing parameter"),
    N_("Missing {param_type}"), N_("Missing parameter: {param_name}"),
    N_("No such option: {name}"), N_("No such option {name!r}."),
    N_("No such command {name!r}."), N_("Missing command."),
    N_("Option {name!r} does not take a value."),
    N_("Argument {name!r} takes {nargs} values."),
    N_("{value!r} is not a valid {number_type}."), N_("{value} is not in the range {range}."),
    N_("{value!r} is not a valid boolean. Recognized values: {states}"),
    N_("file"), N_("directory"), N_("path"),
    N_("{name} {filename!r} does not exist."), N_("{name} {filename!r} is a file."),
    N_("{name} {filename!r} is a directory."), N_("{name} {filename!r} is not readable."),
    N_("{name} {filename!r} is not writable."),
    N_("Could not open file {filename!r}: {message}"),
    N_("default: {default}"), N_("env var: {var}"), N_("Aborted!"),
)

# click 8.1 and 8.2+ (gettext looks a plural up by its singular id alone, so 8.1's other plural
# wording, "(Possible options: {possibilities})", finds this entry too).
PLURALS = (
    ngettext("Option {name!r} requires an argument.",
             "Option {name!r} requires {nargs} arguments.", 2),
    ngettext("Got unexpected extra argument ({args})",
             "Got unexpected extra arguments ({args})", 2),
    ngettext("Did you mean {possibility}?", "(Did you mean one of: {possibilities}?)", 2),
    ngettext("{value!r} is not {choice}.", "{value!r} is not one of {choices}.", 2),
    ngettext("{value!r} does not match the format {format}.",
             "{value!r} does not match the formats {formats}.", 2),
    ngettext("Takes {nargs} values but 1 was given.",
             "Takes {nargs} values but {len} were given.", 2),
    ngettext("{len_type} values are required, but {len_value} was given.",
             "{len_type} values are required, but {len_value} were given.", 2),
)

ARGPARSE = (
    N_("usage: "), N_("options"), N_("optional arguments"), N_("positional arguments"),
    N_("show this help message and exit"), N_("%(prog)s: error: %(message)s\n"),
    N_("argument %(argument_name)s: %(message)s"), N_("expected one argument"),
    N_("invalid %(type)s value: %(value)r"), N_("unrecognized arguments: %s"),
    N_("ambiguous option: %(option)s could match %(matches)s"),
)
