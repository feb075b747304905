package dev.mcpsupervisor.testkit;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A scripted server's definition, filled by a {@link Scenario}: tools ({@link #tool}), text
 * resources clients may subscribe to ({@link #resource}), and faults of the server as a whole
 * ({@link #refuseInitialize}, {@link #exitOnStart}). Counts ("the first 3 times") run across the
 * server's restarts: a process starts from the calls its journal, which outlives its processes,
 * recorded before it (processes of one server at once count their own calls from there).
 */
public final class Script {

  final Map<String, ToolScript> tools = new LinkedHashMap<>();
  final Map<String, String> resources = new LinkedHashMap<>();
  int refusedInitializes;
  int exitsOnStart;
  int exitOnStartCode;

  Script() {}

  /** The tool of that name, published from the start; its answers are scripted on the result. */
  public ToolScript tool(String name) {
    return tools.computeIfAbsent(name, ToolScript::new);
  }

  /** A text resource; clients may subscribe to it ({@link ToolScript#touch} updates it). */
  public Script resource(String uri, String text) {
    resources.put(uri, text);
    return this;
  }

  /**
   * The first {@code times} {@code initialize} requests are answered with a JSON-RPC error: each is
   * a failed start to the client (session era).
   */
  public Script refuseInitialize(int times) {
    refusedInitializes = times;
    return this;
  }

  /**
   * The first {@code times} processes exit with {@code code} as they start, before reading
   * anything: failures in a row, enough to open a circuit (stdio only).
   */
  public Script exitOnStart(int times, int code) {
    exitsOnStart = times;
    exitOnStartCode = code;
    return this;
  }
}
