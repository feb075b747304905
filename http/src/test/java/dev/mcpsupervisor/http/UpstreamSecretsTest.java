package dev.mcpsupervisor.http;

import static dev.mcpsupervisor.http.TestGateway.json;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import dev.mcpsupervisor.fixture.FixtureTools;
import dev.mcpsupervisor.http.session.AdminReport;
import dev.mcpsupervisor.protocol.JsonRpcErrorCodes;
import dev.mcpsupervisor.protocol.ProtocolVersions;
import dev.mcpsupervisor.protocol.config.ServerSpec;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** What the gateway keeps from clients and upstreams, and what of it clients see. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class UpstreamSecretsTest {

  private static final String CANARY = "CANARY";

  /**
   * An upstream's diagnostics may hold secrets: its URL's path (sk-... keys), its HTTP error body,
   * a stdio server's stderr. None of it reaches a client, whatever the client asks.
   */
  @Test
  void noUpstreamDiagnosticReachesAClient() throws IOException {
    HttpServer failing = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    failing.createContext(
        "/mcp/sk-" + CANARY,
        exchange -> {
          exchange.getRequestBody().readAllBytes();
          byte[] body = ("internal error near " + CANARY + " (stack trace)").getBytes(UTF_8);
          exchange.sendResponseHeaders(500, body.length);
          exchange.getResponseBody().write(body);
          exchange.close();
        });
    failing.start();
    URI remote =
        URI.create("http://127.0.0.1:" + failing.getAddress().getPort() + "/mcp/sk-" + CANARY);
    List<String> answers = new ArrayList<>();
    try (TestGateway gateway =
        TestGateway.start(
            TestGateway.stdioFixture("fixture"),
            TestGateway.server(
                "broken",
                new ServerSpec.Stdio(
                    "sh", List.of("-c", "echo sk-" + CANARY + " >&2; exit 1"), Map.of(), null)),
            TestGateway.server("remote", new ServerSpec.StreamableHttp(remote, Map.of())))) {
      for (String server : List.of("remote", "broken")) {
        for (int attempt = 0; attempt < 4; attempt++) { // on to the open circuit's answer
          HttpResponse<String> refused =
              gateway.post(
                  "/servers/" + server + "/mcp",
                  null,
                  TestGateway.initializeBody(ProtocolVersions.V2025_06_18, "{}"));
          answers.add(refused.body());
          assertEquals(
              JsonRpcErrorCodes.UPSTREAM_UNAVAILABLE,
              TestGateway.answer(refused).path("error").path("code").asInt(),
              refused.body());
        }
      }

      String session = gateway.initialize("/servers/fixture/mcp");
      answers.add(
          gateway
              .post(
                  "/servers/fixture/mcp",
                  session,
                  TestGateway.callTool(2, FixtureTools.STDERR, "{\"message\":\"" + CANARY + "\"}"))
              .body());
      HttpResponse<String> lost =
          gateway.post("/servers/fixture/mcp", session, TestGateway.callTool(3, "crash", "{}"));
      answers.add(lost.body());
      JsonNode error = TestGateway.answer(lost).path("error");
      assertEquals(
          JsonRpcErrorCodes.UPSTREAM_SESSION_LOST, error.path("code").asInt(), lost.body());
      assertTrue(error.path("data").path("retryable").asBoolean(), lost.body());

      HttpResponse<String> aggregated =
          gateway.post("/mcp", null, TestGateway.initializeBody(ProtocolVersions.LATEST, "{}"));
      answers.add(aggregated.body());
      String aggregatedSession = aggregated.headers().firstValue("Mcp-Session-Id").orElseThrow();
      answers.add(
          gateway
              .post("/mcp", aggregatedSession, TestGateway.request(2, "tools/list", "{}"))
              .body());
      answers.add(gateway.get("/admin/sessions").body());
      // the operations page and its feed name the failures, not what the upstream said
      answers.add(gateway.get("/admin").body());
      gateway.metrics.journal().entries().forEach(entry -> answers.add(entry.toString()));
    } finally {
      failing.stop(0);
    }
    assertTrue(answers.size() >= 12, "answers: " + answers.size());
    for (String answer : answers) {
      assertFalse(answer.contains(CANARY), answer);
    }
  }

  @Test
  void aClientsNameIsKeptAndShownBounded() {
    try (TestGateway gateway = TestGateway.start(TestGateway.stdioFixture("fixture"))) {
      String longName = "n".repeat(100_000);
      String body =
          TestGateway.initializeBody(ProtocolVersions.V2025_06_18, "{}")
              .replace("\"test-client\"", "\"" + longName + "\"");
      HttpResponse<String> initialized = gateway.post("/servers/fixture/mcp", null, body);
      assertEquals(200, initialized.statusCode(), initialized.body());

      String name =
          json(gateway.get("/admin/sessions").body())
              .path("downstreamSessions")
              .path(0)
              .path("client")
              .path("name")
              .asText();
      assertTrue(name.length() <= AdminReport.MAX_CLIENT_TEXT + 1, "length " + name.length());
      assertTrue(name.startsWith("nnnn"), name);
    }
  }
}
