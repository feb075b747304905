package dev.mcpsupervisor.langchain4j;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * Answers a server's {@code elicitation/create} during a tool call: asks the user {@code message}
 * and returns what they gave, in the shape of {@code requestedSchema} (a flat JSON object schema).
 * Called on a thread of its own, never a supervisor's: it may block while the user answers. An
 * exception fails the tool call with it.
 */
@FunctionalInterface
public interface ElicitationHandler {

  ElicitationAnswer answer(String server, String message, JsonNode requestedSchema);
}
