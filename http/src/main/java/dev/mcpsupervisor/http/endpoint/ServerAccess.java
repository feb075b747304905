package dev.mcpsupervisor.http.endpoint;

import dev.mcpsupervisor.http.access.Identity;
import dev.mcpsupervisor.protocol.config.IdentityPolicy;
import java.util.HashSet;
import java.util.Map;

/**
 * Which servers each identity may use ({@code gateway.identities.<name>.servers}; an identity
 * without an entry may use every server). {@code /servers/<name>/mcp} refuses the others with 403;
 * on {@code /mcp} an identity's sessions see an aggregate of its own servers only, so lists leave
 * the others out and calls cannot reach them. Immutable: part of the configuration in force ({@link
 * InForce}).
 */
public final class ServerAccess {

  private final Map<String, IdentityPolicy> policies;

  public ServerAccess(Map<String, IdentityPolicy> policies) {
    this.policies = Map.copyOf(policies);
  }

  public boolean mayUse(Identity identity, String server) {
    return policyOf(identity).mayUse(server);
  }

  /** {@code namespace} narrowed to the servers {@code identity} may use. */
  ServerNamespace narrow(ServerNamespace namespace, Identity identity) {
    IdentityPolicy policy = policyOf(identity);
    return policy.servers() == null
        ? namespace
        : namespace.restrictedTo(new HashSet<>(policy.servers()));
  }

  private IdentityPolicy policyOf(Identity identity) {
    return policies.getOrDefault(identity.name(), IdentityPolicy.UNRESTRICTED);
  }
}
