package dev.mcpsupervisor.http.routes;

import java.util.Locale;
import org.apache.pekko.http.javadsl.model.HttpRequest;

/**
 * What a client accepts, as far as MCP cares: JSON answers, SSE answers. A missing Accept header
 * accepts both; a media range with {@code q=0} accepts nothing.
 */
record AcceptHeader(boolean json, boolean sse) {

  static AcceptHeader of(HttpRequest request) {
    return request
        .getHeader("Accept")
        .map(header -> parse(header.value()))
        .orElse(new AcceptHeader(true, true));
  }

  static AcceptHeader parse(String value) {
    boolean json = false;
    boolean sse = false;
    for (String range : value.split(",")) {
      String[] parts = range.split(";");
      String type = parts[0].trim().toLowerCase(Locale.ROOT);
      if (refused(parts)) {
        continue;
      }
      json |= type.equals("application/json") || type.equals("application/*") || type.equals("*/*");
      sse |= type.equals("text/event-stream") || type.equals("text/*") || type.equals("*/*");
    }
    return new AcceptHeader(json, sse);
  }

  private static boolean refused(String[] parts) {
    for (int i = 1; i < parts.length; i++) {
      String parameter = parts[i].trim().toLowerCase(Locale.ROOT).replace(" ", "");
      if (parameter.startsWith("q=")) {
        try {
          return Double.parseDouble(parameter.substring(2)) <= 0;
        } catch (NumberFormatException e) {
          return false;
        }
      }
    }
    return false;
  }
}
