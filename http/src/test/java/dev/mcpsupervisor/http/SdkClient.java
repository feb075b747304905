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
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * The MCP Java SDK's client on the gateway over Streamable HTTP, answering sampling ({@code
 * "sampled: <prompt>"}) and elicitation (accept with {@code {"answer":"yes"}}), recording progress
 * and logging notifications.
 */
final class SdkClient implements AutoCloseable {

  static final Duration TIMEOUT = Duration.ofSeconds(30);

  final BlockingQueue<ProgressNotification> progress = new LinkedBlockingQueue<>();
  final BlockingQueue<LoggingMessageNotification> logs = new LinkedBlockingQueue<>();
  final McpSyncClient client;

  SdkClient(String base, String endpoint) {
    client =
        McpClient.sync(HttpClientStreamableHttpTransport.builder(base).endpoint(endpoint).build())
            .requestTimeout(TIMEOUT)
            .initializationTimeout(TIMEOUT)
            .capabilities(ClientCapabilities.builder().sampling().elicitation().build())
            .sampling(SdkClient::sample)
            .elicitation(SdkClient::elicit)
            .progressConsumer(progress::add)
            .loggingConsumer(logs::add)
            .build();
    client.initialize();
  }

  static CreateMessageResult sample(CreateMessageRequest request) {
    String prompt = ((TextContent) request.messages().get(0).content()).text();
    return new CreateMessageResult(
        Role.ASSISTANT,
        TextContent.builder("sampled: " + prompt).build(),
        "test-model",
        CreateMessageResult.StopReason.END_TURN);
  }

  static ElicitResult elicit(ElicitFormRequest request) {
    return new ElicitResult(ElicitResult.Action.ACCEPT, Map.of("answer", "yes"));
  }

  @Override
  public void close() {
    client.closeGracefully();
    client.close();
  }
}
