package dev.mcpsupervisor.http;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.typesafe.config.ConfigFactory;
import dev.mcpsupervisor.actors.SessionSupervisor;
import dev.mcpsupervisor.actors.base.SupervisorSnapshot;
import dev.mcpsupervisor.actors.telemetry.McpTelemetry;
import dev.mcpsupervisor.fixture.FixtureProcess;
import dev.mcpsupervisor.http.cluster.NodeDesk;
import dev.mcpsupervisor.http.ops.ConfigReloader;
import dev.mcpsupervisor.http.ops.GatewayMetrics;
import dev.mcpsupervisor.protocol.ProtocolVersions;
import dev.mcpsupervisor.protocol.config.ClusterConfig;
import dev.mcpsupervisor.protocol.config.GatewayConfig;
import dev.mcpsupervisor.protocol.config.Isolation;
import dev.mcpsupervisor.protocol.config.ServerConfig;
import dev.mcpsupervisor.protocol.config.ServerSpec;
import dev.mcpsupervisor.protocol.config.SupervisorConfig;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import dev.mcpsupervisor.upstream.DefaultConnectors;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.receptionist.Receptionist;

/**
 * A real gateway on 127.0.0.1 (any port) in front of a real supervisor, with raw HTTP helpers. The
 * servers are real: the fixture over stdio (spawned by the supervisor), or whatever spec a test
 * passes.
 */
public final class TestGateway implements AutoCloseable {

