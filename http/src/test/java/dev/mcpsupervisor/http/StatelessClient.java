package dev.mcpsupervisor.http;

import static dev.mcpsupervisor.http.TestGateway.request;

import dev.mcpsupervisor.protocol.ProtocolVersions;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A 2026-07-28 client's requests as the conformance suite sends them: {@code _meta} naming the
 * version, the client and its capabilities, and the headers that mirror the body.
 */
final class StatelessClient {

  static final String VERSION = ProtocolVersions.V2026_07_28;

  private final TestGateway gateway;
  private final String capabilities;

  /**
   * @param capabilities the client's capabilities as JSON, e.g. {@code {"elicitation":{}}}
   */
  StatelessClient(TestGateway gateway, String capabilities) {
    this.gateway = gateway;
    this.capabilities = capabilities;
  }

  /** {@code "_meta":{...}}, with {@code extra} (",key:value...") appended inside. */
  static String meta(String capabilities, String extra) {
    return "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\""
        + VERSION
        + "\",\"io.modelcontextprotocol/clientInfo\":{\"name\":\"stateless-test\",\"version\":\"1\"},"
        + "\"io.modelcontextprotocol/clientCapabilities\":"
        + capabilities
        + extra
        + "}";
  }

  static String[] headers(String method, String name) {
    List<String> headers =
        new ArrayList<>(List.of("MCP-Protocol-Version", VERSION, "Mcp-Method", method));
    if (name != null) {
      headers.addAll(List.of("Mcp-Name", name));
    }
    return headers.toArray(String[]::new);
  }

  HttpResponse<String> send(String path, String method, String name, String body) {
    return gateway.post(path, null, body, headers(method, name));
  }

  /**
   * A tools/call body; {@code params} (",key:value...") goes beside name and arguments, {@code
   * metaExtra} into {@code _meta}.
   */
  String toolCall(Object id, String tool, String arguments, String params, String metaExtra) {
    return request(
        id,
        "tools/call",
        "{\"name\":\""
            + tool
            + "\",\"arguments\":"
            + arguments
            + params
            + ","
            + meta(capabilities, metaExtra)
            + "}");
  }

  HttpResponse<String> callTool(String path, Object id, String tool, String arguments) {
    return callTool(path, id, tool, arguments, "");
  }

  HttpResponse<String> callTool(
      String path, Object id, String tool, String arguments, String params) {
    return send(path, "tools/call", tool, toolCall(id, tool, arguments, params, ""));
  }

  /** Opens a subscriptions/listen stream on {@code path} with {@code filter} (JSON). */
  SseStream listen(String path, Object id, String filter) {
    String body =
        request(
            id,
            "subscriptions/listen",
            "{\"notifications\":" + filter + "," + meta(capabilities, "") + "}");
    return SseStream.open(
        gateway,
        gateway.postRequest(path, null, body, headers("subscriptions/listen", null)).build());
  }

  CompletableFuture<HttpResponse<String>> callToolAsync(
      String path, Object id, String tool, String arguments, String params) {
    return gateway.postAsync(
        path, null, toolCall(id, tool, arguments, params, ""), headers("tools/call", tool));
  }
}
