# Sourced by .ci/run and .ci/conformance.sh: makes Node >= 22 and the pinned npm packages available under .ci/.work.
# Installs nothing globally. Exports CI_WORK, NODE_BIN, CONFORMANCE_BIN and EVERYTHING_SERVER_JS, and puts
# .ci/.work/node_modules/.bin first on PATH. The end-to-end tests in src (EverythingServerIT, the TypeScript SDK peer
# tests) find Node and these packages in .ci/.work themselves.

NODE_MAJOR_REQUIRED=22
# every npm package the checks use, pinned, installed by one npm install: the conformance suite, the reference server,
# and the TypeScript SDKs the peer tests run as clients and servers (v2 client/server speak 2026-07-28, v1 sdk 2025)
PINNED_PACKAGES=(
  "@modelcontextprotocol/conformance@0.2.0-alpha.12"
  "@modelcontextprotocol/server-everything@2026.8.31"
  "@modelcontextprotocol/client@2.4.0"
  "@modelcontextprotocol/server@2.4.0"
  "@modelcontextprotocol/sdk@1.32.2"
)

CI_WORK="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/.work"
mkdir -p "$CI_WORK"

node_major() {
  "$1" --version 2>/dev/null | sed -E 's/^v([0-9]+).*/\1/'
}

if ! command -v npm >/dev/null 2>&1; then
  echo "error: npm not found; install Node.js (any version with npm): it is used to fetch Node ${NODE_MAJOR_REQUIRED} and the MCP test servers" >&2
  exit 1
fi

installed_version() {
  # any node reads package.json (npm itself runs on one); empty when the package is missing
  node -p 'require(process.argv[1]).version' "$CI_WORK/node_modules/$1/package.json" 2>/dev/null || true
}

# the pinned packages not installed at their pinned version
missing_packages() {
  local package
  for package in "${PINNED_PACKAGES[@]}"; do
    # "@scope/name@version": the name is everything before the last @
    [ "$(installed_version "${package%@*}")" = "${package##*@}" ] || echo "$package"
  done
}

read -r -a to_install <<<"$(missing_packages | tr '\n' ' ')"
system_node_major="$(command -v node >/dev/null 2>&1 && node_major node || echo 0)"
if [ "${system_node_major:-0}" -ge "$NODE_MAJOR_REQUIRED" ]; then
  NODE_BIN="$(command -v node)"
else
  NODE_BIN="$CI_WORK/node_modules/.bin/node"
  if [ ! -x "$NODE_BIN" ] || [ "$(node_major "$NODE_BIN")" != "$NODE_MAJOR_REQUIRED" ]; then
    echo "Node ${system_node_major} is older than ${NODE_MAJOR_REQUIRED}: node@${NODE_MAJOR_REQUIRED} goes into $CI_WORK" >&2
    to_install+=("node@${NODE_MAJOR_REQUIRED}")
  fi
fi

if [ "${#to_install[@]}" -gt 0 ]; then
  echo "installing ${to_install[*]} into $CI_WORK" >&2
  # one install for all; --prefix keeps everything in .ci/.work; exact versions in its package.json; no audit/fund
  # chatter in CI logs
  npm install --prefix "$CI_WORK" --save-exact --no-audit --no-fund --loglevel=error "${to_install[@]}" >&2
fi

# the npm bin scripts start with "#!/usr/bin/env node": the right node must come first on PATH
PATH="$(dirname "$NODE_BIN"):$CI_WORK/node_modules/.bin:$PATH"
CONFORMANCE_BIN="$CI_WORK/node_modules/@modelcontextprotocol/conformance/dist/index.js"
EVERYTHING_SERVER_JS="$CI_WORK/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
export PATH CI_WORK NODE_BIN CONFORMANCE_BIN EVERYTHING_SERVER_JS
echo "node: $NODE_BIN ($("$NODE_BIN" --version)), ${PINNED_PACKAGES[*]}" >&2
