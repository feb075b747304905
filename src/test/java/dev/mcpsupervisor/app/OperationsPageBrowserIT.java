package dev.mcpsupervisor.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.mcpsupervisor.fixture.FixtureProcess;
import io.modelcontextprotocol.client.McpSyncClient;
import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The operations page in a real browser: Debian's Chromium, headless, loads {@code /admin} of the
 * runnable jar with the fixture and server-everything behind it; the test kills the fixture's
 * process and reads the page's DOM until it shows the restart and the server ready again. A
 * screenshot is kept ({@code src/target/operations-page/admin.png}; .ci/run copies it out) and
 * checked for size and content; then a browser with JavaScript off reads the same page as a
 * snapshot. Skipped where no Chromium is installed; .ci/run fails then.
 */
@Timeout(180)
class OperationsPageBrowserIT {

  /** The bound: the restart shows on the page within this. */
  private static final Duration SHOWN_WITHIN = Duration.ofSeconds(5);

  static final Path SCREENSHOT = Path.of("target", "operations-page", "admin.png");

  @TempDir Path dir;

  @Test
  void thePageShowsAKilledUpstreamRestartAndReadyAgain() throws Exception {
    HeadlessChromium.assumeInstalled();
    NodePeers.assumeInstalled(NodePeers.EVERYTHING);
    List<String> fixture = FixtureProcess.stdioCommand();
    Map<String, Map<String, Object>> servers = new LinkedHashMap<>();
    servers.put(
        "fixture",
        GatewayConfigFile.stdio(
            fixture.get(0), fixture.subList(1, fixture.size()).toArray(String[]::new)));
    servers.put(
        "everything",
        GatewayConfigFile.stdio(
            NodePeers.node(), NodePeers.everythingServer().toString(), "stdio"));
    Path config = GatewayConfigFile.write(dir.resolve("gateway.json"), servers);
    try (JarProcess jar = JarProcess.start("--config", config.toString(), "--port", "0")) {
      String url = jar.awaitListening();
      URI gateway = URI.create(url);
      String admin = gateway.getScheme() + "://" + gateway.getAuthority() + "/admin";
      try (McpSyncClient client = GatewayClients.connect(url, "/mcp")) {
        for (int i = 0; i < 20; i++) {
          GatewayClients.callText(client, "fixture__echo", Map.of("message", "call " + i));
          GatewayClients.callText(client, "everything__echo", Map.of("message", "call " + i));
        }
        try (HeadlessChromium browser = HeadlessChromium.open(admin, 1280, 1000)) {
          JsonNode before =
              awaitPage(
                  browser,
                  Duration.ofSeconds(30),
                  page ->
                      page.path("live").asBoolean()
                          && page.path("fixture").path("state").asText().equals("ready")
                          && page.path("everything").path("state").asText().equals("ready"));
          long pid = before.path("fixture").path("pid").asLong();
          assertTrue(pid > 0, "the page shows the fixture's pid: " + before);

          long killed = System.nanoTime();
          ProcessHandle.of(pid).orElseThrow().destroyForcibly();
          JsonNode after =
              awaitPage(
                  browser,
                  SHOWN_WITHIN,
                  page ->
                      page.path("fixture").path("state").asText().equals("ready")
                          && page.path("fixture").path("restarts").asInt() == 1
                          && page.path("lostEvents").asInt() >= 1);
          long shownMillis = (System.nanoTime() - killed) / 1_000_000;
          System.out.println(
              "operations page showed the restart " + shownMillis + " ms after the kill");
          assertNotEquals(pid, after.path("fixture").path("pid").asLong(), "a new process");
          assertEquals("ready", after.path("everything").path("state").asText());
          assertEquals(
              "call again",
              GatewayClients.callText(client, "fixture__echo", Map.of("message", "call again")),
              "the client goes on, on the new process");

          // what an operator would see: wait for the next view, then keep the picture
          awaitPage(
              browser,
              Duration.ofSeconds(5),
              page -> page.path("fixture").path("restarts").asInt() == 1);
          byte[] png = browser.screenshot();
          Files.createDirectories(SCREENSHOT.getParent());
          Files.write(SCREENSHOT, png);
          assertTrue(png.length > 20_000, "a screenshot of a page, not of nothing: " + png.length);
          BufferedImage image = ImageIO.read(new ByteArrayInputStream(png));
          assertEquals(1280, image.getWidth());
          assertTrue(
              distinctColours(image) > 50, "not blank: " + distinctColours(image) + " colours");
        }

        // without JavaScript: the same tree, as a snapshot
        String dom = withoutScripts(admin);
        assertTrue(dom.contains("data-state=\"snapshot\""), "the page says it is a snapshot");
        assertTrue(dom.contains("<article class=\"server\" data-server=\"fixture\""), dom);
        assertTrue(dom.contains("data-restarts=\"1\""), "the restart, in the snapshot too");
        assertTrue(dom.contains("data-kind=\"lost\""), "and the events so far");
      }
    }
  }

  /**
   * Reads the page's DOM (bounded) until {@code shows} holds: whether it is live, each server's
   * first upstream session (state, pid, restarts) and how many "lost" events it lists.
   */
  private static JsonNode awaitPage(
      HeadlessChromium browser, Duration within, Predicate<JsonNode> shows) throws Exception {
    String read =
        "(() => { const row = s => document.querySelector("
            + "'article[data-server=\"' + s + '\"] tr.upstream');"
            + " const one = s => { const r = row(s); return r ? {state: r.dataset.state,"
            + " pid: Number(r.dataset.pid), restarts: Number(r.dataset.restarts)} : {}; };"
            + " return {live: document.getElementById('status').dataset.state === 'live',"
            + " fixture: one('fixture'), everything: one('everything'),"
            + " lostEvents: document.querySelectorAll("
            + "'#events li[data-kind=\"lost\"][data-server=\"fixture\"]').length}; })()";
    long deadline = System.nanoTime() + within.toNanos();
    JsonNode page = browser.evaluate(read);
    while (!shows.test(page)) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError(
            "the page did not show it within " + within + "; it shows " + page);
      }
      TimeUnit.MILLISECONDS.sleep(100); // polling the DOM with a bound: the page updates itself
      page = browser.evaluate(read);
    }
    return page;
  }

  /** The page as a browser with JavaScript off shows it, once it has loaded. */
  private static String withoutScripts(String url) throws Exception {
    try (HeadlessChromium browser = HeadlessChromium.open("about:blank", 1280, 1000)) {
      browser.disableScripts();
      browser.navigate(url);
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
      String html = "";
      while (!html.contains("</main>") && System.nanoTime() < deadline) {
        TimeUnit.MILLISECONDS.sleep(100); // polling the load with a bound
        try {
          html = browser.html();
        } catch (IllegalStateException replaced) {
          // the document was replaced between asking for it and reading it: still loading
        }
      }
      return html;
    }
  }

  private static int distinctColours(BufferedImage image) {
    Set<Integer> colours = new HashSet<>();
    for (int y = 0; y < image.getHeight(); y += 4) {
      for (int x = 0; x < image.getWidth(); x += 4) {
        colours.add(image.getRGB(x, y));
      }
    }
    return colours.size();
  }
}
