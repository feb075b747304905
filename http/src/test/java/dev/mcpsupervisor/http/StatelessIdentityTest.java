package dev.mcpsupervisor.http;

import static dev.mcpsupervisor.http.TestGateway.answer;
import static dev.mcpsupervisor.http.TestGateway.messages;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.mcpsupervisor.actors.base.SupervisorSnapshot;
import dev.mcpsupervisor.fixture.FixtureHttpServer;
import dev.mcpsupervisor.fixture.FixtureServer;
import dev.mcpsupervisor.fixture.FixtureTools;
import dev.mcpsupervisor.http.access.CallerIdentity;
import dev.mcpsupervisor.http.access.Identity;
import dev.mcpsupervisor.protocol.ProtocolVersions;
import dev.mcpsupervisor.protocol.config.Isolation;
import dev.mcpsupervisor.protocol.config.ServerConfig;
import dev.mcpsupervisor.protocol.config.ServerSpec;
import dev.mcpsupervisor.protocol.config.UpstreamProtocol;
import java.net.URI;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/**
 * 2026-07-28 clients in front of a server configured {@code isolation: context} (the fixture over
 * Streamable HTTP, whose {@code count} tool counts per upstream session): one caller's consecutive
 * stateless requests reach the same upstream session, another caller's another.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class StatelessIdentityTest {

  private static final String TOKEN_1 = "token-1-0123456789abcdef0123456789";
  private static final String TOKEN_2 = "token-2-0123456789abcdef0123456789";

  private static final String COUNTER = "/servers/counter/mcp";

  /** maxSessions of the context-isolated servers: one upstream session for every caller here. */
  private static final int CONTEXT_SESSIONS = 64;

  private static final String AGENT_HEADER = "X-Agent-ID";
  private static final String ACCEPT = "{\"action\":\"accept\",\"content\":{\"answer\":\"%s\"}}";

  private FixtureHttpServer remote;

  /** Tokens required, agent id header enabled. */
  private TestGateway agents;

  /** No tokens, no agent id header. */
  private TestGateway anonymous;

  /**
   * No tokens, agent id header enabled, idle after 5 s: long enough that two calls in a row stay in
   * one context on a loaded machine (with 1 s, a stall between them at load 28 made them two).
   */
  private TestGateway expiring;

  @BeforeAll
  void start() {
    remote = FixtureServer.startHttp(0);
    String agentHeader = "mcp-supervisor.http.agentIdHeader = " + AGENT_HEADER;
    agents =
        TestGateway.start(
            agentHeader,
            TestGateway.gateway(List.of(TOKEN_1, TOKEN_2), List.of(), 1024 * 1024),
            counter(),
            shared(),
            stdioCounter());
    anonymous = TestGateway.start(counter());
    expiring =
        TestGateway.start(
            agentHeader,
            TestGateway.gateway(List.of(), List.of(), 1024 * 1024, Duration.ofSeconds(5)),
            counter());
  }

  @AfterAll
  void stop() {
    Stream.of(agents, anonymous, expiring).forEach(TestGateway::close);
    remote.close();
  }

  private ServerConfig counter() {
    return contextIsolated(
        "counter",
        new ServerSpec.StreamableHttp(
            URI.create(remote.url()), Map.of(), UpstreamProtocol.SESSION));
  }

  /** The fixture over stdio: an upstream session is a process. */
  private static ServerConfig stdioCounter() {
    return contextIsolated("local", TestGateway.stdioFixture("local").spec());
  }

  private static ServerConfig contextIsolated(String name, ServerSpec spec) {
    ServerConfig shared = TestGateway.server(name, spec);
    return ServerConfig.builder(name, spec)
        .isolation(Isolation.CONTEXT)
        .maxSessions(CONTEXT_SESSIONS)
        .maxInflightPerSession(shared.maxInflightPerSession())
        .requestTimeout(shared.requestTimeout())
        .idleTimeout(shared.idleTimeout())
        .build();
  }

  private ServerConfig shared() {
    return TestGateway.server(
        "pooled",
        new ServerSpec.StreamableHttp(
            URI.create(remote.url()), Map.of(), UpstreamProtocol.SESSION));
  }

  // ------------------------------------------------------------------------------------- helpers

  private static String[] headers(String tool, String... identity) {
    String[] wire = StatelessClient.headers("tools/call", tool);
    String[] all = Arrays.copyOf(wire, wire.length + identity.length);
    System.arraycopy(identity, 0, all, wire.length, identity.length);
    return all;
  }

  private static String[] bearer(String token) {
    return new String[] {"Authorization", "Bearer " + token};
  }

  private static String[] bearerAndAgent(String token, String agent) {
    return new String[] {"Authorization", "Bearer " + token, AGENT_HEADER, agent};
  }

  private static String[] agent(String agent) {
    return new String[] {AGENT_HEADER, agent};
  }

  private static CompletableFuture<HttpResponse<String>> countAsync(
      TestGateway gateway, String path, String tool, Object id, String... identity) {
    String body = new StatelessClient(gateway, "{}").toolCall(id, tool, "{}", "", "");
    return gateway.postAsync(path, null, body, headers(tool, identity));
  }

  /** The count the tool answers this call. */
  private static int count(TestGateway gateway, String... identity) {
    return count(gateway, COUNTER, FixtureTools.COUNT, identity);
  }

  private static int count(TestGateway gateway, String path, String tool, String... identity) {
    HttpResponse<String> response =
        TestGateway.await(countAsync(gateway, path, tool, "\"c\"", identity));
    assertEquals(200, response.statusCode(), response.body());
    String text = TestGateway.text(answer(response));
    assertTrue(text.matches("[0-9]+"), response.body());
    return Integer.parseInt(text);
  }

  private static List<Integer> counts(TestGateway gateway, int n, String... identity) {
    List<Integer> counts = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      counts.add(count(gateway, identity));
    }
    return counts;
  }

  private static String contextOf(boolean tokens, String... headers) {
    Map<String, String> byName = new HashMap<>();
    for (int i = 0; i < headers.length; i += 2) {
      byName.put(headers[i], headers[i + 1]);
    }
    // the gateway names the tokens of a plain list token-1, token-2, ... by position
    String authorization = byName.get("Authorization");
    Identity caller =
        !tokens || authorization == null
            ? Identity.ANONYMOUS
            : Identity.ofToken(
                "token-" + (List.of(TOKEN_1, TOKEN_2).indexOf(authorization.substring(7)) + 1));
    return new CallerIdentity(AGENT_HEADER).contextOf(caller, byName::get);
  }

  private static List<String> leasedOn(SupervisorSnapshot snapshot, String server) {
    return snapshot.keys().stream()
        .filter(key -> key.server().equals(server))
        .flatMap(key -> key.leases().keySet().stream())
        .sorted()
        .toList();
  }

  // --------------------------------------------------------------------------------------- tests

  @Test
  void oneTokensCallsKeepCountingAndAnotherTokenStartsAtOne() {
    assertEquals(List.of(1, 2, 3), counts(agents, 3, bearer(TOKEN_1)));
    assertEquals(List.of(1, 2), counts(agents, 2, bearer(TOKEN_2)));
    assertEquals(4, count(agents, bearer(TOKEN_1)));
    // the aggregated endpoint reaches the same server in the same context
    assertEquals(5, count(agents, "/mcp", "counter__count", bearer(TOKEN_1)));
  }

  @Test
  void overStdioEachCallerHasAProcessOfItsOwnThatKeepsCounting() {
    String local = "/servers/local/mcp";
    String[] first = bearerAndAgent(TOKEN_1, "stdio-1");
    String[] second = bearerAndAgent(TOKEN_1, "stdio-2");
    assertEquals(1, count(agents, local, FixtureTools.COUNT, first));
    assertEquals(2, count(agents, local, FixtureTools.COUNT, first));
    assertEquals(1, count(agents, local, FixtureTools.COUNT, second));
    assertEquals(3, count(agents, local, FixtureTools.COUNT, first));
    assertEquals(
        count(agents, local, FixtureTools.PID, first),
        count(agents, local, FixtureTools.PID, first),
        "one process for one caller");
    assertTrue(
        count(agents, local, FixtureTools.PID, first)
            != count(agents, local, FixtureTools.PID, second),
        "another caller's process is another");
  }

  @Test
  void oneTokensAgentsAreApartAndAnAgentIdReachesNoOtherTokensContext() {
    assertEquals(List.of(1, 2), counts(agents, 2, bearerAndAgent(TOKEN_1, "planner")));
    assertEquals(List.of(1), counts(agents, 1, bearerAndAgent(TOKEN_1, "coder")));
    assertEquals(List.of(1), counts(agents, 1, bearerAndAgent(TOKEN_2, "planner")), "other token");
    assertEquals(3, count(agents, bearerAndAgent(TOKEN_1, "planner")));
  }

  @Test
  void aSessionEraClientAndAStatelessCallerDoNotShare() {
    String[] caller = bearerAndAgent(TOKEN_2, "shared-nothing");
    assertEquals(List.of(1, 2), counts(agents, 2, caller));
    HttpResponse<String> initialized =
        agents.post(
            COUNTER,
            null,
            TestGateway.initializeBody(ProtocolVersions.LATEST, "{}"),
            bearer(TOKEN_2));
    assertEquals(200, initialized.statusCode(), initialized.body());
    String session = initialized.headers().firstValue("Mcp-Session-Id").orElseThrow();
    agents.post(
        COUNTER,
        session,
        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}",
        bearer(TOKEN_2));
    for (int expected = 1; expected <= 2; expected++) {
      HttpResponse<String> call =
          agents.post(
              COUNTER,
              session,
              TestGateway.callTool(expected, FixtureTools.COUNT, "{}"),
              bearer(TOKEN_2));
      assertEquals(Integer.toString(expected), TestGateway.text(answer(call)), call.body());
    }
    assertEquals(3, count(agents, caller));
    HttpResponse<String> deleted =
        agents.send(
            agents
                .request(COUNTER)
                .DELETE()
                .header("Mcp-Session-Id", session)
                .header("Authorization", "Bearer " + TOKEN_2)
                .build());
    assertEquals(200, deleted.statusCode(), deleted.body());
    assertEquals(4, count(agents, caller), "the session's end is not the caller's");
  }

  @Test
  void sharedServersStayPooledAndOnlyTheContextServerIsLeasedForTheCaller() {
    String[] caller = bearerAndAgent(TOKEN_1, "pool-user");
    count(agents, "/servers/pooled/mcp", FixtureTools.COUNT, caller);
    count(agents, caller);
    String context = contextOf(true, bearerAndAgent(TOKEN_1, "pool-user"));
    SupervisorSnapshot snapshot = agents.snapshot();
    assertTrue(leasedOn(snapshot, "counter").contains(context), snapshot.toString());
    assertTrue(
        leasedOn(snapshot, "pooled").stream().noneMatch(c -> c.startsWith(CallerIdentity.PREFIX)),
        "a shared server's lease ends with its request: " + snapshot);
  }

  @Test
  void withoutTokenOrEnabledHeaderEveryRequestStartsAfresh() {
    assertEquals(List.of(1, 1, 1), counts(anonymous, 3, agent("agent-1")));
    anonymous.awaitLeasedContexts(List.of());
  }

  @Test
  void aCallerUnusedForTheIdleTimeoutIsReleasedAndThenStartsAfresh() {
    assertEquals(List.of(1, 2), counts(expiring, 2, agent("sleeper")));
    String context = contextOf(false, agent("sleeper"));
    assertEquals(List.of(context), leasedOn(expiring.snapshot(), "counter"));
    expiring.awaitLeasedContexts(List.of());
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
    long sessions;
    do {
      sessions = expiring.snapshot().keys().stream().mapToLong(key -> key.sessions().size()).sum();
    } while (sessions > 0 && System.nanoTime() < deadline);
    assertEquals(0, sessions, "its upstream session closes with its lease");
    assertEquals(1, count(expiring, agent("sleeper")));
  }

  @Test
  void aGatewayStopReleasesEveryCallersContext() {
    String agentHeader = "mcp-supervisor.http.agentIdHeader = " + AGENT_HEADER;
    TestGateway stopping =
        TestGateway.start(
            agentHeader,
            TestGateway.gateway(List.of(), List.of(), 1024 * 1024, Duration.ofHours(1)),
            counter());
    try {
      assertEquals(1, count(stopping, agent("leaver-1")));
      assertEquals(1, count(stopping, agent("leaver-2")));
      assertEquals(
          Stream.of(contextOf(false, agent("leaver-1")), contextOf(false, agent("leaver-2")))
              .sorted()
              .toList(),
          leasedOn(stopping.snapshot(), "counter"));
      TestGateway.await(stopping.server.stop(Duration.ofSeconds(2)));
      // the supervisor outlives its gateway here, as an embedder's may: it holds nothing for them
      assertEquals(List.of(), leasedOn(stopping.snapshot(), "counter"));
    } finally {
      stopping.supervisor.close();
    }
  }

  @Test
  void anUpstreamSessionSlowerToStartThanTheIdleTimeDoesNotEndTheRequest() {
    // each request starts a process (no caller: a context of its own), which takes much longer
    // than 50 ms: the request's downstream session must not pass for idle meanwhile
    try (TestGateway hasty =
        TestGateway.start(
            TestGateway.gateway(List.of(), List.of(), 1024 * 1024, Duration.ofMillis(50)),
            stdioCounter())) {
      for (int call = 0; call < 2; call++) {
        assertEquals(1, count(hasty, "/servers/local/mcp", FixtureTools.COUNT, new String[0]));
      }
    }
  }

  @Test
  void hundredsOfRacingCallsOfTwentyCallersCountEachCallerExactlyOnce() {
    int callers = 20;
    int callsEach = 10;
    Map<String, List<CompletableFuture<HttpResponse<String>>>> sent = new HashMap<>();
    for (int call = 0; call < callsEach; call++) {
      for (int c = 0; c < callers; c++) {
        String agent = "racer-" + c;
        sent.computeIfAbsent(agent, any -> new ArrayList<>())
            .add(
                countAsync(
                    agents,
                    COUNTER,
                    FixtureTools.COUNT,
                    "\"" + agent + "-" + call + "\"",
                    bearerAndAgent(TOKEN_1, agent)));
      }
    }
    List<Integer> oneToN = IntStream.rangeClosed(1, callsEach).boxed().toList();
    sent.forEach(
        (agent, calls) -> {
          List<Integer> counts =
              calls.stream()
                  .map(TestGateway::await)
                  .map(
                      response -> {
                        assertEquals(200, response.statusCode(), response.body());
                        return Integer.parseInt(TestGateway.text(answer(response)));
                      })
                  .sorted()
                  .toList();
          assertEquals(oneToN, counts, agent + ": no gaps, no duplicates, nobody else's calls");
        });
    SupervisorSnapshot snapshot = agents.snapshot();
    long racers =
        leasedOn(snapshot, "counter").stream()
            .filter(
                context ->
                    IntStream.range(0, callers)
                        .mapToObj(c -> contextOf(true, bearerAndAgent(TOKEN_1, "racer-" + c)))
                        .anyMatch(context::equals))
            .count();
    assertEquals(callers, racers, "one context per caller: " + snapshot);
  }

  @Test
  void progressAndInputRoundsReachTheRightRequestOfACaller() {
    String[] caller = bearerAndAgent(TOKEN_2, "asker");
    assertEquals(1, count(agents, caller));
    StatelessClient client = new StatelessClient(agents, "{\"elicitation\":{}}");
    HttpResponse<String> progressed =
        agents.post(
            COUNTER,
            null,
            client.toolCall(1, "progress", "{\"steps\":3}", "", ",\"progressToken\":\"p-1\""),
            headers("progress", caller));
    List<JsonNode> frames = messages(progressed);
    assertEquals(
        3,
        frames.stream()
            .filter(m -> "p-1".equals(m.path("params").path("progressToken").asText()))
            .count(),
        progressed.body());
    assertEquals("done 3", TestGateway.text(answer(progressed)));

    // two elicitations of one caller at once, on one upstream session: each round is its own
    List<CompletableFuture<HttpResponse<String>>> asked =
        Stream.of("first", "second")
            .map(
                question ->
                    agents.postAsync(
                        COUNTER,
                        null,
                        client.toolCall(
                            "\"" + question + "\"",
                            "elicit",
                            "{\"message\":\"" + question + "\"}",
                            "",
                            ""),
                        headers("elicit", caller)))
            .toList();
    for (CompletableFuture<HttpResponse<String>> ask : asked) {
      JsonNode round = answer(TestGateway.await(ask));
      String question = round.path("id").asText();
      JsonNode result = round.path("result");
      assertEquals("input_required", result.path("resultType").asText(), round.toString());
      String key = result.path("inputRequests").fieldNames().next();
      assertEquals(
          question,
          result.path("inputRequests").path(key).path("params").path("message").asText(),
          "the round of its own request");
      HttpResponse<String> retried =
          agents.post(
              COUNTER,
              null,
              client.toolCall(
                  "\"" + question + "-retry\"",
                  "elicit",
                  "{\"message\":\"" + question + "\"}",
                  ",\"inputResponses\":{\""
                      + key
                      + "\":"
                      + ACCEPT.formatted(question.toUpperCase())
                      + "},\"requestState\":\""
                      + result.path("requestState").asText()
                      + "\"",
                  ""),
              headers("elicit", caller));
      assertEquals(
          "accept:{\"answer\":\"" + question.toUpperCase() + "\"}",
          TestGateway.text(answer(retried)),
          retried.body());
    }
    assertEquals(2, count(agents, caller), "the caller's rounds were in its own session");
  }
}
