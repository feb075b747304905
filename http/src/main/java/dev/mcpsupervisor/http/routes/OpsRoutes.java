package dev.mcpsupervisor.http.routes;

import dev.mcpsupervisor.actors.SessionSupervisor;
import dev.mcpsupervisor.actors.base.SupervisorSnapshot;
import dev.mcpsupervisor.http.ops.GatewayMetrics;
import dev.mcpsupervisor.http.ops.Readiness;
import dev.mcpsupervisor.http.stream.McpResponses;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.http.javadsl.model.ContentTypes;
import org.apache.pekko.http.javadsl.model.HttpEntities;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.StatusCode;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.server.AllDirectives;
import org.apache.pekko.http.javadsl.server.Route;

/**
 * Probes and metrics: {@code /healthz} and {@code /livez} (the process serves HTTP: Kubernetes'
 * liveness), {@code /readyz} (listening, taking requests, warmed up and {@code Up} in its cluster,
 * from {@link Readiness}; 503 while warming, joining or stopping) and {@code /metrics} (Prometheus
 * text). The {@code /admin} endpoints are {@link AdminRoutes}. HTTP only.
 */
public final class OpsRoutes extends AllDirectives {

  private final SessionSupervisor supervisor;
  private final GatewayMetrics metrics;
  private final Readiness readiness;

  public OpsRoutes(SessionSupervisor supervisor, GatewayMetrics metrics, Readiness readiness) {
    this.supervisor = supervisor;
    this.metrics = metrics;
    this.readiness = readiness;
  }

  /** Probes: open to anyone who passes the Host/Origin checks, even when tokens are configured. */
  Route probes() {
    Route alive = get(() -> complete(status(StatusCodes.OK, "ok")));
    return concat(
        path("healthz", () -> alive),
        path("livez", () -> alive),
        path(
            "readyz",
            () ->
                get(
                    () ->
                        complete(
                            switch (readiness.probe()) {
                              case READY -> status(StatusCodes.OK, "ready");
                              case WARMING -> status(StatusCodes.SERVICE_UNAVAILABLE, "warming");
                              case JOINING -> status(StatusCodes.SERVICE_UNAVAILABLE, "joining");
                              case STOPPING -> status(StatusCodes.SERVICE_UNAVAILABLE, "stopping");
                            }))));
  }

  /** Metrics: behind the bearer token when tokens are configured. */
  Route metrics() {
    return path(
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
                                                ContentTypes.parse(GatewayMetrics.contentType()),
                                                metrics
                                                    .scrape(snapshot, supervisor.membership())
                                                    .getBytes(StandardCharsets.UTF_8)))))));
  }

  /**
   * For metrics: without the supervisor's answer the counters still render, the per-session gauges
   * are left out.
   */
  private CompletionStage<SupervisorSnapshot> snapshot() {
    return supervisor.snapshot().exceptionally(failure -> null);
  }

  private static HttpResponse status(StatusCode code, String status) {
    return McpResponses.json(code, JsonRpcCodec.emptyObject().put("status", status));
  }
}
