package dev.mcpsupervisor.protocol.config;

import java.net.URI;
import java.util.List;
import java.util.Map;

/**
 * How to reach one upstream MCP server. Env values, header values and URL query strings may hold
 * secrets: {@code toString} never shows them (only the names of env variables and headers, and the
 * URL's scheme, host and port).
 */
public sealed interface ServerSpec {

  /** The transport name as written in config files: "stdio", "streamable-http" or "sse". */
  String transport();

  /** Adds headers (e.g. forwarded from a downstream client); for stdio it returns itself. */
  ServerSpec withExtraHeaders(Map<String, String> extra);

  /** The MCP era to speak to the server (the config's {@code protocol}). */
  UpstreamProtocol protocol();

  /**
   * A command started as a child process. {@code inheritEnv}: it gets the gateway's whole
   * environment; else only an allow-list of it (PATH, HOME...) besides its own {@code env}.
   */
  record Stdio(
      String command,
      List<String> args,
      Map<String, String> env,
      String cwd,
      UpstreamProtocol protocol,
      boolean inheritEnv)
      implements ServerSpec {
    public Stdio {
      args = List.copyOf(args);
      env = Map.copyOf(env);
      protocol = protocol == null ? UpstreamProtocol.AUTO : protocol;
    }

    /** A server that gets only the allow-listed part of the gateway's environment. */
    public Stdio(
        String command,
        List<String> args,
        Map<String, String> env,
        String cwd,
        UpstreamProtocol protocol) {
      this(command, args, env, cwd, protocol, false);
    }

    /** A server whose era is found out ({@code protocol} auto). */
    public Stdio(String command, List<String> args, Map<String, String> env, String cwd) {
      this(command, args, env, cwd, UpstreamProtocol.AUTO);
    }

    @Override
    public String transport() {
      return "stdio";
    }

    @Override
    public ServerSpec withExtraHeaders(Map<String, String> extra) {
      return this;
    }

    @Override
    public String toString() {
      return "Stdio[command="
          + command
          + ", args="
          + args
          + ", env="
          + env.keySet()
          + ", cwd="
          + cwd
          + Specs.printable(protocol)
          + (inheritEnv ? ", inheritEnv=true" : "")
          + "]";
    }
  }

  /**
   * @param tokenExchange null, or how to get each caller's token for the server ({@link
   *     CallerHeaders}: the {@code Authorization} header then holds the caller's own token, which
   *     the connector exchanges and never sends)
   */
  record StreamableHttp(
      URI url, Map<String, String> headers, UpstreamProtocol protocol, TokenExchange tokenExchange)
      implements ServerSpec {
    public StreamableHttp {
      headers = Map.copyOf(headers);
      protocol = protocol == null ? UpstreamProtocol.AUTO : protocol;
    }

    /** A server reached with its configured headers only. */
    public StreamableHttp(URI url, Map<String, String> headers, UpstreamProtocol protocol) {
      this(url, headers, protocol, null);
    }

    /** This server with {@code headers} instead of its own. */
    public StreamableHttp withHeaders(Map<String, String> headers) {
      return new StreamableHttp(url, headers, protocol, tokenExchange);
    }

    /** This server spoken to in the era {@code protocol}. */
    public StreamableHttp withProtocol(UpstreamProtocol protocol) {
      return new StreamableHttp(url, headers, protocol, tokenExchange);
    }

    /** A server whose era is found out ({@code protocol} auto). */
    public StreamableHttp(URI url, Map<String, String> headers) {
      this(url, headers, UpstreamProtocol.AUTO);
    }

    @Override
    public String transport() {
      return "streamable-http";
    }

    @Override
    public ServerSpec withExtraHeaders(Map<String, String> extra) {
      return withHeaders(Specs.merge(headers, extra));
    }

    @Override
    public String toString() {
      return "StreamableHttp[url="
          + Specs.printable(url)
          + ", headers="
          + headers.keySet()
          + Specs.printable(protocol)
          + (tokenExchange == null ? "" : ", " + tokenExchange)
          + "]";
    }
  }

  record Sse(URI url, Map<String, String> headers) implements ServerSpec {
    public Sse {
      headers = Map.copyOf(headers);
    }

    @Override
    public String transport() {
      return "sse";
    }

    @Override
    public ServerSpec withExtraHeaders(Map<String, String> extra) {
      return new Sse(url, Specs.merge(headers, extra));
    }

    /** The deprecated HTTP+SSE transport only ever carried the session era. */
    @Override
    public UpstreamProtocol protocol() {
      return UpstreamProtocol.SESSION;
    }

    @Override
    public String toString() {
      return "Sse[url=" + Specs.printable(url) + ", headers=" + headers.keySet() + "]";
    }
  }
}
