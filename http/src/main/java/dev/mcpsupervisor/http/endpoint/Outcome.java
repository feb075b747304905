package dev.mcpsupervisor.http.endpoint;

import com.fasterxml.jackson.databind.JsonNode;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcError;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import java.util.Map;

/**
 * What an endpoint answers a request with: a result or an error, and for some methods what the
 * downstream session should remember (the upstreams' initialize results, which server owns a
 * resource, a new subscription). Endpoints compute it off the actor; the session applies it when it
 * arrives.
 */
public sealed interface Outcome {

  record Result(JsonNode result) implements Outcome {}

  record Failure(JsonRpcError error) implements Outcome {}

  /**
   * @param upstreams server → its initialize result, for the servers that answered
   */
  record Initialized(JsonNode result, Map<String, JsonNode> upstreams) implements Outcome {}

  /**
   * @param owners resource URI → server; {@code templateOwners} URI template → server
   */
  record ResourcesLearned(
      JsonNode result, Map<String, String> owners, Map<String, String> templateOwners)
      implements Outcome {}

  record Subscribed(JsonNode result, String uri, String server) implements Outcome {}

  /**
   * The request is refused before it goes upstream, with an HTTP status of its own (a 2026-07-28
   * header check: 400) when its answer is the only thing its exchange sends.
   */
  record Refused(int httpStatus, JsonRpcError error) implements Outcome {}

  static Outcome of(JsonRpcResponse response) {
    return response.isError() ? new Failure(response.error()) : new Result(response.result());
  }
}
