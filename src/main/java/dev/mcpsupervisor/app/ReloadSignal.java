package dev.mcpsupervisor.app;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Proxy;

/**
 * SIGHUP reloads the configuration (instead of ending the JVM), through {@code sun.misc.Signal}
 * looked up reflectively as {@link TerminationSignals} does. The reload runs off the signal's
 * thread; where the API or the signal is not available, SIGHUP keeps its default. A JVM started
 * with SIGHUP ignored ({@code nohup}) keeps it ignored whatever handler is asked for, so there
 * SIGHUP reloads nothing, and {@link #install} says so.
 */
final class ReloadSignal {

  private ReloadSignal() {}

  /**
   * From now on SIGHUP runs {@code reload}; false when it could not be installed, or SIGHUP was
   * ignored when the JVM started.
   */
  static boolean install(Runnable reload) {
    try {
      Class<?> signalClass = Class.forName("sun.misc.Signal");
      Class<?> handlerClass = Class.forName("sun.misc.SignalHandler");
      InvocationHandler onSignal =
          (proxy, method, args) ->
              switch (method.getName()) {
                case "handle" -> {
                  reload.run();
                  yield null;
                }
                case "hashCode" -> System.identityHashCode(proxy);
                case "equals" -> proxy == args[0];
                default -> "ReloadSignal.handler";
              };
      Object handler =
          Proxy.newProxyInstance(
              ReloadSignal.class.getClassLoader(), new Class<?>[] {handlerClass}, onSignal);
      Object hup = signalClass.getConstructor(String.class).newInstance("HUP");
      Object previous =
          signalClass.getMethod("handle", signalClass, handlerClass).invoke(null, hup, handler);
      return !handlerClass.getField("SIG_IGN").get(null).equals(previous);
    } catch (ReflectiveOperationException | LinkageError | IllegalArgumentException e) {
      return false;
    }
  }
}
