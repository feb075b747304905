package dev.mcpsupervisor.langchain4j;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.output.FinishReason;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.StreamSupport;

/**
 * A server's {@code sampling/createMessage} as a LangChain4j {@link ChatRequest}, and the model's
 * {@link ChatResponse} as the {@code CreateMessageResult} the server gets. Text only: other content
 * reaches the model as its type in brackets, as in tool results.
 */
final class ChatModelSampling {

  private ChatModelSampling() {}

  static ChatRequest request(JsonNode params) {
    List<ChatMessage> messages = new ArrayList<>();
    String systemPrompt = params.path("systemPrompt").asText("");
    if (!systemPrompt.isEmpty()) {
      messages.add(SystemMessage.from(systemPrompt));
    }
    for (JsonNode message : params.path("messages")) {
      String text = text(message.path("content"));
      messages.add(
          message.path("role").asText().equals("assistant")
              ? AiMessage.from(text)
              : UserMessage.from(text));
    }
    ChatRequest.Builder request = ChatRequest.builder().messages(messages);
    if (params.hasNonNull("maxTokens")) {
      request.maxOutputTokens(params.get("maxTokens").asInt());
    }
    if (params.hasNonNull("temperature")) {
      request.temperature(params.get("temperature").asDouble());
    }
    if (params.has("stopSequences")) {
      List<String> stops = new ArrayList<>();
      params.get("stopSequences").forEach(stop -> stops.add(stop.asText()));
      request.stopSequences(stops);
    }
    return request.build();
  }

  static JsonNode result(ChatResponse response) {
    ObjectNode result = JsonRpcCodec.emptyObject().put("role", "assistant");
    result.putObject("content").put("type", "text").put("text", response.aiMessage().text());
    result.put("model", response.modelName() == null ? "unknown" : response.modelName());
    result.put(
        "stopReason", response.finishReason() == FinishReason.LENGTH ? "maxTokens" : "endTurn");
    return result;
  }

  /** A message's content: one item, or (since 2025-11-25) an array of them. */
  private static String text(JsonNode content) {
    return content.isArray()
        ? StreamSupport.stream(content.spliterator(), false)
            .map(McpResults::text)
            .collect(Collectors.joining("\n"))
        : McpResults.text(content);
  }
}
