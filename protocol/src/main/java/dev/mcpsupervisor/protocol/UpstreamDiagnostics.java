package dev.mcpsupervisor.protocol;

import java.net.URI;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What clients may learn of an upstream's trouble, and what only the log gets. An upstream's
 * diagnostics may hold secrets: exception texts name its URL (some services put keys in the path),
 * an HTTP error body can say anything, a stdio server's stderr too. A client gets an {@link
 * Incident}'s short random ref; the log gets the ref with the whole detail, every URL in it cut to
 * {@code scheme://host:port}.
 */
public final class UpstreamDiagnostics {

  private static final Logger LOG = LoggerFactory.getLogger(UpstreamDiagnostics.class);

  /**
   * A URL in free text: scheme, authority (maybe with user info), then anything to a blank, but for
   * the punctuation that ends a sentence or clause ("...: refused").
   */
  private static final Pattern URL =
      Pattern.compile(
          "\\b([A-Za-z][A-Za-z0-9+.-]*)://([^\\s/?#\"'<>]*)[^\\s\"'<>]*?(?=[.,:;)\\]]*(?:[\\s\"'<>]|$))");

  private static final SecureRandom RANDOM = new SecureRandom();

  private static final Pattern EXIT_CODE = Pattern.compile("exit code -?\\d+");

  /** The longest {@link #headline}. */
  private static final int HEADLINE_CHARACTERS = 160;

  /** 8 hex digits: enough to find the line in a log, too few to mean anything else. */
  private static final int REF_BYTES = 4;

  private UpstreamDiagnostics() {}

  /** {@code scheme://host:port} (no port when the URL has none): no user info, path or query. */
  public static String redactUrl(URI url) {
    if (url.getHost() == null) {
      return url.getScheme() + "://…";
    }
    return url.getScheme()
        + "://"
        + url.getHost()
        + (url.getPort() == -1 ? "" : ":" + url.getPort());
  }

  /** {@code text} with every URL in it cut to {@code scheme://host:port}; null stays null. */
  public static String redact(String text) {
    if (text == null || !text.contains("://")) {
      return text;
    }
    Matcher matcher = URL.matcher(text);
    StringBuilder redacted = new StringBuilder();
    while (matcher.find()) {
      String authority = matcher.group(2);
      String hostAndPort = authority.substring(authority.lastIndexOf('@') + 1);
      matcher.appendReplacement(
          redacted, Matcher.quoteReplacement(matcher.group(1) + "://" + hostAndPort));
    }
    matcher.appendTail(redacted);
    return redacted.toString();
  }

  /**
   * A failure's reason as the operations page shows it: its first clause, in the supervisor's own
   * words (the failure's kind: "process exited", "transport error", "initialize failed"), without
   * what an upstream put after it (a stdio server's stderr, an HTTP body, an error message), but
   * for a process's exit code. The log keeps the whole reason; empty for null.
   */
  public static String headline(String reason) {
    if (reason == null) {
      return "";
    }
    String text = redact(reason);
    int clause = text.indexOf("; ");
    if (clause >= 0) {
      text = text.substring(0, clause);
    }
    int colon = text.indexOf(": ");
    if (colon >= 0) {
      String rest = text.substring(colon + 2);
      text = text.substring(0, colon) + (EXIT_CODE.matcher(rest).matches() ? ": " + rest : "");
    }
    return text.length() <= HEADLINE_CHARACTERS
        ? text
        : text.substring(0, HEADLINE_CHARACTERS) + "…";
  }

  /**
   * A new incident of {@code server}; nothing is logged until a client is {@link Incident#told}.
   */
  public static Incident incident(String server, String detail) {
    byte[] ref = new byte[REF_BYTES];
    RANDOM.nextBytes(ref);
    return new Incident(server, HexFormat.of().formatHex(ref), detail);
  }

  /**
   * One upstream failure as clients see it: its ref. The first {@link #told} logs it at WARN with
   * its (redacted) detail, so that an operator finds the detail behind the ref a client quotes, and
   * many clients told of the same failure make one log line.
   */
  public static final class Incident {

    private final String server;
    private final String ref;
    private final String detail;
    private final AtomicBoolean logged = new AtomicBoolean();

    private Incident(String server, String ref, String detail) {
      this.server = server;
      this.ref = ref;
      this.detail = detail;
    }

    public String server() {
      return server;
    }

    /** Its ref for a client's eyes; logged with the detail the first time. */
    public String told() {
      if (logged.compareAndSet(false, true)) {
        LOG.warn("{}: ref {}: {}", server, ref, redact(detail));
      }
      return ref;
    }

    @Override
    public String toString() {
      return server + " ref " + ref;
    }
  }
}
