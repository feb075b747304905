package dev.mcpsupervisor.protocol.config;

/**
 * An invalid configuration. The message is one line naming the file, the server (if any), the field
 * and what is wrong, e.g. {@code servers.json: mcpServers.github.transport: unknown transport "htp"
 * (expected stdio, streamable-http or sse)}.
 */
public final class ConfigException extends RuntimeException {

  private final String origin;
  private final String path;

  public ConfigException(String origin, String path, String problem) {
    super(origin + ": " + path + ": " + problem);
    this.origin = origin;
    this.path = path;
  }

  /**
   * A problem with the file as a whole (missing, unreadable, a syntax error): {@code path()} is
   * empty.
   */
  public ConfigException(String origin, String problem) {
    super(origin + ": " + problem);
    this.origin = origin;
    this.path = "";
  }

  /** The file (or "built-in default") the problem is in. */
  public String origin() {
    return origin;
  }

  /**
   * The config path of the offending field, e.g. {@code mcpServers.github.url}; empty for
   * file-level problems.
   */
  public String path() {
    return path;
  }
}
