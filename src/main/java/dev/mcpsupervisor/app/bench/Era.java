package dev.mcpsupervisor.app.bench;

import dev.mcpsupervisor.protocol.ProtocolVersions;

/** The two ways a client talks to a Streamable HTTP MCP endpoint. */
public enum Era {
  /** initialize + notifications/initialized, then every call carries the Mcp-Session-Id. */
  SESSION(ProtocolVersions.V2025_06_18),
  /** No session: each request carries the version and client in _meta and the headers. */
  STATELESS(ProtocolVersions.V2026_07_28);

  private final String protocolVersion;

  Era(String protocolVersion) {
    this.protocolVersion = protocolVersion;
  }

  public String protocolVersion() {
    return protocolVersion;
  }
}
