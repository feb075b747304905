package dev.mcpsupervisor.http.stateless;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What each server offers (its last {@code initialize} result), as 2026-07-28 requests learn it: a
 * request without a session needs to know which servers have tools, prompts or resources to
 * dispatch to and merge lists, and asking every server for every request would cost an acquire per
 * server per call. Learned from every {@code server/discover} (which asks the servers afresh) and
 * from a request that found a server unknown; a server that is down is never learned, so the next
 * request asks it again. Thread-safe.
 */
public final class ServerOffers {

  private final Map<String, JsonNode> known = new ConcurrentHashMap<>();

  /** Remembers what these servers answered to initialize (server → its result). */
  void learn(Map<String, JsonNode> upstreams) {
    known.putAll(upstreams);
  }

  /** The initialize results of {@code servers} in their order, or null while one is unknown. */
  Map<String, JsonNode> of(List<String> servers) {
    Map<String, JsonNode> offers = new LinkedHashMap<>();
    for (String server : servers) {
      JsonNode offer = known.get(server);
      if (offer == null) {
        return null;
      }
      offers.put(server, offer);
    }
    return offers;
  }
}
