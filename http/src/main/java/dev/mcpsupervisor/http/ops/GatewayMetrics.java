package dev.mcpsupervisor.http.ops;

import dev.mcpsupervisor.actors.base.SupervisionEvent;
import dev.mcpsupervisor.actors.base.SupervisorObserver;
import dev.mcpsupervisor.actors.base.SupervisorSnapshot;
import dev.mcpsupervisor.actors.cluster.Membership;
import dev.mcpsupervisor.protocol.McpMethods;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Gauge;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BiConsumer;

/**
 * The gateway's Prometheus metrics: it observes the supervisor (pass it to {@code
 * SessionSupervisor.start(config, connector, metrics)}) and the HTTP layer, and writes the
 * Prometheus text format with the client library.
 *
 * <ul>
 *   <li>{@code mcp_supervisor_upstream_sessions{server,state}}, {@code _inflight_requests{server}},
 *       {@code _stashed_requests{server}}, {@code _leases{server}}: from a supervisor snapshot
 *       taken at each scrape.
 *   <li>{@code mcp_supervisor_upstream_sessions_created_total}, {@code _reused_total}, {@code
 *       _restarted_total}, {@code _evicted_total{reason}} per server.
 *   <li>{@code mcp_supervisor_upstream_request_duration_seconds{server,method}} (histogram) and
 *       {@code mcp_supervisor_upstream_request_errors_total{server,kind}}.
 *   <li>{@code mcp_supervisor_downstream_sessions} and {@code
 *       mcp_supervisor_downstream_rejections_total{reason}} (HTTP requests refused: bad input,
 *       auth, unknown session...).
 * </ul>
 *
 * It also keeps what the operations page shows beyond the counters: the {@link #journal()} of
 * supervision events, and the {@link #recentCalls()} per server.
 *
 * <p>Label values are bounded: methods outside MCP's own are counted as "other", eviction reasons
 * other than "idle" and "failures" as "other". Thread-safe; observer calls are cheap and never
 * block.
 */
public final class GatewayMetrics implements SupervisorObserver {

  private static final String PREFIX = "mcp_supervisor_";
  private static final Set<String> KNOWN_METHODS =
      Set.of(
          McpMethods.INITIALIZE,
          McpMethods.PING,
          McpMethods.TOOLS_LIST,
          McpMethods.TOOLS_CALL,
          McpMethods.RESOURCES_LIST,
          McpMethods.RESOURCES_TEMPLATES_LIST,
          McpMethods.RESOURCES_READ,
          McpMethods.RESOURCES_SUBSCRIBE,
          McpMethods.RESOURCES_UNSUBSCRIBE,
          McpMethods.PROMPTS_LIST,
          McpMethods.PROMPTS_GET,
          McpMethods.COMPLETION_COMPLETE,
          McpMethods.LOGGING_SET_LEVEL);
  private static final Set<String> KNOWN_EVICTION_REASONS = Set.of("idle", "failures");
  private static final double[] LATENCY_BUCKETS = {
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120
  };

  private final PrometheusRegistry registry = new PrometheusRegistry();

  private final Counter created =
      counter("upstream_sessions_created_total", "Upstream sessions created", "server");
  private final Counter reused =
      counter(
          "upstream_sessions_reused_total",
          "Leases served by an existing upstream session",
          "server");
  private final Counter restarted =
      counter("upstream_sessions_restarted_total", "Upstream connections re-established", "server");
  private final Counter evicted =
      counter(
          "upstream_sessions_evicted_total",
          "Upstream sessions closed for idleness or failures",
          "server",
          "reason");
  private final Counter requestErrors =
      counter(
          "upstream_request_errors_total",
          "Upstream requests answered with an error, by kind",
          "server",
          "kind");
  private final Counter rejections =
      counter(
          "downstream_rejections_total", "HTTP requests the gateway refused, by reason", "reason");
  private final Histogram latency =
      Histogram.builder()
          .name(PREFIX + "upstream_request_duration_seconds")
          .help("Time from a request reaching the supervisor to its answer")
          .labelNames("server", "method")
          .classicOnly()
          .classicUpperBounds(LATENCY_BUCKETS)
          .register(registry);
  private final Gauge upstreamSessions =
      gauge("upstream_sessions", "Upstream sessions by state", "server", "state");
  private final Gauge inFlight =
      gauge("upstream_inflight_requests", "Requests sent upstream, not yet answered", "server");
  private final Gauge stashed =
      gauge(
          "upstream_stashed_requests",
          "Requests waiting for an upstream session to be ready",
          "server");
  private final Gauge leases = gauge("upstream_leases", "Contexts holding a lease", "server");
  private final Gauge downstreamSessions =
      gauge("downstream_sessions", "Open downstream MCP sessions");
  private final Gauge configLoaded =
      gauge(
          "config_loaded_timestamp_seconds",
          "When the configuration in force was loaded, labelled with its fingerprint",
          "fingerprint");

  /** Registered at the first scrape of a node of a cluster: a single node has no cluster gauges. */
  private Gauge clusterMembers;

  private Gauge unreachableMembers;

  /** Registered at a cluster node's first adoption. */
  private Counter adopted;

  private final OpsJournal journal = new OpsJournal();
  private final RecentCalls recentCalls = new RecentCalls();

  private final List<BiConsumer<String, String>> listChanges = new CopyOnWriteArrayList<>();

  public GatewayMetrics() {}

  /** The supervision events and operator actions, for the operations page. */
  public OpsJournal journal() {
    return journal;
  }

  /** The last minutes' calls per server, for the operations page. */
  public RecentCalls recentCalls() {
    return recentCalls;
  }

