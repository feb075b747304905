package dev.mcpsupervisor.protocol.config;

/**
 * Identifies one upstream server: its configured name and a stable digest (SHA-256, hex) of its spec — transport,
 * command, args, env, cwd, or URL and headers. Same spec, same key, in every run and JVM; any field change, a new key.
 * Secrets are inside the digest but never printed: {@code toString} shows the name and a short digest only.
 */
public record ServerKey(String serverName, String digest) {

  public static ServerKey of(String serverName, ServerSpec spec) {
    throw new UnsupportedOperationException("TODO");
  }

  /** A string id usable as an actor name or a cluster entity id: {@code <name>-<first 12 hex of digest>}. */
  public String id() {
    return serverName + "-" + digest.substring(0, Math.min(12, digest.length()));
  }

  @Override
  public String toString() {
    return id();
  }
}
