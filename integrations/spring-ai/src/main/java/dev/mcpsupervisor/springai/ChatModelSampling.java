package dev.mcpsupervisor.springai;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mcpsupervisor.actors.call.CallOptions.ClientCapability;
import dev.mcpsupervisor.actors.call.CallOutcome;
import dev.mcpsupervisor.actors.call.ServerRequestHandler;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.stream.StreamSupport;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.SystemMessage;
import org.springframework.ai.chat.messages.UserMessage;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.prompt.ChatOptions;
import org.springframework.ai.chat.prompt.Prompt;

/**
 * Answers a server's {@code sampling/createMessage} with the application's {@link ChatModel}: the
 * request's system prompt and the text of its messages become the prompt, with its {@code
 * maxTokens}, {@code temperature} and {@code stopSequences} as options over the model's own; the
 * model's text is the {@code CreateMessageResult}. Non-text content (images, audio) and model
 * preferences are not passed on: the application chose its model.
 */
final class ChatModelSampling implements ServerRequestHandler {

  private final ChatModel model;

  ChatModelSampling(ChatModel model) {
    this.model = model;
  }

  @Override
  public Set<ClientCapability> capabilities() {
    return Set.of(ClientCapability.SAMPLING);
  }

  /** On the common pool: a model call blocks, and the supervisor's thread must not wait for it. */
  @Override
  public CompletionStage<JsonNode> answer(String server, CallOutcome.InputRequest request) {
    Prompt prompt = prompt(request.params());
    return CompletableFuture.supplyAsync(() -> result(model.call(prompt)));
  }

  static Prompt prompt(JsonNode params) {
    List<Message> messages = new ArrayList<>();
    String system = params.path("systemPrompt").asText("");
    if (!system.isEmpty()) {
      messages.add(new SystemMessage(system));
    }
    for (JsonNode message : params.path("messages")) {
      String text = text(message.path("content"));
      messages.add(
          "assistant".equals(message.path("role").asText())
              ? new AssistantMessage(text)
              : new UserMessage(text));
    }
    ChatOptions.Builder<?> options = ChatOptions.builder();
    if (params.path("maxTokens").isInt()) {
      options.maxTokens(params.path("maxTokens").asInt());
    }
    if (params.path("temperature").isNumber()) {
      options.temperature(params.path("temperature").asDouble());
    }
    if (params.path("stopSequences").isArray()) {
      options.stopSequences(
          StreamSupport.stream(params.path("stopSequences").spliterator(), false)
              .map(JsonNode::asText)
              .toList());
    }
    return new Prompt(messages, options.build());
  }

  /** The text parts of a content block or of a list of them, joined by newlines. */
  private static String text(JsonNode content) {
    Iterable<JsonNode> parts = content.isArray() ? content : List.of(content);
    return String.join(
        "\n",
        StreamSupport.stream(parts.spliterator(), false)
            .filter(part -> "text".equals(part.path("type").asText()))
            .map(part -> part.path("text").asText())
            .toList());
  }

  static JsonNode result(ChatResponse response) {
    ObjectNode result = JsonRpcCodec.emptyObject();
    result.put("role", "assistant");
    ObjectNode content = result.putObject("content");
    content.put("type", "text");
    content.put("text", response.getResult().getOutput().getText());
    String model = response.getMetadata().getModel();
    result.put("model", model == null || model.isEmpty() ? "spring-ai" : model);
    result.put("stopReason", "endTurn");
    return result;
  }
}
