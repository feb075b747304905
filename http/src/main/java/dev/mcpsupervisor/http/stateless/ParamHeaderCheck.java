package dev.mcpsupervisor.http.stateless;

import static dev.mcpsupervisor.protocol.JsonRpcErrorCodes.HEADER_MISMATCH;

import com.fasterxml.jackson.databind.JsonNode;
import dev.mcpsupervisor.http.endpoint.McpEndpoint;
import dev.mcpsupervisor.http.endpoint.Outcome;
import dev.mcpsupervisor.http.endpoint.UpstreamCalls;
import dev.mcpsupervisor.http.request.ClientRequests;
import dev.mcpsupervisor.protocol.ParamHeaders;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcError;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcRequest;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/** A stateless request's {@code Mcp-Param-*} headers, checked against its tool's declarations. */
public final class ParamHeaderCheck {

  private ParamHeaderCheck() {}

  /**
   * A 2026-07-28 tools/call whose Mcp-Param-* headers must say what its arguments say (SEP-2243):
   * the tool's declarations come from its server's tool list as {@link
   * dev.mcpsupervisor.http.endpoint.ToolSchemas} keeps it (no call of its own while the
   * supervisor's list cache keeps that list), and a mismatch is refused with 400 and -32020 before
   * anything goes upstream. A tool that declares none is not checked; nor is one its list does not
   * show (or a list that cannot be had): the server answers for it.
   */
  public static CompletionStage<Outcome> checked(
      JsonRpcRequest request,
      Map<String, String> headers,
      McpEndpoint endpoint,
      ClientRequests requests,
      UpstreamCalls calls) {
    McpEndpoint.View view = requests.snapshot();
    JsonNode params = request.params() == null ? JsonRpcCodec.emptyObject() : request.params();
    return endpoint
        .toolDeclarations(params.path("name").asText(""), calls)
        .thenCompose(
            declarations -> {
              Optional<String> mismatch =
                  declarations == null
                          || (declarations.isValid() && declarations.headers().isEmpty())
                      ? Optional.empty()
                      : ParamHeaders.mismatch(declarations, params.path("arguments"), headers::get);
              return mismatch.isPresent()
                  ? CompletableFuture.completedFuture(
                      new Outcome.Refused(
                          400,
                          new JsonRpcError(HEADER_MISMATCH, "Header mismatch: " + mismatch.get())))
                  : requests.handle(request, view, calls);
            });
  }
}
