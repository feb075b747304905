package dev.mcpsupervisor.http.session;

import dev.mcpsupervisor.http.endpoint.McpEndpoint;
import dev.mcpsupervisor.http.endpoint.Outcome;
import dev.mcpsupervisor.http.endpoint.UpstreamCalls;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcRequest;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/** An endpoint whose upstreams never answer: outcomes are completed by the tests. */
final class NeverAnswers implements McpEndpoint {
  @Override
  public String path() {
    return "/mcp";
  }

  @Override
  public List<String> servers() {
    return List.of();
  }

  @Override
  public CompletionStage<Outcome> initialize(UpstreamCalls calls, String protocolVersion) {
    return new CompletableFuture<>();
  }

  @Override
  public CompletionStage<Outcome> handle(JsonRpcRequest request, View view, UpstreamCalls calls) {
    return new CompletableFuture<>();
  }

  @Override
  public CompletionStage<dev.mcpsupervisor.protocol.ParamHeaders.Declarations> toolDeclarations(
      String name, UpstreamCalls calls) {
    return new CompletableFuture<>();
  }
}
