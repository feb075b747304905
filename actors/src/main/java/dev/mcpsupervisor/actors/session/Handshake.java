package dev.mcpsupervisor.actors.session;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mcpsupervisor.protocol.ProtocolVersions;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;

/** The supervisor's side of the MCP initialize exchange. */
final class Handshake {

  private static final String CLIENT_NAME = "mcp-supervisor";
  private static final String CLIENT_VERSION =
      Handshake.class.getPackage().getImplementationVersion() != null
          ? Handshake.class.getPackage().getImplementationVersion()
          : "0.1.0";

  private Handshake() {}

  static JsonNode initializeParams() {
    ObjectNode params = JsonRpcCodec.emptyObject();
    params.put("protocolVersion", ProtocolVersions.LATEST);
    ObjectNode capabilities = params.putObject("capabilities");
    capabilities.putObject("sampling");
    capabilities.putObject("elicitation");
    capabilities.putObject("roots").put("listChanged", true);
    ObjectNode clientInfo = params.putObject("clientInfo");
    clientInfo.put("name", CLIENT_NAME);
    clientInfo.put("version", CLIENT_VERSION);
    return params;
  }

  /** Why the upstream's answer to initialize cannot be used, or null if it can. */
  static String problemWith(JsonRpcResponse response) {
    if (response.isError()) {
      return "initialize failed: " + response.error().message();
    }
    String version = response.result().path("protocolVersion").asText("");
    if (!ProtocolVersions.isSupported(version)) {
      return "initialize answered unsupported protocol version \"" + version + "\"";
    }
    return null;
  }
}
