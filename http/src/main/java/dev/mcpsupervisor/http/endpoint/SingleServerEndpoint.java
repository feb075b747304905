package dev.mcpsupervisor.http.endpoint;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mcpsupervisor.actors.SupervisorException;
import dev.mcpsupervisor.actors.base.SupervisorErrors;
import dev.mcpsupervisor.protocol.McpMethods;
import dev.mcpsupervisor.protocol.ParamHeaders;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcRequest;
import dev.mcpsupervisor.upstream.Failures;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;

/**
 * {@code /servers/<name>/mcp}: one server, names unchanged. initialize answers that upstream's own
 * capabilities, server info and instructions with the version negotiated with this client; every
 * other request goes upstream as it came (pagination cursors included).
 */
public final class SingleServerEndpoint implements McpEndpoint {

  private final String server;
  private final ToolSchemas schemas;

  public SingleServerEndpoint(String server, ToolSchemas schemas) {
    this.server = server;
    this.schemas = schemas;
  }

  public static String pathOf(String server) {
    return "/servers/" + server + "/mcp";
  }

  @Override
  public String path() {
    return pathOf(server);
  }

  @Override
  public List<String> servers() {
    return List.of(server);
  }

  @Override
  public CompletionStage<Outcome> initialize(UpstreamCalls calls, String protocolVersion) {
    return calls
        .acquire(server)
        .handle(
            (upstream, failure) -> {
              if (failure != null) {
                return new Outcome.Failure(
                    Failures.unwrap(failure) instanceof SupervisorException supervisorError
                        ? supervisorError.error()
                        : SupervisorErrors.unavailable(server, Failures.describe(failure)));
              }
              ObjectNode result = ((ObjectNode) upstream).deepCopy();
              result.put("protocolVersion", protocolVersion);
              return new Outcome.Initialized(result, Map.of(server, upstream));
            });
  }

  @Override
  public CompletionStage<ParamHeaders.Declarations> toolDeclarations(
      String name, UpstreamCalls calls) {
    return schemas.of(server, name, calls);
  }

  @Override
  public CompletionStage<Outcome> handle(JsonRpcRequest request, View view, UpstreamCalls calls) {
    CompletionStage<Outcome> answer =
        calls.call(server, request.method(), request.params()).thenApply(Outcome::of);
    if (!McpMethods.RESOURCES_SUBSCRIBE.equals(request.method())) {
      return answer;
    }
    JsonNode uri = request.params() == null ? null : request.params().get("uri");
    return answer.thenApply(
        outcome ->
            outcome instanceof Outcome.Result result && uri != null && uri.isTextual()
                ? new Outcome.Subscribed(result.result(), uri.textValue(), server)
                : outcome);
  }
}
