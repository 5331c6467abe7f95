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

from .i18n import N_

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
    N_("Option {name!r} requires an argument."), N_("Option {name!r} requires {nargs} arguments."),
    N_("Argument {name!r} takes {nargs} values."),
    N_("Got unexpected extra argument ({args})"), N_("Got unexpected extra arguments ({args})"),
    N_("Did you mean {possibility}?"), N_("(Did you mean one of: {possibilities}?)"),
    N_("{value!r} is not {choice}."), N_("{value!r} is not one of {choices}."),
    N_("{value!r} is not a valid {number_type}."), N_("{value} is not in the range {range}."),
    N_("{value!r} is not a valid boolean. Recognized values: {states}"),
    N_("file"), N_("directory"), N_("path"),
    N_("{name} {filename!r} does not exist."), N_("{name} {filename!r} is a file."),
    N_("{name} {filename!r} is a directory."), N_("{name} {filename!r} is not readable."),
    N_("{name} {filename!r} is not writable."),
    N_("Could not open file {filename!r}: {message}"),
    N_("default: {default}"), N_("env var: {var}"), N_("Aborted!"),
)

ARGPARSE = (
    N_("usage: "), N_("options"), N_("optional arguments"), N_("positional arguments"),
    N_("show this help message and exit"), N_("%(prog)s: error: %(message)s\n"),
    N_("argument %(argument_name)s: %(message)s"), N_("expected one argument"),
    N_("invalid %(type)s value: %(value)r"), N_("unrecognized arguments: %s"),
    N_("ambiguous option: %(option)s could match %(matches)s"),
)
