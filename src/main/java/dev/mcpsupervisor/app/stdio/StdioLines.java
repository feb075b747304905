package dev.mcpsupervisor.app.stdio;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;

/**
 * The lines of a stdio MCP client's stdin, one JSON-RPC message each (the stdio transport: UTF-8,
 * newline-delimited), bounded: a line longer than {@code maxBytes} is read to its end and
 * discarded, and reported as {@link Line#tooLong()}, so one huge line costs no memory and never
 * stops the lines after it. Plain class, for the one thread that reads stdin.
 */
final class StdioLines {

  /** One line: its text, or none when it was too long (then {@code bytes} says how long). */
  record Line(String text, long bytes) {
    boolean tooLong() {
      return text == null;
    }
  }

  private final InputStream in;
  private final int maxBytes;
  private final byte[] buffer = new byte[64 * 1024];
  private int position;
  private int limit;

  StdioLines(InputStream in, int maxBytes) {
    this.in = in;
    this.maxBytes = maxBytes;
  }

  /** The next line without its line end ({@code \n}, or {@code \r\n}); null at the end of input. */
  Line next() throws IOException {
    ByteArrayOutputStream line = new ByteArrayOutputStream();
    long length = 0;
    boolean any = false;
    while (true) {
      if (position == limit) {
        limit = in.read(buffer);
        position = 0;
        if (limit <= 0) {
          limit = 0;
          return any ? finish(line, length) : null;
        }
      }
      any = true;
      int start = position;
      while (position < limit && buffer[position] != '\n') {
        position++;
      }
      int count = position - start;
      if (length + count <= maxBytes) {
        line.write(buffer, start, count);
      }
      length += count;
      if (position < limit) { // at the newline
        position++;
        return finish(line, length);
      }
    }
  }

  private Line finish(ByteArrayOutputStream line, long length) {
    if (length > maxBytes) {
      return new Line(null, length);
    }
    String text = line.toString(StandardCharsets.UTF_8);
    return new Line(text.endsWith("\r") ? text.substring(0, text.length() - 1) : text, length);
  }
}
