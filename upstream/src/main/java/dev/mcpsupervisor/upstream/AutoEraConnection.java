package dev.mcpsupervisor.upstream;

import com.fasterxml.jackson.databind.JsonNode;
import dev.mcpsupervisor.protocol.McpMethods;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcMessage;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcRequest;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import java.time.Duration;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A connection to a server whose MCP era is found out at the session's initialize ({@code protocol:
 * auto}): from then on it is a plain session-era connection or a {@link StatelessAdapter}, and only
 * that one's messages reach the session.
 *
 * <ul>
 *   <li>stdio: the initialize goes to the process. An error answer makes the adapter probe the same
 *       process with server/discover; when that names 2026-07-28 the session gets the adapter's
 *       initialize result, else the original error.
 *   <li>HTTP, for 2026-07-28 callers: the adapter probes with server/discover first (a session-era
 *       server answers an HTTP 4xx or a JSON-RPC error); when that names no 2026-07-28, the
 *       initialize goes to the session-era connection.
 *   <li>HTTP, for session-era callers ({@code UpstreamProtocol.AUTO_SESSION_ERA_FIRST}): the
 *       initialize goes to the session-era connection; refused (an error answer, or an HTTP error
 *       without one), the adapter probes a stateless connection opened then, as over stdio. A
 *       server of both eras so serves each caller in its own era.
 * </ul>
 */
final class AutoEraConnection implements UpstreamConnection, ConnectionListener {

  private static final Logger log = LoggerFactory.getLogger(AutoEraConnection.class);

  /** How long server/discover may take before a server counts as one of the session era. */
  static final Duration PROBE_TIMEOUT = Duration.ofSeconds(10);

  private enum Era {
    UNDECIDED,
    SESSION,
    STATELESS
  }

  private final String name;
  private final ConnectionListener listener;
  private final boolean probeFirst;

  /** Opens the stateless connection when the initialize is refused; null over one transport. */
  private Function<ConnectionListener, UpstreamConnection> statelessEra;

  private volatile Era era = Era.UNDECIDED;
  private volatile UpstreamConnection session;
  private volatile StatelessAdapter stateless;
  private volatile UpstreamConnection statelessTransport;
  private volatile JsonRpcRequest initialize;

  private AutoEraConnection(String name, ConnectionListener listener, boolean probeFirst) {
    this.name = name;
    this.listener = listener;
    this.probeFirst = probeFirst;
  }

  /**
   * Over stdio one process serves both eras: {@code start} opens it with the listener given, and
   * the adapter is made only if the initialize is refused.
   */
  static AutoEraConnection overOneTransport(
      String name,
      ConnectionListener listener,
      Function<ConnectionListener, UpstreamConnection> start) {
    AutoEraConnection connection = new AutoEraConnection(name, listener, false);
    connection.session = start.apply(connection);
    connection.statelessTransport = connection.session;
    return connection;
  }

  /**
   * Over HTTP for a session-era caller: the initialize goes to the session-era connection, and the
   * stateless one is opened only if it is refused.
   */
  static AutoEraConnection initializingFirst(
      String name,
      ConnectionListener listener,
      Function<ConnectionListener, UpstreamConnection> sessionEra,
      Function<ConnectionListener, UpstreamConnection> statelessEra) {
    AutoEraConnection connection = new AutoEraConnection(name, listener, false);
    connection.session = sessionEra.apply(connection);
    connection.statelessEra = statelessEra;
    return connection;
  }

  /**
   * Over HTTP the eras are two connections: the stateless one probes first, the session-era one
   * takes over when the probe fails. Neither sends anything before the initialize.
   */
  static AutoEraConnection probingFirst(
      String name,
      ConnectionListener listener,
      Function<ConnectionListener, UpstreamConnection> sessionEra,
      Function<ConnectionListener, UpstreamConnection> statelessEra) {
    AutoEraConnection connection = new AutoEraConnection(name, listener, true);
    connection.session = sessionEra.apply(connection.gate(Era.SESSION));
    StatelessAdapter adapter =
        new StatelessAdapter(name, connection.gate(Era.STATELESS), connection.new Probe());
    connection.statelessTransport = statelessEra.apply(adapter);
    connection.stateless = adapter.attach(connection.statelessTransport);
    return connection;
  }

  @Override
  public CompletionStage<Void> send(JsonRpcMessage message) {
    if (era == Era.STATELESS) {
      return stateless.send(message);
    }
    if (era == Era.UNDECIDED
        && message instanceof JsonRpcRequest request
        && McpMethods.INITIALIZE.equals(request.method())) {
      initialize = request;
      if (probeFirst) {
        return stateless.send(request);
      }
      if (statelessEra != null) { // an HTTP error with no answer refuses it too
        return session
            .send(request)
            .handle(
                (sent, failure) -> {
                  // unreachable: the connection reports its own end, there is nothing to probe
                  if (failure != null
                      && era == Era.UNDECIDED
                      && !HttpTransport.isUnreachable(failure)) {
                    probeAfterRefusal(StatelessMessages.refusedByHttp(request, failure));
                  }
                  return (Void) null;
                });
      }
    }
    return session.send(message);
  }

