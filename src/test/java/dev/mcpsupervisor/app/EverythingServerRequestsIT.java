package dev.mcpsupervisor.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.ClientCapabilities;
import io.modelcontextprotocol.spec.McpSchema.CreateMessageResult;
import io.modelcontextprotocol.spec.McpSchema.Role;
import io.modelcontextprotocol.spec.McpSchema.TextContent;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Server requests under concurrency with a server nobody here wrote (issue 21, item 1): {@code
 * @modelcontextprotocol/server-everything} (npm) over stdio, {@code shared} with the shipped
 * defaults, behind the gateway jar. After {@code trigger-sampling-request}'s first call, 20 racing
 * 2026-07-28 clients each get an {@code input_required} round with their own prompt, and 20 racing
 * session-era clients each get their own sampling request: 20/20, no prompt shown to another
 * caller. Skipped when .ci/node-env.sh has not installed the package.
 */
@Timeout(300)
class EverythingServerRequestsIT {

  private static final int CALLERS = 20;
  private static final String PATH = "/servers/everything/mcp";
  private static final String TOOL = "trigger-sampling-request";
  private static final String VERSION = "2026-07-28";
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration WAIT = Duration.ofSeconds(120);

  @TempDir Path dir;

  private final HttpClient http = HttpClient.newHttpClient();

  @Test
  void twentyCallersOfEachEraEachGetTheirOwnSamplingRequestAfterTheToolsFirstCall() {
    NodePeers.assumeInstalled(NodePeers.EVERYTHING);
    Path config =
        GatewayConfigFile.write(
            dir.resolve("everything.json"),
            Map.of(
                "everything",
                GatewayConfigFile.stdio(
                    NodePeers.node(), NodePeers.everythingServer().toString(), "stdio")));
    try (JarProcess jar = JarProcess.start("--config", config.toString(), "--port", "0")) {
      URI endpoint = URI.create(jar.awaitListening()).resolve(PATH);
      assertEquals("own", stateless(endpoint, "the first call"), "the tool is learnt");

      assertEquals(
          List.of(CALLERS, 0), race(i -> () -> stateless(endpoint, "stateless caller " + i)));

      List<SessionClient> clients = new ArrayList<>();
      try {
        for (int i = 0; i < CALLERS; i++) {
          clients.add(new SessionClient(jar.awaitListening(), "session client " + i));
        }
        assertEquals(List.of(CALLERS, 0), race(i -> clients.get(i)::call));
        for (SessionClient client : clients) {
          assertTrue(client.wrong.isEmpty(), "shown another's prompt: " + client.wrong);
        }
      } finally {
        clients.forEach(client -> client.client.close());
      }
    }
  }

  // ------------------------------------------------------------------------------------- callers

