package dev.mcpsupervisor.http.routes;

import dev.mcpsupervisor.actors.Asks;
import dev.mcpsupervisor.http.access.Identity;
import dev.mcpsupervisor.http.access.McpRefusals;
import dev.mcpsupervisor.http.cluster.NodeDesk;
import dev.mcpsupervisor.http.ops.GatewaySettings;
import dev.mcpsupervisor.http.ops.Readiness;
import dev.mcpsupervisor.http.session.DownstreamSession;
import dev.mcpsupervisor.http.session.DownstreamSessions;
import dev.mcpsupervisor.http.session.SessionDirectory;
import dev.mcpsupervisor.http.stream.Exchange;
import dev.mcpsupervisor.http.stream.UnfinishedResponses;
import java.time.Duration;
import java.util.concurrent.CompletionStage;
import java.util.function.LongSupplier;
import org.apache.pekko.actor.Cancellable;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Scheduler;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.model.headers.RetryAfter;
import org.apache.pekko.stream.Materializer;

/**
 * What the session-era and the stateless routes share about talking to a downstream session:
 * creating it, opening an {@link Exchange} with it, turning the exchange's first event into the
 * HTTP answer, and telling the session when the client is gone.
 */
public final class SessionExchanges {

  private static final Duration ASK_TIMEOUT = Duration.ofSeconds(10);

  /** What a client refused at a session limit is told to wait. */
  public static final long RETRY_AFTER_SECONDS = 5;

  private final ActorRef<DownstreamSessions.Command> sessions;
  private final SessionDirectory directory;
  private final Scheduler scheduler;
  private final Materializer materializer;
  private final Duration answerTimeout;
  private final LongSupplier maxStreamBufferBytes;
  private final McpRefusals refusals;
  private final ExchangeResponses responses;
  private final UnfinishedResponses unfinishedResponses = new UnfinishedResponses();

  /** This node's desk in a cluster (sessions other nodes hold are reached through it), or null. */
  private final ActorRef<NodeDesk.Command> desk;

  /** Whether this node takes requests, or stops (a cluster node then passes sessions on). */
  private final Readiness readiness;

  /**
   * @param answerTimeout a safety net: every upstream call has its own deadline, so a POST whose
   *     first answer has not come by then means something inside broke; it gets 504 instead of
   *     hanging
   * @param maxStreamBufferBytes see {@link Exchange#open}: the one in force as an exchange opens
   */
  SessionExchanges(
      ActorRef<DownstreamSessions.Command> sessions,
      SessionDirectory directory,
      Scheduler scheduler,
      Materializer materializer,
      GatewaySettings settings,
      Duration answerTimeout,
      LongSupplier maxStreamBufferBytes,
      McpRefusals refusals,
      ActorRef<NodeDesk.Command> desk,
      Readiness readiness) {
    this.desk = desk;
    this.readiness = readiness;
    this.sessions = sessions;
    this.directory = directory;
    this.scheduler = scheduler;
    this.materializer = materializer;
    this.answerTimeout = answerTimeout;
    this.maxStreamBufferBytes = maxStreamBufferBytes;
    this.refusals = refusals;
    this.responses = new ExchangeResponses(refusals, settings.sseKeepAlive());
  }

  ExchangeResponses responses() {
    return responses;
  }

  /**
   * A new downstream session's id, or null when the gateway is shutting down or full ({@link
   * #notCreated}).
   *
   * @param owner who creates it: only this identity reaches it afterwards
   */
  CompletionStage<DownstreamSessions.Created> createSession(
      String server, Identity owner, DownstreamSessions.Kind kind) {
    return Asks.ask(
        sessions,
        replyTo -> new DownstreamSessions.Create(server, owner, kind, replyTo),
        ASK_TIMEOUT,
        scheduler);
  }

  /**
   * Why no session was created: 503 either way; at a session limit with Retry-After (sessions end
   * all the time), not while the gateway stops.
   */
  HttpResponse notCreated(DownstreamSessions.Created created) {
    if (created.full() == null) {
      return shuttingDown();
    }
    return refusals
        .refuse(
            StatusCodes.SERVICE_UNAVAILABLE,
            "too_many_sessions",
            "Service Unavailable: " + created.full())
        .addHeader(RetryAfter.create(RETRY_AFTER_SECONDS));
  }

