package dev.mcpsupervisor.http.endpoint;

import static dev.mcpsupervisor.protocol.JsonRpcErrorCodes.METHOD_NOT_FOUND;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mcpsupervisor.http.access.SessionIds;
import dev.mcpsupervisor.http.ops.GatewaySettings;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcRequest;
import dev.mcpsupervisor.upstream.Failures;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A list method (tools/list, prompts/list, resources/list, ...) asked of several servers at once
 * for the aggregated endpoint: each server's pages are followed ({@code maxListPages} at most)
 * within {@code aggregatedListTimeout}; a server that fails or is slower is left out of the answer
 * with a log line. The answer keeps the servers' order (as configured) and each server's own order,
 * whichever answers first, so that the same lists always give the same answer.
 */
final class AggregatedLists {

  private static final Logger log = LoggerFactory.getLogger(AggregatedLists.class);

  /**
   * The servers' items by server, in the order asked; {@code ttlMs}: how long the whole answer is
   * fresh — the shortest {@code ttlMs} of its pages, 0 when a page had none (not cached) or a
   * server was left out (the answer is incomplete: a client should ask again).
   */
  record Collected(Map<String, List<JsonNode>> byServer, long ttlMs) {

    /** The merged answer: the items under {@code field}, and how long it is fresh. */
    ObjectNode answer(String field, ArrayNode items) {
      ObjectNode result = JsonRpcCodec.emptyObject();
      result.set(field, items);
      result.put("ttlMs", ttlMs);
      return result;
    }
  }

  /** One server's items, and the shortest lifetime of its pages. */
  private record Part(List<JsonNode> items, long ttlMs) {}

  private final GatewaySettings settings;

  AggregatedLists(GatewaySettings settings) {
    this.settings = settings;
  }

  /**
   * The listed servers' items of one list method, all pages, by server in file order; failed
   * servers left out.
   */
  CompletionStage<Collected> collect(
      JsonRpcRequest request, UpstreamCalls calls, List<String> servers, String field) {
    Map<String, CompletableFuture<Part>> parts = new LinkedHashMap<>();
    for (String server : servers) {
      parts.put(
          server,
          pages(request, calls, server, field, null, 0, new Part(new ArrayList<>(), Long.MAX_VALUE))
              .toCompletableFuture()
              .exceptionally(
                  failure -> {
                    if (!(Failures.unwrap(failure) instanceof CancellationException)) {
                      log.warn(
                          "session {}: {} left out of {}: {}",
                          SessionIds.redact(calls.context()),
                          server,
                          request.method(),
                          Failures.describe(failure));
                    }
                    return null;
                  }));
    }
    return CompletableFuture.allOf(parts.values().toArray(CompletableFuture[]::new))
        .thenApply(
            allDone -> {
              Map<String, List<JsonNode>> byServer = new LinkedHashMap<>();
              long ttlMs = Long.MAX_VALUE;
              for (Map.Entry<String, CompletableFuture<Part>> entry : parts.entrySet()) {
                Part part = entry.getValue().join();
                if (part == null) {
                  ttlMs = 0;
                } else {
                  byServer.put(entry.getKey(), part.items());
                  ttlMs = Math.min(ttlMs, part.ttlMs());
                }
              }
              return new Collected(byServer, ttlMs == Long.MAX_VALUE ? 0 : ttlMs);
            });
  }

  /** One server's items, following nextCursor; null when the server answered an error. */
  private CompletionStage<Part> pages(
      JsonRpcRequest request,
      UpstreamCalls calls,
      String server,
      String field,
      String cursor,
      int page,
      Part sofar) {
    ObjectNode params =
        request.params() != null && request.params().isObject()
            ? ((ObjectNode) request.params()).deepCopy()
            : JsonRpcCodec.emptyObject();
    params.remove("cursor");
    if (cursor != null) {
      params.put("cursor", cursor);
    }
    return calls
        .call(server, request.method(), params, settings.aggregatedListTimeout())
        .thenCompose(
            response -> {
              if (response.isError()) {
                if (response.error().code() != METHOD_NOT_FOUND) {
                  log.warn(
                      "session {}: {} left out of {}: {}",
                      SessionIds.redact(calls.context()),
                      server,
                      request.method(),
                      response.error().message());
                }
                return CompletableFuture.completedFuture(null);
              }
              response.result().path(field).forEach(sofar.items()::add);
              // a page the supervisor did not cache carries no ttlMs: fresh for no time
              Part part =
                  new Part(
                      sofar.items(),
                      Math.min(
                          sofar.ttlMs(), Math.max(0, response.result().path("ttlMs").asLong(0))));
              String next = response.result().path("nextCursor").asText(null);
              if (next == null) {
                return CompletableFuture.completedFuture(part);
              }
              if (page + 1 >= settings.maxListPages()) {
                log.warn(
                    "{} of {} has more than {} pages; the rest is left out",
                    request.method(),
                    server,
                    settings.maxListPages());
                return CompletableFuture.completedFuture(part);
              }
              return pages(request, calls, server, field, next, page + 1, part);
            });
  }
}
