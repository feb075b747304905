package dev.mcpsupervisor.http;

import static dev.mcpsupervisor.http.TestGateway.answer;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.mcpsupervisor.fixture.FixtureHttpServer;
import dev.mcpsupervisor.fixture.FixtureServer;
import dev.mcpsupervisor.fixture.FixtureTools;
import dev.mcpsupervisor.protocol.config.Isolation;
import dev.mcpsupervisor.protocol.config.ServerConfig;
import dev.mcpsupervisor.protocol.config.ServerSpec;
import dev.mcpsupervisor.protocol.config.UpstreamProtocol;
import java.net.URI;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * Anonymous 2026-07-28 calls to an {@code isolation: context} server over Streamable HTTP: each
 * opens its own upstream session and closes it after its answer, 16 in flight, all on one
 * connector's keep-alive pool. Each gets its own first count. Closing a session once aborted the
 * exchanges whose answers had come but whose futures had not completed, closing connections the
 * pool had already handed to other sessions' POSTs (-32001 "lost while tools/call was in flight",
 * about 10% of these calls).
 */
class SessionChurnTest {
  @Test
  void everyAnonymousCallGetsItsOwnFirstCount() {
    try (FixtureHttpServer remote = FixtureServer.startHttp(0)) {
      ServerSpec spec =
          new ServerSpec.StreamableHttp(
              URI.create(remote.url()), Map.of(), UpstreamProtocol.SESSION);
      ServerConfig shared = TestGateway.server("counter", spec);
      ServerConfig counter =
          ServerConfig.builder("counter", spec)
              .isolation(Isolation.CONTEXT)
              .maxSessions(64)
              .maxInflightPerSession(shared.maxInflightPerSession())
              .requestTimeout(shared.requestTimeout())
              .idleTimeout(shared.idleTimeout())
              .build();
      try (TestGateway gw = TestGateway.start(counter)) {
        List<String> bad = new ArrayList<>();
        int total = 0;
        int waves = 20;
        int width = 16;
        for (int wave = 0; wave < waves; wave++) {
          List<CompletableFuture<HttpResponse<String>>> sent = new ArrayList<>();
          for (int i = 0; i < width; i++) {
            String body =
                new StatelessClient(gw, "{}")
                    .toolCall("\"c" + i + "\"", FixtureTools.COUNT, "{}", "", "");
            sent.add(
                gw.postAsync(
                    "/servers/counter/mcp",
                    null,
                    body,
                    StatelessClient.headers("tools/call", FixtureTools.COUNT)));
          }
          for (CompletableFuture<HttpResponse<String>> f : sent) {
            HttpResponse<String> r = TestGateway.await(f);
            total++;
            if (r.statusCode() != 200 || !"1".equals(TestGateway.text(answer(r)))) {
              bad.add(r.statusCode() + " " + r.body());
            }
          }
        }
        assertEquals(waves * width, total);
        assertEquals(List.of(), bad, bad.size() + " of " + total + " calls went wrong");
      }
    }
  }
}
