package dev.mcpsupervisor.http.stateless;

import dev.mcpsupervisor.http.stream.Exchange;
import dev.mcpsupervisor.http.stream.ExchangeSink;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcCodec;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcNotification;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import java.util.List;

/**
 * The HTTP exchange a stateless request answers on in one round (the first request's, then each
 * retry's): a plain JSON answer, or an SSE stream once a call's progress or log went on it. Its
 * last event ends it; whoever holds it lets go before telling it, since an exchange that ends tells
 * its request at once. Not thread-safe: its request guards it.
 */
final class RoundExchange {

  private final ExchangeSink sink;
  private final boolean acceptsSse;
  private boolean streaming;

  RoundExchange(ExchangeSink sink, boolean acceptsSse) {
    this.sink = sink;
    this.acceptsSse = acceptsSse;
  }

  boolean is(ExchangeSink other) {
    return sink == other;
  }

  /** A call's progress or log: on the exchange, which from now on streams (if its client can). */
  void notification(JsonRpcNotification notification) {
    if (acceptsSse) {
      sink.tell(new Exchange.Message(JsonRpcCodec.toJson(notification)));
      streaming = true;
    }
  }

  /** The last event: the answer, with {@code status} if it is all the exchange sends. */
  void answer(JsonRpcResponse response, int status) {
    if (status != 200 && !streaming) {
      sink.tell(new Exchange.Refused(status, JsonRpcCodec.toJson(response)));
    } else {
      send(response);
    }
  }

  /** The last event: a 200 answer. */
  void send(JsonRpcResponse response) {
    if (streaming) {
      sink.tell(new Exchange.Message(JsonRpcCodec.toJson(response)));
      sink.tell(new Exchange.Complete(List.of()));
    } else {
      sink.tell(new Exchange.Complete(List.of(JsonRpcCodec.toJson(response))));
    }
  }

  /** The last event: the request was given up. */
  void refuse(String why) {
    sink.tell(Exchange.Refused.of(503, "the request was given up: " + why));
  }
}
