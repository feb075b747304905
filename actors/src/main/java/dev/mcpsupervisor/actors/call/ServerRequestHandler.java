package dev.mcpsupervisor.actors.call;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Set;
import java.util.concurrent.CompletionStage;

/**
 * Answers what an upstream server asks during a call of the typed client ({@code
 * SupervisorClient}): {@code sampling/createMessage}, {@code elicitation/create}, {@code
 * roots/list}. Only the methods of {@link #capabilities()} reach it; any other server request is
 * refused upstream with -32009 ({@code no client can answer <method> from <server>: the caller did
 * not declare the <capability> capability}), and the call goes on.
 */
public interface ServerRequestHandler {

  /** What this handler answers: declared on every call made with it. */
  Set<CallOptions.ClientCapability> capabilities();

  /**
   * The result for one request (a {@code CreateMessageResult}, {@code ElicitResult} or {@code
   * ListRootsResult} as JSON). A failed stage cancels the call: the caller's stage fails with it.
   * Called on a supervisor thread: hand slow work (a user's answer) off and return the stage.
   */
  CompletionStage<JsonNode> answer(String server, CallOutcome.InputRequest request);
}
