package dev.mcpsupervisor.http.endpoint;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.typesafe.config.ConfigFactory;
import dev.mcpsupervisor.actors.SessionSupervisor;
import dev.mcpsupervisor.http.ops.GatewaySettings;
import dev.mcpsupervisor.http.request.ClientRequests;
import dev.mcpsupervisor.http.stateless.ParamHeaderCheck;
import dev.mcpsupervisor.protocol.McpMethods;
import dev.mcpsupervisor.protocol.config.Isolation;
import dev.mcpsupervisor.protocol.config.ServerConfig;
import dev.mcpsupervisor.protocol.config.ServerSpec;
import dev.mcpsupervisor.protocol.config.SupervisorConfig;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcRequest;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * A 2026-07-28 tools/call makes one supervisor call while the supervisor's list cache keeps its
 * server's tool list: the Mcp-Param declarations it is checked against are kept with that list, and
 * go with it when it expires or the server says its tools changed; a context-isolated server's are
 * kept for each caller's identity context apart.
 */
class ToolSchemasTest {

  private static final String SERVER = "fixture";
  private static final String PER_CONTEXT = "per-context";
  private static final long TTL_MS = 60_000;

  /** What the calls learn the servers' isolation from; no call reaches it. */
  private static final SessionSupervisor SUPERVISOR =
      SessionSupervisor.start(
          new SupervisorConfig(
              Map.of(
                  SERVER,
                  server(SERVER, Isolation.SHARED),
                  PER_CONTEXT,
                  server(PER_CONTEXT, Isolation.CONTEXT)),
              null));

  private final List<String> calls = new ArrayList<>();
  private final AtomicLong now = new AtomicLong();
  private final ToolSchemas schemas =
      new ToolSchemas(
          new AggregatedLists(GatewaySettings.fromConfig(ConfigFactory.load())), now::get);
  private final McpEndpoint endpoint = new SingleServerEndpoint(SERVER, schemas);
  private final McpEndpoint perContext = new SingleServerEndpoint(PER_CONTEXT, schemas);

  @AfterAll
  static void stop() {
    SUPERVISOR.close();
  }

  private static ServerConfig server(String name, Isolation isolation) {
    return ServerConfig.builder(
            name, new ServerSpec.Stdio("never-started", List.of(), Map.of(), null))
        .isolation(isolation)
        .build();
  }

  /** The supervisor: a cached tools/list (served with its remaining ttlMs), and tools/call. */
  private CompletableFuture<JsonRpcResponse> supervisor(String method) {
    calls.add(method);
    ObjectNode result = JsonRpcCodec.emptyObject();
    if (McpMethods.TOOLS_LIST.equals(method)) {
      ObjectNode echo = result.putArray("tools").addObject();
      echo.put("name", "echo");
      echo.putObject("inputSchema").put("type", "object");
      ObjectNode region = result.withArray("tools").addObject();
      region.put("name", "region");
      ObjectNode property =
          region.putObject("inputSchema").putObject("properties").putObject("region");
      property.put("type", "string");
      property.put("x-mcp-header", "Region");
      result.put("ttlMs", TTL_MS);
    }
    return CompletableFuture.completedFuture(JsonRpcResponse.success(IntNode.valueOf(0), result));
  }

  /** The supervisor calls one tools/call made, with these Mcp-Param-* headers. */
  private List<String> call(String tool, String arguments, Map<String, String> headers)
      throws Exception {
    return call(endpoint, null, tool, arguments, headers);
  }

