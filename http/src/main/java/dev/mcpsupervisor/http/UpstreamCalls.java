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
 * The upstream calls one downstream request makes through the supervisor (a single call, or a
 * fan-out that follows cursors from callbacks), so that cancelling the request cancels every one of
 * them — which sends {@code notifications/cancelled} upstream. It also records which servers the
 * request reached, so that sampling or logging from those servers can be sent on this request's
 * stream. Thread-safe: fan-outs call it from futures.
 */
final class UpstreamCalls {

  private final CallContexts contexts;
  private final String tag;
  private final Set<String> servers = ConcurrentHashMap.newKeySet();
  private final List<CompletableFuture<?>> calls = new ArrayList<>();
  private boolean cancelled;

  /**
   * @param tag names the downstream request: the supervisor hands it back with what relates to
   *     these calls
   */
  UpstreamCalls(CallContexts contexts, String tag) {
    this.contexts = contexts;
    this.tag = tag;
  }

  /** Every call in the session's own context. */
  UpstreamCalls(SessionSupervisor supervisor, String context, String tag) {
    this(CallContexts.own(supervisor, context), tag);
  }

  /** The downstream session id: the supervisor's context (see {@link CallContexts}). */
  String context() {
    return contexts.own();
  }

  /** A call with the server's configured request timeout. */
  CompletionStage<JsonRpcResponse> call(String server, String method, JsonNode params) {
    return call(server, method, params, null);
  }

  /**
   * @param deadline null for the server's configured request timeout
   */
  CompletionStage<JsonRpcResponse> call(
      String server, String method, JsonNode params, Duration deadline) {
    servers.add(server);
    return track(
        contexts
            .supervisor()
            .request(
                contexts.contextFor(server),
                server,
                method,
                params,
                deadline,
                contexts.tagFor(server, tag))
            .toCompletableFuture());
  }

  /** The server's initialize result, taking this session's lease on it. */
  CompletionStage<JsonNode> acquire(String server) {
    servers.add(server);
    return track(
        contexts.supervisor().acquire(contexts.contextFor(server), server).toCompletableFuture());
  }

  boolean reached(String server) {
    return servers.contains(server);
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
