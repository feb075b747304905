package dev.mcpsupervisor.http.routes;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mcpsupervisor.actors.Asks;
import dev.mcpsupervisor.actors.SessionSupervisor;
import dev.mcpsupervisor.actors.base.SupervisorSnapshot;
import dev.mcpsupervisor.http.cluster.AdminDesk;
import dev.mcpsupervisor.http.cluster.AdminDesk.Outcome;
import dev.mcpsupervisor.http.ops.ConfigReloader;
import dev.mcpsupervisor.http.ops.GatewayMetrics;
import dev.mcpsupervisor.http.ops.OpsJournal;
import dev.mcpsupervisor.http.session.AdminReport;
import dev.mcpsupervisor.http.session.DownstreamSessions;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Scheduler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the admin endpoints do on this node: its report ({@code /admin/sessions}, {@link
 * AdminReport} with the configuration in force), and an operator's restart of an upstream session
 * or close of a downstream session here, audited in the log and the {@link OpsJournal}. In a
 * cluster, the {@link AdminDesk} does the same for the operators of other nodes.
 */
public final class AdminActions implements AdminDesk.Local {

  private static final Logger log = LoggerFactory.getLogger(AdminActions.class);

  private static final Duration ASK_TIMEOUT = Duration.ofSeconds(5);

  private final SessionSupervisor supervisor;
  private final ActorRef<DownstreamSessions.Command> sessions;
  private final GatewayMetrics metrics;
  private final Scheduler scheduler;
  private final ConfigReloader reloader;

  public AdminActions(
      SessionSupervisor supervisor,
      ActorRef<DownstreamSessions.Command> sessions,
      GatewayMetrics metrics,
      Scheduler scheduler,
      ConfigReloader reloader) {
    this.supervisor = supervisor;
    this.sessions = sessions;
    this.metrics = metrics;
    this.scheduler = scheduler;
    this.reloader = reloader;
  }

  /** The {@code /admin/sessions} document of this node as it is now. */
  @Override
  public CompletionStage<ObjectNode> report() {
    return Asks.<DownstreamSessions.Command, DownstreamSessions.Listing>ask(
            sessions, DownstreamSessions.ListSessions::new, ASK_TIMEOUT, scheduler)
        .thenCombine(
            supervisor.snapshot(),
            (listing, snapshot) -> {
              ObjectNode report =
                  AdminReport.of(
                      listing,
                      snapshot,
                      supervisor.membership(),
                      metrics.recentCalls().summaries(),
                      Instant.now());
              report.set("config", loadedJson(reloader.loaded()));
              return report;
            });
  }

  static ObjectNode loadedJson(ConfigReloader.Loaded loaded) {
    return JsonRpcCodec.emptyObject()
        .put("fingerprint", loaded.fingerprint())
        .put("loadedAt", loaded.at().toString());
  }

  @Override
  public CompletionStage<Outcome> act(AdminDesk.Action action) {
    if (action instanceof AdminDesk.Restart restart) {
      return restart(restart.keyId(), restart.sessionId(), restart.detail());
    }
    AdminDesk.Close close = (AdminDesk.Close) action;
    return close(close.shownId(), close.detail());
  }

  private CompletionStage<Outcome> restart(String keyId, long sessionId, String detail) {
    return supervisor
        .snapshot()
        .thenCompose(
            snapshot -> {
              Optional<SupervisorSnapshot.KeySnapshot> key =
                  snapshot.keys().stream().filter(k -> k.keyId().equals(keyId)).findFirst();
              if (key.isEmpty()) {
                return CompletableFuture.completedFuture(
                    Outcome.of(404, "unknown", "no server key " + keyId));
              }
              String server = key.get().server();
              return supervisor
                  .restartSession(keyId, sessionId, detail)
                  .thenApply(
                      restarted -> {
                        if (!restarted) {
                          return Outcome.of(
                              409,
                              "not restarted",
                              "upstream session "
                                  + sessionId
                                  + " of "
                                  + server
                                  + " is not ready (or gone): nothing to restart");
                        }
                        // the session lists it (restart requested, who and why) before it restarts
                        log.info(
                            "admin: upstream session {} of {} ({}) restarted {}",
                            sessionId,
                            server,
                            keyId,
                            detail);
                        return Outcome.of(
                            200,
                            "restarting",
                            "upstream session " + sessionId + " of " + server + " restarts");
                      });
            });
  }

  private CompletionStage<Outcome> close(String shownId, String detail) {
    return Asks.<DownstreamSessions.Command, Boolean>ask(
            sessions,
            replyTo ->
                new DownstreamSessions.CloseShown(
                    shownId, "closed by an operator " + detail, replyTo),
            ASK_TIMEOUT,
            scheduler)
        .thenApply(
            closed -> {
              if (!closed) {
                return Outcome.of(
                    404, "unknown", "no downstream session " + shownId + " on this node");
              }
              log.info("admin: downstream session {} closed {}", shownId, detail);
              metrics.journal().action("session closed", "downstream", "", shownId, detail);
              return Outcome.of(200, "closed", "downstream session " + shownId + " is closed");
            });
  }
}
