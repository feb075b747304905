package dev.mcpsupervisor.http.endpoint;

import com.fasterxml.jackson.databind.JsonNode;
import dev.mcpsupervisor.actors.SessionSupervisor;
import dev.mcpsupervisor.actors.delivery.CallerKind;
import dev.mcpsupervisor.protocol.config.Isolation;
import dev.mcpsupervisor.protocol.config.ServerConfig;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The upstream calls one downstream request makes through the supervisor (a single call, or a
 * fan-out that follows cursors from callbacks), so that cancelling the request cancels every one of
 * them — which sends {@code notifications/cancelled} upstream. It also records which servers the
 * request reached, so that sampling or logging from those servers can be sent on this request's
 * stream. A session-era request's calls go out in its session's context, tagged; a 2026-07-28
 * request's go through its {@link RoundTrips}. Thread-safe: fan-outs call it from futures.
 */
public final class UpstreamCalls {

  /**
   * How a 2026-07-28 request's calls go out: through the supervisor's round bridge, whose rounds
   * the request turns into {@code input_required} answers.
   */
  public interface RoundTrips {
    /**
     * @param caller {@link CallerKind#STATELESS} in the request's own context (no lease); {@link
     *     CallerKind#STATELESS_IN_CONTEXT} in the caller's identity context, which keeps its {@code
     *     isolation: context} session between requests
     */
    CompletableFuture<JsonRpcResponse> call(
        String context,
        CallerKind caller,
        String server,
        String method,
        JsonNode params,
        Duration deadline);
  }

  private final SessionSupervisor supervisor;
  private final String context;
  private final String identity;
  private final String tag;
  private final RoundTrips roundTrips;
  private final Set<String> servers = ConcurrentHashMap.newKeySet();
  private final List<CompletableFuture<?>> calls = new ArrayList<>();
  private boolean cancelled;
  private volatile boolean acquired;

  private UpstreamCalls(
      SessionSupervisor supervisor,
      String context,
      String identity,
      String tag,
      RoundTrips roundTrips) {
    this.supervisor = supervisor;
    this.context = context;
    this.identity = identity;
    this.tag = tag;
    this.roundTrips = roundTrips;
  }

  /**
   * A session-era request's calls, in its session's context.
   *
   * @param tag names the downstream request: the supervisor hands it back with what relates to
   *     these calls
   */
  public UpstreamCalls(SessionSupervisor supervisor, String context, String tag) {
    this(supervisor, context, null, tag, null);
  }

  /**
   * A 2026-07-28 request's calls: in its own {@code context}, or for an {@code isolation: context}
   * server in its caller's {@code identity} context (null when it names no caller).
   */
  public static UpstreamCalls stateless(
      SessionSupervisor supervisor, String context, String identity, RoundTrips roundTrips) {
    return new UpstreamCalls(supervisor, context, identity, null, roundTrips);
  }

  /** The request's own context: the downstream session id, or the stateless request's. */
  String context() {
    return context;
  }

  /** A call with the server's configured request timeout. */
  public CompletionStage<JsonRpcResponse> call(String server, String method, JsonNode params) {
    return call(server, method, params, null);
  }

  /**
   * @param deadline null for the server's configured request timeout
   */
  CompletionStage<JsonRpcResponse> call(
      String server, String method, JsonNode params, Duration deadline) {
    servers.add(server);
    boolean inIdentity = inIdentity(server);
    return track(
        roundTrips != null
            ? roundTrips.call(
                inIdentity ? identity : context,
                inIdentity ? CallerKind.STATELESS_IN_CONTEXT : CallerKind.STATELESS,
                server,
                method,
                params,
                deadline)
            : supervisor
                .request(context, server, method, params, deadline, tag)
                .toCompletableFuture());
  }

  /**
   * The server's initialize result, taking a lease on it in the request's context (or its caller's
   * identity context, which keeps it as its calls do).
   */
  CompletionStage<JsonNode> acquire(String server) {
    servers.add(server);
    acquired = true;
    return track(
        (inIdentity(server)
                ? supervisor.acquire(identity, server, CallerKind.STATELESS_IN_CONTEXT)
                : supervisor.acquire(context, server))
            .toCompletableFuture());
  }

  /**
   * Whose lists of {@code server} these calls get, so that what is kept of them serves only those
   * who get the same: {@link #EVERYONE} for a server shared by every context, the caller's identity
   * context for an {@code isolation: context} server, null when the server is context-isolated and
   * the request names no caller (its lists are its own context's, which ends with it).
   */
  String listsOf(String server) {
    return isContextIsolated(server) ? identity : EVERYONE;
  }

  /** {@link #listsOf} a shared server. */
  static final String EVERYONE = "";

  /** Whether a lease was taken in the request's context ({@link #acquire}): it must be released. */
  public boolean acquiredAny() {
    return acquired;
  }

  public boolean reached(String server) {
    return servers.contains(server);
  }

  /** Cancels every call made and every call made from now on. Idempotent. */
  public void cancelAll() {
    List<CompletableFuture<?>> toCancel;
    synchronized (this) {
      cancelled = true;
      toCancel = new ArrayList<>(calls);
      calls.clear();
    }
    toCancel.forEach(call -> call.cancel(false));
  }

  private boolean inIdentity(String server) {
    return identity != null && isContextIsolated(server);
  }

  private boolean isContextIsolated(String server) {
    ServerConfig config = supervisor.config().servers().get(server);
    return config != null && config.isolation() == Isolation.CONTEXT;
  }

  private <T> CompletableFuture<T> track(CompletableFuture<T> call) {
    boolean alreadyCancelled;
    synchronized (this) {
      alreadyCancelled = cancelled;
      if (!alreadyCancelled) {
        calls.add(call);
      }
    }
    if (alreadyCancelled) {
      call.cancel(false);
    }
    return call;
  }
}