  /** A 2026-07-28 call that answers its round: "own", "wrong prompt: ..." or "no round: ...". */
  private String stateless(URI endpoint, String who) {
    String prompt = "prompt of " + who;
    JsonNode round = post(endpoint, 1, prompt, null).path("result");
    if (!"input_required".equals(round.path("resultType").asText())) {
      return "no round: " + round;
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
    if (!shown.endsWith(": " + prompt) || asked.hasNext()) {
      return "wrong prompt: " + shown;
    }
    ObjectNode retry = JSON.createObjectNode();
    ObjectNode answer = retry.putObject("inputResponses").putObject(request.getKey());
    answer.put("role", "assistant").put("model", "test").put("stopReason", "endTurn");
    answer.putObject("content").put("type", "text").put("text", "answer to " + prompt);
    retry.put("requestState", round.path("requestState").asText());
    JsonNode done = post(endpoint, 2, prompt, retry);
    String text = done.path("result").path("content").path(0).path("text").asText();
    return text.contains("answer to " + prompt) ? "own" : "wrong prompt: " + done;
  }

  private JsonNode post(URI endpoint, int id, String prompt, ObjectNode retry) {
    ObjectNode params = JSON.createObjectNode().put("name", TOOL);
    params.putObject("arguments").put("prompt", prompt);
    if (retry != null) {
      params.setAll(retry);
    }
    ObjectNode meta = params.putObject("_meta");
    meta.put("io.modelcontextprotocol/protocolVersion", VERSION);
    meta.putObject("io.modelcontextprotocol/clientInfo").put("name", "it").put("version", "1");
    meta.putObject("io.modelcontextprotocol/clientCapabilities").putObject("sampling");
    ObjectNode body = JSON.createObjectNode().put("jsonrpc", "2.0").put("id", id);
    body.put("method", "tools/call").set("params", params);
    try {
      HttpResponse<String> response =
          http.send(
              HttpRequest.newBuilder(endpoint)
                  .timeout(WAIT)
                  .header("Content-Type", "application/json")
                  .header("Accept", "application/json, text/event-stream")
                  .header("MCP-Protocol-Version", VERSION)
                  .header("Mcp-Method", "tools/call")
                  .header("Mcp-Name", TOOL)
                  .POST(HttpRequest.BodyPublishers.ofString(body.toString()))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      return lastMessage(response);
    } catch (Exception e) {
      throw new AssertionError("POST " + endpoint + " failed: " + e, e);
    }
  }

  /** The response itself: the JSON body, or an SSE body's last message. */
  private static JsonNode lastMessage(HttpResponse<String> response) throws Exception {
    if (!response.headers().firstValue("Content-Type").orElse("").startsWith("text/event-stream")) {
      return JSON.readTree(response.body());
    }
    JsonNode last = null;
    for (String line : response.body().split("\n")) {
      String data = line.startsWith("data:") ? line.substring("data:".length()).trim() : "";
      if (!data.isEmpty()) {
        last = JSON.readTree(data);
      }
    }
    return last;
  }

  /** A session-era client (MCP Java SDK) whose sampling answers the prompt it is shown. */
  private static final class SessionClient {
    final String prompt;
    final ConcurrentLinkedQueue<String> wrong = new ConcurrentLinkedQueue<>();
    final McpSyncClient client;

    SessionClient(String url, String who) {
      this.prompt = "prompt of " + who;
      this.client =
          GatewayClients.connect(
              url,
              PATH,
              spec ->
                  spec.capabilities(ClientCapabilities.builder().sampling().build())
                      .sampling(
                          request -> {
                            String shown =
                                ((TextContent) request.messages().get(0).content()).text();
                            if (!shown.endsWith(": " + prompt)) {
                              wrong.add(shown);
                            }
                            return new CreateMessageResult(
                                Role.ASSISTANT,
                                TextContent.builder("answer to " + shown).build(),
                                "test",
                                CreateMessageResult.StopReason.END_TURN);
                          }));
    }

    String call() {
      CallToolResult result =
          client.callTool(
              CallToolRequest.builder().name(TOOL).arguments(Map.of("prompt", prompt)).build());
      String text = ((TextContent) result.content().get(0)).text();
      if (Boolean.TRUE.equals(result.isError())) {
        return "no round: " + text;
      }
      return wrong.isEmpty() && text.contains(": " + prompt) ? "own" : "wrong prompt: " + text;
    }
  }

  /**
   * Starts the callers at once from racing threads: [how many got their own, how many another's].
   */
  private static List<Integer> race(IntFunction<Callable<String>> caller) {
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
      List<String> problems = new ArrayList<>();
      for (Future<String> outcome : seen) {
        String what = outcome.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        if (what.equals("own")) {
          own++;
        } else {
          wrong += what.startsWith("wrong prompt") ? 1 : 0;
          problems.add(what);
        }
      }
      if (!problems.isEmpty()) {
        System.err.println("callers that did not get their own: " + problems);
      }
      return List.of(own, wrong);
    } catch (Exception e) {
      throw new AssertionError(e);
    } finally {
      racers.shutdownNow();
    }
  }
}
