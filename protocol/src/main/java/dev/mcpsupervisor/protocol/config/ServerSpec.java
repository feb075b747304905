package dev.mcpsupervisor.protocol.config;

import java.net.URI;
import java.util.List;
import java.util.Map;

/**
 * How to reach one upstream MCP server. Env values, header values and URL query strings may hold
 * secrets: {@code toString} never shows them (only the names of env variables and headers, and the
 * URL up to its path).
 */
public sealed interface ServerSpec {

  /** The transport name as written in config files: "stdio", "streamable-http" or "sse". */
  String transport();

  /** Adds headers (e.g. forwarded from a downstream client); for stdio it returns itself. */
  ServerSpec withExtraHeaders(Map<String, String> extra);

  record Stdio(String command, List<String> args, Map<String, String> env, String cwd)
      implements ServerSpec {
    public Stdio {
      args = List.copyOf(args);
      env = Map.copyOf(env);
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
          + "]";
    }
  }

  record StreamableHttp(URI url, Map<String, String> headers) implements ServerSpec {
    public StreamableHttp {
      headers = Map.copyOf(headers);
    }

    @Override
    public String transport() {
      return "streamable-http";
    }

    @Override
    public ServerSpec withExtraHeaders(Map<String, String> extra) {
      return new StreamableHttp(url, Specs.merge(headers, extra));
    }

    @Override
    public String toString() {
      return "StreamableHttp[url=" + Specs.printable(url) + ", headers=" + headers.keySet() + "]";
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

    @Override
    public String toString() {
      return "Sse[url=" + Specs.printable(url) + ", headers=" + headers.keySet() + "]";
    }
  }
}