  /** The answer to a request the draining gateway does not take. */
  HttpResponse shuttingDown() {
    return refusals.refuse(
        StatusCodes.SERVICE_UNAVAILABLE,
        "shutting_down",
        "Service Unavailable: the gateway is shutting down");
  }

  Exchange openExchange() {
    return unfinishedResponses.track(
        Exchange.open(materializer, maxStreamBufferBytes.getAsLong(), refusals::streamOverflowed));
  }

  /**
   * Completes once no response stream is open (those opened meanwhile too) and all are written out,
   * or at {@code deadline}; from then on a stopping node takes no request ({@link
   * #takesWhileStopping}): its connections are about to be closed, which would cut the answer.
   */
  CompletionStage<Void> responsesWritten(Duration deadline) {
    return unfinishedResponses.allClosed(deadline).thenRun(() -> responsesWritten = true);
  }

  /** Whether a stop waited for the responses: the connections close next. */
  private volatile boolean responsesWritten;

  /**
   * The HTTP answer of an exchange, from its first event; 504 when none comes in time.
   *
   * @param onStream run when the answer is a stream
   */
  CompletionStage<HttpResponse> answer(
      Exchange exchange,
      AcceptHeader accept,
      boolean batch,
      String newSessionId,
      Runnable onStream) {
    // one entry on Pekko's timer wheel, not a task on the JDK's delay thread per POST
    Cancellable deadline =
        scheduler.scheduleOnce(answerTimeout, exchange::expire, Asks.sameThreadContext());
    return exchange
        .head()
        .handle(
            (head, failure) -> {
              deadline.cancel();
              if (failure != null) {
                return refusals.refuse(
                    StatusCodes.GATEWAY_TIMEOUT,
                    "no_answer",
                    "Gateway Timeout: no answer within " + answerTimeout);
              }
              return responses.post(head, accept, batch, newSessionId, onStream);
            });
  }

  /**
   * Tells the session {@code sessionId} the command straight from the HTTP side, if a request on
   * {@code path} from {@code caller} reaches it (see {@link SessionDirectory#tell}).
   */
  void tell(String sessionId, String path, Identity caller, DownstreamSession.Command command) {
    directory.tell(sessionId, path, caller, command);
  }

  /**
   * Hands the session {@code sessionId} a request whose answer goes on {@code exchange}: here, or
   * through the desks to the cluster node that holds the session.
   */
  void route(
      String sessionId,
      String path,
      Identity caller,
      DownstreamSession.Routed command,
      Exchange exchange) {
    if (heldElsewhere(sessionId)) {
      desk.tell(new NodeDesk.ForwardToSession(sessionId, path, caller, command, exchange));
    } else {
      directory.tell(sessionId, path, caller, command);
    }
  }

  /**
   * Whether another cluster node may serve the session: this one does not, or stops (the desks know
   * where it is, or that it is unknown).
   */
  boolean heldElsewhere(String sessionId) {
    return desk != null && (!directory.holds(sessionId) || !readiness.isReady());
  }

  /**
   * Whether a stopping node still takes {@code request}: a cluster node, until its responses are
   * written (a load balancer that has not seen its readiness change yet still sends to it). A
   * session's request it passes on to the node that goes on serving the session; a 2026-07-28
   * request holds no state beyond its call, so it serves it itself, within the drain; an initialize
   * is refused all the same (no session starts on a stopping node).
   */
  boolean takesWhileStopping() {
    return desk != null && !responsesWritten;
  }

  ActorRef<NodeDesk.Command> desk() {
    return desk;
  }

  /**
   * Once the client is gone from a stream, the session stops sending on it (a session another node
   * holds learns it there, from the stream's edge).
   */
  void closeWhenDone(Exchange exchange, String sessionId, String path, Identity caller) {
    if (heldElsewhere(sessionId)) {
      return;
    }
    exchange
        .terminated()
        .thenRun(
            () ->
                directory.tell(
                    sessionId, path, caller, new DownstreamSession.ExchangeClosed(exchange)));
  }
}
