package dev.mcpsupervisor.http.stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class EventBufferTest {

  private static Exchange.Message message(int id, int payloadChars) {
    ObjectNode json = JsonRpcCodec.emptyObject().put("jsonrpc", "2.0").put("id", id);
    json.putObject("result").put("text", "x".repeat(payloadChars));
    return new Exchange.Message(json);
  }

  @Test
  void aMessageCountsItsJsonBytes() throws Exception {
    Exchange.Message message = message(1, 1000);
    long json =
        JsonRpcCodec.mapper()
            .writeValueAsString(message.json())
            .getBytes(StandardCharsets.UTF_8)
            .length;
    assertEquals(json, EventBuffer.bytesOf(message));
    assertEquals(
        json + EventBuffer.SMALL_EVENT_BYTES,
        EventBuffer.bytesOf(new Exchange.Complete(List.of(message.json()))));
  }

  @Test
  void refusesWhatWouldPassTheBoundAndKeepsEverythingBefore() {
    Exchange.Message first = message(1, 1000);
    long each = EventBuffer.bytesOf(first);
    EventBuffer buffer = new EventBuffer(each * 3);
    assertTrue(buffer.offer(first));
    assertTrue(buffer.offer(message(2, 1000)));
    assertTrue(buffer.offer(message(3, 1000)));
    assertFalse(buffer.offer(message(4, 1000)), "a fourth would pass the bound");
    assertEquals(each * 3, buffer.bytes());
    // nothing was dropped to make room: the oldest is still first
    assertEquals(1, ((Exchange.Message) buffer.poll()).json().get("id").asInt());
    assertTrue(buffer.offer(message(4, 1000)), "polling one made room for one");
    assertEquals(2, ((Exchange.Message) buffer.poll()).json().get("id").asInt());
    assertEquals(3, ((Exchange.Message) buffer.poll()).json().get("id").asInt());
    assertEquals(4, ((Exchange.Message) buffer.poll()).json().get("id").asInt());
    assertNull(buffer.poll());
    assertEquals(0, buffer.bytes());
  }

  @Test
  void takesOneEventLargerThanTheBoundWhenNothingWaits() {
    EventBuffer buffer = new EventBuffer(100);
    assertTrue(buffer.offer(message(1, 10_000)));
    assertFalse(buffer.offer(message(2, 1)));
    buffer.poll();
    assertTrue(buffer.isEmpty());
    assertTrue(buffer.offer(message(3, 1)));
  }
}
