package dev.mcpsupervisor.upstream;

import dev.mcpsupervisor.protocol.config.ServerSpec;
import dev.mcpsupervisor.protocol.config.UpstreamLimits;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;

/**
 * Spawns a stdio MCP server: the configured command and args, the allow-listed part of the
 * gateway's environment (all of it with {@code inheritEnv}) plus the configured variables, the
 * configured working directory. See {@link StdioConnection} for what the connection does; a server
 * of 2026-07-28 is spoken to through a {@link StatelessAdapter}, found out by an {@link
 * AutoEraConnection} when the spec's protocol is auto.
 */
public final class StdioConnector implements UpstreamConnector {

  /** How long a closing connection waits after TERM before it KILLs what is left. */
  public static final Duration DEFAULT_GRACE = Duration.ofSeconds(2);

  /** What a server gets of the gateway's environment unless its spec says {@code inheritEnv}. */
  public static final Set<String> INHERITED_ENV =
      Set.of("PATH", "HOME", "USER", "LANG", "TERM", "SHELL", "TMPDIR");

  private final Duration grace;
  // fork/exec blocks for a moment: never on the caller's (an actor's) thread
  private final ExecutorService spawner = DaemonThreads.cachedPool("mcp-stdio-spawn");

  public StdioConnector() {
    this(DEFAULT_GRACE);
  }

  /**
   * @param grace how long close() waits between TERM and KILL
   */
  public StdioConnector(Duration grace) {
    this.grace = grace;
  }

  @Override
  public CompletionStage<UpstreamConnection> connect(ServerSpec spec, ConnectionListener listener) {
    return connect(spec, DEFAULT_LIMITS, listener);
  }

  @Override
  public CompletionStage<UpstreamConnection> connect(
      ServerSpec spec, UpstreamLimits limits, ConnectionListener listener) {
    if (!(spec instanceof ServerSpec.Stdio stdio)) {
      return CompletableFuture.failedFuture(
          new IllegalArgumentException("the stdio connector cannot open " + spec.transport()));
    }
    return CompletableFuture.supplyAsync(
        () -> spawn(stdio, limits.maxMessageBytes(), listener), spawner);
  }

  private UpstreamConnection spawn(
      ServerSpec.Stdio spec, int maxMessageBytes, ConnectionListener listener) {
    List<String> command = new ArrayList<>();
    command.add(spec.command());
    command.addAll(spec.args());
    ProcessBuilder builder = new ProcessBuilder(ProcessGroups.inOwnGroup(command));
    Map<String, String> environment = builder.environment();
    if (!spec.inheritEnv()) {
      // the gateway's environment holds the values behind its ${VAR} substitutions
      environment.keySet().retainAll(INHERITED_ENV);
    }
    environment.putAll(spec.env());
    if (spec.cwd() != null && !spec.cwd().isEmpty()) {
      Path cwd = Path.of(spec.cwd());
      if (!Files.isDirectory(cwd)) {
        throw new CompletionException(
            new IOException(
                "cannot start \""
                    + spec.command()
                    + "\": working directory "
                    + cwd
                    + " does not exist"));
      }
      builder.directory(cwd.toFile());
    }
    Process process;
    try {
      requireExecutable(spec.command(), builder.directory());
      process = builder.start();
    } catch (IOException e) {
      throw new CompletionException(new IOException(startFailure(spec.command(), e), e));
    }
    String name = serverName(spec.command());
    return switch (spec.protocol()) {
      case SESSION -> StdioConnection.start(process, name, grace, maxMessageBytes, listener);
      case STATELESS -> {
        StatelessAdapter adapter = new StatelessAdapter("stdio server " + name, listener, null);
        yield adapter.attach(StdioConnection.start(process, name, grace, maxMessageBytes, adapter));
      }
      case AUTO, AUTO_SESSION_ERA_FIRST -> // one process: the session era first either way
          AutoEraConnection.overOneTransport(
              "stdio server " + name,
              listener,
              transportListener ->
                  StdioConnection.start(process, name, grace, maxMessageBytes, transportListener));
    };
  }

  /**
   * The checks the JDK's own exec would make, made here because the server is started through
   * setsid (which would only exit 1): a bare name must be an executable on the PATH, a path an
   * executable file.
   */
  private static void requireExecutable(String command, File directory) throws IOException {
    if (!ProcessGroups.available()) {
      return; // started directly: the JDK reports these itself
    }
    List<File> candidates = new ArrayList<>();
    if (command.contains(File.separator)) {
      File file = new File(command);
      candidates.add(file.isAbsolute() || directory == null ? file : new File(directory, command));
    } else {
      String path = System.getenv("PATH");
      for (String entry : (path == null ? "" : path).split(File.pathSeparator)) {
        candidates.add(new File(entry.isEmpty() ? "." : entry, command));
      }
    }
    if (candidates.stream().noneMatch(File::isFile)) {
      throw new IOException(
          "Cannot run program \"" + command + "\": error=2, No such file or directory");
    }
    if (candidates.stream().noneMatch(file -> file.isFile() && file.canExecute())) {
      throw new IOException("Cannot run program \"" + command + "\": error=13, Permission denied");
    }
  }

  private static String startFailure(String command, IOException e) {
    String reason = e.getMessage() == null ? e.toString() : e.getMessage();
    // the JDK reports exec failures as 'Cannot run program "x": error=2, No such file or directory'
    if (reason.contains("error=2,")) {
      return "command not found: \"" + command + "\" (not an executable file, nor on the PATH)";
    }
    if (reason.contains("error=13,")) {
      return "command not executable: \"" + command + "\" (permission denied)";
    }
    return "cannot start \"" + command + "\": " + reason;
  }

  /** "npx" for "/usr/bin/npx": the name threads and logs carry. */
  private static String serverName(String command) {
    String name = new File(command).getName();
    return name.isEmpty() ? command : name;
  }
}
