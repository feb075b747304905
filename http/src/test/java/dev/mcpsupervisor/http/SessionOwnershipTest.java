package dev.mcpsupervisor.http;

import static dev.mcpsupervisor.http.TestGateway.request;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.InputStream;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/**
 * A session belongs to the identity that created it: its id used with another valid token is an
 * unknown session (404) for POST, GET streams and DELETE, and the owner keeps using it.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SessionOwnershipTest {

  private static final String FIXTURE = "/servers/fixture/mcp";
  private static final String OWNER = "owner-token-0123456789abcdef01234567";
  private static final String OTHER = "other-token-0123456789abcdef01234567";

  private TestGateway gateway;

  @BeforeAll
  void start() {
    gateway =
        TestGateway.start(
            TestGateway.gateway(List.of(OWNER, OTHER), List.of(), 1024 * 1024),
            TestGateway.stdioFixture("fixture"));
  }

  @AfterAll
  void stop() {
    gateway.close();
  }

  @Test
  void anotherIdentityCannotPostToTheSession() {
    for (String path : List.of(FIXTURE, "/mcp")) {
      String session = gateway.initializeWith(path, "Authorization", "Bearer " + OWNER);
      HttpResponse<String> stranger =
          gateway.post(path, session, request(1, "ping", "{}"), "Authorization", "Bearer " + OTHER);
      assertEquals(404, stranger.statusCode(), stranger.body());
      HttpResponse<String> owner =
          gateway.post(path, session, request(2, "ping", "{}"), "Authorization", "Bearer " + OWNER);
      assertEquals(200, owner.statusCode(), owner.body());
    }
  }

  @Test
  void anotherIdentityCannotOpenTheSessionsStream() throws Exception {
    String session = gateway.initializeWith(FIXTURE, "Authorization", "Bearer " + OWNER);
    assertEquals(404, streamStatus(session, OTHER, null));
    assertEquals(404, streamStatus(session, OTHER, "0"), "nor resume it");
    assertEquals(200, streamStatus(session, OWNER, null), "the owner can");
  }

  /** The status of a GET stream, read as soon as the headers come (a stream never ends). */
  private int streamStatus(String session, String token, String lastEventId) throws Exception {
    HttpRequest.Builder get =
        gateway
            .request(FIXTURE)
            .GET()
            .header("Accept", "text/event-stream")
            .header("Mcp-Session-Id", session)
            .header("Authorization", "Bearer " + token);
    if (lastEventId != null) {
      get.header("Last-Event-ID", lastEventId);
    }
    HttpResponse<InputStream> response =
        gateway.http.send(get.build(), HttpResponse.BodyHandlers.ofInputStream());
    response.body().close();
    return response.statusCode();
  }

  @Test
  void anotherIdentityCannotDeleteTheSession() {
    String session = gateway.initializeWith(FIXTURE, "Authorization", "Bearer " + OWNER);
    HttpResponse<String> stranger =
        gateway.delete(FIXTURE, session, "Authorization", "Bearer " + OTHER);
    assertEquals(404, stranger.statusCode(), stranger.body());
    HttpResponse<String> stillThere =
        gateway.post(
            FIXTURE, session, request(3, "ping", "{}"), "Authorization", "Bearer " + OWNER);
    assertEquals(200, stillThere.statusCode(), stillThere.body());
    assertEquals(
        200, gateway.delete(FIXTURE, session, "Authorization", "Bearer " + OWNER).statusCode());
  }
}
