package dev.mcpsupervisor.protocol.config;

import java.util.Objects;

/**
 * One root the supervisor answers an upstream's {@code roots/list} with ({@code roots}, per server
 * or for every server): a {@code file://} URI and an optional name, as MCP's {@code Root}.
 *
 * @param name null when the config gives none
 */
public record Root(String uri, String name) {

  public Root {
    Objects.requireNonNull(uri, "uri");
  }
}
