package dev.mcpsupervisor.http;

import dev.mcpsupervisor.actors.ContextListener;
import dev.mcpsupervisor.actors.SupervisorErrors;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcNotification;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcRequest;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorRefResolver;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Scheduler;

/**
 * The listener of every caller's identity context ({@link CallerIdentity}): the downstream sessions
 * serving one caller's requests call in that context together, so what the supervisor relates to a
 * call goes to the session its tag names ({@link #tag}), straight from the supervisor's thread —
 * the call's answer, sent after it on that thread, cannot overtake it. What relates to no call (a
 * list change, a roots request at a server's start) has no client to go to: a stateless client
 * hears list changes on a {@code subscriptions/listen} stream, which has a context of its own.
 * Keeps no state: a tag is all it needs.
 */
final class IdentityListener implements ContextListener {

  /** Between a session's actor and the tag it gave a call; actor paths never contain it. */
  private static final char SEPARATOR = '|';

  private final ActorRefResolver resolver;
  private final Scheduler scheduler;
  private final Duration answerTimeout;

  /**
   * @param answerTimeout how long a server-to-client request may wait for the downstream client's
   *     answer
   */
  IdentityListener(ActorSystem<?> system, Duration answerTimeout) {
    this.resolver = ActorRefResolver.get(system);
    this.scheduler = system.scheduler();
    this.answerTimeout = answerTimeout;
  }

  /** The tag of a call made in an identity context: the calling session's actor, then its tag. */
  static String tag(String sessionRef, String tag) {
    return sessionRef + SEPARATOR + tag;
  }

  /** A session's actor as tags name it. */
  static String sessionRef(ActorSystem<?> system, ActorRef<DownstreamSession.Command> session) {
    return ActorRefResolver.get(system).toSerializationFormat(session);
  }

  @Override
  public void onNotification(String server, JsonRpcNotification notification) {
    onNotification(server, notification, null);
  }

  @Override
  public void onNotification(String server, JsonRpcNotification notification, String relatedTag) {
    int split = relatedTag == null ? -1 : relatedTag.lastIndexOf(SEPARATOR);
    if (split >= 0) {
      session(relatedTag, split)
          .tell(
              new DownstreamSession.UpstreamNotification(
                  server, notification, relatedTag.substring(split + 1)));
    }
  }

  @Override
  public CompletionStage<JsonRpcResponse> onServerRequest(String server, JsonRpcRequest request) {
    return onServerRequest(server, request, null);
  }

  @Override
  public CompletionStage<JsonRpcResponse> onServerRequest(
      String server, JsonRpcRequest request, String relatedTag) {
    int split = relatedTag == null ? -1 : relatedTag.lastIndexOf(SEPARATOR);
    if (split < 0) {
      return CompletableFuture.completedFuture(
          JsonRpcResponse.failure(
              request.id(),
              SupervisorErrors.noClient(
                  server,
                  request.method(),
                  "no request of a stateless client is in flight to carry it")));
    }
    return SessionListener.askClient(
        session(relatedTag, split),
        server,
        request,
        relatedTag.substring(split + 1),
        answerTimeout,
        scheduler);
  }

  private ActorRef<DownstreamSession.Command> session(String tag, int split) {
    return resolver.resolveActorRef(tag.substring(0, split));
  }
}