  /** {@link #call} on {@code on}, of a request whose caller has this identity context (or null). */
  private List<String> call(
      McpEndpoint on, String identity, String tool, String arguments, Map<String, String> headers)
      throws Exception {
    calls.clear();
    UpstreamCalls upstream =
        UpstreamCalls.stateless(
            SUPERVISOR,
            "ctx",
            identity,
            (context, caller, server, method, params, deadline) -> supervisor(method));
    ObjectNode params = JsonRpcCodec.emptyObject();
    params.put("name", tool);
    params.set("arguments", JsonRpcCodec.mapper().readTree(arguments));
    Outcome outcome =
        ParamHeaderCheck.checked(
                new JsonRpcRequest(IntNode.valueOf(1), McpMethods.TOOLS_CALL, params),
                headers,
                on,
                new ClientRequests(on),
                upstream)
            .toCompletableFuture()
            .get(5, TimeUnit.SECONDS);
    if (outcome instanceof Outcome.Refused refused) {
      calls.add("refused " + refused.httpStatus());
    }
    return List.copyOf(calls);
  }

  @Test
  void aWarmToolsCallIsOneSupervisorCall() throws Exception {
    assertEquals(
        List.of(McpMethods.TOOLS_LIST, McpMethods.TOOLS_CALL), call("echo", "{}", Map.of()));
    for (int i = 0; i < 3; i++) {
      assertEquals(List.of(McpMethods.TOOLS_CALL), call("echo", "{}", Map.of()));
      assertEquals(
          List.of(McpMethods.TOOLS_CALL),
          call("region", "{\"region\":\"eu\"}", Map.of("Mcp-Param-Region", "eu")));
    }
  }

  @Test
  void aWarmCheckStillRefusesAMismatchWithNoCall() throws Exception {
    call("echo", "{}", Map.of());
    assertEquals(List.of("refused 400"), call("region", "{\"region\":\"eu\"}", Map.of()));
    assertEquals(
        List.of("refused 400"),
        call("region", "{\"region\":\"eu\"}", Map.of("Mcp-Param-Region", "us")));
  }

  @Test
  void theDeclarationsGoWhenTheListExpiresOrItsToolsChange() throws Exception {
    call("echo", "{}", Map.of());
    now.addAndGet(Duration.ofMillis(TTL_MS).toNanos());
    assertEquals(
        List.of(McpMethods.TOOLS_LIST, McpMethods.TOOLS_CALL), call("echo", "{}", Map.of()));
    schemas.listChanged(SERVER, McpMethods.NOTIFICATION_PROMPTS_LIST_CHANGED);
    assertEquals(List.of(McpMethods.TOOLS_CALL), call("echo", "{}", Map.of()));
    schemas.listChanged(SERVER, McpMethods.NOTIFICATION_TOOLS_LIST_CHANGED);
    assertEquals(
        List.of(McpMethods.TOOLS_LIST, McpMethods.TOOLS_CALL), call("echo", "{}", Map.of()));
  }

  @Test
  void aContextIsolatedServersDeclarationsAreKeptForEachCallerApart() throws Exception {
    List<String> listedThenCalled = List.of(McpMethods.TOOLS_LIST, McpMethods.TOOLS_CALL);
    assertEquals(listedThenCalled, call("echo", "{}", Map.of()));
    assertEquals(listedThenCalled, call(perContext, "caller-a", "echo", "{}", Map.of()));
    assertEquals(
        List.of(McpMethods.TOOLS_CALL), call(perContext, "caller-a", "echo", "{}", Map.of()));
    assertEquals(
        listedThenCalled,
        call(perContext, "caller-b", "echo", "{}", Map.of()),
        "another caller's list is its own");
    assertEquals(
        List.of(McpMethods.TOOLS_CALL), call(perContext, "caller-b", "echo", "{}", Map.of()));
    for (int i = 0; i < 2; i++) {
      assertEquals(
          listedThenCalled,
          call(perContext, null, "echo", "{}", Map.of()),
          "a request that names no caller keeps nothing: its context ends with it");
    }
    schemas.listChanged(PER_CONTEXT, McpMethods.NOTIFICATION_TOOLS_LIST_CHANGED);
    assertEquals(listedThenCalled, call(perContext, "caller-a", "echo", "{}", Map.of()));
    assertEquals(
        List.of(McpMethods.TOOLS_CALL), call("echo", "{}", Map.of()), "another server's stays");
  }
}
