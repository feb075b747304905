package dev.mcpsupervisor.actors.session;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.LongNode;
import dev.mcpsupervisor.protocol.JsonRpcErrorCodes;
import dev.mcpsupervisor.protocol.McpMethods;
import dev.mcpsupervisor.protocol.UpstreamDiagnostics;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcError;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcMessage;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcNotification;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcRequest;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import dev.mcpsupervisor.upstream.ConnectionClosed;
import dev.mcpsupervisor.upstream.ConnectionListener;
import dev.mcpsupervisor.upstream.Failures;
import dev.mcpsupervisor.upstream.UpstreamConnection;
import java.util.Locale;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;

/**
 * One attempt at a connection to an upstream, a child of its {@link SessionActor}: opens the
 * connection, runs the MCP handshake, tells the session when the link is up, and stops when the
 * connection dies or the session closes it. Its lifetime is the connection's: the session watches
 * it instead of counting attempts, and everything the connection reads reaches the session tagged
 * with this link, so a late message of an earlier connection is recognised as such.
 *
 * <p>Nothing it opens can leak: {@link PostStop} closes the connection, also one whose opening
 * completes only after the link stopped; a {@link Close} while still connecting waits for the
 * opening to finish, then closes it.
 */
final class UpstreamLink {

  interface Command {}

  /**
   * From the session: close the connection (waiting until it is gone, within the shutdown timeout),
   * then stop.
   */
  enum Close implements Command {
    INSTANCE
  }

  /**
   * What a link tells its session. Each names the link: a report of an earlier attempt's link is
   * stale.
   */
  sealed interface Report extends SessionActor.Command {
    ActorRef<Command> link();
  }

  /** The connection is open ({@code pid}: a stdio server's process); the handshake follows. */
  record Connected(ActorRef<Command> link, OptionalLong pid) implements Report {}

  /** The handshake is done: the session sends on {@code connection} itself from now on. */
  record Up(ActorRef<Command> link, UpstreamConnection connection, JsonNode initializeResult)
      implements Report {}

  record Down(ActorRef<Command> link, String reason) implements Report {}

  /** A message the upstream sent, read by the link or, once up, by the connection's reader. */
  record Received(ActorRef<Command> link, JsonRpcMessage message, JsonNode relatedRequestId)
      implements Report {}

  private record Opened(UpstreamConnection connection) implements Command {}

  private record OpenFailed(String reason) implements Command {}

  /**
   * Read before the handshake completed; once up, the connection's messages go to the session
   * directly.
   */
  private record Read(JsonRpcMessage message, JsonNode relatedRequestId) implements Command {}

  private record Lost(ConnectionClosed cause) implements Command {}

  private record TimedOut(String what) implements Command {}

  private enum ClosedByUs implements Command {
    INSTANCE
  }

  private enum TimerKey {
    ATTEMPT
  }

  /**
   * The handshake's own request id: the session numbers its requests from 1, so 0 is never one of
   * its.
   */
  static final long INITIALIZE_ID = 0;

  static Behavior<Command> create(KeyEnvironment env, ActorRef<SessionActor.Command> session) {
    return Behaviors.setup(
        context ->
            Behaviors.withTimers(
                timers -> new UpstreamLink(env, session, context, timers).connecting()));
  }

  private final KeyEnvironment env;
  private final ActorRef<SessionActor.Command> session;
  private final ActorContext<Command> context;
  private final TimerScheduler<Command> timers;
  private final Router router;

  /** The connection as it will be once open: also what PostStop closes, whenever it opens. */
  private final CompletableFuture<UpstreamConnection> opening = new CompletableFuture<>();

  private UpstreamLink(
      KeyEnvironment env,
      ActorRef<SessionActor.Command> session,
      ActorContext<Command> context,
      TimerScheduler<Command> timers) {
    this.env = env;
    this.session = session;
    this.context = context;
    this.timers = timers;
    this.router = new Router(context.getSelf(), session);
  }

  // ------------------------------------------------------------------------------------ connecting

