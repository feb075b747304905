#!/usr/bin/env bash
# The README's "Embed" promise, checked as a new user meets it: the artifacts installed with `mvn -B -DskipTests
# install`, then a new Maven project that imports only mcp-supervisor-bom and depends on mcp-supervisor-actors (and an
# SLF4J provider) compiles the README's example exactly as written there, resolves to at most MAX_EMBED_MB of jars
# (their count and size printed), and runs it against server-everything: it prints the answer, and its JVM then exits
# by itself within EXIT_WITHIN_S seconds, leaving no process behind.
# By hand, keep the install out of the shared ~/.m2: MAVEN_OPTS=-Dmaven.repo.local=/some/private/repo .ci/consumer.sh
set -euo pipefail
cd "$(dirname "$0")/.."

MAX_EMBED_MB=25
# what server-everything's echo tool answers to the example's "hi"
ANSWER='Echo: hi'

# server-everything, pinned, in .ci/.work (run from there, npx finds it without fetching)
# shellcheck source=node-env.sh
source .ci/node-env.sh
# shellcheck source=consumer-lib.sh
source .ci/consumer-lib.sh

echo "== mvn -B -q -DskipTests install (the README's install step)"
mvn -B -q -DskipTests install

version="$(project_version)"
project="$(mktemp -d)"
trap 'rm -rf "$project"' EXIT
mkdir -p "$project/src/main/java"
example_from README.md ReadmeExample.java "$project/src/main/java/ReadmeExample.java"
bom_project "$project" readme-consumer "" dev.mcpsupervisor:mcp-supervisor-actors ch.qos.logback:logback-classic:1.5.38
echo "== a new project on the BOM and mcp-supervisor-actors $version compiles the README's example"
(cd "$project" && mvn -B -q compile dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory=target/deps)
echo "README example compiled in a new project"

# what a plain embed ships: every runtime jar, logback included (MB = 10^6 bytes)
jars="$(find "$project/target/deps" -name '*.jar' | wc -l)"
bytes="$(find "$project/target/deps" -name '*.jar' -printf '%s\n' | awk '{ total += $1 } END { print total }')"
megabytes="$(awk -v b="$bytes" 'BEGIN { printf "%.1f", b / 1000000 }')"
echo "plain embed: $jars jars, $megabytes MB"
(cd "$project/target/deps" && ls -S | head -5 | sed 's/^/  largest: /')
if [ "$bytes" -gt $((MAX_EMBED_MB * 1000000)) ]; then
  echo "error: a plain embed resolves $megabytes MB of jars, over $MAX_EMBED_MB MB" >&2
  exit 1
fi

echo "== the README's example runs: it answers, and its JVM then exits by itself"
run_to_exit "the README example" "$project/run.out" "$ANSWER" -- \
  bash -c 'cd "$1" && exec java -cp "$2/target/classes:$2/target/deps/*" ReadmeExample' _ "$CI_WORK" "$project"
