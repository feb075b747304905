# shellcheck shell=bash
# What the consumer checks share (sourced by .ci/consumer*.sh): our project's version, the docs' examples cut out as
# written, and a program run as a new user runs it: it must print its answer, then its JVM exit by itself, leaving
# no process behind. Processes are followed by PID (the JVM's descendants, polled while it runs), never by name.

# the project's version, from the root pom
project_version() {
  python3 -c 'import xml.etree.ElementTree as ET; ns={"m": "http://maven.apache.org/POM/4.0.0"}; print(ET.parse("pom.xml").getroot().find("m:version", ns).text)'
}

# bom_project DIR ARTIFACT "IMPORTS" DEPENDENCY...: writes DIR/pom.xml, a new user's project named ARTIFACT that imports
# mcp-supervisor-bom at our version and each BOM of IMPORTS (space-separated groupId:artifactId:version), depends on
# each DEPENDENCY (groupId:artifactId[:version[:scope]]; no version: the BOMs' own) and pins the compiler, surefire
# and dependency plugins
bom_project() {
  local dir="$1" artifact="$2" imports="$3" bom dependency group name version scope boms="" dependencies=""
  shift 3
  for bom in $imports; do
    IFS=: read -r group name version <<<"$bom"
    boms+="      <dependency>
        <groupId>$group</groupId><artifactId>$name</artifactId><version>$version</version>
        <type>pom</type><scope>import</scope>
      </dependency>
"
  done
  for dependency in "$@"; do
    IFS=: read -r group name version scope <<<"$dependency"
    dependencies+="    <dependency><groupId>$group</groupId><artifactId>$name</artifactId>${version:+<version>$version</version>}${scope:+<scope>$scope</scope>}</dependency>
"
  done
  cat >"$dir/pom.xml" <<POM
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>example</groupId>
  <artifactId>$artifact</artifactId>
  <version>1</version>
  <properties>
    <maven.compiler.release>17</maven.compiler.release>
    <project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>
  </properties>
  <dependencyManagement>
    <dependencies>
      <dependency>
        <groupId>dev.mcpsupervisor</groupId><artifactId>mcp-supervisor-bom</artifactId><version>$(project_version)</version>
        <type>pom</type><scope>import</scope>
      </dependency>
$boms    </dependencies>
  </dependencyManagement>
  <dependencies>
$dependencies  </dependencies>
  <build>
    <plugins>
      <plugin><groupId>org.apache.maven.plugins</groupId><artifactId>maven-compiler-plugin</artifactId><version>3.14.0</version></plugin>
      <plugin><groupId>org.apache.maven.plugins</groupId><artifactId>maven-surefire-plugin</artifactId><version>3.5.4</version></plugin>
      <plugin><groupId>org.apache.maven.plugins</groupId><artifactId>maven-dependency-plugin</artifactId><version>3.8.1</version></plugin>
    </plugins>
  </build>
</project>
POM
}

# example_from DOC MARKER OUT: the code block after "<!-- compiled: MARKER -->" in DOC, written to OUT
example_from() {
  awk -v marker="<!-- compiled: $2 -->" '$0 == marker {found=1; next}
       found && /^```java/ {inside=1; next}
       inside && /^```/ {exit}
       inside {print}' "$1" >"$3"
  [ -s "$3" ] || { echo "error: no $2 example found in $1" >&2; return 1; }
}

# every process below $1, one pid a line
descendants() {
  local child
  for child in $(ps -o pid= --ppid "$1"); do
    echo "$child"
    descendants "$child"
  done
}

now_ms() { echo $(($(date +%s%N) / 1000000)); }

# run_to_exit NAME OUT ANSWER -- COMMAND...: runs COMMAND (output to OUT) and requires, bounded by polling, a line
# matching the regex ANSWER within ANSWER_WITHIN_S (120: a cold npx and JVM on a busy machine), then the JVM's own exit
# within EXIT_WITHIN_S (10) of it, with status 0 and no process of its tree left. Prints the answer and the timings;
# on failure the JVM's threads that are not daemon, the output's tail, and returns 1 after killing what is left.
run_to_exit() {
  local name="$1" out="$2" answer="$3"
  shift 4
  local answer_within="${ANSWER_WITHIN_S:-120}" exit_within="${EXIT_WITHIN_S:-10}"
  "$@" >"$out" 2>&1 &
  local jvm=$! seen="$out.pids" started answered="" deadline status=0 left
  : >"$seen"
  started="$(now_ms)"
  deadline=$((started + answer_within * 1000))
  while kill -0 "$jvm" 2>/dev/null && [ "$(now_ms)" -lt "$deadline" ]; do
    descendants "$jvm" >>"$seen"
    if [ -z "$answered" ] && grep -Eq "$answer" "$out"; then
      answered="$(now_ms)"
      deadline=$((answered + exit_within * 1000))
    fi
    sleep 0.1
  done
  if kill -0 "$jvm" 2>/dev/null; then
    echo "error: $name still runs ${exit_within} s after its answer (or gave none within ${answer_within} s); its threads that are not daemon:" >&2
    jstack "$jvm" 2>/dev/null | grep '^"' | grep -v ' daemon ' >&2 || true
    kill -9 $(descendants "$jvm") "$jvm" 2>/dev/null || true
    tail -n 30 "$out" >&2
    return 1
  fi
  local exited
  exited="$(now_ms)"
  wait "$jvm" || status=$?
  if [ "$status" -ne 0 ] || ! grep -Eq "$answer" "$out"; then
    tail -n 30 "$out" >&2
    echo "error: $name exited with $status without its answer" >&2
    return 1
  fi
  grep -E "$answer" "$out"
  left="$(sort -u "$seen" | while read -r pid; do kill -0 "$pid" 2>/dev/null && echo "$pid"; done || true)"
  if [ -n "$left" ]; then
    echo "error: $name left processes behind:" >&2
    ps -o pid=,args= -p $left >&2 || true
    kill -9 $left 2>/dev/null || true
    return 1
  fi
  echo "$name answered in $((${answered:-$exited} - started)) ms and exited by itself $((exited - ${answered:-$exited})) ms later, $(sort -u "$seen" | wc -l) child processes seen, none left"
}
