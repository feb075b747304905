#!/usr/bin/env bash
# The LangChain4j integration's tests against each LangChain4j release of its matrix: the module builds on the oldest
# supported (its pom's langchain4j.version, 1.11.0); this runs the same tests with the reactor (no install) for the
# others. LANGCHAIN4J_VERSIONS overrides the list (langchain4j-bom versions; the BOM picks langchain4j-mcp's -betaNN).
# MAVEN_REPO_LOCAL, when set, is the local repository to use.
set -euo pipefail
cd "$(dirname "$0")/.."

versions=(${LANGCHAIN4J_VERSIONS:-1.18.1})
repo=()
[ -n "${MAVEN_REPO_LOCAL:-}" ] && repo=("-Dmaven.repo.local=$MAVEN_REPO_LOCAL")

for version in "${versions[@]}"; do
  echo "== integrations/langchain4j tests on LangChain4j $version"
  mvn -B "${repo[@]}" -pl integrations/langchain4j -am test -Dlangchain4j.version="$version" \
    -Dtest='dev/mcpsupervisor/langchain4j/**' -Dsurefire.failIfNoSpecifiedTests=false
done
