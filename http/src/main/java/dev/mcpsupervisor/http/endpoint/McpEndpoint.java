package dev.mcpsupervisor.http.endpoint;

import com.fasterxml.jackson.databind.JsonNode;
import dev.mcpsupervisor.protocol.ParamHeaders;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcRequest;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;

/**
 * How one MCP endpoint maps a downstream request onto upstream servers: {@code /mcp} aggregates
 * every server, {@code /servers/<name>/mcp} passes everything to one. Methods the downstream
 * session answers itself (ping, logging/setLevel) never reach it, nor resources/unsubscribe (it
 * goes to the server the session subscribed on).
 */
public interface McpEndpoint {

  /** The HTTP path, e.g. {@code /mcp}: sessions are bound to the endpoint that created them. */
  String path();

  /** The servers behind it, in file order. */
  List<String> servers();

  /**
   * Answers {@code initialize}: the capabilities and server info a client of this endpoint sees.
   */
  CompletionStage<Outcome> initialize(UpstreamCalls calls, String protocolVersion);

  /**
   * Answers any other request. Reads {@code view}'s maps only before it returns (they belong to the
   * session).
   */
  CompletionStage<Outcome> handle(JsonRpcRequest request, View view, UpstreamCalls calls);

  /**
   * The Mcp-Param declarations of the tool a tools/call of {@code name} reaches, from its server's
   * tool list as {@link ToolSchemas} keeps it; null when no listed tool has that name or the list
   * cannot be had.
   */
  CompletionStage<ParamHeaders.Declarations> toolDeclarations(String name, UpstreamCalls calls);

  /**
   * What the session knows that dispatching needs.
   *
   * @param upstreams server → its initialize result (absent for servers that did not answer at
   *     initialize)
   * @param resourceOwners resource URI → server, learned from resources/list and reads
   * @param templateOwners URI template → server, learned from resources/templates/list
   */
  record View(
      Map<String, JsonNode> upstreams,
      Map<String, String> resourceOwners,
      Map<String, String> templateOwners) {}
}
