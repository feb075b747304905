package dev.mcpsupervisor.app.stdio;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.http.javadsl.model.ContentTypes;
import org.apache.pekko.http.javadsl.model.HttpEntities;
import org.apache.pekko.stream.Materializer;
import org.apache.pekko.stream.javadsl.Source;
import org.apache.pekko.util.ByteString;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The framing of the in-process endpoint's answers: the lines the bridge reads from the gateway's
 * response entity are the ones the JDK's client reads from the same bytes on a socket, however the
 * stream is cut; and a stream that ends, fails or is closed ends the read.
 */
@Timeout(60)
class GatewayEndpointTest {

  /** On the application's settings (its Pekko artifacts' mixed versions allowed). */
  private static final ActorTestKit KIT = ActorTestKit.create(ConfigFactory.load());

  private static final Materializer MATERIALIZER = Materializer.matFromSystem(KIT.system());

  /** Two SSE events (one with a multi-byte character), a keep-alive, CRLF line ends in one. */
  private static final String EVENTS =
      "id: 1\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"m\",\"params\":{\"é\":\"€\"}}\n\n"
          + ": keep-alive\n\n"
          + "id: 2\r\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\r\n\r\n";

  @AfterAll
  static void stop() {
    KIT.shutdownTestKit();
  }

  @Test
  void aStreamCutAnywhereGivesTheLinesOfTheWholeText() {
    byte[] bytes = EVENTS.getBytes(StandardCharsets.UTF_8);
    List<String> whole = EVENTS.lines().toList();
    for (int cut = 0; cut <= bytes.length; cut++) {
      Source<ByteString, ?> chunks =
          Source.from(
              List.of(
                  ByteString.fromArray(Arrays.copyOfRange(bytes, 0, cut)),
                  ByteString.fromArray(Arrays.copyOfRange(bytes, cut, bytes.length))));
      try (Stream<String> lines = GatewayEndpoint.lines(chunks, MATERIALIZER)) {
        assertEquals(whole, lines.toList(), "cut at byte " + cut);
      }
    }
  }

  @Test
  void aJsonAnswerIsItsLinesAtOnce() {
    String json = "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}";
    try (Stream<String> lines =
        GatewayEndpoint.lines(
            HttpEntities.create(ContentTypes.APPLICATION_JSON, json), MATERIALIZER)) {
      assertEquals(List.of(json), lines.toList());
    }
  }

  @Test
  void aFailedStreamEndsTheReadAsABrokenConnectionDoes() {
    ByteString cut = ByteString.fromString("data: {\"jsonrpc\"");
    Source<ByteString, ?> broken =
        Source.from(List.of(ByteString.fromString("data: {}\n"), cut))
            .map(
                chunk -> {
                  if (chunk == cut) {
                    throw new IllegalStateException("cut"); // after the first chunk, in order
                  }
                  return chunk;
                });
    try (Stream<String> lines = GatewayEndpoint.lines(broken, MATERIALIZER)) {
      Iterator<String> each = lines.iterator();
      assertEquals("data: {}", each.next());
      assertThrows(UncheckedIOException.class, each::hasNext);
    }
  }

  @Test
  void closingTheLinesEndsAReadThatWaits() throws Exception {
    Stream<String> lines = GatewayEndpoint.lines(Source.<ByteString>never(), MATERIALIZER);
    Iterator<String> each = lines.iterator();
    CompletableFuture<Boolean> reading = CompletableFuture.supplyAsync(each::hasNext);
    lines.close(); // as the bridge closes the GET stream when its client goes
    ExecutionException ended =
        assertThrows(ExecutionException.class, () -> reading.get(10, TimeUnit.SECONDS));
    assertTrue(ended.getCause() instanceof UncheckedIOException, ended.toString());
  }
}
