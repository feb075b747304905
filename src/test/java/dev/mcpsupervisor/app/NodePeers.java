package dev.mcpsupervisor.app;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * MCP peers nobody here wrote, from npm: Node and the pinned packages that .ci/node-env.sh installs
 * into .ci/.work, and the scripts in src/test/node that drive them. A test that needs a package
 * that is not installed is skipped with a message saying how to install it (.ci/run installs them
 * and fails when such a test was skipped).
 */
final class NodePeers {

  static final String EVERYTHING = "@modelcontextprotocol/server-everything";
  static final String SDK_V1 = "@modelcontextprotocol/sdk";
  static final String CLIENT_V2 = "@modelcontextprotocol/client";
  static final String SERVER_V2 = "@modelcontextprotocol/server";

  static final Path CI_WORK =
      Path.of(System.getProperty("mcp-supervisor.ci-work", "../.ci/.work")).toAbsolutePath();
  private static final Path NODE_MODULES = CI_WORK.resolve("node_modules");
  private static final Path SCRIPTS =
      Path.of(System.getProperty("mcp-supervisor.node-scripts", "test/node")).toAbsolutePath();

  private NodePeers() {}

  /** The packages of {@code packages} that are not installed in .ci/.work. */
  static List<String> missing(String... packages) {
    return Stream.of(packages)
        .filter(name -> !Files.isRegularFile(NODE_MODULES.resolve(name).resolve("package.json")))
        .toList();
  }

  /**
   * Skips the calling test unless every package is installed in .ci/.work. Call it per test (in a
   * {@code @BeforeEach}): a failed assumption in a {@code @BeforeAll} leaves no test in the report,
   * not a skipped one.
   */
  static void assumeInstalled(String... packages) {
    List<String> missing = missing(packages);
    assumeTrue(
        missing.isEmpty(),
        missing
            + " not installed in "
            + CI_WORK
            + " (`source .ci/node-env.sh` or .ci/run installs the pinned packages)");
  }

  /**
   * The node that .ci/node-env.sh installed (Node 22) when the machine's is older, else the
   * machine's.
   */
  static String node() {
    Path installed = NODE_MODULES.resolve(".bin/node");
    return Files.isExecutable(installed) ? installed.toString() : "node";
  }

  /** server-everything's entry point; started with {@code stdio} it is a stdio MCP server. */
  static Path everythingServer() {
    return NODE_MODULES.resolve(EVERYTHING).resolve("dist/index.js");
  }

  /**
   * Copies the scripts into {@code dir} beside a {@code node_modules} link to .ci/.work's, so their
   * {@code import}s resolve there; answers {@code dir}.
   */
  static Path scripts(Path dir) {
    try (Stream<Path> sources = Files.list(SCRIPTS)) {
      for (Path source : sources.filter(path -> path.toString().endsWith(".mjs")).toList()) {
        Files.copy(source, dir.resolve(source.getFileName()));
      }
      Files.createSymbolicLink(dir.resolve("node_modules"), NODE_MODULES);
      return dir;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot prepare the node scripts of " + SCRIPTS, e);
    }
  }

  /** {@code node <script> <args...>}, the script taken from a directory {@link #scripts} made. */
  static List<String> command(Path scripts, String script, String... args) {
    List<String> command = new ArrayList<>(List.of(node(), scripts.resolve(script).toString()));
    command.addAll(List.of(args));
    return command;
  }
}
