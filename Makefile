# `make test` and `make serve` do all their own set-up: a local virtual environment, the
# project installed in it (editable), the Cython extensions built in place.  `make serve`
# installs the runtime dependencies only; `make test` adds the test extras (Ray, Optuna,
# OpenSpiel, PettingZoo, Playwright, ...), which serving never imports.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.fagin-installed
TEST_STAMP := $(VENV)/.fagin-test-extras-installed
# The editable install leaves the extensions to `build` (setup.py reads this): setuptools
# would otherwise compile every one of them during `pip install -e`, and `build_ext`
# a second time.
EDITABLE := FAGIN_SKIP_EXTENSIONS=1 $(PY) -m pip install -q --no-build-isolation -e

.PHONY: all build node ts-client test-extras browser balancer test serve bench clean

all: build

$(STAMP): pyproject.toml setup.py
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q "setuptools>=77" wheel "Cython>=3.0" "numpy>=1.24" "grpcio-tools>=1.60"
	$(EDITABLE) .
	touch $@

$(TEST_STAMP): $(STAMP)
	$(EDITABLE) '.[test]'
	touch $@

test-extras: $(TEST_STAMP)

# proto/generate.py writes fagin.proto's lines for the games from the rooms, then the stubs.
build: $(STAMP)
	$(PY) proto/generate.py
	$(PY) setup.py -q build_ext --inplace -j 2

# The TypeScript client (clients/ts, @fagin/client): its code generated from the .proto files
# (by the protoc of grpcio-tools, in the venv), compiled to clients/ts/dist, and bundled for the
# browser page as clients/web/fagin-client.js, which the page imports: `make serve` needs it.
# npm ci installs what each package-lock.json pins, again only when the lock file changes;
# clients/node, the Node example, links the client (file:../ts).  Needs node 18.14+ and npm.
TS_CLIENT   := clients/ts
TS_DEPS     := $(TS_CLIENT)/node_modules/.fagin-installed
TS_BUNDLE   := clients/web/fagin-client.js
NODE_DEPS   := clients/node/node_modules/.fagin-installed
NPM_CI      := npm ci --no-audit --no-fund --loglevel=error >/dev/null

# Node and npm: installed here when missing and apt-get can (as root, as in CI: Debian's nodejs
# and npm); otherwise the build stops, saying what it needs.
node:
	@command -v npm >/dev/null 2>&1 || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 && \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm >/dev/null; } || \
	  { echo "node (18.14 or later) and npm are needed for the TypeScript client, which the browser page calls through"; exit 1; }

$(TS_DEPS): $(TS_CLIENT)/package-lock.json | node
	cd $(TS_CLIENT) && $(NPM_CI)
	touch $@

$(TS_BUNDLE): $(TS_DEPS) $(STAMP) $(wildcard proto/fagin/v1/*.proto) $(wildcard $(TS_CLIENT)/src/*.ts) \
              $(wildcard $(TS_CLIENT)/scripts/*.mjs) $(TS_CLIENT)/package.json $(TS_CLIENT)/tsconfig.json
	cd $(TS_CLIENT) && FAGIN_PYTHON=$(abspath $(PY)) npm run --silent build

$(NODE_DEPS): clients/node/package-lock.json | $(TS_BUNDLE)
	cd clients/node && $(NPM_CI)
	touch $@

ts-client: $(TS_BUNDLE) $(NODE_DEPS)

# The browser test (tests/server/test_browser.py) drives Debian's chromium: installed here
# when missing and apt-get can (as root, as in CI); otherwise that test is skipped, with a
# message, except in CI (CI=true), where it fails.
browser:
	@command -v chromium >/dev/null 2>&1 || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 && \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; } || \
	  echo "chromium is not installed (apt-get install chromium): the browser test will be skipped"

# The replicas test (tests/server/test_replicas.py) runs deploy/nginx.conf in front of two
# servers with Debian's nginx: installed and skipped as chromium is for the browser test.
balancer:
	@command -v nginx >/dev/null 2>&1 || test -x /usr/sbin/nginx || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 && \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx >/dev/null; } || \
	  echo "nginx is not installed (apt-get install nginx): the balancer test will be skipped"

# The suite runs on pytest-xdist workers, one more than the cores (at most 4): many tests
# wait on a server, a subprocess or a browser, and the extra worker fills those waits (on 2
# cores, 163 s with 2 workers, 120 s with 3).  Each worker starts its own servers on free
# ports; the long tests are spread over the workers first (tests/conftest.py), and
# worksteal evens out the tails.
TEST_WORKERS ?= $(shell $(PYTHON) -c "import os; print(min(4, len(os.sched_getaffinity(0)) + 1))")
test: test-extras build ts-client browser balancer
	$(PY) -m pytest -q -n $(TEST_WORKERS) --dist worksteal

serve: build ts-client
	$(PY) -m fagin.server

bench: build
	$(PY) bench/playouts.py
	$(PY) bench/ismcts_speed.py
	$(PY) bench/level_time.py
	$(PY) bench/grpc_overhead.py
	$(PY) bench/request_cost.py
	$(PY) bench/gangs_of_kyoto_deck.py
	$(PY) bench/game_costs.py --game london
	$(PY) bench/game_costs.py --game oliver_twist
	$(PY) bench/oliver_twist_balance.py
	$(PY) bench/peer_openspiel.py
	$(PY) bench/goofspiel_exploitability.py

clean:
	rm -rf $(TS_CLIENT)/dist $(TS_CLIENT)/src/gen $(TS_BUNDLE)
	rm -rf build *.egg-info engines/*.c engines/*.so engines/*/*.c engines/*/*.so search/*.c search/*.so server/*.c server/*.so
