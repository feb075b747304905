package dev.mcpsupervisor.http.session;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.mcpsupervisor.actors.base.SupervisorErrors;
import dev.mcpsupervisor.http.endpoint.McpEndpoint;
import dev.mcpsupervisor.http.endpoint.Outcome;
import dev.mcpsupervisor.http.endpoint.UpstreamCalls;
import dev.mcpsupervisor.protocol.McpMethods;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcRequest;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Subscribing a listen stream's resources, each on the server that owns it: on an endpoint of
 * several servers their resource and template lists (cached) say which, learnt first. Runs off the
 * session's thread, on a copy of what the session knows; the requests are the gateway's own.
 */
final class ListenedResources {

  /** The id of a request the gateway makes on a client's behalf (it never reaches the client). */
  private static final JsonNode GATEWAY_REQUEST_ID = TextNode.valueOf("gateway");

  private ListenedResources() {}

  /** Subscribes {@code uris}; answers URI → server for those a server took. */
  static CompletionStage<Map<String, String>> subscribe(
      McpEndpoint endpoint, McpEndpoint.View known, List<String> uris, UpstreamCalls calls) {
    CompletionStage<McpEndpoint.View> view =
        endpoint.servers().size() < 2
            ? CompletableFuture.completedFuture(known)
            : learnOwners(endpoint, known, calls);
    return view.thenCompose(
        learnt -> {
          Map<String, CompletableFuture<Outcome>> outcomes = new LinkedHashMap<>();
          for (String uri : uris) {
            ObjectNode params = JsonRpcCodec.emptyObject();
            params.put("uri", uri);
            outcomes.put(
                uri, outcome(endpoint, McpMethods.RESOURCES_SUBSCRIBE, params, learnt, calls));
          }
          return CompletableFuture.allOf(outcomes.values().toArray(CompletableFuture[]::new))
              .thenApply(
                  allDone -> {
                    Map<String, String> subscribed = new LinkedHashMap<>();
                    outcomes.forEach(
                        (uri, outcome) -> {
                          if (outcome.join() instanceof Outcome.Subscribed taken) {
                            subscribed.put(uri, taken.server());
                          }
                        });
                    return subscribed;
                  });
        });
  }

  /** {@code known}, with the owners the servers' resource and template lists name. */
  private static CompletionStage<McpEndpoint.View> learnOwners(
      McpEndpoint endpoint, McpEndpoint.View known, UpstreamCalls calls) {
    CompletableFuture<Outcome> resources =
        outcome(endpoint, McpMethods.RESOURCES_LIST, JsonRpcCodec.emptyObject(), known, calls);
    CompletableFuture<Outcome> templates =
        outcome(
            endpoint,
            McpMethods.RESOURCES_TEMPLATES_LIST,
            JsonRpcCodec.emptyObject(),
            known,
            calls);
    return resources.thenCombine(
        templates,
        (listed, templated) -> {
          Map<String, String> owners = new HashMap<>(known.resourceOwners());
          Map<String, String> templateOwners = new HashMap<>(known.templateOwners());
          if (listed instanceof Outcome.ResourcesLearned learned) {
            learned.owners().forEach(owners::putIfAbsent);
          }
          if (templated instanceof Outcome.ResourcesLearned learned) {
            learned.templateOwners().forEach(templateOwners::putIfAbsent);
          }
          return new McpEndpoint.View(known.upstreams(), owners, templateOwners);
        });
  }

  /** The endpoint's outcome for a request the gateway makes itself; a failure as an outcome. */
  private static CompletableFuture<Outcome> outcome(
      McpEndpoint endpoint,
      String method,
      ObjectNode params,
      McpEndpoint.View view,
      UpstreamCalls calls) {
    CompletionStage<Outcome> outcome;
    try {
      outcome =
          endpoint.handle(new JsonRpcRequest(GATEWAY_REQUEST_ID, method, params), view, calls);
    } catch (RuntimeException e) {
      outcome = CompletableFuture.failedFuture(e);
    }
    return outcome
        .toCompletableFuture()
        .exceptionally(
            failure -> new Outcome.Failure(SupervisorErrors.internal("gateway", failure)));
  }
}
