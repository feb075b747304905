package dev.mcpsupervisor.http.endpoint;

import dev.mcpsupervisor.http.access.Identity;
import dev.mcpsupervisor.protocol.config.IdentityPolicy;
import java.util.HashSet;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Which servers each identity may use ({@code gateway.identities.<name>.servers}; an identity
 * without an entry may use every server). {@code /servers/<name>/mcp} refuses the others with 403;
 * on {@code /mcp} an identity's sessions see an aggregate of its own servers only, so lists leave
 * the others out and calls cannot reach them. Thread-safe: the routes and the session registry
 * share it.
 */
public final class ServerAccess {

  private final Map<String, IdentityPolicy> policies;

  /** The restricted aggregates, by identity name, built on first use. */
  private final Map<String, McpEndpoint> aggregates = new ConcurrentHashMap<>();

  public ServerAccess(Map<String, IdentityPolicy> policies) {
    this.policies = Map.copyOf(policies);
  }

  public boolean mayUse(Identity identity, String server) {
    return policyOf(identity).mayUse(server);
  }

  /**
   * The endpoint a session of {@code identity} uses: the aggregate narrowed to the identity's
   * servers on {@code /mcp}, else {@code endpoint} itself (a single server's endpoint is refused
   * before a session is made).
   */
  public McpEndpoint endpointFor(McpEndpoint endpoint, Identity identity) {
    IdentityPolicy policy = policyOf(identity);
    if (policy.servers() == null || !(endpoint instanceof AggregatedEndpoint aggregate)) {
      return endpoint;
    }
    return aggregates.computeIfAbsent(
        identity.name(), name -> aggregate.restrictedTo(new HashSet<>(policy.servers())));
  }

  private IdentityPolicy policyOf(Identity identity) {
    return policies.getOrDefault(identity.name(), IdentityPolicy.UNRESTRICTED);
  }
}
