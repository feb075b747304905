package dev.mcpsupervisor.http.session;

import dev.mcpsupervisor.actors.base.SupervisorErrors;
import dev.mcpsupervisor.actors.delivery.ContextDelivery;
import dev.mcpsupervisor.actors.delivery.ContextListener;
import dev.mcpsupervisor.http.access.SessionIds;
import dev.mcpsupervisor.http.endpoint.Outcome;
import dev.mcpsupervisor.http.stream.Exchange;
import dev.mcpsupervisor.http.stream.ExchangeSink;
import dev.mcpsupervisor.protocol.StatelessEnvelope;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcNotification;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcRequest;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The routed session behind one 2026-07-28 {@code subscriptions/listen} stream: its context holds
 * the leases of the stream's subscriptions. States: {@link #waiting()} (for its listen request) →
 * {@link #discovering} (what an initialize would have told: which servers, which list changes they
 * announce) → {@link #listening} (the stream carries what its filter takes) → ended with its stream
 * ({@link EndedSession}). It asks its client nothing (the revision has no server requests) and is
 * never idle while its stream is open. Its registry, {@link DownstreamSessions}, tells it as it
 * tells a {@link DownstreamSession}.
 */
public final class ListenSession {

  /**
   * A {@code subscriptions/listen} request, the one request this session serves.
   *
   * @param cacheScope what its cacheable results say
   */
  public record Listen(
      JsonRpcRequest request, StatelessEnvelope.Meta meta, String cacheScope, ExchangeSink exchange)
      implements DownstreamSession.Routed {}

  /** What the servers offer is known (their initialize results). */
  private record Discovered(Outcome outcome, Throwable failure)
      implements DownstreamSession.Command {}

  /** The stream's resources are subscribed: URI → the server that took it. */
  private record Subscribed(Map<String, String> uris) implements DownstreamSession.Command {}

  private static final Logger log = LoggerFactory.getLogger(ListenSession.class);

  static Behavior<DownstreamSession.Command> create(SessionSpec spec) {
    return Behaviors.setup(context -> new ListenSession(spec, context).waiting());
  }

  private final SessionSpec spec;
  private final ActorContext<DownstreamSession.Command> context;

  private ListenSession(SessionSpec spec, ActorContext<DownstreamSession.Command> context) {
    this.spec = spec;
    this.context = context;
  }

  // ---------------------------------------------------------------------------------------- states

  /** Made for a listen request, which the routes tell it next. */
  private Behavior<DownstreamSession.Command> waiting() {
    return Behaviors.receiveMessage(
        message -> {
          if (message instanceof Listen listen) {
            spec.gate().processed();
            StreamListener listener =
                new StreamListener(
                    new ListenStream(spec, listen),
                    context.messageAdapter(
                        ContextDelivery.Command.class, DownstreamSession.FromContext::new));
            spec.supervisor().register(spec.id(), listener);
            context.pipeToSelf(listener.stream().discover(), Discovered::new);
            return discovering(listener);
          } else if (message == DownstreamSession.IDLE_CHECK) {
            if (spec.gate().idleFor(spec.idleTimeout().get()) && spec.gate().closeIfIdle()) {
              spec.registry().tell(new DownstreamSessions.EndMe(spec.id(), "never listened"));
            }
            return Behaviors.same();
          }
          return onOpen(message, null);
        });
  }

  private Behavior<DownstreamSession.Command> discovering(StreamListener listener) {
    return Behaviors.receiveMessage(
        message -> {
          if (message instanceof Discovered discovered) {
            CompletionStage<Map<String, String>> subscribing =
                listener.stream().ready(discovered.outcome(), discovered.failure());
            if (subscribing != null) {
              context.pipeToSelf(
                  subscribing, (uris, failure) -> new Subscribed(uris == null ? Map.of() : uris));
            }
            return listening(listener);
          }
          return onOpen(message, listener);
        });
  }

  private Behavior<DownstreamSession.Command> listening(StreamListener listener) {
    return Behaviors.receiveMessage(
        message -> {
          if (message instanceof Subscribed subscribed) {
            listener.stream().subscribed(subscribed.uris());
            return Behaviors.same();
          }
          return onOpen(message, listener);
        });
  }

  /** What every state before the end handles alike; {@code listener} is null until it listens. */
  private Behavior<DownstreamSession.Command> onOpen(
      DownstreamSession.Command message, StreamListener listener) {
    ListenStream stream = listener == null ? null : listener.stream();
    if (message instanceof DownstreamSession.FromContext from) {
      ContextDelivery.deliver(from.message(), listener, spec.id(), log);
    } else if (message instanceof DownstreamSession.ExchangeClosed closed) {
      spec.gate().processed();
      if (stream != null && stream.endedWith(closed.exchange())) {
        return end("its stream ended", context.getSystem().ignoreRef());
      }
    } else if (message instanceof DownstreamSession.Routed routed) {
      spec.gate().processed(); // one stream per session: anything else is a fault of the routes
      routed.exchange().tell(Exchange.Refused.of(409, "Conflict: the session is in use"));
    } else if (message instanceof DownstreamSession.Drain drain) {
      if (stream != null) {
        stream.drain(); // it ends gracefully; the session ends with it
      }
      drain.replyTo().tell(new DownstreamSessions.Drained(spec.id()));
    } else if (message instanceof DownstreamSession.End end) {
      return end(end.reason(), end.replyTo());
    }
    return Behaviors.same();
  }

  /** Debug only: a listen stream's session ends with every stream. */
  private Behavior<DownstreamSession.Command> end(
      String reason, ActorRef<DownstreamSessions.Reply> replyTo) {
    spec.gate().close();
    log.debug("listen session {} ended: {}", SessionIds.redact(spec.id()), reason);
    return EndedSession.ending(context, spec.supervisor(), spec.id(), spec.gate(), replyTo);
  }

  /**
   * What the supervisor sends the stream's context: notifications to the stream, on this actor's
   * thread (it is its context's delivery); server requests refused at once.
   */
  private record StreamListener(ListenStream stream, ActorRef<ContextDelivery.Command> mailbox)
      implements ContextListener.OwnMailbox {

    @Override
    public void onNotification(String server, JsonRpcNotification notification) {
      stream.listened(server, notification);
    }

    @Override
    public CompletionStage<JsonRpcResponse> onServerRequest(String server, JsonRpcRequest request) {
      return CompletableFuture.completedFuture(
          JsonRpcResponse.failure(
              request.id(),
              SupervisorErrors.noClient(
                  server, request.method(), "a listen stream answers no server request")));
    }
  }
}
