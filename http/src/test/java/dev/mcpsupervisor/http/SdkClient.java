package dev.mcpsupervisor.http;

import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.spec.McpSchema.ClientCapabilities;
import io.modelcontextprotocol.spec.McpSchema.CreateMessageRequest;
import io.modelcontextprotocol.spec.McpSchema.CreateMessageResult;
import io.modelcontextprotocol.spec.McpSchema.ElicitFormRequest;
import io.modelcontextprotocol.spec.McpSchema.ElicitResult;
import io.modelcontextprotocol.spec.McpSchema.LoggingMessageNotification;
import io.modelcontextprotocol.spec.McpSchema.ProgressNotification;
import io.modelcontextprotocol.spec.McpSchema.Role;
import io.modelcontextprotocol.spec.McpSchema.TextContent;
import io.modelcontextprotocol.spec.McpSchema.Tool;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * The MCP Java SDK's client on the gateway over Streamable HTTP, answering sampling ({@code
 * "sampled: <prompt>"}) and elicitation (accept with {@code {"answer":"yes"}}), recording progress
 * and logging notifications and the tool lists it fetches after each tools/list_changed.
 */
final class SdkClient implements AutoCloseable {

  static final Duration TIMEOUT = Duration.ofSeconds(30);

  final BlockingQueue<ProgressNotification> progress = new LinkedBlockingQueue<>();
  final BlockingQueue<LoggingMessageNotification> logs = new LinkedBlockingQueue<>();
  final BlockingQueue<List<Tool>> toolLists = new LinkedBlockingQueue<>();
  final McpSyncClient client;

  SdkClient(String base, String endpoint) {
    this(base, endpoint, null);
  }

  /**
   * @param protocolVersions what it may negotiate (it asks for the last), or null for the SDK's
   */
  SdkClient(String base, String endpoint, List<String> protocolVersions) {
    HttpClientStreamableHttpTransport.Builder transport =
        HttpClientStreamableHttpTransport.builder(base).endpoint(endpoint);
    if (protocolVersions != null) {
      transport.supportedProtocolVersions(protocolVersions);
    }
    client =
        McpClient.sync(transport.build())
            .requestTimeout(TIMEOUT)
            .initializationTimeout(TIMEOUT)
            .capabilities(ClientCapabilities.builder().sampling().elicitation().build())
            .sampling(SdkClient::sample)
            .elicitation(SdkClient::elicit)
            .progressConsumer(progress::add)
            .loggingConsumer(logs::add)
            .toolsChangeConsumer(toolLists::add)
            .build();
    client.initialize();
  }

  private static CreateMessageResult sample(CreateMessageRequest request) {
    String prompt = ((TextContent) request.messages().get(0).content()).text();
    return new CreateMessageResult(
        Role.ASSISTANT,
        TextContent.builder("sampled: " + prompt).build(),
        "test-model",
        CreateMessageResult.StopReason.END_TURN);
  }

  private static ElicitResult elicit(ElicitFormRequest request) {
    return new ElicitResult(ElicitResult.Action.ACCEPT, Map.of("answer", "yes"));
  }

  @Override
  public void close() {
    client.closeGracefully();
    client.close();
  }
}
