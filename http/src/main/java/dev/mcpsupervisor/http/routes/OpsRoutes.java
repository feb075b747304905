package dev.mcpsupervisor.http.routes;

import dev.mcpsupervisor.actors.Asks;
import dev.mcpsupervisor.actors.SessionSupervisor;
import dev.mcpsupervisor.actors.base.SupervisorSnapshot;
import dev.mcpsupervisor.http.ops.GatewayMetrics;
import dev.mcpsupervisor.http.ops.Readiness;
import dev.mcpsupervisor.http.session.AdminReport;
import dev.mcpsupervisor.http.session.DownstreamSessions;
import dev.mcpsupervisor.http.stream.McpResponses;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import dev.mcpsupervisor.upstream.Failures;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Scheduler;
import org.apache.pekko.http.javadsl.model.ContentTypes;
import org.apache.pekko.http.javadsl.model.HttpEntities;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.server.AllDirectives;
import org.apache.pekko.http.javadsl.server.Route;

/**
 * Operations endpoints: {@code /healthz} (the process serves HTTP), {@code /readyz} (listening,
 * taking requests and {@code Up} in its cluster, from {@link Readiness}; 503 while joining or
 * stopping), {@code /metrics} (Prometheus text) and {@code /admin/sessions} (JSON). HTTP only.
 */
public final class OpsRoutes extends AllDirectives {

  private static final Duration ASK_TIMEOUT = Duration.ofSeconds(5);

  private final SessionSupervisor supervisor;
  private final ActorRef<DownstreamSessions.Command> sessions;
  private final GatewayMetrics metrics;
  private final Scheduler scheduler;
  private final Readiness readiness;

  public OpsRoutes(
      SessionSupervisor supervisor,
      ActorRef<DownstreamSessions.Command> sessions,
      GatewayMetrics metrics,
      Scheduler scheduler,
      Readiness readiness) {
    this.supervisor = supervisor;
    this.sessions = sessions;
    this.metrics = metrics;
    this.scheduler = scheduler;
    this.readiness = readiness;
  }

  /** Probes: open to anyone who passes the Host/Origin checks, even when tokens are configured. */
  Route probes() {
    return concat(
        path("healthz", () -> get(() -> complete(status(StatusCodes.OK, "ok")))),
        path(
            "readyz",
            () ->
                get(
                    () ->
                        complete(
                            switch (readiness.probe()) {
                              case READY -> status(StatusCodes.OK, "ready");
                              case JOINING -> status(StatusCodes.SERVICE_UNAVAILABLE, "joining");
                              case STOPPING -> status(StatusCodes.SERVICE_UNAVAILABLE, "stopping");
                            }))));
  }

  /** Metrics and admin: behind the bearer token when tokens are configured. */
  Route guarded() {
    return concat(
        path(
            "metrics",
            () ->
                get(
                    () ->
                        completeWithFuture(
                            snapshot()
                                .thenApply(
                                    snapshot ->
                                        HttpResponse.create()
                                            .withEntity(
                                                HttpEntities.create(
                                                    ContentTypes.parse(
                                                        GatewayMetrics.contentType()),
                                                    metrics
                                                        .scrape(snapshot, supervisor.membership())
                                                        .getBytes(StandardCharsets.UTF_8))))))),
        pathPrefix(
            "admin",
            () ->
                path(
                    "sessions",
                    () ->
                        get(
                            () ->
                                completeWithFuture(
                                    listing()
                                        .thenCombine(
                                            supervisor.snapshot(),
                                            (listing, snapshot) ->
                                                McpResponses.json(
                                                    StatusCodes.OK,
                                                    AdminReport.of(
                                                        listing,
                                                        snapshot,
                                                        supervisor.membership(),
                                                        Instant.now())))
                                        // a report without the supervisor's part would say "no
                                        // sessions": say why not
                                        .exceptionally(
                                            failure ->
                                                McpResponses.json(
                                                    StatusCodes.SERVICE_UNAVAILABLE,
                                                    JsonRpcCodec.emptyObject()
                                                        .put("status", "unavailable")
                                                        .put(
                                                            "error",
                                                            Failures.describe(failure)))))))));
  }

  /**
   * For metrics: without the supervisor's answer the counters still render, the per-session gauges
   * are left out.
   */
  private CompletionStage<SupervisorSnapshot> snapshot() {
    return supervisor.snapshot().exceptionally(failure -> null);
  }

  private CompletionStage<DownstreamSessions.Listing> listing() {
    return Asks.ask(sessions, DownstreamSessions.ListSessions::new, ASK_TIMEOUT, scheduler);
  }

  private static HttpResponse status(
      org.apache.pekko.http.javadsl.model.StatusCode code, String status) {
    return McpResponses.json(code, JsonRpcCodec.emptyObject().put("status", status));
  }
}
