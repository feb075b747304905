package dev.mcpsupervisor.http.cluster;

import static dev.mcpsupervisor.protocol.JsonRpcErrorCodes.INVALID_PARAMS;
import static dev.mcpsupervisor.protocol.JsonRpcErrorCodes.UPSTREAM_SESSION_LOST;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mcpsupervisor.http.session.DownstreamSession;
import dev.mcpsupervisor.http.stream.Exchange;
import dev.mcpsupervisor.http.stream.ExchangeSink;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcError;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcException;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcMessage;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcRequest;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * How a request becomes the message one {@link NodeDesk} sends another (JSON trees and actor refs,
 * what crosses nodes), how the desk that serves it reads it back, and what a client is answered
 * when the node that had its request is gone. Plain: no actor, no mailbox.
 */
final class DeskMessages {

  private static final String NODE_LOST =
      "the gateway node that served this request is gone, and the request with it: send it again"
          + " (the session goes on)";

  private DeskMessages() {}

  /** The session request of this node's routes, its events going back to {@code edge}. */
  static NodeDesk.ToSession toSession(
      NodeDesk.ForwardToSession forward, ActorRef<Exchange.Event> edge) {
    DownstreamSession.Routed command = forward.command();
    if (command instanceof DownstreamSession.Post post) {
      return new NodeDesk.SessionPost(
          forward.sessionId(),
          forward.path(),
          forward.caller(),
          post.messages().stream().map(JsonRpcCodec::toJson).toList(),
          post.preAnswered().stream().map(JsonRpcCodec::toJson).toList(),
          post.batch(),
          post.acceptsSse(),
          edge,
          null,
          0);
    }
    String lastEventId =
        command instanceof DownstreamSession.ResumeStream resume ? resume.lastEventId() : null;
    return new NodeDesk.SessionStream(
        forward.sessionId(), forward.path(), forward.caller(), lastEventId, edge, null, 0);
  }

  /** A DELETE of this node's routes, not looked up yet. */
  static NodeDesk.SessionDelete toSession(NodeDesk.ForwardDelete delete) {
    return new NodeDesk.SessionDelete(
        delete.sessionId(), delete.path(), delete.caller(), delete.replyTo(), null, 0);
  }

  /**
   * The command a POST or a GET stream is to the session that serves it; empty when a POST could
   * not be read (its edge was answered why: another build's desk sent it).
   */
  static Optional<DownstreamSession.Routed> command(NodeDesk.ToSession request) {
    if (request instanceof NodeDesk.SessionStream stream) {
      ExchangeSink sink = stream.edge()::tell;
      return Optional.of(
          stream.lastEventId() == null
              ? new DownstreamSession.OpenStream(sink)
              : new DownstreamSession.ResumeStream(stream.lastEventId(), sink));
    }
    NodeDesk.SessionPost post = (NodeDesk.SessionPost) request;
    ExchangeSink sink = post.edge()::tell;
    List<JsonRpcMessage> messages = new ArrayList<>();
    List<JsonRpcResponse> preAnswered = new ArrayList<>();
    try {
      for (ObjectNode message : post.messages()) {
        messages.add(JsonRpcCodec.read(message));
      }
      for (ObjectNode answer : post.preAnswered()) {
        preAnswered.add((JsonRpcResponse) JsonRpcCodec.read(answer));
      }
    } catch (JsonRpcException | ClassCastException e) { // checked on the edge: another build's
      sink.tell(Exchange.Refused.of(400, "the request could not be read: " + e.getMessage()));
      return Optional.empty();
    }
    return Optional.of(
        new DownstreamSession.Post(messages, preAnswered, post.batch(), post.acceptsSse(), sink));
  }

  /**
   * The retry a {@link NodeDesk.RoundRetry} carries; empty when it could not be read (answered).
   */
  static Optional<JsonRpcRequest> retry(NodeDesk.RoundRetry retry) {
    try {
      return Optional.of((JsonRpcRequest) JsonRpcCodec.read(retry.retry()));
    } catch (JsonRpcException | ClassCastException e) { // checked on the edge: another build's
      retry.edge().tell(Exchange.Refused.of(400, "the retry could not be read: " + e.getMessage()));
      return Optional.empty();
    }
  }

  /** Where a session request's events go back to: a DELETE has a reply instead. */
  static Optional<ActorRef<Exchange.Event>> edgeOf(NodeDesk.ToSession request) {
    if (request instanceof NodeDesk.SessionPost post) {
      return Optional.of(post.edge());
    }
    if (request instanceof NodeDesk.SessionStream stream) {
      return Optional.of(stream.edge());
    }
    return Optional.empty();
  }

  /**
   * The node that served the exchange is gone (it died, or left before answering): what was in
   * flight there is lost, the session is not; the client sends the request again.
   */
  static Exchange.Refused nodeLost() {
    return Exchange.Refused.of(503, NODE_LOST);
  }

  /**
   * {@link #nodeLost()} for a command whose exchange may have started: a POST's requests are each
   * answered the retryable "session lost" error, on the stream if it is one.
   */
  static Exchange.Event nodeLost(DownstreamSession.Routed command) {
    if (command instanceof DownstreamSession.Post post) {
      ObjectNode data = JsonRpcCodec.emptyObject();
      data.put("retryable", true);
      List<ObjectNode> answers =
          post.messages().stream()
              .filter(JsonRpcRequest.class::isInstance)
              .map(
                  request ->
                      JsonRpcCodec.toJson(
                          JsonRpcResponse.failure(
                              ((JsonRpcRequest) request).id(),
                              new JsonRpcError(UPSTREAM_SESSION_LOST, NODE_LOST, data))))
              .toList();
      if (!answers.isEmpty()) {
        return new Exchange.Complete(answers);
      }
    }
    return nodeLost();
  }

  /** The node that held the round is not in the cluster (any more): the call is lost with it. */
  static Exchange.Refused roundNodeGone(JsonRpcRequest retry) {
    String why =
        "the gateway node that held this input_required round is gone, and the call with it:"
            + " send the request again without requestState";
    return new Exchange.Refused(
        400, JsonRpcCodec.toJson(JsonRpcResponse.failure(retry.id(), INVALID_PARAMS, why)));
  }
}
