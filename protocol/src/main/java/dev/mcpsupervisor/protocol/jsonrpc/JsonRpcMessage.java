package dev.mcpsupervisor.protocol.jsonrpc;

import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * One JSON-RPC 2.0 message. {@code params}, {@code result} and {@code error.data} are Jackson trees
 * passed through untouched; members this model does not name are kept in {@link #extras()} so that
 * new spec features flow through the gateway unchanged. Messages are immutable by convention: never
 * mutate a tree you did not build.
 */
public sealed interface JsonRpcMessage
    permits JsonRpcRequest, JsonRpcNotification, JsonRpcResponse {

  String VERSION = "2.0";

  /**
   * Members other than jsonrpc/id/method/params/result/error, in arrival order; empty, never null.
   */
  ObjectNode extras();
}
