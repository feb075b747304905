package dev.mcpsupervisor.springai;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.concurrent.CompletionStage;

/**
 * Answers a server's {@code elicitation/create} during a tool call: a bean of this type makes the
 * auto-configuration declare the elicitation capability and offer the tools that elicit.
 */
@FunctionalInterface
public interface ElicitationHandler {

  /**
   * The {@code ElicitResult} as JSON ({@code {"action": "accept", "content": {...}}}, {@code
   * decline} or {@code cancel}) for the request's params ({@code message}, {@code
   * requestedSchema}). Called on a supervisor thread: hand a user's answer off and return the
   * stage; a failed stage fails the tool call.
   */
  CompletionStage<JsonNode> elicit(String server, JsonNode params);
}
