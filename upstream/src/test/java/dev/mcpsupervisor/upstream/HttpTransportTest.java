package dev.mcpsupervisor.upstream;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.ConnectException;
import java.net.http.HttpTimeoutException;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

class HttpTransportTest {

  @Test
  void onlyAConnectionClosedBeforeAnyAnswerCountsAsNothingSent() {
    IOException stale = new IOException("HTTP/1.1 header parser received no bytes");
    assertTrue(HttpTransport.closedBeforeAnswer(stale));
    assertTrue(HttpTransport.closedBeforeAnswer(new CompletionException(stale)), "unwrapped");
    assertFalse(HttpTransport.closedBeforeAnswer(new HttpTimeoutException("request timed out")));
    assertFalse(HttpTransport.closedBeforeAnswer(new ConnectException("Connection refused")));
    assertFalse(HttpTransport.closedBeforeAnswer(new IOException("connection reset mid-body")));
  }
}
