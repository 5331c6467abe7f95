# Two commands do everything on a fresh Debian machine with Python 3.11:
#   make play   -> set up, then play one whole match on the built-in default deck
#   make test   -> set up (Python packages, godot3-server via apt), then run every check and test
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
SEED ?= 0
# Oldest supported runtime: godot-python embeds CPython 3.8; pydantic 2.10 is the last line for it.
OLDEST_VENV ?= .venv-oldest
OLDEST_PYDANTIC ?= pydantic==2.10.*

.PHONY: setup play test lint test-oldest godot-deps godot-test pythonscript gdextension dist clean

# setup.py builds the compiled simulation kernel (sim/_ckernel.c) in place: rebuild when it changes.
$(BIN)/.installed: pyproject.toml setup.py python/sorteio/sim/_ckernel.c
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --disable-pip-version-check -e '.[cli,report,test]'
	touch $@

setup: $(BIN)/.installed

play: setup
	$(BIN)/sorteio play --seed $(SEED)

lint: setup
	$(BIN)/ruff check python tests benchmarks scripts
	$(BIN)/vermin --no-tips --violations --target=3.8- python/sorteio

# Godot 3.2.3 into the system (apt); Godot 4.x (sid) and 3.6 (trixie) into build/engines/ (cached).
godot-deps:
	scripts/godot_tests.sh --install-only
	scripts/engines.sh

test: setup lint godot-deps
	$(BIN)/python -m pytest
	$(MAKE) test-oldest

# The real pythonscript (godot-python) with sorteio installed, cached in build/pythonscript/;
# PYTHONSCRIPT_DIST=archive-or-folder picks where it comes from (see scripts/pythonscript.sh).
pythonscript:
	scripts/pythonscript.sh runtime

# The Python GDExtension for Godot 4 (embedded CPython 3.12) with sorteio + pydantic in its own
# site-packages, cached in build/gdextension/; GDEXTENSION_DIST / GDEXTENSION_PYTHON pick the
# archive and the CPython 3.12 whose pip installs (see scripts/gdextension.sh).
gdextension:
	scripts/gdextension.sh runtime

godot-test: setup
	PYTHON=$(BIN)/python scripts/godot_tests.sh

# The demos as a player gets them, one folder per bridge under build/export/: Godot 4
# (godot4-socket: the executable + the frozen sorteio-serve; godot4-python: the executable + the
# extension's Python), Godot's own export with the addon's export plugin; Godot 3 (socket: the
# pack + sorteio-serve; python: the pack + pythonscript's runtime). Cached; see
# scripts/export/build_demo.py (--install-server PROJECT puts the frozen server into any game).
export: setup godot-deps
	$(BIN)/python scripts/export/build_demo.py

# The release zip (Asset Library layout: the addon with the sorteio wheel inside, INSTALL.md).
dist: setup
	$(BIN)/python scripts/dist.py --out build/dist

# The core suite once more on the oldest runtime we support: CPython 3.8 when the machine has it,
# always with the oldest pydantic.
test-oldest:
	scripts/test-oldest.sh $(OLDEST_VENV) '$(OLDEST_PYDANTIC)'

clean:
	rm -rf $(VENV) $(OLDEST_VENV) .pytest_cache .ruff_cache .hypothesis
