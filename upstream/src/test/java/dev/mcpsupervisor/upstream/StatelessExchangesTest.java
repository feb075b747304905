package dev.mcpsupervisor.upstream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.LongNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcRequest;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The adapter's table of open exchanges, by session request id and by upstream round id. */
class StatelessExchangesTest {

  final StatelessExchanges exchanges = new StatelessExchanges();

  static StatelessExchange call(String sessionId) {
    return new StatelessExchange(
        StatelessExchange.Kind.CALL,
        new JsonRpcRequest(TextNode.valueOf(sessionId), "tools/call", null),
        "tools/call",
        JsonRpcCodec.emptyObject());
  }

  @Test
  void aRoundIsFoundByItsUpstreamIdUntilAnswered() {
    StatelessExchange exchange = call("a");
    exchanges.open(exchange);
    long first = exchanges.startRound(exchange);
    long second = exchanges.startRound(exchange);

    assertEquals(first + 1, second);
    assertTrue(exchange.inFlight);
    assertFalse(exchanges.awaits(first + 100, exchange));
    assertTrue(exchanges.awaits(second, exchange));
    assertSame(exchange, exchanges.ofRound(LongNode.valueOf(second)));
    assertSame(exchange, exchanges.ofSessionRequest(TextNode.valueOf("a")));

    assertSame(exchange, exchanges.answered(IntNode.valueOf((int) second)));
    assertFalse(exchange.inFlight);
    assertFalse(exchanges.awaits(second, exchange));
    assertNull(exchanges.answered(LongNode.valueOf(second)), "answered once only");
  }

  @Test
  void idsThatAreNoUpstreamIdsFindNothing() {
    StatelessExchange exchange = call("a");
    exchanges.open(exchange);
    exchanges.startRound(exchange);

    assertNull(exchanges.answered(TextNode.valueOf("1")));
    assertNull(exchanges.answered(null));
    assertNull(exchanges.ofRound(null));
    assertNull(exchanges.ofSessionRequest(null));
    assertTrue(exchange.inFlight);
  }

  @Test
  void forgettingAndClearingDropTheExchange() {
    StatelessExchange kept = call("kept");
    StatelessExchange forgotten = call("forgotten");
    exchanges.open(kept);
    exchanges.open(forgotten);
    long keptRound = exchanges.startRound(kept);
    long forgottenRound = exchanges.startRound(forgotten);

    exchanges.forget(forgotten);
    assertNull(exchanges.ofSessionRequest(TextNode.valueOf("forgotten")));
    assertFalse(exchanges.awaits(forgottenRound, forgotten));

    assertEquals(List.of(kept), exchanges.clear());
    assertFalse(exchanges.awaits(keptRound, kept));
    assertEquals(List.of(), exchanges.clear());
  }
}
