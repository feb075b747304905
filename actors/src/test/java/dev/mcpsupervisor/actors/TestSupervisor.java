package dev.mcpsupervisor.actors;

import static org.junit.jupiter.api.Assertions.assertNotNull;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.mcpsupervisor.actors.base.SupervisionEvent;
import dev.mcpsupervisor.actors.base.SupervisorObserver;
import dev.mcpsupervisor.actors.base.SupervisorSnapshot;
import dev.mcpsupervisor.actors.base.SupervisorSnapshot.KeySnapshot;
import dev.mcpsupervisor.actors.base.SupervisorSnapshot.SessionSnapshot;
import dev.mcpsupervisor.protocol.config.Isolation;
import dev.mcpsupervisor.protocol.config.ServerConfig;
import dev.mcpsupervisor.protocol.config.ServerSpec;
import dev.mcpsupervisor.protocol.config.SupervisorConfig;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcError;
import dev.mcpsupervisor.protocol.jsonrpc.JsonRpcResponse;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.actor.testkit.typed.javadsl.ManualTime;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;

/** A supervisor on manual time with a fake upstream, and the waits and views its tests share. */
final class TestSupervisor implements AutoCloseable {

  static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);
  static final Duration IDLE_TIMEOUT = Duration.ofMinutes(5);

  /**
   * A drain's deadline would never come on manual time: close() drains nothing there (the drain is
   * DrainOnCloseTest's, on the real clock).
   */
  private static final Config ON_MANUAL_TIME =
      ConfigFactory.parseString("mcp-supervisor.supervisor.drainTimeout = 0s")
          .withFallback(ManualTime.config());

  final FakeConnector connector = new FakeConnector();
  final CountingObserver observer = new CountingObserver();
  final SessionSupervisor supervisor;
  final ManualTime time;

  private TestSupervisor(SupervisorConfig config, String settings, boolean manualTime) {
    Config actorSystemConfig =
        ConfigFactory.parseString(settings)
            .withFallback(manualTime ? ON_MANUAL_TIME : ConfigFactory.empty())
            .withFallback(ConfigFactory.parseString("pekko.loglevel = WARNING"))
            .withFallback(ConfigFactory.load());
    supervisor = SessionSupervisor.start(config, connector, observer, actorSystemConfig);
    time = manualTime ? ManualTime.get(supervisor.actorSystem()) : null;
  }

  static TestSupervisor start(ServerConfig... servers) {
    return start("", servers);
  }

  /**
   * @param settings HOCON overriding mcp-supervisor.supervisor (or anything else)
   */
  static TestSupervisor start(String settings, ServerConfig... servers) {
    return new TestSupervisor(config(servers), settings, true);
  }

  /**
   * On the real clock: for throughput, where a manual scheduler's bookkeeping would be measured
   * instead.
   */
  static TestSupervisor startOnRealTime(ServerConfig... servers) {
    return startOnRealTime("", servers);
  }

  /**
   * @param settings HOCON overriding mcp-supervisor.supervisor (or anything else)
   */
  static TestSupervisor startOnRealTime(String settings, ServerConfig... servers) {
    return new TestSupervisor(config(servers), settings, false);
  }

  /** A configuration of these servers alone. */
  static SupervisorConfig config(ServerConfig... servers) {
    Map<String, ServerConfig> byName = new LinkedHashMap<>();
    Arrays.stream(servers).forEach(server -> byName.put(server.name(), server));
    return new SupervisorConfig(byName, null);
  }

  static ServerConfig server(
      String name, Isolation isolation, int maxSessions, int maxInflightPerSession) {
    return ServerConfig.builder(
            name, new ServerSpec.Stdio("fake-" + name, List.of(), Map.of(), null))
        .isolation(isolation)
        .maxSessions(maxSessions)
        .maxInflightPerSession(maxInflightPerSession)
        .requestTimeout(REQUEST_TIMEOUT)
        .idleTimeout(IDLE_TIMEOUT)
        .build();
  }

  static ServerConfig shared(String name) {
    return server(name, Isolation.SHARED, 4, 1000);
  }

  /** The queue's next element, waiting up to 10 s. */
  static <T> T poll(BlockingQueue<T> queue) {
    return poll(queue, "nothing arrived within 10 s");
  }

  /**
   * @param nothingMessage the failure when nothing arrives within 10 s
   */
  static <T> T poll(BlockingQueue<T> queue, String nothingMessage) {
    try {
      T next = queue.poll(10, TimeUnit.SECONDS);
      if (next == null) {
        throw new AssertionError(nothingMessage);
      }
      return next;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  static <T> T await(CompletionStage<T> stage) {
    try {
      return stage.toCompletableFuture().get(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    } catch (ExecutionException e) {
      throw new AssertionError("failed: " + e.getCause(), e.getCause());
    } catch (java.util.concurrent.TimeoutException e) {
      throw new AssertionError("no answer within 10 s");
    }
  }

  /** The failure the stage completes with (within 10 s); an AssertionError if it succeeds. */
  static Throwable awaitFailure(CompletionStage<?> stage) {
    try {
      Object value = stage.toCompletableFuture().get(10, TimeUnit.SECONDS);
      throw new AssertionError("expected a failure, got " + value);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    } catch (ExecutionException e) {
      return e.getCause();
    } catch (java.util.concurrent.TimeoutException e) {
      throw new AssertionError("no answer within 10 s");
    }
  }

  static JsonRpcError awaitError(CompletionStage<JsonRpcResponse> stage) {
    JsonRpcResponse response = await(stage);
    assertNotNull(response.error(), () -> "expected an error, got " + response.result());
    return response.error();
  }

  SupervisorSnapshot snapshot() {
    return await(supervisor.snapshot());
  }

  KeySnapshot onlyKey() {
    List<KeySnapshot> keys = snapshot().keys();
    if (keys.size() != 1) {
      throw new AssertionError("expected one key, got " + keys);
    }
    return keys.get(0);
  }

  SessionSnapshot onlySession() {
    List<SessionSnapshot> sessions = onlyKey().sessions();
    if (sessions.size() != 1) {
      throw new AssertionError("expected one session, got " + sessions);
    }
    return sessions.get(0);
  }

  /**
   * Repeats the assertion until it holds (bounded): for effects that happen after an answer was
   * given.
   */
  void awaitAssert(Runnable assertion) {
    TestProbe<Object> probe = TestProbe.create(supervisor.actorSystem());
    probe.awaitAssert(
        Duration.ofSeconds(10),
        () -> {
          assertion.run();
          return null;
        });
  }

  void timePasses(Duration duration) {
    time.timePasses(duration);
  }

  @Override
  public void close() {
    supervisor.close();
  }

  /** Counts lifecycle events. */
  static final class CountingObserver implements SupervisorObserver {
    final AtomicInteger created = new AtomicInteger();
    final AtomicInteger reused = new AtomicInteger();
    final AtomicInteger restarted = new AtomicInteger();
    final Map<String, AtomicInteger> evicted = new ConcurrentHashMap<>();
    final Map<String, AtomicInteger> completed = new ConcurrentHashMap<>();

    /** The first {@link #KEPT_EVENTS} events: a churn test tells hundreds of thousands. */
    final List<SupervisionEvent> events = new java.util.concurrent.CopyOnWriteArrayList<>();

    static final int KEPT_EVENTS = 1_000;

    @Override
    public void sessionReused(String server) {
      reused.incrementAndGet();
    }

    @Override
    public void supervision(SupervisionEvent event) {
      if (events.size() < KEPT_EVENTS) {
        events.add(event);
      }
      switch (event.kind()) {
        case STARTED -> created.incrementAndGet();
        case LOST, RESTART_REQUESTED -> restarted.incrementAndGet();
        case EVICTED ->
            evicted.computeIfAbsent(event.cause(), r -> new AtomicInteger()).incrementAndGet();
        default -> {}
      }
    }

    @Override
    public void requestCompleted(String server, String method, long nanos, String errorKind) {
      completed
          .computeIfAbsent(errorKind == null ? "ok" : errorKind, k -> new AtomicInteger())
          .incrementAndGet();
    }

    /** The kinds of the events told so far, in order. */
    List<SupervisionEvent.Kind> kinds() {
      return events.stream().map(SupervisionEvent::kind).toList();
    }

    int evicted(String reason) {
      AtomicInteger count = evicted.get(reason);
      return count == null ? 0 : count.get();
    }
  }
}
