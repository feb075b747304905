package dev.mcpsupervisor.testkit;

/**
 * What a scripted MCP server publishes and how it behaves, written in Java: its tools with their
 * answers and faults, its resources. A server run as a child process gets the scenario by class
 * name, so there the class must be public (or public static nested) with a no-argument constructor;
 * a server in this JVM (over HTTP) also takes a lambda.
 *
 * <pre>{@code
 * public static final class Weather implements Scenario {
 *   public void define(Script script) {
 *     script.tool("forecast").answer(args -> "sunny in " + args.get("city"));
 *     script.tool("book").answer("booked").exit(3).answer("booked again");
 *   }
 * }
 * }</pre>
 */
@FunctionalInterface
public interface Scenario {

  void define(Script script);
}
