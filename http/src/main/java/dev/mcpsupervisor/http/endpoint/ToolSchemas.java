package dev.mcpsupervisor.http.endpoint;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.IntNode;
import dev.mcpsupervisor.protocol.McpMethods;
import dev.mcpsupervisor.protocol.ParamHeaders;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcRequest;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * The {@code Mcp-Param} declarations of the servers' tools, which the Mcp-Param-* headers of a
 * 2026-07-28 tools/call are checked against (SEP-2243). A server's are learnt from its tool list,
 * asked for like any client's tools/list (all pages) so that the supervisor's list cache answers
 * it, and kept as long as the cache keeps that list: for the {@code ttlMs} the cache served, or
 * until the server says its tools changed ({@link #listChanged}). While kept, a tools/call is
 * checked without a call of its own; a list the cache did not keep ({@code ttlMs} 0: the cache is
 * off) is asked for again by each checked call. A context-isolated server's lists are its contexts'
 * own: its declarations are kept for each caller's identity context apart (at most {@link
 * #MAX_CONTEXT_LISTS}, expired ones making room), and not at all for a request that names no caller
 * (its context ends with it). One per gateway, shared by its endpoints; thread-safe.
 */
public final class ToolSchemas {

  private static final JsonRpcRequest TOOLS_LIST =
      new JsonRpcRequest(IntNode.valueOf(0), McpMethods.TOOLS_LIST, JsonRpcCodec.emptyObject());

  /** Identity contexts' lists kept at most: beyond, a checked call asks the list cache. */
  static final int MAX_CONTEXT_LISTS = 1024;

  /** One server's tools' declarations by tool name, kept until {@code expiresAtNanos}. */
  private record Listed(Map<String, ParamHeaders.Declarations> byTool, long expiresAtNanos) {}

  /**
   * Whose list of a server: everyone's, or an identity context's ({@link UpstreamCalls#listsOf}).
   */
  private record Whose(String server, String lists) {}

  private final AggregatedLists lists;
  private final LongSupplier nanoClock;
  private final Map<Whose, Listed> listed = new ConcurrentHashMap<>();

  /** Counts tool list changes: a list asked for before one is not kept after it. */
  private final AtomicLong changes = new AtomicLong();

  ToolSchemas(AggregatedLists lists, LongSupplier nanoClock) {
    this.lists = lists;
    this.nanoClock = nanoClock;
  }

  ToolSchemas(AggregatedLists lists) {
    this(lists, System::nanoTime);
  }

  /**
   * The declarations of {@code tool} as {@code server} lists it; null when it is not listed (or the
   * list cannot be had): such a call is not checked, the server answers for it. Complete at once
   * while the server's list is kept.
   */
  CompletionStage<ParamHeaders.Declarations> of(String server, String tool, UpstreamCalls calls) {
    String listsOf = calls.listsOf(server);
    Whose whose = listsOf == null ? null : new Whose(server, listsOf);
    Listed known = whose == null ? null : listed.get(whose);
    if (known != null && known.expiresAtNanos() - nanoClock.getAsLong() > 0) {
      return CompletableFuture.completedFuture(known.byTool().get(tool));
    }
    long changesBefore = changes.get();
    return lists
        .collect(TOOLS_LIST, calls, List.of(server), "tools")
        .thenApply(
            collected -> {
              List<JsonNode> items = collected.byServer().get(server);
              if (items == null) {
                return null;
              }
              Map<String, ParamHeaders.Declarations> byTool = new HashMap<>();
              for (JsonNode item : items) {
                if (item.path("name").isTextual()) {
                  byTool.putIfAbsent(
                      item.get("name").textValue(),
                      ParamHeaders.declarations(item.path("inputSchema")));
                }
              }
              if (collected.ttlMs() > 0 && whose != null) {
                keep(whose, byTool, collected.ttlMs(), changesBefore);
              }
              return byTool.get(tool);
            });
  }

  private void keep(
      Whose whose, Map<String, ParamHeaders.Declarations> byTool, long ttlMs, long changesBefore) {
    if (!UpstreamCalls.EVERYONE.equals(whose.lists()) && !roomForAContextsList()) {
      return;
    }
    listed.put(
        whose,
        new Listed(Map.copyOf(byTool), nanoClock.getAsLong() + Duration.ofMillis(ttlMs).toNanos()));
    // a change heard meanwhile may be newer than this list: it is not kept
    if (changes.get() != changesBefore) {
      listed.remove(whose);
    }
  }

  /** Whether one more identity context's list may be kept, once expired ones are gone. */
  private boolean roomForAContextsList() {
    if (listed.size() < MAX_CONTEXT_LISTS) {
      return true;
    }
    long now = nanoClock.getAsLong();
    listed.values().removeIf(kept -> kept.expiresAtNanos() - now <= 0);
    return listed.size() < MAX_CONTEXT_LISTS;
  }

  /**
   * {@code server} said a list of its changed: when it is its tools, they are asked for again by
   * the next check.
   */
  void listChanged(String server, String notification) {
    if (McpMethods.NOTIFICATION_TOOLS_LIST_CHANGED.equals(notification)) {
      changes.incrementAndGet();
      listed.keySet().removeIf(whose -> whose.server().equals(server));
    }
  }
}
