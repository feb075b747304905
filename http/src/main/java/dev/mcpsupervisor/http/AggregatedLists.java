package dev.mcpsupervisor.http;

import static dev.mcpsupervisor.protocol.JsonRpcErrorCodes.METHOD_NOT_FOUND;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
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
 * with a log line.
 */
final class AggregatedLists {

  private static final Logger log = LoggerFactory.getLogger(AggregatedLists.class);

  private final GatewaySettings settings;

  AggregatedLists(GatewaySettings settings) {
    this.settings = settings;
  }

  /**
   * The listed servers' items of one list method, all pages, by server in file order; failed
   * servers left out.
   */
  CompletionStage<Map<String, List<JsonNode>>> collect(
      JsonRpcRequest request, UpstreamCalls calls, List<String> servers, String field) {
    Map<String, CompletableFuture<List<JsonNode>>> parts = new LinkedHashMap<>();
    for (String server : servers) {
      parts.put(
          server,
          pages(request, calls, server, field, null, 0, new ArrayList<>())
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
              parts.forEach(
                  (server, part) -> {
                    List<JsonNode> items = part.join();
                    if (items != null) {
                      byServer.put(server, items);
                    }
                  });
              return byServer;
            });
  }

  /** One server's items, following nextCursor; null when the server answered an error. */
  private CompletionStage<List<JsonNode>> pages(
      JsonRpcRequest request,
      UpstreamCalls calls,
      String server,
      String field,
      String cursor,
      int page,
      List<JsonNode> items) {
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
              response.result().path(field).forEach(items::add);
              String next = response.result().path("nextCursor").asText(null);
              if (next == null) {
                return CompletableFuture.completedFuture(items);
              }
              if (page + 1 >= settings.maxListPages()) {
                log.warn(
                    "{} of {} has more than {} pages; the rest is left out",
                    request.method(),
                    server,
                    settings.maxListPages());
                return CompletableFuture.completedFuture(items);
              }
              return pages(request, calls, server, field, next, page + 1, items);
            });
  }
}
