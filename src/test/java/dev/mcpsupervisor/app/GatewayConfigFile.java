package dev.mcpsupervisor.app;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** A gateway configuration file ({@code {"mcpServers": {...}}}) written for one test. */
final class GatewayConfigFile {

  private GatewayConfigFile() {}

  /** A stdio server entry. */
  static Map<String, Object> stdio(String command, String... args) {
    return Map.of("command", command, "args", List.of(args));
  }

  /** A Streamable HTTP server entry. */
  static Map<String, Object> url(String url) {
    return Map.of("url", url);
  }

  /** The entry with one more field, e.g. {@code "protocol": "2026-07-28"}. */
  static Map<String, Object> with(Map<String, Object> server, String field, Object value) {
    Map<String, Object> extended = new LinkedHashMap<>(server);
    extended.put(field, value);
    return extended;
  }

  /** Writes {@code {"mcpServers": servers}} to {@code file}; answers the file. */
  static Path write(Path file, Map<String, Map<String, Object>> servers) {
    try {
      Files.writeString(file, new ObjectMapper().writeValueAsString(Map.of("mcpServers", servers)));
      return file;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + file, e);
    }
  }
}
