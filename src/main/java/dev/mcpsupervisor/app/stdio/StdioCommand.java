package dev.mcpsupervisor.app.stdio;

import dev.mcpsupervisor.app.cli.Arguments;
import dev.mcpsupervisor.app.cli.Command;
import dev.mcpsupervisor.app.cli.Flag;
import dev.mcpsupervisor.app.cli.Syntax;
import dev.mcpsupervisor.app.demo.DemoConfig;
import dev.mcpsupervisor.app.runtime.Application;
import dev.mcpsupervisor.app.runtime.TerminationSignals;
import dev.mcpsupervisor.protocol.config.ConfigException;
import dev.mcpsupervisor.protocol.config.ConfigLoader;
import dev.mcpsupervisor.protocol.config.SupervisorConfig;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.net.URI;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.apache.pekko.stream.Materializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code mcp-supervisor stdio [--config FILE] [--server NAME]}: the aggregated servers (or one) as
 * an MCP server on stdin/stdout, for a desktop client that starts its servers as processes. It is
 * the gateway, private to this client (no port, a random token no one else knows), with a {@link
 * StdioBridge} in front that hands it each message in this JVM ({@link GatewayEndpoint}: no socket,
 * no HTTP codec): everything the HTTP front does — both eras, progress, logs, sampling and
 * elicitation, {@code list_changed}, cancellation, restarts — the stdio client gets. Logs go to
 * stderr. Ends every server process when stdin closes, on SIGTERM, or when the client's process
 * dies.
 */
public final class StdioCommand implements Command {

  private static final Logger log = LoggerFactory.getLogger(StdioCommand.class);

  /** How long the private gateway may take to start. */
  private static final Duration START_TIMEOUT = Duration.ofSeconds(30);

  /** Its client is gone or said goodbye: what is in flight has nobody to go to. */
  private static final Duration DRAIN = Duration.ofMillis(500);

  private static final Syntax SYNTAX =
      new Syntax(
          "stdio",
          "Serves the configured MCP servers (as <server>__<tool>, or one with --server) over"
              + " stdin/stdout, for clients that start their servers as processes. Exits, ending"
              + " every server process, when stdin closes, on SIGTERM, or when its parent dies.",
          List.of(),
          List.of(
              Flag.option(
                  "--config",
                  "FILE",
                  "JSON or HOCON file in the MCP client format (mcpServers.<name>, ...)"),
              Flag.option(
                  "--server", "NAME", "serve this one server, its tools' names unchanged")));

  @Override
  public Syntax syntax() {
    return SYNTAX;
  }

  @Override
  public int run(Arguments arguments, PrintWriter out, PrintWriter err) {
    Path config = arguments.path("--config");
    String server = arguments.text("--server");
    SupervisorConfig loaded;
    try {
      loaded = config == null ? DemoConfig.create() : ConfigLoader.load(config);
    } catch (ConfigException e) {
      err.println(e.getMessage());
      return 2;
    }
    if (server != null && !loaded.servers().containsKey(server)) {
      err.println(
          "mcp-supervisor: --server "
              + server
              + ": no such server in the config (it has "
              + String.join(", ", loaded.servers().keySet())
              + ")");
      return 2;
    }
    // stdout carries the protocol: out (the command line's text) is not it
    return serve(loaded, server, System.in, System.out, TerminationSignals::install, err);
  }

  /**
   * Serves one client on {@code in} and {@code out} until it goes (see {@link StdioBridge#serve}):
   * {@code loaded}'s servers (or the one named {@code server}, when not null) behind a private
   * gateway in this JVM, stopped with every server process before this returns. Answers the exit
   * status.
   *
   * @param signals installed once the gateway is up: its future completes with a termination
   *     signal's name
   */
  public static int serve(
      SupervisorConfig loaded,
      String server,
      InputStream in,
      OutputStream out,
      Supplier<CompletableFuture<String>> signals,
      PrintWriter err) {
    byte[] secret = new byte[32];
    new SecureRandom().nextBytes(secret);
    String token = Base64.getUrlEncoder().withoutPadding().encodeToString(secret);
    SupervisorConfig privateGateway =
        new SupervisorConfig(loaded.servers(), loaded.gateway().forOneLocalClient(token));
    Application application;
    try {
      application =
          Application.startInThisJvm(privateGateway)
              .toCompletableFuture()
              .get(START_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException | TimeoutException e) {
      err.println("mcp-supervisor: the gateway did not start: " + e.getMessage());
      return 1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return 1;
    }
    URI base = URI.create(application.mcpUrl());
    URI endpoint = server == null ? base : base.resolve("/servers/" + server + "/mcp");
    StdioBridge bridge =
        new StdioBridge(
            new GatewayEndpoint(
                application.gateway(),
                endpoint,
                Materializer.matFromSystem(application.supervisor().actorSystem())),
            Map.of("Authorization", "Bearer " + token),
            out,
            ConnectCommand.RECONNECT_FOR);
    String why = bridge.serve(in, signals.get());
    log.info("stdio client gone ({}): stopping", why);
    try {
      application.stop(DRAIN).toCompletableFuture().get(30, TimeUnit.SECONDS);
    } catch (ExecutionException | TimeoutException e) {
      log.warn("stopping took too long: {}", e.toString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return 0;
  }
}
