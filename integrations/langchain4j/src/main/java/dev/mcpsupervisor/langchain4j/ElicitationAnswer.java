package dev.mcpsupervisor.langchain4j;

import java.util.Map;
import java.util.Objects;

/**
 * The user's answer to an elicitation, an MCP {@code ElicitResult}: accepted with {@code content},
 * declined, or cancelled (dismissed without a choice).
 *
 * @param action {@code accept}, {@code decline} or {@code cancel}
 * @param content the fields given, for {@code accept} only
 */
public record ElicitationAnswer(String action, Map<String, Object> content) {

  public ElicitationAnswer {
    Objects.requireNonNull(action, "action");
    content = content == null ? null : Map.copyOf(content);
  }

  public static ElicitationAnswer accept(Map<String, Object> content) {
    return new ElicitationAnswer("accept", Objects.requireNonNull(content, "content"));
  }

  public static ElicitationAnswer decline() {
    return new ElicitationAnswer("decline", null);
  }

  public static ElicitationAnswer cancel() {
    return new ElicitationAnswer("cancel", null);
  }
}
