package dev.mcpsupervisor.actors.session;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mcpsupervisor.protocol.config.ToolFilter;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import java.util.function.BiConsumer;

/**
 * What one session knows of its upstream's tools, and what its callers see of them. The tools are
 * fetched (every page, up to {@link #MAX_PAGES}) when a link comes up and when the upstream says
 * they changed, and learnt from callers' lists too, for the annotations the {@link RetryPolicy}
 * needs. A caller's tools/list answer leaves out the tools the server's {@link ToolFilter} hides —
 * also the key's list cache fetches, so what the cache keeps is already filtered and every path to
 * a list sees the same tools. Plain class on the session's thread.
 */
final class SessionTools {

  static final int MAX_PAGES = 20;

  private final RetryPolicy retryPolicy;
  private final ToolFilter filter;
  private final BiConsumer<SessionCalls.Link, JsonNode> fetchPage;

  /**
   * @param fetchPage sends the session's own tools/list with these params (null, or a cursor) on
   *     the link; its answer comes back to {@link #pageFetched}
   */
  SessionTools(
      RetryPolicy retryPolicy,
      ToolFilter filter,
      BiConsumer<SessionCalls.Link, JsonNode> fetchPage) {
    this.retryPolicy = retryPolicy;
    this.filter = filter;
    this.fetchPage = fetchPage;
  }

  /** Forgets what it knew and fetches the tools again on {@code link} (null: none to send on). */
  void refetch(SessionCalls.Link link) {
    retryPolicy.forgetTools();
    if (link != null && link.hasTools()) {
      fetch(link, null);
    }
  }

  /** A page of the session's own fetch came back; the next is fetched while there is one. */
  void pageFetched(JsonRpcResponse response, SessionCalls.Link ready) {
    if (response.isError()) {
      return;
    }
    String cursor = response.result().path("nextCursor").asText(null);
    if (retryPolicy.learnToolsPage(response.result(), MAX_PAGES)
        && cursor != null
        && ready != null) {
      fetch(ready, cursor);
    }
  }

  /** A caller's tools/list answer (or a list cache fetch's) as the caller may see it. */
  JsonRpcResponse callerList(JsonRpcResponse response) {
    if (!response.isError()) {
      retryPolicy.learnTools(response.result());
    }
    return filter.visible(response);
  }

  private void fetch(SessionCalls.Link link, String cursor) {
    ObjectNode params = null;
    if (cursor != null) {
      params = JsonRpcCodec.emptyObject();
      params.put("cursor", cursor);
    }
    fetchPage.accept(link, params);
  }
}
