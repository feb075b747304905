package dev.mcpsupervisor.app.runtime;

import com.typesafe.config.ConfigFactory;
import dev.mcpsupervisor.actors.SessionSupervisor;
import dev.mcpsupervisor.actors.telemetry.McpTelemetry;
import dev.mcpsupervisor.http.GatewayServer;
import dev.mcpsupervisor.http.ops.ConfigReloader;
import dev.mcpsupervisor.http.ops.GatewayMetrics;
import dev.mcpsupervisor.protocol.config.SupervisorConfig;
import dev.mcpsupervisor.upstream.DefaultConnectors;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** A running gateway: the session supervisor, and the HTTP server in front of it. */
public final class Application {

  private static final Logger log = LoggerFactory.getLogger(Application.class);

  private final SupervisorConfig config;
  private final SessionSupervisor supervisor;
  private final GatewayServer gateway;
  private final ConfigReloader reloader;
  private final AtomicBoolean stopping = new AtomicBoolean();
  private final CompletableFuture<Void> stopped = new CompletableFuture<>();

  private Application(
      SupervisorConfig config,
      SessionSupervisor supervisor,
      GatewayServer gateway,
      ConfigReloader reloader) {
    this.config = config;
    this.reloader = reloader;
    this.supervisor = supervisor;
    this.gateway = gateway;
  }

  /**
   * Starts the supervisor with the real connectors (stdio, Streamable HTTP, SSE) and binds the
   * gateway. Completes once it listens; fails (with the supervisor already shut down) when it
   * cannot bind.
   */
  public static CompletionStage<Application> start(SupervisorConfig config) {
    return start(config, McpTelemetry.OFF);
  }

  /** {@link #start(SupervisorConfig)}, traced with {@code telemetry}. */
  public static CompletionStage<Application> start(
      SupervisorConfig config, McpTelemetry telemetry) {
    return start(
        config, telemetry, null, ConfigReloader.BUILT_IN, CompletableFuture.completedFuture(null));
  }

  /**
   * {@link #start(SupervisorConfig, McpTelemetry)} of a configuration that {@link #reload} reads
   * again from {@code source} (null: none; {@code fingerprint} is {@code config}'s), warming up
   * after the bind: {@code /readyz} says {@code warming} until {@code warmedUp} completes.
   */
  public static CompletionStage<Application> start(
      SupervisorConfig config,
      McpTelemetry telemetry,
      ConfigReloader.Source source,
      String fingerprint,
      CompletionStage<?> warmedUp) {
    return start(
        config,
        telemetry,
        source,
        fingerprint,
        (supervisor, metrics, reloader) ->
            GatewayServer.start(supervisor, config.gateway(), metrics, reloader, warmedUp));
  }

  /**
   * {@link #start(SupervisorConfig)} with no port: a front in this JVM (the stdio front) hands the
   * gateway each request ({@link GatewayServer#handle}).
   */
  public static CompletionStage<Application> startInThisJvm(SupervisorConfig config) {
    return start(
        config,
        McpTelemetry.OFF,
        null,
        ConfigReloader.BUILT_IN,
        (supervisor, metrics, reloader) ->
            GatewayServer.startInThisJvm(supervisor, config.gateway(), metrics, reloader));
  }

  /** How the gateway in front of the supervisor starts: bound, or in this JVM only. */
  @FunctionalInterface
  private interface GatewayStart {
    CompletionStage<GatewayServer> start(
        SessionSupervisor supervisor, GatewayMetrics metrics, ConfigReloader reloader);
  }

  private static CompletionStage<Application> start(
      SupervisorConfig config,
      McpTelemetry telemetry,
      ConfigReloader.Source source,
      String fingerprint,
      GatewayStart gatewayStart) {
    GatewayMetrics metrics = new GatewayMetrics();
    SessionSupervisor supervisor =
        SessionSupervisor.start(
            config, DefaultConnectors.create(), metrics, ConfigFactory.load(), telemetry);
    CompletableFuture<Application> started = new CompletableFuture<>();
    ConfigReloader reloader = new ConfigReloader(source, supervisor, metrics, fingerprint);
    gatewayStart
        .start(supervisor, metrics, reloader)
        .whenComplete(
            (gateway, failure) -> {
              if (failure == null) {
                started.complete(new Application(config, supervisor, gateway, reloader));
              } else {
                supervisor
                    .shutdown()
                    .whenComplete((done, ignored) -> started.completeExceptionally(failure));
              }
            });
    return started;
  }

  /** The bound address (with the real port when the configured one was 0). */
  public InetSocketAddress address() {
    return gateway.address();
  }

  /** {@code http://H:N/mcp}, H as configured, N as bound (0 when it serves this JVM only). */
  public String mcpUrl() {
    String host = config.gateway().host();
    String printableHost = host.contains(":") && !host.startsWith("[") ? "[" + host + "]" : host;
    return "http://" + printableHost + ":" + address().getPort() + "/mcp";
  }

  /**
   * From now on, reloads the configuration when the contents of {@code file} change ({@code
   * gateway.watchConfig}), or those of the {@code gateway.identitySecrets} file the configuration
   * in force names: looked at every {@code interval}, reloaded {@code by file watch} once a change
   * reads the same at two looks in a row ({@link ConfigFileWatch}).
   */
  public CompletionStage<Void> watch(Path file, Duration interval) {
    log.info("watching {} for changes (gateway.watchConfig)", file);
    Supplier<List<Path>> files =
        () -> {
          Path secrets = supervisor.config().gateway().identitySecrets().file();
          return secrets == null ? List.of(file) : List.of(file, secrets);
        };
    return supervisor
        .spawn(
            ConfigFileWatch.create(files, interval, () -> reload("by file watch")),
            "mcp-config-file-watch")
        .thenApply(watching -> null);
  }

  /** Re-reads the configuration and applies it, or changes nothing and says why. */
  public CompletionStage<ConfigReloader.Outcome> reload(String by) {
    return reloader.reload(by);
  }

  public SessionSupervisor supervisor() {
    return supervisor;
  }

  /** The gateway's HTTP server, whose routes a front in this JVM may call without a connection. */
  public GatewayServer gateway() {
    return gateway;
  }

  /**
   * Stops accepting requests, lets calls in flight finish up to {@code drainDeadline}, then closes
   * every upstream session and child process. Idempotent: later calls answer the first call's
   * stage.
   */
  public CompletionStage<Void> stop(Duration drainDeadline) {
    if (stopping.compareAndSet(false, true)) {
      log.info(
          "shutting down: draining requests for up to {} ms, then closing every upstream session",
          drainDeadline.toMillis());
      gateway
          .stop(drainDeadline)
          .handle(
              (done, failure) -> {
                if (failure != null) {
                  log.warn("gateway did not stop cleanly: {}", failure.toString());
                }
                return null;
              })
          .thenCompose(ignored -> supervisor.shutdown())
          .whenComplete(
              (done, failure) -> {
                if (failure != null) {
                  stopped.completeExceptionally(failure);
                } else {
                  log.info("stopped: every upstream session closed");
                  stopped.complete(null);
                }
              });
    }
    return stopped;
  }
}
