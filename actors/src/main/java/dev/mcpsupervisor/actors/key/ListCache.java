package dev.mcpsupervisor.actors.key;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.LongNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mcpsupervisor.actors.base.SupervisorErrors;
import dev.mcpsupervisor.actors.delivery.UpstreamCall;
import dev.mcpsupervisor.protocol.McpMethods;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcError;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.LongSupplier;
import java.util.function.Predicate;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * The list results of one server key (tools/list, prompts/list, resources/list,
 * resources/templates/list), shared by all its contexts: each page (method and cursor) is fetched
 * upstream once and served until it expires — after the {@code ttlMs} the upstream gave, else
 * {@code defaultTtl} — or the upstream says the list changed. Callers that miss the same page while
 * it is being fetched wait for that one fetch. Served results carry {@code ttlMs}: the remaining
 * lifetime of the cached page.
 *
 * <p>Not cached: a request with params besides {@code cursor} and {@code _meta} (they could change
 * the answer), errors, {@code input_required} results, results the upstream marks {@code
 * cacheScope: "private"} (they must not reach another context), and a fetch under way when the list
 * changed (its answer may predate the change: it answers its waiters, and the next caller fetches
 * again). A {@code defaultTtl} of zero turns the cache off. A context-isolated server keeps
 * per-client state, so its lists may differ per context: there each context's pages are its own,
 * and they go with its lease ({@link #released}). Plain class on the key actor's thread.
 */
final class ListCache {

  /** Pages held at most; an upstream that accepts any cursor cannot grow the cache past this. */
  static final int MAX_PAGES = 256;

  /** An upstream's {@code ttlMs} is honoured up to this long. */
  static final Duration MAX_TTL = Duration.ofDays(1);

  private static final Set<String> METHODS =
      Set.of(
          McpMethods.TOOLS_LIST,
          McpMethods.PROMPTS_LIST,
          McpMethods.RESOURCES_LIST,
          McpMethods.RESOURCES_TEMPLATES_LIST);

  /**
   * What a page is cached under: the method, the cursor (null for the first page) and, when each
   * context's pages are its own, the context (else null).
   */
  record Page(String method, String cursor, String context) {}

  /** What a caller of a cacheable list gets. */
  sealed interface Lookup permits Hit, Waiting, Fetch {}

  /** Answered from the cache: the response to send the caller (its id is the caller's). */
  record Hit(JsonRpcResponse response) implements Lookup {}

  /** The caller waits for a fetch of its page already under way. */
  enum Waiting implements Lookup {
    INSTANCE
  }

  /**
   * The caller is the first to miss: send {@code call} upstream (it answers to the cache's {@code
   * fetchReplyTo}); the caller waits for it like everyone after it.
   */
  record Fetch(UpstreamCall call) implements Lookup {}

  /** A waiting caller and its answer. */
  record Answer(UpstreamCall call, JsonRpcResponse response) {}

  private record Fresh(ObjectNode result, long expiresAtNanos) {}

  /** One fetch under way; its id is the call id it was sent upstream with. */
  private static final class Fetching {
    final Page page;
    final UpstreamCall call;
    final Map<Long, UpstreamCall> waiters = new LinkedHashMap<>();

    /** The list changed (or the session was lost) since it was sent: its answer is not kept. */
    boolean stale;

    Fetching(Page page, UpstreamCall call) {
      this.page = page;
      this.call = call;
    }

    long id() {
      return call.callId();
    }
  }

  private final long defaultTtlNanos;
  private final boolean perContext;
  private final Duration fetchDeadline;
  private final ActorRef<JsonRpcResponse> fetchReplyTo;
  private final LongSupplier nanoClock;

  private final Map<Page, Fresh> fresh = new HashMap<>();

  /** The fetch a caller that misses a page joins; stale fetches are no longer here. */
  private final Map<Page, Fetching> joinable = new HashMap<>();

  private final Map<Long, Fetching> fetchesById = new HashMap<>();
  private final Map<Long, Fetching> fetchOfWaiter = new HashMap<>();

  /**
   * @param defaultTtl how long a page the upstream gave no {@code ttlMs} for stays fresh; zero
   *     turns the cache off
   * @param perContext each context's pages are its own (a context-isolated server's)
   * @param fetchDeadline the least deadline of a fetch (the server's request timeout): it serves
   *     every waiter, not only the caller that started it
   * @param fetchReplyTo where the answers of fetches go, to be handed to {@link #fetched}
   */
  ListCache(
      Duration defaultTtl,
      boolean perContext,
      Duration fetchDeadline,
      ActorRef<JsonRpcResponse> fetchReplyTo,
      LongSupplier nanoClock) {
    this.defaultTtlNanos = defaultTtl.toNanos();
    this.perContext = perContext;
    this.fetchDeadline = fetchDeadline;
    this.fetchReplyTo = fetchReplyTo;
    this.nanoClock = nanoClock;
  }

  /**
   * The page a request asks for, or null when the request is not a list the cache serves (another
   * method, or params besides {@code cursor} and {@code _meta}).
   */
  static Page pageOf(String method, JsonNode params) {
    if (!METHODS.contains(method)) {
      return null;
    }
    if (params == null || params.isNull()) {
      return new Page(method, null, null);
    }
    if (!params.isObject()) {
      return null;
    }
    String cursor = null;
    for (Iterator<Map.Entry<String, JsonNode>> it = params.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> field = it.next();
      if ("cursor".equals(field.getKey()) && field.getValue().isTextual()) {
        cursor = field.getValue().textValue();
      } else if (!"_meta".equals(field.getKey())) {
        return null;
      }
    }
    return new Page(method, cursor, null);
  }

  /** Null when the cache does not serve this call: it goes upstream as it is. */
  Lookup lookup(UpstreamCall call) {
    Page page = defaultTtlNanos > 0 ? pageOf(call.method(), call.params()) : null;
    if (page == null) {
      return null;
    }
    if (perContext) {
      page = new Page(page.method(), page.cursor(), call.context());
    }
    Fresh cached = fresh.get(page);
    if (cached != null) {
      long remaining = cached.expiresAtNanos() - nanoClock.getAsLong();
      if (remaining > 0) {
        return new Hit(
            JsonRpcResponse.success(
                LongNode.valueOf(call.callId()), withTtl(cached.result(), remaining)));
      }
      fresh.remove(page);
    }
    Fetching under = joinable.get(page);
    if (under != null) {
      wait(under, call);
      return Waiting.INSTANCE;
    }
    Fetching started = new Fetching(page, fetchCall(call, page));
    joinable.put(page, started);
    fetchesById.put(started.id(), started);
    wait(started, call);
    return new Fetch(started.call);
  }

  private void wait(Fetching fetch, UpstreamCall call) {
    fetch.waiters.put(call.callId(), call);
    fetchOfWaiter.put(call.callId(), fetch);
  }

  /**
   * The fetch's own call: the caller's context (its lease, or none for a leaseless caller) and id,
   * params that name only the cursor, and no tag (it is on behalf of every waiter).
   */
  private UpstreamCall fetchCall(UpstreamCall caller, Page page) {
    ObjectNode params = null;
    if (page.cursor() != null) {
      params = JsonRpcCodec.emptyObject();
      params.put("cursor", page.cursor());
    }
    Duration deadline =
        caller.deadline().compareTo(fetchDeadline) > 0 ? caller.deadline() : fetchDeadline;
    return new UpstreamCall(
        caller.context(),
        caller.server(),
        caller.callId(),
        page.method(),
        params,
        deadline,
        response -> fetchReplyTo.tell(response),
        null,
        caller.delivery(),
        null,
        caller.caller(),
        false);
  }

  /** How many callers wait for a fetch now. */
  int waiting() {
    return fetchOfWaiter.size();
  }

  /** Whether {@code callId} names a fetch under way (cancelling its caller must not cancel it). */
  boolean isFetch(long callId) {
    return fetchesById.containsKey(callId);
  }

  /**
   * A fetch was answered (its response's id is the fetch's id): keeps the page if it may, and
   * answers every caller still waiting for it. Nothing for an unknown or already answered id.
   */
  List<Answer> fetched(JsonRpcResponse response) {
    Fetching fetch =
        response.id().canConvertToLong() ? fetchesById.remove(response.id().asLong()) : null;
    if (fetch == null) {
      return List.of();
    }
    if (joinable.get(fetch.page) == fetch) {
      joinable.remove(fetch.page);
    }
    JsonNode result = fetch.stale ? null : keep(fetch.page, response);
    List<Answer> answers = new ArrayList<>(fetch.waiters.size());
    for (UpstreamCall waiter : fetch.waiters.values()) {
      fetchOfWaiter.remove(waiter.callId());
      answers.add(
          new Answer(
              waiter,
              result != null
                  ? JsonRpcResponse.success(LongNode.valueOf(waiter.callId()), result)
                  : response.withId(LongNode.valueOf(waiter.callId()))));
    }
    return answers;
  }

  /**
   * The fetch {@code fetchId} had no answer by its deadline (a safety net: its session answers at
   * the deadline): its waiters get a timeout.
   */
  List<Answer> fetchTimedOut(long fetchId) {
    Fetching fetch = fetchesById.get(fetchId);
    return fetch == null
        ? List.of()
        : fetched(JsonRpcResponse.failure(LongNode.valueOf(fetchId), timeout(fetch.call)));
  }

  /**
   * Keeps a successful, complete, shareable page for its lifetime; answers the result as served
   * (with its {@code ttlMs}), or null when it is not kept.
   */
  private JsonNode keep(Page page, JsonRpcResponse response) {
    if (response.isError()
        || !(response.result() instanceof ObjectNode result)
        || !"complete".equals(result.path("resultType").asText("complete"))
        || "private".equals(result.path("cacheScope").asText())) {
      return null;
    }
    JsonNode upstreamTtl = result.get("ttlMs");
    long ttlNanos =
        upstreamTtl != null && upstreamTtl.canConvertToLong()
            ? Duration.ofMillis(Math.max(0, Math.min(upstreamTtl.asLong(), MAX_TTL.toMillis())))
                .toNanos()
            : defaultTtlNanos;
    if (ttlNanos <= 0 || !roomFor(page)) {
      return null;
    }
    fresh.put(page, new Fresh(result, nanoClock.getAsLong() + ttlNanos));
    return withTtl(result, ttlNanos);
  }

  private boolean roomFor(Page page) {
    if (fresh.size() < MAX_PAGES || fresh.containsKey(page)) {
      return true;
    }
    long now = nanoClock.getAsLong();
    fresh.values().removeIf(entry -> entry.expiresAtNanos() - now <= 0);
    return fresh.size() < MAX_PAGES;
  }

  /**
   * A waiting caller's deadline passed: it is taken out and answered with a timeout; null if it is
   * not waiting. The fetch goes on for the others, and fills the cache.
   */
  Answer waitTimedOut(long callId) {
    UpstreamCall waiter = withdraw(callId);
    return waiter == null ? null : new Answer(waiter, waiter.errorResponse(timeout(waiter)));
  }

  /** A waiting caller gave up: like {@link #waitTimedOut}, answered as cancelled. */
  Answer cancelled(long callId) {
    UpstreamCall waiter = withdraw(callId);
    return waiter == null
        ? null
        : new Answer(
            waiter,
            waiter.errorResponse(SupervisorErrors.cancelled(waiter.method(), waiter.server())));
  }

  private UpstreamCall withdraw(long callId) {
    Fetching fetch = fetchOfWaiter.remove(callId);
    return fetch == null ? null : fetch.waiters.remove(callId);
  }

  private static JsonRpcError timeout(UpstreamCall call) {
    return SupervisorErrors.timeout(call.method(), call.server(), call.deadline().toMillis());
  }

  /** The upstream sent {@code notifications/<kind>/list_changed}: the lists of that kind go. */
  void listChanged(String notification) {
    Set<String> methods = methodsChangedBy(notification);
    drop(page -> methods.contains(page.method()));
  }

  /**
   * The context's lease ended: its own pages go (a fetch of them under way answers its waiters and
   * is not kept). Nothing when pages are shared.
   */
  void released(String context) {
    if (perContext) {
      drop(page -> context.equals(page.context()));
    }
  }

  /** These pages go, and fetches of them under way are not kept. */
  private void drop(Predicate<Page> pages) {
    fresh.keySet().removeIf(pages);
    joinable
        .values()
        .removeIf(
            fetch -> {
              boolean dropped = pages.test(fetch.page);
              fetch.stale |= dropped;
              return dropped;
            });
  }

  /** A session lost its connection: the server may come back with other lists. */
  void clear() {
    fresh.clear();
    joinable.values().forEach(fetch -> fetch.stale = true);
    joinable.clear();
  }

  /** Every waiting caller, taken out (the key shuts down); the cache is empty after. */
  List<UpstreamCall> drain() {
    List<UpstreamCall> waiting = new ArrayList<>();
    fetchesById.values().forEach(fetch -> waiting.addAll(fetch.waiters.values()));
    fetchesById.clear();
    fetchOfWaiter.clear();
    joinable.clear();
    fresh.clear();
    return waiting;
  }

  private static Set<String> methodsChangedBy(String notification) {
    return switch (notification) {
      case McpMethods.NOTIFICATION_TOOLS_LIST_CHANGED -> Set.of(McpMethods.TOOLS_LIST);
      case McpMethods.NOTIFICATION_PROMPTS_LIST_CHANGED -> Set.of(McpMethods.PROMPTS_LIST);
      // templates are resources too: a server that changes them says resources/list_changed
      case McpMethods.NOTIFICATION_RESOURCES_LIST_CHANGED ->
          Set.of(McpMethods.RESOURCES_LIST, McpMethods.RESOURCES_TEMPLATES_LIST);
      default -> Set.of();
    };
  }

  /** A shallow copy with {@code ttlMs}: nothing below the top level is copied or changed. */
  private static ObjectNode withTtl(ObjectNode result, long remainingNanos) {
    ObjectNode served = JsonRpcCodec.emptyObject().setAll(result);
    served.put("ttlMs", Math.max(1, Duration.ofNanos(remainingNanos).toMillis()));
    return served;
  }
}
