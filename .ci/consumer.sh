#!/usr/bin/env bash
# The README's "Embed" promise, checked as a new user meets it: the artifacts installed with `mvn -B -DskipTests
# install`, then a new Maven project that imports only mcp-supervisor-bom and depends on mcp-supervisor-actors (and an
# SLF4J provider) compiles the README's example exactly as written there.
set -euo pipefail
cd "$(dirname "$0")/.."

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
    </plugins>
  </build>
</project>
POM
echo "== a new project on the BOM and mcp-supervisor-actors $version compiles the README's example"
(cd "$project" && mvn -B -q compile)
echo "README example compiled in a new project"
