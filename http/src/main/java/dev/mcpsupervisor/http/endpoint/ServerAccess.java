package dev.mcpsupervisor.http.endpoint;

import dev.mcpsupervisor.http.access.Identity;
import dev.mcpsupervisor.protocol.config.CallerHeaders;
import dev.mcpsupervisor.protocol.config.IdentityPolicy;
import dev.mcpsupervisor.protocol.config.IdentitySecrets;
import dev.mcpsupervisor.protocol.config.ServerConfig;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Which servers each identity may use ({@code gateway.identities.<name>.servers}; an identity
 * without an entry may use every server). {@code /servers/<name>/mcp} refuses the others with 403;
 * on {@code /mcp} an identity's sessions see an aggregate of its own servers only, so lists leave
 * the others out and calls cannot reach them. A server that acts as its caller ({@code
 * ${identity:NAME}} in its headers) is also left out of the aggregate of an identity that lacks one
 * of its values (its own endpoint answers that identity with an error naming the missing value).
 * Immutable: part of the configuration in force ({@link InForce}).
 */
public final class ServerAccess {

  private final Map<String, IdentityPolicy> policies;

  /** The names each server that acts as its caller needs a value for. */
  private final Map<String, Set<String>> namesNeeded;

  private final IdentitySecrets secrets;

  public ServerAccess(
      Map<String, IdentityPolicy> policies,
      Map<String, ServerConfig> servers,
      IdentitySecrets secrets) {
    this.policies = Map.copyOf(policies);
    Map<String, Set<String>> needed = new LinkedHashMap<>();
    servers.forEach(
        (name, server) -> {
          Set<String> names = CallerHeaders.namesIn(server);
          if (!names.isEmpty()) {
            needed.put(name, names);
          }
        });
    this.namesNeeded = Map.copyOf(needed);
    this.secrets = secrets;
  }

  public boolean mayUse(Identity identity, String server) {
    return policyOf(identity).mayUse(server);
  }

  /** {@code namespace} narrowed to the servers {@code identity} may use and has values for. */
  ServerNamespace narrow(ServerNamespace namespace, Identity identity) {
    IdentityPolicy policy = policyOf(identity);
    List<String> lacking =
        namesNeeded.entrySet().stream()
            .filter(server -> !hasEvery(identity, server.getValue()))
            .map(Map.Entry::getKey)
            .toList();
    if (policy.servers() == null && lacking.isEmpty()) {
      return namespace;
    }
    Set<String> allowed =
        new HashSet<>(policy.servers() == null ? namespace.servers() : policy.servers());
    lacking.forEach(allowed::remove);
    return namespace.restrictedTo(allowed);
  }

  private boolean hasEvery(Identity identity, Set<String> names) {
    return !identity.isAnonymous()
        && names.stream().allMatch(name -> secrets.value(identity.name(), name).isPresent());
  }

  private IdentityPolicy policyOf(Identity identity) {
    return policies.getOrDefault(identity.name(), IdentityPolicy.UNRESTRICTED);
  }
}
