package dev.mcpsupervisor.springai;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.MessageType;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.model.Generation;
import org.springframework.ai.chat.prompt.Prompt;

class ChatModelSamplingTest {

  @Test
  void theSystemPromptAndEachMessagesTextMakeThePromptInOrderWithTheRequestsOptions()
      throws Exception {
    JsonNode params =
        JsonRpcCodec.mapper()
            .readTree(
                """
                {"systemPrompt": "be brief", "maxTokens": 10, "temperature": 0.2,
                 "stopSequences": ["."], "messages": [
                  {"role": "user", "content": {"type": "text", "text": "2+2?"}},
                  {"role": "assistant", "content": {"type": "text", "text": "4"}},
                  {"role": "user", "content": [{"type": "text", "text": "and"},
                    {"type": "image", "data": "AAAA", "mimeType": "image/png"},
                    {"type": "text", "text": "3+3?"}]}]}
                """);

    Prompt prompt = ChatModelSampling.prompt(params);
    List<Message> messages = prompt.getInstructions();

    assertEquals(
        List.of(MessageType.SYSTEM, MessageType.USER, MessageType.ASSISTANT, MessageType.USER),
        messages.stream().map(Message::getMessageType).toList());
    assertEquals(
        List.of("be brief", "2+2?", "4", "and\n3+3?"),
        messages.stream().map(Message::getText).toList());
    assertEquals(10, prompt.getOptions().getMaxTokens());
    assertEquals(0.2, prompt.getOptions().getTemperature());
    assertEquals(List.of("."), prompt.getOptions().getStopSequences());
  }

  @Test
  void theModelsTextIsTheCreateMessageResult() {
    JsonNode result =
        ChatModelSampling.result(
            new ChatResponse(List.of(new Generation(new AssistantMessage("6")))));

    assertEquals(
        "{\"role\":\"assistant\",\"content\":{\"type\":\"text\",\"text\":\"6\"},"
            + "\"model\":\"spring-ai\",\"stopReason\":\"endTurn\"}",
        result.toString());
  }
}
