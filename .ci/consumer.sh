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
EXIT_WITHIN_S=10
ANSWER_WITHIN_S=120
# what server-everything's echo tool answers to the example's "hi"
ANSWER='Echo: hi'

# server-everything, pinned, in .ci/.work (run from there, npx finds it without fetching)
# shellcheck source=node-env.sh
source .ci/node-env.sh

echo "== mvn -B -q -DskipTests install (the README's install step)"
mvn -B -q -DskipTests install

version="$(python3 -c 'import xml.etree.ElementTree as ET; ns={"m": "http://maven.apache.org/POM/4.0.0"}; print(ET.parse("pom.xml").getroot().find("m:version", ns).text)')"
project="$(mktemp -d)"
trap 'rm -rf "$project"' EXIT
mkdir -p "$project/src/main/java"
# the example between its marker and the end of its code block
awk '/<!-- compiled: ReadmeExample.java -->/ {found=1; next}
     found && /^```java/ {inside=1; next}
     inside && /^```/ {exit}
     inside {print}' README.md >"$project/src/main/java/ReadmeExample.java"
[ -s "$project/src/main/java/ReadmeExample.java" ] || { echo "error: no README example found" >&2; exit 1; }
cat >"$project/pom.xml" <<POM
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>example</groupId>
  <artifactId>readme-consumer</artifactId>
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
    </dependencies>
  </dependencyManagement>
  <dependencies>
    <dependency>
      <groupId>dev.mcpsupervisor</groupId>
      <artifactId>mcp-supervisor-actors</artifactId>
    </dependency>
    <dependency>
      <groupId>ch.qos.logback</groupId>
      <artifactId>logback-classic</artifactId>
      <version>1.5.38</version>
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
        <artifactId>maven-dependency-plugin</artifactId>
        <version>3.8.1</version>
      </plugin>
    </plugins>
  </build>
</project>
POM
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

# every process below $1, as "pid" lines
descendants() {
  local child
  for child in $(ps -o pid= --ppid "$1"); do
    echo "$child"
    descendants "$child"
  done
}

echo "== the README's example runs: it answers, and its JVM then exits by itself within ${EXIT_WITHIN_S}s"
output="$project/run.out"
(cd "$CI_WORK" && exec java -cp "$project/target/classes:$project/target/deps/*" ReadmeExample) >"$output" 2>&1 &
jvm=$!
seen="$project/run.pids"
: >"$seen"
now_ms() { echo $(($(date +%s%N) / 1000000)); }
started="$(now_ms)"
answered=""
# bounded polling: the answer within ANSWER_WITHIN_S (a cold npx and JVM on a busy machine), then the exit within
# EXIT_WITHIN_S of it; meanwhile note the JVM's children (the server's process tree)
deadline=$((started + ANSWER_WITHIN_S * 1000))
while kill -0 "$jvm" 2>/dev/null && [ "$(now_ms)" -lt "$deadline" ]; do
  descendants "$jvm" >>"$seen"
  if [ -z "$answered" ] && grep -q "$ANSWER" "$output"; then
    answered="$(now_ms)"
    deadline=$((answered + EXIT_WITHIN_S * 1000))
  fi
  sleep 0.1
done
if kill -0 "$jvm" 2>/dev/null; then
  echo "error: the README example's JVM still runs ${EXIT_WITHIN_S}s after its answer (or no answer within ${ANSWER_WITHIN_S}s); its threads that are not daemon:" >&2
  jstack "$jvm" 2>/dev/null | grep '^"' | grep -v ' daemon ' >&2 || true
  kill -9 $(descendants "$jvm") "$jvm" 2>/dev/null || true
  cat "$output" >&2
  exit 1
fi
exited="$(now_ms)"
status=0
wait "$jvm" || status=$?
if [ "$status" -ne 0 ] || ! grep -q "$ANSWER" "$output"; then
  cat "$output" >&2
  echo "error: the README example exited with $status without its answer" >&2
  exit 1
fi
grep "$ANSWER" "$output"
left="$(sort -u "$seen" | while read -r pid; do kill -0 "$pid" 2>/dev/null && echo "$pid"; done || true)"
if [ -n "$left" ]; then
  echo "error: the README example left processes behind:" >&2
  ps -o pid=,args= -p $left >&2 || true
  kill -9 $left 2>/dev/null || true
  exit 1
fi
echo "README example answered in $((${answered:-$exited} - started)) ms and exited by itself $((exited - ${answered:-$exited})) ms later, $(sort -u "$seen" | wc -l) child processes seen, none left"
