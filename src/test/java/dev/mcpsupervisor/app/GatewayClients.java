package dev.mcpsupervisor.app;

import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.TextContent;
import java.net.URI;
import java.time.Duration;
import java.util.Map;
import java.util.function.UnaryOperator;

/** MCP Java SDK clients (Streamable HTTP) for the gateway. */
final class GatewayClients {

  private GatewayClients() {}

  /**
   * An initialized client for {@code path} on the gateway whose listening URL is {@code mcpUrl}.
   */
  static McpSyncClient connect(String mcpUrl, String path) {
    return connect(mcpUrl, path, UnaryOperator.identity());
  }

  /** The same, with more settings (e.g. a progress consumer). */
  static McpSyncClient connect(
      String mcpUrl, String path, UnaryOperator<McpClient.SyncSpec> customize) {
    URI gateway = URI.create(mcpUrl);
    HttpClientStreamableHttpTransport transport =
        HttpClientStreamableHttpTransport.builder(
                gateway.getScheme() + "://" + gateway.getAuthority())
            .endpoint(path)
            .build();
    McpSyncClient client =
        customize
            .apply(
                McpClient.sync(transport)
                    .requestTimeout(Duration.ofSeconds(30))
                    .initializationTimeout(Duration.ofSeconds(60)))
            .build();
    client.initialize();
    return client;
  }

  /** Calls a tool and answers the text of its first content item. */
  static String callText(McpSyncClient client, String tool, Map<String, Object> arguments) {
    CallToolResult result =
        client.callTool(CallToolRequest.builder().name(tool).arguments(arguments).build());
    if (Boolean.TRUE.equals(result.isError())) {
      throw new IllegalStateException(tool + " answered an error: " + result.content());
    }
    return ((TextContent) result.content().get(0)).text();
  }
}
