package dev.mcpsupervisor.http.session;

import dev.mcpsupervisor.actors.SessionSupervisor;
import dev.mcpsupervisor.http.access.Identity;
import dev.mcpsupervisor.http.endpoint.McpEndpoint;
import dev.mcpsupervisor.http.ops.GatewaySettings;
import java.time.Duration;
import java.util.function.IntSupplier;
import java.util.function.Supplier;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * What one {@link DownstreamSession} is made of, as its registry starts it.
 *
 * @param id its {@code Mcp-Session-Id}, also its supervisor context
 * @param endpoint the endpoint that created it, over the servers its owner may use
 * @param gate what the HTTP routes tell it passes ({@link SessionDirectory})
 * @param idleTimeout {@code gateway.sessionIdleTimeout} in force
 * @param owner the identity it is bound to
 * @param replication where a cluster node's sessions keep their records
 * @param maxInflight {@code gateway.maxInflightPerDownstreamSession} in force
 */
record SessionSpec(
    String id,
    McpEndpoint endpoint,
    SessionSupervisor supervisor,
    GatewaySettings settings,
    Supplier<Duration> idleTimeout,
    ActorRef<DownstreamSessions.Command> registry,
    RouteGate gate,
    Identity owner,
    SessionReplicas.Replication replication,
    IntSupplier maxInflight) {}
