#!/usr/bin/env bash
# docs/testing.md's examples, run as a new user runs them: a fresh Maven project on mcp-supervisor-bom (imported) with
# mcp-supervisor-testkit, mcp-supervisor-langchain4j (LangChain4j 1.11.0), junit-jupiter and logback-classic in test
# scope, the docs' Weather scenario, WeatherTest, HttpProcessTest, CircuitTest and AssistantTest as written in
# src/test/java, and `mvn test`: each test must pass (the scripted server over stdio dies between two calls and the
# next call is answered, by the client and by a LangChain4j agent with a scripted ChatModel; so does the scripted
# server over HTTP as a child process, started again on its port; three failed starts open the circuit),
# and the extension's own check fails a test that leaves a process behind. Then the docs' Spring Boot example
# (ForecastModel, ForecastTest with the same Weather scenario) in a second project on the BOM with
# mcp-supervisor-spring-ai, Spring Boot's and Spring AI's BOMs, spring-ai-client-chat (which brings networknt's
# json-schema-validator 3) and spring-boot-starter-test, once per pair of TESTKIT_SPRING_MATRIX (the oldest and the
# newest Boot of .ci/consumer-spring-ai.sh's matrix, Spring AI 2.0.1).
#
# Assumes the artifacts are installed (.ci/consumer.sh runs `mvn -B -q -DskipTests install` first). MAVEN_REPO_LOCAL,
# when set, is the local repository they were installed into.
set -euo pipefail
cd "$(dirname "$0")/.."
source .ci/consumer-lib.sh

repo=()
[ -n "${MAVEN_REPO_LOCAL:-}" ] && repo=("-Dmaven.repo.local=$MAVEN_REPO_LOCAL")

# run_tests DIR OUT WHAT: `mvn test` in DIR, its output to OUT: on failure its tail and the test reports, and an error
# naming WHAT; else the reports' counts and how long it took
run_tests() {
  local dir="$1" out="$2" what="$3" started report
  started="$(now_ms)"
  if ! (cd "$dir" && mvn -B -q "${repo[@]}" test >"$out" 2>&1); then
    tail -n 60 "$out" >&2
    for report in "$dir"/target/surefire-reports/*.txt; do
      [ -f "$report" ] && cat "$report" >&2
    done
    echo "error: $what failed" >&2
    exit 1
  fi
  grep -h "Tests run" "$dir"/target/surefire-reports/*.txt
  echo "$what passed in $(($(now_ms) - started)) ms"
}

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
project="$work/testkit-consumer"
mkdir -p "$project/src/test/java"
for example in Weather.java WeatherTest.java HttpProcessTest.java CircuitTest.java AssistantTest.java; do
  example_from docs/testing.md "$example" "$project/src/test/java/$example"
done
bom_project "$project" testkit-consumer "dev.langchain4j:langchain4j-bom:1.11.0" \
  dev.mcpsupervisor:mcp-supervisor-testkit::test dev.mcpsupervisor:mcp-supervisor-langchain4j::test \
  org.junit.jupiter:junit-jupiter:5.14.4:test ch.qos.logback:logback-classic:1.5.38:test
echo "== a new project on the BOM runs docs/testing.md's tests with mcp-supervisor-testkit"
run_tests "$project" "$project/out.txt" "docs/testing.md's tests in a new project on the BOM"

TESTKIT_SPRING_MATRIX="${TESTKIT_SPRING_MATRIX:-4.0.7:2.0.1 4.1.2:2.0.1}"
spring="$work/testkit-spring-consumer"
mkdir -p "$spring/src/test/java"
cp "$project/src/test/java/Weather.java" "$spring/src/test/java/"
for example in ForecastModel.java ForecastTest.java; do
  example_from docs/testing.md "$example" "$spring/src/test/java/$example"
done
for pair in $TESTKIT_SPRING_MATRIX; do
  boot="${pair%%:*}"
  ai="${pair##*:}"
  bom_project "$spring" testkit-spring-consumer \
    "org.springframework.boot:spring-boot-dependencies:$boot org.springframework.ai:spring-ai-bom:$ai" \
    dev.mcpsupervisor:mcp-supervisor-spring-ai org.springframework.boot:spring-boot-starter \
    org.springframework.ai:spring-ai-autoconfigure-model-chat-client \
    org.springframework.ai:spring-ai-autoconfigure-model-tool org.springframework.ai:spring-ai-client-chat \
    dev.mcpsupervisor:mcp-supervisor-testkit::test org.springframework.boot:spring-boot-starter-test::test
  echo "== docs/testing.md's Spring Boot test on Spring Boot $boot, Spring AI $ai"
  rm -rf "$spring/target"
  run_tests "$spring" "$spring/out-$boot-$ai.txt" \
    "docs/testing.md's Spring Boot test on Spring Boot $boot, Spring AI $ai"
done
