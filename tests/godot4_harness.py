"""The Godot 4 engine-test harness: pytest helpers every Godot 4 test file shares.

A test makes a throwaway Godot 4 project (`make_project`, or the cached `shared_project`) whose
`addons/sorteio` is a symlink to this repository's addon and whose `res://tests/` is a symlink to
`tests/godot4/` (so scenario scripts reach their GDScript helpers as `res://tests/lib/...`),
imported once with `--headless --import` (the class_name cache and imported resources exist only
after that). It runs one scenario script headless (`run_script`) and gets a `Run`: the log,
the exit code and the `CHECK ok|FAIL name: detail` lines the script printed
(tests/godot4/lib/engine_test.gd prints them, then `GODOT-TEST passed|failed`).

A run fails (AssertionError with the log's tail) on a timeout, and on any `SCRIPT ERROR`,
`ERROR:`, `WARNING:` or `Parse Error` line the test did not allow, with a reason, in `allowed`
((regex, why) pairs). Godot prints errors and carries on, so the exit code alone proves nothing.

GDScript warnings are errors here: the project turns every warning Godot enables by default
(level 1, read from the engine itself, as 4.x point releases add some) up to level 2, adds
`untyped_declaration` (the addon is fully typed) and includes res://addons (Godot 4 skips
addons' warnings by default). A warning then fails the script's compilation with a
`Parse Error`, which the harness reports.

Each run gets its own HOME and XDG data/config/cache folders under the test's tmp_path, so user://
(port files, saves, deck copies) and editor settings belong to that run only, and
SORTEIO_PYTHON points at the interpreter running pytest (the venv's, with `sorteio` installed).
Under CI=true a missing engine is a failure, never a skip (tests/engines.py).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from engines import engine

ROOT = Path(__file__).resolve().parents[1]
ADDON = ROOT / "addons" / "sorteio"
SCRIPTS = ROOT / "tests" / "godot4"
TIMEOUT = 180
AUTOLOAD = "res://addons/sorteio/sorteio_node.gd"
# Any of these in Godot's output fails a run unless the test allows it.
ENGINE_ERRORS = re.compile(r"SCRIPT ERROR|ERROR:|WARNING:|Parse Error")
TIMED_OUT = 124  # the exit code a run stopped by its timeout reports
CHECK = re.compile(r"^CHECK (ok|FAIL) (.*?)(?:: (.*))?$", re.M)  # a name holds no ": "

_version_printed: list[str] = []
_warning_levels: dict[str, int] = {}
_shared: dict[tuple, Path] = {}


def godot4() -> str:
    """Path of the Godot 4 binary (build/engines/bin/godot4); prints its version once per
    session (Debian's development line moves: the log says which 4.x ran)."""
    binary = engine("godot4")
    if not _version_printed:
        result = subprocess.run(
            [binary, "--headless", "--version"], capture_output=True, text=True, timeout=60
        )
        version = (result.stdout.strip().splitlines() or ["?"])[-1]
        _version_printed.append(version)
        print(f"godot4 {version}", file=sys.stderr)
    return binary


def engine_version() -> str:
    """The engine's version line, e.g. `4.6.3.stable.debian4.6.3+ds-3`."""
    godot4()
    return _version_printed[0]


def godot_env(home: Path, **extra: str) -> dict:
    """The environment of one engine run: HOME and XDG folders under `home` (user:// and the
    editor's settings of this run only), SORTEIO_PYTHON = the interpreter running pytest.
    `extra` entries are added; an entry whose value is None is removed."""
    env = dict(os.environ)
    env.update(
        LANG="en_US.UTF-8",  # Godot reads the name only; C.UTF-8 logs a locale error
        # The bridge's language (issue 15): the GDScript tests read the Portuguese narration
        # (without it the bridge would follow LANG above and speak English).
        SORTEIO_LANG="pt-BR",
        HOME=str(home),
        XDG_DATA_HOME=str(home / "data"),
        XDG_CONFIG_HOME=str(home / "config"),
        XDG_CACHE_HOME=str(home / "cache"),
        SORTEIO_PYTHON=sys.executable,
    )
    env.pop("LC_ALL", None)
    env.pop("SORTEIO_BRIDGE_FILE", None)
    for key, value in extra.items():
        if value is None:
            env.pop(key, None)
        else:
            env[key] = value
    return env


def user_dir(home: Path, project: Path) -> Path:
    """user:// of the project when run with `godot_env(home)` (XDG data home, app_userdata)."""
    return home / "data" / "godot" / "app_userdata" / project_name(project)


def project_name(project: Path) -> str:
    text = (project / "project.godot").read_text(encoding="utf-8")
    return re.search(r'^config/name="(.*)"$', text, re.M).group(1)


def warning_levels() -> dict[str, int]:
    """Every GDScript warning setting this engine has, with its level raised for the tests:
    each one on by default (1) becomes an error (2); `untyped_declaration` too."""
    if not _warning_levels:
        import tempfile

        with tempfile.TemporaryDirectory() as scratch:
            project = Path(scratch) / "probe"
            project.mkdir()
            (project / "project.godot").write_text(
                'config_version=5\n\n[application]\n\nconfig/name="probe"\n', encoding="utf-8"
            )
            (project / "levels.gd").write_text(
                "extends SceneTree\n\n\nfunc _init() -> void:\n"
                "\tfor property: Dictionary in ProjectSettings.get_property_list():\n"
                "\t\tvar name: String = property[\"name\"]\n"
                "\t\tvar value: Variant = ProjectSettings.get_setting(name)\n"
                "\t\tif name.begins_with(\"debug/gdscript/warnings/\") and value is int:\n"
                "\t\t\tprint(\"LEVEL %s %d\" % [name.get_file(), value])\n"
                "\tquit(0)\n",
                encoding="utf-8",
            )
            result = subprocess.run(
                [godot4(), "--headless", "--path", str(project), "-s", "res://levels.gd"],
                capture_output=True,
                text=True,
                env=godot_env(Path(scratch)),
                timeout=120,
            )
        levels = {
            name: int(level)
            for name, level in re.findall(r"^LEVEL (\w+) (\d+)$", result.stdout, re.M)
        }
        assert levels, "could not read the engine's warning settings:\n" + result.stdout
        for name, level in levels.items():
            _warning_levels[name] = 2 if level == 1 else level
        _warning_levels["untyped_declaration"] = 2
    return dict(_warning_levels)


def project_godot(name: str, autoload: bool = True, settings: dict | None = None) -> str:
    """The text of a project.godot: config_version 5, the Sorteio autoload (unless
    `autoload=False`), warnings as errors (see warning_levels), and `settings`:
    {"section": {"key": godot_value_text}} (values written as Godot text, e.g. '"socket"')."""
    sections: dict[str, dict[str, str]] = {"application": {"config/name": f'"{name}"'}}
    if autoload:
        sections["autoload"] = {"Sorteio": f'"*{AUTOLOAD}"'}
    debug = {"gdscript/warnings/exclude_addons": "false"}  # before 4.5
    debug["gdscript/warnings/directory_rules"] = '{"res://addons": 1}'  # 4.5+: 1 = include
    for warning, level in warning_levels().items():
        debug[f"gdscript/warnings/{warning}"] = str(level)
    sections["debug"] = debug
    for section, values in (settings or {}).items():
        sections.setdefault(section, {}).update(values)
    lines = ["config_version=5", ""]
    for section, values in sections.items():
        lines += [f"[{section}]", ""]
        lines += [f"{key}={value}" for key, value in values.items()]
        lines.append("")
    return "\n".join(lines)


def make_project(
    where: Path,
    name: str = "sorteio test",
    autoload: bool = True,
    settings: dict | None = None,
    files: dict | None = None,
    link_addon: bool = True,
    import_now: bool = True,
) -> Path:
    """A new Godot 4 project at `where`: addons/sorteio linked to the repo's addon, res://tests
    linked to tests/godot4, project.godot (see project_godot), `files` ({relative path: text or
    bytes}) written in, then imported once (`--headless --import`) unless `import_now=False`.
    Returns `where`."""
    where.mkdir(parents=True, exist_ok=True)
    if link_addon:
        (where / "addons").mkdir(exist_ok=True)
        (where / "addons" / "sorteio").symlink_to(ADDON)
    (where / "tests").symlink_to(SCRIPTS)
    (where / "project.godot").write_text(project_godot(name, autoload, settings), "utf-8")
    for relative, content in (files or {}).items():
        target = where / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            target.write_bytes(content)
        else:
            target.write_text(content, encoding="utf-8")
    if import_now:
        import_project(where)
    return where


def import_project(project: Path, allowed=()) -> str:
    """`godot4 --headless --import` on `project` (builds .godot/: class cache, imports);
    fails on an unexpected engine error. Returns the log."""
    home = project.parent / f".{project.name}-import-home"
    result = subprocess.run(
        ["timeout", "-k", "5", str(TIMEOUT), godot4(), "--headless", "--path", str(project),
         "--import"],
        capture_output=True,
        text=True,
        env=godot_env(home),
        timeout=TIMEOUT + 30,
    )
    log = result.stdout + result.stderr
    assert result.returncode != 124, f"the import timed out after {TIMEOUT} s:\n{log[-3000:]}"
    unexpected, _unused = engine_errors(log, allowed)
    assert not unexpected, "errors importing the project:\n" + "\n".join(unexpected) + log[-3000:]
    assert (project / ".godot" / "global_script_class_cache.cfg").exists() or not any(
        project.rglob("*.gd")
    ), log[-3000:]
    return log


def shared_project(tmp_path_factory, **options) -> Path:
    """A project made by make_project(**options) once per session and reused (the import takes
    seconds). For tests that do not change the project's files; give each run its own `home`."""
    key = tuple(sorted((k, repr(v)) for k, v in options.items()))
    if key not in _shared:
        _shared[key] = make_project(tmp_path_factory.mktemp("godot4") / "project", **options)
    return _shared[key]


def engine_errors(log: str, allowed=()):
    """The error lines of `log` that no entry of `allowed` matches, and the entries never seen.

    `allowed`: (regex, why) pairs, each an error the test provokes on purpose or one Godot prints
    that is not ours, with the reason. An entry may go unseen; a test that needs its error to
    happen checks that itself."""
    unexpected, seen = [], set()
    for line in log.splitlines():
        if not ENGINE_ERRORS.search(line):
            continue
        hits = [i for i, (pattern, _why) in enumerate(allowed) if re.search(pattern, line)]
        seen.update(hits)
        if not hits:
            unexpected.append(line)
    unused = [pattern for i, (pattern, _why) in enumerate(allowed) if i not in seen]
    return unexpected, unused


@dataclass
class Run:
    """One engine run: exit code, whole log, and its CHECK lines ({name: (ok, detail)})."""

    returncode: int
    log: str
    checks: dict = field(default_factory=dict)

    def passed(self, *names: str) -> None:
        """Assert the script passed, and that each named check ran and passed."""
        failed = [f"{n}: {d}" for n, (ok, d) in self.checks.items() if not ok]
        assert self.returncode == 0 and "GODOT-TEST passed" in self.log, (
            "failed checks:\n" + "\n".join(failed) + "\n" + self.tail()
        )
        missing = [name for name in names if name not in self.checks]
        assert not missing, f"checks that never ran: {missing}\n{self.tail()}"

    def lines(self, prefix: str) -> list[str]:
        """The log's lines starting with `prefix` (its rest, stripped)."""
        return [line[len(prefix):].strip() for line in self.log.splitlines()
                if line.startswith(prefix)]

    def tail(self, size: int = 4000) -> str:
        return self.log[-size:]


def run_godot(
    project: Path,
    args,
    home: Path,
    env: dict | None = None,
    allowed=(),
    timeout: int = TIMEOUT,
    log_name: str | None = None,
) -> Run:
    """godot4 --headless --path PROJECT ARGS with `godot_env(home)` (or `env`), under a timeout.
    Fails on a timeout or an engine error line not in `allowed`. The log is also written to
    HOME/../LOG_NAME.log (pytest keeps the last runs' tmp folders)."""
    command = [godot4(), "--headless", "--path", str(project), *args]
    home.mkdir(parents=True, exist_ok=True)
    returncode, log = _run_watched(command, env or godot_env(home), timeout)
    if log_name:
        (home.parent / f"{log_name}.log").write_text(log, encoding="utf-8")
    assert returncode != TIMED_OUT, f"Godot timed out after {timeout} s:\n{log[-3000:]}"
    unexpected, _unused = engine_errors(log, allowed)
    assert not unexpected, "Godot errors:\n" + "\n".join(unexpected) + "\n" + log[-4000:]
    checks = {
        name.strip(): (status == "ok", detail or "") for status, name, detail in CHECK.findall(log)
    }
    return Run(returncode, log, checks)


def _run_watched(command: list, env: dict, timeout: int):
    """Run `command`, its stdout and stderr as one log; returns (exit code, log). Stopped at
    `timeout` (exit code TIMED_OUT), or as soon as the script run with -s fails to load: Godot 4
    then prints the error and waits forever with no main loop, so waiting would only cost the
    whole timeout."""
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env
    )
    lines: list[str] = []
    script = command[command.index("-s") + 1] if "-s" in command else None

    def read() -> None:
        for line in process.stdout:
            lines.append(line)
            if script and f'Failed to load script "{script}"' in line:
                time.sleep(0.2)  # the lines that follow the error
                process.kill()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        returncode = process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
        returncode = TIMED_OUT
    reader.join(timeout=10)
    return returncode, "".join(lines)


def run_script(project: Path, script: str, *user_args: str, home: Path, **kwargs) -> Run:
    """Run the scenario `tests/godot4/SCRIPT` (as res://tests/SCRIPT) in `project`, with
    `user_args` after `--` (the script reads them with engine_test.gd's arg()). Keywords as
    run_godot's. Check the result with Run.passed(...)."""
    args = ["-s", f"res://tests/{script}"]
    if user_args:
        args += ["--", *user_args]
    kwargs.setdefault("log_name", Path(script).stem)
    return run_godot(project, args, home, **kwargs)