  /** What the one transport of stdio reads, or the session-era connection over HTTP. */
  @Override
  public void onMessage(JsonRpcMessage message, JsonNode relatedRequestId) {
    if (era == Era.STATELESS) {
      if (statelessEra == null) { // the one transport now carries the adapter's exchanges
        stateless.onMessage(message, relatedRequestId);
      } // else a late message of the session-era connection we left
    } else if (era == Era.UNDECIDED
        && message instanceof JsonRpcResponse answer
        && initialize != null
        && JsonRpcIds.same(answer.id(), initialize.id())) {
      if (answer.isError()) {
        probeAfterRefusal(answer);
      } else {
        era = Era.SESSION;
        if (statelessEra != null) { // over stdio the session era goes without saying
          log.info("{}: speaking the session era (initialize accepted)", name);
        }
        listener.onMessage(message, relatedRequestId);
      }
    } else {
      listener.onMessage(message, relatedRequestId);
    }
  }

  @Override
  public void onClosed(ConnectionClosed cause) {
    if (era != Era.STATELESS) {
      listener.onClosed(cause);
    } else if (statelessEra == null) { // the one transport: the adapter's end
      stateless.onClosed(cause);
    } // else the session-era connection we closed: the adapter's own reports its end
  }

  /**
   * The server refused initialize: perhaps it speaks 2026-07-28 only (it then says -32022 with the
   * versions it supports, or some other error). Its discover answer decides: over stdio on the same
   * process, over HTTP on a stateless connection opened now (the session-era one is closed).
   */
  private synchronized void probeAfterRefusal(JsonRpcResponse refusal) {
    if (era != Era.UNDECIDED) {
      return;
    }
    log.debug("{}: initialize refused ({}); probing with server/discover", name, refusal.error());
    StatelessAdapter adapter =
        new StatelessAdapter(
            name,
            listener,
            new RefusalProbe(refusal, StatelessMessages.refusedForStateless(refusal)));
    if (statelessEra != null) {
      statelessTransport = statelessEra.apply(adapter);
    }
    stateless = adapter.attach(statelessTransport);
    era = Era.STATELESS; // the probe's answer goes to the adapter
    if (statelessEra != null) {
      session.close(); // it holds no session: its initialize was refused
    }
    adapter.send(initialize);
  }

  @Override
  public CompletionStage<Void> close() {
    StatelessAdapter adapter = stateless;
    CompletionStage<Void> sessionClosed = session.close();
    if (adapter == null) {
      return sessionClosed;
    }
    CompletionStage<Void> statelessClosed = adapter.close();
    return sessionClosed.thenCombine(statelessClosed, (a, b) -> null);
  }

  @Override
  public OptionalLong pid() {
    return session.pid();
  }

  /** A listener that hears one era's connection, and passes on only while that era may be it. */
  private ConnectionListener gate(Era own) {
    return new ConnectionListener() {
      @Override
      public void onMessage(JsonRpcMessage message, JsonNode relatedRequestId) {
        if (passes()) {
          listener.onMessage(message, relatedRequestId);
        }
      }

      @Override
      public void onClosed(ConnectionClosed cause) {
        if (passes()) {
          listener.onClosed(cause);
        }
      }

      private boolean passes() {
        Era now = era;
        return now == own || (now == Era.UNDECIDED && own == Era.STATELESS);
      }
    };
  }

  /** HTTP: the adapter's discover decides. */
  private final class Probe implements EraProbe {
    @Override
    public Duration timeout() {
      return PROBE_TIMEOUT;
    }

    @Override
    public void stateless() {
      era = Era.STATELESS;
      session.close(); // never used: it sent nothing and holds no session
      log.info("{}: speaking MCP 2026-07-28 (server/discover names it)", name);
    }

    @Override
    public CompletionStage<Void> notStateless(JsonRpcRequest initialize) {
      log.info("{}: speaking the session era (server/discover names no 2026-07-28)", name);
      era = Era.SESSION;
      statelessTransport.close(); // its end reaches nobody: the gate is shut
      return session.send(initialize);
    }
  }

  /** A refused initialize is answered by discover, or keeps its refusal. */
  private final class RefusalProbe implements EraProbe {
    private final JsonRpcResponse refusal;
    private final boolean certain;

    RefusalProbe(JsonRpcResponse refusal, boolean certain) {
      this.refusal = refusal;
      this.certain = certain;
    }

    @Override
    public Duration timeout() {
      return PROBE_TIMEOUT;
    }

    @Override
    public void stateless() {
      log.info("{}: speaking MCP 2026-07-28 (initialize refused, server/discover names it)", name);
    }

    @Override
    public CompletionStage<Void> notStateless(JsonRpcRequest initialize) {
      if (certain) {
        log.warn("{}: refused initialize for 2026-07-28 but its discover failed", name);
      }
      era = Era.SESSION;
      listener.onMessage(refusal, null);
      return CompletableFuture.completedFuture(null);
    }
  }
}
