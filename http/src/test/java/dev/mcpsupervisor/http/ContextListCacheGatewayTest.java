package dev.mcpsupervisor.http;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.mcpsupervisor.protocol.McpMethods;
import dev.mcpsupervisor.protocol.config.Isolation;
import dev.mcpsupervisor.protocol.config.ServerConfig;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 35's item 1 for an {@code isolation: context} server: a caller's warm 2026-07-28 tools/call
 * is one upstream call, its Mcp-Param check answered by the declarations kept from that caller's
 * own tool list (the key's list cache keeps each context's pages apart). Before, the cache was off
 * for such a server and every call listed the tools first: two upstream calls each.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ContextListCacheGatewayTest {

  private static final String AGENT_HEADER = "X-Agent-ID";
  private static final String PATH = "/servers/up/mcp";

  private CountingUpstream counting;
  private TestGateway gateway;
  private StatelessClient client;

  @BeforeAll
  void start() {
    counting = new CountingUpstream(List.of("first"));
    ServerConfig up =
        TestGateway.streamableHttp("up", counting.url()).toBuilder()
            .isolation(Isolation.CONTEXT)
            .build();
    gateway =
        TestGateway.start(
            "mcp-supervisor.http.agentIdHeader = " + AGENT_HEADER,
            TestGateway.gateway(List.of(), List.of(), 1024 * 1024, Duration.ofHours(1)),
            up);
    client = new StatelessClient(gateway, "{}");
  }

  @AfterAll
  void stop() {
    gateway.close();
    counting.close();
  }

  private void call(String path, String tool, String agent) {
    String[] headers =
        Stream.concat(
                Stream.of(StatelessClient.headers("tools/call", tool)),
                Stream.of(AGENT_HEADER, agent))
            .toArray(String[]::new);
    HttpResponse<String> response =
        gateway.post(path, null, client.toolCall(1, tool, "{}", "", ""), headers);
    assertEquals(200, response.statusCode(), response.body());
    assertEquals("first", TestGateway.text(TestGateway.answer(response)), response.body());
  }

  /** The upstream's counts of these methods, in order. */
  private List<Integer> counted(String... methods) {
    return Stream.of(methods).map(counting::count).toList();
  }

  /**
   * A caller's first calls: its session lists the tools once it is up (for the retry policy), and
   * the first check lists them into the cache; warm from the third.
   */
  private void warmUp(String agent) {
    for (int i = 0; i < 3; i++) {
      call(PATH, "first", agent);
    }
  }

  @Test
  void aCallersWarmToolsCallsAreOneUpstreamCallEachAndAnotherCallersAreItsOwn() {
    warmUp("agent-a");
    List<Integer> before =
        counted(McpMethods.INITIALIZE, McpMethods.TOOLS_LIST, McpMethods.TOOLS_CALL);
    for (int i = 0; i < 20; i++) {
      call(i % 2 == 0 ? PATH : "/mcp", i % 2 == 0 ? "first" : "up__first", "agent-a");
    }
    assertEquals(
        List.of(before.get(0), before.get(1), before.get(2) + 20),
        counted(McpMethods.INITIALIZE, McpMethods.TOOLS_LIST, McpMethods.TOOLS_CALL),
        "initialize, tools/list, tools/call upstream: only the calls, one each");

    warmUp("agent-b");
    List<Integer> withB =
        counted(McpMethods.INITIALIZE, McpMethods.TOOLS_LIST, McpMethods.TOOLS_CALL);
    assertEquals(before.get(0) + 1, withB.get(0), "another caller has a session of its own");
    for (int i = 0; i < 5; i++) {
      call(PATH, "first", "agent-b");
    }
    assertEquals(
        List.of(withB.get(0), withB.get(1), withB.get(2) + 5),
        counted(McpMethods.INITIALIZE, McpMethods.TOOLS_LIST, McpMethods.TOOLS_CALL));
  }
}
