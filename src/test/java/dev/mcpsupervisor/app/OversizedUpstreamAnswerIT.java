package dev.mcpsupervisor.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mcpsupervisor.fixture.FixtureProcess;
import dev.mcpsupervisor.fixture.FixtureTools;
import dev.mcpsupervisor.protocol.JsonRpcErrorCodes;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.file.Path;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * End to end through the jar: a Streamable HTTP upstream (the fixture) whose answer is larger than
 * the server's {@code maxMessageBytes}. The downstream client gets JSON-RPC error -32015 naming the
 * limit, and its session goes on: the same {@code Mcp-Session-Id} serves the next call, over the
 * same upstream session (none was created to replace it).
 */
@Timeout(120)
class OversizedUpstreamAnswerIT {

  private static final int LIMIT = 64 * 1024;

  @TempDir Path dir;

  @Test
  void anOverLimitAnswerIsMinus32015AndTheSameSessionAnswersTheNextCall() throws Exception {
    try (FixtureProcess fixture = FixtureProcess.startHttp()) {
      Path config =
          GatewayConfigFile.write(
              dir.resolve("limited.json"),
              Map.of(
                  "limited",
                  GatewayConfigFile.with(
                      GatewayConfigFile.url(fixture.url()), "maxMessageBytes", LIMIT)));
      try (JarProcess jar = JarProcess.start("--config", config.toString(), "--port", "0")) {
        String url = jar.awaitListening();
        HttpClient http = HttpClient.newHttpClient();
        McpHttpSession session =
            McpHttpSession.open(
                http, URI.create(url.replaceFirst("/mcp$", "/servers/limited/mcp")));
        assertEquals("before", session.callToolText(FixtureTools.ECHO, message("before")));
        double createdBefore = sessionsCreated(http, url);

        JsonNode tooLarge = session.call("tools/call", echo("x".repeat(2 * LIMIT)));

        assertEquals(
            JsonRpcErrorCodes.UPSTREAM_MESSAGE_TOO_LARGE,
            tooLarge.path("error").path("code").asInt(),
            "the answer: " + abbreviated(tooLarge));
        String message = tooLarge.path("error").path("message").asText();
        assertTrue(message.contains("maxMessageBytes (" + LIMIT + " bytes)"), message);
        // the same downstream session: an unknown or replaced id would be answered 404 (call
        // throws)
        assertEquals("after", session.callToolText(FixtureTools.ECHO, message("after")));
        assertEquals(
            createdBefore,
            sessionsCreated(http, url),
            "no upstream session was created to replace the one that answered too much");
        assertEquals(200, session.delete());
      }
    }
  }

  private static ObjectNode message(String text) {
    return McpHttpSession.JSON.createObjectNode().put("message", text);
  }

  private static ObjectNode echo(String text) {
    ObjectNode params = McpHttpSession.JSON.createObjectNode().put("name", FixtureTools.ECHO);
    params.set("arguments", message(text));
    return params;
  }

  /** mcp_supervisor_upstream_sessions_created_total of the server, from the gateway's /metrics. */
  private static double sessionsCreated(HttpClient http, String mcpUrl)
      throws IOException, InterruptedException {
    String metrics =
        http.send(
                HttpRequest.newBuilder(URI.create(mcpUrl.replaceFirst("/mcp$", "/metrics")))
                    .build(),
                BodyHandlers.ofString())
            .body();
    Matcher created =
        Pattern.compile(
                "(?m)^mcp_supervisor_upstream_sessions_created_total\\{[^}]*server=\"limited\"[^}]*}"
                    + " ([0-9.eE+-]+)$")
            .matcher(metrics);
    assertTrue(created.find(), "no sessions_created_total for limited in:\n" + metrics);
    return Double.parseDouble(created.group(1));
  }

  private static String abbreviated(JsonNode node) {
    String text = node.toString();
    return text.length() > 500 ? text.substring(0, 500) + "..." : text;
  }
}