  private Behavior<Command> connecting() {
    CompletionStage<UpstreamConnection> connect;
    try {
      connect = env.connector().connect(env.server().spec(), env.server().upstreamLimits(), router);
    } catch (RuntimeException e) {
      connect = CompletableFuture.failedFuture(e);
    }
    connect.whenComplete(
        (connection, failure) -> {
          if (failure == null) {
            opening.complete(connection);
          } else {
            opening.completeExceptionally(failure);
          }
        });
    context.pipeToSelf(
        opening,
        (connection, failure) ->
            failure == null ? new Opened(connection) : new OpenFailed(Failures.describe(failure)));
    timers.startSingleTimer(
        TimerKey.ATTEMPT,
        new TimedOut(
            "connect timed out after " + env.settings().connectTimeout().toMillis() + " ms"),
        env.settings().connectTimeout());
    return Behaviors.receive(Command.class)
        .onMessage(Opened.class, opened -> initializing(opened.connection()))
        .onMessage(OpenFailed.class, failed -> down(failed.reason()))
        .onMessage(TimedOut.class, timedOut -> down(timedOut.what()))
        .onMessageEquals(Close.INSTANCE, this::closingWhenOpened)
        .onSignal(PostStop.class, signal -> closeWhenOpen())
        .build();
  }

  /**
   * Closed before the connection opened: wait for the opening to end (bounded by its timer), then
   * close it.
   */
  private Behavior<Command> closingWhenOpened() {
    return Behaviors.receive(Command.class)
        .onMessage(Opened.class, opened -> closing(opened.connection()))
        .onMessage(OpenFailed.class, failed -> Behaviors.stopped())
        .onMessage(TimedOut.class, timedOut -> Behaviors.stopped())
        .onSignal(PostStop.class, signal -> closeWhenOpen())
        .build();
  }

  // ---------------------------------------------------------------------------------- initializing

  private Behavior<Command> initializing(UpstreamConnection connection) {
    session.tell(new Connected(context.getSelf(), pidOf(connection)));
    send(
        connection,
        new JsonRpcRequest(
            LongNode.valueOf(INITIALIZE_ID), McpMethods.INITIALIZE, Handshake.initializeParams()));
    timers.startSingleTimer(
        TimerKey.ATTEMPT,
        new TimedOut(
            "initialize timed out after " + env.settings().initializeTimeout().toMillis() + " ms"),
        env.settings().initializeTimeout());
    return Behaviors.receive(Command.class)
        .onMessage(Read.class, read -> onReadWhileInitializing(read, connection))
        .onMessage(Lost.class, lost -> down(describe(lost.cause())))
        .onMessage(
            OpenFailed.class, failed -> down(failed.reason())) // the initialize could not be sent
        .onMessage(TimedOut.class, timedOut -> down(timedOut.what()))
        .onMessageEquals(Close.INSTANCE, () -> closing(connection))
        .onSignal(PostStop.class, signal -> closeWhenOpen())
        .build();
  }

  private Behavior<Command> onReadWhileInitializing(Read read, UpstreamConnection connection) {
    JsonRpcMessage message = read.message();
    if (message instanceof JsonRpcResponse response && isInitializeAnswer(response)) {
      String problem = Handshake.problemWith(response);
      if (problem != null) {
        return down(problem);
      }
      timers.cancel(TimerKey.ATTEMPT);
      // from now on the upstream's messages go straight to the session (which holds those that
      // overtake LinkUp until it arrives); "initialized" goes out before the session can send
      router.up();
      send(connection, new JsonRpcNotification(McpMethods.NOTIFICATION_INITIALIZED, null));
      session.tell(new Up(context.getSelf(), connection, response.result()));
      return up(connection);
    }
    if (message instanceof JsonRpcRequest request) {
      // servers should not ask anything before "initialized"; answer at once so none waits on us
      send(connection, answerBeforeInitialized(request));
    } else {
      session.tell(new Received(context.getSelf(), message, read.relatedRequestId()));
    }
    return Behaviors.same();
  }

  private static boolean isInitializeAnswer(JsonRpcResponse response) {
    Long id = PendingRequests.idOf(response.id());
    return id != null && id == INITIALIZE_ID;
  }

  private static JsonRpcResponse answerBeforeInitialized(JsonRpcRequest request) {
    if (McpMethods.PING.equals(request.method())) {
      return JsonRpcResponse.success(request.id(), JsonRpcCodec.emptyObject());
    }
    return JsonRpcResponse.failure(
        request.id(),
        new JsonRpcError(
            JsonRpcErrorCodes.INVALID_REQUEST,
            request.method() + " before the session was initialized",
            null));
  }

