package dev.mcpsupervisor.springai;

import dev.mcpsupervisor.actors.SupervisorClient;
import dev.mcpsupervisor.protocol.config.ServerConfig;
import dev.mcpsupervisor.protocol.tools.McpTool;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.ai.tool.ToolCallback;
import org.springframework.ai.tool.ToolCallbackProvider;

/**
 * The tools of every supervised server as {@link SupervisedToolCallback}s, for {@code
 * ChatClient.Builder.defaultToolCallbacks(provider)}. Each {@link #getToolCallbacks()} (Spring AI's
 * ChatClient asks on every request) lists the servers' tools again from the supervisor's list
 * cache, which a server's {@code notifications/tools/list_changed} clears, so new and removed tools
 * show at the next request without a round trip to the servers in between. A server that cannot be
 * reached (not started yet, command missing, circuit open) contributes no tools and a warning; its
 * tools appear once it answers. A tool known to send sampling or elicitation requests that no
 * handler answers is left out (see {@code mcp-supervisor.offer-unanswerable-tools}).
 */
public final class SupervisorToolCallbackProvider implements ToolCallbackProvider {

  private static final Logger log = LoggerFactory.getLogger(SupervisorToolCallbackProvider.class);

  private final SupervisorClient client;
  private final ToolOffer offer;
  private final ToolCallObserver observer;

  /** Every tool of every server, the interactive ones included. */
  public SupervisorToolCallbackProvider(SupervisorClient client) {
    this(client, ToolOffer.everything(), ToolCallObserver.NONE);
  }

  SupervisorToolCallbackProvider(
      SupervisorClient client, ToolOffer offer, ToolCallObserver observer) {
    this.client = client;
    this.offer = offer;
    this.observer = observer;
  }

  @Override
  public ToolCallback[] getToolCallbacks() {
    Map<ServerConfig, CompletableFuture<Listing>> listings = new LinkedHashMap<>();
    for (ServerConfig server : client.supervisor().config().servers().values()) {
      listings.put(
          server,
          client
              .listTools(server.name())
              .thenCombine(client.interactiveTools(server.name()), Listing::new)
              .toCompletableFuture());
    }
    List<ToolCallback> callbacks = new ArrayList<>();
    listings.forEach(
        (server, listing) -> {
          try {
            Listing tools = listing.join();
            for (McpTool tool : tools.tools()) {
              if (offer.offers(
                  server.qualifiedName(tool.name()), tool.name(), tools.interactive())) {
                callbacks.add(new SupervisedToolCallback(client, server, tool, observer));
              }
            }
          } catch (CompletionException e) {
            log.warn(
                "no tools of MCP server {} for now: {}", server.name(), e.getCause().getMessage());
          }
        });
    return callbacks.toArray(ToolCallback[]::new);
  }

  private record Listing(List<McpTool> tools, Set<String> interactive) {}
}
