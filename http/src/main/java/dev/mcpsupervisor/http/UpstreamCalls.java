package dev.mcpsupervisor.http;

import com.fasterxml.jackson.databind.JsonNode;
import dev.mcpsupervisor.actors.SessionSupervisor;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The upstream calls one downstream request makes through the supervisor (a single call, or a fan-out that follows
 * cursors from callbacks), so that cancelling the request cancels every one of them — which sends
 * {@code notifications/cancelled} upstream. It also records which servers the request reached, so that sampling or
 * logging from those servers can be sent on this request's stream. Thread-safe: fan-outs call it from futures.
 */
final class UpstreamCalls {

  /** A server name no config can have (names are keys of mcpServers, never empty): releasing it touches nothing. */
  private static final String NO_SERVER = "";

  private final SessionSupervisor supervisor;
  private final String context;
  private final Set<String> servers = ConcurrentHashMap.newKeySet();
  private final List<CompletableFuture<?>> calls = new ArrayList<>();
  private boolean cancelled;

  UpstreamCalls(SessionSupervisor supervisor, String context) {
    this.supervisor = supervisor;
    this.context = context;
  }

  /** The downstream session id: the supervisor's context. */
  String context() {
    return context;
  }

  /** A call with the server's configured request timeout. */
  CompletionStage<JsonRpcResponse> call(String server, String method, JsonNode params) {
    return call(server, method, params, null);
  }

  /** @param deadline null for the server's configured request timeout */
  CompletionStage<JsonRpcResponse> call(String server, String method, JsonNode params, Duration deadline) {
    servers.add(server);
    return track(supervisor.request(context, server, method, params, deadline).toCompletableFuture());
  }

  /** The server's initialize result, taking this session's lease on it. */
  CompletionStage<JsonNode> acquire(String server) {
    servers.add(server);
    return track(supervisor.acquire(context, server).toCompletableFuture());
  }

  boolean reached(String server) {
    return servers.contains(server);
  }

  boolean reachedAny() {
    return !servers.isEmpty();
  }

  /**
   * Completes once the notifications the reached servers sent before their answers have been handed to this
   * context's listener, or after {@code timeout}.
   *
   * <p>Why: the supervisor hands an answer straight to the caller, while notifications travel through its key actor
   * and guardian, so an answer can overtake the progress or log messages sent before it (and a stream would end
   * without them). An acquire passes the key actor and the session actor after those notifications, and a release of
   * no server then passes the guardian after their delivery, so both in turn are an ordering barrier. This leans on
   * the supervisor's message paths; once the facade orders notifications before answers it can go.
   */
  CompletionStage<Void> afterEarlierNotifications(Duration timeout) {
    List<CompletableFuture<Void>> barriers = new ArrayList<>();
    for (String server : servers) {
      barriers.add(
          supervisor
              .acquire(context, server)
              .handle((result, failure) -> null)
              .thenCompose(
                  passedKey ->
                      supervisor.config().servers().containsKey(NO_SERVER)
                          ? CompletableFuture.<Void>completedFuture(null)
                          : supervisor.release(context, NO_SERVER))
              .toCompletableFuture());
    }
    return CompletableFuture.allOf(barriers.toArray(CompletableFuture[]::new))
        .orTimeout(timeout.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS)
        .handle((passed, failure) -> null);
  }

  /** Cancels every call made and every call made from now on. Idempotent. */
  void cancelAll() {
    List<CompletableFuture<?>> toCancel;
    synchronized (this) {
      cancelled = true;
      toCancel = new ArrayList<>(calls);
      calls.clear();
    }
    toCancel.forEach(call -> call.cancel(false));
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
