package dev.mcpsupervisor.http.access;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mcpsupervisor.protocol.config.OAuthConfig;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import java.net.URI;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.pekko.http.javadsl.model.headers.HttpChallenge;

/**
 * The gateway as an OAuth protected resource (RFC 9728), as the MCP authorization spec asks: its
 * metadata document, which names the authorization server a client gets tokens from, and the {@code
 * WWW-Authenticate} challenges that point clients to that document.
 */
final class ProtectedResource {

  /** The well-known path prefix; the resource's own path follows it. */
  static final String WELL_KNOWN = "/.well-known/oauth-protected-resource";

  private static final String REALM = "mcp-supervisor";

  private final OAuthConfig config;
  private final String metadataUrl;

  ProtectedResource(OAuthConfig config) {
    this.config = config;
    this.metadataUrl = metadataUrlOf(config.resource());
  }

  /**
   * Where a resource's metadata is (RFC 9728 section 3.1): the well-known path goes between the
   * host and the resource's path, {@code https://gw/mcp} → {@code
   * https://gw/.well-known/oauth-protected-resource/mcp}.
   */
  static String metadataUrlOf(URI resource) {
    String path = resource.getRawPath() == null ? "" : resource.getRawPath();
    String query = resource.getRawQuery() == null ? "" : "?" + resource.getRawQuery();
    String tail = "/".equals(path) ? "" : path;
    return resource.getScheme() + "://" + resource.getRawAuthority() + WELL_KNOWN + tail + query;
  }

  String metadataUrl() {
    return metadataUrl;
  }

  ObjectNode document() {
    ObjectNode document = JsonRpcCodec.mapper().createObjectNode();
    document.put("resource", config.resource().toString());
    document.putArray("authorization_servers").add(config.issuer());
    document.putArray("bearer_methods_supported").add("header");
    if (!config.requiredScopes().isEmpty()) {
      config.requiredScopes().forEach(document.putArray("scopes_supported")::add);
    }
    document.put("resource_name", "mcp-supervisor");
    return document;
  }

  /** No token, or a token that is not valid ({@code error} null for none at all). */
  HttpChallenge unauthorized(String error) {
    Map<String, String> parameters = new LinkedHashMap<>();
    parameters.put("resource_metadata", metadataUrl);
    if (error != null) {
      parameters.put("error", error);
    }
    return HttpChallenge.create("Bearer", REALM, parameters);
  }

  /** A valid token without every scope the gateway needs. */
  HttpChallenge insufficientScope(String required) {
    Map<String, String> parameters = new LinkedHashMap<>();
    parameters.put("error", "insufficient_scope");
    parameters.put("scope", required);
    parameters.put("resource_metadata", metadataUrl);
    return HttpChallenge.create("Bearer", REALM, parameters);
  }
}
