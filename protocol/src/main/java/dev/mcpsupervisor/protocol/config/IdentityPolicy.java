package dev.mcpsupervisor.protocol.config;

import java.util.List;

/**
 * What one identity (a named static token, or an OAuth token's identity claim) may do: one entry of
 * {@code gateway.identities}. An identity without an entry may use every server.
 *
 * @param servers the servers it may use; null: every server
 */
public record IdentityPolicy(List<String> servers) {

  /** No restriction. */
  public static final IdentityPolicy UNRESTRICTED = new IdentityPolicy(null);

  public IdentityPolicy {
    servers = servers == null ? null : List.copyOf(servers);
  }

  public boolean mayUse(String server) {
    return servers == null || servers.contains(server);
  }
}