  /**
   * The registry, for an application that wants to add its own metrics (JVM, process) to the same
   * scrape.
   */
  public PrometheusRegistry registry() {
    return registry;
  }

  /**
   * {@code listener} hears every {@link #listChanged}: what the gateway learnt from the
   * supervisor's cached lists goes with them.
   */
  public void onListChanged(BiConsumer<String, String> listener) {
    listChanges.add(listener);
  }

  @Override
  public void listChanged(String server, String notification) {
    listChanges.forEach(listener -> listener.accept(server, notification));
  }

  @Override
  public void sessionReused(String server) {
    reused.labelValues(server).inc();
  }

  @Override
  public void supervision(SupervisionEvent event) {
    String server = event.server();
    switch (event.kind()) {
      case STARTED -> created.labelValues(server).inc();
      case LOST, RESTART_REQUESTED -> restarted.labelValues(server).inc();
      case EVICTED ->
          evicted
              .labelValues(
                  server, KNOWN_EVICTION_REASONS.contains(event.cause()) ? event.cause() : "other")
              .inc();
      default -> {}
    }
    journal.record(event);
  }

  @Override
  public void requestCompleted(String server, String method, long nanos, String errorKind) {
    latency
        .labelValues(server, KNOWN_METHODS.contains(method) ? method : "other")
        .observe(nanos / 1e9);
    if (errorKind != null) {
      requestErrors.labelValues(server, errorKind).inc();
    }
    recentCalls.record(server, nanos, errorKind != null);
  }

  /** Starts the per-server counters at zero, so that their series exist before the first event. */
  public void initServers(Iterable<String> servers) {
    recentCalls.servers(servers);
    for (String server : servers) {
      created.initLabelValues(server);
      reused.initLabelValues(server);
      restarted.initLabelValues(server);
      KNOWN_EVICTION_REASONS.forEach(reason -> evicted.initLabelValues(server, reason));
    }
  }

  /** The configuration {@code fingerprint} is in force from now on: the only series. */
  public synchronized void configLoaded(String fingerprint) {
    configLoaded.clear();
    configLoaded.labelValues(fingerprint).set(System.currentTimeMillis() / 1e3);
  }

  public void rejected(String reason) {
    rejections.labelValues(reason).inc();
  }

  public void downstreamSessions(int open) {
    downstreamSessions.set(open);
  }

  /** A cluster node took over a session whose node was gone or stopping. */
  public synchronized void sessionAdopted() {
    if (adopted == null) {
      adopted =
          counter(
              "downstream_sessions_adopted",
              "Downstream sessions this node took over from a node that was gone or stopping");
    }
    adopted.inc();
  }

  /**
   * The Prometheus text exposition, with the upstream gauges taken from the snapshot (null: left as
   * they were).
   */
  public synchronized String scrape(SupervisorSnapshot snapshot) {
    return scrape(snapshot, Membership.SINGLE_NODE);
  }

  /**
   * {@link #scrape(SupervisorSnapshot)} with the cluster's gauges (members by status, unreachable
   * members) when this node is one of a cluster; a single node has none.
   */
  public synchronized String scrape(SupervisorSnapshot snapshot, Membership membership) {
    if (snapshot != null) {
      updateGauges(snapshot);
    }
    if (membership.clustered()) {
      updateClusterGauges(membership);
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try {
      PrometheusTextFormatWriter.create().write(out, registry.scrape());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toString(StandardCharsets.UTF_8);
  }

  /** The content type of {@link #scrape}. */
  public static String contentType() {
    return PrometheusTextFormatWriter.CONTENT_TYPE;
  }

  private void updateGauges(SupervisorSnapshot snapshot) {
    upstreamSessions.clear();
    inFlight.clear();
    stashed.clear();
    leases.clear();
    Map<String, Map<String, Integer>> byState = new HashMap<>();
    Map<String, int[]> load = new HashMap<>();
    for (SupervisorSnapshot.KeySnapshot key : snapshot.keys()) {
      int[] serverLoad = load.computeIfAbsent(key.server(), notUsed -> new int[3]);
      serverLoad[2] += key.leases().size();
      for (SupervisorSnapshot.SessionSnapshot session : key.sessions()) {
        byState
            .computeIfAbsent(key.server(), notUsed -> new HashMap<>())
            .merge(session.state(), 1, Integer::sum);
        serverLoad[0] += session.inFlight();
        serverLoad[1] += session.stashed();
      }
    }
    byState.forEach(
        (server, states) ->
            states.forEach(
                (state, count) -> upstreamSessions.labelValues(server, state).set(count)));
    load.forEach(
        (server, values) -> {
          inFlight.labelValues(server).set(values[0]);
          stashed.labelValues(server).set(values[1]);
          leases.labelValues(server).set(values[2]);
        });
  }

  private void updateClusterGauges(Membership membership) {
    if (clusterMembers == null) {
      clusterMembers = gauge("cluster_members", "Cluster members as this node sees them", "status");
      unreachableMembers =
          gauge("cluster_unreachable_members", "Cluster members this node cannot reach");
    }
    clusterMembers.clear();
    membership
        .membersByStatus()
        .forEach((status, count) -> clusterMembers.labelValues(status).set(count));
    unreachableMembers.set(membership.unreachableCount());
  }

  private Counter counter(String name, String help, String... labels) {
    return Counter.builder().name(PREFIX + name).help(help).labelNames(labels).register(registry);
  }

  private Gauge gauge(String name, String help, String... labels) {
    return Gauge.builder().name(PREFIX + name).help(help).labelNames(labels).register(registry);
  }
}
