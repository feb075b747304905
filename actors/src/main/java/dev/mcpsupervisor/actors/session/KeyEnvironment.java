package dev.mcpsupervisor.actors.session;

import dev.mcpsupervisor.actors.base.SupervisionEvent;
import dev.mcpsupervisor.actors.base.SupervisorObserver;
import dev.mcpsupervisor.actors.base.SupervisorSettings;
import dev.mcpsupervisor.actors.telemetry.McpTelemetry;
import dev.mcpsupervisor.protocol.config.ServerConfig;
import dev.mcpsupervisor.protocol.config.ServerSpec;
import dev.mcpsupervisor.upstream.UpstreamConnector;

/**
 * What a server key's actor and its sessions are built with. Passed when spawning, never sent in a
 * message.
 *
 * @param keyId the server key's id (name and short digest)
 */
public record KeyEnvironment(
    ServerConfig server,
    String keyId,
    SupervisorSettings settings,
    UpstreamConnector connector,
    SupervisorObserver observer,
    McpTelemetry telemetry) {

  public String serverName() {
    return server.name();
  }

  /** Tells the observer what happened to one of the key's sessions (0: to the key itself). */
  public void supervision(SupervisionEvent.Kind kind, long sessionId, String detail) {
    observer.supervision(SupervisionEvent.now(kind, serverName(), keyId, sessionId, detail));
  }

  /** The conventions' {@code network.transport}: a stdio server is a pipe, the others TCP. */
  public String networkTransport() {
    return server.spec() instanceof ServerSpec.Stdio ? "pipe" : "tcp";
  }
}
