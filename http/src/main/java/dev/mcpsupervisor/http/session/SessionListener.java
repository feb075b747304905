package dev.mcpsupervisor.http.session;

import dev.mcpsupervisor.actors.Asks;
import dev.mcpsupervisor.actors.delivery.ContextDelivery;
import dev.mcpsupervisor.actors.delivery.ContextListener;
import dev.mcpsupervisor.http.endpoint.UpstreamCalls;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcNotification;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcRequest;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import java.time.Duration;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Scheduler;

/**
 * What the supervisor sends a downstream session's context. The session's actor is its context's
 * delivery ({@link ContextListener.OwnMailbox}): no delivery actor per idle session, and since the
 * actor hands each delivery to this listener on its own thread, a notification goes straight to the
 * session's {@link UpstreamRelay}, in the order it came — ahead of the answer it precedes, with no
 * second pass through the mailbox. A server request waits for the client's answer, so it goes to
 * the actor as a message of its own.
 */
final class SessionListener implements ContextListener.OwnMailbox {

  private final UpstreamRelay upstreams;
  private final ActorRef<DownstreamSession.Command> session;
  private final ActorRef<ContextDelivery.Command> mailbox;
  private final Scheduler scheduler;
  private final Duration answerTimeout;

  /**
   * @param mailbox where the session takes its context's deliveries
   * @param answerTimeout how long a server-to-client request may wait for the downstream client's
   *     answer
   */
  SessionListener(
      UpstreamRelay upstreams,
      ActorRef<DownstreamSession.Command> session,
      ActorRef<ContextDelivery.Command> mailbox,
      Scheduler scheduler,
      Duration answerTimeout) {
    this.upstreams = upstreams;
    this.session = session;
    this.mailbox = mailbox;
    this.scheduler = scheduler;
    this.answerTimeout = answerTimeout;
  }

  @Override
  public ActorRef<ContextDelivery.Command> mailbox() {
    return mailbox;
  }

  @Override
  public void onNotification(String server, JsonRpcNotification notification) {
    onNotification(server, notification, null);
  }

  /**
   * {@code relatedTag}: the downstream request (see {@link UpstreamCalls}) whose stream it belongs
   * on, or null.
   */
  @Override
  public void onNotification(String server, JsonRpcNotification notification, String relatedTag) {
    upstreams.notification(
        new DownstreamSession.UpstreamNotification(server, notification, relatedTag));
  }

  @Override
  public CompletionStage<JsonRpcResponse> onServerRequest(String server, JsonRpcRequest request) {
    return onServerRequest(server, request, null);
  }

  @Override
  public CompletionStage<JsonRpcResponse> onServerRequest(
      String server, JsonRpcRequest request, String relatedTag) {
    return askClient(session, server, request, relatedTag, answerTimeout, scheduler);
  }

  /** The request to the session, for its client to answer within {@code answerTimeout}. */
  static CompletionStage<JsonRpcResponse> askClient(
      ActorRef<DownstreamSession.Command> session,
      String server,
      JsonRpcRequest request,
      String relatedTag,
      Duration answerTimeout,
      Scheduler scheduler) {
    return Asks.ask(
        session,
        replyTo -> new DownstreamSession.UpstreamRequest(server, request, relatedTag, replyTo),
        answerTimeout,
        scheduler);
  }
}
