package dev.mcpsupervisor.upstream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.IntNode;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcNotification;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** How a payload becomes messages: in order, line by line; what is not JSON-RPC skipped. */
class ConnectionEventsTest {

  private static final IntNode ID = IntNode.valueOf(7);
  private static final String PROGRESS =
      "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\","
          + "\"params\":{\"progressToken\":1,\"progress\":1}}";
  private static final String RESULT = "{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{}}";

  private final RecordingListener listener = new RecordingListener();
  private final ConnectionEvents events = new ConnectionEvents("test", listener);

  private boolean payload(String text) {
    return events.payload(text.getBytes(StandardCharsets.UTF_8), ID);
  }

  @Test
  void messagesOnSeparateLinesAreDeliveredInOrder() {
    assertTrue(payload(PROGRESS + "\r\n" + RESULT + "\n"));
    assertInstanceOf(JsonRpcNotification.class, next());
    JsonRpcResponse result = (JsonRpcResponse) next();
    assertFalse(result.isError());
    assertNull(BadAnswers.problemOf(result));
  }

  @Test
  void whatIsNotJsonRpcIsSkippedAndAnswersNothing() {
    assertFalse(payload("not JSON at all"));
    assertFalse(payload(PROGRESS + "\nnot JSON"));
    assertInstanceOf(JsonRpcNotification.class, next());
    assertTrue(listener.awaitWithin(received -> true, Duration.ofMillis(50)).isEmpty());
  }

  @Test
  void aResponseToAnotherRequestDoesNotAnswerThisOne() {
    assertFalse(payload("{\"jsonrpc\":\"2.0\",\"id\":8,\"result\":{}}"));
    assertFalse(payload(PROGRESS));
  }

  @Test
  void withoutARequestWhatIsNotJsonRpcIsSkipped() {
    assertFalse(events.payload("not JSON".getBytes(StandardCharsets.UTF_8), null));
    assertTrue(listener.awaitWithin(received -> true, Duration.ofMillis(50)).isEmpty());
  }

  @Test
  void aMalformedResponseFailsTheRequestItNamesAtOnce() {
    assertFalse(events.payload(bytes("{\"jsonrpc\":\"2.0\",\"id\":7,\"error\":\"oops\"}"), null));
    JsonRpcResponse failed = (JsonRpcResponse) next();
    assertTrue(failed.isError());
    assertEquals(ID, failed.id());
    assertNotNull(BadAnswers.problemOf(failed));
  }

  @Test
  void aMalformedResponseAmongLinesFailsItsRequestInOrder() {
    assertTrue(payload(PROGRESS + "\n{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{},\"error\":{}}"));
    assertInstanceOf(JsonRpcNotification.class, next());
    assertNotNull(BadAnswers.problemOf((JsonRpcResponse) next()));
  }

  @Test
  void aMalformedRequestOfTheServersAnswersNothing() {
    assertFalse(events.payload(bytes("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":5}"), null));
    assertFalse(events.payload(bytes("{\"jsonrpc\":\"2.0\",\"id\":{},\"result\":{}}"), null));
    assertTrue(listener.awaitWithin(received -> true, Duration.ofMillis(50)).isEmpty());
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  private Object next() {
    return listener.await(received -> true).message();
  }
}
