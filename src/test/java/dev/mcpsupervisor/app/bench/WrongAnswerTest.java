package dev.mcpsupervisor.app.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.mcpsupervisor.app.cli.CommandLine;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The bench against a tiny MCP server on 127.0.0.1 that answers every tools/call with the right id
 * but another session's payload: every call must count as wrong, none as ok.
 */
@Timeout(60)
class WrongAnswerTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private HttpServer server;
  private ExecutorService executor;

  @AfterEach
  void stop() {
    if (server != null) {
      server.stop(0);
      executor.shutdownNow();
    }
  }

  @Test
  void anAnswerCarryingAnotherSessionsPayloadIsWrongInBothEras(@TempDir Path dir) throws Exception {
    String url = serve(message -> message.replaceFirst("-s(\\d+)-", "-s9$1-"));
    Path json = dir.resolve("bench.json");
    StringWriter text = new StringWriter();

    int exit = bench(text, url, "-n", "3", "-m", "5", "-k", "2", "--json", json.toString());

    assertEquals(BenchCommand.EXIT_FAILURES, exit, text.toString());
    JsonNode runs = JSON.readTree(json.toFile()).path("runs");
    assertEquals(2, runs.size());
    for (JsonNode run : runs) {
      assertEquals(0, run.path("ok").asInt(), run.toString());
      assertEquals(15, run.path("wrong").asInt(), run.toString());
      assertEquals(0, run.path("failed").asInt(), run.toString());
      assertTrue(run.path("firstProblem").asText().startsWith("WRONG"), run.toString());
    }
    assertTrue(text.toString().contains("first problem: WRONG"), text.toString());
  }

  @Test
  void theSameServerEchoingFaithfullyIsClean() throws Exception {
    String url = serve(UnaryOperator.identity());
    StringWriter text = new StringWriter();

    int exit = bench(text, url, "-n", "3", "-m", "5", "-k", "2");

    assertEquals(BenchCommand.EXIT_CLEAN, exit, text.toString());
  }

  @Test
  void aServerThatRefusesEverythingFailsEveryCall(@TempDir Path dir) throws Exception {
    String url = serve(UnaryOperator.identity()).replace("/mcp", "/down");
    Path json = dir.resolve("bench.json");
    StringWriter text = new StringWriter();

    int exit = bench(text, url, "-n", "3", "-m", "5", "-k", "2", "--json", json.toString());

    assertEquals(BenchCommand.EXIT_FAILURES, exit, text.toString());
    for (JsonNode run : JSON.readTree(json.toFile()).path("runs")) {
      assertEquals(15, run.path("failed").asInt(), run.toString());
      assertEquals(0, run.path("ok").asInt() + run.path("wrong").asInt(), run.toString());
    }
  }

  private static int bench(StringWriter text, String... args) {
    PrintWriter both = new PrintWriter(text, true);
    return new CommandLine(new BenchCommand(), List.of(), "test").execute(both, both, args);
  }

  /** Serves initialize, notifications and tools/call, answering {@code echo(message)}. */
  private String serve(UnaryOperator<String> echo) throws IOException {
    executor = Executors.newFixedThreadPool(4);
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.setExecutor(executor);
    server.createContext("/mcp", exchange -> answer(exchange, echo));
    server.createContext(
        "/down",
        exchange -> {
          try (exchange) {
            exchange.sendResponseHeaders(503, -1);
          }
        });
    server.start();
    return "http://127.0.0.1:" + server.getAddress().getPort() + "/mcp";
  }

  private static void answer(HttpExchange exchange, UnaryOperator<String> echo) throws IOException {
    try (exchange) {
      if (!"POST".equals(exchange.getRequestMethod())) {
        exchange.sendResponseHeaders(200, -1);
        return;
      }
      JsonNode request = JSON.readTree(exchange.getRequestBody());
      if (!request.has("id")) {
        exchange.sendResponseHeaders(202, -1);
        return;
      }
      ObjectNode response = JSON.createObjectNode().put("jsonrpc", "2.0");
      response.set("id", request.get("id"));
      if ("initialize".equals(request.path("method").asText())) {
        response.putObject("result").put("protocolVersion", "2025-06-18");
        exchange.getResponseHeaders().add("Mcp-Session-Id", "fake-session");
      } else {
        String message = request.path("params").path("arguments").path("message").asText();
        response
            .putObject("result")
            .putArray("content")
            .addObject()
            .put("type", "text")
            .put("text", echo.apply(message));
      }
      byte[] body = response.toString().getBytes(StandardCharsets.UTF_8);
      exchange.getResponseHeaders().add("Content-Type", "application/json");
      exchange.sendResponseHeaders(200, body.length);
      exchange.getResponseBody().write(body);
    }
  }
}
