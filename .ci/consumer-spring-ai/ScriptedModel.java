import java.util.List;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.ToolResponseMessage;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.model.Generation;
import org.springframework.ai.chat.prompt.ChatOptions;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.model.tool.ToolCallingChatOptions;
import org.springframework.ai.model.tool.ToolCallingManager;
import org.springframework.ai.model.tool.ToolExecutionResult;
import org.springframework.stereotype.Component;

/**
 * The model of .ci/consumer-spring-ai.sh in place of a model starter's (no network): asked anything, it runs
 * server-everything's echo tool with "hello", as a model's tool call, and answers with its result after "ANSWER: ".
 */
@Component
public class ScriptedModel implements ChatModel {

  private final ToolCallingManager toolCalling = ToolCallingManager.builder().build();

  /** Tool-calling options, so that ChatClient hands this model its tool callbacks. */
  @Override
  public ChatOptions getOptions() {
    return ToolCallingChatOptions.builder().build();
  }

  @Override
  public ChatResponse call(Prompt prompt) {
    AssistantMessage asking =
        AssistantMessage.builder()
            .content("")
            .toolCalls(
                List.of(
                    new AssistantMessage.ToolCall(
                        "call-1", "function", "everything__echo", "{\"message\": \"hello\"}")))
            .build();
    ToolExecutionResult executed =
        toolCalling.executeToolCalls(prompt, new ChatResponse(List.of(new Generation(asking))));
    List<Message> history = executed.conversationHistory();
    ToolResponseMessage answer = (ToolResponseMessage) history.get(history.size() - 1);
    return new ChatResponse(
        List.of(new Generation(new AssistantMessage("ANSWER: " + answer.getResponses().get(0).responseData()))));
  }
}
