package dev.mcpsupervisor.upstream;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcRequest;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * One request of the session served by a stateless server, through all its rounds: each round is a
 * request upstream of its own id; between rounds the session is asked the round's input requests.
 * Owned by the {@link StatelessAdapter}'s strand.
 */
final class StatelessExchange {

  /** What the exchange stands for. */
  enum Kind {
    /** The session's initialize, served by server/discover. */
    INITIALIZE,
    /** The session's ping, served by server/discover (a stateless server has no ping). */
    PING,
    /** Any other request, sent as it is with the envelope. */
    CALL
  }

  final Kind kind;

  /** The session's request as it came, under the session's id. */
  final JsonRpcRequest request;

  /** The method every round calls upstream. */
  final String method;

  /** The params every round sends: the session's, with the envelope. */
  final ObjectNode params;

  /** Completes when the session has its answer; fails when a round could not be sent. */
  final CompletableFuture<Void> done = new CompletableFuture<>();

  /** The current round's request id upstream (our own). */
  long upstreamId;

  /** Whether the current round's request is on its way (else the session is being asked). */
  boolean inFlight;

  int round;

  /** The input requests of this round the session has not answered yet: local id → key. */
  final Map<String, String> awaitedInputs = new LinkedHashMap<>();

  /** The session's answers of this round, by key. */
  ObjectNode inputResponses = JsonRpcCodec.emptyObject();

  /** The server's state of the last round, echoed on the retry; null when it sent none. */
  JsonNode requestState;

  StatelessExchange(Kind kind, JsonRpcRequest request, String method, ObjectNode params) {
    this.kind = kind;
    this.request = request;
    this.method = method;
    this.params = params;
  }

  JsonNode sessionId() {
    return request.id();
  }
}
