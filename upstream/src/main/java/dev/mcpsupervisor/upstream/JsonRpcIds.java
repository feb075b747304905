package dev.mcpsupervisor.upstream;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * Request ids compare by value: the parser reads 7 as an int node, a session may have sent it as a
 * long node, and 7.0 is the same number.
 */
final class JsonRpcIds {

  private JsonRpcIds() {}

  /** A map key equal for equal ids, whatever node type holds them. */
  static String key(JsonNode id) {
    return id.isNumber()
        ? "n" + id.decimalValue().stripTrailingZeros().toPlainString()
        : "s" + id.toString();
  }

  static boolean same(JsonNode a, JsonNode b) {
    if (a == null || b == null) {
      return false;
    }
    if (a.isNumber() && b.isNumber()) {
      return a.decimalValue().compareTo(b.decimalValue()) == 0;
    }
    return a.equals(b);
  }
}