  static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);
  static final String CLIENT_INFO = "{\"name\":\"test-client\",\"version\":\"1.0\"}";

  public final GatewayMetrics metrics = new GatewayMetrics();
  public final SessionSupervisor supervisor;
  final GatewayServer server;
  public final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  final String base;

  private TestGateway(SupervisorConfig config, String settings, McpTelemetry telemetry) {
    this(config, settings, telemetry, ConfigReloader.BUILT_IN);
  }

  private TestGateway(
      SupervisorConfig config, String settings, McpTelemetry telemetry, String fingerprint) {
    supervisor =
        SessionSupervisor.start(
            config,
            DefaultConnectors.create(),
            metrics,
            ConfigFactory.parseString(settings)
                .withFallback(
                    ConfigFactory.parseString(
                        "pekko.loglevel = WARNING\npekko.log-dead-letters = off"))
                .withFallback(ConfigFactory.load()),
            telemetry);
    server =
        await(
            GatewayServer.start(
                supervisor,
                config.gateway(),
                metrics,
                new ConfigReloader(null, supervisor, metrics, fingerprint),
                CompletableFuture.completedFuture(null)));
    base = "http://127.0.0.1:" + server.address().getPort();
  }

  /**
   * @param settings HOCON over the actor system's configuration, e.g. {@code
   *     mcp-supervisor.http.sseKeepAlive}
   */
  static TestGateway start(String settings, GatewayConfig gateway, ServerConfig... servers) {
    return new TestGateway(config(gateway, servers), settings, McpTelemetry.OFF);
  }

  /** As {@link #start(String, GatewayConfig, ServerConfig...)}, its configuration's fingerprint. */
  static TestGateway start(
      String settings, String fingerprint, GatewayConfig gateway, ServerConfig... servers) {
    return new TestGateway(config(gateway, servers), settings, McpTelemetry.OFF, fingerprint);
  }

  /** A gateway tracing with {@code telemetry}. */
  static TestGateway traced(McpTelemetry telemetry, ServerConfig... servers) {
    return new TestGateway(
        config(gateway(List.of(), List.of(), 1024 * 1024), servers), "", telemetry);
  }

  private static SupervisorConfig config(GatewayConfig gateway, ServerConfig... servers) {
    Map<String, ServerConfig> byName = new LinkedHashMap<>();
    Arrays.stream(servers).forEach(server -> byName.put(server.name(), server));
    return new SupervisorConfig(byName, gateway);
  }

  /**
   * The gateway settings of a cluster node on any HTTP port, its Artery on {@code port}, joining
   * through {@code seed}.
   */
  static GatewayConfig clusterNode(int port, ClusterConfig.SeedNode seed, String secret) {
    return GatewayConfig.builder()
        .host("127.0.0.1")
        .port(0)
        .maxBodyBytes(1 << 20)
        .sessionIdleTimeout(Duration.ofMinutes(5))
        .build()
        .withCluster(new ClusterConfig("127.0.0.1", port, List.of(seed), secret));
  }

  /**
   * The Pekko settings of a test's cluster node: what crosses nodes is verified (serialized and
   * read back); what never leaves its node is not (the supervisor's actors, the sessions, the
   * desk's own local messages).
   */
  static final String CLUSTER_NODE_SETTINGS =
      """
      pekko.actor.serialize-messages = on
      pekko.actor.no-serialization-verification-needed-class-prefix = [
        "org.apache.pekko.", "dev.mcpsupervisor.actors.", "dev.mcpsupervisor.http.session.",
        "dev.mcpsupervisor.http.cluster.NodeDesk$Forward", "dev.mcpsupervisor.http.cluster.NodeDesk$Served",
        "dev.mcpsupervisor.http.cluster.NodeDesk$Recheck",
        "dev.mcpsupervisor.http.cluster.NodeDesk$DesksChanged",
        "dev.mcpsupervisor.http.cluster.NodeDesk$Found",
        "dev.mcpsupervisor.http.cluster.NodeDesk$Preparing",
        "dev.mcpsupervisor.http.cluster.NodeDesk$Leave",
        "dev.mcpsupervisor.http.cluster.NodeDesk$ExchangeOver",
        "dev.mcpsupervisor.http.cluster.NodeDesk$EdgeGone",
        "dev.mcpsupervisor.http.cluster.NodeDesk$Abandon",
        "dev.mcpsupervisor.http.cluster.AdminDesk$Gather",
        "dev.mcpsupervisor.http.cluster.AdminDesk$DesksChanged"]
      pekko.cluster.jmx.multi-mbeans-in-same-jvm = on
      """;

  /** Until every node is up and its desk lists the desks of all of them, within {@code within}. */
  static void awaitDesks(List<TestGateway> nodes, Duration within) {
    for (TestGateway node : nodes) {
      TestProbe<Receptionist.Listing> probe = TestProbe.create(node.supervisor.actorSystem());
      probe.awaitAssert(
          within,
          () -> {
            assertEquals(200, node.get("/readyz").statusCode());
            node.supervisor
                .actorSystem()
                .receptionist()
                .tell(Receptionist.find(NodeDesk.KEY, probe.getRef()));
            assertEquals(
                nodes.size(),
                probe.receiveMessage().getServiceInstances(NodeDesk.KEY).size(),
                "each node's desk knows every node's");
            return null;
          });
    }
  }

  /**
   * Two cluster nodes in front of the stdio fixture, the first the second's seed, each desk listing
   * both within {@code within}; the caller closes them (both are closed if they do not form).
   */
  static List<TestGateway> twoFixtureNodes(String secret, Duration within) {
    int seedPort = freePort();
    ClusterConfig.SeedNode seed = new ClusterConfig.SeedNode("127.0.0.1", seedPort);
    List<TestGateway> nodes = new ArrayList<>();
    try {
      for (int port : new int[] {seedPort, freePort()}) {
        nodes.add(
            start(CLUSTER_NODE_SETTINGS, clusterNode(port, seed, secret), stdioFixture("fixture")));
      }
      awaitDesks(nodes, within);
      return nodes;
    } catch (RuntimeException | Error e) {
      nodes.forEach(TestGateway::close);
      throw e;
    }
  }

  /** A port nothing listens on now (for a node's Artery). */
  static int freePort() {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public static TestGateway start(GatewayConfig gateway, ServerConfig... servers) {
    return start("", gateway, servers);
  }

  public static TestGateway start(ServerConfig... servers) {
    return start(gateway(List.of(), List.of(), 1024 * 1024), servers);
  }

  static GatewayConfig gateway(List<String> tokens, List<String> origins, long maxBodyBytes) {
    return gateway(tokens, origins, maxBodyBytes, Duration.ofMinutes(30));
  }

  public static GatewayConfig gateway(
      List<String> tokens, List<String> origins, long maxBodyBytes, Duration idleTimeout) {
    return GatewayConfig.builder()
        .host("127.0.0.1")
        .port(0)
        .authTokens(tokens)
        .allowedOrigins(origins)
        .maxBodyBytes(maxBodyBytes)
        .sessionIdleTimeout(idleTimeout)
        .build();
  }

  /** The fixture over stdio, spawned by the supervisor. */
  public static ServerConfig stdioFixture(String name) {
    List<String> command = FixtureProcess.stdioCommand();
    return server(
        name,
        new ServerSpec.Stdio(command.get(0), command.subList(1, command.size()), Map.of(), null));
  }

  /** A server at {@code url} over Streamable HTTP, with no headers (a test's own upstream). */
  static ServerConfig streamableHttp(String name, String url) {
    return server(name, new ServerSpec.StreamableHttp(URI.create(url), Map.of()));
  }

  static ServerConfig server(String name, ServerSpec spec) {
    return server(name, spec, name);
  }

  static ServerConfig server(String name, ServerSpec spec, String toolPrefix) {
    return ServerConfig.builder(name, spec)
        .isolation(Isolation.SHARED)
        .maxSessions(4)
        .maxInflightPerSession(64)
        .requestTimeout(REQUEST_TIMEOUT)
        .idleTimeout(Duration.ofMinutes(5))
        .toolPrefix(toolPrefix)
        .build();
  }

  /** The fixture over stdio under another tool prefix. */
  static ServerConfig stdioFixture(String name, String toolPrefix) {
    ServerConfig fixture = stdioFixture(name);
    return server(name, fixture.spec(), toolPrefix);
  }

  /** A server that can never start: its command does not exist. */
  static ServerConfig downServer(String name) {
    return server(
        name, new ServerSpec.Stdio("/nonexistent/mcp-server-" + name, List.of(), Map.of(), null));
  }

  // -------------------------------------------------------------------------------------- raw HTTP

  public HttpRequest.Builder request(String path) {
    return HttpRequest.newBuilder(URI.create(base + path)).timeout(REQUEST_TIMEOUT);
  }

  HttpResponse<String> send(HttpRequest request) {
    try {
      return http.send(request, HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /**
   * POST with the headers a conforming client sends (JSON, accepting JSON and SSE), plus {@code
   * headers}.
   */
  HttpResponse<String> post(String path, String sessionId, String body, String... headers) {
    return send(postRequest(path, sessionId, body, headers).build());
  }

  public CompletableFuture<HttpResponse<String>> postAsync(
      String path, String sessionId, String body, String... headers) {
    return http.sendAsync(
        postRequest(path, sessionId, body, headers).build(), HttpResponse.BodyHandlers.ofString());
  }

  HttpRequest.Builder postRequest(String path, String sessionId, String body, String... headers) {
    HttpRequest.Builder builder =
        request(path)
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream")
            .POST(HttpRequest.BodyPublishers.ofString(body));
    if (sessionId != null) {
      builder.header("Mcp-Session-Id", sessionId);
    }
    for (int i = 0; i < headers.length; i += 2) {
      builder.setHeader(headers[i], headers[i + 1]);
    }
    return builder;
  }

  HttpResponse<String> get(String path, String... headers) {
    HttpRequest.Builder builder = request(path).GET();
    for (int i = 0; i < headers.length; i += 2) {
      builder.setHeader(headers[i], headers[i + 1]);
    }
    return send(builder.build());
  }

  /**
   * Everything an operator reads, for checks that a secret never shows there: {@code
   * /admin/sessions}, {@code /admin}, {@code /metrics}, the supervision events and the
   * configuration as it prints.
   */
  List<String> operatorViews(String... headers) {
    List<String> shown = new ArrayList<>();
    for (String path : List.of("/admin/sessions", "/admin", "/metrics")) {
      shown.add(get(path, headers).body());
    }
    metrics.journal().entries().forEach(entry -> shown.add(entry.toString()));
    shown.add(supervisor.config().toString());
    return shown;
  }

  HttpResponse<String> delete(String path, String sessionId, String... headers) {
    HttpRequest.Builder builder = request(path).DELETE();
    if (sessionId != null) {
      builder.header("Mcp-Session-Id", sessionId);
    }
    for (int i = 0; i < headers.length; i += 2) {
      builder.setHeader(headers[i], headers[i + 1]);
    }
    return send(builder.build());
  }

  /** initialize + notifications/initialized; answers the new session id. */
  String initialize(String path) {
    return initialize(path, ProtocolVersions.LATEST, "{}");
  }

  /** initialize + notifications/initialized with {@code headers} (e.g. a token) on both. */
  String initializeWith(String path, String... headers) {
    HttpResponse<String> response =
        post(path, null, initializeBody(ProtocolVersions.LATEST, "{}"), headers);
    assertEquals(200, response.statusCode(), response.body());
    String sessionId = response.headers().firstValue("Mcp-Session-Id").orElseThrow();
    HttpResponse<String> initialized =
        post(
            path,
            sessionId,
            "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}",
            headers);
    assertEquals(202, initialized.statusCode(), initialized.body());
    return sessionId;
  }

  String initialize(String path, String protocolVersion, String capabilities) {
    HttpResponse<String> response = post(path, null, initializeBody(protocolVersion, capabilities));
    assertEquals(200, response.statusCode(), response.body());
    String sessionId = response.headers().firstValue("Mcp-Session-Id").orElseThrow();
    HttpResponse<String> initialized =
        post(path, sessionId, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
    assertEquals(202, initialized.statusCode(), initialized.body());
    return sessionId;
  }

  public static String initializeBody(String protocolVersion, String capabilities) {
    return "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\""
        + protocolVersion
        + "\",\"capabilities\":"
        + capabilities
        + ",\"clientInfo\":"
        + CLIENT_INFO
        + "}}";
  }

  public static String request(Object id, String method, String params) {
    return "{\"jsonrpc\":\"2.0\",\"id\":"
        + id
        + ",\"method\":\""
        + method
        + "\",\"params\":"
        + params
        + "}";
  }

  static String callTool(Object id, String tool, String arguments) {
    return request(id, "tools/call", "{\"name\":\"" + tool + "\",\"arguments\":" + arguments + "}");
  }

  static JsonNode json(String body) {
    try {
      return JsonRpcCodec.mapper().readTree(body);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * The JSON-RPC messages of an SSE body (its message events, not a priming event's empty data), or
   * the JSON body itself.
   */
  static List<JsonNode> messages(HttpResponse<String> response) {
    List<JsonNode> messages = new ArrayList<>();
    if (response.headers().firstValue("Content-Type").orElse("").startsWith("text/event-stream")) {
      for (String line : response.body().split("\n")) {
        String data = line.startsWith("data:") ? line.substring("data:".length()).trim() : "";
        if (!data.isEmpty()) {
          messages.add(json(data));
        }
      }
    } else {
      messages.add(json(response.body()));
    }
    return messages;
  }

  /** The last message of the answer: the response itself. */
  public static JsonNode answer(HttpResponse<String> response) {
    List<JsonNode> messages = messages(response);
    return messages.get(messages.size() - 1);
  }

  static String text(JsonNode toolResult) {
    return toolResult.path("result").path("content").path(0).path("text").asText();
  }

  /**
   * The supervisor's leases settle on the contexts {@code expected} (sorted), bounded at 15 s: what
   * ended released what it leased.
   */
  void awaitLeasedContexts(List<String> expected) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
    List<String> leased;
    do {
      leased =
          snapshot().keys().stream()
              .flatMap(key -> key.leases().keySet().stream())
              .sorted()
              .toList();
    } while (!leased.equals(expected) && System.nanoTime() < deadline);
    assertEquals(expected, leased, "leases left behind");
  }

  SupervisorSnapshot snapshot() {
    return await(supervisor.snapshot());
  }

  static ObjectNode object() {
    return JsonRpcCodec.emptyObject();
  }

  public static <T> T await(CompletionStage<T> stage) {
    try {
      return stage.toCompletableFuture().get(60, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public void close() {
    close(Duration.ofSeconds(2));
  }

  /**
   * Drains for at most {@code drain} (as the jar does for its {@code drainDeadline}), then stops.
   */
  void close(Duration drain) {
    try {
      await(server.stop(drain));
    } finally {
      supervisor.close();
    }
  }
}
