package dev.mcpsupervisor.protocol.config;

import java.nio.file.Path;

/**
 * Reads a JSON or HOCON configuration with Typesafe Config (so {@code ${?VAR}} substitution works), over the defaults in
 * {@code reference.conf}, and validates it completely.
 */
public final class ConfigLoader {

  private ConfigLoader() {}

  /** @throws ConfigException naming the file, the server and the field */
  public static SupervisorConfig load(Path file) {
    throw new UnsupportedOperationException("TODO");
  }

  /** Parses config text; {@code origin} names it in errors (a file name, or "built-in default"). */
  public static SupervisorConfig parse(String text, String origin) {
    throw new UnsupportedOperationException("TODO");
  }
}
