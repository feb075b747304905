package dev.mcpsupervisor.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.mcpsupervisor.protocol.JsonRpcErrorCodes;
import dev.mcpsupervisor.protocol.McpMethods;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A minimal Streamable HTTP MCP server on 127.0.0.1 that counts the requests it gets by method (and
 * its tools/call by tool; each tool answers its own name): a session-era server (2025-11-25, no
 * session id, JSON answers only, no GET stream) with fixed tools and prompts. Lists can be held
 * until the test lets them go.
 */
final class CountingUpstream implements AutoCloseable {

  private final HttpServer server;
  private final ExecutorService threads = Executors.newCachedThreadPool();
  private final Map<String, AtomicInteger> counts = new ConcurrentHashMap<>();
  private final List<String> tools;

  /** Every header value of every request, to show what reaches an upstream. */
  final Queue<String> headerValues = new ConcurrentLinkedQueue<>();

  /** tools/list answers once this completes. */
  volatile CompletableFuture<Void> listGate = CompletableFuture.completedFuture(null);

  CountingUpstream(List<String> tools) {
    this.tools = tools;
    try {
      server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    server.setExecutor(threads);
    server.createContext("/mcp", this::handle);
    server.start();
  }

  String url() {
    return "http://127.0.0.1:" + server.getAddress().getPort() + "/mcp";
  }

  int count(String method) {
    return counts.getOrDefault(method, new AtomicInteger()).get();
  }

  /** How many tools/call of {@code tool} arrived. */
  int calls(String tool) {
    return count(McpMethods.TOOLS_CALL + " " + tool);
  }

  private void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      if (!"POST".equals(exchange.getRequestMethod())) {
        exchange.sendResponseHeaders(405, -1);
        return;
      }
      exchange.getRequestHeaders().values().forEach(headerValues::addAll);
      JsonNode message = JsonRpcCodec.mapper().readTree(exchange.getRequestBody());
      String method = message.path("method").asText();
      counts.computeIfAbsent(method, m -> new AtomicInteger()).incrementAndGet();
      String tool = message.path("params").path("name").asText();
      if (McpMethods.TOOLS_CALL.equals(method)) {
        counts.computeIfAbsent(method + " " + tool, m -> new AtomicInteger()).incrementAndGet();
      }
      if (!message.has("id")) {
        exchange.sendResponseHeaders(202, -1);
        return;
      }
      ObjectNode response = JsonRpcCodec.emptyObject();
      response.put("jsonrpc", "2.0");
      response.set("id", message.get("id"));
      switch (method) {
        case McpMethods.INITIALIZE -> response.set("result", initializeResult());
        case McpMethods.TOOLS_LIST -> {
          listGate.get(30, TimeUnit.SECONDS);
          ObjectNode result = response.putObject("result");
          tools.forEach(
              name ->
                  result
                      .withArray("tools")
                      .addObject()
                      .put("name", name)
                      .putObject("inputSchema")
                      .put("type", "object"));
        }
        case McpMethods.TOOLS_CALL ->
            response
                .putObject("result")
                .putArray("content")
                .addObject()
                .put("type", "text")
                .put("text", tool);
        case McpMethods.PING -> response.putObject("result");
        default ->
            response
                .putObject("error")
                .put("code", JsonRpcErrorCodes.METHOD_NOT_FOUND)
                .put("message", "Method not found: " + method);
      }
      byte[] body = JsonRpcCodec.mapper().writeValueAsBytes(response);
      exchange.getResponseHeaders().set("Content-Type", "application/json");
      exchange.sendResponseHeaders(200, body.length);
      exchange.getResponseBody().write(body);
    } catch (Exception e) {
      throw new IOException(e);
    }
  }

  private static ObjectNode initializeResult() {
    ObjectNode result = JsonRpcCodec.emptyObject();
    result.put("protocolVersion", "2025-11-25");
    result.putObject("capabilities").putObject("tools").put("listChanged", true);
    result.putObject("serverInfo").put("name", "counting").put("version", "1");
    return result;
  }

  @Override
  public void close() {
    server.stop(0);
    threads.shutdownNow();
  }
}
