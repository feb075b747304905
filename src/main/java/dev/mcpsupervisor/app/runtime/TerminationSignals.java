package dev.mcpsupervisor.app.runtime;

import dev.mcpsupervisor.upstream.ProcessGroups;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Proxy;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * SIGTERM and SIGINT as a future, so the main thread runs the graceful shutdown itself and exits 0
 * afterwards (a JVM shutdown hook would leave the exit status at 143). A second signal while
 * shutting down KILLs every stdio server tree the JVM started, then ends the process at once.
 *
 * <p>The handlers are installed through {@code sun.misc.Signal} (module jdk.unsupported), looked up
 * reflectively so the build stays free of internal-API warnings. Where it is missing, {@link
 * #install()} answers a future that never completes and the JVM's default handling (shutdown hooks)
 * applies.
 */
public final class TerminationSignals {

  public static final int FORCED_EXIT = 130;
  private static final String[] SIGNALS = {"TERM", "INT"};

  private TerminationSignals() {}

  /** Completes with the name of the first termination signal received. */
  public static CompletableFuture<String> install() {
    CompletableFuture<String> received = new CompletableFuture<>();
    AtomicInteger count = new AtomicInteger();
    try {
      Class<?> signalClass = Class.forName("sun.misc.Signal");
      Class<?> handlerClass = Class.forName("sun.misc.SignalHandler");
      InvocationHandler onSignal =
          (proxy, method, args) -> {
            switch (method.getName()) {
              case "handle" -> {
                if (count.incrementAndGet() > 1) {
                  // no waiting, but nothing left behind either: every stdio server tree is KILLed
                  // first
                  int killed = ProcessGroups.killAllNow();
                  System.err.println(
                      "mcp-supervisor: second termination signal, exiting without waiting (killed "
                          + killed
                          + " stdio server"
                          + (killed == 1 ? "" : "s")
                          + ")");
                  Runtime.getRuntime().halt(FORCED_EXIT);
                }
                received.complete(String.valueOf(signalClass.getMethod("getName").invoke(args[0])));
                return null;
              }
              case "hashCode" -> {
                return System.identityHashCode(proxy);
              }
              case "equals" -> {
                return proxy == args[0];
              }
              default -> {
                return "TerminationSignals.handler";
              }
            }
          };
      Object handler =
          Proxy.newProxyInstance(
              TerminationSignals.class.getClassLoader(), new Class<?>[] {handlerClass}, onSignal);
      for (String name : SIGNALS) {
        handle(signalClass, handlerClass, name, handler);
      }
    } catch (ReflectiveOperationException | LinkageError e) {
      // no signal API: keep the JVM's default behaviour
    }
    return received;
  }

  private static void handle(
      Class<?> signalClass, Class<?> handlerClass, String name, Object handler) {
    try {
      Object signal = signalClass.getConstructor(String.class).newInstance(name);
      signalClass.getMethod("handle", signalClass, handlerClass).invoke(null, signal, handler);
    } catch (ReflectiveOperationException | IllegalArgumentException e) {
      // the signal is reserved here (e.g. INT when started in the background with it ignored):
      // leave it alone
    }
  }
}
