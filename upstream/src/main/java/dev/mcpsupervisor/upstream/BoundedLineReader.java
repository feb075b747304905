package dev.mcpsupervisor.upstream;

import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;

/**
 * Reads LF-terminated lines (a CR before the LF is dropped) as raw bytes, in chunks, so that a line
 * can be handed to the JSON parser without a round trip through String. A line longer than the
 * bound is discarded up to its end and reported as {@link #OVERSIZED}, or, for a reader made {@link
 * #failingPastBound}, fails the read as soon as it passes the bound (an endless line must not keep
 * the reader discarding forever). Not thread-safe. Reads stdio servers' stdout here, and the stdio
 * front's stdin.
 */
public final class BoundedLineReader {

  /** Returned in place of a line longer than the bound. */
  public static final byte[] OVERSIZED = new byte[0];

  private static final int INITIAL_BUFFER_BYTES = 8 * 1024;
  private static final int RETAINED_BUFFER_BYTES = 1024 * 1024;

  private final InputStream in;
  private final int maxLineBytes;
  private final byte[] chunk = new byte[64 * 1024];
  private int chunkStart;
  private int chunkEnd;
  private byte[] line = new byte[INITIAL_BUFFER_BYTES];
  private int lineLength;
  private boolean discarding;
  private final boolean failPastBound;

  public BoundedLineReader(InputStream in, int maxLineBytes) {
    this(in, maxLineBytes, false);
  }

  private BoundedLineReader(InputStream in, int maxLineBytes, boolean failPastBound) {
    this.in = in;
    this.maxLineBytes = maxLineBytes;
    this.failPastBound = failPastBound;
  }

  /**
   * A reader whose {@link #readLine} throws {@link MessageTooLargeException} once a line passes
   * {@code maxLineBytes}, without reading further.
   */
  static BoundedLineReader failingPastBound(InputStream in, int maxLineBytes) {
    return new BoundedLineReader(in, maxLineBytes, true);
  }

  /** The next line without its terminator, {@link #OVERSIZED}, or null at the end of the stream. */
  public byte[] readLine() throws IOException {
    while (true) {
      if (chunkStart == chunkEnd) {
        int read = in.read(chunk);
        if (read < 0) {
          return finishAtEof();
        }
        chunkStart = 0;
        chunkEnd = read;
      }
      int newline = indexOfNewline();
      int end = newline < 0 ? chunkEnd : newline;
      append(chunkStart, end);
      if (discarding && failPastBound) {
        throw new MessageTooLargeException("line", maxLineBytes);
      }
      if (newline < 0) {
        chunkStart = chunkEnd;
        continue;
      }
      chunkStart = newline + 1;
      return takeLine();
    }
  }

  private int indexOfNewline() {
    for (int i = chunkStart; i < chunkEnd; i++) {
      if (chunk[i] == '\n') {
        return i;
      }
    }
    return -1;
  }

  private void append(int from, int to) {
    int count = to - from;
    if (discarding || count == 0) {
      return;
    }
    if (lineLength + count > maxLineBytes) {
      discarding = true;
      lineLength = 0;
      return;
    }
    if (lineLength + count > line.length) {
      line =
          Arrays.copyOf(
              line, Math.min(maxLineBytes, Math.max(line.length * 2, lineLength + count)));
    }
    System.arraycopy(chunk, from, line, lineLength, count);
    lineLength += count;
  }

  private byte[] takeLine() {
    if (discarding) {
      discarding = false;
      return OVERSIZED;
    }
    int length = lineLength > 0 && line[lineLength - 1] == '\r' ? lineLength - 1 : lineLength;
    byte[] taken = Arrays.copyOf(line, length);
    lineLength = 0;
    if (line.length > RETAINED_BUFFER_BYTES) {
      line = new byte[INITIAL_BUFFER_BYTES]; // one huge message must not pin megabytes for the
      // connection's life
    }
    return taken;
  }

  private byte[] finishAtEof() {
    if (lineLength == 0 && !discarding) {
      return null;
    }
    // an unterminated last line still counts: a server may exit right after writing it
    return takeLine();
  }
}
