package dev.mcpsupervisor.app;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A minimal MCP Streamable HTTP client on one shared {@link HttpClient}, for tests that need
 * hundreds of downstream sessions (an SDK client per session would cost a thread pool each). It
 * reads answers sent as JSON or as SSE.
 */
final class McpHttpSession {

  static final ObjectMapper JSON = new ObjectMapper();
  static final String PROTOCOL_VERSION = "2025-06-18";
  private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);

  private final HttpClient http;
  private final URI endpoint;
  private final String sessionId;
  private final AtomicLong ids;

  /** The bearer token every request carries, or null. */
  private final String token;

  private McpHttpSession(
      HttpClient http, URI endpoint, String sessionId, AtomicLong ids, String token) {
    this.http = http;
    this.endpoint = endpoint;
    this.sessionId = sessionId;
    this.ids = ids;
    this.token = token;
  }

  /** The same session, its requests sent to {@code other} (another node of a cluster). */
  McpHttpSession via(URI other) {
    return new McpHttpSession(http, other, sessionId, ids, token);
  }

  /** initialize, then notifications/initialized: a ready downstream session. */
  static McpHttpSession open(HttpClient http, URI endpoint) {
    return open(http, endpoint, null);
  }

  /** {@link #open(HttpClient, URI)}, every request with {@code token} (null: none). */
  static McpHttpSession open(HttpClient http, URI endpoint, String token) {
    ObjectNode params = JSON.createObjectNode();
    params.put("protocolVersion", PROTOCOL_VERSION);
    params.putObject("capabilities");
    params.putObject("clientInfo").put("name", "mcp-supervisor-test").put("version", "1");
    HttpResponse<String> response =
        post(http, endpoint, null, token, request(0, "initialize", params));
    if (response.statusCode() != 200) {
      throw new IllegalStateException(
          "initialize answered " + response.statusCode() + ": " + response.body());
    }
    String sessionId =
        response
            .headers()
            .firstValue("Mcp-Session-Id")
            .orElseThrow(() -> new IllegalStateException("no session id"));
    McpHttpSession session = new McpHttpSession(http, endpoint, sessionId, new AtomicLong(), token);
    ObjectNode initialized =
        JSON.createObjectNode().put("jsonrpc", "2.0").put("method", "notifications/initialized");
    int status = post(http, endpoint, sessionId, token, initialized).statusCode();
    if (status != 202) {
      throw new IllegalStateException("notifications/initialized answered " + status);
    }
    return session;
  }

  String sessionId() {
    return sessionId;
  }

  /** Sends a request and answers the JSON-RPC response to it (result or error). */
  JsonNode call(String method, JsonNode params) {
    long id = ids.incrementAndGet();
    HttpResponse<String> response =
        post(http, endpoint, sessionId, token, request(id, method, params));
    if (response.statusCode() != 200) {
      throw new IllegalStateException(
          method + " answered " + response.statusCode() + ": " + response.body());
    }
    return responseTo(id, response);
  }

  /** tools/call and the text of its first content item. */
  String callToolText(String tool, JsonNode arguments) {
    ObjectNode params = JSON.createObjectNode().put("name", tool);
    params.set("arguments", arguments);
    JsonNode answer = call("tools/call", params);
    if (answer.has("error")) {
      throw new IllegalStateException(tool + " failed: " + answer.get("error"));
    }
    return answer.path("result").path("content").path(0).path("text").asText();
  }

  /** DELETE: ends the downstream session. Answers the HTTP status. */
  int delete() {
    HttpRequest request =
        HttpRequest.newBuilder(endpoint)
            .timeout(REQUEST_TIMEOUT)
            .header("Mcp-Session-Id", sessionId)
            .DELETE()
            .build();
    return send(http, request).statusCode();
  }

  private static ObjectNode request(long id, String method, JsonNode params) {
    ObjectNode request =
        JSON.createObjectNode().put("jsonrpc", "2.0").put("id", id).put("method", method);
    if (params != null) {
      request.set("params", params);
    }
    return request;
  }

  static HttpResponse<String> post(HttpClient http, URI endpoint, String sessionId, JsonNode body) {
    return post(http, endpoint, sessionId, null, body);
  }

  private static HttpResponse<String> post(
      HttpClient http, URI endpoint, String sessionId, String token, JsonNode body) {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(endpoint)
            .timeout(REQUEST_TIMEOUT)
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream")
            .header("MCP-Protocol-Version", PROTOCOL_VERSION)
            .POST(HttpRequest.BodyPublishers.ofString(body.toString()));
    if (sessionId != null) {
      request.header("Mcp-Session-Id", sessionId);
    }
    if (token != null) {
      request.header("Authorization", "Bearer " + token);
    }
    return send(http, request.build());
  }

  private static HttpResponse<String> send(HttpClient http, HttpRequest request) {
    try {
      return http.send(request, HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** The response with this id, from a JSON body or from the data lines of an SSE body. */
  static JsonNode responseTo(long id, HttpResponse<String> response) {
    String contentType = response.headers().firstValue("Content-Type").orElse("");
    try {
      if (!contentType.startsWith("text/event-stream")) {
        return JSON.readTree(response.body());
      }
      for (String event : response.body().split("\r?\n\r?\n")) {
        StringBuilder data = new StringBuilder();
        event
            .lines()
            .filter(line -> line.startsWith("data:"))
            .forEach(line -> data.append(line.substring(5).strip()));
        if (data.length() > 0) {
          JsonNode message = JSON.readTree(data.toString());
          if (message.path("id").asLong(-1) == id && !message.has("method")) {
            return message;
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    throw new IllegalStateException("no response with id " + id + " in: " + response.body());
  }
}
