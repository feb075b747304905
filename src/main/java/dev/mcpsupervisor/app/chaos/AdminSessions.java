package dev.mcpsupervisor.app.chaos;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** The upstream process ids the gateway reports for one server at {@code /admin/sessions}. */
final class AdminSessions {

  private static final ObjectMapper JSON = new ObjectMapper();

  private final HttpClient http;
  private final URI admin;
  private final String server;

  AdminSessions(HttpClient http, URI gatewayBase, String server) {
    this.http = http;
    this.admin = gatewayBase.resolve("/admin/sessions");
    this.server = server;
  }

  List<Long> pids() throws IOException {
    return pids(report(), server);
  }

  /** Whether one upstream session of the server is ready. */
  boolean anyReady() throws IOException {
    for (JsonNode key : report().path("serverKeys")) {
      if (server.equals(key.path("server").asText())) {
        for (JsonNode session : key.path("sessions")) {
          if ("ready".equalsIgnoreCase(session.path("state").asText())) {
            return true;
          }
        }
      }
    }
    return false;
  }

  private JsonNode report() throws IOException {
    try {
      HttpResponse<String> response =
          http.send(
              HttpRequest.newBuilder(admin).timeout(Duration.ofSeconds(10)).GET().build(),
              HttpResponse.BodyHandlers.ofString());
      if (response.statusCode() != 200) {
        throw new IOException("/admin/sessions answered " + response.statusCode());
      }
      return JSON.readTree(response.body());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted");
    }
  }

  static List<Long> pids(JsonNode report, String server) {
    List<Long> pids = new ArrayList<>();
    for (JsonNode key : report.path("serverKeys")) {
      if (server.equals(key.path("server").asText())) {
        for (JsonNode session : key.path("sessions")) {
          if (session.has("pid")) {
            pids.add(session.path("pid").asLong());
          }
        }
      }
    }
    return pids;
  }
}
