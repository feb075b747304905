package dev.mcpsupervisor.springai;

import com.fasterxml.jackson.databind.JsonNode;
import dev.mcpsupervisor.actors.call.CallOptions.ClientCapability;
import dev.mcpsupervisor.actors.call.CallOutcome;
import dev.mcpsupervisor.actors.call.ServerRequestHandler;
import dev.mcpsupervisor.protocol.McpMethods;
import java.util.EnumMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * The ready handlers as one {@link ServerRequestHandler}: sampling by the {@link ChatModelSampling}
 * and elicitation by the {@link ElicitationHandler} the application has; only their capabilities
 * are declared.
 */
final class ServerRequests implements ServerRequestHandler {

  private final Map<ClientCapability, ServerRequestHandler> handlers;

  private ServerRequests(Map<ClientCapability, ServerRequestHandler> handlers) {
    this.handlers = handlers;
  }

  /** The handler for what is given (either may be null): with no capability when neither is. */
  static ServerRequests of(ChatModelSampling sampling, ElicitationHandler elicitation) {
    Map<ClientCapability, ServerRequestHandler> handlers = new EnumMap<>(ClientCapability.class);
    if (sampling != null) {
      handlers.put(ClientCapability.SAMPLING, sampling);
    }
    if (elicitation != null) {
      handlers.put(
          ClientCapability.ELICITATION,
          new ServerRequestHandler() {
            @Override
            public Set<ClientCapability> capabilities() {
              return Set.of(ClientCapability.ELICITATION);
            }

            @Override
            public CompletionStage<JsonNode> answer(
                String server, CallOutcome.InputRequest request) {
              return elicitation.elicit(server, request.params());
            }
          });
    }
    return new ServerRequests(handlers);
  }

  @Override
  public Set<ClientCapability> capabilities() {
    return handlers.keySet();
  }

  @Override
  public CompletionStage<JsonNode> answer(String server, CallOutcome.InputRequest request) {
    ServerRequestHandler handler = handlers.get(capability(request.method()));
    return handler == null
        // only the declared capabilities' methods reach a handler
        ? CompletableFuture.failedFuture(
            new IllegalStateException("no handler for " + request.method()))
        : handler.answer(server, request);
  }

  private static ClientCapability capability(String method) {
    return switch (method) {
      case McpMethods.SAMPLING_CREATE_MESSAGE -> ClientCapability.SAMPLING;
      case McpMethods.ELICITATION_CREATE -> ClientCapability.ELICITATION;
      default -> ClientCapability.ROOTS;
    };
  }
}
