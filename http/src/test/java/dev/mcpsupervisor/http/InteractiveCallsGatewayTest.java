package dev.mcpsupervisor.http;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.mcpsupervisor.fixture.FixtureHttpServer;
import dev.mcpsupervisor.fixture.FixtureServer;
import dev.mcpsupervisor.fixture.FixtureTools;
import dev.mcpsupervisor.protocol.config.ServerSpec;
import dev.mcpsupervisor.protocol.config.UpstreamProtocol;
import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.TextContent;
import java.net.URI;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/**
 * Server requests under concurrency through the gateway (issue 21, item 1): 20 racing 2026-07-28
 * clients and 20 racing session-era clients call the fixture's {@code sample} tool, each with a
 * prompt of its own, on one {@code shared} server (four sessions at most). Over stdio its sampling
 * request names no call: once the tool is known to be interactive, the key actor runs each call
 * where no other caller's such call is in flight. Over Streamable HTTP it arrives on the call's own
 * response stream. Every client gets its own round or request, with its own prompt, and no other.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class InteractiveCallsGatewayTest {

  private static final int CALLERS = 20;
  private static final String STDIO = "/servers/fixture/mcp";
  private static final String HTTP = "/servers/remote/mcp";

  private FixtureHttpServer remote;
  private TestGateway gateway;
  private StatelessClient sampling;

  @BeforeAll
  void start() {
    remote = FixtureServer.startHttp(0);
    gateway =
        TestGateway.start(
            TestGateway.stdioFixture("fixture"),
            TestGateway.server(
                "remote",
                new ServerSpec.StreamableHttp(
                    URI.create(remote.url()), Map.of(), UpstreamProtocol.SESSION)));
    sampling = new StatelessClient(gateway, "{\"sampling\":{}}");
  }

  @AfterAll
  void stop() {
    gateway.close();
    remote.close();
  }

  /** What callers saw: their own prompt and answer, another's prompt, or no round at all. */
  record Tally(int own, int wrongPrompts, int noRound) {
    static final Tally ALL_OWN = new Tally(CALLERS, 0, 0);
  }

  @Test
  void twentyStatelessClientsOverStdioEachGetTheirOwnRoundAfterTheToolsFirstInteractiveCall() {
    assertEquals("own", statelessCaller(STDIO, "first call"), "the tool is learnt interactive");
    assertEquals(Tally.ALL_OWN, race(i -> () -> statelessCaller(STDIO, "stateless " + i)));
  }

  @Test
  void twentySessionClientsOverStdioEachGetTheirOwnRequestAfterTheToolsFirstInteractiveCall() {
    assertEquals("own", statelessCaller(STDIO, "first call"), "the tool is learnt interactive");
    List<SdkClient> clients = clients(STDIO);
    try {
      assertEquals(Tally.ALL_OWN, race(i -> () -> sessionCaller(clients.get(i), "session " + i)));
    } finally {
      clients.forEach(SdkClient::close);
    }
  }

  @Test
  void overStreamableHttpEveryCallersRequestIsItsOwnFromTheFirstCall() {
    assertEquals(Tally.ALL_OWN, race(i -> () -> statelessCaller(HTTP, "stateless " + i)));
    List<SdkClient> clients = clients(HTTP);
    try {
      assertEquals(Tally.ALL_OWN, race(i -> () -> sessionCaller(clients.get(i), "session " + i)));
    } finally {
      clients.forEach(SdkClient::close);
    }
  }

  // ------------------------------------------------------------------------------------- callers

  /** A 2026-07-28 call that answers its round: "own", "wrong prompt" or "no round". */
  private String statelessCaller(String path, String who) {
    String prompt = "prompt of " + who + " on " + path;
    String arguments = "{\"prompt\":" + JsonNodeFactory.instance.textNode(prompt) + "}";
    HttpResponse<String> first = sampling.callTool(path, 1, FixtureTools.SAMPLE, arguments);
    JsonNode round = TestGateway.answer(first).path("result");
    if (!"input_required".equals(round.path("resultType").asText())) {
      return "no round: " + first.body();
    }
    Iterator<Map.Entry<String, JsonNode>> asked = round.path("inputRequests").fields();
    Map.Entry<String, JsonNode> request = asked.next();
    String shown =
        request
            .getValue()
            .path("params")
            .path("messages")
            .path(0)
            .path("content")
            .path("text")
            .asText();
    if (!prompt.equals(shown) || asked.hasNext()) {
      return "wrong prompt: " + shown;
    }
    String answer =
        "{\"role\":\"assistant\",\"model\":\"test\",\"stopReason\":\"endTurn\","
            + "\"content\":{\"type\":\"text\",\"text\":"
            + JsonNodeFactory.instance.textNode("answer to " + prompt)
            + "}}";
    HttpResponse<String> retry =
        sampling.callTool(
            path,
            2,
            FixtureTools.SAMPLE,
            arguments,
            ",\"inputResponses\":{\""
                + request.getKey()
                + "\":"
                + answer
                + "},\"requestState\":\""
                + round.path("requestState").asText()
                + "\"");
    String text = TestGateway.text(TestGateway.answer(retry));
    return ("answer to " + prompt).equals(text) ? "own" : "wrong prompt: " + text;
  }

  /** A session-era client's call; its client answers "sampled: <the prompt it was shown>". */
  private static String sessionCaller(SdkClient client, String who) {
    String prompt = "prompt of " + who;
    CallToolResult result;
    try {
      result =
          client.client.callTool(
              CallToolRequest.builder()
                  .name(FixtureTools.SAMPLE)
                  .arguments(Map.of("prompt", prompt))
                  .build());
    } catch (McpError refused) { // the upstream's sampling was refused: the tool failed
      return "no round: " + refused.getMessage();
    }
    String text = ((TextContent) result.content().get(0)).text();
    if (Boolean.TRUE.equals(result.isError())) {
      return "no round: " + text;
    }
    return ("sampled: " + prompt).equals(text) ? "own" : "wrong prompt: " + text;
  }

  private List<SdkClient> clients(String path) {
    List<SdkClient> clients = new ArrayList<>();
    for (int i = 0; i < CALLERS; i++) {
      clients.add(new SdkClient(gateway.base, path));
    }
    return clients;
  }

  /** Starts the callers at once from racing threads and tallies what they saw. */
  private static Tally race(IntFunction<Callable<String>> caller) {
    ExecutorService racers = Executors.newFixedThreadPool(CALLERS);
    CountDownLatch start = new CountDownLatch(1);
    try {
      List<Future<String>> seen = new ArrayList<>();
      for (int i = 0; i < CALLERS; i++) {
        Callable<String> call = caller.apply(i);
        seen.add(
            racers.submit(
                () -> {
                  start.await();
                  return call.call();
                }));
      }
      start.countDown();
      int own = 0;
      int wrong = 0;
      int none = 0;
      List<String> problems = new ArrayList<>();
      for (Future<String> outcome : seen) {
        String what = outcome.get(Duration.ofSeconds(120).toMillis(), TimeUnit.MILLISECONDS);
        if (what.equals("own")) {
          own++;
        } else if (what.startsWith("wrong prompt")) {
          wrong++;
          problems.add(what);
        } else {
          none++;
          problems.add(what);
        }
      }
      if (!problems.isEmpty()) {
        System.err.println("callers that did not get their own: " + problems);
      }
      return new Tally(own, wrong, none);
    } catch (Exception e) {
      throw new AssertionError(e);
    } finally {
      racers.shutdownNow();
    }
  }
}
