package dev.mcpsupervisor.app;

import dev.mcpsupervisor.protocol.config.ConfigException;
import dev.mcpsupervisor.protocol.config.ConfigLoader;
import dev.mcpsupervisor.protocol.config.GatewayConfig;
import dev.mcpsupervisor.protocol.config.SupervisorConfig;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.IVersionProvider;
import picocli.CommandLine.Option;

/**
 * {@code java -jar mcp-supervisor.jar [--config FILE] [--host H] [--port N]}: starts the gateway and prints one line,
 * {@code mcp-supervisor listening on http://H:N/mcp}, once it is bound. Exit status: 0 after a clean shutdown (SIGTERM,
 * SIGINT), 2 for a bad configuration or bad flags (one line on stderr), 1 when the gateway cannot start.
 */
@Command(
    name = "mcp-supervisor",
    mixinStandardHelpOptions = true,
    versionProvider = Main.Version.class,
    sortOptions = false,
    usageHelpAutoWidth = true,
    description =
        "Serves MCP servers (stdio processes it supervises, remote Streamable HTTP or SSE servers) behind one"
            + " Streamable HTTP endpoint. Without --config it serves a built-in demo server named \""
            + DemoConfig.SERVER_NAME
            + "\".")
public final class Main implements Callable<Integer> {

  static final int EXIT_OK = 0;
  static final int EXIT_FAILED = 1;
  static final int EXIT_USAGE = 2;

  @Option(
      names = "--config",
      paramLabel = "FILE",
      description = "JSON or HOCON file in the MCP client format (mcpServers.<name>, optional gateway section)")
  private Path config;

  @Option(names = "--host", paramLabel = "H", description = "address to bind (overrides gateway.host; default 127.0.0.1)")
  private String host;

  @Option(
      names = "--port",
      paramLabel = "N",
      description = "port to bind, 0 for any free port (overrides gateway.port; default 8080)")
  private Integer port;

  private final PrintWriter out;
  private final PrintWriter err;

  Main(PrintWriter out, PrintWriter err) {
    this.out = out;
    this.err = err;
  }

  public static void main(String[] args) {
    System.exit(run(new PrintWriter(System.out, true), new PrintWriter(System.err, true), args));
  }

  /** Parses the flags and runs; returns the exit status. */
  static int run(PrintWriter out, PrintWriter err, String... args) {
    CommandLine commandLine = new CommandLine(new Main(out, err));
    commandLine.setOut(out);
    commandLine.setErr(err);
    // one line, like a bad config, instead of picocli's message plus the whole usage
    commandLine.setParameterExceptionHandler(
        (exception, arguments) -> {
          err.println("mcp-supervisor: " + exception.getMessage() + suggestion(exception) + " (see --help)");
          return EXIT_USAGE;
        });
    return commandLine.execute(args);
  }

  private static String suggestion(CommandLine.ParameterException exception) {
    if (exception instanceof CommandLine.UnmatchedArgumentException unmatched && !unmatched.getSuggestions().isEmpty()) {
      return "; did you mean " + String.join(" or ", unmatched.getSuggestions()) + "?";
    }
    return "";
  }

  @Override
  public Integer call() {
    SupervisorConfig configuration;
    try {
      configuration = withOverrides(config == null ? DemoConfig.create() : ConfigLoader.load(config));
    } catch (ConfigException e) {
      err.println(e.getMessage());
      return EXIT_USAGE;
    }
    return serve(configuration);
  }

  /** Applies {@code --host} and {@code --port} over the file's gateway section. */
  private SupervisorConfig withOverrides(SupervisorConfig loaded) {
    if (port != null && (port < 0 || port > 65535)) {
      throw new ConfigException("--port", "must be from 0 to 65535, got " + port);
    }
    if (host != null && host.isBlank()) {
      throw new ConfigException("--host", "must not be empty");
    }
    GatewayConfig gateway = loaded.gateway();
    GatewayConfig overridden =
        new GatewayConfig(
            host != null ? host : gateway.host(),
            port != null ? port : gateway.port(),
            gateway.authTokens(),
            gateway.allowedOrigins(),
            gateway.maxBodyBytes(),
            gateway.sessionIdleTimeout());
    return new SupervisorConfig(loaded.servers(), overridden);
  }

  /** Until the HTTP gateway module lands: show what would be served, then exit. */
  private int serve(SupervisorConfig configuration) {
    GatewayConfig gateway = configuration.gateway();
    err.println("mcp-supervisor " + Versions.application() + ": the HTTP gateway is not built yet; it would serve on http://"
        + gateway.host() + ":" + gateway.port() + "/mcp:");
    configuration.servers().values().forEach(server ->
        err.println("  " + server.name() + " (" + server.spec().transport() + ") at /servers/" + server.name() + "/mcp"));
    return EXIT_OK;
  }

  /** {@code --version}: the Maven project version, filtered into a resource at build time. */
  static final class Version implements IVersionProvider {
    @Override
    public String[] getVersion() {
      return new String[] {"mcp-supervisor " + Versions.application()};
    }
  }
}
