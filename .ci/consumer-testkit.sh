#!/usr/bin/env bash
# docs/testing.md's examples, run as a new user runs them: a fresh Maven project on mcp-supervisor-bom (imported) with
# mcp-supervisor-testkit, mcp-supervisor-langchain4j (LangChain4j 1.11.0), junit-jupiter and logback-classic in test
# scope, the docs' Weather scenario, WeatherTest, CircuitTest and AssistantTest as written in src/test/java, and
# `mvn test`: each test must pass (the scripted server over stdio dies between two calls and the next call is
# answered, by the client and by a LangChain4j agent with a scripted ChatModel; three failed starts open the circuit),
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
version="$(project_version)"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
project="$work/testkit-consumer"
mkdir -p "$project/src/test/java"
for example in Weather.java WeatherTest.java CircuitTest.java AssistantTest.java; do
  example_from docs/testing.md "$example" "$project/src/test/java/$example"
done
cat >"$project/pom.xml" <<POM
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>example</groupId>
  <artifactId>testkit-consumer</artifactId>
  <version>1</version>
  <properties>
    <maven.compiler.release>17</maven.compiler.release>
    <project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>
  </properties>
  <dependencyManagement>
    <dependencies>
      <dependency>
        <groupId>dev.mcpsupervisor</groupId>
        <artifactId>mcp-supervisor-bom</artifactId>
        <version>$version</version>
        <type>pom</type>
        <scope>import</scope>
      </dependency>
      <dependency>
        <groupId>dev.langchain4j</groupId>
        <artifactId>langchain4j-bom</artifactId>
        <version>1.11.0</version>
        <type>pom</type>
        <scope>import</scope>
      </dependency>
    </dependencies>
  </dependencyManagement>
  <dependencies>
    <dependency>
      <groupId>dev.mcpsupervisor</groupId>
      <artifactId>mcp-supervisor-testkit</artifactId>
      <scope>test</scope>
    </dependency>
    <dependency>
      <groupId>dev.mcpsupervisor</groupId>
      <artifactId>mcp-supervisor-langchain4j</artifactId>
      <scope>test</scope>
    </dependency>
    <dependency>
      <groupId>org.junit.jupiter</groupId>
      <artifactId>junit-jupiter</artifactId>
      <version>5.14.4</version>
      <scope>test</scope>
    </dependency>
    <dependency>
      <groupId>ch.qos.logback</groupId>
      <artifactId>logback-classic</artifactId>
      <version>1.5.38</version>
      <scope>test</scope>
    </dependency>
  </dependencies>
  <build>
    <plugins>
      <plugin>
        <groupId>org.apache.maven.plugins</groupId>
        <artifactId>maven-compiler-plugin</artifactId>
        <version>3.14.0</version>
      </plugin>
      <plugin>
        <groupId>org.apache.maven.plugins</groupId>
        <artifactId>maven-surefire-plugin</artifactId>
        <version>3.5.4</version>
      </plugin>
    </plugins>
  </build>
</project>
POM
echo "== a new project on the BOM runs docs/testing.md's tests with mcp-supervisor-testkit"
started="$(now_ms)"
if ! (cd "$project" && mvn -B -q "${repo[@]}" test >"$project/out.txt" 2>&1); then
  tail -n 60 "$project/out.txt" >&2
  for report in "$project"/target/surefire-reports/*.txt; do
    [ -f "$report" ] && cat "$report" >&2
  done
  echo "error: docs/testing.md's tests failed in a consumer project" >&2
  exit 1
fi
grep -h "Tests run" "$project"/target/surefire-reports/*.txt
echo "docs/testing.md's tests passed in a new project on the BOM in $(($(now_ms) - started)) ms"

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
  cat >"$spring/pom.xml" <<POM
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>example</groupId>
  <artifactId>testkit-spring-consumer</artifactId>
  <version>1</version>
  <properties>
    <maven.compiler.release>17</maven.compiler.release>
    <project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>
  </properties>
  <dependencyManagement>
    <dependencies>
      <dependency>
        <groupId>dev.mcpsupervisor</groupId><artifactId>mcp-supervisor-bom</artifactId><version>$version</version>
        <type>pom</type><scope>import</scope>
      </dependency>
      <dependency>
        <groupId>org.springframework.boot</groupId><artifactId>spring-boot-dependencies</artifactId><version>$boot</version>
        <type>pom</type><scope>import</scope>
      </dependency>
      <dependency>
        <groupId>org.springframework.ai</groupId><artifactId>spring-ai-bom</artifactId><version>$ai</version>
        <type>pom</type><scope>import</scope>
      </dependency>
    </dependencies>
  </dependencyManagement>
  <dependencies>
    <dependency><groupId>dev.mcpsupervisor</groupId><artifactId>mcp-supervisor-spring-ai</artifactId></dependency>
    <dependency><groupId>org.springframework.boot</groupId><artifactId>spring-boot-starter</artifactId></dependency>
    <dependency><groupId>org.springframework.ai</groupId><artifactId>spring-ai-autoconfigure-model-chat-client</artifactId></dependency>
    <dependency><groupId>org.springframework.ai</groupId><artifactId>spring-ai-autoconfigure-model-tool</artifactId></dependency>
    <dependency><groupId>org.springframework.ai</groupId><artifactId>spring-ai-client-chat</artifactId></dependency>
    <dependency><groupId>dev.mcpsupervisor</groupId><artifactId>mcp-supervisor-testkit</artifactId><scope>test</scope></dependency>
    <dependency><groupId>org.springframework.boot</groupId><artifactId>spring-boot-starter-test</artifactId><scope>test</scope></dependency>
  </dependencies>
  <build>
    <plugins>
      <plugin><groupId>org.apache.maven.plugins</groupId><artifactId>maven-compiler-plugin</artifactId><version>3.14.0</version></plugin>
      <plugin><groupId>org.apache.maven.plugins</groupId><artifactId>maven-surefire-plugin</artifactId><version>3.5.4</version></plugin>
    </plugins>
  </build>
</project>
POM
  echo "== docs/testing.md's Spring Boot test on Spring Boot $boot, Spring AI $ai"
  started="$(now_ms)"
  rm -rf "$spring/target"
  if ! (cd "$spring" && mvn -B -q "${repo[@]}" test >"$spring/out-$boot-$ai.txt" 2>&1); then
    tail -n 60 "$spring/out-$boot-$ai.txt" >&2
    for report in "$spring"/target/surefire-reports/*.txt; do
      [ -f "$report" ] && cat "$report" >&2
    done
    echo "error: docs/testing.md's Spring Boot test failed on Spring Boot $boot, Spring AI $ai" >&2
    exit 1
  fi
  grep -h "Tests run" "$spring"/target/surefire-reports/*.txt
  echo "docs/testing.md's Spring Boot test passed on Spring Boot $boot, Spring AI $ai in $(($(now_ms) - started)) ms"
done
