package dev.mcpsupervisor.http.session;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.mcpsupervisor.actors.base.SupervisorErrors;
import dev.mcpsupervisor.http.stream.SparseMaps;
import dev.mcpsupervisor.protocol.InputRequests;
import dev.mcpsupervisor.protocol.McpMethods;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcNotification;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcRequest;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import java.util.Iterator;
import java.util.Map;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * A downstream session's server-to-client requests (sampling, elicitation, roots): each goes to the
 * client under an id of the session's own, and the client's answer goes back upstream under the
 * upstream's id. Plain bookkeeping on the session's thread: the session sends and times, this
 * decides and remembers.
 */
final class ServerRequestBridge {

  /** A request sent to the client, waiting for its answer. */
  private record Pending(JsonNode upstreamId, String server, ActorRef<JsonRpcResponse> replyTo) {}

  /** A request to send to the client under {@code downstreamId}, or why it cannot be. */
  record Relayed(JsonNode downstreamId, ObjectNode json) {}

  private Map<JsonNode, Pending> pending = Map.of(); // sparse (see SparseMaps)
  private long nextId;

  /**
   * Sampling, elicitation and roots need the capability the client declared; answers what to send
   * the client, or null after refusing the request upstream at once (ping is answered here too).
   */
  Relayed relay(DownstreamSession.UpstreamRequest upstream, JsonNode clientCapabilities) {
    JsonRpcRequest request = upstream.request();
    if (McpMethods.PING.equals(request.method())) {
      upstream.replyTo().tell(JsonRpcResponse.success(request.id(), JsonRpcCodec.emptyObject()));
      return null;
    }
    String capability = InputRequests.requiredCapability(request.method());
    if (capability != null && !clientCapabilities.has(capability)) {
      refuse(upstream, "the client did not declare the " + capability + " capability");
      return null;
    }
    JsonNode downstreamId = TextNode.valueOf("gw-" + ++nextId);
    return new Relayed(downstreamId, JsonRpcCodec.toJson(request.withId(downstreamId)));
  }

  /** The relayed request is on its way to the client: its answer is awaited. */
  void sent(Relayed relayed, DownstreamSession.UpstreamRequest upstream) {
    pending =
        SparseMaps.with(
            pending,
            relayed.downstreamId(),
            new Pending(upstream.request().id(), upstream.server(), upstream.replyTo()));
  }

  /** The client answered: back upstream under the upstream's id. False if nothing waited for it. */
  boolean answered(JsonRpcResponse response) {
    Pending asked = pending.get(response.id());
    pending = SparseMaps.without(pending, response.id());
    if (asked == null) {
      return false;
    }
    asked.replyTo().tell(response.withId(asked.upstreamId()));
    return true;
  }

  /** The supervisor answers its upstream by its own timer; this only forgets the entry. */
  void expired(JsonNode downstreamId) {
    pending = SparseMaps.without(pending, downstreamId);
  }

  /**
   * The upstream withdrew one of its requests: the notification to send the client, under the id
   * the client knows (null if none waited). Its deadline is left to pass: ids are never reused, and
   * {@link #expired} forgets nothing then.
   */
  JsonRpcNotification withdrawn(String server, JsonRpcNotification notification, JsonNode params) {
    JsonNode upstreamId = params.get("requestId");
    Iterator<Map.Entry<JsonNode, Pending>> entries = pending.entrySet().iterator();
    while (entries.hasNext()) {
      Map.Entry<JsonNode, Pending> entry = entries.next();
      if (entry.getValue().upstreamId().equals(upstreamId)
          && entry.getValue().server().equals(server)) {
        entries.remove();
        pending = SparseMaps.compacted(pending);
        ObjectNode withdrawn = ((ObjectNode) params).deepCopy();
        withdrawn.set("requestId", entry.getKey());
        return notification.withParams(withdrawn);
      }
    }
    return null;
  }

  /** The session ends: every request still waiting is answered upstream with an error. */
  void failAll(String why) {
    pending.forEach(
        (downstreamId, asked) ->
            asked
                .replyTo()
                .tell(
                    JsonRpcResponse.failure(
                        asked.upstreamId(),
                        SupervisorErrors.noClient(asked.server(), "a server request", why))));
    pending = Map.of();
  }

  static void refuse(DownstreamSession.UpstreamRequest upstream, String why) {
    upstream
        .replyTo()
        .tell(
            JsonRpcResponse.failure(
                upstream.request().id(),
                SupervisorErrors.noClient(upstream.server(), upstream.request().method(), why)));
  }
}