  // -------------------------------------------------------------------------------------------- up

  /**
   * The session sends and receives on the connection itself now, and hears of its end first-hand
   * (with no hop through here, so before any send failure can make it retry on a dead connection);
   * the link then stops.
   */
  private Behavior<Command> up(UpstreamConnection connection) {
    return Behaviors.receive(Command.class)
        .onMessage(Lost.class, lost -> Behaviors.stopped())
        .onMessage(
            Read.class, read -> forward(read)) // read just before the switch to direct delivery
        .onMessageEquals(Close.INSTANCE, () -> closing(connection))
        .onSignal(PostStop.class, signal -> closeWhenOpen())
        .build();
  }

  private Behavior<Command> forward(Read read) {
    session.tell(new Received(context.getSelf(), read.message(), read.relatedRequestId()));
    return Behaviors.same();
  }

  // --------------------------------------------------------------------------------- down, closing

  /**
   * The attempt failed or the connection died: tell the session why, then stop (PostStop closes
   * what is open).
   */
  private Behavior<Command> down(String reason) {
    session.tell(new Down(context.getSelf(), reason));
    return Behaviors.stopped();
  }

  private Behavior<Command> closing(UpstreamConnection connection) {
    timers.cancelAll();
    context.pipeToSelf(closeQuietly(connection), (done, failure) -> ClosedByUs.INSTANCE);
    timers.startSingleTimer(
        TimerKey.ATTEMPT, ClosedByUs.INSTANCE, env.settings().shutdownTimeout());
    return Behaviors.receive(Command.class)
        .onMessageEquals(ClosedByUs.INSTANCE, () -> Behaviors.stopped())
        // the end of the connection we are closing: expected, not a message to log as unhandled
        .onMessage(Lost.class, lost -> Behaviors.same())
        .build();
  }

  /**
   * Closes the connection now if it is open, or as soon as its opening completes. Closing twice is
   * harmless.
   */
  private Behavior<Command> closeWhenOpen() {
    opening.thenAccept(this::closeQuietly);
    return Behaviors.same();
  }

  private CompletionStage<Void> closeQuietly(UpstreamConnection connection) {
    try {
      return connection.close();
    } catch (RuntimeException e) {
      context.getLog().warn("{}: closing the connection failed: {}", env.keyId(), e.toString());
      return CompletableFuture.completedFuture(null);
    }
  }

  private void send(UpstreamConnection connection, JsonRpcMessage message) {
    ActorRef<Command> self = context.getSelf();
    try {
      connection
          .send(message)
          .whenComplete(
              (done, failure) -> {
                if (failure != null) {
                  self.tell(
                      new OpenFailed(
                          "initialize could not be sent: " + Failures.describe(failure)));
                }
              });
    } catch (RuntimeException e) {
      self.tell(new OpenFailed("initialize could not be sent: " + Failures.describe(e)));
    }
  }

  private static OptionalLong pidOf(UpstreamConnection connection) {
    try {
      return connection.pid();
    } catch (RuntimeException e) {
      return OptionalLong.empty();
    }
  }

  static String describe(ConnectionClosed cause) {
    String kind = cause.kind().name().toLowerCase(Locale.ROOT).replace('_', ' ');
    return cause.detail() == null || cause.detail().isBlank()
        ? kind
        : kind + ": " + UpstreamDiagnostics.redact(cause.detail());
  }

  /**
   * The connection's listener: until the handshake completes, everything goes to the link; then
   * messages and the connection's end go to the session directly (no hop through the link on the
   * hot path), the end to the link too.
   */
  private static final class Router implements ConnectionListener {
    private final ActorRef<Command> link;
    private final ActorRef<SessionActor.Command> session;
    private volatile boolean up;

    Router(ActorRef<Command> link, ActorRef<SessionActor.Command> session) {
      this.link = link;
      this.session = session;
    }

    void up() {
      up = true;
    }

    @Override
    public void onMessage(JsonRpcMessage message, JsonNode relatedRequestId) {
      if (up) {
        session.tell(new Received(link, message, relatedRequestId));
      } else {
        link.tell(new Read(message, relatedRequestId));
      }
    }

    @Override
    public void onClosed(ConnectionClosed cause) {
      if (up) {
        session.tell(new Down(link, describe(cause)));
      }
      link.tell(new Lost(cause));
    }
  }
}
