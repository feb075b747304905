package dev.mcpsupervisor.protocol.config;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * A configuration written in code instead of a file: {@code
 * SupervisorConfig.builder().stdio("everything", "npx", "-y",
 * "@modelcontextprotocol/server-everything").build()}.
 *
 * <p>It writes the same {@code mcpServers} document a file holds and reads it with {@link
 * ConfigLoader#parse}, so a server built here gets the same defaults (reference.conf), the same
 * validation and the same error messages as one in a file; field names are the file's (see
 * docs/configuration.md). Servers keep the order they were added in. Not thread-safe.
 */
public final class SupervisorConfigBuilder {

  /** Names the configuration in error messages, where a file name would stand. */
  static final String ORIGIN = "configuration built in code";

  private final ObjectNode document = JsonRpcCodec.emptyObject();
  private final ObjectNode servers = document.putObject(ConfigLoader.MCP_SERVERS);

  SupervisorConfigBuilder() {}

  /** A server started as a child process: {@code command} with {@code args}. */
  public SupervisorConfigBuilder stdio(String name, String command, String... args) {
    return stdio(name, command, List.of(args), Map.of());
  }

  /** A server started as a child process, with variables added to its environment. */
  public SupervisorConfigBuilder stdio(
      String name, String command, List<String> args, Map<String, String> env) {
    ObjectNode server = newServer(name);
    server.put(ServerConfigReader.COMMAND, command);
    args.forEach(server.putArray(ServerConfigReader.ARGS)::add);
    ObjectNode environment = server.putObject(ServerConfigReader.ENV);
    env.forEach(environment::put);
    return this;
  }

  /** A remote server over Streamable HTTP. */
  public SupervisorConfigBuilder http(String name, String url) {
    return http(name, url, Map.of());
  }

  /** A remote server over Streamable HTTP, with headers sent on every request (e.g. a token). */
  public SupervisorConfigBuilder http(String name, String url, Map<String, String> headers) {
    ObjectNode server = newServer(name);
    server.put(ServerConfigReader.URL, url);
    ObjectNode headerFields = server.putObject(ServerConfigReader.HEADERS);
    headers.forEach(headerFields::put);
    return this;
  }

  /**
   * Sets one more field of an added server, as the config file names it: {@code option("files",
   * "isolation", "context")}, {@code option("files", "maxSessions", 2)}. A {@link Duration} is
   * written in milliseconds; a {@link List} as an array; anything else as its JSON value. An
   * unknown field or a bad value fails {@link #build()}, naming them.
   */
  public SupervisorConfigBuilder option(String server, String field, Object value) {
    if (!servers.has(server)) {
      throw new IllegalArgumentException("no server " + server + " was added before its option");
    }
    Object written = value instanceof Duration duration ? duration.toMillis() + "ms" : value;
    ((ObjectNode) servers.get(server)).set(field, JsonRpcCodec.mapper().valueToTree(written));
    return this;
  }

  /**
   * The roots every server's {@code roots/list} is answered with (a server's own {@code roots}, set
   * with {@link #option}, replace them): the top level's {@code roots}.
   */
  public SupervisorConfigBuilder roots(List<Root> roots) {
    ArrayNode list = document.putArray(RootsReader.ROOTS);
    for (Root root : roots) {
      ObjectNode entry = list.addObject().put(RootsReader.URI_FIELD, root.uri());
      if (root.name() != null) {
        entry.put(RootsReader.NAME, root.name());
      }
    }
    return this;
  }

  /**
   * The validated configuration.
   *
   * @throws ConfigException naming the server and the field that is wrong
   */
  public SupervisorConfig build() {
    return ConfigLoader.parse(text(), ORIGIN);
  }

  /**
   * The {@code mcpServers} document as a file holds it, for an application that reads its servers
   * from a file (not validated: {@link #build()} does that).
   */
  public String text() {
    try {
      // one server per line: HOCON keeps no member order, ConfigLoader orders servers by line
      return JsonRpcCodec.mapper().writerWithDefaultPrettyPrinter().writeValueAsString(document);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("a tree of strings and numbers always serializes", e);
    }
  }

  private ObjectNode newServer(String name) {
    if (servers.has(name)) {
      throw new IllegalArgumentException("server " + name + " is already added");
    }
    return servers.putObject(name);
  }
}
