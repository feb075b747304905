#!/usr/bin/env bash
# The Spring AI integration's compatibility matrix: its tests again with each pair of Spring Boot and Spring AI versions
# besides the one integrations/spring-ai/pom.xml builds with (Boot 4.0.7, Spring AI 2.0.1). Only that module and what it
# needs are built (reactor -am, no install); only its tests run. Supported: Spring Boot 4.0.x and 4.1.x with Spring AI
# 2.0.1 or later 2.x. SPRING_AI_MATRIX overrides the pairs ("boot:ai" separated by spaces).
set -euo pipefail
cd "$(dirname "$0")/.."

# the oldest Spring AI 2 (2.0.1, also the newest Maven Central served on 2026-11-27) with the newest Boot 4.0 and 4.1
SPRING_AI_MATRIX="${SPRING_AI_MATRIX:-4.0.9:2.0.1 4.1.2:2.0.1}"

for pair in $SPRING_AI_MATRIX; do
  boot="${pair%%:*}"
  ai="${pair##*:}"
  echo "== integrations/spring-ai tests on Spring Boot $boot, Spring AI $ai"
  mvn -B -q -pl integrations/spring-ai -am test \
    -Dspring-boot.version="$boot" -Dspring-ai.version="$ai" \
    -Dtest='dev/mcpsupervisor/springai/**/*Test' -Dsurefire.failIfNoSpecifiedTests=false
  for report in integrations/spring-ai/target/surefire-reports/TEST-*.xml; do
    grep -Eq 'errors="0" skipped="0" failures="0"' "$report" \
      || { echo "error: $report on Spring Boot $boot, Spring AI $ai" >&2; exit 1; }
  done
  echo "Spring Boot $boot, Spring AI $ai: $(cat integrations/spring-ai/target/surefire-reports/TEST-*.xml \
    | grep -Eo '<testsuite [^>]*tests="[0-9]+"' | grep -Eo 'tests="[0-9]+"' | grep -Eo '[0-9]+' | awk '{ n += $1 } END { print n }') tests passed"
done
