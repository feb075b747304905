package dev.mcpsupervisor.langchain4j;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.langchain4j.mcp.client.McpRoot;
import dev.langchain4j.model.chat.ChatModel;
import dev.mcpsupervisor.actors.call.CallOptions.ClientCapability;
import dev.mcpsupervisor.actors.call.CallOutcome;
import dev.mcpsupervisor.actors.call.ServerRequestHandler;
import dev.mcpsupervisor.protocol.McpMethods;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.function.Supplier;

/**
 * What a {@link SupervisedMcpClient} answers when its server asks during a call: {@code roots/list}
 * from the roots set on it, {@code sampling/createMessage} with the application's {@link
 * ChatModel}, {@code elicitation/create} with its {@link ElicitationHandler}. It declares only what
 * it can answer; the model and the handler run on {@code blocking}, off the supervisor's threads.
 */
final class ServerRequests implements ServerRequestHandler {

  private final Supplier<List<McpRoot>> roots;
  private final ChatModel sampling;
  private final ElicitationHandler elicitation;
  private final Executor blocking;

  /**
   * @param sampling null for none
   * @param elicitation null for none
   */
  ServerRequests(
      Supplier<List<McpRoot>> roots,
      ChatModel sampling,
      ElicitationHandler elicitation,
      Executor blocking) {
    this.roots = roots;
    this.sampling = sampling;
    this.elicitation = elicitation;
    this.blocking = blocking;
  }

  /** Whether a tool that asks for sampling or elicitation can get an answer here. */
  boolean answersInteractiveTools() {
    return sampling != null || elicitation != null;
  }

  @Override
  public Set<ClientCapability> capabilities() {
    Set<ClientCapability> declared = EnumSet.noneOf(ClientCapability.class);
    if (!roots.get().isEmpty()) {
      declared.add(ClientCapability.ROOTS);
    }
    if (sampling != null) {
      declared.add(ClientCapability.SAMPLING);
    }
    if (elicitation != null) {
      declared.add(ClientCapability.ELICITATION);
    }
    return declared;
  }

  @Override
  public CompletionStage<JsonNode> answer(String server, CallOutcome.InputRequest request) {
    JsonNode params = request.params();
    return switch (request.method()) {
      case McpMethods.ROOTS_LIST -> CompletableFuture.completedFuture(rootsResult());
      case McpMethods.SAMPLING_CREATE_MESSAGE ->
          CompletableFuture.supplyAsync(
              () -> ChatModelSampling.result(sampling.chat(ChatModelSampling.request(params))),
              blocking);
      case McpMethods.ELICITATION_CREATE ->
          CompletableFuture.supplyAsync(
              () ->
                  elicitResult(
                      elicitation.answer(
                          server, params.path("message").asText(), params.path("requestedSchema"))),
              blocking);
      default ->
          CompletableFuture.failedFuture(
              new IllegalStateException("no answer for " + request.method()));
    };
  }

  private JsonNode rootsResult() {
    ObjectNode result = JsonRpcCodec.emptyObject();
    ArrayNode list = result.putArray("roots");
    for (McpRoot root : roots.get()) {
      ObjectNode entry = list.addObject().put("uri", root.uri());
      if (root.name() != null) {
        entry.put("name", root.name());
      }
    }
    return result;
  }

  private static JsonNode elicitResult(ElicitationAnswer answer) {
    ObjectNode result = JsonRpcCodec.emptyObject().put("action", answer.action());
    if (answer.content() != null) {
      result.set("content", JsonRpcCodec.mapper().valueToTree(answer.content()));
    }
    return result;
  }
}
