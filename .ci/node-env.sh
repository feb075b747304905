# Sourced by .ci/run and .ci/conformance.sh: makes Node >= 22 and the pinned npm packages available under .ci/.work.
# Installs nothing globally. Exports CI_WORK, NODE_BIN, CONFORMANCE_BIN and EVERYTHING_SERVER_JS, and puts
# .ci/.work/node_modules/.bin first on PATH.

CONFORMANCE_VERSION="0.2.0-alpha.12"
EVERYTHING_VERSION="2026.8.31"
NODE_MAJOR_REQUIRED=22

CI_WORK="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/.work"
mkdir -p "$CI_WORK"

node_major() {
  "$1" --version 2>/dev/null | sed -E 's/^v([0-9]+).*/\1/'
}

if ! command -v npm >/dev/null 2>&1; then
  echo "error: npm not found; install Node.js (any version with npm): it is used to fetch Node ${NODE_MAJOR_REQUIRED} and the MCP test servers" >&2
  exit 1
fi

npm_install() {
  # --prefix keeps everything in .ci/.work; no audit/fund chatter in CI logs
  npm install --prefix "$CI_WORK" --no-audit --no-fund --loglevel=error "$@" >&2
}

system_node_major="$(command -v node >/dev/null 2>&1 && node_major node || echo 0)"
if [ "${system_node_major:-0}" -ge "$NODE_MAJOR_REQUIRED" ]; then
  NODE_BIN="$(command -v node)"
else
  if [ ! -x "$CI_WORK/node_modules/.bin/node" ] || [ "$(node_major "$CI_WORK/node_modules/.bin/node")" != "$NODE_MAJOR_REQUIRED" ]; then
    echo "Node ${system_node_major} is older than ${NODE_MAJOR_REQUIRED}: installing node@${NODE_MAJOR_REQUIRED} into $CI_WORK" >&2
    npm_install "node@${NODE_MAJOR_REQUIRED}"
  fi
  NODE_BIN="$CI_WORK/node_modules/.bin/node"
fi

installed_version() {
  sed -nE 's/^  "version": "([^"]+)".*/\1/p' "$CI_WORK/node_modules/$1/package.json" 2>/dev/null | head -n 1
}

if [ "$(installed_version @modelcontextprotocol/conformance)" != "$CONFORMANCE_VERSION" ] \
  || [ "$(installed_version @modelcontextprotocol/server-everything)" != "$EVERYTHING_VERSION" ]; then
  echo "installing @modelcontextprotocol/conformance@${CONFORMANCE_VERSION} and @modelcontextprotocol/server-everything@${EVERYTHING_VERSION} into $CI_WORK" >&2
  npm_install "@modelcontextprotocol/conformance@${CONFORMANCE_VERSION}" \
    "@modelcontextprotocol/server-everything@${EVERYTHING_VERSION}"
fi

# the npm bin scripts start with "#!/usr/bin/env node": the right node must come first on PATH
PATH="$(dirname "$NODE_BIN"):$CI_WORK/node_modules/.bin:$PATH"
CONFORMANCE_BIN="$CI_WORK/node_modules/@modelcontextprotocol/conformance/dist/index.js"
EVERYTHING_SERVER_JS="$CI_WORK/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
export PATH CI_WORK NODE_BIN CONFORMANCE_BIN EVERYTHING_SERVER_JS
echo "node: $NODE_BIN ($("$NODE_BIN" --version)), conformance ${CONFORMANCE_VERSION}, server-everything ${EVERYTHING_VERSION}" >&2
