package dev.mcpsupervisor.http;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/** HTTP/1.1 by hand over 127.0.0.1, because java.net.http does not let a client choose its Host. */
final class RawHttp {

  record Response(int status, String body) {}

  private RawHttp() {}

  /**
   * @param host the Host header's value, or null to send none
   * @param body a JSON body, or null for none
   */
  static Response send(int port, String method, String path, String host, String body)
      throws IOException {
    try (Socket socket = new Socket("127.0.0.1", port)) {
      socket.setSoTimeout(30_000);
      byte[] content = body == null ? new byte[0] : body.getBytes(StandardCharsets.UTF_8);
      String head =
          method
              + " "
              + path
              + " HTTP/1.1\r\n"
              + (host == null ? "" : "Host: " + host + "\r\n")
              + "Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"
              + "Connection: close\r\nContent-Length: "
              + content.length
              + "\r\n\r\n";
      OutputStream out = socket.getOutputStream();
      out.write(head.getBytes(StandardCharsets.US_ASCII));
      out.write(content);
      out.flush();
      InputStream in = socket.getInputStream();
      String response = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      int status = Integer.parseInt(response.substring(9, 12));
      int bodyStart = response.indexOf("\r\n\r\n");
      return new Response(status, bodyStart < 0 ? "" : response.substring(bodyStart + 4));
    }
  }
}
