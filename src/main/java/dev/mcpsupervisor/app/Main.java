package dev.mcpsupervisor.app;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.mcpsupervisor.actors.base.SupervisorSettings;
import dev.mcpsupervisor.app.bench.BenchCommand;
import dev.mcpsupervisor.app.bench.FloorCommand;
import dev.mcpsupervisor.app.chaos.ChaosCommand;
import dev.mcpsupervisor.app.cli.Arguments;
import dev.mcpsupervisor.app.cli.Command;
import dev.mcpsupervisor.app.cli.CommandLine;
import dev.mcpsupervisor.app.cli.Flag;
import dev.mcpsupervisor.app.cli.Syntax;
import dev.mcpsupervisor.app.demo.DemoConfig;
import dev.mcpsupervisor.app.runtime.Application;
import dev.mcpsupervisor.app.runtime.TerminationSignals;
import dev.mcpsupervisor.app.runtime.Versions;
import dev.mcpsupervisor.app.stdio.ConnectCommand;
import dev.mcpsupervisor.app.stdio.StdioCommand;
import dev.mcpsupervisor.http.ops.ConfigReloader;
import dev.mcpsupervisor.protocol.config.BindSafety;
import dev.mcpsupervisor.protocol.config.ConfigException;
import dev.mcpsupervisor.protocol.config.ConfigLoader;
import dev.mcpsupervisor.protocol.config.GatewayConfig;
import dev.mcpsupervisor.protocol.config.SupervisorConfig;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code java -jar mcp-supervisor.jar [--config FILE] [--host H] [--port N]
 * [--allow-unauthenticated] [--warmup-calls N]}: starts the gateway, prints one line, {@code
 * mcp-supervisor listening on http://H:N/mcp}, once it is bound, then warms up ({@link Warmup}).
 * Exit status: 0 after a clean shutdown (SIGTERM, SIGINT), 2 for a bad configuration or bad flags
 * (one line on stderr), 1 when the gateway cannot start. {@code bench URL ...} is the load
 * generator ({@link BenchCommand}); {@code stdio} and {@code connect URL} serve MCP on stdin/stdout
 * ({@link StdioCommand}, {@link ConnectCommand}).
 */
public final class Main implements Command {

  static final int EXIT_OK = 0;
  static final int EXIT_FAILED = CommandLine.EXIT_FAILED;
  static final int EXIT_USAGE = CommandLine.EXIT_USAGE;
  static final String LISTENING = "mcp-supervisor listening on ";

  private static final Logger log = LoggerFactory.getLogger(Main.class);

  /** Seconds the JDK's HTTP client keeps an idle connection (its default: 1200). */
  private static final String HTTP_CLIENT_KEEPALIVE = "jdk.httpclient.keepalive.timeout";

  /** The application's own settings in reference.conf. */
  private static final String SETTINGS = "mcp-supervisor.application";

  /**
   * Slack beyond the drain and the supervisor's own shutdown (its drainTimeout, which finds nothing
   * in flight after the gateway's drain unless that timed out, and its shutdownTimeout).
   */
  private static final Duration STOP_SLACK = Duration.ofSeconds(10);

  /**
   * How often {@code gateway.watchConfig} looks at the file: a change is applied within 2 looks.
   */
  private static final Duration WATCH_INTERVAL = Duration.ofSeconds(1);

  private static final Syntax SYNTAX =
      new Syntax(
          "mcp-supervisor",
          "Serves MCP servers (stdio processes it supervises, remote Streamable HTTP or SSE servers)"
              + " behind one Streamable HTTP endpoint. Without --config it serves a built-in demo"
              + " server named \""
              + DemoConfig.SERVER_NAME
              + "\".",
          List.of(),
          List.of(
              Flag.option(
                  "--config",
                  "FILE",
                  "JSON or HOCON file in the MCP client format (mcpServers.<name>, optional gateway"
                      + " section)"),
              Flag.option(
                  "--host", "H", "address to bind (overrides gateway.host; default 127.0.0.1)"),
              Flag.option(
                  "--port",
                  "N",
                  "port to bind, 0 for any free port (overrides gateway.port; default 8080)"),
              Flag.toggle(
                  "--allow-unauthenticated",
                  "serve on a non-loopback address without gateway.authTokens (anyone who reaches"
                      + " it may call every server; gateway.allowedHosts is still required)"),
              Flag.toggle(
                  "--otel",
                  "trace and time MCP requests with OpenTelemetry, exported over OTLP as the"
                      + " standard OTEL_* variables say (default http://localhost:4318); setting an"
                      + " OTEL_* exporter or endpoint variable turns it on too"),
              Flag.option(
                  "--warmup-calls",
                  "N",
                  "once listening, run N calls through a private gateway in front of the built-in"
                      + " demo server so that later calls run compiled code; /readyz answers 503"
                      + " until it is done (overrides mcp-supervisor.application.warmup.calls; 0: no"
                      + " warm-up)")));

  public static void main(String[] args) {
    CommonPoolParallelism.ensureMinimum();
    if (System.getProperty(HTTP_CLIENT_KEEPALIVE) == null) {
      // the JDK's HTTP client keeps an idle connection 1200 s, far longer than servers do (this
      // gateway closes one after requestHeaderTimeout, 20 s): its next POST would go out on a
      // connection the server is closing and fail, unanswered (the stdio front after a pause)
      System.setProperty(HTTP_CLIENT_KEEPALIVE, "10");
    }
    System.exit(run(new PrintWriter(System.out, true), new PrintWriter(System.err, true), args));
  }

  /** Parses the flags and runs; returns the exit status. */
  static int run(PrintWriter out, PrintWriter err, String... args) {
    return new CommandLine(
            new Main(),
            List.of(
                new BenchCommand(),
                new FloorCommand(),
                new ChaosCommand(),
                new StdioCommand(),
                new ConnectCommand()),
            "mcp-supervisor " + Versions.application())
        .execute(out, err, args);
  }

  @Override
  public Syntax syntax() {
    return SYNTAX;
  }

  @Override
  public int run(Arguments arguments, PrintWriter out, PrintWriter err) {
    Options options =
        new Options(
            arguments.path("--config"),
            arguments.text("--host"),
            arguments.integer("--port"),
            arguments.has("--allow-unauthenticated"),
            arguments.has("--otel"),
            arguments.integer("--warmup-calls"));
    ConfigReloader.Source source = options.config() == null ? null : options::readConfig;
    ConfigLoader.Loaded loaded;
    WarmupSettings warmup;
    try {
      loaded =
          source == null
              ? new ConfigLoader.Loaded(
                  options.withOverrides(DemoConfig.create()), ConfigReloader.BUILT_IN)
              : source.read();
      warmup = options.warmupSettings();
    } catch (ConfigException e) {
      err.println(e.getMessage());
      return EXIT_USAGE;
    }
    return serve(options, loaded, source, warmup, out, err);
  }

  /** The gateway's flags, as given ({@code null}: not given). */
  private record Options(
      Path config,
      String host,
      Integer port,
      boolean allowUnauthenticated,
      boolean otel,
      Integer warmupCalls) {

    /** The --config file with --host and --port over it: at start, and again at each reload. */
    private ConfigLoader.Loaded readConfig() {
      ConfigLoader.Loaded file = ConfigLoader.loadWithFingerprint(config);
      return new ConfigLoader.Loaded(withOverrides(file.config()), file.fingerprint());
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
          gateway.withAddress(
              host != null ? host : gateway.host(), port != null ? port : gateway.port());
      BindSafety.refusal(overridden, allowUnauthenticated)
          .ifPresent(
              problem -> {
                throw new ConfigException(host != null ? "--host" : "gateway.host", problem);
              });
      return new SupervisorConfig(loaded.servers(), overridden);
    }

    /** The configured warm-up, with {@code --warmup-calls} over its count. */
    private WarmupSettings warmupSettings() {
      WarmupSettings configured =
          WarmupSettings.fromConfig(ConfigFactory.load().getConfig(SETTINGS), SETTINGS);
      return warmupCalls == null ? configured : configured.withCalls(warmupCalls);
    }
  }

  /**
   * Starts the gateway, prints the listening line, warms up, and serves until SIGTERM or SIGINT.
   */
  private static int serve(
      Options options,
      ConfigLoader.Loaded loaded,
      ConfigReloader.Source source,
      WarmupSettings warmup,
      PrintWriter out,
      PrintWriter err) {
    SupervisorConfig configuration = loaded.config();
    Config settings = ConfigFactory.load().getConfig(SETTINGS);
    Duration startTimeout = settings.getDuration("startTimeout");
    Duration drainDeadline = settings.getDuration("drainDeadline");
    Duration stopBound = stopBound(ConfigFactory.load());
    CompletableFuture<String> signalled = TerminationSignals.install();
    CompletableFuture<Void> warmedUp = new CompletableFuture<>();
    Tracing tracing = Tracing.of(options.otel(), System::getenv);
    if (tracing.isOn()) {
      log.info("OpenTelemetry on: MCP requests are traced and timed");
    }
    Application application;
    try {
      application =
          Application.start(
                  configuration, tracing.telemetry(), source, loaded.fingerprint(), warmedUp)
              .toCompletableFuture()
              .get(startTimeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException | TimeoutException e) {
      tracing.close();
      GatewayConfig gateway = configuration.gateway();
      err.println(
          "mcp-supervisor: cannot listen on "
              + gateway.host()
              + ":"
              + gateway.port()
              + ": "
              + reason(e));
      return EXIT_FAILED;
    } catch (InterruptedException e) {
      tracing.close();
      Thread.currentThread().interrupt();
      return EXIT_FAILED;
    }
    // any other way the JVM ends (System.exit, an error elsewhere) still drains and closes every
    // child
    // process
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  awaitStopped(application, drainDeadline, stopBound);
                  tracing.close();
                },
                "mcp-supervisor-shutdown"));
    if (!ReloadSignal.install(() -> application.reload("by SIGHUP"))) {
      log.warn(
          "SIGHUP does not reload the configuration here (ignored since start, e.g. by nohup):"
              + " use POST /admin/reload or gateway.watchConfig");
    }
    if (options.config() != null && configuration.gateway().watchConfig()) {
      application.watch(options.config(), WATCH_INTERVAL);
    }
    out.println(LISTENING + application.mcpUrl());
    out.flush();
    // after the bind: the gateway serves meanwhile (sharing the CPU), /readyz says warming
    Warmup.run(warmup, signalled);
    warmedUp.complete(null);
    CompletableFuture<Object> systemEnded =
        application
            .supervisor()
            .actorSystem()
            .getWhenTerminated()
            .toCompletableFuture()
            .thenApply(done -> null);
    Object signal = CompletableFuture.anyOf(signalled, systemEnded).join();
    if (signal == null) {
      log.error("the actor system stopped on its own; exiting");
      return EXIT_FAILED;
    }
    log.info("SIG{} received", signal);
    boolean stopped = awaitStopped(application, drainDeadline, stopBound);
    tracing.close();
    return stopped ? EXIT_OK : EXIT_FAILED;
  }

  /**
   * How long a stop may take, at most, under {@code config}: the drain, the supervisor's shutdown,
   * slack. A container's grace period must be longer (deploy/kubernetes is checked against it).
   */
  static Duration stopBound(Config config) {
    return config
        .getDuration(SETTINGS + ".drainDeadline")
        .plus(SupervisorSettings.fromConfig(config).shutdownBound())
        .plus(STOP_SLACK);
  }

  /**
   * Stops the application and waits, at most {@code bound}: the drain, then closing every session,
   * plus slack.
   */
  private static boolean awaitStopped(
      Application application, Duration drainDeadline, Duration bound) {
    try {
      application
          .stop(drainDeadline)
          .toCompletableFuture()
          .get(bound.toMillis(), TimeUnit.MILLISECONDS);
      return true;
    } catch (ExecutionException | TimeoutException e) {
      log.error("shutdown did not complete within {} ms: {}", bound.toMillis(), reason(e));
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /**
   * The innermost cause's message: "[/127.0.0.1:8080] Address already in use", not a wrapper's
   * class name.
   */
  static String reason(Throwable failure) {
    if (failure instanceof TimeoutException) {
      return "timed out";
    }
    Throwable root = failure;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    return root.getMessage() != null ? root.getMessage() : root.getClass().getSimpleName();
  }
}
